"""The vLLM v1 post's scheduler stepper shows the golden traces, step by step, in a real browser.

docs/blog/posts/vllm-v1-deep-dive/scheduler-traces.json is written by examples/vllm_v1_deep_dive/
make_figures.py from the post's scheduler model (sched_model.py); tests/examples/
test_vllm_v1_deep_dive.py checks that it is current and that vLLM's own Scheduler gives the model's
schedules and block tables. Here the real site is built once and Chromium drives
docs/javascripts/ifig/scheduler-stepper.js through every step of every scenario in the light palette
(by keys on a phone, by clicks on a desk) and to both ends of each in the dark one: what the figure
shows (the budget bar's segments and their widths, the per-request rows, every block's state and
holders, the queue, the note) must be the trace's step. A reader without JavaScript gets every
scenario as a list.
"""

from __future__ import annotations

import json

import pytest
from browser import new_page, serve
from figure_text import MIN_PX, PHONE, measure
from playwright.sync_api import Browser, Locator, expect
from stepper_driver import EVERY_VIEW, check_live_figure, drive_every_step, open_figure, post_url
from support import ROOT, Site

POST = ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive.md"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive" / "scheduler-traces.json")
                    .read_text(encoding="utf-8"))
FIGURE = 'figure.ifig[data-ifig="scheduler-stepper"]'
FIG_ID = "vllm-v1-deep-dive-scheduler-stepper"


# Everything the figure shows for the current step, read from the page in one call.
SHOWN = """(root) => ({
  scenario: root.dataset.scenario, step: Number(root.dataset.step),
  count: Number(root.dataset.stepCount), used: Number(root.dataset.used),
  free: Number(root.dataset.free), cached: Number(root.dataset.cached),
  heading: root.querySelector('.ss-step').textContent,
  note: root.querySelector('.ss-note').textContent,
  budget: root.querySelectorAll('.ss-head')[0].textContent,
  bar: root.querySelector('.ss-bar').clientWidth,
  segments: [...root.querySelectorAll('.ss-seg')].map(s => ({
    kind: s.dataset.kind, tokens: Number(s.dataset.tokens), text: s.textContent,
    label: s.getAttribute('aria-label'), width: s.getBoundingClientRect().width})),
  rows: [...root.querySelectorAll('.ss-rows li')].map(li => li.textContent),
  blockHead: root.querySelectorAll('.ss-head')[1].textContent,
  blocks: [...root.querySelectorAll('.ss-block')].map(b => ({
    state: b.dataset.state, text: b.innerText.replace(/\\s+/g, ' ').trim(),
    label: b.getAttribute('aria-label')})),
  queue: root.querySelector('.ss-queue').textContent,
})"""


def row_text(r: dict) -> str:
    return f"{r['rid']}: {r['tokens']} {r['kind']}" + (f" (+{r['cached']} cached)" if r["cached"] else "")


def block_label(b: dict) -> str:
    who = ("held by " + " and ".join(b["owners"]) if b["owners"]
           else "free, holds a cached prefix" if b["state"] == "cached" else "free")
    return f"block {b['id']}: {who}"


def check_step(root: Locator, name: str, index: int) -> None:
    scenario = TRACES[name]
    step = scenario["steps"][index]
    budget = scenario["budget"]
    shown = root.evaluate(SHOWN)
    where = f"{name} step {index + 1}"
    assert (shown["scenario"], shown["step"], shown["count"]) == (name, index + 1, len(scenario["steps"])), where
    assert shown["heading"] == f"Step {index + 1} of {len(scenario['steps'])}", where
    assert shown["note"] == step["note"], where
    assert shown["used"] == step["used"] == sum(r["tokens"] for r in step["rows"]), where
    assert shown["budget"] == f"Token budget: {step['used']} of {budget} used", where
    expected = [{"kind": r["kind"], "tokens": r["tokens"], "text": r["rid"], "label": row_text(r)}
                for r in step["rows"]]
    if step["used"] < budget:
        rest = budget - step["used"]
        expected.append({"kind": "unused", "tokens": rest, "text": "", "label": f"{rest} unused"})
    assert [{k: s[k] for k in ("kind", "tokens", "text", "label")} for s in shown["segments"]] == expected, where
    for seg in shown["segments"]:  # each segment's share of the bar is its share of the budget
        assert seg["width"] == pytest.approx(shown["bar"] * seg["tokens"] / budget, abs=1), where
    assert shown["rows"] == ([row_text(r) for r in step["rows"]] or ["nothing scheduled"]), where
    free = sum(b["state"] != "held" for b in step["blocks"])
    cached = sum(b["state"] == "cached" for b in step["blocks"])
    assert (shown["free"], shown["cached"]) == (free, cached), where
    assert shown["blockHead"] == (f"KV blocks while this step runs ({scenario['block_size']} tokens each): {free} of "
                                  f"{len(step['blocks'])} free, {cached} of them cached"), where
    assert shown["blocks"] == [{"state": b["state"], "label": block_label(b),
                                "text": " ".join(filter(None, [str(b["id"]), "+".join(b["owners"])]))}
                               for b in step["blocks"]], where
    assert shown["queue"] == (f"Waiting: {', '.join(step['waiting']) or 'none'}. Finished after this step: "
                              f"{', '.join(step['finished']) or 'none'}."), where


@EVERY_VIEW
def test_stepper_shows_every_step_of_every_trace(real_site: Site, browser: Browser, width: int,
                                                 scheme: str, keyboard: bool, every_step: bool) -> None:
    with serve(real_site.site_dir) as base:
        page, rec, root = open_figure(browser, base, post_url(POST), FIGURE, width, scheme)
        assert list(TRACES) == ["packing", "preemption", "gate-on", "gate-off", "nine-blocks"]
        drive_every_step(page, root, TRACES, keyboard, lambda name, index: check_step(root, name, index), every_step)
        check_live_figure(page, rec, root, ".ss-note", FIG_ID, width)


def test_without_javascript_every_scenario_is_a_list(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=PHONE, java_script_enabled=False)
        page.goto(f"{base}/{post_url(POST)}")
        static = page.locator(f"{FIGURE} .ifig-static")
        expect(static).to_be_visible()
        lists = static.locator("ol")
        expect(lists).to_have_count(len(TRACES))
        for ol, scenario in zip(lists.all(), TRACES.values(), strict=True):
            items = ol.locator("> li")
            expect(items).to_have_count(len(scenario["steps"]))
            for item, step in zip(items.all(), scenario["steps"], strict=True):
                assert step["note"] in item.inner_text()
        smallest = next(f for f in measure(page) if f["id"] == FIG_ID)
        assert smallest["smallest"] >= MIN_PX, smallest
        assert rec.external == []
