"""The series box and related-post links on a post page, from published posts only.

``series: {name, part}`` and ``related: [slug, ...]`` are checked by post_checks (no gaps, no
unknown slugs, no self-reference, no published part after a draft). This hook renders posts through
overrides/post.html, which extends Material's blog-post.html, and gives that template the two lists
in its context. Drafts never appear in them: a draft's page is not built, so a link would 404.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import posts
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page


@event_priority(-95)  # after the blog plugin (-50) has made the post pages
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    for post in posts.published():
        file = files.get_file_from_path(post.file)
        # Material renders posts with blog-post.html; ours extends it. An author's own choice stays.
        if file is not None and file.page is not None and post.meta.template is None:
            file.page.meta["template"] = "post.html"
    return files


def on_page_context(context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation
                    ) -> dict[str, Any]:
    post = posts.record(page)
    if post is None:
        return context
    parts = posts.series_parts(post)
    context["series"] = {"name": post.meta.series.name, "part": post.meta.series.part, "parts": parts} \
        if post.meta.series is not None and parts else None
    context["related_posts"] = posts.related(post)
    return context
