"""Within one process, convert a page's Markdown only when its inputs change.

`mkdocs serve` rebuilds the whole site on every save, and most of a rebuild is converting every
page's Markdown to HTML (Pygments on every code block), although one post changed. Hook modules
stay loaded between rebuilds, so this one keeps, per page, the last conversion with the key of
everything that decided it, and a rebuild reuses a conversion whose key is unchanged.

The conversion is ``Page.render``, replaced on each page object, never on the class. The key is the
page's final Markdown (after every ``on_page_markdown``), its source, destination and URL, the
Markdown extensions and their options, the site's URL, directory-URL and validation settings, the
set of files with their URLs (links resolve against it, so adding, moving or deleting any file re-
converts every page once), and the contents of every file the page includes with ``--8<--`` (and of
the snippets extension's ``auto_append`` files). A page that includes a file which itself includes
files, or whose conversion logged anything (a warning that ``--strict`` counts must be logged
again), is never reused. Reused: the HTML, the table of contents (a copy), the title from the first
heading and the anchors MkDocs validates links against.

Everything after (templates, listings, feeds, the sitemap, every check) runs on every build, so a
listing, feed or series box is always built from this build's records. A plain ``mkdocs build``
converts each page once and finds nothing to reuse. ML_BLOG_SPEEDUPS=off turns this off.
"""

from __future__ import annotations

import copy
import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import build_cache
import speedups
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.pages import Page

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

log = get_plugin_logger("reuse_renders")

SNIPPET = re.compile(r"--8<--")
SNIPPET_NAME = re.compile(r"""(?:^|\s)--8<--\s+(["'])(.+?)\1|^\s*([^\s"';][^\s"']*)\s*$""", re.MULTILINE)

# src_uri -> (key, state): the last conversion of each page.
_renders: dict[str, tuple[str, dict[str, Any]]] = {}
_build: dict[str, Any] = {}
reused = {"renders": 0}


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    _build.clear()
    reused.update(renders=0)
    return config


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


def _config_part(config: MkDocsConfig) -> str:
    if "config" not in _build:
        _build["config"] = _stable((config["markdown_extensions"], config["mdx_configs"], config["site_url"],
                                    config["use_directory_urls"], config["validation"], config["docs_dir"]))
    return _build["config"]


def _files_part(files: Files) -> str:
    if _build.get("files_id") != id(files) or _build.get("files_len") != len(files):
        _build["files"] = build_cache.key(*sorted(f"{f.src_uri}\0{f.dest_uri}\0{f.url}" for f in files))
        _build["files_id"], _build["files_len"] = id(files), len(files)
    return _build["files"]


def _snippet_bases(config: MkDocsConfig) -> tuple[list[Path], list[str]]:
    options = (config["mdx_configs"] or {}).get("pymdownx.snippets", {})
    bases = options.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else list(bases)
    return [Path(base) for base in bases], list(options.get("auto_append", []))


def _snippets_part(markdown: str, config: MkDocsConfig) -> str | None:
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
    return build_cache.key(*parts)


def _render_key(page: Page, config: MkDocsConfig, files: Files) -> str | None:
    snippets = _snippets_part(page.markdown or "", config)
    if snippets is None:
        return None
    return build_cache.key(page.markdown or "", page.file.src_uri, page.file.dest_uri, page.file.url,
                           _config_part(config), _files_part(files), snippets)


def _remembering_render(page: Page) -> Any:
    def render(config: MkDocsConfig, files: Files) -> None:
        key = _render_key(page, config, files)
        kept = _renders.get(page.file.src_uri)
        if key is not None and kept is not None and kept[0] == key:
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
                reused["renders"] += 1
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
        if key is None or recorder.seen:
            _renders.pop(page.file.src_uri, None)
            return
        links = page.links_to_anchors
        _renders[page.file.src_uri] = (key, {
            "content": page.content, "toc": copy.deepcopy(page.toc), "title": page._title_from_render,
            "anchors": set(page.present_anchor_ids or ()), "has_links": links is not None,
            "links_to_anchors": {target.src_uri: dict(found) for target, found in (links or {}).items()},
        })

    return render


@event_priority(-1000)  # last: the key is taken when MkDocs converts, after every on_page_markdown
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if speedups.enabled() and type(page).render is Page.render:
        page.render = _remembering_render(page)  # type: ignore[method-assign]
    return markdown


def on_post_build(config: MkDocsConfig) -> None:
    log.debug("reused %d conversions", reused["renders"])
