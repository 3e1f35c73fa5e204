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
option that does read them gets exactly Material's output. ML_BLOG_SPEEDUPS=off keeps Material's
eager excerpts (hooks/speedups.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import speedups
from material.plugins.blog.structure import Excerpt
from mkdocs.plugins import event_priority, get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page


log = get_plugin_logger("defer_excerpts")


class DeferredExcerpt(Excerpt):
    """Material's ``Excerpt``, converted on first read of ``content``, ``more`` or ``toc``."""

    # How many conversions ran in this process (the tests read it through the build's log).
    conversions = 0

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
    DeferredExcerpt.conversions = 0
    return config


def on_post_build(config: MkDocsConfig) -> None:
    log.debug("listings converted %d excerpts", DeferredExcerpt.conversions)


@event_priority(-60)  # after the blog plugin's on_page_markdown (-50), which creates the excerpt
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    excerpt = getattr(page, "excerpt", None)
    if type(excerpt) is Excerpt and speedups.enabled():
        more = excerpt.__dict__.pop("more", None)
        excerpt.__class__ = DeferredExcerpt
        excerpt.__dict__["_more"] = more
    return markdown
