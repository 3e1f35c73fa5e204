"""Decide what search indexes, and make identifier queries rank the post that explains them first.

Search is Pagefind's (hooks/build_search_index.py runs it over the built site). Pagefind indexes
only the elements marked ``data-pagefind-body`` once any page has one, so this hook marks the
article of each published post and nothing else: listings, navigation, the footer, the About page
and drafts (which ``mkdocs serve`` shows their author) never reach the index. Inside a post, the
parts that repeat other pages or the headings (tags, byline, contents box, series box, related
posts, the last-updated line) are left out by Pagefind's exclude selectors
(``build_search_index.NOT_INDEXED``); a post whose front matter says ``search: {exclude: true}``
is left out.

A deep dive's real keywords are the identifiers it puts in inline code (``bucket_cap_mb``,
``Reducer::mark_variable_ready``). Each such ``<code>`` gets ``data-pagefind-weight``, so a query
for an identifier ranks the post that discusses it above one that merely mentions its parts in
prose, and results show the prose around the identifier, marked, as their snippet. The post's title
(its ``<h1>``, which Pagefind weighs as a heading) becomes the result's title; Pagefind returns it
as plain text, and docs/javascripts/search.js prints it as text.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import posts
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

# Pagefind's weights run from 0 to 10 (headings: h1 7, h2 6, ..., text 1). An identifier counts
# like a subheading: above prose, below the post's own title.
IDENTIFIER_WEIGHT = 5
CODE_RE = re.compile(r"<code>([^<]{2,100})</code>")
# An identifier-like span: letters, digits and the joints of qualified names, nothing else.
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][\w.:/\-]*$")
ARTICLE = '<article class="md-content__inner md-typeset">'


def _identifier(raw: str) -> str | None:
    value = html.unescape(raw).strip().rstrip("()")
    return value if IDENTIFIER_RE.match(value) else None


def identifiers(text: str) -> list[str]:
    """The identifiers a page's HTML puts in inline code, first mention first, once each."""
    found: dict[str, None] = {}
    for raw in CODE_RE.findall(text):
        value = _identifier(raw)
        if value:
            found[value] = None
    return list(found)


def weight_identifiers(text: str) -> str:
    """The page's HTML with every inline-code identifier weighted for search."""
    def weigh(match: re.Match[str]) -> str:
        if _identifier(match.group(1)) is None:
            return match.group(0)
        return f'<code data-pagefind-weight="{IDENTIFIER_WEIGHT}">{match.group(1)}</code>'
    return CODE_RE.sub(weigh, text)


def indexed(page: Page) -> bool:
    """Whether search indexes this page: a published post, not a draft, not excluded."""
    record = posts.record(page)
    if record is None or record.meta.draft:
        return False
    if (record.meta.search or {}).get("exclude") is True:
        return False
    return any(p.file == record.file for p in posts.published())


@event_priority(-50)  # after the blog plugin has resolved which posts it publishes
def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    if not indexed(page):
        return None
    return weight_identifiers(html_text)


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str | None:
    if not indexed(page):
        return None
    return output.replace(ARTICLE, ARTICLE[:-1] + " data-pagefind-body>", 1)
