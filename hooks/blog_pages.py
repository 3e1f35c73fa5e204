"""Helpers shared by the hooks that work on blog posts (not a hook itself)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import post_rules

if TYPE_CHECKING:
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page


def post_pages(files: Files) -> Iterator[Page]:
    """Post pages the blog plugin has created, drafts and all.

    The blog plugin marks post files as excluded from the navigation while it works, and
    ``Files.documentation_pages()`` skips excluded files by default, so ask for every inclusion.
    """
    for file in files.documentation_pages(inclusion=lambda _level: True):
        if file.page is not None and file.src_uri.startswith(post_rules.POSTS_DIR + "/"):
            yield file.page


def is_post(src_uri: str) -> bool:
    return src_uri.startswith(post_rules.POSTS_DIR + "/") and src_uri.endswith(".md")
