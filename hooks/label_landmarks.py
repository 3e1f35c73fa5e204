"""Accessible names for the landmarks Material leaves unnamed.

axe-core flags Material's defaults: the search dialog has no accessible name (aria-dialog-name), and
several <nav> landmarks share the same (empty) name (landmark-unique), so a screen reader's landmark
list shows indistinguishable "navigation" entries. The templates that emit them are large, so
rather than copying them this hook names those elements in the rendered page. Elements that
already carry a name are left alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import speedups

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

# opening tag (exact class attribute) -> accessible name
NAMES = {
    ('div', 'md-search'): "Search",
    ('nav', 'md-pagination'): "Pagination",
    ('nav', 'md-nav md-nav--primary'): "Post",
    ('nav', 'md-nav'): "Post metadata",
    ('nav', 'md-tags'): "Tags",
}


def _name(match: re.Match[str]) -> str:
    tag, cls, rest = match.group(1), match.group(2), match.group(3)
    label = NAMES.get((tag, cls))
    if label is None or "aria-label" in rest:
        return match.group(0)
    return f'<{tag} class="{cls}" aria-label="{label}"{rest}>'


def label(html: str) -> str:
    return re.sub(r'<(div|nav) class="([^"]+)"([^>]*)>', _name, html)


_labelled = speedups.PageMemo(label)  # under `mkdocs serve`, an unchanged page is not scanned again


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    return _labelled(output)
