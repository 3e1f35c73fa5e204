"""Integrity of what is published, checked on the built site (templates included, not just posts).

* Every internal link and anchor resolves: each href/src/srcset in every built page (listings,
  series boxes, related posts, navigation, feeds' and the sitemap's links) names a file in the site,
  and each #fragment an id in the page it points to. Every image exists; no snippet was left
  unexpanded.
* Every page (front page, posts, categories, archive, author, about, 404) passes the Nu HTML Checker
  (vnu-jar from npm, run once over all pages with the system java) with zero errors.
* The RSS feeds parse without error (feedparser: no bozo) and have the elements RSS 2.0 requires;
  the JSON feeds have the fields JSON Feed 1.1 requires, with the types it gives them.
* Each post's JSON-LD parses and is a BlogPosting with what search engines read: headline,
  description, datePublished, dateModified, author names, image (which exists), publisher, URL.

The real site (conftest's ``real_site``) must pass every check; a fixture site with a broken anchor,
a link to nowhere, a missing image and an HTML error in a template must fail each one.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import feedparser
import pytest
import yaml
from support import ROOT, Site, make_site, post

VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
SITE_URL = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)["site_url"]
LINK_ATTRS = {"href", "src", "poster", "data"}


class _Page(HTMLParser):
    """Ids and outgoing URLs of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.urls: list[tuple[str, str]] = []  # (tag.attribute, url)
        self.ld_json: list[str] = []
        self._in_ld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in LINK_ATTRS or (name == "xlink:href"):
                if not (tag == "link" and dict(attrs).get("rel") in {"preconnect", "dns-prefetch"}):
                    self.urls.append((f"{tag}.{name}", value))
            elif name == "srcset":
                self.urls += [(f"{tag}.srcset", part.split()[0]) for part in value.split(",") if part.strip()]
        self._in_ld = tag == "script" and dict(attrs).get("type") == "application/ld+json"

    def handle_endtag(self, tag: str) -> None:
        self._in_ld = False

    def handle_data(self, data: str) -> None:
        if self._in_ld:
            self.ld_json.append(data)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def pages(site_dir: Path) -> list[Path]:
    """Every HTML document the build rendered (not the raw HTML fragments that posts include)."""
    return sorted(p for p in site_dir.rglob("*.html")
                  if p.read_text(encoding="utf-8")[:200].lstrip().lower().startswith("<!doctype html"))


def _target(site_dir: Path, base: str, url: str) -> tuple[Path, str] | None:
    """The file (and fragment) an internal URL names, or None for URLs that leave the site."""
    if url.startswith(SITE_URL):
        url = "/" + url[len(SITE_URL):]
    parts = urlsplit(urljoin(base, url))
    if parts.scheme not in ("", "file") or parts.netloc or url.startswith(("mailto:", "data:", "javascript:")):
        return None
    path = site_dir / unquote(parts.path).lstrip("/")
    if parts.path.endswith("/") or path.is_dir():
        path = path / "index.html"
    return path, unquote(parts.fragment)


def link_problems(site_dir: Path) -> list[str]:
    """'page: tag.attr url: what is wrong' for every internal link, anchor or image that does not resolve."""
    problems = []
    ids: dict[Path, set[str]] = {}

    def ids_of(path: Path) -> set[str]:
        if path not in ids:
            ids[path] = parse(path).ids if path.suffix == ".html" else set()
        return ids[path]

    for page in pages(site_dir):
        rel = page.relative_to(site_dir).as_posix()
        base = "/" + rel
        parsed = parse(page)
        ids[page] = parsed.ids
        if "--8<--" in page.read_text(encoding="utf-8"):
            problems.append(f"{rel}: a snippet ('--8<--') was not expanded")
        for where, url in parsed.urls:
            if where == "a.href" and url.startswith(("http://", "https://")) and not url.startswith(SITE_URL):
                continue  # external links: another check's business (built pages load nothing from other hosts)
            target = _target(site_dir, base, url)
            if target is None:
                continue
            path, fragment = target
            if not path.is_file():
                problems.append(f"{rel}: {where} {url}: no such file in the site")
            elif fragment and fragment not in ids_of(path):
                problems.append(f"{rel}: {where} {url}: no id '{fragment}' in {path.relative_to(site_dir).as_posix()}")
    for feed in sorted(site_dir.glob("feed_*")):
        urls = re.findall(r"<link>([^<]+)</link>|\"url\": \"([^\"]+)\"|<url>([^<]+)</url>", feed.read_text("utf-8"))
        for url in ("".join(u) for u in urls):
            target = _target(site_dir, "/", url)
            if target is not None and not target[0].is_file():
                problems.append(f"{feed.name}: {url}: no such file in the site")
    for url in re.findall(r"<loc>([^<]+)</loc>", (site_dir / "sitemap.xml").read_text("utf-8")):
        target = _target(site_dir, "/", url)
        if target is not None and not target[0].is_file():
            problems.append(f"sitemap.xml: {url}: no such file in the site")
    return problems


def vnu_errors(files: list[Path]) -> list[str]:
    """The Nu HTML Checker's errors over all files, in one Java run."""
    java = shutil.which("java")
    assert java, "java is missing: `make test` installs Debian's default-jre-headless (make browser)"
    assert VNU_JAR.is_file(), "vnu-jar is missing: run `make test` (npm ci installs package.json's devDependencies)"
    result = subprocess.run([java, "-Xss16m", "-jar", str(VNU_JAR), "--errors-only", "--format", "json",
                             "--exit-zero-always", *map(str, files)], capture_output=True, text=True, timeout=600)
    messages = json.loads(result.stderr)["messages"]
    return [f"{unquote(urlsplit(m['url']).path)}:{m.get('lastLine', '?')}: {m['message']}" for m in messages
            if m["type"] == "error" or m.get("subType") == "fatal"]


def feed_problems(site_dir: Path) -> list[str]:
    problems = []
    for path in sorted(site_dir.glob("feed_rss_*.xml")):
        feed = feedparser.parse(path.read_bytes())
        if feed.bozo:
            problems.append(f"{path.name}: does not parse: {feed.bozo_exception}")
        for key in ("title", "link", "description"):  # RSS 2.0's required channel elements
            if not feed.feed.get(key if key != "description" else "subtitle"):
                problems.append(f"{path.name}: the channel has no <{key}>")
        if not feed.entries:
            problems.append(f"{path.name}: no items")
        for item in feed.entries:
            for key in ("title", "link", "id", "published", "summary"):
                if not item.get(key):
                    problems.append(f"{path.name}: item {item.get('link', '?')}: no {key}")
    for path in sorted(site_dir.glob("feed_json_*.json")):
        try:
            feed = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}: not JSON ({exc})")
            continue
        if feed.get("version") != "https://jsonfeed.org/version/1.1":
            problems.append(f"{path.name}: version is {feed.get('version')!r}, not JSON Feed 1.1")
        problems += [f"{path.name}: {p}" for p in _json_feed_object(feed, {"title": str, "items": list},
                                                                     {"home_page_url": str, "feed_url": str,
                                                                      "description": str, "icon": str,
                                                                      "favicon": str, "language": str,
                                                                      "authors": list})]
        for item in feed.get("items") or []:
            where = f"{path.name}: item {item.get('id', '?')}"
            problems += [f"{where}: {p}" for p in _json_feed_object(item, {"id": str}, {
                "url": str, "title": str, "content_html": str, "content_text": str, "summary": str,
                "image": str, "banner_image": str, "date_published": str, "date_modified": str,
                "authors": list, "tags": list, "language": str})]
            if not (item.get("content_html") or item.get("content_text")):
                problems.append(f"{where}: neither content_html nor content_text")
            for key in ("date_published", "date_modified"):
                if isinstance(item.get(key), str) and not _rfc3339(item[key]):
                    problems.append(f"{where}: {key} {item[key]!r} is not an RFC 3339 date")
    return problems


def _json_feed_object(obj: dict, required: dict[str, type], optional: dict[str, type]) -> list[str]:
    problems = [f"no '{key}'" for key in required if key not in obj]
    for key, kind in {**required, **optional}.items():
        if key in obj and not isinstance(obj[key], kind):
            problems.append(f"'{key}' is {json.dumps(obj[key])[:40]}, not a {kind.__name__} (omit it instead)")
    return problems


def _rfc3339(text: str) -> bool:
    try:
        return dt.datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False


def jsonld_problems(site_dir: Path) -> list[str]:
    """What search engines would miss in each post's BlogPosting."""
    problems = []
    posts = [p for p in pages(site_dir) if re.match(r"blog/\d{4}/\d\d/\d\d/[^/]+/index\.html$",
                                                    p.relative_to(site_dir).as_posix())]
    assert posts, "no post pages"
    for page in posts:
        rel = page.relative_to(site_dir).as_posix()
        blocks = parse(page).ld_json
        if len(blocks) != 1:
            problems.append(f"{rel}: {len(blocks)} JSON-LD blocks, expected one")
            continue
        try:
            data = json.loads(blocks[0])
        except json.JSONDecodeError as exc:
            problems.append(f"{rel}: JSON-LD does not parse ({exc})")
            continue
        if data.get("@context") != "https://schema.org" or data.get("@type") != "BlogPosting":
            problems.append(f"{rel}: not a schema.org BlogPosting")
        for key in ("headline", "description", "datePublished", "dateModified", "image", "mainEntityOfPage"):
            if not isinstance(data.get(key), str) or not data[key].strip():
                problems.append(f"{rel}: no {key}")
        for key in ("datePublished", "dateModified"):
            if isinstance(data.get(key), str) and not _rfc3339(data[key]):
                problems.append(f"{rel}: {key} {data[key]!r} is not an ISO 8601 date with a time zone")
        authors = data.get("author")
        if not isinstance(authors, list) or not authors or not all(
                isinstance(a, dict) and a.get("@type") in {"Person", "Organization"} and a.get("name")
                for a in authors):
            problems.append(f"{rel}: author is not a list of named Person or Organization")
        if not (isinstance(data.get("publisher"), dict) and data["publisher"].get("name")):
            problems.append(f"{rel}: no publisher name")
        if data.get("mainEntityOfPage") != SITE_URL + rel.removesuffix("index.html"):
            problems.append(f"{rel}: mainEntityOfPage {data.get('mainEntityOfPage')!r} is not this page's URL")
        image = _target(site_dir, "/", data.get("image") or "")
        if isinstance(data.get("image"), str) and (image is None or not image[0].is_file()):
            problems.append(f"{rel}: image {data['image']} is not a file in the site")
    return problems


# ---------------------------------------------------------------------------------------------
# The real site passes every check
# ---------------------------------------------------------------------------------------------


def test_every_internal_link_anchor_and_image_of_the_real_site_resolves(real_site: Site) -> None:
    assert link_problems(real_site.site_dir) == []


def test_every_page_kind_of_the_real_site_is_valid_html(real_site: Site) -> None:
    found = pages(real_site.site_dir)
    kinds = {p.relative_to(real_site.site_dir).as_posix() for p in found}
    for kind in ("index.html", "404.html", "about/index.html", "blog/index.html",
                 "blog/category/kernel/index.html", "blog/author/editors/index.html"):
        assert kind in kinds, kind
    assert any(re.match(r"blog/archive/\d{4}/index\.html$", k) for k in kinds)
    assert any(re.match(r"blog/\d{4}/\d\d/\d\d/[^/]+/index\.html$", k) for k in kinds)
    assert vnu_errors(found) == []


def test_the_real_feeds_validate(real_site: Site) -> None:
    assert sorted(p.name for p in real_site.site_dir.glob("feed_*")) == [
        "feed_json_created.json", "feed_json_updated.json", "feed_rss_created.xml", "feed_rss_updated.xml"]
    assert feed_problems(real_site.site_dir) == []


def test_the_real_posts_structured_data_has_what_search_engines_need(real_site: Site) -> None:
    assert jsonld_problems(real_site.site_dir) == []


# ---------------------------------------------------------------------------------------------
# Each check fails on a broken input
# ---------------------------------------------------------------------------------------------

BROKEN_TEMPLATE = """
{% block announce %}
  <a href="#no-such-anchor">Skip</a>
  <a href="{{ 'blog/no-such-page/' | url }}">Gone</a>
  <a href="{{ 'about/' | url }}#no-such-section">About</a>
  <img src="{{ 'assets/no-such-image.png' | url }}" alt="">
  <p><div>A block inside a paragraph</div></p>
{% endblock %}
"""


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A fixture site whose main template has a broken anchor, a bad link, a missing image and an HTML error."""
    site = make_site(tmp_path_factory.mktemp("broken") / "src")
    main = site.root / "overrides" / "main.html"
    main.write_text(main.read_text(encoding="utf-8") + BROKEN_TEMPLATE, encoding="utf-8")
    site.write_post("p.md", post())
    result = site.build()
    assert result.returncode == 0, result.stderr
    return site


def test_a_broken_anchor_a_bad_link_and_a_missing_image_in_a_template_are_named(broken_site: Site) -> None:
    problems = link_problems(broken_site.site_dir)
    about = [p for p in problems if p.startswith("about/index.html: ")]
    assert about == [
        "about/index.html: a.href #no-such-anchor: no id 'no-such-anchor' in about/index.html",
        "about/index.html: a.href ../blog/no-such-page/: no such file in the site",
        "about/index.html: a.href ./#no-such-section: no id 'no-such-section' in about/index.html",
        "about/index.html: img.src ../assets/no-such-image.png: no such file in the site",
    ]
    assert len(problems) == 4 * len(pages(broken_site.site_dir))  # every page, 404 and listings included


def test_an_html_error_in_a_template_is_reported_by_the_nu_checker(broken_site: Site) -> None:
    errors = vnu_errors([broken_site.site_dir / "about" / "index.html"])
    assert len(errors) == 1 and "No “p” element in scope but a “p” end tag seen." in errors[0], errors


def test_a_broken_feed_is_reported(broken_site: Site, tmp_path: Path) -> None:
    site_dir = tmp_path / "site"
    shutil.copytree(broken_site.site_dir, site_dir)
    assert feed_problems(site_dir) == []
    rss = site_dir / "feed_rss_created.xml"
    rss.write_text(rss.read_text(encoding="utf-8").replace("</channel>", ""), encoding="utf-8")
    jf = site_dir / "feed_json_created.json"
    data = json.loads(jf.read_text(encoding="utf-8"))
    del data["items"][0]["id"]
    data["items"][0]["image"] = None
    jf.write_text(json.dumps(data), encoding="utf-8")
    problems = feed_problems(site_dir)
    assert problems[0].startswith("feed_rss_created.xml: does not parse: "), problems
    assert problems[1:] == ["feed_json_created.json: item ?: no 'id'",
                            "feed_json_created.json: item ?: 'image' is null, not a str (omit it instead)"]


def test_structured_data_without_a_headline_or_with_a_missing_image_is_reported(broken_site: Site,
                                                                                tmp_path: Path) -> None:
    site_dir = tmp_path / "site"
    shutil.copytree(broken_site.site_dir, site_dir)
    assert jsonld_problems(site_dir) == []
    page = site_dir / "blog/2025/03/04/a-fixture-post/index.html"
    html = page.read_text(encoding="utf-8")
    html = re.sub(r'"headline": "[^"]*", ', "", html).replace("assets/cards/a-fixture-post.png", "assets/cards/x.png")
    page.write_text(html, encoding="utf-8")
    assert jsonld_problems(site_dir) == [
        "blog/2025/03/04/a-fixture-post/index.html: no headline",
        f"blog/2025/03/04/a-fixture-post/index.html: image {SITE_URL}assets/cards/x.png is not a file in the site",
    ]
