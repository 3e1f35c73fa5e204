"""Search (Pagefind, mlblog/pages/search.py and docs/javascripts/search.js) on the reader
fixture site: what is indexed, nothing fetched until search is opened, results with the title and a
marked snippet, the opened page highlighting the match, the keyboard, both palettes and axe."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser import axe_violations, follow, new_page, scheme, search, serve, switch_palette
from playwright.sync_api import Browser, expect
from support import Site, post_urls, search_fragments

# Anything search loads: Pagefind's bundle, or Material's own index and worker.
SEARCH_DATA = re.compile(r"/pagefind/|search_index\.json|/workers/search")


@pytest.fixture(scope="module")
def base_url(reader_site: Site) -> Iterator[str]:
    with serve(reader_site.site_dir) as url:
        yield url


def test_search_indexes_the_bodies_of_posts_only(reader_site: Site) -> None:
    fragments = search_fragments(reader_site.site_dir)
    urls = sorted(f["url"] for f in fragments)
    assert urls == post_urls(reader_site.site_dir)  # no listing, category, archive, author or About page
    ddp = next(f for f in fragments if f["url"].endswith("/ddp-buckets/"))
    assert ddp["meta"]["title"] == "Gradient buckets in DDP"
    # The post's own words, without the byline, contents box or footer that every post repeats.
    assert ddp["content"].startswith("Gradient buckets in DDP. The bucket_cap_mb argument"), ddp["content"][:200]
    assert "Published" not in ddp["content"] and "min read" not in ddp["content"]
    assert "Copyright" not in ddp["content"]
    decoy = next(f for f in fragments if f["url"].endswith("/decoy/"))
    assert "mma" not in decoy["content"].replace("tcgen05.mma", "")  # its tags are not indexed


def test_no_page_fetches_search_data_before_search_is_opened(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    for path in ("/blog/", "/blog/2025/05/11/ddp-buckets/", "/blog/category/kernel/", "/blog/archive/2025/"):
        page.goto(base_url + path)
        page.wait_for_load_state("networkidle")
    assert follow(page, page.get_by_role("link", name="Compilers, part one").first, re.compile(r"/compilers-one/$"))
    page.wait_for_load_state("networkidle")
    assert [u for u in requested if SEARCH_DATA.search(u)] == []

    first = search(page, "bucket_cap_mb")
    expect(first).to_have_attribute("href", re.compile(r"/ddp-buckets/\?h=bucket_cap_mb(#.*)?$"))
    loaded = [u.replace(base_url, "") for u in requested if SEARCH_DATA.search(u)]
    assert "/pagefind/pagefind.js" in loaded
    assert not [u for u in loaded if not u.startswith("/pagefind/")]  # nothing of Material's search
    assert rec.external == [] and rec.errors == []


def test_a_result_shows_the_title_and_marked_snippet_and_its_page_highlights_the_match(
        browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    first = search(page, "tcgen05.mma")
    expect(first.locator("h1")).to_have_text("Fifth-generation tensor cores")
    expect(first.locator("p mark").first).to_have_text(re.compile(r"tcgen05", re.IGNORECASE))
    expect(first.locator("p")).to_contain_text("instruction reads operands from tensor memory")
    # The underline of a match sits below its text, so the underscores of an identifier stay visible.
    mark = first.locator("p mark").first
    underline = mark.evaluate("m => { const s = getComputedStyle(m); return [s.textDecorationLine, "
                              "parseFloat(s.textUnderlineOffset) / parseFloat(s.fontSize)]; }")
    assert underline[0] == "underline" and underline[1] >= 0.25, underline
    assert follow(page, first, re.compile(r"/blackwell-mma/\?h=tcgen05\.mma(#.*)?$"))  # instant navigation
    expect(page.locator("#__search")).not_to_be_checked()
    marks = page.locator("article mark[data-search-highlight]")
    expect(marks.first).to_have_text("tcgen05.mma")
    assert marks.count() == 2  # the opening and the details section
    expect(page.locator("[data-site-search] mark[data-search-highlight]")).to_have_count(0)
    # A page opened without ?h= marks nothing.
    page.goto(base_url + "/blog/2025/07/01/blackwell-mma/")
    expect(page.locator("article mark[data-search-highlight]")).to_have_count(0)
    assert rec.external == [] and rec.errors == []


def test_a_section_result_names_its_heading_without_the_permalink_sign(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    first = search(page, "attainable")
    expect(first.locator("h2")).to_have_text("A figure")  # not "A figure¶"
    expect(page.locator("[data-site-search] .md-search-result__list")).not_to_contain_text("\u00b6")
    assert rec.external == [] and rec.errors == []


def test_keyboard_opens_search_moves_through_results_and_closes_it(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    box, toggle = page.locator("input.md-search__input"), page.locator("#__search")
    page.keyboard.press("s")
    expect(box).to_be_focused()
    expect(toggle).to_be_checked()
    page.keyboard.type("bucket", delay=25)
    expect(page.locator("[data-site-search]")).to_have_attribute("data-search-query", "bucket")
    links = page.locator(".md-search-result__link")
    expect(links).to_have_count(2)  # the DDP post and the decoy
    page.keyboard.press("ArrowDown")
    expect(links.nth(0)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(links.nth(1)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(links.nth(0)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(box).to_be_focused()
    target = links.nth(0).get_attribute("href")
    # From the box, Enter opens the first result; search opened before the new page is shown (and
    # Material's close of search 125 ms after a change of address) would be closed again.
    follow(page, lambda: page.keyboard.press("Enter"), re.compile(re.escape(target.split("#")[0]) + r"(#.*)?$"))
    expect(toggle).not_to_be_checked()
    page.keyboard.press("/")
    expect(box).to_be_focused()
    page.keyboard.press("Escape")
    expect(toggle).not_to_be_checked()
    expect(box).not_to_be_focused()
    assert rec.external == [] and rec.errors == []


def test_a_one_letter_query_is_searched_once_typing_stops(browser: Browser, base_url: str) -> None:
    # search.js waits longer before searching a one- or two-letter prefix (it matches most of the
    # index), but a reader who stops there still gets its results.
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    page.keyboard.press("/")
    page.keyboard.type("b")
    expect(page.locator("[data-site-search]")).to_have_attribute("data-search-query", "b")
    expect(page.locator(".md-search-result__meta")).to_have_text(re.compile(r"^\d+ matching documents$"))
    assert rec.external == [] and rec.errors == []


def test_open_search_follows_both_palettes_and_has_no_axe_violations(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme="light")
    page.goto(base_url + "/blog/")
    colours = {}
    for wanted in ("default", "slate"):
        switch_palette(page, wanted)
        search(page, "bucket")
        output = page.locator(".md-search__output")
        expect(output).to_be_visible()
        expect(page.locator(".md-search-result__meta")).to_have_text("2 matching documents")
        title = page.locator(".md-search-result__article h1").first
        colours[wanted] = (title.evaluate("e => getComputedStyle(e).color"),
                           output.evaluate("e => getComputedStyle(e).backgroundColor"))
        assert axe_violations(page) == [], wanted
        page.keyboard.press("Escape")
        assert scheme(page) == wanted
    assert colours["default"] != colours["slate"], colours
    assert rec.external == [] and rec.errors == []
