"""Under `mkdocs serve`, a rebuild that fails shows its problems in the browser, then recovers.

MkDocs 1.6 answers a failed rebuild by holding every request until the site builds again: the
author's browser waits silently while the reason sits in a terminal. The live-reload server's builder
and app are wrapped (contracts.DETAILS lists the server internals used): a failed rebuild is recorded
with the warnings and errors it logged, the browsers are told to reload, and every page then answers
with that list (status 500) and MkDocs' own reload script, so the page comes back by itself once the
file is fixed. The first build of ``mkdocs serve`` still stops the command.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mkdocs.plugins import get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.livereload import LiveReloadServer

log = get_plugin_logger("mlblog")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("mkdocs.livereload"):  # the server's request log is not the build's
            self.messages.append(record.getMessage())


def error_page(messages: Iterable[str]) -> bytes:
    items = "\n".join(f"<pre>{html.escape(m)}</pre>" for m in messages)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The site did not build</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}}
pre{{white-space:pre-wrap;background:#fdecea;border-left:4px solid #b3261e;padding:.75rem 1rem}}</style>
</head><body><main><h1>The site did not build</h1>
<p>The last rebuild stopped with the problems below. Fix the file and save: this page reloads by itself.</p>
{items}
</main></body></html>""".encode()


def report_failed_rebuilds(server: LiveReloadServer) -> LiveReloadServer:
    build = server.builder
    serve = server.serve_request
    failure: list[str] = []  # what the last rebuild logged when it failed; empty after a good build

    def build_or_report() -> None:
        collect = _Collect()
        logging.getLogger("mkdocs").addHandler(collect)
        try:
            build()
        except Exception as exc:  # noqa: BLE001 - a failed rebuild is shown, never raised into the loop
            # MkDocs logs a build's error once per process (a DuplicateFilter on its build logger): the
            # same problems at the next rebuild are only in the exception that Abort was raised from.
            failure[:] = collect.messages or [str(exc.__context__ or exc)]
            log.error("the rebuild failed; the browser shows why and reloads once it builds again")
        else:
            failure.clear()
        finally:
            logging.getLogger("mkdocs").removeHandler(collect)

    def serve_or_report(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if failure and not path.startswith("/livereload/") and path.endswith(("/", ".html")):
            with server._epoch_cond:  # MkDocs' reload script polls for a newer build than this one
                epoch = server._visible_epoch
            body = server._inject_js_into_html(error_page(failure), epoch)
            start_response("500 Build failed", [("Content-Type", "text/html; charset=utf-8"),
                                                ("Content-Length", str(len(body)))])
            return [body]
        return serve(environ, start_response)

    class Handler(server.RequestHandlerClass):  # type: ignore[name-defined, misc]
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            # MkDocs logs every non-200 answer as a warning, and a strict rebuild counts warnings from any
            # thread: the failure page itself must not fail the rebuild that would fix it.
            if str(code) == "500" and failure:
                return
            super().log_request(code, size)

    server.RequestHandlerClass = Handler
    server.builder = build_or_report
    server.set_app(serve_or_report)
    return server
