"""Scripts only where they are used: the few scripts a page's own HTML needs, in the order they run.

* ``<figure class="ifig" data-ifig="NAME">``: javascripts/ifig/core.js, which loads ifig/NAME.js
  itself (Material's instant navigation runs a page's scripts in the order they arrive, not the
  order they are listed, and NAME.js needs core.js);
* any ``<figure class="fig">`` or interactive figure: figure-zoom.js (the enlarge control);
* code blocks, tables, equations or figures (what can scroll sideways): a11y.js.

They go at the end of ``<main>``, inside Material's ``[data-md-component=container]``, whose scripts
Material runs again after each instant navigation, so a figure is live whichever page the reader came
from; each script keeps one copy of its state if it runs again.
"""

from __future__ import annotations

import re

FIGURE = re.compile(r'<figure\b[^>]*\bdata-ifig="([a-z0-9-]+)"')
ZOOMABLE = re.compile(r'<figure\b[^>]*\bclass="[^"]*\b(?:fig|ifig)\b')
SCROLLABLE = re.compile(r'<pre\b|<table\b|class="katex-display"|<figure\b|class="mermaid-diagram"')


def scripts_for(html: str) -> list[str]:
    """The scripts (paths under docs/) a page's HTML needs, in the order they must run."""
    wanted = ["javascripts/ifig/core.js"] if FIGURE.search(html) else []
    if ZOOMABLE.search(html):
        wanted.append("javascripts/figure-zoom.js")
    if SCROLLABLE.search(html):
        wanted.append("javascripts/a11y.js")
    return wanted


def figure_scripts(html: str) -> list[str]:
    """The interactive figures' own scripts (paths under docs/) that core.js will load for the page."""
    return [f"javascripts/ifig/{name}.js" for name in dict.fromkeys(FIGURE.findall(html))]


def with_scripts(html: str, urls: list[str]) -> str:
    """The page with ``<script defer>`` tags for ``urls`` at the end of ``<main>``."""
    if not urls or "</main>" not in html:
        return html
    tags = "".join(f'<script defer src="{url}"></script>' for url in urls)
    return html.replace("</main>", tags + "</main>", 1)
