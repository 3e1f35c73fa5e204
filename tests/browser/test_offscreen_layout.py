"""mlblog/pages/chunks.py: long posts lay out only what is on screen, and look the same.

The hook's rules are checked on fragments; the real posts in headless Chromium at phone width: the
chunks far down are skipped at load, no script (Material's, ours) asks anything inside a skipped
chunk for a size (which would force the browser to lay it out after all), they are drawn once the
reader scrolls to them, and every block sits exactly where it would without the chunks. What the
scripts do instead of measuring early: a box that might scroll sideways takes focus until drawn
(a11y.js), a figure is measured near the screen (figure-zoom.js), a code block is mounted on
screen (Material's content.lazy).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import new_page, serve
from playwright.sync_api import Browser, Page, expect
from support import Site, post_urls

from mlblog.pages.chunks import MIN_CHARS, estimated_lines, top_level_blocks, wrap_chunks

PROSE = "<p>" + "A sentence about warps and tiles. " * 30 + "</p>\n"
LONG = PROSE * 3  # longer than MIN_CHARS
assert len(LONG) > MIN_CHARS > len(PROSE)

UNWRAP = re.compile(r'<div class="offscreen-chunk" style="--chunk-lines:\d+"(?: data-\w+="\w+")*>'
                    r'|<div class="table-host">')


def unwrapped(html: str) -> str:
    """`html` with the hook's wrappers taken out again (each opening tag and its matching </div>)."""
    out, depth_stack = [], []
    for token in re.split(r'(<div\b[^>]*>|</div>)', html):
        if UNWRAP.fullmatch(token):
            depth_stack.append(True)
        elif token.startswith("<div"):
            depth_stack.append(False)
            out.append(token)
        elif token == "</div>":
            if not depth_stack.pop():
                out.append(token)
        else:
            out.append(token)
    return "".join(out)


def chunk_contents(html: str) -> list[str]:
    """The inner HTML of each chunk, in order."""
    found = []
    for match in re.finditer(r'<div class="offscreen-chunk"[^>]*>', html):
        depth, at = 1, match.end()
        for tag in re.finditer(r"<div\b|</div>", html[at:]):
            depth += 1 if tag[0] == "<div" else -1
            if depth == 0:
                found.append(html[at: at + tag.start()])
                break
    return found


def test_everything_past_the_first_screens_is_wrapped_but_headings_and_live_parts() -> None:
    intro = PROSE * 4  # about the first three phone screens: never wrapped
    code = '<div class="highlight"><pre><code>x = 1\n</code></pre></div>\n'
    figure = '<figure class="fig"><svg viewBox="0 0 10 10"><path d="M0 0"/></svg></figure>\n'
    equation = '<div class="arithmatex"><span class="katex-display">x</span></div>\n'
    live = '<figure class="ifig" data-ifig="roofline"><svg viewBox="0 0 10 10"></svg></figure>\n'
    tabs = '<div class="tabbed-set" data-tabs="1:2"><input type="radio"></div>\n'
    titled = '<div class="admonition note"><h3 id="t">T</h3><p>x</p></div>\n'  # the TOC reads its heading
    listed = "<ul>\n<li>one</li>\n</ul>\n"  # a list's margin is the chunk's 1em: it may be an edge
    result = '<div class="result"><p>out</p></div>\n'  # Material styles it as its code block's sibling
    fragment = (
        intro + '<h2 id="a">A</h2>\n' + LONG + code + PROSE
        + '<h2 id="b">B</h2>\n' + LONG + "<table><tr><td>1</td></tr></table>\n" + LONG + figure + equation
        + '<div class="admonition note"><p>See</p><pre><code>y</code></pre></div>\n' + LONG
        + live + PROSE + tabs + LONG + listed + titled
        + '<h2 id="d">D</h2>\n' + code + LONG + code + result
        + '<h2 id="c">C</h2>\n' + "<table><tr><td>2</td></tr></table>\n"
    )
    out = wrap_chunks(fragment)
    assert unwrapped(out) == fragment  # nothing lost, nothing moved
    chunks = chunk_contents(out)
    # Between headings and live parts: four long runs; the short one between the two live parts stays.
    assert len(chunks) == 4, [c[:80] for c in chunks]
    assert code in chunks[0] and PROSE in chunks[0]
    assert all(part in chunks[1] for part in ("<table>", figure, equation, "<pre><code>y"))
    assert not any(re.search(r"<h[23]|ifig|tabbed-set", c) for c in chunks)
    assert chunks[2].endswith(listed.rstrip()) and titled + '<h2 id="d">' in out  # ends at its list
    # A chunk may begin and end at a code block, but not split one from its output box.
    assert chunks[3] == code + LONG.rstrip() and code + result + '<h2 id="c">' in out
    assert re.search(r"</figure>\n<p>[^<]*</p>\n<div class=\"tabbed-set\"", out)  # the short run
    # A table outside any chunk gets a plain host; inside a chunk it needs none.
    assert out.count('<div class="table-host"><table>') == 1
    assert out.endswith('<h2 id="c">C</h2>\n<div class="table-host"><table><tr><td>2</td></tr></table></div>\n')
    assert out.startswith(intro + '<h2 id="a">A</h2>\n<div class="offscreen-chunk"')


@pytest.mark.parametrize("inner", [
    "<ul>\n<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n</ul>\n",  # nested: its inner list's margin
    "<ul>\n<li>\n<p>x</p>\n</li>\n</ul>\n",  # loose: its paragraph's margin
    '<ol>\n<li>x<div class="highlight"><pre><code>y</code></pre></div></li>\n</ol>\n',  # a code block
])
def test_a_list_whose_edge_item_holds_a_block_is_never_a_chunks_edge(inner: str) -> None:
    # That block's margin would pass through the list and stop inside the chunk, on top of its 1em.
    plain = "<ul>\n<li>one</li>\n</ul>\n"
    for lst, is_edge in ((plain, True), (inner, False)):
        fragment = PROSE * 4 + '<h2 id="a">A</h2>\n' + lst + LONG + LONG + lst + '<h2 id="b">B</h2>\n'
        chunks = chunk_contents(wrap_chunks(fragment))
        assert len(chunks) == 1
        assert chunks[0].startswith(lst.rstrip()[:8]) is is_edge and chunks[0].endswith(lst.rstrip()) is is_edge


def test_a_chunk_at_a_static_figure_takes_the_figures_wider_margin() -> None:
    figure = '<figure class="fig"><svg viewBox="0 0 10 5"><path d="M0 0"/></svg></figure>\n'
    fragment = PROSE * 4 + '<h2 id="a">A</h2>\n' + figure + LONG + LONG + figure + '<h2 id="b">B</h2>\n'
    out = wrap_chunks(fragment)
    assert chunk_contents(out) == [(figure + LONG + LONG + figure).rstrip()]
    assert '<div class="offscreen-chunk" style="--chunk-lines:' in out
    assert 'data-top="figure" data-bottom="figure">' in out
    ends_in_prose = PROSE * 4 + '<h2 id="a">A</h2>\n' + figure + LONG + LONG + '<h2 id="b">B</h2>\n'
    assert 'data-top="figure">' in wrap_chunks(ends_in_prose) and "data-bottom" not in wrap_chunks(ends_in_prose)


def test_a_page_whose_nesting_does_not_add_up_is_left_as_it_is() -> None:
    broken = LONG + "<div><p>unclosed</div>\n" + LONG
    assert top_level_blocks(broken) is None
    assert wrap_chunks(broken) == broken
    assert wrap_chunks("") == ""


def test_height_estimate_counts_text_not_the_mathml_twin() -> None:
    plain = "<p>" + "x" * 700 + "</p>"
    mathml = "<math><semantics><annotation>" + "y" * 5000 + "</annotation></semantics></math>"
    with_math = "<p>" + "x" * 700 + f'<span class="katex">{mathml}</span></p>'
    assert estimated_lines(plain) == estimated_lines(with_math) == 11  # 700 / 70 + one block


def test_height_estimate_counts_code_lines_drawings_and_equations() -> None:
    code = '<div class="highlight"><pre><code>' + "x = 1\n" * 20 + "</code></pre></div>"
    assert estimated_lines(code) == 20 + 2 + 1  # its lines, the block's padding, one block
    wide = '<figure><svg viewBox="0 0 800 400">' + "<text>label</text>" * 50 + "</svg></figure>"
    assert estimated_lines(wide) == 8  # half as tall as wide: 15 / 2 lines, rounded; its labels not counted
    equation = '<div class="arithmatex"><span class="katex-display">x</span></div>'
    assert estimated_lines(equation) == 3 + 1


# --- the real posts in Chromium ------------------------------------------------------------------

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}

# Records every read of a size or position of an element inside a chunk the browser is skipping
# (Material's code blocks, figure-zoom.js's figures, a11y.js's boxes: each must wait until drawn).
WATCH_FORCED_LAYOUT = """
window.__forced = [];
(() => {
  const note = (el, what) => {
    try {
      if (el.isConnected && el.closest('.offscreen-chunk') && el.checkVisibility()
          && !el.checkVisibility({contentVisibilityAuto: true}))
        window.__forced.push(what + ' of ' + el.tagName + ': '
                             + ((new Error().stack || '').split('\\n')[3] || '').trim());
    } catch (e) {}
  };
  const props = {HTMLElement: ['offsetWidth', 'offsetHeight', 'offsetTop', 'offsetLeft'],
                 Element: ['clientWidth', 'clientHeight', 'scrollWidth', 'scrollHeight', 'scrollTop']};
  for (const [cls, names] of Object.entries(props)) for (const name of names) {
    const proto = window[cls].prototype, desc = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, {get() { note(this, name); return desc.get.call(this); },
                                        set: desc.set, configurable: true});
  }
  for (const name of ['getBoundingClientRect', 'getClientRects']) {
    const f = Element.prototype[name];
    Element.prototype[name] = function () { note(this, name); return f.apply(this, arguments); };
  }
})();
"""

SKIPPED = """[...document.querySelectorAll('.offscreen-chunk')]
  .map(c => !c.firstElementChild.checkVisibility({contentVisibilityAuto: true}))"""

# Top of every block in the article, in page coordinates.
POSITIONS = """() => [...document.querySelectorAll('article > *, .offscreen-chunk > *, .table-host > *')]
  .filter(el => !el.matches('.offscreen-chunk, .table-host'))
  .map(el => Math.round(el.getBoundingClientRect().top + scrollY))"""


def settled(page: Page) -> None:
    """Wait until no block moves for 300 ms: the first page of a fresh browser can still be swapping
    in a system font for inline code, a line more or less in a paragraph."""
    last = None
    for _ in range(20):
        now = page.evaluate(POSITIONS)
        if now == last:
            return
        last = now
        page.wait_for_timeout(300)


@pytest.fixture(scope="module")
def real_url(real_site: Site) -> Iterator[str]:
    with serve(real_site.site_dir, compress=True) as url:
        yield url


def test_long_posts_skip_what_is_off_screen_and_no_script_forces_it(
        browser: Browser, real_site: Site, real_url: str) -> None:
    paths = post_urls(real_site.site_dir)
    assert len(paths) >= 10
    for path in paths:
        page, rec = new_page(browser, real_url, **PHONE)
        page.add_init_script(WATCH_FORCED_LAYOUT)
        page.goto(real_url + path, wait_until="load")
        page.wait_for_timeout(600)  # fonts, figures and Material's components settle
        skipped = page.evaluate(SKIPPED)
        assert len(skipped) >= 5, f"{path}: {len(skipped)} chunks"
        assert sum(skipped) >= len(skipped) - 2, f"{path}: chunks far down are laid out at load: {skipped}"
        assert page.evaluate("window.__forced") == [], path
        # Scrolled to, a chunk is drawn.
        page.locator(".offscreen-chunk").last.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        assert page.evaluate(SKIPPED)[-1] is False, path
        assert rec.errors == [], path
        page.context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_every_block_sits_where_it_would_without_the_chunks(
        browser: Browser, real_site: Site, real_url: str, width: int) -> None:
    page, _ = new_page(browser, real_url, viewport={"width": width, "height": 900})
    for path in post_urls(real_site.site_dir):
        page.goto(real_url + path, wait_until="load")
        page.evaluate("document.fonts.ready")
        # Every chunk drawn, as the reader sees it once near it: still laid out on its own (a drawn
        # chunk keeps its layout, style and paint containment, so no margin crosses its edge).
        page.add_style_tag(content=".offscreen-chunk { content-visibility: visible !important;"
                                   " contain: layout style paint !important; }")
        settled(page)
        with_chunks = page.evaluate(POSITIONS)
        page.evaluate("document.querySelectorAll('.offscreen-chunk, .table-host')"
                      ".forEach(w => w.replaceWith(...w.childNodes))")
        without = page.evaluate(POSITIONS)
        assert len(with_chunks) == len(without) > 50, path
        moved = [(i, a, b) for i, (a, b) in enumerate(zip(with_chunks, without, strict=True)) if abs(a - b) > 1]
        assert moved == [], (path, moved[:5])
    page.context.close()


def test_wrappers_are_kept_in_the_build_cache_by_the_html(tmp_path: Path) -> None:
    from mlblog.pages.chunks import cached_wrap_chunks
    from mlblog.render.cache import Cache

    cache = Cache(tmp_path, "offscreen-chunks")
    fragment = PROSE * 4 + '<h2 id="a">A</h2>\n' + LONG + "<table><tr><td>1</td></tr></table>\n"
    first = cached_wrap_chunks(fragment, cache)
    assert first == wrap_chunks(fragment) and (cache.hits, cache.misses) == (0, 1)
    assert cached_wrap_chunks(fragment, cache) == first and cache.hits == 1
    # Other HTML is another entry, never the stored positions of the first.
    other = fragment.replace("warps", "lanes")
    assert cached_wrap_chunks(other, cache) == wrap_chunks(other) and cache.misses == 2


FA2 = "/blog/2025/08/14/flashattention-to-flashattention-2/"

# Each box inside a chunk that could scroll sideways: is its chunk drawn, its tabindex, a11y.js's
# state for it, and whether it scrolls (asked only of drawn boxes: asking forces a layout).
BOXES = """() => [...document.querySelectorAll(
    '.offscreen-chunk div.arithmatex, .offscreen-chunk div.md-typeset__scrollwrap')].map((box) => {
  const drawn = box.checkVisibility({contentVisibilityAuto: true});
  return {drawn, tabindex: box.getAttribute('tabindex'), state: box.dataset.a11y || null,
          role: box.getAttribute('role'),
          label: box.getAttribute('aria-label'),
          scrolls: drawn ? box.scrollWidth > box.clientWidth + 1 : null};
})"""


def next_frames(page: Page) -> None:
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_a_box_not_drawn_yet_takes_focus_and_once_drawn_only_if_it_scrolls(browser: Browser, real_url: str) -> None:
    page, rec = new_page(browser, real_url, **PHONE)
    page.goto(real_url + FA2, wait_until="load")
    page.wait_for_timeout(600)
    boxes = page.evaluate(BOXES)
    undrawn = [b for b in boxes if not b["drawn"]]
    assert len(undrawn) >= 5, boxes  # FA2's equations and tables far down
    # Not measured, but reachable: each takes focus, named by its kind and number.
    # (A group, not a region: only boxes known to scroll are listed among the page's landmarks.)
    assert all(b["tabindex"] == "0" and b["state"] == "unmeasured" and b["role"] == "group"
               and re.fullmatch(r"(Equation|Table) \d+", b["label"]) for b in undrawn), undrawn
    # Drawn as the reader scrolls to it: a box that scrolls keeps the focus, one that fits gives it up.
    # (Each is read while on screen: the browser skips a chunk again once the reader is far from it.)
    seen = []
    for i in range(len(boxes)):
        page.locator(".offscreen-chunk div.arithmatex, .offscreen-chunk div.md-typeset__scrollwrap").nth(i) \
            .scroll_into_view_if_needed()
        page.wait_for_timeout(100)
        next_frames(page)
        seen.append(page.evaluate(BOXES)[i])
    assert all(b["drawn"] for b in seen)
    scrolling = [b for b in seen if b["scrolls"]]
    fitting = [b for b in seen if not b["scrolls"]]
    assert scrolling and fitting, seen  # at phone width FA2 has both
    assert all(b["tabindex"] == "0" and b["state"] == "scrolls" and b["role"] == "region"
               and b["label"].endswith("(scrolls sideways)") for b in scrolling), scrolling
    assert all(b["tabindex"] is None and b["state"] is None and b["label"] is None and b["role"] is None
               for b in fitting), fitting
    labels = [b["label"] for b in scrolling]
    assert len(set(labels)) == len(labels)  # distinct region names
    assert rec.errors == []
    page.context.close()


def test_figures_and_code_blocks_are_measured_once_near_the_screen(browser: Browser, real_url: str) -> None:
    page, rec = new_page(browser, real_url, **PHONE)
    page.goto(real_url + FA2, wait_until="load")
    page.wait_for_timeout(600)
    far = page.evaluate("""() => {
      const inSkipped = (el) => !el.checkVisibility({contentVisibilityAuto: true});
      return {figures: [...document.querySelectorAll('.offscreen-chunk figure.fig')].filter(inSkipped)
                .map((f) => f.dataset.figZoom || null),
              code: [...document.querySelectorAll('.offscreen-chunk div.highlight')].filter(inSkipped)
                .map((b) => b.querySelector('.md-code__nav') !== null)};
    }""")
    # Far down: figure-zoom.js has not measured the figures, Material has not mounted the code blocks.
    assert far["figures"] and set(far["figures"]) == {None}, far
    assert far["code"] and set(far["code"]) == {False}, far
    figure = page.locator(".offscreen-chunk figure.fig").last
    figure.scroll_into_view_if_needed()
    page.wait_for_function("(f) => f.dataset.figZoom", arg=figure.element_handle())
    block = page.locator(".offscreen-chunk div.highlight").last
    block.scroll_into_view_if_needed()
    expect(block.locator("button.md-code__button[data-md-type=copy]")).to_have_count(1)
    assert rec.errors == []
    page.context.close()


def test_a_code_block_the_reader_is_on_keeps_the_focus_when_material_mounts_it(
        browser: Browser, real_url: str) -> None:
    # A code block far down takes focus before it is drawn (a11y.js). On a touch screen Material,
    # mounting it once on screen, takes its tabindex away; a reader who tabbed onto it first keeps
    # the focus there (Chromium leaves the focus on an element that stops being focusable).
    page, rec = new_page(browser, real_url, **PHONE)
    page.goto(real_url + FA2, wait_until="load")
    page.wait_for_timeout(600)
    block = page.locator(".offscreen-chunk div.highlight").last
    code = block.locator("pre > code")
    assert code.get_attribute("tabindex") == "0" and block.locator(".md-code__nav").count() == 0
    code.focus()
    expect(block.locator("button.md-code__button[data-md-type=copy]")).to_have_count(1)  # mounted
    page.wait_for_timeout(300)
    next_frames(page)
    assert page.evaluate("(code) => document.activeElement === code", code.element_handle())
    # Once the reader moves on, Material's decision stands: no tabindex (this block, touch screen).
    page.keyboard.press("Tab")
    assert page.evaluate("(code) => document.activeElement !== code", code.element_handle())
    assert code.get_attribute("tabindex") is None
    assert rec.errors == []
    page.context.close()
