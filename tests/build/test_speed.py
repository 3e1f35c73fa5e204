"""The build's shortcuts change nothing but its speed.

* a build dates its pages with one ``git log`` (mlblog/publish/revisions.py), not one per page;
* mlblog/speed/excerpts.py: listings convert no excerpt (nor build its parser) unless a template
  prints one, and one that does gets Material's own output;
* the cards' cache key holds every input;
* mlblog/pages/markup.py's repairs, run only around the attributes they remove, give the page that
  running each pattern over the whole page gives;
* the fixture site built with every shortcut (cold and warm cache) is byte-identical to the one
  built with the build cache and every build shortcut off, git dates included;
* a real `mkdocs serve` is never stale.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from reader_fixtures import write_reader_posts
from support import MKDOCS_ENV, Site, commit, fetch_text, free_port, git, make_site, search_fragments


def counting_git(folder: Path, log: Path) -> dict[str, str]:
    """An environment whose `git` records each call in log, then runs the real git."""
    folder.mkdir()
    real = shutil.which("git")
    (folder / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (folder / "git").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


SLOW = {"cache": False, "speed": {"defer_excerpts": False, "reuse_renders": False,
                                  "background_index": False, "reuse_scans": False}}


def build(site: Site, out: Path, options: dict[str, object] | None = None, **env: str) -> str:
    """A verbose strict build with the plugin's options (all defaults when None)."""
    site.configure(**(options or {}))
    environment = {**MKDOCS_ENV, **env}
    environment.pop("SOURCE_DATE_EPOCH", None)  # the fixture's own last commit (the plugin reads it)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-v", "-f", str(site.root / "mkdocs.yml"),
           "-d", str(out)]
    result = subprocess.run(cmd, cwd=site.root.parent, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stderr


def differing(left: Path, right: Path) -> list[str]:
    found = []
    compared = filecmp.dircmp(left, right)
    found += [str(Path(left, name)) for name in compared.left_only + compared.right_only + compared.diff_files]
    for name in compared.common_files:  # dircmp compares by size and time first: compare bytes
        if Path(left, name).read_bytes() != Path(right, name).read_bytes():
            found.append(str(Path(left, name)))
    for sub in compared.common_dirs:
        found += differing(left / sub, right / sub)
    return sorted(set(found))


def committed_fixture(tmp_path: Path) -> Site:
    site = make_site(tmp_path / "src")
    write_reader_posts(site)
    git(site.root, "init", "-q", "-b", "main")
    (site.root / ".gitignore").write_text("/node_modules\n/site*/\n/.cache/\n__pycache__/\n")
    for number, path in enumerate(sorted(site.docs.rglob("*.md"))):
        git(site.root, "add", str(path))
        git(site.root, "commit", "-q", "-m", f"add {path.name}", when=1_700_000_000 + number * 86_400)
    commit(site.root, "the rest", 1_700_000_000 + 99 * 86_400)
    # One post that is not committed yet: the plugin's own fallback dates it.
    (site.docs / "blog" / "posts" / "compilers-one.md").write_text(
        (site.docs / "blog" / "posts" / "series-1.md").read_text()
        .replace("slug: compilers-one", "slug: compilers-uncommitted")
        .replace("Compilers, part one", "Compilers, uncommitted")
        .replace("series: {name: Compiler fixtures, part: 1}\n", ""))
    return site


def test_the_shortcuts_change_no_byte(tmp_path: Path) -> None:
    site = committed_fixture(tmp_path)
    cache = tmp_path / "cache"
    fast_log = tmp_path / "git-fast.log"
    cold = build(site, tmp_path / "cold", {"cache_dir": str(cache)}, **counting_git(tmp_path / "g1", fast_log))
    warm = build(site, tmp_path / "warm", {"cache_dir": str(cache)})
    build(site, tmp_path / "slow", SLOW)
    assert (cache / "cards").is_dir() and (cache / "readtime").is_dir()
    assert differing(tmp_path / "cold", tmp_path / "slow") == []
    assert differing(tmp_path / "warm", tmp_path / "slow") == []
    # Dated from git (not only from the fallback): a commit's day is on a post's page.
    about = (tmp_path / "cold" / "about" / "index.html").read_text()
    assert re.search(r'<time class="last-update" datetime="2023-[^"]+">[A-Z][a-z]+ \d+, 2023<', about)
    # One history walk, not one per page: `git log` runs once for the pages and once for
    # SOURCE_DATE_EPOCH.
    fast_logs = [line for line in fast_log.read_text().splitlines() if " log " in f" {line} "]
    assert len(fast_logs) == 2 < len(list(site.docs.rglob("*.md"))), fast_logs
    # The listings converted no excerpt (none is printed), in either cache state, so no excerpt
    # parser was built either.
    assert re.search(r"listings converted 0 excerpts \(parsers: 0 of [1-9]\d* built\)", cold)
    assert re.search(r"listings converted 0 excerpts \(parsers: 0 of [1-9]\d* built\)", warm)


def test_a_template_that_prints_excerpts_gets_materials_own(tmp_path: Path) -> None:
    site = committed_fixture(tmp_path)  # dated from git, so two builds' dates agree
    listing = site.root / "overrides" / "blog.html"
    summary = '<p class="post-card__summary">'
    printed = '<div class="excerpt">{{ excerpt.content }}</div>'
    listing.write_text(listing.read_text().replace(summary, printed + summary))
    fast = build(site, tmp_path / "fast", {"cache_dir": str(tmp_path / "cache")})
    build(site, tmp_path / "slow", SLOW)
    assert differing(tmp_path / "fast", tmp_path / "slow") == []
    front = (tmp_path / "fast" / "blog" / "index.html").read_text()
    assert front.count('<div class="excerpt">') >= 3 and "Compilers, part one" in front
    converted, parsers, created = map(int, re.search(
        r"listings converted (\d+) excerpts \(parsers: (\d+) of (\d+) built\)", fast).groups())
    assert converted >= front.count('<div class="excerpt">')
    assert 3 <= parsers <= min(converted, created)  # built when its excerpt is first converted


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path. Chromium (which renders diagrams at build) puts a socket
    under TMPDIR, and a socket's path must fit in 108 bytes: under pytest-xdist, tmp_path
    (/tmp/pytest-of-root/pytest-N/popen-gw1/test_name0/) leaves too little, and Chromium aborts."""
    with tempfile.TemporaryDirectory(prefix="serve-") as folder:
        yield Path(folder)


def test_serve_is_never_stale(tmp_path: Path, short_tmp: Path) -> None:
    """A real `mkdocs serve` (as `make serve` runs it): every change reaches every page it touches."""
    import time
    import urllib.error
    import urllib.request

    site = make_site(tmp_path / "src")
    write_reader_posts(site)
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    served = short_tmp  # mkdocs serve builds into a temporary folder: the one mkdocs_* in here
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-v", "-f", str(site.root / "mkdocs.yml"),
         "--dev-addr", f"127.0.0.1:{port}", "--livereload"],
        cwd=tmp_path, env={**MKDOCS_ENV, "TMPDIR": str(served)},
        stdout=log, stderr=subprocess.STDOUT)

    def wait_for(path: str, check: object, what: str) -> str:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            page = fetch_text(base + path)
            if page is not None and check(page):  # type: ignore[operator]
                return page
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-4000:]
            time.sleep(0.2)
        raise AssertionError(f"{what}: not served within 120 s\n" + (tmp_path / "serve.log").read_text()[-3000:])

    def search_titles() -> list[object]:
        try:
            return [f["meta"]["title"] for f in search_fragments(next(served.glob("mkdocs_*")))]
        except (OSError, StopIteration, ValueError):  # the index is being swapped in
            return []

    posts = site.docs / "blog" / "posts"
    one, two = posts / "series-1.md", posts / "series-2.md"
    one_url, two_url = "blog/2025/08/07/compilers-one/", "blog/2025/09/01/compilers-two/"
    try:
        wait_for("blog/", lambda page: "Compilers, part one" in page, "first build")
        # An edit to a post's text is visible on its page; the other pages are reused, not reconverted.
        one.write_text(one.read_text().replace("<!-- more -->", "<!-- more -->\n\nA sentence added while serving."))
        wait_for(one_url, lambda page: "A sentence added while serving." in page, "edited text")
        time.sleep(1)
        # Unchanged pages were neither converted nor scanned for external loads again.
        assert re.search(r"reused [1-9]\d* conversions and [1-9]\d* scans", (tmp_path / "serve.log").read_text())
        # An edited template shows at once.
        template = site.root / "overrides" / "post.html"
        template.write_text(template.read_text().replace("{% block content %}",
                                                         '{% block content %}<p class="template-edit"></p>', 1))
        wait_for(one_url, lambda page: '<p class="template-edit"></p>' in page, "edited template")
        # A page that would load from another host fails the rebuild, and the browser says which; so
        # does the next rebuild while the pages are unchanged (their scans are reused, findings with them).
        external = '<img src="https://cdn.example.com/x.png">'
        template.write_text(template.read_text().replace('<p class="template-edit"></p>', external, 1))

        def failed_page(rebuilds: int) -> str:
            deadline = time.monotonic() + 120
            while (tmp_path / "serve.log").read_text().count("the rebuild failed") < rebuilds:
                assert time.monotonic() < deadline, f"rebuild {rebuilds} did not fail"
                time.sleep(0.2)
            try:
                urllib.request.urlopen(base + one_url, timeout=5)
            except urllib.error.HTTPError as error:
                return error.read().decode()
            raise AssertionError("a failed rebuild served the page")

        reported = "loads https://cdn.example.com/x.png from another host"
        first = failed_page(1).count(reported)
        assert first == len(list(posts.glob("*.md")))  # every post's page
        one.write_text(one.read_text().replace("A sentence added while serving.", "A sentence edited while serving."))
        assert failed_page(2).count(reported) == first
        template.write_text(template.read_text().replace(external, "", 1))
        wait_for(one_url, lambda page: "A sentence edited while serving." in page and "cdn.example.com" not in page,
                 "page after the template is fixed")
        # A new title reaches the listings, both feeds and the other part's series box.
        one.write_text(one.read_text().replace('title: "Compilers, part one"', 'title: "Compilers, renamed"'))
        wait_for("blog/", lambda page: "Compilers, renamed" in page and "Compilers, part one" not in page,
                 "title in the front page")
        for path in ("feed_rss_created.xml", "feed_json_created.json", two_url, "blog/category/torchcompile/"):
            wait_for(path, lambda page: "Compilers, renamed" in page and "Compilers, part one" not in page,
                     f"title in {path}")
        # Search (indexed in the background after the rebuild) finds it too.
        deadline = time.monotonic() + 120
        while not ("Compilers, renamed" in search_titles() and "Compilers, part one" not in search_titles()):
            assert time.monotonic() < deadline, f"search titles after the rename: {search_titles()}"
            time.sleep(0.2)
        # A changed category moves the post from one category page to the other.
        two.write_text(two.read_text().replace("categories: [torch.compile]", "categories: [Kernel]"))
        wait_for("blog/category/kernel/", lambda page: "Compilers, part two" in page, "post in its new category")
        wait_for("blog/category/torchcompile/", lambda page: "Compilers, part two" not in page,
                 "post gone from its old category")
        # A deleted post disappears from every listing and feed.
        two.unlink()
        for path in ("blog/", "blog/category/kernel/", "blog/archive/2025/", "feed_rss_created.xml", one_url):
            wait_for(path, lambda page: "Compilers, part two" not in page, f"deleted post gone from {path}")
        assert fetch_text(base + two_url) is None
        deadline = time.monotonic() + 120
        while not ("Compilers, renamed" in search_titles() and "Compilers, part two" not in search_titles()):
            assert time.monotonic() < deadline, f"search titles after the deletion: {search_titles()}"
            time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
