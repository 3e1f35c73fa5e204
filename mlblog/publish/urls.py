"""The site's published URLs and their manifest, ``urls.txt``: once a URL is published it is shared,
bookmarked and linked from elsewhere, so it must keep working.

``urls.txt``, next to mkdocs.yml and committed, lists every public URL the site serves, one path per
line, sorted: every HTML page (posts, listings and their pagination, category, archive and author
pages, about, the home page, 404.html, redirect pages), the feeds, the sitemap, robots.txt, the
link-preview cards and CNAME. Theme and vendor files, figures and companion data are not listed: their
names follow the theme's versions and the posts' sources. ``compare`` is the rule: every listed URL
must still be built or redirected.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "urls.txt"
HEADER = (
    "# Every public URL this site has published, one path per line from the site root, sorted.\n"
    "# The build fails when one disappears without a redirect; `make urls` rewrites this file.\n"
)

# Files other than HTML pages that readers and other sites link to, as paths from the site root: the
# feeds (mkdocs-rss-plugin), what search engines crawl, link previews and GitHub Pages' custom domain.
PUBLIC_FILES = ("feed_*.xml", "feed_*.json", "sitemap.xml", "sitemap.xml.gz", "robots.txt", "assets/cards/*.png",
                "CNAME")
CARD = "/assets/cards/{slug}.png"
POST_URL = re.compile(r"/blog/\d{4}/\d{2}/\d{2}/(?P<slug>[^/]+)/")  # post_schema.Post.url
PLACEHOLDER = "<the page that replaces it>.md"


def _matches(path: str, pattern: str) -> bool:
    """fnmatch per path segment, so that ``feed_*.xml`` matches only at the site root."""
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=True))


def url_of(path: str) -> str:
    """The URL a built file is served at: ``blog/index.html`` -> ``/blog/``, ``404.html`` -> ``/404.html``."""
    return "/" + (path.removesuffix("index.html") if path.rsplit("/", 1)[-1] == "index.html" else path)


def served_urls(site_dir: Path) -> set[str]:
    """Every public URL of the site built into site_dir."""
    paths = (file.relative_to(site_dir).as_posix() for file in site_dir.rglob("*") if file.is_file())
    return {url_of(path) for path in paths if (path.endswith(".html") and not path.startswith("assets/"))
            or any(_matches(path, pattern) for pattern in PUBLIC_FILES)}


def page_url(source: str) -> str:
    """The URL MkDocs serves a Markdown source at, with directory URLs: a/b.md and a/b/index.md -> /a/b/."""
    stem = source.removesuffix(".md")
    if stem.rsplit("/", 1)[-1] in ("index", "README"):
        stem = stem.rsplit("/", 1)[0] if "/" in stem else ""
    return "/" + (stem + "/" if stem else "")


def redirect_urls(redirect_maps: Mapping[str, str]) -> dict[str, str]:
    """URL -> target of each mkdocs-redirects entry ('old/page.md': 'blog/posts/new.md')."""
    return {page_url(old): str(new) for old, new in redirect_maps.items()}


def redirect_key(url: str) -> str:
    """The redirect_maps key that serves a redirect page at a directory URL: /a/b/ -> a/b/index.md."""
    return url.strip("/") + "/index.md" if url != "/" else "index.md"


@dataclass(frozen=True)
class Listed:
    line: int
    url: str


def read_manifest(text: str) -> list[Listed]:
    """The URLs of a manifest with their line numbers (blank lines and # comments skipped)."""
    return [Listed(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]


def format_manifest(urls: Iterable[str]) -> str:
    return HEADER + "".join(f"{url}\n" for url in sorted(set(urls)))


def _replacement(url: str, candidates: list[str], pages: Mapping[str, str]) -> str:
    """The source of the one new page in url's folder (a renamed slug keeps the date folder), else
    a placeholder: a guess across folders would too often name an unrelated new post."""
    parent = posixpath.dirname(url.rstrip("/"))
    near = [c for c in candidates if posixpath.dirname(c.rstrip("/")) == parent]
    return pages[near[0]] if len(near) == 1 else PLACEHOLDER


def compare(listed: list[Listed], built: set[str], redirects: Mapping[str, str],
            pages: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(problems, new URLs): the manifest's URLs this build loses, and the built URLs it lacks.

    ``built`` is what the build serves (redirect pages included), ``redirects`` maps each
    redirected URL to its target as mkdocs.yml gives it, ``pages`` maps every page URL a redirect
    may point to onto its source file (relative to docs/), for the suggested redirect.
    """
    known = {item.url for item in listed}
    new = sorted(built - known)
    candidates = [url for url in new if url in pages]
    # A card is only named by its post's page: once that page is a redirect, nothing shows the card.
    redirected_cards = {CARD.format(slug=match["slug"]) for url in redirects
                        if url in built and (match := POST_URL.fullmatch(url))}
    lost = [item for item in listed if item.url not in built and item.url not in redirected_cards]
    problems = []
    for item in lost:
        url, where = item.url, f"{MANIFEST}: line {item.line}: {item.url}"
        if url in redirects:
            problems.append(
                f"{where} was published, and its redirect in mkdocs.yml points to '{redirects[url]}', "
                "which is not a page of this build. Accepted: a redirect_maps target that is a page's "
                "source file relative to docs/ (e.g. 'blog/posts/my-post.md') or a full https:// URL, "
                "or `make urls` to accept that the URL is gone")
        elif url.endswith("/"):
            problems.append(
                f"{where} was published, and this build neither builds nor redirects it. Accepted: a "
                f"redirect in mkdocs.yml, plugins: redirects: redirect_maps: '{redirect_key(url)}': "
                f"'{_replacement(url, candidates, pages)}', or `make urls` to accept that the URL is gone")
        else:
            problems.append(
                f"{where} was published, and this build no longer writes it. Accepted: build it again "
                "(only pages can be redirected), or `make urls` to accept that the URL is gone")
    return problems, new


def format_lost(problems: list[str]) -> str:
    noun = "URL" if len(problems) == 1 else "URLs"
    return "\n".join([f"{len(problems)} published {noun} disappeared ({MANIFEST} lists every URL the site has "
                      "published):", *(f"  - {p}" for p in problems)])


def format_new(new: list[str]) -> str:
    noun = "URL is" if len(new) == 1 else "URLs are"
    return (f"{MANIFEST}: {len(new)} {noun} built but not listed: {', '.join(new)}. Accepted: run "
            f"`make urls` and commit {MANIFEST}, so that the build keeps them from now on")
