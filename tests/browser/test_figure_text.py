"""Every figure of every post reads on a phone: at 390 px, in both palettes, its smallest rendered
label is at least 11 CSS px (tests/figure_text.py measures SVG text through the drawing's scale and
an interactive figure's HTML by its computed size; a wide drawing hidden in favour of its narrow
twin is not measured, since the reader does not see it)."""

from __future__ import annotations

import pytest
from browser import new_page, serve
from figure_text import MIN_PX, PHONE, measure
from playwright.sync_api import Browser
from support import Site, post_urls


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_figure_on_every_post_reads_at_390_px(real_site: Site, browser: Browser, scheme: str) -> None:
    small, figures = [], 0
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=PHONE, color_scheme=scheme)
        for path in post_urls(real_site.site_dir):
            page.goto(base + path, wait_until="load")
            for fig in measure(page):
                figures += 1
                if fig["smallest"] is not None and fig["smallest"] < MIN_PX - 0.05:
                    small.append(f"{path} {fig['id']}: {fig['smallest']:.1f} px ({fig['label']!r})")
        assert rec.errors == []
    assert figures >= 40, figures  # every post has figures; a selector that found none would pass
    assert small == [], "\n".join(small)
