"""Escape front-matter text before any template prints it.

Material's templates print ``page.title`` and ``page.meta.description`` without escaping (MkDocs
renders themes without autoescape), so a title such as ``Why <script> tags...`` would inject markup
into the post, the listings, the <title> element and the search index. Replacing these values by
``markupsafe.Markup`` escapes them once; escaping a ``Markup`` again is a no-op, so running at two
events is safe.

Blog posts are parsed by the blog plugin in ``on_files`` (priority -50): their metadata is escaped
right after that, before any listing renders an excerpt. Other pages get theirs in
``on_page_markdown``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blog_pages import post_pages
from markupsafe import escape
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

TEXT_KEYS = ("title", "description")
LIST_KEYS = ("tags",)


def escape_meta(meta: dict[str, Any]) -> None:
    for key in TEXT_KEYS:
        if isinstance(meta.get(key), str):
            meta[key] = escape(meta[key])
    for key in LIST_KEYS:
        if isinstance(meta.get(key), list):
            meta[key] = [escape(v) if isinstance(v, str) else v for v in meta[key]]


@event_priority(-100)  # after the blog plugin has turned post files into pages
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    for page in post_pages(files):
        escape_meta(page.meta)
    return files


@event_priority(100)
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    escape_meta(page.meta)
    return markdown
