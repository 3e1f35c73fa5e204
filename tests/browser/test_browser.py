"""A reader's walk through a served fixture site in headless Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser import follow, new_page, scheme, search, serve, switch_palette
from playwright.sync_api import Browser, expect
from support import Site


@pytest.fixture(scope="module")
def base_url(built_fixture_site: Site) -> Iterator[str]:
    with serve(built_fixture_site.site_dir) as url:
        yield url


def test_front_page_post_category_archive_search_and_palette(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme="light")

    # The home page forwards to the post list, newest first.
    page.goto(base_url + "/")
    page.wait_for_url(re.compile(r"/blog/$"))
    titles = page.locator(".post-card__title").all_inner_texts()
    assert titles == ["A scheduler with a token budget", "Tiles and the online softmax", "Buckets and the reducer"]

    # Front page -> post.
    follow(page, page.get_by_role("link", name="Tiles and the online softmax"),
           re.compile(r"/blog/2025/08/14/tiles-and-the-online-softmax/$"))
    expect(page.locator("h1")).to_have_text("Tiles and the online softmax")


    # Post -> its category page.
    follow(page, page.locator('article ul.byline a[href$="category/kernel/"]'), re.compile(r"/blog/category/kernel/$"))
    assert page.locator(".post-card__title").all_inner_texts() == ["Tiles and the online softmax"]

    # Category page -> archive year.
    page.goto(base_url + "/blog/")
    follow(page, page.locator('a[href$="archive/2025/"]').first, re.compile(r"/blog/archive/2025/$"))
    assert page.locator(".post-card__title").all_inner_texts() == [
        "Tiles and the online softmax", "Buckets and the reducer"]

    # Search by a word that only appears in one post's body, typed with real key presses.
    first = search(page, "zanzibarquux")
    expect(first).to_contain_text("Tiles and the online softmax", timeout=10_000)
    page.keyboard.press("Escape")

    # Palette: starts from the system setting (light here), the toggle switches to dark.
    assert scheme(page) == "default"
    switch_palette(page, "slate")

    assert rec.external == []
    assert rec.errors == []


def test_dark_system_setting_is_followed(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme="dark")
    page.goto(base_url + "/blog/")
    assert scheme(page) == "slate"
    assert rec.external == [] and rec.errors == []


def test_unknown_address_shows_the_404_page(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    # http.server has no custom 404 page; load the built one directly as GitHub Pages would serve it.
    page.goto(base_url + "/404.html")
    expect(page.locator("h1")).to_have_text("Page not found")
    assert rec.external == []


def test_code_block_copy_button_copies_the_code(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, permissions=["clipboard-read", "clipboard-write"])
    page.goto(base_url + "/blog/2025/08/14/tiles-and-the-online-softmax/")
    block = page.locator("div.highlight").first
    block.hover()
    button = block.locator("button.md-code__button[data-md-type=copy]")
    expect(button).to_be_visible()
    expect(button).to_have_attribute("title", re.compile("Copy", re.IGNORECASE))
    button.click()
    assert page.evaluate("navigator.clipboard.readText()").strip() == "print('tiles')"
    assert rec.errors == []
