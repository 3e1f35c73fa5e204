"""The masks-and-heads figure of "Qwen3 Architecture Layer-by-Layer", driven in the real site with
real key presses and clicks through every scenario of its golden traces
(docs/blog/posts/qwen3-architecture-layer-by-layer/masks-traces.json, written by the post's
mask_traces.py from transformers 5.24.0's own layer types, mask functions, repeat_kv and
DynamicCache; tests/examples/ checks the file is current): every scenario at a phone's width in the
light palette, the first three at a phone's and a desk's width in both palettes."""

from __future__ import annotations

import json

import pytest
from browser import new_page, serve
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, Page
from support import ROOT, Site

SLUG = "qwen3-architecture-layer-by-layer"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / SLUG / "masks-traces.json").read_text(encoding="utf-8"))
LAYERS = {name: m["layers"] for name, m in json.loads(
    (ROOT / "docs" / "blog" / "posts" / SLUG / "masks-figure.json").read_text(encoding="utf-8"))["models"].items()}
STATE = ("data-layer-type", "data-sliding-layers", "data-mask", "data-visible", "data-group",
         "data-kv-of-query", "data-kv-bytes-per-token", "data-cache-bytes")
VIEWS = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]
# Every trace is walked in the phone's light view; elsewhere the first three (the figure's script
# computes the same at every width and palette).
FULL_WALK = (390, "light")



def _post_path(site: Site) -> str:
    """The post's folder in the built site, as a path under its root."""
    index = next((site.site_dir / "blog").glob(f"20*/*/*/{SLUG}/index.html"))
    return f"{index.parent.relative_to(site.site_dir).as_posix()}/"


def _type(page: Page, root, label: str, value: int) -> None:
    field = root.get_by_label(label, exact=True)
    field.click()
    field.press("Control+A")
    page.keyboard.type(str(value))


def _set(page: Page, root, s: dict, step: int) -> None:
    """Choose the scenario's settings as a reader would: select, type, Space, and a button."""
    root.get_by_label("Model", exact=True).select_option(s["model"])
    box = root.get_by_label("use_sliding_window")
    if box.is_checked() != s["sliding"]:
        box.focus()
        page.keyboard.press("Space")
    _type(page, root, "Prompt tokens (1 to 24)", s["tokens"])
    _type(page, root, "sliding_window (2 to 24)", s["window"])
    _type(page, root, "max_window_layers", s["max_window_layers"])
    # The layer typed one off, then a button to it: both ways of choosing a layer get used.
    layer, last = s["layer"], LAYERS[s["model"]] - 1
    if step % 2 and layer < last:
        _type(page, root, "Layer", layer + 1)
        root.get_by_role("button", name="Previous layer").click()
    elif layer > 0:
        _type(page, root, "Layer", layer - 1)
        root.get_by_role("button", name="Next layer").click()
    else:
        _type(page, root, "Layer", layer)


@pytest.mark.parametrize(("width", "scheme"), VIEWS, ids=[f"{w}-{s}" for w, s in VIEWS])
def test_figure_shows_the_traced_masks_heads_and_bytes(real_site: Site, browser: Browser, width: int,
                                                        scheme: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": width, "height": 900}, color_scheme=scheme)
        page.goto(f"{base}/{_post_path(real_site)}")
        root = page.locator('figure.ifig[data-ifig="qwen3-masks-heads"]')
        root.wait_for()
        root.scroll_into_view_if_needed()
        assert "ifig--live" in root.get_attribute("class")
        live = root.locator('[aria-live="polite"]')
        walked = TRACES if (width, scheme) == FULL_WALK else TRACES[:3]
        for step, trace in enumerate(walked):
            s, e = trace["settings"], trace["expect"]
            _set(page, root, s, step)
            want = [e["layer_type"], e["sliding_layers"], "/".join(e["mask"]), " ".join(map(str, e["visible"])),
                    str(e["group"]), ",".join(map(str, e["kv_of_query"])), str(e["kv_bytes_per_token"]),
                    str(e["cache_bytes"])]
            assert [root.get_attribute(a) for a in STATE] == want, s
            said = live.text_content()
            assert said.startswith(f"{s['model']}, layer {s['layer']}: {e['layer_type'].replace('_', ' ')}")
            assert " ".join(map(str, e["visible"])) in said and f"{e['cache_bytes']:,} bytes" in said
            # what is drawn: one filled cell per visible key, one row per key/value head
            assert root.locator(".qmh-cell.qmh-on").count() == sum(e["visible"])
            assert root.locator(".qmh-row").count() == len(set(e["kv_of_query"]))
        # Out-of-range numbers are clamped, and the clamped layer is written back into its field.
        last = LAYERS[walked[-1]["settings"]["model"]] - 1
        for typed, shown_layer in [(999, last), (-5, 0)]:
            _type(page, root, "Layer", typed)
            assert root.get_by_label("Layer", exact=True).input_value() == str(shown_layer)
            assert live.text_content().startswith(f"{walked[-1]['settings']['model']}, layer {shown_layer}:")
        assert "released configurations" not in live.text_content()
        shown = next(f for f in measure(page) if f["id"] == "qwen3-architecture-layer-by-layer-masks-heads")
        assert shown["smallest"] >= MIN_PX, shown
        box = root.bounding_box()
        inner = root.locator(".qmh-ui").bounding_box()
        assert inner["x"] >= box["x"] - 1 and inner["x"] + inner["width"] <= box["x"] + box["width"] + 1
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert rec.external == [] and rec.errors == []


def test_without_javascript_the_static_table_shows_every_scenario(real_site: Site, browser: Browser) -> None:
    with serve(real_site.site_dir) as base:
        page, _ = new_page(browser, base, viewport={"width": 390, "height": 900}, java_script_enabled=False)
        page.goto(f"{base}/{_post_path(real_site)}")
        rows = page.locator('figure.ifig[data-ifig="qwen3-masks-heads"] .ifig-static tbody tr')
        assert rows.count() == len(TRACES)
        assert rows.first.is_visible()
        assert page.locator('figure.ifig[data-ifig="qwen3-masks-heads"] figcaption').is_visible()
