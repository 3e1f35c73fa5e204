"""Long posts lay out only what is on screen: everything past the first screens is wrapped in chunks
the browser skips.

A long post is 10,000-16,000 elements (inline math alone is thousands of KaTeX spans, a figure can
be hundreds of shapes), and the browser styles and lays out all of them before the reader sees the
first screen: on a phone most of the time the page blocks. ``content-visibility: auto`` lets the
browser skip the style, layout and paint of a box that is off screen until the reader scrolls near
it, while its text stays in the page for find-in-page, search highlighting, links into it and
assistive technology.

The catch is that a script asking a skipped box's descendants for a size forces their layout at
once. So every script that measures the page measures a box only once it is drawn: Material mounts
a code block when it is on screen (its ``content.lazy`` feature, mkdocs.yml), figure-zoom.js
measures a figure once it is near the screen, and a11y.js measures a box that might scroll sideways
once its chunk is drawn (until then the box takes focus, so the keyboard can always reach it). What
is left outside chunks: headings (the table of contents reads their positions), and any block
holding a live figure (its script draws and measures it as the page loads), a tab set (Material
measures every one) or a form control or embed.

A chunk lays its blocks out on their own, so its first and last block's margins stop at its edge; it
begins and ends with a paragraph, a list or a code block, whose margin (1em) site.css gives the
chunk instead, or a static figure, whose 1.5em figures.css gives it (``data-top``/``data-bottom``).

Material also wraps every table in its scrolling box once the page has loaded; replacing a child of
the article makes the browser restyle the whole article (its rules on siblings), about as much as
the first style pass. A top-level table outside any chunk is therefore given a plain
``<div class="table-host">`` (no box of its own: margins pass through it), so the replacement
restyles only that table; inside a skipped chunk the replacement restyles nothing until it is drawn.

Each chunk carries an estimate of its height in lines (``--chunk-lines``: text, code lines, drawings
by their aspect ratio, equations), so the scrollbar and links into the page land about right before
a chunk is first shown; once shown, the browser keeps its real size. Only post pages are changed,
and a page whose top level cannot be read cleanly (an unclosed raw-HTML tag) is left as it is.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from ..render.cache import Cache, key

# A comment, a script or style element whole (a "<" inside them is never a tag), or a start or end tag
# (quoted attribute values may hold ">"). Regexes rather than the standard library's HTML parser, which
# gives no offsets: the markup is the build's own (Python-Markdown, pymdownx, KaTeX, Mermaid).
TOKEN = re.compile(
    r"<!--.*?-->"
    r"|<(script|style)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?</\1\s*>"
    r"|<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S | re.I)
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
SELF_CLOSING = re.compile(r"(?:^|[ \t\n\"'])/\s*$")  # <path d="..."/>, not <a href=/x/>
# A block holding any of these stays drawn: see the module docstring.
UNSKIPPABLE = re.compile(
    r'<(?:iframe|video|audio|canvas|input|select|textarea|button|script|form|object|embed|h[1-6])\b'
    r'|data-ifig=|data-tabs|tabbed-set')
FIGURE_EDGE = re.compile(r'<figure class="fig"')
EDGE = re.compile(rf'<(?:p|ul|ol)\b|<div class="(?:language-[\w+#-]+ )?highlight"|{FIGURE_EDGE.pattern}')
# Not a list with a block at the start of its first item or the end of its last (a loose or nested
# list, a code block in an item): that block's margin would pass through the list's edge and stop
# inside the chunk, on top of the chunk's 1em.
_BLOCK = r"(?:p|ul|ol|dl|div|pre|blockquote|table|figure|details|h[1-6])"
BLOCK_AT_LIST_START = re.compile(rf"<(?:ul|ol)\b[^>]*>\s*<li\b[^>]*>\s*<{_BLOCK}\b")
BLOCK_AT_LIST_END = re.compile(rf"</{_BLOCK}>\s*</li>\s*</(?:ul|ol)>$")
# A code block's output box: Material styles it as the block's next sibling, so they stay together.
RESULT = re.compile(r'\s*<div class="result"')
MIN_CHARS = 1500     # smaller runs are not worth a box of their own
CHARS_PER_LINE = 70  # the post column is about 75 characters wide on a desk
# Nothing within about the first three phone screens is wrapped: a chunk on screen at load could be
# drawn first at its estimated size and then at its real one, moving what is below it.
FIRST_SCREENS_LINES = 60


def top_level_blocks(fragment: str) -> list[tuple[int, int, str]] | None:
    """(start, end, tag) of every top-level element, or None when the nesting does not add up."""
    blocks: list[tuple[int, int, str]] = []
    open_tags: list[str] = []
    start = 0
    for token in TOKEN.finditer(fragment):
        raw, closing, name, rest = token.groups()
        if raw is None and name is None:
            continue  # a comment
        name = (raw or name).lower()
        if closing:
            if not open_tags or open_tags.pop() != name:
                return None
            if not open_tags:
                blocks.append((start, token.end(), name))
        elif not raw and name not in VOID and not SELF_CLOSING.search(rest):
            if not open_tags:
                start = token.start()
            open_tags.append(name)
        elif not open_tags:  # a void or self-closing element, or a script or style element whole
            blocks.append((token.start(), token.end(), name))
    return None if open_tags else blocks


PRE = re.compile(r"<pre\b.*?</pre>", re.S)
SVG = re.compile(r"<svg\b([^>]*)>.*?</svg>", re.S)
VIEWBOX = re.compile(r'viewBox="[-\d.]+[ ,]+[-\d.]+[ ,]+([\d.]+)[ ,]+([\d.]+)"')
SVG_LINES_PER_ASPECT = 15  # a drawing as wide as the column is about 15 lines tall per unit of h/w
MATH_LINES = 3  # a display equation with its margins


def estimated_lines(fragment: str) -> int:
    """Lines of text at the post's desktop measure, plus a line of margin per block; a code block
    counts its lines, a drawing its aspect ratio and a display equation three lines."""
    code = sum(block.count("\n") + 2 for block in PRE.findall(fragment))
    drawings = 0.0
    for attributes in SVG.findall(fragment):
        box = VIEWBOX.search(attributes)
        drawings += SVG_LINES_PER_ASPECT * float(box[2]) / max(float(box[1]), 1) if box else SVG_LINES_PER_ASPECT
    equations = MATH_LINES * fragment.count('class="katex-display"')
    text = re.sub(r"<math\b.*?</math>", "", fragment, flags=re.S)  # MathML twin of each formula
    text = html.unescape(re.sub(r"<[^>]+>", "", SVG.sub("", PRE.sub("", text))))
    blocks = len(re.findall(r"<(?:p|li|dt|dd|blockquote|div|details|tr)\b", fragment))
    return max(1, round(len(" ".join(text.split())) / CHARS_PER_LINE + blocks + code + drawings + equations))


def wrappers(fragment: str) -> list[tuple[int, int, str]]:
    """(start, end, opening tag) of each wrapper the fragment gets, in order: a skippable chunk
    around each long run of plain top-level blocks, a table host around each top-level table left
    outside the chunks."""
    blocks = top_level_blocks(fragment)
    if not blocks:
        return []
    runs: list[list[tuple[int, int, str, int]]] = [[]]  # (start, end, tag, estimated lines)
    lines_above = 0
    for start, end, tag in blocks:
        lines = estimated_lines(fragment[start:end])
        if lines_above > FIRST_SCREENS_LINES and not UNSKIPPABLE.search(fragment, start, end):
            runs[-1].append((start, end, tag, lines))
        elif runs[-1]:
            runs.append([])
        lines_above += lines
    chunks: list[tuple[int, int, str]] = []
    for run in runs:
        edges = [i for i, (start, end, tag, _) in enumerate(run)
                 if EDGE.match(fragment, start) and not RESULT.match(fragment, end)
                 and not (tag in ("ul", "ol") and (BLOCK_AT_LIST_START.match(fragment, start)
                                                   or BLOCK_AT_LIST_END.search(fragment, max(start, end - 400), end)))]
        if edges and run[edges[-1]][1] - run[edges[0]][0] >= MIN_CHARS:
            first, last = run[edges[0]], run[edges[-1]]
            lines = sum(block[3] for block in run[edges[0]:edges[-1] + 1])
            kinds = "".join(f' data-{side}="figure"' for side, block in (("top", first), ("bottom", last))
                            if FIGURE_EDGE.match(fragment, block[0]))
            chunks.append((first[0], last[1], f'<div class="offscreen-chunk" style="--chunk-lines:{lines}"{kinds}>'))
    hosts = [(start, end, '<div class="table-host">') for start, end, tag in blocks if tag == "table"
             and not any(c_start <= start < c_end for c_start, c_end, _ in chunks)]
    return sorted(chunks + hosts)


def wrap_chunks(fragment: str, wraps: list[tuple[int, int, str]] | None = None) -> str:
    """The fragment with its wrappers (``wrappers(fragment)`` unless given)."""
    pieces, done = [], 0
    for start, end, opening in wrappers(fragment) if wraps is None else wraps:
        pieces += [fragment[done:start], opening, fragment[start:end], "</div>"]
        done = end
    pieces.append(fragment[done:])
    return "".join(pieces)


RULES = Path(__file__).read_bytes()  # an edit here decides every page's wrappers anew


def cached_wrap_chunks(fragment: str, cache: Cache) -> str:
    """``wrap_chunks``, with where a page's wrappers go kept in the build cache by the HTML's hash:
    finding a long post's top-level blocks takes tens of milliseconds."""
    name = key(fragment, RULES)
    stored = cache.get(name, ".json")
    if stored is not None:
        return wrap_chunks(fragment, [tuple(w) for w in json.loads(stored)])
    wraps = wrappers(fragment)
    cache.put(name, json.dumps(wraps).encode(), ".json")
    return wrap_chunks(fragment, wraps)
