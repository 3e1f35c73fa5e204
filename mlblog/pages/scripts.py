"""Scripts only where they are used: the few scripts a page's own HTML needs, in the order they run.

* ``<figure class="ifig" data-ifig="NAME">``: javascripts/ifig/core.js, then ifig/NAME.js;
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
    names = list(dict.fromkeys(FIGURE.findall(html)))
    wanted = ["javascripts/ifig/core.js", *(f"javascripts/ifig/{name}.js" for name in names)] if names else []
    if ZOOMABLE.search(html):
        wanted.append("javascripts/figure-zoom.js")
    if SCROLLABLE.search(html):
        wanted.append("javascripts/a11y.js")
    return wanted


def with_scripts(html: str, urls: list[str]) -> str:
    """The page with ``<script defer>`` tags for ``urls`` at the end of ``<main>``."""
    if not urls or "</main>" not in html:
        return html
    tags = "".join(f'<script defer src="{url}"></script>' for url in urls)
    return html.replace("</main>", tags + "</main>", 1)
