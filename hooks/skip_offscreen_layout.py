"""Long posts lay out only what is on screen: runs of plain prose are wrapped in skippable chunks.

A long post is 10,000-16,000 elements (inline math alone is thousands of KaTeX spans), and the
browser lays out all of them before the reader sees the first screen: on a phone most of the time
the page blocks. ``content-visibility: auto`` lets the browser skip the layout and paint of a box
that is off screen until the reader scrolls near it, while its text stays in the page for find-in-
page, search highlighting, links into it and assistive technology.

The catch is that a script asking a skipped box's descendants for a size forces their layout at
once, and Material asks every code block and tab set, and our own a11y.js and figure-zoom.js ask
every box that might scroll sideways and every figure. So only runs of top-level blocks that hold
nothing anyone measures are wrapped: paragraphs, lists, quotes, admonitions and details made of
prose and inline math. Headings stay outside (the table of contents reads their positions), and so
does any block holding a code block, table, figure, SVG, display equation, tab set, image, form
control or script: those are laid out as before. (A skipped box also reports no overflow, so a
wide table or equation inside one would not be made reachable by keyboard.) Code blocks are skipped
on their own by site.css: Material measures each once, which lays it out at that moment, and it
then stays out of the page's later restyles while off screen.

Material also wraps every table in its scrolling box once the page has loaded; replacing a child of
the article makes the browser restyle the whole article (its rules on siblings), about as much as
the first style pass. A top-level table is therefore given a plain ``<div class="table-host">``
(no box of its own: margins pass through it), so the replacement restyles only that table.

Each chunk carries an estimate of its height in lines (``--chunk-lines``), so the scrollbar and
links into the page land about right before a chunk is first shown; once shown, the browser keeps
its real size. Only post pages are changed, and a page whose top level cannot be read cleanly (an
unclosed raw-HTML tag) is left as it is.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

import posts
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

CHUNK_CLASS = "offscreen-chunk"
TABLE_HOST = '<div class="table-host">'
# A block holding any of these is measured by some script, or is not plain flowing text.
MEASURED = re.compile(
    r'<(?:pre|table|figure|svg|img|picture|video|audio|iframe|canvas|input|select|textarea|button|script|style)\b'
    r'|<div class="arithmatex"|class="katex-display"|data-tabs|tabbed-set|class="mermaid-diagram"')
HEADING = re.compile(r"h[1-6]")
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
MIN_CHARS = 1500     # smaller runs are not worth a box of their own
CHARS_PER_LINE = 70  # the post column is about 75 characters wide on a desk
# Nothing within about the first three phone screens is wrapped: a chunk on screen at load could be
# drawn first at its estimated size and then at its real one, moving what is below it.
FIRST_SCREENS_LINES = 60


class _TopLevel(HTMLParser):
    """Offsets (start, end) of each top-level element of an HTML fragment."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.line_starts = [0]
        for line in text.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.depth = 0
        self.open_at = 0
        self.open_tag = ""
        self.blocks: list[tuple[int, int, str]] = []
        self.broken = False

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.open_at, self.open_tag = self._offset(), tag
            if tag in VOID:
                end = self._offset() + len(self.get_starttag_text() or "")
                self.blocks.append((self.open_at, end, tag))
                return
        if tag not in VOID:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            start = self._offset()
            self.blocks.append((start, start + len(self.get_starttag_text() or ""), tag))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        self.depth -= 1
        if self.depth < 0:
            self.broken = True
            self.depth = 0
        elif self.depth == 0:
            if tag != self.open_tag:
                self.broken = True
            self.blocks.append((self.open_at, self._offset() + len(f"</{tag}>"), self.open_tag))


def top_level_blocks(fragment: str) -> list[tuple[int, int, str]] | None:
    """(start, end, tag) of every top-level element, or None when the nesting does not add up."""
    parser = _TopLevel(fragment)
    parser.feed(fragment)
    parser.close()
    if parser.broken or parser.depth:
        return None
    return parser.blocks


def estimated_lines(fragment: str) -> int:
    """Lines of text at the post's desktop measure, plus a line of margin per block."""
    text = re.sub(r"<math\b.*?</math>", "", fragment, flags=re.S)  # MathML twin of each formula
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    blocks = len(re.findall(r"<(?:p|li|dt|dd|blockquote|div|details)\b", fragment))
    return max(1, round(len(" ".join(text.split())) / CHARS_PER_LINE + blocks))


def wrap_chunks(fragment: str) -> str:
    """The fragment with each long run of plain top-level blocks inside a skippable chunk, and each
    top-level table inside a table host."""
    blocks = top_level_blocks(fragment)
    if not blocks:
        return fragment
    runs: list[list[tuple[int, int, str]]] = [[]]
    wraps: list[tuple[int, int, str]] = []  # (start, end, opening tag) of each wrapper, in order
    lines_above = 0
    for block in blocks:
        start, end, tag = block
        measured = MEASURED.search(fragment, start, end)
        if lines_above > FIRST_SCREENS_LINES and not HEADING.fullmatch(tag) and not measured:
            runs[-1].append(block)
            lines_above += estimated_lines(fragment[start:end])
            continue
        code_lines = fragment.count("\n", start, end) if measured else 0  # a code block's lines
        lines_above += estimated_lines(fragment[start:end]) + code_lines
        if runs[-1]:
            runs.append([])
        if tag == "table":
            wraps.append((start, end, TABLE_HOST))
    for run in runs:
        start, end = (run[0][0], run[-1][1]) if run else (0, 0)
        if end - start >= MIN_CHARS:
            lines = estimated_lines(fragment[start:end])
            wraps.append((start, end, f'<div class="{CHUNK_CLASS}" style="--chunk-lines:{lines}">'))
    pieces, done = [], 0
    for start, end, opening in sorted(wraps):
        pieces += [fragment[done:start], opening, fragment[start:end], "</div>"]
        done = end
    pieces.append(fragment[done:])
    return "".join(pieces)


@event_priority(-50)  # after math (hooks/render_math.py) and diagrams are rendered into the content
def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if posts.record(page) is None:
        return html_text
    return wrap_chunks(html_text)
