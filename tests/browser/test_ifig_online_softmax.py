"""The "online-softmax" stepper of "From FlashAttention to FlashAttention 2", driven in the built site.

Its numbers are the golden trace ``docs/blog/posts/flashattention-to-flashattention-2/online-softmax.json``
that ``examples/flashattention_to_flashattention_2/online_softmax_steps.py`` writes from the tested
``softmax_rescale_o`` (the companion tests regenerate it). The browser test steps through every state
with real clicks and key presses, at a phone's width and a desk's, in both palettes, and compares the
figure's state attributes with the trace; at 390 px the strip is redrawn 350 units wide and the
figure's smallest text is measured.
"""

from __future__ import annotations

import json

import pytest
from browser import attributes, new_page, serve, switch_palette
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, expect
from support import ROOT, Site

TRACE = json.loads((ROOT / "docs" / "blog" / "posts" / "flashattention-to-flashattention-2"
                    / "online-softmax.json").read_text(encoding="utf-8"))
URL = "blog/2025/08/14/flashattention-to-flashattention-2/"
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 900}}


def _floats(attr: str) -> list[float]:
    return [float(x) for x in attr.split(",")]


def _expect_state(fig, i: int) -> None:
    """The figure shows state i of the trace: 0 before the loop, 1..n after each block, n+1 the epilogue."""
    steps, shown = TRACE["steps"], attributes(fig)
    assert shown["data-step"] == str(i)
    if i == 0:
        assert shown["data-phase"] == "init"
        assert shown["data-m"] == ",".join(["-inf"] * TRACE["block_m"])
    elif i <= len(steps):
        st = steps[i - 1]
        assert shown["data-phase"] == "block"
        assert shown["data-n-block"] == str(st["n_block"])
        assert _floats(shown["data-m"]) == st["m"]
        assert _floats(shown["data-l"]) == st["l"]
        if not st["is_first"]:
            assert _floats(shown["data-alpha"]) == st["alpha"]
    else:
        assert shown["data-phase"] == "epilogue"
        assert _floats(shown["data-m"]) == steps[-1]["m"]


@pytest.mark.parametrize("palette", ["default", "slate"])
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_stepper_follows_the_golden_trace(real_site: Site, browser: Browser, viewport: str,
                                          palette: str) -> None:
    n = len(TRACE["steps"])
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=VIEWPORTS[viewport])
        page.goto(f"{base}/{URL}")
        switch_palette(page, palette)
        fig = page.locator('figure.ifig[data-ifig="online-softmax"]')
        expect(fig).to_have_attribute("data-ifig-ready", "true")
        assert fig.get_attribute("data-layout") == ("narrow" if viewport == "phone" else "wide")
        viewbox = fig.locator(".ifig-ui svg").get_attribute("viewBox")
        assert viewbox.split()[2] == ("350" if viewport == "phone" else "490")
        assert fig.get_attribute("data-total-steps") == str(n + 1)
        _expect_state(fig, 0)
        nxt = fig.get_by_role("button", name="Next step")
        for i in range(1, n + 2):
            nxt.click()
            _expect_state(fig, i)
        assert nxt.is_disabled()
        # Keys on the figure: ArrowLeft back, ArrowRight forward; Start and End buttons.
        fig.get_by_role("button", name="Previous step").press("ArrowLeft")
        _expect_state(fig, n)
        page.keyboard.press("ArrowRight")
        _expect_state(fig, n + 1)
        fig.get_by_role("button", name="Start: back to before the first block").click()
        _expect_state(fig, 0)
        fig.get_by_role("button", name="End: jump to the epilogue").click()
        _expect_state(fig, n + 1)
        assert "epilogue" in fig.locator("[aria-live='polite']").inner_text()
        if viewport == "phone":
            fig.get_by_role("button", name="Start: back to before the first block").click()
            nxt.click()  # a block state: the score grid is drawn too
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS["phone"]["width"]
            ours = [f for f in measure(page) if f["id"] == "flashattention-to-flashattention-2-online-softmax"]
            assert ours and ours[0]["smallest"] >= MIN_PX, ours
        assert rec.external == [] and rec.errors == []
