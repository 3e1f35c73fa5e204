"""Repair the few spots of rendered output that validators reject: every page valid HTML, feeds valid.

tests/test_integrity.py runs the Nu HTML Checker over every built page and expects zero errors.
What it found comes from Material's own large templates (base.html, partials/nav-item.html,
partials/toc.html) and from Python-Markdown's md_in_html, so rather than copying those templates
this hook removes, in the rendered page, exactly the attributes that are invalid:

* ``autocomplete="off"`` on Material's checkbox and radio toggles (HTML allows ``autocomplete``
  only on text-like inputs; Material adds it so Firefox does not restore a toggled drawer).
* ``tabindex=""`` on navigation labels (an empty tabindex is invalid and ignored by browsers).
* ``for="__toc"`` on the table of contents' title when the page has no ``__toc`` toggle for it
  to label (Material renders that toggle only when the TOC is part of the navigation).
* ``markdown="..."`` left on raw HTML blocks (``<figure markdown="0">``): it is an instruction to
  md_in_html, not an HTML attribute.

Only opening tags are touched; code blocks are escaped (``&lt;``) and never match.

The JSON feeds written by mkdocs-rss-plugin give items without an image ``"image": null``; JSON
Feed 1.1 types ``image`` as a URL string, to be omitted when there is none, so nulls are dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import speedups
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

TOGGLE_RE = re.compile(r'(<input\b[^<>]*\btype="(?:checkbox|radio)"[^<>]*?)\s+autocomplete="off"([^<>]*>)')
TOGGLE_FIRST_RE = re.compile(r'(<input\b[^<>]*?)\s+autocomplete="off"([^<>]*\btype="(?:checkbox|radio)"[^<>]*>)')
EMPTY_TABINDEX_RE = re.compile(r'(<label\b[^<>]*?)\s+tabindex=""')
TOC_LABEL_RE = re.compile(r'(<label\b[^<>]*?)\s+for="__toc"')
MARKDOWN_ATTR_RE = re.compile(r'(<[a-zA-Z][\w-]*\b[^<>]*?)\s+markdown="[^"<>]*"')
# Mermaid's sequence diagrams (inlined at build by hooks/render_diagrams.py) tag actor boxes and
# lifelines with `name`, and message paths with line coordinates: not SVG attributes on those
# elements, and nothing reads them once the SVG is drawn.
SVG_NAME_RE = re.compile(r'(<(?:rect|line)\b[^<>]*?)\s+name="[^"<>]*"')
SVG_PATH_COORD_RE = re.compile(r'(<path\b[^<>]*?)\s+[xy][12]="[^"<>]*"')


def _where(html: str, needle: str, fix: Callable[[str], str]) -> str:
    """``fix(html)`` for a fix that only changes what lies inside one tag holding ``needle``.

    The page is a row of stretches, each ending at a ``>``; a match of these patterns holds at most
    one ``>``, its last character, so it lies inside one stretch, and removing attributes keeps the
    ``>`` where they are. So only the few stretches that hold the needle need the regexes, which
    over a whole 200 kB page would try every tag (they were most of a serve rebuild's repair time).
    """
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


def _toggles(html: str) -> str:
    return TOGGLE_FIRST_RE.sub(r"\1\2", TOGGLE_RE.sub(r"\1\2", html))


def _path_coordinates(html: str) -> str:
    for _ in range(4):  # x1, y1, x2, y2 on one element: one per pass
        html = SVG_PATH_COORD_RE.sub(r"\1", html)
    return html


def repair(html: str) -> str:
    """The page without the invalid attributes; each pattern runs only around the text its match
    must contain, which gives the same page as running it over all of it (tests/test_speed.py)."""
    html = _where(html, 'autocomplete="off"', _toggles)
    html = _where(html, 'tabindex=""', lambda part: EMPTY_TABINDEX_RE.sub(r"\1", part))
    if 'id="__toc"' not in html:
        html = _where(html, 'for="__toc"', lambda part: TOC_LABEL_RE.sub(r"\1", part))
    if "<svg" in html:
        html = _where(html, 'name="', lambda part: SVG_NAME_RE.sub(r"\1", part))
        html = _where(html, "<path", _path_coordinates)
    return _where(html, 'markdown="', lambda part: MARKDOWN_ATTR_RE.sub(r"\1", part))


# Under `mkdocs serve`, a page that comes out of a rebuild as before is not scanned again.
_repaired = speedups.PageMemo(repair)


@event_priority(-100)  # after every other hook has finished the page
def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    return _repaired(output)


@event_priority(-100)
def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    """The same repairs for pages rendered from a static template (404.html)."""
    return _repaired(output_content) if template_name.endswith(".html") else output_content


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


@event_priority(-100)  # after mkdocs-rss-plugin has written the feeds
def on_post_build(*, config: MkDocsConfig) -> None:
    for feed in sorted(Path(config.site_dir).glob("feed_json_*.json")):
        data = json.loads(feed.read_text(encoding="utf-8"))
        feed.write_text(json.dumps(_without_nulls(data)), encoding="utf-8")
