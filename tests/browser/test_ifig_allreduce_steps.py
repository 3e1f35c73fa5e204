"""The NCCL post's interactive figure "allreduce-steps", driven in Chromium against the model's traces.

examples/nccl_deep_dive/ring_sim.py writes every scenario the figure offers (ring, and the double
binary tree with 1, 2 or 4 chunks per tree, over 2 to 8 GPUs) into
docs/blog/posts/nccl-deep-dive/allreduce-steps.json; its own tests regenerate that file and check
the model against arrays and against NCCL's own ncclGetDtree. Here the built post is opened and
the figure is driven with real clicks and key presses through every scenario, and after each
step what it exposes (the messages, what every GPU holds, the most any GPU sent, the bus
bandwidth) must equal the trace.
"""

from __future__ import annotations

import json
import re

import pytest
from browser import attributes, new_page, serve
from playwright.sync_api import Browser, Locator, Page, expect
from support import ROOT, Site

TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / "nccl-deep-dive" / "allreduce-steps.json")
                    .read_text(encoding="utf-8"))["scenarios"]
KS = [1, 2, 4]


def _post_url(site: Site) -> str:
    page = next(site.site_dir.glob("blog/20*/*/*/nccl-deep-dive/index.html"))
    return page.parent.relative_to(site.site_dir).as_posix() + "/"


def _open(browser: Browser, base: str, url: str, width: int, scheme: str) -> tuple[Page, Locator, object]:
    page, rec = new_page(browser, base, viewport={"width": width, "height": 900}, color_scheme=scheme)
    page.goto(f"{base}/{url}")
    root = page.locator('figure.ifig[data-ifig="allreduce-steps"]')
    expect(root).to_have_attribute("data-ifig-ready", "true")
    return page, root, rec


def _choose(root: Locator, algo: str, n: int, k: int) -> None:
    """Reach a scenario with the figure's own buttons."""
    root.get_by_role("button", name="Tree" if algo == "tree" else "Ring", exact=True).click()
    while int(root.get_attribute("data-n")) < n:
        root.get_by_role("button", name="More GPUs").click()
    while int(root.get_attribute("data-n")) > n:
        root.get_by_role("button", name="Fewer GPUs").click()
    if algo == "tree":
        while KS.index(int(root.get_attribute("data-k"))) < KS.index(k):
            root.get_by_role("button", name="More chunks per tree").click()
        while KS.index(int(root.get_attribute("data-k"))) > KS.index(k):
            root.get_by_role("button", name="Fewer chunks per tree").click()
    assert (root.get_attribute("data-algo"), root.get_attribute("data-n"), root.get_attribute("data-k")) == (
        algo, str(n), str(k))
    assert root.get_attribute("data-step") == "0"


def _shown(root: Locator) -> tuple[str, str]:
    shown = attributes(root)
    return shown["data-messages"], shown["data-have"]


def _expected(trace: dict, step: int) -> tuple[str, str]:
    if step == 0:
        return "", "|".join(",".join(["1"] * trace["units"]) for _ in range(trace["n"]))
    row = trace["steps"][step - 1]
    return (";".join(f"{s}>{d}:{u}:{c}" for s, d, u, c in row["msgs"]),
            "|".join(",".join(map(str, h)) for h in row["have"]))


def test_every_scenario_matches_the_model(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, root, rec = _open(browser, base, _post_url(real_site), 1280, "light")
        nxt = root.get_by_role("button", name="Next step")
        for trace in TRACES:
            _choose(root, trace["algo"], trace["n"], trace["k"])
            assert root.get_attribute("data-steps") == str(len(trace["steps"]))
            assert root.get_attribute("data-sent-max") == trace["sent_max"]
            assert float(root.get_attribute("data-busbw")) == pytest.approx(trace["busbw"], rel=1e-12)
            assert _shown(root) == _expected(trace, 0)
            for step in range(1, len(trace["steps"]) + 1):
                # The first step with the mouse, the rest with Enter on the focused button: both are real
                # input events, and a key press costs a quarter of a click's round trips (321 steps).
                if step == 1:
                    nxt.click()
                    nxt.focus()
                else:
                    page.keyboard.press("Enter")
                shown = attributes(root)  # one round trip a step: there are 321 steps
                assert (shown["data-step"], (shown["data-messages"], shown["data-have"])) == (
                    str(step), _expected(trace, step)), (trace["algo"], trace["n"], trace["k"], step)
            expect(nxt).to_be_disabled()
            root.get_by_role("button", name="Previous step").click()
            assert _shown(root) == _expected(trace, len(trace["steps"]) - 1)
            root.get_by_role("button", name="Reset to step 0").click()
        assert rec.external == [] and rec.errors == []


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (390, "dark"), (1280, "dark")])
def test_figure_reads_on_a_phone_and_in_both_palettes(real_site: Site, browser: Browser, width: int,
                                                      scheme: str) -> None:
    from figure_text import MIN_PX, measure

    with serve(real_site.site_dir) as base:
        page, root, rec = _open(browser, base, _post_url(real_site), width, scheme)
        status = root.locator('[aria-live="polite"]')
        expect(status).to_have_text(re.compile(r"^Step 0 of 6\."))
        _choose(root, "tree", 8, 4)
        root.get_by_role("button", name="Next step").click()
        expect(status).to_have_text(re.compile(r"^Step 1 of \d+\."))
        assert _shown(root) == _expected(next(t for t in TRACES if (t["algo"], t["n"], t["k"]) == ("tree", 8, 4)), 1)
        figure = next(f for f in measure(page) if f["id"] == "nccl-deep-dive-allreduce")
        assert figure["smallest"] >= MIN_PX, figure
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # The static fallback is hidden once the figure is live; the caption stays.
        expect(root.locator(".ifig-static")).to_be_hidden()
        expect(root.locator("figcaption")).to_be_visible()
        assert rec.external == [] and rec.errors == []
