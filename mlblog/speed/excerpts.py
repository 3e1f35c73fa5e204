"""Listings convert a post's excerpt only when a template reads it.

Material's blog plugin converts each post's whole Markdown again for every listing that shows it
(the front page, its year, each of its categories, the author's page), then cuts the HTML at
``<!-- more -->`` (``Excerpt.render``), and builds each excerpt a Markdown parser of its own when it
creates it. The site's listings print the post's record, never the excerpt's ``content``, ``more`` or
``toc``. So each excerpt is created without its parser (its construction is recorded) and converted,
by Material's own ``Excerpt.render``, the first time anything reads one of those, for the listing
Material was rendering it for: exactly Material's output, when and only when it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markdown import Markdown

VIEW = ("content", "more", "toc")  # what Excerpt.render sets and a template could read


@dataclass
class Counts:
    created: int = 0  # excerpts created without their parser
    parsers: int = 0  # parsers built since
    conversions: int = 0

    def summary(self) -> str:
        return f"listings converted {self.conversions} excerpts (parsers: {self.parsers} of {self.created} built)"


class _ParserLater:
    """The Markdown parser while Material's ``Excerpt.__init__`` runs: what it is given, built later."""

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


def _converted_on_read(name: str) -> property:
    return property(lambda self: self._rendered(name),
                    lambda self, value: self.__dict__.__setitem__(f"_{name}", value))


def install(on: bool, counts: Counts) -> None:
    """The blog plugin creates its excerpts from its module's ``Excerpt``: this build's deferred one,
    counting into ``counts``, or Material's own when off."""
    import material.plugins.blog.plugin as blog_plugin
    import material.plugins.blog.structure as structure

    class DeferredExcerpt(structure.Excerpt):
        def __init__(self, post: Any, config: Any, files: Any) -> None:
            self.__dict__["_recording"] = True
            structure.Markdown = _ParserLater  # type: ignore[misc,assignment]
            try:
                structure.Excerpt.__init__(self, post, config, files)
            finally:
                structure.Markdown = Markdown  # type: ignore[misc]
                self.__dict__["_recording"] = False
            counts.created += 1

        @property
        def md(self) -> Markdown:
            parser = self.__dict__["_md"]
            if isinstance(parser, _ParserLater) and not self.__dict__["_recording"]:
                parser = self.__dict__["_md"] = parser.build()
                counts.parsers += 1
            return parser

        @md.setter
        def md(self, value: Markdown) -> None:
            self.__dict__["_md"] = value

        def render(self, page: Any, separator: str) -> None:
            self.__dict__["_deferred_view"] = (page, separator)
            # Material sets the Markdown it converts here; it is cheap and the same for every view.
            self.markdown = self.post.markdown
            if not self.post._title_from_render:
                self.markdown = "\n\n".join([f"# {self.post.title}", self.markdown])

        def _rendered(self, name: str) -> Any:
            state = self.__dict__
            pending = state.get("_deferred_view")
            # Material's render reads what it has just set; a view already converted reads its own.
            if pending is not None and not state.get("_converting") and state.get("_converted_for") != id(pending[0]):
                state["_more"], state["_converting"] = None, True
                try:
                    structure.Excerpt.render(self, *pending)  # sets content, more, toc
                finally:
                    state["_converting"] = False
                counts.conversions += 1
                state["_converted_for"] = id(pending[0])  # only the view being rendered now reads it again
            return state.get(f"_{name}")

        content, more, toc = (_converted_on_read(name) for name in VIEW)

    blog_plugin.Excerpt = DeferredExcerpt if on else structure.Excerpt  # type: ignore[misc]
