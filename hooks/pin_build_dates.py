"""Every date the build writes comes from the commit, never from the clock: reproducible builds.

Two builds of one commit, in different folders and on different days, give byte-identical sites.
``SOURCE_DATE_EPOCH`` (https://reproducible-builds.org/specs/source-date-epoch/) is the build's
time; MkDocs and the feed plugin already read it (the sitemap's dates, ``sitemap.xml.gz``'s
header, the feeds' ``pubDate`` and ``lastBuildDate``). This hook makes sure it is set and that the
rest follows it:

* ``on_config``: when the environment has no ``SOURCE_DATE_EPOCH`` (the Makefile sets one; a bare
  ``mkdocs build`` does not), set it to the time of the last commit of the repository holding
  ``mkdocs.yml`` (``git log -1 --format=%ct``), for this build only. Outside a git repository it
  stays unset and the clock is used, as MkDocs does.
* ``on_page_markdown`` (after the git-revision-date plugin, before MkDocs renders the sitemap): a
  page the plugin could not date from git (an uncommitted file, a generated page, no git at all)
  got the clock's time; it gets the build time instead. A post's sitemap ``<lastmod>`` is its
  record's ``modified`` date (as in its JSON-LD ``dateModified`` and its feed entry), not the
  build date (nor later than it).
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

import posts
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.utils import get_build_datetime

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

log = get_plugin_logger("pin_build_dates")

GIT_DATES = "git-revision-date-localized"
DATE_KEY = "git_revision_date_localized"
_set_here = False  # whether SOURCE_DATE_EPOCH was set by this hook (then it follows new commits)


def commit_time(folder: str) -> str | None:
    """Unix time of the last commit of the repository holding folder, or None outside git."""
    try:
        result = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=folder, capture_output=True,
                                text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    stamp = result.stdout.strip()
    return stamp if result.returncode == 0 and stamp.isdigit() else None


@event_priority(100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _set_here
    if "SOURCE_DATE_EPOCH" in os.environ and not _set_here:
        return config  # given by the Makefile or the caller
    stamp = commit_time(os.path.dirname(config.config_file_path or "."))
    if stamp is None:
        os.environ.pop("SOURCE_DATE_EPOCH", None)
        _set_here = False
        log.info("not a git checkout: dates that are not in front matter come from the clock")
    else:
        os.environ["SOURCE_DATE_EPOCH"] = stamp
        _set_here = True
    return config


@event_priority(-100)  # after the git-revision-date plugin (priority 0) has dated the page
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    post = posts.record(page)
    if post is not None:  # never after the build: a post dated in the future is only a warning
        page.update_date = min(post.modified.date(), get_build_datetime().date()).isoformat()
    plugin = config.plugins.get(GIT_DATES)
    if plugin is None or DATE_KEY not in page.meta or page.meta.get(f"{DATE_KEY}_hash"):
        return markdown  # dated from a commit (the plugin leaves the hash empty when it fell back)
    locale = plugin.config.get("locale") or "en"
    stamp = int(get_build_datetime().timestamp())
    with_spans = plugin.util.get_date_formats_for_timestamp(stamp, locale=locale, add_spans=True)
    page.meta[DATE_KEY] = with_spans[plugin.config["type"]]
    for kind, text in plugin.util.get_date_formats_for_timestamp(stamp, locale=locale, add_spans=False).items():
        page.meta[f"{DATE_KEY}_raw_{kind}"] = text
    return markdown

