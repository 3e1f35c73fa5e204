"""Front-matter text is escaped where it is printed, never at the source.

One fixture site whose series part one carries a hostile title and description, and part two a
title with inline code in backticks. Every place a title or description reaches is checked: HTML
outputs show the text escaped (and never as markup), each code span as <code>; non-HTML outputs
(the head's meta, feeds, JSON-LD, the card, Pagefind's search index) carry the plain text itself,
without backticks; docs/javascripts/search.js prints a result's title as text in live search results.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable

import feedparser
import pytest
from browser import new_page, search, serve
from playwright.sync_api import Browser, expect
from support import Site, make_site, post, search_fragments

TITLE = 'Part <b>one</b> & "quotes" </script><script>alert(1)</script>'
DESCRIPTION = "Guards & NCCL with 'quotes' and \"double quotes\", checked wherever a description is printed."
SLUG = "hostile-part-one"
URL = "blog/2025/03/04/hostile-part-one/"
PART_TWO = "blog/2025/04/01/hostile-part-two/"
CODE_TITLE = "Part two: `Engine.generate()` & `a<b>`"
CODE_HTML = "Part two: <code>Engine.generate()</code> &amp; <code>a&lt;b&gt;</code>"
CODE_PLAIN = "Part two: Engine.generate() & a<b>"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    site = make_site(tmp_path_factory.mktemp("escaping") / "src")
    site.write_post("one.md", post(title=TITLE, slug=SLUG, description=DESCRIPTION,
                                   extra="series: {name: Hostile, part: 1}\ntags: [\"it's \\\"quoted\\\"\"]\n"
                                         "related: [hostile-part-two]\n"))
    site.write_post("two.md", post(title=CODE_TITLE, slug="hostile-part-two", date="2025-04-01",
                                   extra=f"series: {{name: Hostile, part: 2}}\nrelated: [{SLUG}]\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    return site


def element(html_text: str, pattern: str) -> str:
    match = re.search(pattern, html_text, re.DOTALL)
    assert match, pattern
    return match.group(1)


ESCAPED_TITLE = html.escape(TITLE)  # &lt;b&gt; ... &amp; ... &quot;
# What each HTML place shows: the inner HTML (or attribute value) at that place.
HTML_PLACES: dict[str, tuple[str, Callable[[str], str]]] = {
    "post heading": (URL, lambda h: element(h, r"<h1>(.*?)</h1>")),
    "<title>": (URL, lambda h: element(h, r"<title>(.*?) - ML Systems Deep Dives</title>")),
    "Open Graph title": (URL, lambda h: element(h, r'<meta property="og:title" content="([^"]*)"')),
    "Twitter title": (URL, lambda h: element(h, r'<meta name="twitter:title" content="([^"]*)"')),
    "listing": ("blog/", lambda h: element(
        h, r'<h2 class="post-card__title" id="post-hostile-part-one">\s*<a [^>]*>(.*?)</a>')),
    "series box": (PART_TWO, lambda h: element(h, r'<ol class="series-box__parts">.*?<a [^>]*>(.*?)</a>')),
    "related list": (PART_TWO, lambda h: element(h, r'<aside class="related-posts".*?<a [^>]*>(.*?)</a>')),
}


@pytest.mark.parametrize("place", list(HTML_PLACES), ids=list(HTML_PLACES))
def test_title_is_printed_escaped(hostile_site: Site, place: str) -> None:
    page, extract = HTML_PLACES[place]
    shown = extract(hostile_site.html(page))
    assert html.unescape(shown) == TITLE  # the reader sees exactly the title...
    assert "<" not in shown and ">" not in shown and '"' not in shown  # ...and never markup


@pytest.mark.parametrize("place", ["meta description", "Open Graph description", "listing summary"])
def test_description_is_printed_escaped(hostile_site: Site, place: str) -> None:
    pattern, page = {
        "meta description": (r'<meta name="description" content="([^"]*)"', URL),
        "Open Graph description": (r'<meta property="og:description" content="([^"]*)"', URL),
        "listing summary": (r'id="post-hostile-part-one">.*?<p class="post-card__summary">(.*?)</p>', "blog/"),
    }[place]
    shown = element(hostile_site.html(page), pattern)
    assert html.unescape(shown) == DESCRIPTION and '"' not in shown


def test_tags_print_as_text(hostile_site: Site) -> None:
    """Tags may not hold <, > or & (the post checks refuse them: the RSS plugin prints them raw), so
    Material's own tags partial, which prints a tag's name unescaped as an element's text, prints
    nothing but text: quotes there are plain characters. The site keeps no copy of that partial."""
    tags = element(hostile_site.html(URL), r'<nav class="md-tags"[^>]*>(.*?)</nav>')
    assert re.sub(r"<[^>]+>", "", tags).strip() == "it's \"quoted\""
    assert re.fullmatch(r'\s*<(a href="[^"<>]*"|span) class="md-tag">[^<>]*</(a|span)>\s*', tags), tags


def test_no_page_contains_the_markup(hostile_site: Site) -> None:
    for page in hostile_site.site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<b>one</b>" not in text and "<script>alert(1)" not in text, page


def test_json_ld_carries_the_plain_text(hostile_site: Site) -> None:
    raw = element(hostile_site.html(URL), r'<script type="application/ld\+json">(.*?)</script>')
    data = json.loads(raw)
    assert data["headline"] == TITLE and data["description"] == DESCRIPTION
    assert "<" not in raw  # written as \u003c so the script element cannot be closed early


def test_rss_carries_the_plain_text(hostile_site: Site) -> None:
    feed = feedparser.parse((hostile_site.site_dir / "feed_rss_created.xml").read_bytes())
    assert not feed.bozo, feed.bozo_exception
    entry = next(e for e in feed.entries if e.link.endswith(URL))
    assert entry.title == TITLE


def test_json_feed_carries_the_plain_text(hostile_site: Site) -> None:
    data = json.loads((hostile_site.site_dir / "feed_json_created.json").read_text(encoding="utf-8"))
    item = next(i for i in data["items"] if i["url"].endswith(URL))
    assert item["title"] == TITLE  # no &amp; or &#39;: JSON Feed titles are plain text


def test_search_index_holds_the_plain_title(hostile_site: Site) -> None:
    fragment = next(f for f in search_fragments(hostile_site.site_dir) if f["url"] == f"/{URL}")
    assert fragment["meta"]["title"] == TITLE


def test_live_search_shows_the_title_as_text(hostile_site: Site, browser: Browser) -> None:
    with serve(hostile_site.site_dir) as base:
        page, rec = new_page(browser, base)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(base + "/blog/")
        first = search(page, "alert")
        expect(first).to_have_attribute("href", re.compile(re.escape(f"/{URL}?h=alert")))
        expect(first.locator("h1")).to_have_text(TITLE)  # the markup's characters, shown as text
        results = page.locator(".md-search-result__list")
        # Only the elements search.js builds: no <b> or <script> from the title reached the page.
        assert results.evaluate("l => [...new Set([...l.querySelectorAll('*')].map(e => e.localName))].sort()") \
            == ["a", "article", "h1", "li", "mark", "p"]
        assert dialogs == [] and rec.external == [] and rec.errors == []


def test_card_draws_the_plain_text(hostile_site: Site) -> None:
    from mlblog.posts import check_all
    from mlblog.publish import cards as social_cards

    records, problems = check_all(hostile_site.docs)
    assert problems == []
    cards = social_cards.cards_for(records, "ML Systems Deep Dives")
    assert cards[f"assets/cards/{SLUG}.png"][0] == TITLE
    assert cards["assets/cards/hostile-part-two.png"][0] == CODE_PLAIN
    assert (hostile_site.site_dir / "assets" / "cards" / f"{SLUG}.png").is_file()


# --- inline code in a title: <code> in HTML, plain text elsewhere -----------------------------------

CODE_HTML_PLACES: dict[str, tuple[str, str]] = {
    "post heading": (PART_TWO, r"<h1>(.*?)</h1>"),
    "listing": ("blog/", r'<h2 class="post-card__title" id="post-hostile-part-two">\s*<a [^>]*>(.*?)</a>'),
    "category index": ("blog/category/", r'<ul class="browse-index__posts">.*?<a href="[^"]*part-two/">(.*?)</a>'),
    "series box": (URL, r'<ol class="series-box__parts">.*?<a [^>]*>(.*?)</a>'),
    "related list": (URL, r'<aside class="related-posts".*?<a [^>]*>(.*?)</a>'),
}


@pytest.mark.parametrize("place", list(CODE_HTML_PLACES))
def test_code_in_a_title_is_shown_in_code(hostile_site: Site, place: str) -> None:
    page, pattern = CODE_HTML_PLACES[place]
    assert element(hostile_site.html(page), pattern).strip() == CODE_HTML


CODE_PLAIN_PLACES = {
    "<title>": r"<title>(.*?) - ML Systems Deep Dives</title>",
    "Open Graph title": r'<meta property="og:title" content="([^"]*)"',
    "Twitter title": r'<meta name="twitter:title" content="([^"]*)"',
    "citation title": r'<meta name="citation_title" content="([^"]*)"',
}


@pytest.mark.parametrize("place", list(CODE_PLAIN_PLACES))
def test_code_in_a_title_is_plain_text_in_the_head_and_header(hostile_site: Site, place: str) -> None:
    shown = element(hostile_site.html(PART_TWO), CODE_PLAIN_PLACES[place])
    assert html.unescape(shown) == CODE_PLAIN and "<" not in shown


def test_code_in_a_title_is_plain_text_in_json_ld(hostile_site: Site) -> None:
    raw = element(hostile_site.html(PART_TWO), r'<script type="application/ld\+json">(.*?)</script>')
    assert json.loads(raw)["headline"] == CODE_PLAIN


def test_code_in_a_title_is_plain_text_in_the_feeds(hostile_site: Site) -> None:
    feed = feedparser.parse((hostile_site.site_dir / "feed_rss_created.xml").read_bytes())
    assert next(e for e in feed.entries if e.link.endswith(PART_TWO)).title == CODE_PLAIN
    data = json.loads((hostile_site.site_dir / "feed_json_created.json").read_text(encoding="utf-8"))
    assert next(i for i in data["items"] if i["url"].endswith(PART_TWO))["title"] == CODE_PLAIN


def test_code_in_a_title_is_plain_text_in_the_search_index(hostile_site: Site) -> None:
    fragment = next(f for f in search_fragments(hostile_site.site_dir) if f["url"] == f"/{PART_TWO}")
    assert fragment["meta"]["title"] == CODE_PLAIN


def test_no_backtick_of_a_title_reaches_any_output(hostile_site: Site) -> None:
    for path in hostile_site.site_dir.rglob("*"):
        if path.suffix in {".html", ".xml", ".json"}:
            assert "`Engine.generate()`" not in path.read_text(encoding="utf-8"), path
