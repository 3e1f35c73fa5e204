"""'Cite this post' on a real post: the BibTeX block has Material's copy button, aimed at the entry."""

from __future__ import annotations

from browser import new_page, serve
from playwright.sync_api import Browser, expect
from support import Site, post_urls


def test_the_bibtex_entry_has_a_copy_button(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": 390, "height": 844})
        page.goto(base + post_urls(real_site.site_dir)[0], wait_until="load")
        cite = page.locator("section.cite")
        cite.scroll_into_view_if_needed()
        button = cite.locator("button[data-md-type=copy]")  # Material mounts it once on screen
        expect(button).to_have_count(1)
        target = button.get_attribute("data-clipboard-target")
        assert target and page.locator(target).inner_text().startswith("@misc{"), target
        assert rec.errors == []
