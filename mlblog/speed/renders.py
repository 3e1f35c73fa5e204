"""Under `mkdocs serve`, a page's Markdown is converted again only when its inputs change.

Every save rebuilds the whole site, and most of a rebuild is converting every page's Markdown
(Pygments on every code block), although one post changed. Per page, the last conversion is kept on
the plugin (which `mkdocs serve` keeps across rebuilds) under the key of everything that decided it:
the page's Markdown, source, destination and URL, the Markdown extensions and their options, the
site's settings that links depend on, every file's source and URL, and the contents of every file
the page includes with ``--8<--``. A page including a file that includes files, or whose conversion
logged anything (a warning that ``--strict`` must count again), is never reused. Everything after
the conversion runs on every rebuild.
"""

from __future__ import annotations

import copy
import logging
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.pages import Page

from ..render.cache import key

SNIPPET = "--8<--"
SNIPPET_NAME = re.compile(r"""(?:^|\s)--8<--\s+(["'])(.+?)\1|^\s*([^\s"';][^\s"']*)\s*$""", re.MULTILINE)


class _Recorder(logging.Handler):
    """Catches anything logged while one page converts (then its result is not kept)."""

    seen = False

    def emit(self, record: logging.LogRecord) -> None:
        self.seen = True


def _stable(value: Any) -> str:
    """A repr that is the same for equal options in two loads of mkdocs.yml (paths as paths)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_stable(k)}: {_stable(v)}" for k, v in sorted(value.items(), key=repr)) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_stable(item) for item in value) + "]"
    if isinstance(value, os.PathLike):
        return repr(os.fspath(value))
    return repr(value)


def _snippets_part(markdown: str, config: Any) -> str | None:
    """Contents of every file the page includes; None when that cannot be known for sure."""
    options = (config["mdx_configs"] or {}).get("pymdownx.snippets", {})
    bases = options.get("base_path", ["."])
    bases = [Path(base) for base in ([bases] if isinstance(bases, str) else bases)]
    names = list(options.get("auto_append", []))
    if SNIPPET in markdown:
        names += [name for match in SNIPPET_NAME.finditer(markdown)
                  if (name := match.group(2) or match.group(3)) and SNIPPET not in name]
    parts = []
    for name in names:
        for candidate in [base / path for path in dict.fromkeys((name, name.split(":", 1)[0])) for base in bases]:
            if candidate.is_file():
                data = candidate.read_bytes()
                if SNIPPET.encode() in data:
                    return None  # a nested include: not followed here, so never reused
                parts.append(f"{candidate}\0".encode() + data)
                break
        else:
            parts.append(f"missing\0{name}".encode())
    return key(*parts)


class RenderMemo:
    """The last conversion of each page (kept across rebuilds), and how many this build reused."""

    def __init__(self) -> None:
        self.renders: dict[str, tuple[str, dict[str, Any]]] = {}  # src_uri -> (key, state)
        self.reused = 0
        self._config = ""  # this build's part of every key
        self._files: tuple[Any, int, str] | None = None  # this build's files, their number, their part

    def start_build(self) -> None:
        self.reused = 0
        self._config, self._files = "", None

    def _key(self, page: Page, config: Any, files: Any) -> str | None:
        snippets = _snippets_part(page.markdown or "", config)
        if snippets is None:
            return None
        if not self._config:
            self._config = _stable((config["markdown_extensions"], config["mdx_configs"], config["site_url"],
                                    config["use_directory_urls"], config["validation"], config["docs_dir"]))
        if self._files is None or self._files[0] is not files or self._files[1] != len(files):
            self._files = (files, len(files), key(*sorted(f"{f.src_uri}\0{f.dest_uri}\0{f.url}" for f in files)))
        return key(page.markdown or "", page.file.src_uri, page.file.dest_uri, page.file.url,
                   self._config, self._files[2], snippets)

    def wrap(self, page: Page) -> None:
        """Replace this page object's conversion (never the class's) with one that reuses."""
        if type(page).render is Page.render:
            page.render = lambda config, files: self._render(page, config, files)  # type: ignore[method-assign]

    def _render(self, page: Page, config: Any, files: Any) -> None:
        found = self._key(page, config, files)
        kept = self.renders.get(page.file.src_uri)
        if found is not None and kept is not None and kept[0] == found:
            state = kept[1]
            links = state["links_to_anchors"]
            targets = {src_uri: files.get_file_from_path(src_uri) for src_uri in links or ()}
            if None not in targets.values():  # else a page it links to is gone: converted again
                page.content, page._title_from_render = state["content"], state["title"]
                page.toc = copy.deepcopy(state["toc"])
                page.present_anchor_ids = set(state["anchors"])
                if links is not None:
                    page.links_to_anchors = {targets[src_uri]: dict(anchors) for src_uri, anchors in links.items()}
                self.reused += 1
                return
        recorder = _Recorder(logging.INFO)
        loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
        for logger in loggers:
            logger.addHandler(recorder)
        try:
            Page.render(page, config, files)
        finally:
            for logger in loggers:
                logger.removeHandler(recorder)
        if found is None or recorder.seen:
            self.renders.pop(page.file.src_uri, None)
            return
        links = page.links_to_anchors
        self.renders[page.file.src_uri] = (found, {
            "content": page.content, "toc": copy.deepcopy(page.toc), "title": page._title_from_render,
            "anchors": set(page.present_anchor_ids or ()),
            "links_to_anchors": None if links is None else {target.src_uri: dict(anchors)
                                                            for target, anchors in links.items()},
        })
