"""Under `mkdocs serve`, a page's Markdown is converted again only when its inputs change.

Every save rebuilds the whole site, and most of a rebuild is converting every page's Markdown to
HTML (Pygments on every code block), although one post changed. Per page, the last conversion is
kept (on the plugin, which `mkdocs serve` keeps across rebuilds) with the key of everything that
decided it: the page's final Markdown, its source, destination and URL, the Markdown extensions and
their options, the site's URL, directory-URL and validation settings, every file's source and URL
(links resolve against them), and the contents of every file the page includes with ``--8<--``. A
page that includes a file which itself includes files, or whose conversion logged anything (a
warning that ``--strict`` must count again), is never reused. Everything after the conversion
(templates, listings, feeds, checks) runs on every rebuild.
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

SNIPPET = re.compile(r"--8<--")
SNIPPET_NAME = re.compile(r"""(?:^|\s)--8<--\s+(["'])(.+?)\1|^\s*([^\s"';][^\s"']*)\s*$""", re.MULTILINE)


class _Recorder(logging.Handler):
    """Catches anything logged while one page converts (then its result is not kept)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen = False

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


def _snippet_bases(config: Any) -> tuple[list[Path], list[str]]:
    options = (config["mdx_configs"] or {}).get("pymdownx.snippets", {})
    bases = options.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else list(bases)
    return [Path(base) for base in bases], list(options.get("auto_append", []))


def _snippets_part(markdown: str, config: Any) -> str | None:
    """Contents of every file the page includes; None when that cannot be known for sure."""
    bases, appended = _snippet_bases(config)
    names = list(appended)
    if SNIPPET.search(markdown):
        for match in SNIPPET_NAME.finditer(markdown):
            name = match.group(2) or match.group(3)
            if name and "--8<--" not in name:
                names.append(name)
    if not names:
        return ""
    parts = []
    for name in names:
        for candidate in [base / path for path in dict.fromkeys((name, name.split(":", 1)[0])) for base in bases]:
            if candidate.is_file():
                data = candidate.read_bytes()
                if b"--8<--" in data:
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
        self._parts: dict[str, Any] = {}

    def start_build(self) -> None:
        self.reused = 0
        self._parts.clear()

    def _key(self, page: Page, config: Any, files: Any) -> str | None:
        snippets = _snippets_part(page.markdown or "", config)
        if snippets is None:
            return None
        if "config" not in self._parts:
            self._parts["config"] = _stable((config["markdown_extensions"], config["mdx_configs"], config["site_url"],
                                             config["use_directory_urls"], config["validation"], config["docs_dir"]))
        if self._parts.get("files_id") != id(files) or self._parts.get("files_len") != len(files):
            self._parts["files"] = key(*sorted(f"{f.src_uri}\0{f.dest_uri}\0{f.url}" for f in files))
            self._parts["files_id"], self._parts["files_len"] = id(files), len(files)
        return key(page.markdown or "", page.file.src_uri, page.file.dest_uri, page.file.url,
                   self._parts["config"], self._parts["files"], snippets)

    def wrap(self, page: Page) -> None:
        """Replace this page object's conversion (never the class's) with one that reuses."""
        if type(page).render is Page.render:
            page.render = lambda config, files: self._render(page, config, files)  # type: ignore[method-assign]

    def _render(self, page: Page, config: Any, files: Any) -> None:
        found = self._key(page, config, files)
        kept = self.renders.get(page.file.src_uri)
        if found is not None and kept is not None and kept[0] == found:
            state = kept[1]
            linked = {}
            for src_uri, links in state["links_to_anchors"].items():
                target = files.get_file_from_path(src_uri)
                if target is None:
                    break
                linked[target] = dict(links)
            else:
                page.content = state["content"]
                page.toc = copy.deepcopy(state["toc"])
                page._title_from_render = state["title"]
                page.present_anchor_ids = set(state["anchors"])
                if state["has_links"]:
                    page.links_to_anchors = linked
                self.reused += 1
                return
        recorder = _Recorder()
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
            "anchors": set(page.present_anchor_ids or ()), "has_links": links is not None,
            "links_to_anchors": {target.src_uri: dict(found) for target, found in (links or {}).items()},
        })
