"""Hand the feed plugin each post's dates from its record: ``date: {created, updated}``.

Authors may write ``date: 2025-08-14`` or the mapping form. mkdocs-rss-plugin (configured with
``date.created`` and ``date.updated``) reads those keys from ``page.meta``, so this hook writes the
record's timezone-aware datetimes there, with an absent ``updated`` equal to ``created`` (never the
build time). It is the only hook that writes a post fact into ``page.meta``, and only for that plugin.

Under `mkdocs serve` the plugin's instance lives on between rebuilds and its list of pages
(``pages_to_filter``, filled per page and reset only at start-up) kept every earlier build's
entries: a renamed or deleted post stayed in the feeds. The list is emptied before each build.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import posts
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files


def on_pre_build(config: MkDocsConfig) -> None:
    for name, plugin in config.plugins.items():
        if name.split(" #")[0] == "rss" and isinstance(getattr(plugin, "pages_to_filter", None), list):
            plugin.pages_to_filter = []


@event_priority(-90)  # after the blog plugin (-50) has created the post pages
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    for post in posts.published():
        file = files.get_file_from_path(post.file)
        if file is not None and file.page is not None:
            file.page.meta["date"] = {"created": post.created, "updated": post.modified}
    return files
