"""Passes over a built page's HTML that fix what Material's and Python-Markdown's markup get wrong.

* ``repair``: the few attributes the Nu HTML Checker rejects (tests/build/test_integrity.py expects zero
  errors): ``autocomplete="off"`` on Material's checkbox and radio toggles, an empty ``tabindex`` on
  navigation labels, ``for="__toc"`` when the page has no ``__toc`` toggle, md_in_html's leftover
  ``markdown="..."``, and Mermaid's ``name`` on SVG shapes and line coordinates on paths. Only
  opening tags are touched; code blocks are escaped and never match.
* ``label_landmarks``: accessible names for the landmarks Material leaves unnamed (axe-core's
  aria-dialog-name and landmark-unique); elements that already carry one are left alone.
* ``inert_figure_data``: an interactive figure's data, written in a post as
  ``<script type="application/json" class="NAME">``, becomes a hidden element holding it in
  ``data-json``. Material's instant navigation runs every ``<script>`` of the new page's content
  again as a new script without its type, so JSON there would run as JavaScript (a SyntaxError)
  and its element, class and all, would be replaced: the figure would find no data.

Rather than copy Material's large templates to change an attribute, the rendered page is mended.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

TOGGLE_RE = re.compile(r'(<input\b[^<>]*\btype="(?:checkbox|radio)"[^<>]*?)\s+autocomplete="off"([^<>]*>)')
TOGGLE_FIRST_RE = re.compile(r'(<input\b[^<>]*?)\s+autocomplete="off"([^<>]*\btype="(?:checkbox|radio)"[^<>]*>)')
EMPTY_TABINDEX_RE = re.compile(r'(<label\b[^<>]*?)\s+tabindex=""')
TOC_LABEL_RE = re.compile(r'(<label\b[^<>]*?)\s+for="__toc"')
MARKDOWN_ATTR_RE = re.compile(r'(<[a-zA-Z][\w-]*\b[^<>]*?)\s+markdown="[^"<>]*"')
SVG_NAME_RE = re.compile(r'(<(?:rect|line)\b[^<>]*?)\s+name="[^"<>]*"')
SVG_PATH_COORD_RE = re.compile(r'(<path\b[^<>]*?)\s+[xy][12]="[^"<>]*"')
FIGURE_DATA_RE = re.compile(r'<script type="application/json" class="([\w-]+)">(.*?)</script>', re.DOTALL)
# opening tag (exact class attribute) -> accessible name
LANDMARKS = {
    ("div", "md-search"): "Search",
    ("nav", "md-pagination"): "Pagination",
    ("nav", "md-nav md-nav--primary"): "Post",
    ("nav", "md-nav"): "Post metadata",
    ("nav", "md-tags"): "Tags",
}


def _where(html: str, needle: str, fix: Callable[[str], str]) -> str:
    """``fix(html)`` for a fix that only changes what lies inside one tag holding ``needle``: the
    regexes run only on the stretches (each ending at a ``>``) that hold it, not over the whole page."""
    found = html.find(needle)
    if found < 0:
        return html
    out, done = [], 0
    while found >= 0:
        start = html.rfind(">", done, found) + 1 or done
        end = html.find(">", found) + 1 or len(html)
        out += [html[done:start], fix(html[start:end])]
        done = end
        found = html.find(needle, end)
    out.append(html[done:])
    return "".join(out)


def _path_coordinates(html: str) -> str:
    for _ in range(4):  # x1, y1, x2, y2 on one element: one per pass
        html = SVG_PATH_COORD_RE.sub(r"\1", html)
    return html


def repair(html: str) -> str:
    html = _where(html, 'autocomplete="off"', lambda part: TOGGLE_FIRST_RE.sub(r"\1\2", TOGGLE_RE.sub(r"\1\2", part)))
    html = _where(html, 'tabindex=""', lambda part: EMPTY_TABINDEX_RE.sub(r"\1", part))
    if 'id="__toc"' not in html:
        html = _where(html, 'for="__toc"', lambda part: TOC_LABEL_RE.sub(r"\1", part))
    if "<svg" in html:
        html = _where(html, 'name="', lambda part: SVG_NAME_RE.sub(r"\1", part))
        html = _where(html, "<path", _path_coordinates)
    return _where(html, 'markdown="', lambda part: MARKDOWN_ATTR_RE.sub(r"\1", part))


def label_landmarks(html: str) -> str:
    def name(match: re.Match[str]) -> str:
        tag, cls, rest = match.group(1), match.group(2), match.group(3)
        label = LANDMARKS.get((tag, cls))
        if label is None or "aria-label" in rest:
            return match.group(0)
        return f'<{tag} class="{cls}" aria-label="{label}"{rest}>'

    return re.sub(r'<(div|nav) class="([^"]+)"([^>]*)>', name, html)


def inert_figure_data(html: str) -> str:
    """Figures' JSON data scripts as hidden elements holding the same text in data-json."""
    if 'type="application/json" class="' not in html:
        return html
    return FIGURE_DATA_RE.sub(
        lambda m: f'<div class="{m[1]}" hidden data-json="{escape(m[2].strip(), quote=True)}"></div>', html)
