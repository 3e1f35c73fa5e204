"""Scripts only where they are used: each page gets the few scripts its own HTML needs.

mkdocs.yml's ``extra_javascript`` lists only the header's search. Once a page is rendered, this
hook reads which features its HTML contains and adds their scripts (``defer``, in this order) at
the end of ``<main>``:

* ``<figure class="ifig" data-ifig="NAME">``: docs/javascripts/ifig/core.js, then ifig/NAME.js;
* any ``<figure class="fig">`` or interactive figure: figure-zoom.js (the enlarge control);
* code blocks, tables, equations or figures (what can scroll sideways, and Material's copy-button
  bars): a11y.js.

They sit inside Material's ``[data-md-component=container]``, whose scripts Material runs again
after each instant navigation, so a figure is live whichever page the reader came from. Each script
keeps one copy of its state if it runs again (core.js keeps its registry). A figure whose script
does not exist is a warning (``--strict`` fails on it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import speedups
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.utils import get_relative_url

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

log = get_plugin_logger("add_page_scripts")

FIGURE = re.compile(r'<figure\b[^>]*\bdata-ifig="([a-z0-9-]+)"')
ZOOMABLE = re.compile(r'<figure\b[^>]*\bclass="[^"]*\b(?:fig|ifig)\b')
SCROLLABLE = re.compile(r'<pre\b|<table\b|class="katex-display"|<figure\b|class="mermaid-diagram"')


def scripts_for(output: str) -> list[str]:
    """The scripts (paths under docs/) a page's HTML needs, in the order they must run."""
    names = list(dict.fromkeys(FIGURE.findall(output)))
    wanted = ["javascripts/ifig/core.js", *(f"javascripts/ifig/{name}.js" for name in names)] if names else []
    if ZOOMABLE.search(output):
        wanted.append("javascripts/figure-zoom.js")
    if SCROLLABLE.search(output):
        wanted.append("javascripts/a11y.js")
    return wanted


# Under `mkdocs serve`, an unchanged page is not scanned again.
_scripts = speedups.PageMemo(lambda html: tuple(scripts_for(html)))


@event_priority(-90)  # after the hooks that render math and diagrams into the page
def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    wanted = _scripts(output)
    if not wanted or "</main>" not in output:
        return output
    docs = Path(config.docs_dir)
    for path in wanted:
        if not (docs / path).is_file():
            log.warning(f"{page.file.src_uri}: an interactive figure needs docs/{path}, which does not exist. "
                        "Accepted: data-ifig=\"NAME\" naming a script docs/javascripts/ifig/NAME.js")
    tags = "".join(f'<script defer src="{get_relative_url(path, page.url)}"></script>'
                   for path in wanted if (docs / path).is_file())
    return output.replace("</main>", tags + "</main>", 1)
