"""The SGLang post's radix-cache stepper shows the golden traces, step by step, in a real browser.

docs/blog/posts/sglang-deep-dive/radix-traces.json is written by examples/sglang_deep_dive/
figures.py from the post's model (radix.py), and tests/examples/test_sglang_deep_dive.py checks it
against the model and against SGLang's own RadixCache. Here the real site is built once and
Chromium drives docs/javascripts/ifig/radix-stepper.js through every scenario with clicks and key
presses, at phone and desktop widths, in both palettes: what the figure shows (the tree's nodes,
the sizes, each pool slot's state, the running requests, the note) must be the trace's step. A
reader without JavaScript gets the first scenario as a list.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest
from browser import new_page, serve, switch_palette
from figure_text import MIN_PX, PHONE, measure
from playwright.sync_api import Browser, Locator, Page, expect
from support import ROOT, Site

from mlblog.posts import check_all

POST = ROOT / "docs" / "blog" / "posts" / "sglang-deep-dive.md"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / "sglang-deep-dive" / "radix-traces.json")
                    .read_text(encoding="utf-8"))
FIGURE = 'figure.ifig[data-ifig="radix-stepper"]'


def _radix():
    spec = importlib.util.spec_from_file_location(
        "sglang_deep_dive_radix_for_ifig", ROOT / "examples" / "sglang_deep_dive" / "radix.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


span = _radix().span  # how the model writes slot runs ("0–3, 8"); the page must write them alike


def post_url() -> str:
    records, problems = check_all(ROOT / "docs")
    assert not problems, problems
    return next(r.url for r in records if r.file == f"blog/posts/{POST.name}")


# Everything the figure shows for the current step, read from the page in one call.
SHOWN = """(root) => ({
  scenario: root.dataset.scenario, step: Number(root.dataset.step),
  count: Number(root.dataset.stepCount), evictable: Number(root.dataset.evictable),
  protected: Number(root.dataset.protected), free: Number(root.dataset.free),
  heading: root.querySelector('.rs-step').textContent,
  note: root.querySelector('.rs-note').textContent,
  nodes: [...root.querySelectorAll('.rs-node')].map(n => ({
    depth: (() => { let d = 0, p = n.closest('li'); while ((p = p.parentElement.closest('li'))) d++; return d; })(),
    text: n.innerText.replace(/\\s+/g, ' ').trim()})),
  empty: !!root.querySelector('.rs-tree .rs-empty'),
  sizes: root.querySelector('.rs-sizes').textContent,
  pool: [...root.querySelectorAll('.rs-slot')].map(s => [s.textContent, s.dataset.state]),
  requests: [...root.querySelectorAll('.rs-reqs li')].map(li => li.textContent),
})"""


def expected_nodes(tree: list[dict], depth: int = 0) -> list[dict]:
    out = []
    for n in tree:
        badge = f"lock {n['lock']}" if n["lock"] else f"evict #{n['rank']}" if n["rank"] else ""
        text = " ".join(filter(None, [f"“{n['key']}”", f"slots {span(n['slots'])}", badge]))
        out.append({"depth": depth, "text": text})
        out += expected_nodes(n["children"], depth + 1)
    return out


def check_step(root: Locator, name: str, index: int) -> None:
    scenario = TRACES[name]
    step = scenario["steps"][index]
    shown = root.evaluate(SHOWN)
    where = f"{name} step {index + 1}"
    assert (shown["scenario"], shown["step"], shown["count"]) == (name, index + 1, len(scenario["steps"])), where
    assert shown["heading"] == f"Step {index + 1} of {len(scenario['steps'])}: {step['event']} " \
        + ", ".join(step["rids"]), where
    assert shown["note"] == step["note"], where
    assert shown["nodes"] == expected_nodes(step["tree"]), where
    assert shown["empty"] == (not step["tree"]), where
    assert (shown["evictable"], shown["protected"]) == (step["evictable"], step["protected"]), where
    assert shown["sizes"] == f"Evictable {step['evictable']} tokens · protected {step['protected']} tokens"
    assert shown["pool"] == [[str(i), state] for i, state in enumerate(step["slots"])], where
    assert shown["free"] == step["slots"].count("free"), where
    assert shown["requests"] == ([f"{r['rid']}: “{r['text']}”, reused {r['hit']}, row {span(r['row'])}"
                                  for r in step["requests"]] or ["none"]), where


def press(root: Locator, page: Page, button: str, keyboard: bool) -> None:
    target = root.get_by_role("button", name=button, exact=True)
    if keyboard:
        target.focus()
        page.keyboard.press("Enter")
    else:
        target.click()


def open_post(browser: Browser, base: str, width: int, scheme: str):
    page, rec = new_page(browser, base, viewport={"width": width, "height": 900})
    page.goto(f"{base}/{post_url()}")
    switch_palette(page, scheme)
    root = page.locator(FIGURE)
    expect(root).to_have_class(re.compile(r"\bifig--live\b"))
    root.scroll_into_view_if_needed()
    return page, rec, root


@pytest.mark.parametrize(("width", "scheme", "keyboard"),
                         [(390, "default", True), (390, "slate", False),
                          (1280, "default", False), (1280, "slate", True)],
                         ids=["390-light-keys", "390-dark-clicks", "1280-light-clicks", "1280-dark-keys"])
def test_stepper_shows_every_step_of_every_trace(real_site: Site, browser: Browser, width: int,
                                                 scheme: str, keyboard: bool) -> None:
    with serve(real_site.site_dir) as base:
        page, rec, root = open_post(browser, base, width, scheme)
        assert list(TRACES) == ["shared-prompt", "same-batch", "lru"]
        for i, (name, scenario) in enumerate(TRACES.items()):
            select = root.get_by_role("combobox", name="Scenario", exact=True)
            if keyboard:  # the next scenario by keyboard: the list has focus, the arrow moves on
                if i:
                    select.focus()
                    page.keyboard.press("ArrowDown")
            else:
                select.select_option(label=scenario["title"])
            check_step(root, name, 0)
            expect(root.get_by_role("button", name="Previous step", exact=True)).to_be_disabled()
            for index in range(1, len(scenario["steps"])):
                press(root, page, "Next step", keyboard)
                check_step(root, name, index)
            expect(root.get_by_role("button", name="Next step", exact=True)).to_be_disabled()
            press(root, page, "Previous step", keyboard)
            check_step(root, name, len(scenario["steps"]) - 2)
            press(root, page, "First step", keyboard)
            check_step(root, name, 0)
            press(root, page, "Last step", keyboard)
            check_step(root, name, len(scenario["steps"]) - 1)
        # The readout is announced, and the figure reads at 11 px or more without side-scrolling.
        expect(root.locator(".rs-note")).to_have_attribute("aria-live", "polite")
        smallest = next(f for f in measure(page) if f["id"] == "sglang-deep-dive-radix-stepper")
        assert smallest["smallest"] >= MIN_PX, smallest
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert rec.external == [] and rec.errors == []


def test_without_javascript_the_first_scenario_is_a_list(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=PHONE, java_script_enabled=False)
        page.goto(f"{base}/{post_url()}")
        static = page.locator(f"{FIGURE} .ifig-static")
        expect(static).to_be_visible()
        first = TRACES["shared-prompt"]["steps"]
        items = static.locator("ol > li")
        expect(items).to_have_count(len(first))
        for item, step in zip(items.all(), first, strict=True):
            assert item.inner_text().startswith(step["note"])
        smallest = next(f for f in measure(page) if f["id"] == "sglang-deep-dive-radix-stepper")
        assert smallest["smallest"] >= MIN_PX, smallest
        assert rec.external == []
