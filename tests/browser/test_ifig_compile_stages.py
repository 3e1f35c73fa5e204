"""The "compile-stages" explorer of "Torch.compile 101", driven in the built site like a reader.

Its data is the golden trace ``docs/blog/posts/torch-compile-101/stages.json``, which
``examples/torch_compile_101/stages.py`` derives from the captured artifacts (and the companion tests
regenerate). The browser test walks every tab with real clicks and key presses, at a phone's width
and a desk's, in both palettes, and compares what the figure shows (tab, note, code, status line,
state attributes) with the trace; at 390 px it also measures the smallest text of the figure.
"""

from __future__ import annotations

import json
import re

import pytest
from browser import new_page, serve, switch_palette
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, expect
from support import ROOT, Site

TRACE = json.loads((ROOT / "docs" / "blog" / "posts" / "torch-compile-101" / "stages.json")
                   .read_text(encoding="utf-8"))["stages"]
URL = "blog/2025/08/07/torch-compile-101/"
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 900}}


def _shown(fig) -> dict[str, str]:
    """What the figure shows now: its state attributes, the visible panel's note and code."""
    panel = fig.locator("section.ifig-stage:visible")
    assert panel.count() == 1
    return {"stage": fig.get_attribute("data-stage"), "index": fig.get_attribute("data-stage-index"),
            "note": panel.locator(".ifig-stage-note").inner_text(),
            "code": panel.locator("pre code").inner_text(),
            "status": fig.locator("[aria-live='polite']").inner_text()}


def _expected(i: int) -> dict[str, str]:
    s = TRACE[i]
    return {"stage": s["id"], "index": str(i), "note": f"What changed: {s['note']}",
            "code": s["text"].rstrip("\n"),
            "status": f"Stage {i + 1} of {len(TRACE)}: {s['title']}."}


@pytest.mark.parametrize("palette", ["default", "slate"])
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_explorer_walks_every_stage_of_the_trace(real_site: Site, browser: Browser, viewport: str,
                                                 palette: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=VIEWPORTS[viewport])
        page.goto(f"{base}/{URL}")
        switch_palette(page, palette)
        fig = page.locator('figure.ifig[data-ifig="compile-stages"]')
        expect(fig).to_have_attribute("data-ifig-ready", "true")
        assert fig.get_attribute("data-stage-count") == str(len(TRACE))
        assert _shown(fig) == _expected(0)
        # Every tab, by clicking it; then Next and Previous.
        tabs = fig.get_by_role("tab")
        assert tabs.count() == len(TRACE)
        for i, stage in enumerate(TRACE):
            tab = tabs.nth(i)
            assert re.sub(r"^\d+\. ", "", tab.inner_text()) == stage["label"]
            tab.click()
            assert _shown(fig) == _expected(i), stage["id"]
            expect(tab).to_have_attribute("aria-selected", "true")
        assert fig.get_by_role("button", name="Next stage").is_disabled()
        fig.get_by_role("button", name="Previous stage").click()
        assert _shown(fig) == _expected(len(TRACE) - 2)
        # The keyboard: Home, arrows and End on the focused tab.
        tabs.nth(len(TRACE) - 2).press("Home")
        assert _shown(fig) == _expected(0)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert _shown(fig) == _expected(2)
        page.keyboard.press("End")
        assert _shown(fig) == _expected(len(TRACE) - 1)
        page.keyboard.press("ArrowLeft")
        assert _shown(fig) == _expected(len(TRACE) - 2)
        if viewport == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS["phone"]["width"]
            ours = [f for f in measure(page) if f["id"] == "torch-compile-101-stages"]
            assert ours and ours[0]["smallest"] >= MIN_PX, ours
        assert rec.external == [] and rec.errors == []
