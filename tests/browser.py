"""Serve a built site on 127.0.0.1 and drive it with headless Chromium through Playwright.

Chromium comes from the system (Debian's package at /usr/bin/chromium, or $CHROMIUM); Playwright
never downloads a browser. Every request and console message is recorded so a test can assert
that the page asked no other host for anything and logged no error.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@contextmanager
def serve(site_dir: Path) -> Iterator[str]:
    """Serve site_dir on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
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


def new_page(browser: Browser, base: str, **context_args: object) -> tuple[Page, Recorder]:
    context = browser.new_context(**context_args)
    # Anything not served by our server is refused, so a stray request cannot hang a test.
    context.route(lambda url: not url.startswith(base), lambda route: route.abort())
    recorder = Recorder(base)
    page = recorder.attach(context.new_page())
    return page, recorder
