"""What search indexes, how identifiers rank, and Pagefind run over the finished site.

Pagefind indexes only elements marked ``data-pagefind-body`` once any page has one: the article of
each published post gets it, so listings, navigation, the footer, the About page and drafts never
reach the index; inside a post, the parts that repeat other pages or its headings are skipped
(``NOT_INDEXED``). A deep dive's keywords are the identifiers it puts in inline code
(``bucket_cap_mb``, ``Reducer::mark_variable_ready``): each such ``<code>`` is weighted like a
subheading, so a query for one ranks the post that discusses it first.

Pagefind (the ``pagefind_bin`` wheel, pinned in requirements.txt) writes a sharded index into
``pagefind/``; javascripts/search.js imports it the first time a reader opens search, and only the
chunks a query needs are fetched.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from ..posts.problems import Stop

IDENTIFIER_WEIGHT = 5  # of Pagefind's 0 to 10 (h1 7, h2 6, ..., text 1): above prose, below the title
CODE_RE = re.compile(r"<code>([^<]{2,100})</code>")
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][\w.:/\-]*$")  # letters, digits and the joints of qualified names
ARTICLE = '<article class="md-content__inner md-typeset">'
BUNDLE = "pagefind"  # the folder in the site, which javascripts/search.js imports from
# .headerlink: the "¶" MkDocs puts after every heading would end each section title in the results.
NOT_INDEXED = ".md-tags, .byline, .post-toc, .series-box, .related-posts, .md-source-file, .headerlink, .cite"
# Pagefind's ready-made interfaces: the site has its own, so they are not shipped.
UNUSED = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
          "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")


def weight_identifiers(text: str) -> str:
    """The page's HTML with every inline-code identifier weighted for search."""
    def weigh(match: re.Match[str]) -> str:
        if not IDENTIFIER_RE.match(html.unescape(match[1]).strip().rstrip("()")):
            return match[0]
        return f'<code data-pagefind-weight="{IDENTIFIER_WEIGHT}">{match[1]}</code>'
    return CODE_RE.sub(weigh, text)


def mark_indexed(page_html: str) -> str:
    return page_html.replace(ARTICLE, ARTICLE[:-1] + " data-pagefind-body>", 1)


def _command(site_dir: Path, output: Path | None = None) -> list[str]:
    try:
        from pagefind_bin import get_executable
    except ImportError as exc:
        raise Stop("the pagefind_bin package is not installed, so the site's search index cannot be built. "
                   "Accepted: the pinned pagefind_bin from requirements.txt (run `make build`)") from exc
    where = ["--output-path", str(output)] if output is not None else ["--output-subdir", BUNDLE]
    return [str(get_executable()), "--site", str(site_dir), *where, "--exclude-selectors", NOT_INDEXED, "--quiet"]


def _checked(site_dir: Path, bundle: Path, returncode: int, output: str) -> str:
    """Pagefind's output, or Stop with it; drops the interfaces the site does not use."""
    if returncode != 0:
        raise Stop(f"Pagefind failed over {site_dir} (exit {returncode}):\n{output}\n"
                   "Accepted: a site whose pages Pagefind can index")
    if not (bundle / "pagefind.js").is_file():
        raise Stop(f"Pagefind wrote no {BUNDLE}/pagefind.js into {site_dir}:\n{output}")
    for name in UNUSED:
        (bundle / name).unlink(missing_ok=True)
    return output


def index(site_dir: Path) -> list[str]:
    """Index site_dir into site_dir/pagefind; Pagefind's warnings (Stop if it fails)."""
    try:
        done = subprocess.run(_command(site_dir), capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Stop(f"Pagefind could not run over {site_dir}: {exc}. Accepted: the pagefind_bin executable from "
                   "requirements.txt") from exc
    output = _checked(site_dir, site_dir / BUNDLE, done.returncode, (done.stdout + done.stderr).strip())
    return [line.strip() for line in output.splitlines() if "warn" in line.lower()]


class BackgroundIndexer:
    """Under `mkdocs serve`: Pagefind runs after a rebuild returns, so the page reloads first. The
    last index is copied into each fresh site (search answers at once, from the site a save ago),
    then a thread indexes the new site beside it and swaps it in; a newer rebuild abandons an older
    indexing, so an index always matches the last finished rebuild."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.lock = threading.Lock()
        self.generation = 0
        self.process: subprocess.Popen[str] | None = None
        self.thread: threading.Thread | None = None
        self.kept: Path | None = None

    def stop(self) -> None:
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
        self.thread = threading.Thread(target=self._index, args=(site_dir, self.generation), daemon=True,
                                       name="pagefind")
        self.thread.start()

    def _index(self, site_dir: Path, generation: int) -> None:
        work = Path(tempfile.mkdtemp(prefix=".pagefind-", dir=site_dir.parent))
        try:
            with self.lock:
                if generation != self.generation:
                    return
                self.process = subprocess.Popen(_command(site_dir, work / BUNDLE), stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True,
                                                preexec_fn=lambda: os.nice(19))  # the next rebuild first
            output, _ = self.process.communicate()
            with self.lock:
                if generation != self.generation:
                    return
                try:
                    _checked(site_dir, work / BUNDLE, self.process.returncode, output.strip())
                except Stop as exc:
                    self.warn(str(exc))  # the rebuild has finished: shown, search stays as it was
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
                self.warn(f"Pagefind could not index {site_dir} in the background: {exc}")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def close(self) -> None:
        self.stop()
        if self.kept is not None:
            shutil.rmtree(self.kept.parent, ignore_errors=True)
            self.kept = None
