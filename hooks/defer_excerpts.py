"""Render a post's excerpt only when a template reads it.

Material's blog plugin converts each post's whole Markdown again for every listing that shows it
(the front page, its archive year, each of its categories, the author's profile), then cuts the
HTML at ``<!-- more -->`` (``Excerpt.render``, called from ``BlogPlugin._render_post`` in the
view's ``on_page_context``). With code-heavy posts that is most of the build. Our listings
(overrides/blog.html) print the post's record, ``excerpt.url``, ``excerpt.categories`` and the
post's reading time, never ``excerpt.content``, ``excerpt.more`` or ``excerpt.toc``; and the plugin
reads ``excerpt.toc`` itself only when a ``*_toc`` option is on (ours are off).

So each excerpt becomes a ``DeferredExcerpt``: ``render(view)`` only remembers the view, and
``content``, ``more`` and ``toc`` are produced by Material's own ``Excerpt.render`` the first time
anything reads one of them, for the view it was last asked to render for (Material renders the
excerpt for a view just before that view's template, so the result is the one Material would
have made). One conversion per (excerpt, view) at most, none when nothing reads it. A template or
option that does read them gets exactly Material's output.

Material also builds each excerpt its own Markdown parser when it creates the excerpt (every post,
every build and every serve rebuild: about a tenth of a serve rebuild at 100 posts), though only a
conversion uses it. So the blog plugin creates ``DeferredExcerpt`` objects itself (its module's
``Excerpt`` is this class while the shortcuts are on), whose ``__init__`` is Material's own with
the parser's construction recorded instead of done; the first conversion builds it from the
recorded arguments, with the same tree processors. ML_BLOG_SPEEDUPS=off keeps Material's eager
excerpts (hooks/speedups.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import material.plugins.blog.plugin as blog_plugin
import material.plugins.blog.structure as blog_structure
import speedups
from markdown import Markdown
from material.plugins.blog.structure import Excerpt
from mkdocs.plugins import event_priority, get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page


log = get_plugin_logger("defer_excerpts")


class _ParserLater:
    """Stands in for the Markdown parser while Material's ``Excerpt.__init__`` runs: it records
    the arguments and the tree processors registered on it, so the parser can be built later."""

    def __init__(self, **arguments: Any) -> None:
        self.arguments = arguments
        self.treeprocessors = self
        self.registered: list[tuple[Any, str, float]] = []

    def register(self, item: Any, name: str, priority: float) -> None:
        self.registered.append((item, name, priority))

    def build(self) -> Markdown:
        parser = Markdown(**self.arguments)
        for item, name, priority in self.registered:
            parser.treeprocessors.register(item, name, priority)
        return parser


class DeferredExcerpt(Excerpt):
    """Material's ``Excerpt``, converted on first read of ``content``, ``more`` or ``toc``."""

    # How many conversions ran in this process (the tests read it through the build's log).
    conversions = 0
    created = 0  # how many excerpts were created without their parser
    parsers = 0  # how many of those parsers were built since

    def __init__(self, post: Page, config: MkDocsConfig, files: Files) -> None:
        self.__dict__["_recording"] = True
        blog_structure.Markdown = _ParserLater  # type: ignore[misc,assignment]
        try:
            Excerpt.__init__(self, post, config, files)  # type: ignore[arg-type]
        finally:
            blog_structure.Markdown = Markdown  # type: ignore[misc]
            self.__dict__["_recording"] = False
        DeferredExcerpt.created += 1

    @property
    def md(self) -> Markdown:
        parser = self.__dict__["_md"]
        if isinstance(parser, _ParserLater) and not self.__dict__["_recording"]:
            parser = self.__dict__["_md"] = parser.build()
            DeferredExcerpt.parsers += 1
        return parser

    @md.setter
    def md(self, value: Markdown) -> None:
        self.__dict__["_md"] = value

    def render(self, page: Page, separator: str) -> None:
        state = self.__dict__
        state["_deferred_view"] = (page, separator)
        # Material sets the Markdown it converts here; it is cheap and the same for every view.
        self.markdown = self.post.markdown
        if not self.post._title_from_render:
            self.markdown = "\n\n".join([f"# {self.post.title}", self.markdown])

    def _rendered(self) -> dict[str, Any]:
        state = self.__dict__
        pending = state.get("_deferred_view")
        if pending is None or state.get("_converting"):  # Material's render reads what it just set
            return {"content": state.get("_content"), "more": state.get("_more"), "toc": state.get("_toc")}
        page, separator = pending
        done = state.setdefault("_deferred_done", {})
        if id(page) not in done:
            state["_more"], state["_converting"] = None, True
            try:
                Excerpt.render(self, page, separator)  # sets content, more, toc through the setters
            finally:
                state["_converting"] = False
            DeferredExcerpt.conversions += 1
            done.clear()  # only the view being rendered now can read it again
            done[id(page)] = {"content": state["_content"], "more": state["_more"], "toc": state["_toc"]}
        return done[id(page)]

    @property  # type: ignore[override]
    def content(self) -> str | None:
        return self._rendered()["content"]

    @content.setter
    def content(self, value: str | None) -> None:
        self.__dict__["_content"] = value

    @property
    def more(self) -> str | None:
        return self._rendered()["more"]

    @more.setter
    def more(self, value: str | None) -> None:
        self.__dict__["_more"] = value

    @property  # type: ignore[override]
    def toc(self) -> Any:
        return self._rendered()["toc"]

    @toc.setter
    def toc(self, value: Any) -> None:
        self.__dict__["_toc"] = value


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    DeferredExcerpt.conversions = DeferredExcerpt.created = DeferredExcerpt.parsers = 0
    # The blog plugin creates its excerpts from this name (Material's own class when off).
    blog_plugin.Excerpt = DeferredExcerpt if speedups.enabled() else Excerpt  # type: ignore[misc]
    return config


def on_post_build(config: MkDocsConfig) -> None:
    log.debug("listings converted %d excerpts (parsers: %d of %d built)", DeferredExcerpt.conversions,
              DeferredExcerpt.parsers, DeferredExcerpt.created)


@event_priority(-60)  # after the blog plugin's on_page_markdown (-50), which creates the excerpt
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    excerpt = getattr(page, "excerpt", None)
    if type(excerpt) is Excerpt and speedups.enabled():
        more = excerpt.__dict__.pop("more", None)
        excerpt.__class__ = DeferredExcerpt
        excerpt.__dict__.update(_more=more, _md=excerpt.__dict__.pop("md"), _recording=False)
    return markdown
