"""One date shape for every post's metadata: ``date: {created: datetime, updated: datetime}``.

Authors may write ``date: 2025-08-14`` or the mapping form; post_rules accepts both. Material's blog
plugin parses either, but the feeds (mkdocs-rss-plugin, configured with ``date.created`` and
``date.updated``) and the JSON-LD read ``page.meta``. Normalising here, right after the blog plugin
has made its pages, means they all see timezone-aware datetimes taken from the front matter, and
an absent ``updated`` equals ``created`` (never the build time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import post_rules
from blog_pages import post_pages
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files


@event_priority(-90)  # after the blog plugin (-50) has created the post pages
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    for page in post_pages(files):
        dates = post_rules.PostDates.model_validate(post_rules.to_dates(page.meta["date"]))
        page.meta["date"] = {"created": dates.created, "updated": dates.updated or dates.created}
    return files
