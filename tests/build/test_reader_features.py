"""Feeds, link previews, structured data, series and vendored assets, checked in the built HTML."""

from __future__ import annotations

import datetime as dt
import json
import re
from html.parser import HTMLParser

import feedparser
from PIL import Image
from reader_fixtures import IDENTIFIER_POSTS
from support import Site, make_site, post, text_of

SITE_URL = "https://ml-systems-deep-dives.github.io/"


def expected_posts() -> dict[str, tuple[str, dt.datetime, dt.datetime]]:
    """slug -> (title, created, updated) as the front matter says."""
    out = {}
    for slug, (title, date, _text) in IDENTIFIER_POSTS.items():
        d = dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC)
        out[slug] = (title, d, d)
    utc = dt.UTC
    out["compilers-one"] = ("Compilers, part one", dt.datetime(2025, 8, 7, tzinfo=utc),
                            dt.datetime(2025, 8, 7, tzinfo=utc))
    out["compilers-two"] = ("Compilers, part two", dt.datetime(2025, 9, 1, tzinfo=utc),
                            dt.datetime(2025, 10, 15, tzinfo=utc))
    return out


def post_url(slug: str, created: dt.datetime) -> str:
    return f"{SITE_URL}blog/{created:%Y/%m/%d}/{slug}/"


def as_utc(struct) -> dt.datetime:
    return dt.datetime(*struct[:6], tzinfo=dt.UTC)


def test_rss_feed_items_match_front_matter(reader_site: Site) -> None:
    feed = feedparser.parse((reader_site.site_dir / "feed_rss_created.xml").read_bytes())
    assert not feed.bozo, feed.bozo_exception
    expected = expected_posts()
    assert len(feed.entries) == len(expected)
    by_link = {e.link: e for e in feed.entries}
    for slug, (title, created, _updated) in expected.items():
        entry = by_link[post_url(slug, created)]
        assert entry.title == title
        assert as_utc(entry.published_parsed) == created  # from front matter, not the build time
        assert entry.author == "The Editors"
        assert entry.summary
    # Newest first.
    dates = [as_utc(e.published_parsed) for e in feed.entries]
    assert dates == sorted(dates, reverse=True)
    series_two = by_link[post_url("compilers-two", expected["compilers-two"][1])]
    assert {t.term for t in series_two.tags} == {"torch.compile"}
    series_one = by_link[post_url("compilers-one", expected["compilers-one"][1])]
    assert {"torch.compile", "dynamo", "inductor"} <= {t.term for t in series_one.tags}


def test_updated_feed_uses_the_updated_date(reader_site: Site) -> None:
    feed = feedparser.parse((reader_site.site_dir / "feed_rss_updated.xml").read_bytes())
    assert not feed.bozo
    first = feed.entries[0]
    assert first.title == "Compilers, part two"
    assert as_utc(first.published_parsed) == dt.datetime(2025, 10, 15, tzinfo=dt.UTC)


def test_json_feed_matches_front_matter(reader_site: Site) -> None:
    # feedparser 6.0 reads RSS and Atom only; JSON Feed is JSON, checked against its spec's fields.
    data = json.loads((reader_site.site_dir / "feed_json_created.json").read_text(encoding="utf-8"))
    assert data["version"].startswith("https://jsonfeed.org/version/1")
    expected = expected_posts()
    items = {item["url"]: item for item in data["items"]}
    for slug, (title, created, _updated) in expected.items():
        item = items[post_url(slug, created)]
        assert item["title"] == title
        assert dt.datetime.fromisoformat(item["date_published"]) == created
    assert data["title"] == "ML Systems Deep Dives" and data["home_page_url"] == SITE_URL
    assert all(item["id"] and item["content_html"] for item in data["items"])


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.jsonld: list[str] = []
        self._in_ld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.meta[a.get("property") or a.get("name")] = a.get("content") or ""
        if tag == "script" and a.get("type") == "application/ld+json":
            self._in_ld = True
            self.jsonld.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_ld = False

    def handle_data(self, data: str) -> None:
        if self._in_ld:
            self.jsonld[-1] += data


def head_of(html: str) -> _Head:
    parser = _Head()
    parser.feed(html)
    return parser


def test_post_has_link_preview_tags_and_a_card_image(reader_site: Site) -> None:
    page = reader_site.html("blog/2025/05/11/ddp-buckets")
    head = head_of(page)
    assert head.meta["og:type"] == "article"
    assert head.meta["og:title"] == "Gradient buckets in DDP"
    assert head.meta["og:url"] == f"{SITE_URL}blog/2025/05/11/ddp-buckets/"
    assert head.meta["twitter:card"] == "summary_large_image"
    assert head.meta["og:description"] == head.meta["twitter:description"] == head.meta["description"]
    image = head.meta["og:image"]
    assert image == f"{SITE_URL}assets/cards/ddp-buckets.png" == head.meta["twitter:image"]
    with Image.open(reader_site.site_dir / "assets" / "cards" / "ddp-buckets.png") as card:
        assert card.size == (1200, 630)
    assert f'<link rel="canonical" href="{SITE_URL}blog/2025/05/11/ddp-buckets/">' in page


def test_every_page_has_link_preview_tags(reader_site: Site) -> None:
    for page in reader_site.site_dir.rglob("index.html"):
        head = head_of(page.read_text(encoding="utf-8"))
        for key in ("og:title", "og:description", "og:image", "twitter:card", "twitter:title"):
            assert head.meta.get(key), (page, key)
        card = head.meta["og:image"].removeprefix(SITE_URL)
        assert (reader_site.site_dir / card).is_file(), card


def test_json_ld_blog_posting(reader_site: Site) -> None:
    head = head_of(reader_site.html("blog/2025/09/01/compilers-two"))
    assert len(head.jsonld) == 1
    data = json.loads(head.jsonld[0])
    assert data["@type"] == "BlogPosting" and data["@context"] == "https://schema.org"
    assert data["headline"] == "Compilers, part two"
    assert data["datePublished"] == "2025-09-01T00:00:00+00:00"
    assert data["dateModified"] == "2025-10-15T00:00:00+00:00"
    assert data["author"] == [{"@type": "Person", "name": "The Editors"}]
    assert data["keywords"] == ["torch.compile"]
    assert data["mainEntityOfPage"] == f"{SITE_URL}blog/2025/09/01/compilers-two/"
    assert head_of(reader_site.html("about")).jsonld == []


def test_json_ld_cannot_be_broken_out_of(tmp_path) -> None:
    from support import post

    site = make_site(tmp_path / "src")
    site.write_post("x.md", post(title="A </script><script>alert(1)</script> title"))
    assert site.build().returncode == 0
    page = site.html("blog/2025/03/04/a-fixture-post")
    head = head_of(page)
    assert json.loads(head.jsonld[0])["headline"] == "A </script><script>alert(1)</script> title"
    assert "<script>alert(1)" not in page


def test_sitemap_and_robots(reader_site: Site) -> None:
    sitemap = (reader_site.site_dir / "sitemap.xml").read_text(encoding="utf-8")
    for slug, (_title, created, _u) in expected_posts().items():
        assert f"<loc>{post_url(slug, created)}</loc>" in sitemap
    robots = (reader_site.site_dir / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {SITE_URL}sitemap.xml" in robots


def test_series_box_and_related_posts(reader_site: Site) -> None:
    one = reader_site.html("blog/2025/08/07/compilers-one")
    box = re.search(r'<aside class="series-box.*?</aside>', one, re.DOTALL).group(0)
    assert "Part 1 of 2 in the series “Compiler fixtures”" in text_of(box)
    assert '<strong aria-current="page">Compilers, part one</strong>' in box
    assert 'href="../../../09/01/compilers-two/"' in box
    related = re.search(r'<aside class="related-posts".*?</aside>', one, re.DOTALL).group(0)
    assert 'href="../../../06/02/inductor-scheduler/"' in related and "How Inductor fuses" in related
    two = reader_site.html("blog/2025/09/01/compilers-two")
    assert "Part 2 of 2" in text_of(two)
    assert '<strong aria-current="page">Compilers, part two</strong>' in two
    assert "series-box" not in reader_site.html("blog/2025/05/11/ddp-buckets")
    # The box sits under the post's title, before its text.
    assert one.index("<h1>Compilers, part one</h1>") < one.index('class="series-box') < one.index("online softmax")


def test_math_and_diagrams_are_rendered_at_build_and_no_renderer_ships(reader_site: Site) -> None:
    site = reader_site.site_dir
    page = reader_site.html("blog/2025/08/07/compilers-one")
    # KaTeX's HTML (with MathML) in place of the TeX; both palettes' SVGs in place of the fence.
    assert page.count('<span class="arithmatex"><span class="katex">') == 2
    assert page.count('<div class="arithmatex"><span class="katex-display">') == 1
    assert "<math" in page and "\\(" not in page and "\\[" not in page
    assert '<pre class="mermaid-diagram">' not in page
    assert page.count('<div class="mermaid-diagram__light"><svg id="diagram-1-light"') == 1
    assert page.count('<div class="mermaid-diagram__dark"><svg id="diagram-1-dark"') == 1
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    # KaTeX's stylesheet (woff2 fonts only) where there is math, and nowhere else.
    assert page.count('href="../../../../../assets/katex/katex.min.css"') == 1
    assert "katex.min.css" not in reader_site.html("blog/2025/05/11/ddp-buckets")
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    assert "woff2" in css and ".woff)" not in css and ".ttf" not in css
    assert (site / "assets" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").is_file()
    # No renderer script anywhere in the site, nor a reference to one.
    built = [p for p in site.rglob("*") if p.is_file()]
    assert not [p for p in built if p.name in {"katex.min.js", "mermaid.min.js", "math-and-diagrams.js"}]
    assert not (site / "assets" / "vendor").exists()
    theme = site / "assets" / "javascripts"  # Material's bundle names its CDN Mermaid, for class="mermaid" only
    for path in built:
        if path.suffix in {".html", ".js", ".css", ".json", ".xml"} and theme not in path.parents:
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not re.search(r"katex(\.min)?\.js|mermaid(\.min)?\.js|math-and-diagrams", text), path
    assert "unpkg.com" not in page and "cdn.jsdelivr" not in page


def test_each_page_loads_only_the_scripts_its_figures_need(reader_site: Site) -> None:
    def scripts(path: str) -> list[str]:
        found = re.findall(r'<script defer src="([^"]+)"', reader_site.html(path))
        return [src.rsplit("javascripts/", 1)[-1] for src in found]

    # core.js loads the figure's own script (ifig/roofline.js) after it has run itself.
    assert scripts("blog/2025/08/07/compilers-one") == ["ifig/core.js", "figure-zoom.js", "a11y.js"]
    # No figure, code block, table or formula: only the BibTeX block of "Cite this post", which can
    # scroll sideways on a phone and so gets a11y.js's keyboard access.
    assert scripts("blog/2025/05/11/ddp-buckets") == ["a11y.js"]
    listing = reader_site.html("blog")
    assert "ifig/" not in listing and "figure-zoom.js" not in listing
    # Inside Material's container, whose scripts instant navigation runs again.
    page = reader_site.html("blog/2025/08/07/compilers-one")
    container = page.index('data-md-component="container"')
    assert container < page.index("ifig/core.js") < page.index("</main>")


def test_missing_node_modules_is_a_clear_error(tmp_path) -> None:
    site = make_site(tmp_path / "src")
    (site.root / "node_modules").unlink()
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "run `make build` (or `npm ci`)" in result.stderr


def test_a_series_with_one_published_part_announces_only_that_part(tmp_path) -> None:
    from support import post

    site = make_site(tmp_path / "src")
    site.write_post("only.md", post(extra="series: {name: Solo, part: 1}\n"))
    assert site.build().returncode == 0
    box = re.search(r'<aside class="series-box.*?</aside>', site.html("blog/2025/03/04/a-fixture-post"), re.DOTALL)
    # Only what exists: no list of one, no promise of parts that may never come.
    assert text_of(box.group(0)) == "Part 1 of the series “Solo”"


def test_a_figure_without_its_script_stops_the_build(tmp_path) -> None:
    """core.js loads each figure's script by the figure's name, so a name with no script is an
    author's mistake the build names (strict builds stop on it), not a figure that stays static."""
    site = make_site(tmp_path / "src")
    site.write_post("typo.md", post(title="A typo", slug="a-typo", body=(
        "Opening.\n\n<!-- more -->\n\n<figure class=\"ifig\" data-ifig=\"roofine\" markdown=\"0\">\n"
        "<div class=\"ifig-static\"><p>Static.</p></div>\n</figure>\n")))
    result = site.build()
    assert result.returncode != 0
    assert "an interactive figure needs docs/javascripts/ifig/roofine.js, which does not exist" in result.stderr
    assert "Traceback" not in result.stderr
