"""The series box and related-post links on a post page.

``series: {name, part}`` and ``related: [slug, ...]`` are checked by post_rules (no gaps, no
unknown slugs, no self-reference). This hook resolves them, once the blog plugin knows every post's
URL, into ``page.meta.series_box`` and ``page.meta.related_posts``, and renders posts through
overrides/post.html, which extends Material's blog-post.html and shows both around the content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blog_pages import post_pages
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files


@event_priority(-95)  # after the blog plugin (-50) has made post pages and their URLs
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    posts = [page for page in post_pages(files) if "slug" in page.meta]
    by_slug = {p.meta["slug"]: p for p in posts}
    series: dict[str, list[Any]] = {}
    for page in posts:
        if page.meta.get("series"):
            series.setdefault(page.meta["series"]["name"], []).append(page)
    for page in posts:
        # Material's default for posts is blog-post.html; ours extends it. An author's own choice stays.
        if page.meta.get("template", "blog-post.html") == "blog-post.html":
            page.meta["template"] = "post.html"
        info = page.meta.get("series")
        if info:
            members = sorted(series[info["name"]], key=lambda p: p.meta["series"]["part"])
            page.meta["series_box"] = {
                "name": info["name"],
                "part": info["part"],
                "parts": [
                    {"part": p.meta["series"]["part"], "title": p.meta["title"], "url": p.url, "current": p is page}
                    for p in members
                ],
            }
        page.meta["related_posts"] = [
            {"title": by_slug[s].meta["title"], "url": by_slug[s].url} for s in page.meta.get("related") or []
            if s in by_slug
        ]
    return files
