"""The CUTLASS post's layout visualiser (docs/javascripts/ifig/cute-layout.js), driven in Chromium.

The golden traces (docs/blog/posts/cutlass-deep-dive/cute-layout-traces.json) are written by
examples/cutlass_deep_dive/figures.py from the layout algebra that tests/examples/ checks against
CuTe's C++ and pycute. This test clicks and types through the same scenarios, on a phone (390 px) and
a desktop (1280 px), in both palettes, and compares every readout attribute and every cell with the
traces; on the phone it also measures that no label of the figure renders under 11 CSS px.
"""

from __future__ import annotations

import json

import pytest
from browser import new_page, serve
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, Locator, Page
from support import ROOT, Site

pytestmark = pytest.mark.browser

TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / "cutlass-deep-dive" / "cute-layout-traces.json")
                    .read_text(encoding="utf-8"))
FIELDS = {"M": "Shape M (rows)", "N": "Shape N (columns)", "dM": "Stride dM", "dN": "Stride dN",
          "TM": "Tiler TM", "TN": "Tiler TN"}


def _url(site: Site) -> str:
    (page,) = [p for p in site.site_dir.glob("blog/20*/*/*/*/index.html") if p.parent.name == "cutlass-deep-dive"]
    return "/" + page.parent.relative_to(site.site_dir).as_posix() + "/"


def _cells(root: Locator, trace: dict, grid: str) -> None:
    """The number in every cell and the tile label in every tile's first cell, band by band and row by
    row, as the trace has them."""
    p = trace["inputs"]
    cols = int(root.get_attribute("data-band-columns"))
    order = [(i, j) for b in range(0, p["N"], cols) for i in range(p["M"]) for j in range(b, min(p["N"], b + cols))]
    got = root.locator(".cl-ui svg text.fig-mono").all_text_contents()
    assert got == [str(trace[grid][i][j]) for i, j in order], (p["name"], grid)
    corners = root.locator(".cl-ui svg text.fig-text-small:not(.fig-text-muted)").all_text_contents()
    assert corners == [f"t{trace['tile'][i][j]}" for i, j in order if trace["position"][i][j] == 0], p["name"]


def _check(page: Page, root: Locator, trace: dict, width: int) -> None:
    p = trace["inputs"]
    assert root.get_attribute("data-layout") == trace["layout"], p["name"]
    assert root.get_attribute("data-divided") == trace["divided"], p["name"]
    if not trace["divided"]:
        assert root.locator(".ifig-readout").inner_text().startswith("Not drawn: TM must divide M")
        return
    assert root.get_attribute("data-tiles") == str(trace["tiles"])
    assert root.get_attribute("data-injective") == str(trace["injective"]).lower()
    assert trace["divided"] in root.locator(".ifig-readout").inner_text()
    cols = int(root.get_attribute("data-band-columns"))
    assert root.get_attribute("data-bands") == str(-(-p["N"] // cols))
    _cells(root, trace, "index")
    # Columns beyond what the column holds at one unit per px wrap into bands, so labels stay >= 11 px.
    room = root.locator(".cl-ui").evaluate("e => e.clientWidth")
    assert 26 + cols * 40 + 4 <= room and (cols == p["N"] or 26 + (cols + 1) * 40 + 4 > room - 40 * p["TN"]), \
        (p["name"], cols, room)
    (fig,) = [f for f in measure(page) if f["id"] == "cutlass-deep-dive-layout"]
    assert fig["smallest"] >= MIN_PX, (p["name"], fig)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if width <= 390:
        assert room <= 358 and cols <= 8


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")])
def test_visualiser_shows_what_the_algebra_computes(real_site: Site, browser: Browser, width: int,
                                                   scheme: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": width, "height": 900}, color_scheme=scheme)
        page.goto(base + _url(real_site))
        root = page.locator('figure.ifig[data-ifig="cute-layout"]')
        root.wait_for()
        root.scroll_into_view_if_needed()
        assert root.locator(".ifig-readout").get_attribute("aria-live") == "polite"
        presets = TRACES["presets"]
        for k, trace in enumerate(presets):
            assert root.get_attribute("data-example") == str(k)
            _check(page, root, trace, width)
            root.get_by_role("button", name="Next example", exact=True).click()
        assert root.get_attribute("data-example") == "0"  # wraps around
        # Keyboard: the buttons are real buttons, reachable and pressed with Enter.
        root.get_by_role("button", name="Previous example", exact=True).focus()
        page.keyboard.press("Enter")
        assert root.get_attribute("data-example") == str(len(presets) - 1)
        _check(page, root, presets[-1], width)
        toggle = root.get_by_role("button", name="Show position in tile", exact=True)
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "true"
        _cells(root, presets[-1], "position")
        toggle.click()
        for trace in TRACES["typed"]:
            for key, label in FIELDS.items():
                root.get_by_label(label, exact=True).fill(str(trace["inputs"][key]))
            _check(page, root, trace, width)
        assert rec.external == [] and rec.errors == []
