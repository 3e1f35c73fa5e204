"""Serve a built site on 127.0.0.1 and drive it with headless Chromium through Playwright.

Chromium comes from the system (Debian's package at /usr/bin/chromium, or $CHROMIUM); Playwright
never downloads a browser. Every request and console message is recorded so a test can assert
that the page asked no other host for anything and logged no error.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
]


# A sitemap entry's origin: scheme, host and port, up to the path.
LOC_ORIGIN = re.compile(rb"(<loc>)\s*[a-z][a-z0-9+.-]*://[^/<\s]+/")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        if not self.send_sitemap():
            super().do_GET()

    def send_sitemap(self) -> bool:
        """sitemap.xml as the site's own host serves it: with this server's origin in place of the
        published one (site_url). Material's instant navigation treats a link as the site's only when
        the sitemap lists it, and it takes only the scheme and host of the page, not its port, so the
        published origin would list no page of a server on another port, and every click in a test
        would load a whole new page instead of an instant page change."""
        if not self.path.split("?", 1)[0].endswith("/sitemap.xml"):
            return False
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            return False
        origin = f"http://127.0.0.1:{self.server.server_address[1]}/".encode()
        body = LOC_ORIGIN.sub(lambda m: m.group(1) + origin, path.read_bytes())
        gzipped = isinstance(self, _GzipHandler) and "gzip" in self.headers.get("Accept-Encoding", "")
        if gzipped:
            body = gzip.compress(body, compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True


# What a static host (GitHub Pages) compresses; images and fonts are sent as they are.
COMPRESSED = {".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".txt", ".map", ".wasm"}


class _GzipHandler(_QuietHandler):
    """Serves as a real host does: text files gzip-encoded (level 6, as common hosts do) to a client
    that accepts it, so byte counts are what a reader downloads, over persistent HTTP/1.1
    connections (GitHub Pages: HTTP/2). An HTTP/1.0 server makes a client open a new connection per
    request, which Lighthouse's simulated slow network charges a round trip or two each."""

    protocol_version = "HTTP/1.1"
    _cache: dict[tuple[str, float], bytes] = {}

    def do_GET(self) -> None:
        if self.send_sitemap():
            return
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?", 1)[0].endswith("/"):
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or path.suffix not in COMPRESSED \
                or not path.is_file():
            return super().do_GET()
        key = (str(path), path.stat().st_mtime)
        if key not in self._cache:
            self._cache[key] = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        body = self._cache[key]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(site_dir: Path, *, compress: bool = False) -> Iterator[str]:
    """Serve site_dir on a free loopback port; yields the base URL. With compress=True, as a real
    host serves it (_GzipHandler)."""
    kind = _GzipHandler if compress else _QuietHandler
    handler = functools.partial(kind, directory=str(site_dir))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"Chromium not found at {CHROMIUM}: run `make browser` or set CHROMIUM")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Recorder:
    """Requests to other hosts and console errors seen by one page."""

    base: str
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> Page:
        def on_request(request: object) -> None:
            url = request.url  # type: ignore[attr-defined]
            if not (url.startswith(self.base) or url.startswith(("data:", "blob:", "about:"))):
                self.external.append(url)

        page.on("request", on_request)
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page


def follow(page: Page, link: Locator | Callable[[], None], url: object) -> bool:
    """Click a link (or call ``link``, as a key press) and wait until the page it opens is the one shown; True when that
    was an instant page change (the window survived), False when a whole page loaded. Material's instant navigation
    changes the address before it swaps the new page in (and emits document$), so waiting for the address alone can
    read, or type into, the old page. Material also closes search (and the drawer) 125 ms after every change of
    address (its bundle: merge(location$, target$).pipe(delay(125))), so search opened sooner would be closed under
    the test's keys: that is waited out too."""
    seen = page.evaluate("""() => {
        window.__sameWindow = true;
        if (!window.document$) return null;
        if (window.__pagesShown === undefined) {
            window.__pagesShown = 0;
            window.document$.subscribe(() => { window.__pagesShown += 1; });
        }
        return window.__pagesShown;
    }""")
    # Material intercepts a click only once it holds the sitemap (its click stream is withLatestFrom(sitemap$)):
    # a click before that loads a whole page. So wait until the sitemap has arrived, and a moment for its parse.
    if page.evaluate("""() => {
        const config = document.getElementById('__config');
        return !!config && JSON.parse(config.textContent).features.includes('navigation.instant');
    }"""):
        page.wait_for_function("""() => performance.getEntriesByType('resource').some(
            (e) => e.name.split('?')[0].endsWith('/sitemap.xml') && e.responseEnd > 0)""")
        page.wait_for_timeout(100)
    if callable(link):
        link()
    else:
        link.click()
    page.wait_for_url(url)
    if seen is not None:
        page.wait_for_function("(n) => window.__pagesShown === undefined || window.__pagesShown > n", arg=seen)
    instant = page.evaluate("window.__sameWindow === true")
    if instant:
        page.wait_for_timeout(250)
    return instant


def new_page(browser: Browser, base: str, **context_args: object) -> tuple[Page, Recorder]:
    context = browser.new_context(**context_args)
    # Anything not served by our server is refused, so a stray request cannot hang a test.
    context.route(lambda url: not url.startswith(base), lambda route: route.abort())
    recorder = Recorder(base)
    page = recorder.attach(context.new_page())
    return page, recorder


# --- what the tests do to a page, written once -------------------------------------------------

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


# axe's rules whose verdict depends on colours: a page seen again in the other palette needs these,
# where the others would find what they found the first time (they take a third of a post's axe time).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_violations(page: Page, only: list[str] | None = None) -> list[dict[str, object]]:
    """axe-core's violations on the page as it is now: rule id, help and the first few nodes. With
    ``only``, just those rules run."""
    # Chunks the browser has not drawn yet (mlblog/pages/chunks.py) are drawn first, as
    # a reader scrolling there sees them: axe scrolls through the page as it checks, and chunks taking
    # their real height under it move what it measures (it then finds colours and targets at
    # positions where the element no longer is).
    # Then a11y.js measures what they hold, as it does when the browser draws a chunk.
    page.evaluate("""() => new Promise((done) => {
        document.querySelectorAll('.offscreen-chunk').forEach(c => c.style.contentVisibility = 'visible');
        if (window.__siteA11y) window.__siteA11y();
        requestAnimationFrame(() => requestAnimationFrame(done));
    })""")
    page.add_script_tag(path=str(AXE))
    # Plus WCAG 2.2's target size, which axe leaves off by default and Lighthouse checks (a 13 px
    # checkbox in an interactive figure failed it). Only violations are reported in full: every rule
    # still runs on every node, but axe stops listing the passing ones (a tenth of its time on a post).
    rules = {"runOnly": only} if only else {"rules": {"target-size": {"enabled": True}}}
    results = json.loads(page.evaluate(
        "async (rules) => JSON.stringify((await axe.run(document, {...rules, resultTypes: ['violations']}))"
        ".violations)", rules))
    return [{"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]} for v in results]


def attributes(element: Locator) -> dict[str, str]:
    """Every attribute of the element, read in one round trip (a figure's state is a dozen of them, read
    after each of hundreds of steps)."""
    return element.evaluate("el => Object.fromEntries([...el.attributes].map(a => [a.name, a.value]))")


def scheme(page: Page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def switch_palette(page: Page, wanted: str) -> None:
    """Click the palette toggle until the page shows `wanted` ('default' or 'slate')."""
    for _ in range(3):
        if scheme(page) == wanted:
            return
        page.locator("form[data-site-palette] label:visible").first.click()
    assert scheme(page) == wanted


def searches_missed(page: Page, queries: list[tuple[str, str]]) -> list[str]:
    """Each (query, slug) typed in turn into the page's search box: the queries whose first result
    is not the page at slug, each with what came first instead."""
    missed = []
    for query, slug in queries:
        first = search(page, query)
        try:
            expect(first).to_have_attribute("href", re.compile(rf"/{re.escape(slug)}/(\?h=[^#]*)?(#.*)?$"),
                                            timeout=5_000)
        except AssertionError:
            missed.append(f"{query}: first result {first.get_attribute('href')}, not {slug}")
    return missed


def search(page: Page, query: str) -> Locator:
    """Open search with the keyboard shortcut unless it is open, clear a query left from before, type
    the query key by key, wait until the results answer the whole query (docs/javascripts/search.js);
    the first result's link."""
    field = page.locator("input.md-search__input")
    if not field.evaluate("(el) => el === document.activeElement"):
        page.keyboard.press("/")
    expect(field).to_be_focused()
    if field.input_value():
        page.keyboard.press("Control+A")
        page.keyboard.press("Backspace")
        expect(field).to_have_value("")
    page.keyboard.type(query, delay=25)
    box = page.locator("[data-site-search]")
    expect(box).to_have_attribute("data-search-query", query, timeout=10_000)
    return box.locator(".md-search-result__item > .md-search-result__link").first
