"""Math, diagrams, identifier search, interactive figures and accessibility, in headless Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from browser import axe_violations, follow, new_page, searches_missed, serve, switch_palette
from playwright.sync_api import Browser, expect
from support import Site

POST = "/blog/2025/08/07/compilers-one/"


@pytest.fixture(scope="module")
def base_url(reader_site: Site) -> Iterator[str]:
    with serve(reader_site.site_dir) as url:
        yield url


LAYOUT_SHIFT = """new Promise((resolve) => {
  let total = 0;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) total += e.value; })
    .observe({ type: "layout-shift", buffered: true });
  setTimeout(() => resolve(total), 500);
})"""


def test_math_and_diagram_arrive_rendered_in_both_palettes_and_after_instant_navigation(
        browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme="light")
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base_url + "/blog/")
    # Instant navigation: the post is fetched and swapped in without a full page load.
    assert follow(page, page.get_by_role("link", name="Compilers, part one").first, re.compile(re.escape(POST) + "$"))
    expect(page.locator(".arithmatex .katex").first).to_be_visible()
    assert page.locator("div.arithmatex .katex-display").count() == 1
    assert page.locator("span.arithmatex .katex").count() == 2
    # KaTeX's stylesheet came with the page (Material adds a new page's <head> links).
    expect(page.locator("span.arithmatex .katex-html").first).to_have_css("font-family", re.compile("KaTeX_Main"))
    light, dark = page.locator(".mermaid-diagram__light svg"), page.locator(".mermaid-diagram__dark svg")
    expect(light).to_be_visible()
    expect(dark).to_be_hidden()
    assert "EngineCore" in (light.text_content() or "")

    switch_palette(page, "slate")
    expect(dark).to_be_visible()
    expect(light).to_be_hidden()
    expect(page.locator(".arithmatex .katex").first).to_be_visible()
    assert rec.external == [] and rec.errors == []
    # Nothing renders in the reader's browser: no KaTeX or Mermaid script is ever asked for.
    assert not [u for u in requested if re.search(r"katex(\.min)?\.js|mermaid|/assets/vendor/", u)]


def test_the_system_preference_shows_the_matching_diagram(browser: Browser, base_url: str) -> None:
    page, _ = new_page(browser, base_url, color_scheme="dark")
    page.goto(base_url + POST)  # no palette chosen: the first option follows the system
    expect(page.locator(".mermaid-diagram__dark svg")).to_be_visible()
    expect(page.locator(".mermaid-diagram__light svg")).to_be_hidden()


def test_math_fetches_only_the_fonts_it_uses_and_nothing_shifts(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, viewport={"width": 390, "height": 800})
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base_url + POST)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready")
    fonts = sorted(u.rsplit("/", 1)[-1] for u in requested if "/fonts/" in u)
    # The fixture's formulas use KaTeX's roman and math italic only, each as woff2 (the stylesheet
    # lists no other format), out of the twenty fonts KaTeX ships.
    assert fonts == ["KaTeX_Main-Regular.woff2", "KaTeX_Math-Italic.woff2"], fonts
    assert page.evaluate(LAYOUT_SHIFT) < 0.01
    assert rec.errors == []


def test_pages_without_math_or_figures_load_no_extra_script_or_stylesheet(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base_url + "/blog/2025/05/11/ddp-buckets/")
    page.wait_for_load_state("networkidle")
    assert not [u for u in requested if "/assets/katex/" in u or "/javascripts/ifig/" in u or "figure-zoom" in u]
    assert rec.external == [] and rec.errors == []


CODE_QUERIES = [
    ("bucket_cap_mb", "ddp-buckets"),
    ("mark_variable_ready", "ddp-buckets"),
    ("Reducer::mark_variable_ready", "ddp-buckets"),
    ("torch._inductor.scheduler", "inductor-scheduler"),
    ("tcgen05.mma", "blackwell-mma"),
    ("tcgen05", "blackwell-mma"),
    ("q_norm", "qwen3-attention"),
    ("online softmax", "compilers-one"),
]


def test_search_finds_code_identifiers(browser: Browser, base_url: str) -> None:
    # The decoy post lists every identifier in a short code block and carries their parts as tags:
    # without the weight mlblog/pages/search.py gives inline-code identifiers it comes first.
    # The queries go one after another into one search box.
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    assert searches_missed(page, CODE_QUERIES) == []
    assert rec.errors == []


def test_interactive_figure_responds_to_clicks_and_keys(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    page.goto(base_url + POST)
    fig = page.locator('figure.ifig[data-ifig="roofline"]')
    expect(fig).to_have_class(re.compile(r"\bifig--live\b"))
    expect(fig.locator(".ifig-static")).to_be_hidden()
    assert fig.get_attribute("data-intensity") == "64"
    assert fig.get_attribute("data-bound") == "memory-bound"
    assert fig.get_attribute("data-attainable") == "307.2"  # 4.8 TB/s x 64 FLOP/B
    fig.get_by_role("button", name="Double the arithmetic intensity").click()
    fig.get_by_role("button", name="Double the arithmetic intensity").click()
    assert fig.get_attribute("data-intensity") == "256"
    assert fig.get_attribute("data-bound") == "compute-bound"
    assert fig.get_attribute("data-attainable") == "989.0"
    expect(fig.locator(".ifig-readout")).to_contain_text("compute-bound")
    # Keyboard: the slider moves with arrow keys.
    fig.locator("input.ifig-range").focus()
    page.keyboard.press("ArrowLeft")
    assert fig.get_attribute("data-intensity") == "128"
    assert rec.external == [] and rec.errors == []


def test_interactive_figure_reinitialises_after_instant_navigation(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url)
    page.goto(base_url + "/blog/")
    assert follow(page, page.get_by_role("link", name="Compilers, part one").first, re.compile(re.escape(POST) + "$"))
    fig = page.locator('figure.ifig[data-ifig="roofline"]')
    expect(fig).to_have_class(re.compile(r"\bifig--live\b"))
    assert fig.locator(".ifig-controls").count() == 1
    assert rec.errors == []


def test_interactive_figure_degrades_to_a_static_figure_without_javascript(browser: Browser, base_url: str) -> None:
    page, _ = new_page(browser, base_url, java_script_enabled=False)
    page.goto(base_url + POST)
    fig = page.locator('figure.ifig[data-ifig="roofline"]')
    expect(fig.locator(".ifig-static table")).to_be_visible()
    assert fig.locator(".ifig-controls").count() == 0


def test_narrow_screen_has_no_horizontal_scroll(browser: Browser, base_url: str) -> None:
    page, _ = new_page(browser, base_url, viewport={"width": 375, "height": 800})
    page.goto(base_url + POST)
    expect(page.locator('figure.ifig[data-ifig="roofline"]')).to_have_class(re.compile(r"\bifig--live\b"))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375


@pytest.mark.parametrize("palette", ["light", "dark"])
@pytest.mark.parametrize("path", ["/blog/", POST, "/blog/category/torchcompile/", "/blog/archive/2025/",
                                  "/blog/author/editors/"])
def test_no_accessibility_violations(browser: Browser, base_url: str, path: str, palette: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme=palette)
    page.goto(base_url + path)
    if path == POST:
        expect(page.locator('figure.ifig[data-ifig="roofline"]')).to_have_class(re.compile(r"\bifig--live\b"))
    violations = axe_violations(page)
    assert violations == [], json.dumps(violations, indent=1)
    assert rec.external == []
