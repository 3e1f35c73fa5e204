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
written).

Under ``mkdocs build`` Pagefind runs inside the build, which ends when the index is written. Under
``mkdocs serve`` it runs after the rebuild returns, so the reload is not held up by indexing the
whole site (about a third of a rebuild at 100 posts): the rebuild first copies the last index into
the fresh site (search answers at once, from the site as it was a save ago), then a background
thread runs Pagefind over the new site into a folder beside it and swaps it in for ``pagefind/``
(two renames), a moment later. A save that starts another rebuild first stops an indexing still
running and discards what it would have installed, so an index always matches the last finished
rebuild.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
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


def _command(site_dir: Path, output: Path | None = None) -> list[str]:
    where = ["--output-path", str(output)] if output is not None else ["--output-subdir", BUNDLE]
    return [str(pagefind_executable()), "--site", str(site_dir), *where,
            "--exclude-selectors", NOT_INDEXED, "--quiet"]


def _checked(site_dir: Path, bundle: Path, returncode: int, output: str) -> str:
    """Pagefind's summary, or PluginError with its output; drops the interfaces the site does not use."""
    if returncode != 0:
        raise PluginError(f"build_search_index: Pagefind failed over {site_dir} (exit {returncode}):\n"
                          f"{output}\nAccepted: a site whose pages Pagefind can index")
    if not (bundle / "pagefind.js").is_file():
        raise PluginError(f"build_search_index: Pagefind wrote no {BUNDLE}/pagefind.js into {site_dir}:\n{output}")
    for name in UNUSED:
        (bundle / name).unlink(missing_ok=True)
    return output


def run_pagefind(site_dir: Path) -> str:
    """Index site_dir into site_dir/pagefind; Pagefind's summary, or PluginError with its output."""
    try:
        done = subprocess.run(_command(site_dir), capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"build_search_index: Pagefind could not run over {site_dir}: {exc}. "
                          "Accepted: the pagefind_bin executable from requirements.txt") from exc
    return _checked(site_dir, site_dir / BUNDLE, done.returncode, (done.stdout + done.stderr).strip())


def _warn(output: str) -> None:
    for line in output.splitlines():
        if "warn" in line.lower():
            log.warning(f"Pagefind: {line.strip()}")


def _lowest() -> None:
    os.nice(19)


class _Background:
    """Under `mkdocs serve`: one indexing at a time, after the rebuild, installed only if still current."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.process: subprocess.Popen[str] | None = None
        self.thread: threading.Thread | None = None
        self.kept: Path | None = None  # the last installed index, copied into each fresh site

    def stop(self) -> None:
        """A rebuild starts: the running indexing (of the site about to be cleaned) is abandoned."""
        with self.lock:
            self.generation += 1
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    def start(self, site_dir: Path) -> None:
        if self.kept is not None and self.kept.is_dir() and not (site_dir / BUNDLE).exists():
            shutil.copytree(self.kept, site_dir / BUNDLE)
        generation = self.generation
        self.thread = threading.Thread(target=self._index, args=(site_dir, generation), daemon=True,
                                       name="pagefind")
        self.thread.start()

    def _index(self, site_dir: Path, generation: int) -> None:
        work = Path(tempfile.mkdtemp(prefix=".pagefind-", dir=site_dir.parent))
        try:
            with self.lock:
                if generation != self.generation:
                    return
                # At the lowest priority: the next save's rebuild comes first.
                self.process = subprocess.Popen(_command(site_dir, work / BUNDLE), stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True, preexec_fn=_lowest)
            output, _ = self.process.communicate()
            with self.lock:
                if generation != self.generation:
                    return  # a newer rebuild has begun: this index is of a site that is gone
                try:
                    _warn(_checked(site_dir, work / BUNDLE, self.process.returncode, output.strip()))
                except PluginError as exc:
                    log.warning(str(exc))  # the rebuild has already finished: shown, search stays as it was
                    return
                old = site_dir / f".{BUNDLE}-old"
                shutil.rmtree(old, ignore_errors=True)
                if (site_dir / BUNDLE).exists():
                    (site_dir / BUNDLE).rename(old)
                (work / BUNDLE).rename(site_dir / BUNDLE)
                shutil.rmtree(old, ignore_errors=True)
                if self.kept is None:
                    self.kept = Path(tempfile.mkdtemp(prefix="pagefind-kept-")) / BUNDLE
                shutil.rmtree(self.kept, ignore_errors=True)
                shutil.copytree(site_dir / BUNDLE, self.kept)
        except OSError as exc:
            if generation == self.generation:
                log.warning(f"build_search_index: Pagefind could not index {site_dir} in the background: {exc}. "
                            "Accepted: the pagefind_bin executable from requirements.txt")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def close(self) -> None:
        self.stop()
        if self.kept is not None:
            shutil.rmtree(self.kept.parent, ignore_errors=True)
            self.kept = None


_background = _Background()
_serving = False


def on_startup(*, command: str, dirty: bool) -> None:
    global _serving
    _serving = command == "serve" and "background_index" not in os.environ.get("ML_BLOG_SPEEDUPS_OFF", "").split(",")


def on_pre_build(*, config: MkDocsConfig) -> None:
    if _serving:
        _background.stop()  # before MkDocs cleans the site directory


@event_priority(-200)  # after every other on_post_build hook has finished writing the site
def on_post_build(*, config: MkDocsConfig) -> None:
    if _serving:
        _background.start(Path(config.site_dir))
    else:
        _warn(run_pagefind(Path(config.site_dir)))


def on_shutdown() -> None:
    _background.close()
