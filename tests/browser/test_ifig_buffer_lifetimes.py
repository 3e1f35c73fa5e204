"""The interactive buffer-lifetimes figure of the Inductor deep dive, driven in Chromium.

Its numbers come from a tested model: examples/torch_compile_deep_dive_inductor/lifetimes.py
reads the captured wrapper, and figures.py writes both the table the script steps through and
lifetime-traces.json, the state after each click or key press of a few scenarios (the companion
test checks that file is what figures.py makes). Here the real site is built once and each
scenario is replayed with real clicks and key presses, at a phone's width and a desktop's (in the
dark palette, the first scenario); after every action the figure's state attributes, its tiles and its announced
status must be the traced state, and its text must stay legible (11 px or more) on the phone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import new_page, serve
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, Locator, Page
from support import ROOT, Site

from mlblog.posts import check_all

POST = "torch-compile-deep-dive-inductor"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / POST / "lifetime-traces.json")
                    .read_text(encoding="utf-8"))
VIEWS = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]


def _post_url() -> str:
    records, problems = check_all(ROOT / "docs")
    assert not problems, problems
    return next(r.url for r in records if r.file == f"blog/posts/{POST}.md")


def _shown(root: Locator) -> dict:
    """What the figure shows now: its state attributes, the tiles and the announced status (read in
    one evaluation: a round trip each would be most of this test's time)."""
    return root.evaluate("""(fig) => ({
        step: Number(fig.getAttribute('data-step')),
        live_bytes: Number(fig.getAttribute('data-live-bytes')),
        holders: fig.getAttribute('data-holders'),
        tiles: [...fig.querySelectorAll('.bl-tile strong')].map((t) => t.innerText === '\u00b7' ? '' : t.innerText)
            .join(','),
        status: fig.querySelector('[aria-live=polite]').innerText,
    })""")


def _expected(state: dict) -> dict:
    status = (f"Line {state['step']} of {TRACES['step_count'] - 1} ({state['kind']}): "
              f"{state['event']}. Wrapper storages hold {state['live_bytes']} bytes.")
    return {"step": state["step"], "live_bytes": state["live_bytes"], "holders": state["holders"],
            "tiles": state["holders"], "status": status}


def _act(page: Page, root: Locator, action: str) -> None:
    if action.startswith("key:"):
        listing = root.get_by_role("list", name="The generated call() function, one line per step")
        listing.focus()
        listing.press(action[4:])
    else:
        root.get_by_role("button", name=action, exact=True).click()


def _open(browser: Browser, base: str, width: int, scheme: str) -> tuple[Page, Locator, object]:
    page, rec = new_page(browser, base, viewport={"width": width, "height": 900},
                         color_scheme=scheme)
    page.goto(f"{base}/{_post_url()}")
    root = page.locator('figure.ifig[data-ifig="buffer-lifetimes"]')
    root.wait_for()
    assert root.get_attribute("data-ifig-ready") == "true"
    return page, root, rec


@pytest.mark.parametrize(("width", "scheme"), VIEWS, ids=[f"{w}-{s}" for w, s in VIEWS])
def test_figure_replays_the_traced_scenarios(real_site: Site, browser: Browser, width: int,
                                             scheme: str) -> None:
    with serve(real_site.site_dir) as base:
        # Every scenario in the light palette; the first in the dark one (the same script steps).
        for scenario in TRACES["scenarios"] if scheme == "light" else TRACES["scenarios"][:1]:
            page, root, rec = _open(browser, base, width, scheme)
            assert _shown(root) == _expected(TRACES["initial"]), scenario["name"]
            for k, state in enumerate(scenario["states"]):
                _act(page, root, state["action"])
                assert _shown(root) == _expected(state), (scenario["name"], k, state["action"])
            assert rec.external == [] and rec.errors == []
            page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figure_is_legible_on_a_phone(real_site: Site, browser: Browser, scheme: str) -> None:
    """At 390 px: every label of the figure (controls, listing, tiles, status) at 11 px or more,
    the four buttons on one row, and nothing pushing the page sideways."""
    with serve(real_site.site_dir) as base:
        page, root, rec = _open(browser, base, 390, scheme)
        root.get_by_role("button", name="Last line", exact=True).click()
        sizes = {m["id"]: m["smallest"] for m in measure(page)}
        assert sizes[f"{POST}-timeline"] >= MIN_PX, sizes
        tops = {round(b.bounding_box()["y"]) for b in root.get_by_role("button").all()}
        assert len(tops) == 1, tops
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert rec.external == [] and rec.errors == []


def test_traces_cover_every_line_and_both_ends() -> None:
    """The scenarios reach every line, the first and the last, by buttons and by keys."""
    reached = {s["step"] for sc in TRACES["scenarios"] for s in sc["states"]}
    assert reached | {TRACES["initial"]["step"]} == set(range(TRACES["step_count"]))
    actions = {s["action"] for sc in TRACES["scenarios"] for s in sc["states"]}
    assert {"First line", "Previous line", "Next line", "Last line", "key:Home", "key:End",
            "key:ArrowUp", "key:ArrowDown"} <= actions
    assert Path(ROOT / "docs" / "javascripts" / "ifig" / "buffer-lifetimes.js").is_file()
