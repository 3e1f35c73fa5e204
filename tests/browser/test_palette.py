"""The palette toggle (overrides/partials/palette.html, partials/javascripts/palette.html).

Material's palette component re-applied the reader's palette after every page load, and each time
the browser restyled the whole page twice. The site's own script sets the palette while the header
is parsed, before any content, and changes it only when the reader picks another one or the system
setting it follows changes. It keeps Material's look, keyboard use and stored choice.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import new_page, scheme, serve
from playwright.sync_api import Browser, Page
from support import Site

POST = "/blog/2025/08/07/compilers-one/"

# Every change to the body's palette attributes, with whether the article had been parsed yet.
WATCH_PALETTE = """
window.__paletteChanges = [];
new MutationObserver(records => {
  for (const r of records) if (r.target === document.body && r.attributeName.startsWith('data-md-color'))
    window.__paletteChanges.push({name: r.attributeName, afterContent: !!document.querySelector('article')});
}).observe(document, {subtree: true, attributes: true});
"""


@pytest.fixture(scope="module")
def base_url(reader_site: Site) -> Iterator[str]:
    with serve(reader_site.site_dir) as url:
        yield url


def visible_toggle(page: Page) -> str:
    return page.locator("form[data-site-palette] label:visible").get_attribute("title") or ""


@pytest.mark.parametrize(("system", "stored", "wanted"), [
    ("light", None, "default"), ("dark", None, "slate"),   # nothing chosen: follow the system
    ("light", "__md_set('site.palette', 2)", "slate"),     # a stored choice wins over the system
    ("dark", "__md_set('site.palette', 1)", "default"),
    # A choice stored by an earlier version, under Material's key and in its format, and nothing else.
    ("light", "localStorage.clear(); __md_set('__palette', {index: 2, color: {}})", "slate"),
    # A stored value that is not JSON is no choice: the system's setting, and the toggle still works.
    ("dark", "localStorage.clear(); localStorage.setItem(__md_scope.pathname + '.site.palette', '{no')", "slate"),
])
def test_the_palette_is_set_before_the_content_and_not_again(
        browser: Browser, base_url: str, system: str, stored: str | None, wanted: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme=system)
    if stored is not None:
        page.goto(base_url + POST)
        page.evaluate(stored)
    page.add_init_script(WATCH_PALETTE)
    page.goto(base_url + POST, wait_until="load")
    page.wait_for_timeout(300)
    assert scheme(page) == wanted
    changes = page.evaluate("window.__paletteChanges")
    assert all(not c["afterContent"] for c in changes), changes
    # The toggle shows the option in use, and the browser's theme colour is the header's.
    assert page.locator("form[data-site-palette] label:visible").count() == 1
    header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
    rgb = [int(x) for x in header[header.index("(") + 1:header.index(")")].split(",")[:3]]
    # Set once the loaded page is idle (reading the header's colours while parsing splits the paint).
    page.wait_for_function("document.querySelector('meta[name=theme-color]').content", timeout=5000)
    theme = page.evaluate("document.querySelector('meta[name=theme-color]').content")
    assert theme == "#" + "".join(f"{c:02x}" for c in rgb)
    assert rec.errors == []
    page.context.close()


# Every computed-style read made while the page is still being parsed, by the script making it, and
# the color-scheme meta once the page is parsed.
WATCH_STYLE_READS = """
window.__styleReads = [];
const read = window.getComputedStyle;
window.getComputedStyle = function (...args) {
  if (document.readyState === 'loading')
    window.__styleReads.push((new Error().stack.split('\\n')[2] || '').trim());
  return read.apply(this, args);
};
document.addEventListener('DOMContentLoaded', () => {
  window.__schemeAtParsed = (document.querySelector('meta[name=color-scheme]') || {}).content;
});
"""


def header_colour(page) -> str:
    """The header's background as #rrggbb, as the browser's theme-color is written."""
    rgb = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
    return "#" + "".join(f"{int(c):02x}" for c in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])


def test_the_palette_reads_no_style_while_the_page_is_parsed(browser: Browser, base_url: str) -> None:
    """The browser's theme and scheme colours are read from the header's computed style. Read while
    the page is parsed, that is a style pass on its own: the parser stops for it and the browser
    paints the header alone, the rest a frame later (two paints, a later largest one). They are
    read once the loaded page is idle, and at once when the reader switches."""
    page, rec = new_page(browser, base_url, color_scheme="dark")
    page.add_init_script(WATCH_STYLE_READS)
    page.goto(base_url + POST, wait_until="load")
    ours = [where for where in page.evaluate("window.__styleReads") if POST in where]
    assert ours == []
    # The scrollbars' scheme is set from the option while parsing; read from the header once idle.
    assert page.evaluate("window.__schemeAtParsed") == "dark"
    page.wait_for_function("document.querySelector('meta[name=theme-color]').content", timeout=5000)
    assert page.evaluate("document.querySelector('meta[name=theme-color]').content") == header_colour(page)
    page.locator("form[data-site-palette] label:visible").click()  # dark -> light: read again at once
    assert page.evaluate("document.querySelector('meta[name=color-scheme]').content") == "light"
    assert page.evaluate("document.querySelector('meta[name=theme-color]').content") == header_colour(page)
    assert header_colour(page) == "#ffffff"  # the site's header is the page's own background
    assert rec.errors == []
    page.context.close()


def test_the_toggle_cycles_persists_and_works_by_keyboard(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, color_scheme="dark")
    page.goto(base_url + POST, wait_until="load")
    assert (scheme(page), visible_toggle(page)) == ("slate", "Switch to light mode")  # auto, dark system
    page.locator("form[data-site-palette] label:visible").click()
    assert (scheme(page), visible_toggle(page)) == ("default", "Switch to dark mode")
    page.reload(wait_until="load")
    assert (scheme(page), visible_toggle(page)) == ("default", "Switch to dark mode")  # stored
    assert page.evaluate("document.body.hasAttribute('data-md-color-switching')") is False
    # Keyboard: the checked option takes focus, Enter moves to the next one.
    page.locator("form[data-site-palette] input:checked").focus()
    page.keyboard.press("Enter")
    assert (scheme(page), visible_toggle(page)) == ("slate", "Switch to system preference")
    assert page.evaluate("document.activeElement.id") == "__palette_2"
    page.keyboard.press("Enter")
    assert visible_toggle(page) == "Switch to light mode"  # back to following the system
    # Following the system: a change of the system setting is followed at once.
    page.emulate_media(color_scheme="light")
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    assert page.evaluate("__md_get('site.palette')") == 0
    assert rec.errors == []
    page.context.close()
