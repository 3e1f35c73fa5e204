"""The capture-size calculator of "How vLLM's torch.compile Backend Handles Dynamic Batch Sizes",
driven in the real site with real key presses and clicks through every scenario of its golden
traces (docs/blog/posts/vllm-torch-compile-dynamic-batch-sizes/calculator-traces.json, written by
the post's figures.py from the miniature's rules, which tests/examples/ check against vLLM's own
functions): every scenario at a phone's width in the light palette, the first three at a phone's
and a desk's width in both palettes."""

from __future__ import annotations

import json

import pytest
from browser import new_page, serve
from playwright.sync_api import Browser, Page
from support import ROOT, Site

SLUG = "vllm-torch-compile-dynamic-batch-sizes"
TRACES = json.loads((ROOT / "docs" / "blog" / "posts" / SLUG / "calculator-traces.json")
                    .read_text(encoding="utf-8"))
STATE = ("data-num-tokens", "data-num-sizes", "data-mode", "data-padded", "data-artifact")
VIEWS = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]
# Every trace is walked in the phone's light view. Elsewhere the first three, which use every control
# (each trace sets them all): what the figure computes is the same script at every width and palette.
FULL_WALK = (390, "light")

# Smallest rendered text among the figure's controls and readouts (CSS px), and whether anything
# inside it reaches past the figure's own box.
MEASURE = """(root) => {
  let smallest = Infinity;
  const box = root.getBoundingClientRect();
  let overflow = false;
  for (const el of root.querySelectorAll('.csc-ui *')) {
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    if (r.right > box.right + 1 || r.left < box.left - 1) overflow = true;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())
      || ['INPUT', 'SELECT'].includes(el.tagName);
    if (own) smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize));
  }
  return {smallest, overflow};
}"""


def _post_path(site: Site) -> str:
    page = next(p for p in (site.site_dir / "blog").glob(f"20*/*/*/{SLUG}/index.html"))
    return page.parent.relative_to(site.site_dir).as_posix() + "/"


def _set(page: Page, root, settings: dict, step: int) -> None:
    """Type and click the scenario's settings in, as a reader would."""
    for label, value in (("max_num_seqs", settings["max_num_seqs"]),
                         ("max_num_batched_tokens", settings["max_num_batched_tokens"]),
                         ("compile_sizes (comma-separated)",
                          ",".join(str(c) for c in settings["compile_sizes"]))):
        field = root.get_by_label(label, exact=True)
        field.click()
        field.press("Control+A")
        if value == "":
            field.press("Delete")
        else:
            page.keyboard.type(str(value))
    root.get_by_label("cudagraph_mode").select_option(settings["cudagraph_mode"])
    for label, on in (("uniform decode (1 token per request)", settings["uniform"]),
                      ("data-centre Blackwell (ceiling 1024)", settings["blackwell"])):
        box = root.get_by_label(label)
        if box.is_checked() != on:
            box.focus()
            page.keyboard.press("Space")
    tokens = root.get_by_label("Tokens in this step")
    tokens.click()
    tokens.press("Control+A")
    # Typed one off, then a button press to the count: every way of changing it gets used.
    up = settings["tokens"] > 1 and step % 2
    page.keyboard.type(str(settings["tokens"] + (-1 if up else 1)))
    root.get_by_role("button", name="Next batch size" if up else "Previous batch size").click()


@pytest.mark.parametrize(("width", "scheme"), VIEWS, ids=[f"{w}-{s}" for w, s in VIEWS])
def test_calculator_shows_the_traced_answers(real_site: Site, browser: Browser, width: int,
                                             scheme: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": width, "height": 900},
                             color_scheme=scheme)
        page.goto(f"{base}/{_post_path(real_site)}")
        root = page.locator('figure.ifig[data-ifig="capture-size-calculator"]')
        root.wait_for()
        root.scroll_into_view_if_needed()
        live = root.locator('[aria-live="polite"]')
        for step, trace in enumerate(TRACES if (width, scheme) == FULL_WALK else TRACES[:3]):
            _set(page, root, trace["settings"], step)
            e = trace["expect"]
            want = [str(e["num_tokens"]), str(e["num_sizes"]), e["mode"], str(e["padded"]),
                    e["artifact"]]
            assert [root.get_attribute(a) for a in STATE] == want, trace["settings"]
            said = live.text_content()
            assert said.startswith(f"{e['num_tokens']} tokens → ") and e["artifact"] in said
            assert ("no CUDA graph" in said) == (e["mode"] == "NONE")
        sizes = root.evaluate(MEASURE)
        assert sizes["smallest"] >= 11, sizes
        assert not sizes["overflow"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert rec.external == [] and rec.errors == []
