"""What a reader's phone downloads before touching a page, on the real built site (issue #19).

Every post page, the front page, the category and archive index pages and one page of each kind
under them are opened at phone width from a server that gzips text as a static host does. For each:
- the bytes transferred before any interaction (gzip, as on the wire), leaving out images, fonts
  and the page's own HTML, are at most BUDGET: Material's CSS and JS are about 60 KB of it, so a
  page may not ship a search index, a math or diagram library, or figure scripts it does not use;
- the only font files fetched are KaTeX's, only on pages with math, and only those whose family
  and style some rendered formula uses (the site's text is in system fonts);
- nothing is asked of another host, the console has no error, and nothing shifts the layout
  (fonts arriving, figures drawing) once it is shown;
- no stylesheet is loaded again once the page below the header is parsed (that restyles it all);
- the page waits for one stylesheet of the site's (KaTeX's is the only other, on pages with math),
  and for no script of the site's (search.js is deferred);
- sitemap.xml (Material's instant navigation reads it) is fetched once, not once per feed link too;
- no font file is fetched twice.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import new_page, serve
from playwright.sync_api import Browser
from support import Site, post_urls

BUDGET = 80_000  # bytes, gzip

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}

# Sums layout shifts (not caused by input) from the first paint on, as the CLS metric does.
WATCH_SHIFTS = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__shifts.push({value: entry.value,
      sources: (entry.sources || []).map(s => s.node ? (s.node.className || s.node.nodeName) + '' : '?')});
  }
}).observe({type: 'layout-shift', buffered: true});
"""

# (family, "<weight>-<style>") pairs that rendered formulas use, read from computed styles.
USED_FONTS = """() => {
  const used = new Set();
  for (const el of document.querySelectorAll('.katex *')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const style = getComputedStyle(el);
    const family = style.fontFamily.split(',')[0].trim().replace(/["']/g, '');
    const weight = parseInt(style.fontWeight, 10) >= 600 ? 'Bold' : '';
    const italic = style.fontStyle === 'italic' ? 'Italic' : '';
    used.add(family + '-' + ((weight + italic) || 'Regular'));
  }
  return [...used];
}"""


# Each time a stylesheet <link> gets a new href (which loads and applies the sheet again), and
# whether the parser had reached <main> by then, i.e. whether the page below the header was there
# to be restyled. Mutation records are delivered after the script that made them has run.
WATCH_SHEET_HREFS = """
window.__sheetHrefChanges = [];
new MutationObserver((records) => {
  const mainReached = !!document.querySelector('main');
  for (const record of records)
    if (record.target.relList.contains('stylesheet'))
      window.__sheetHrefChanges.push([record.target.getAttribute('href').split('/').pop(), mainReached]);
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['href']});"""


def budget_pages(site_dir: Path) -> list[str]:
    """URL paths: every post, the front page, the two index pages and the first page under each."""
    posts = post_urls(site_dir)
    first = [f"/{sorted(site_dir.glob(pattern))[0].parent.relative_to(site_dir).as_posix()}/"
             for pattern in ("blog/category/*/index.html", "blog/archive/20*/index.html")]
    return ["/blog/", "/blog/category/", "/blog/archive/", *first, *posts]


# The site's own scripts (not Material's bundle) that the parser must run where it meets them,
# holding up the rest of the page and its first paint: neither deferred nor async.
BLOCKING_SCRIPTS = """() => [...document.querySelectorAll('script[src]')]
  .filter(s => !s.defer && !s.async && !s.src.includes('/assets/javascripts/bundle.'))
  .map(s => new URL(s.src).pathname)"""


def font_face(url: str) -> str:
    """KaTeX_Main-BoldItalic.woff2 -> KaTeX_Main-BoldItalic; anything else as its file name."""
    return re.sub(r"\.(woff2?|ttf)$", "", url.rsplit("/", 1)[-1].split("?")[0])


def measure(browser: Browser, base: str, path: str) -> dict[str, object]:
    page, recorder = new_page(browser, base, **PHONE)
    page.add_init_script(WATCH_SHIFTS)
    page.add_init_script(WATCH_SHEET_HREFS)
    sizes: list[tuple[str, str, int]] = []
    page.on("requestfinished", lambda request: sizes.append(
        (request.resource_type, request.url, request.sizes()["responseBodySize"])))
    page.goto(base + path, wait_until="load")
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(300)
    document = base + path
    counted = [(url, size) for kind, url, size in sizes if kind not in ("image", "font") and url != document]
    result = {
        "bytes": sum(size for _, size in counted),
        "items": sorted(counted, key=lambda item: -item[1])[:6],
        "fonts": sorted(font_face(url) for kind, url, _ in sizes if kind == "font"),
        "used_fonts": sorted(page.evaluate(USED_FONTS)),
        "math": page.locator(".katex").count(),
        "shifts": page.evaluate("window.__shifts"),
        "sheets": page.locator("link[rel=stylesheet]").count(),
        "sheet_href_changes": page.evaluate("window.__sheetHrefChanges"),
        "sheets_fetched": sorted(url.removeprefix(base) for kind, url, _ in sizes if kind == "stylesheet"),
        "requests": [url.removeprefix(base) for _, url, _ in sizes],
        "blocking_scripts": page.evaluate(BLOCKING_SCRIPTS),
        "external": recorder.external,
        "errors": recorder.errors,
    }
    page.context.close()
    return result


@pytest.fixture(scope="module")
def measured(real_site: Site, browser: Browser) -> dict[str, dict[str, object]]:
    with serve(real_site.site_dir, compress=True) as base:
        return {path: measure(browser, base, path) for path in budget_pages(real_site.site_dir)}


def test_the_budget_covers_every_post_and_listing_kind(real_site: Site) -> None:
    pages = budget_pages(real_site.site_dir)
    assert len([p for p in pages if re.match(r"/blog/20\d\d/", p)]) >= 10
    assert {"/blog/", "/blog/category/", "/blog/archive/"} <= set(pages)


def test_bytes_before_interaction_fit_the_budget(measured: dict[str, dict[str, object]]) -> None:
    over = {path: (m["bytes"], m["items"]) for path, m in measured.items() if m["bytes"] > BUDGET}
    assert over == {}, f"over {BUDGET} bytes (gzip, no images, fonts or the page's HTML): {over}"


def test_only_fonts_that_rendered_math_uses_are_fetched(measured: dict[str, dict[str, object]]) -> None:
    assert any(m["math"] for m in measured.values()), "no page with math was measured"
    twice = {path: sorted({f for f in m["fonts"] if m["fonts"].count(f) > 1}) for path, m in measured.items()}
    assert {path: fonts for path, fonts in twice.items() if fonts} == {}, "fonts fetched twice"
    for path, m in measured.items():
        if not m["math"]:
            assert m["fonts"] == [], f"{path} has no math but fetched fonts {m['fonts']}"
        else:
            unused = sorted(set(m["fonts"]) - set(m["used_fonts"]))
            assert unused == [], f"{path} fetched fonts its formulas do not use: {unused} (used {m['used_fonts']})"


# Layout shift, summed as CLS sums it. Not exactly zero: on this loaded 2-core machine a KaTeX
# font can arrive after the first paint and move a formula's glyphs by a fraction of a pixel; a
# figure drawn late or a font swap in the text would be far above this (Lighthouse's target: 0.02).
SHIFT_LIMIT = 0.005


def test_no_other_host_no_console_error(measured: dict[str, dict[str, object]]) -> None:
    problems = {path: {k: m[k] for k in ("external", "errors") if m[k]} for path, m in measured.items()}
    assert {path: p for path, p in problems.items() if p} == {}


def test_no_layout_shift_from_fonts_or_figures(measured: dict[str, dict[str, object]]) -> None:
    shifted = {path: m["shifts"] for path, m in measured.items()
               if sum(s["value"] for s in m["shifts"]) > SHIFT_LIMIT}
    assert shifted == {}


def test_no_stylesheet_is_loaded_again_over_the_parsed_page(measured: dict[str, dict[str, object]]) -> None:
    """Material's instant navigation makes every relative link absolute once its bundle runs, at
    the end of the body; done to a stylesheet's <link> then, that loads and applies the sheet again
    over the whole parsed page, which is restyled and laid out again. The site makes the head's
    links absolute ahead of the header (overrides/partials/javascripts/resolve-head-links.html)."""
    assert all(m["sheets"] for m in measured.values())
    assert any(m["sheet_href_changes"] for m in measured.values()), "no stylesheet link was made absolute"
    late = {path: sorted({sheet for sheet, main_reached in m["sheet_href_changes"] if main_reached})
            for path, m in measured.items()}
    assert {path: sheets for path, sheets in late.items() if sheets} == {}


def test_a_page_waits_for_one_stylesheet_and_none_of_the_sites_scripts(
        measured: dict[str, dict[str, object]]) -> None:
    """Every stylesheet and parser-blocking script is a request the first paint waits for: the
    site's sheets are joined with Material's into one (mlblog/publish/stylesheets.py), KaTeX's is
    added only where there is math, and every script of the site's is deferred (Material's bundle
    is its own, at the end of the body)."""
    for path, m in measured.items():
        sheets = m["sheets_fetched"]
        ours = [s for s in sheets if re.fullmatch(r"/assets/stylesheets/site\.[0-9a-f]{8}\.min\.css", s)]
        others = sorted(set(sheets) - set(ours))
        assert len(ours) == 1, f"{path} fetched {sheets}"
        assert others == (["/assets/katex/katex.min.css"] if m["math"] else []), f"{path} fetched {sheets}"
        assert m["blocking_scripts"] == [], f"{path}: scripts that block parsing: {m['blocking_scripts']}"


def test_sitemap_is_fetched_once(measured: dict[str, dict[str, object]]) -> None:
    """Material's instant navigation reads sitemap.xml once; its lookup of other-language versions
    (link[rel=alternate], exact) would fetch it again for each feed link of the head."""
    counts = {path: m["requests"].count("/sitemap.xml") for path, m in measured.items()}
    assert set(counts.values()) == {1}, counts
