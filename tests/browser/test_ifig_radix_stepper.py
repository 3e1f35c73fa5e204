"""The SGLang post's radix-cache stepper shows the golden traces, step by step, in a real browser.

docs/blog/posts/sglang-deep-dive/radix-traces.json is written by examples/sglang_deep_dive/
figures.py from the post's model (radix.py), and tests/examples/test_sglang_deep_dive.py checks it
against the model and against SGLang's own RadixCache. Here the real site is built once and Chromium
drives docs/javascripts/ifig/radix-stepper.js through every step of every scenario in the light
palette (by keys on a phone, by clicks on a desk) and to both ends of each in the dark one: what the
figure shows (the tree's nodes, the sizes, each pool slot's state, the running requests, the note)
must be the trace's step. A reader without JavaScript gets the first scenario as a list.
"""

from __future__ import annotations

import importlib.util
import json
import sys

from browser import new_page, serve
from figure_text import MIN_PX, PHONE, measure
from playwright.sync_api import Browser, Locator, expect
from stepper_driver import EVERY_VIEW, check_live_figure, drive_every_step, open_figure, post_url
from support import ROOT, Site

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


@EVERY_VIEW
def test_stepper_shows_every_step_of_every_trace(real_site: Site, browser: Browser, width: int,
                                                 scheme: str, keyboard: bool, every_step: bool) -> None:
    with serve(real_site.site_dir) as base:
        page, rec, root = open_figure(browser, base, post_url(POST), FIGURE, width, scheme)
        assert list(TRACES) == ["shared-prompt", "same-batch", "lru"]
        drive_every_step(page, root, TRACES, keyboard, lambda name, index: check_step(root, name, index), every_step)
        check_live_figure(page, rec, root, ".rs-note", "sglang-deep-dive-radix-stepper", width)


def test_without_javascript_the_first_scenario_is_a_list(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=PHONE, java_script_enabled=False)
        page.goto(f"{base}/{post_url(POST)}")
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
