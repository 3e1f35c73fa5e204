"""Lead figures for the post listings: each post's first figure, drawn small.

A post's first static figure is its map, and its first drawing is the wide one, included from a file
with ``--8<--`` or written inline. The listings show that drawing without its words (at a tenth of a
column they would be unreadable specks) and without its title and description, which become the
image's accessible name instead. The result is inline SVG that keeps the figure classes, so the
site's stylesheet colours it in both palettes, as it does the post's own figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path

FIRST_FIGURE = re.compile(r'<figure class="fig"[^>]*>(.*?)</figure>', re.DOTALL)
INCLUDED = re.compile(r'\A\s*--8<--\s*"([^"\n]+\.svg)"')
INLINE = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
DROPPED = re.compile(r"<(text|title|desc)\b[^>]*>.*?</\1>\s*", re.DOTALL)
NUMBER = re.compile(r"(?<![\w#.-])-?\d+\.\d+")


@dataclass(frozen=True)
class LeadFigure:
    source: str | None  # the drawing's file, as the post includes it (from the repository root); None: inline
    alt: str  # the drawing's own <title>
    svg: str  # the small drawing, inline SVG


def small_drawing(svg: str) -> tuple[str, str]:
    """(the drawing without words and with numbers rounded, its title as plain text)."""
    title = re.search(r"<title\b[^>]*>(.*?)</title>", svg, re.DOTALL)
    alt = " ".join(unescape(title[1]).split()) if title else ""
    svg = DROPPED.sub("", svg)
    # Coordinates to whole units (no visible change at this size, a third fewer bytes); a number under
    # 10 (an opacity, a stroke width, a scale) keeps its decimals.
    svg = NUMBER.sub(lambda m: m[0] if abs(float(m[0])) < 10 else str(round(float(m[0]))), svg)
    opening = re.match(r"\s*<svg\b([^>]*)>", svg)
    if opening is None:
        raise ValueError("not an SVG drawing: it does not start with <svg ...>")
    view_box = re.search(r'viewBox="([^"]+)"', opening[1])
    if view_box is None:
        raise ValueError("the drawing has no viewBox, so it cannot be drawn at another size")
    label = escape(f"Figure: {alt}" if alt else "Figure")
    head = (f'<svg class="fig-svg lead-figure__svg" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="{view_box[1]}" preserveAspectRatio="xMidYMin slice" role="img" aria-label="{label}">')
    return head + svg[opening.end():], alt


def lead_figure(markdown: str, root: Path) -> LeadFigure | None:
    """The post's lead figure from its Markdown, with included paths read from ``root``, or None
    when the post has no static figure with a drawing. A figure that names a missing file raises OSError."""
    figure = FIRST_FIGURE.search(markdown)
    included = INCLUDED.match(figure[1]) if figure else None
    if included:
        path = (root / included[1]).resolve()
        if not path.is_relative_to(root.resolve()):  # the snippet check refuses it too; never read it here
            raise ValueError(f"{included[1]} is outside the repository")
        source, drawing = included[1], path.read_text(encoding="utf-8")
    elif figure and (inline := INLINE.search(figure[1])):
        source, drawing = None, inline[0]
    else:
        return None
    svg, alt = small_drawing(drawing)
    return LeadFigure(source, alt, svg)
