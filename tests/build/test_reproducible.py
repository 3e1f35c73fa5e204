"""Two builds of one commit, in different folders and at different times, are byte-identical.

A fixture git repository (the real site's sources and two committed posts, with commit dates in
2025) is cloned twice and built twice, seconds apart, without SOURCE_DATE_EPOCH in the environment:
the site's plugin takes it from the commit. Every built file is compared byte for byte, and
no file may carry today's date. A shallow clone differs only where README.md says it does: the
"Last update" line of pages last changed before the cloned commit.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
import time
from pathlib import Path

from support import MKDOCS_ENV, ROOT, Site, make_site, post

FIRST, SECOND = "2025-01-02T10:00:00+00:00", "2025-03-04T12:30:00+00:00"
ENV = {k: v for k, v in MKDOCS_ENV.items() if k != "SOURCE_DATE_EPOCH"} | {
    "GIT_AUTHOR_NAME": "Editor", "GIT_AUTHOR_EMAIL": "editor@example.invalid",
    "GIT_COMMITTER_NAME": "Editor", "GIT_COMMITTER_EMAIL": "editor@example.invalid",
}
REVISION_DATE = re.compile(r'(<time class="last-update" datetime=")[^"]*(">)[^<]*(</time>)')


def git(*args: str, cwd: Path, date: str | None = None) -> str:
    env = ENV | ({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {})
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def fixture_repo(where: Path) -> Path:
    """The real site's sources with one post per commit: the first in January, the second in March."""
    site = make_site(where)
    (where / ".gitignore").write_text("site/\nnode_modules\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=where)
    site.write_post("first.md", post(title="The first post", slug="the-first-post", date="2024-12-30"))
    git("add", "-A", cwd=where)
    git("commit", "-qm", "first post", cwd=where, date=FIRST)
    site.write_post("second.md", post(title="The second post", slug="the-second-post", date="2025-03-01"))
    git("add", "-A", cwd=where)
    git("commit", "-qm", "second post", cwd=where, date=SECOND)
    return where


def clone_and_build(origin: Path, dest: Path, *clone_args: str) -> Path:
    git("clone", "-q", *clone_args, f"file://{origin}", str(dest), cwd=origin.parent)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    site = Site(dest)
    result = subprocess.run(  # like Site.build, but without SOURCE_DATE_EPOCH from the caller
        [sys.executable, "-m", "mkdocs", "build", "--strict",
         "-f", str(dest / "mkdocs.yml"), "-d", str(site.site_dir)],
        cwd=dest.parent, env=ENV, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return site.site_dir


def files_of(site_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(site_dir).as_posix(): p.read_bytes() for p in sorted(site_dir.rglob("*")) if p.is_file()}


def test_two_builds_of_one_commit_are_byte_identical(tmp_path: Path) -> None:
    origin = fixture_repo(tmp_path / "origin")
    one = files_of(clone_and_build(origin, tmp_path / "one" / "checkout"))
    time.sleep(2)  # the feeds' build dates have seconds: a clock that leaks in shows
    two = files_of(clone_and_build(origin, tmp_path / "somewhere" / "else"))

    assert sorted(one) == sorted(two)
    differing = [name for name in one if one[name] != two[name]]
    assert differing == [], f"files that differ between two builds of one commit: {differing}"

    # The build time is the commit's, and the clock's date is nowhere (not even at day precision).
    commit = dt.datetime.fromisoformat(SECOND)
    assert f"<lastBuildDate>{commit:%a, %d %b %Y %H:%M:%S}" in one["feed_rss_created.xml"].decode()
    today = dt.datetime.now(dt.UTC)
    clock = [today.strftime("%Y-%m-%d"), today.strftime("%d %b %Y"), f"{today:%B} {today.day}, {today.year}"]
    leaks = [(name, stamp) for name, data in one.items() if name.endswith((".html", ".xml", ".json", ".txt"))
             for stamp in clock if stamp in data.decode("utf-8")]
    assert leaks == [], f"today's date in a build of a 2025 commit: {leaks}"
    sitemap = one["sitemap.xml"].decode()
    assert "<lastmod>2024-12-30</lastmod>" in sitemap and "<lastmod>2025-03-01</lastmod>" in sitemap  # posts
    assert "<lastmod>2025-03-04</lastmod>" in sitemap  # other pages: the commit's date


def test_a_shallow_clone_differs_only_in_last_update_dates(tmp_path: Path) -> None:
    """README.md: a shallow clone has no older history, so every page's "Last update" is the cloned
    commit's date; nothing else differs. CI and deploys clone the full history."""
    origin = fixture_repo(tmp_path / "origin")
    full = files_of(clone_and_build(origin, tmp_path / "full"))
    shallow = files_of(clone_and_build(origin, tmp_path / "shallow", "--depth", "1"))

    assert sorted(full) == sorted(shallow)
    differing = sorted(name for name in full if full[name] != shallow[name])
    # Pages last changed in the first commit: the first post and the About page (the second post is
    # in the cloned commit, so its date is the same in both).
    assert differing == ["about/index.html", "blog/2024/12/30/the-first-post/index.html"]
    for name in differing:
        assert "January 2, 2025" in full[name].decode() and "March 4, 2025" in shallow[name].decode()
        normalised = [REVISION_DATE.sub(r"\1\2\3", side[name].decode()) for side in (full, shallow)]
        assert normalised[0] == normalised[1], f"{name} differs in more than its last-update date"
