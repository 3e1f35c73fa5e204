"""Build the search index with Pagefind over the finished site, at the end of every build.

Search costs a reader nothing until they open it: no page loads an index. Pagefind (the
``pagefind_bin`` wheel from PyPI, pinned and hash-locked in requirements.txt) reads the built HTML
and writes a sharded index into ``pagefind/`` in the site: ``pagefind.js``, its WebAssembly search
core, and small index chunks and per-page fragments. docs/javascripts/search.js imports
``pagefind.js`` the first time a reader opens the header's search box, and Pagefind then fetches
only the chunks a query's words need, so the first search stays small at any number of posts.

What is indexed, and how identifiers rank, is hooks/index_identifiers.py's concern: it marks the
body of each published post with ``data-pagefind-body``, so Pagefind indexes those bodies and no
listing, navigation, footer or draft; inside them, the parts named in ``NOT_INDEXED`` are skipped.
This hook only runs Pagefind, last (after every page is
written), under ``mkdocs build`` and ``mkdocs serve`` alike.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

log = get_plugin_logger("build_search_index")
BUNDLE = "pagefind"  # the folder in the site, which docs/javascripts/search.js imports from
# What overrides/post.html adds around a post's own text, repeated from other pages or from its
# headings: tags, byline, contents box, series box, related posts, the last-updated line.
NOT_INDEXED = ".md-tags, .byline, .post-toc, .series-box, .related-posts, .md-source-file"
# Pagefind's ready-made interfaces: the site has its own (Material's box), so they are not shipped.
UNUSED = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
          "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")


def pagefind_executable() -> Path:
    try:
        from pagefind_bin import get_executable
    except ImportError as exc:
        raise PluginError(
            "build_search_index: the pagefind_bin package is not installed, so the site's search index "
            "cannot be built. Accepted: the pinned pagefind_bin from requirements.txt (run `make build`)"
        ) from exc
    return Path(get_executable())


def run_pagefind(site_dir: Path) -> str:
    """Index site_dir into site_dir/pagefind; Pagefind's summary, or PluginError with its output."""
    cmd = [str(pagefind_executable()), "--site", str(site_dir), "--output-subdir", BUNDLE,
           "--exclude-selectors", NOT_INDEXED, "--quiet"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"build_search_index: Pagefind could not run over {site_dir}: {exc}. "
                          "Accepted: the pagefind_bin executable from requirements.txt") from exc
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        raise PluginError(f"build_search_index: Pagefind failed over {site_dir} (exit {done.returncode}):\n"
                          f"{output}\nAccepted: a site whose pages Pagefind can index")
    if not (site_dir / BUNDLE / "pagefind.js").is_file():
        raise PluginError(f"build_search_index: Pagefind wrote no {BUNDLE}/pagefind.js into {site_dir}:\n{output}")
    for name in UNUSED:
        (site_dir / BUNDLE / name).unlink(missing_ok=True)
    return output


@event_priority(-200)  # after every other on_post_build hook has finished writing the site
def on_post_build(*, config: MkDocsConfig) -> None:
    output = run_pagefind(Path(config.site_dir))
    for line in output.splitlines():
        if "warn" in line.lower():
            log.warning(f"Pagefind: {line.strip()}")
