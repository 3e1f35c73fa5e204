"""The DDP post's interactive bucket timeline, driven in Chromium through the golden traces.

The traces (docs/blog/posts/pytorch-ddp-deep-dive/bucket-timeline.json) are written by the post's
tested Python model (examples/pytorch_ddp_deep_dive/overlap.py, through figures.py); this test sets
each scenario with the figure's own controls, steps through its events with buttons and keys, and
compares what the figure exposes with the traces, on a phone and a desk, in both palettes.
"""

from __future__ import annotations

import json

import pytest
from browser import attributes, new_page, scheme, serve
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, Locator, Page
from support import ROOT, Site

from mlblog.posts import check_all

POST = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive.md"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive"
                     / "bucket-timeline.json").read_text(encoding="utf-8"))
SCENARIOS = TRACES["scenarios"]
FIGURE = 'figure.ifig[data-ifig="ddp-bucket-timeline"]'


def _post_url() -> str:
    records, problems = check_all(ROOT / "docs")
    assert not problems, problems
    return next(r.url for r in records if r.file == f"blog/posts/{POST.name}")


def _open(browser: Browser, base: str, width: int, palette: str) -> tuple[Page, Locator, object]:
    page, rec = new_page(browser, base, color_scheme=palette,
                         viewport={"width": width, "height": 900})
    page.goto(f"{base}/{_post_url()}")
    root = page.locator(FIGURE)
    root.wait_for()
    assert root.get_attribute("data-ifig-ready") == "true"
    assert scheme(page) == ("slate" if palette == "dark" else "default")
    return page, root, rec


def _floats(value: str | None) -> list[float]:
    return [float(v) for v in value.split(",")] if value else []


def _set(root: Locator, sc: dict) -> None:
    """Set a scenario with the figure's own controls, as a reader would."""
    cap = "" if sc["bucket_cap_mb"] is None else f"{sc['bucket_cap_mb']:g}"
    root.get_by_label("bucket_cap_mb", exact=True).select_option(cap)
    root.get_by_label("Layer width", exact=True).select_option(str(sc["width"]))
    root.get_by_label("Batch per rank", exact=True).select_option(str(sc["batch"]))
    root.get_by_label("Iteration", exact=True).select_option(str(sc["iteration"]))
    layers = root.get_by_label("Layers (Linear)", exact=True)
    if int(layers.input_value()) + 1 == sc["layers"]:
        layers.press("ArrowUp")  # the keyboard, where one step gets there
    else:
        layers.fill(str(sc["layers"]))


def _check_scenario(root: Locator, trace: dict) -> None:
    sc, tl = trace["inputs"], trace["timeline"]
    shown = attributes(root)
    cap = "unset" if sc["bucket_cap_mb"] is None else f"{sc['bucket_cap_mb']:g}"
    assert [shown[f"data-{k}"] for k in ("cap", "layers", "width", "batch", "iteration")] == \
        [cap, str(sc["layers"]), str(sc["width"]), str(sc["batch"]), str(sc["iteration"])]
    buckets = tl["buckets"]
    assert shown["data-bucket-bytes"] == ",".join(str(b["bytes"]) for b in buckets)
    assert shown["data-bucket-params"] == "|".join(" ".join(map(str, b["params"])) for b in buckets)
    for attr, key in (("launch-ms", "launch_ms"), ("start-ms", "start_ms"), ("done-ms", "done_ms")):
        assert _floats(shown[f"data-{attr}"]) == [b[key] for b in buckets], attr
    for key in ("compute_ms", "backward_ms", "exposed_ms"):
        assert float(shown[f"data-{key.replace('_', '-')}"]) == tl[key], key
    assert int(shown["data-event-count"]) == len(trace["events"])
    assert shown["data-event"] == "0"
    assert root.locator(".bt-tiles li").count() == len(buckets)


def _check_event(root: Locator, event: dict, index: int) -> None:
    shown = attributes(root)
    assert shown["data-event"] == str(index)
    assert shown["data-event-kind"] == event["kind"]
    assert float(shown["data-event-ms"]) == event["t_ms"]
    assert shown["data-bucket-states"] == ",".join(event["states"])
    assert shown["data-ready-bytes"] == ",".join(map(str, event["ready_bytes"]))


VIEWS = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]


@pytest.mark.parametrize(("width", "palette"), VIEWS, ids=[f"{w}-{p}" for w, p in VIEWS])
def test_every_scenario_shows_the_models_trace(real_site: Site, browser: Browser, width: int,
                                               palette: str) -> None:
    with serve(real_site.site_dir) as base:
        page, root, rec = _open(browser, base, width, palette)
        _check_scenario(root, SCENARIOS[0])  # the page's initial state is the first scenario
        for trace in SCENARIOS[1:] + SCENARIOS[:1]:
            _set(root, trace["inputs"])
            _check_scenario(root, trace)
        # Legible and inside the column: every label of this figure at 11 px or more, no
        # sideways scrolling.
        fig = next(f for f in measure(page) if f["id"] == "ddp-bucket-timeline")
        assert fig["smallest"] >= MIN_PX, fig
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert rec.external == [] and rec.errors == []


@pytest.mark.parametrize("name", ["tower-default", "many-small-buckets", "tower-iteration-1"])
def test_stepping_through_the_events_follows_the_trace(real_site: Site, browser: Browser,
                                                       name: str) -> None:
    trace = next(t for t in SCENARIOS if t["inputs"]["id"] == name)
    events = trace["events"]
    with serve(real_site.site_dir) as base:
        page, root, rec = _open(browser, base, 390, "light")
        _set(root, trace["inputs"])
        _check_event(root, events[0], 0)
        assert root.get_by_role("button", name="Previous event").is_disabled()
        for i, event in enumerate(events[1:], start=1):
            root.get_by_role("button", name="Next event").click()
            _check_event(root, event, i)
        assert root.get_by_role("button", name="Next event").is_disabled()
        status = root.locator('[role="status"]')
        assert status.get_attribute("aria-live") == "polite"
        assert status.inner_text().startswith(f"Event {len(events)} of {len(events)}.")
        # The slider answers the keyboard too.
        slider = root.get_by_label("Event", exact=True)
        slider.press("Home")
        _check_event(root, events[0], 0)
        slider.press("ArrowRight")
        _check_event(root, events[1], 1)
        slider.press("End")
        _check_event(root, events[-1], len(events) - 1)
        assert rec.external == [] and rec.errors == []


def test_without_javascript_the_static_drawing_and_caption_remain(real_site: Site,
                                                                  browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, java_script_enabled=False,
                             viewport={"width": 390, "height": 900})
        page.goto(f"{base}/{_post_url()}")
        root = page.locator(FIGURE)
        assert root.locator(":scope > svg.fig-svg--narrow").is_visible()
        assert not root.locator(":scope > svg:not(.fig-svg--narrow)").is_visible()
        assert "cost model" in root.locator("figcaption").inner_text()
        assert root.locator(".bt-ui").count() == 0
        fig = next(f for f in measure(page) if f["id"] == "ddp-bucket-timeline")
        assert fig["smallest"] >= MIN_PX, fig
        assert rec.external == []
