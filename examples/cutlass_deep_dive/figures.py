"""Render the static fallback of the layout visualiser from the layout algebra itself.

The figure is the index map of the 8x8 column-major layout (8,8):(1,8), coloured by the tiles
that zipped_divide(L, <2,4>) makes. Each cell's tile number comes from inverting the divided
layout (index -> (position, tile)), not from a closed formula, so the picture is what
cute_layouts.py computes. Output is deterministic; a test compares it with the committed SVG.

Run it: python examples/cutlass_deep_dive/figures.py [--write]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cute_layouts import Layout, zipped_divide  # noqa: E402

OUT = HERE.parents[1] / "docs" / "blog" / "posts" / "cutlass-deep-dive" / "layout-static.svg"
CELL, PAD = 40, 26


def layout_svg(m: int = 8, n: int = 8, dm: int = 1, dn: int = 8, tm: int = 2, tn: int = 4) -> str:
    layout = Layout((m, n), (dm, dn))
    zd = zipped_divide(layout, (Layout(tm), Layout(tn)))
    where = {}  # index -> (position in tile, tile number), read off the divided layout
    for t in range(zd.mode(1).size()):
        for p in range(zd.mode(0).size()):
            where[zd((p, t))] = (p, t)
    w, h = PAD + n * CELL + 4, PAD + m * CELL + 4
    slug = "cutlass-deep-dive-layout"
    out = [
        f'<svg class="fig-svg" role="img" viewBox="0 0 {w} {h}" aria-labelledby="{slug}-title {slug}-desc"'
        ' xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{slug}-title">Index map of ({m},{n}):({dm},{dn}) cut into {tm}x{tn} tiles</title>',
        f'<desc id="{slug}-desc">Each cell shows the index L(i,j) = {dm}i + {dn}j; the cells of one tile of'
        f' zipped_divide(L, &lt;{tm},{tn}&gt;) share a colour and the tile number is in its first cell.</desc>',
    ]
    for j in range(n):
        out.append(f'<text x="{PAD + j * CELL + CELL // 2}" y="16" text-anchor="middle"'
                   f' class="fig-text-small fig-text-muted">{j}</text>')
    for i in range(m):
        out.append(f'<text x="12" y="{PAD + i * CELL + CELL // 2 + 4}" text-anchor="middle"'
                   f' class="fig-text-small fig-text-muted">{i}</text>')
        for j in range(n):
            idx = layout((i, j))
            p, t = where[idx]
            x, y = PAD + j * CELL, PAD + i * CELL
            opacity = "0.18" if (t // 4) % 2 else "0.4"
            out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" class="fig-fill-{t % 4 + 1}"'
                       f' fill-opacity="{opacity}"/>')
            out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" class="fig-box" fill-opacity="0"/>')
            out.append(f'<text x="{x + CELL // 2}" y="{y + CELL // 2 + 6}" text-anchor="middle"'
                       f' class="fig-text fig-mono">{idx}</text>')
            if p == 0:
                out.append(f'<text x="{x + 3}" y="{y + 11}" class="fig-text-small">t{t}</text>')
    for i in range(0, m + 1, tm):
        out.append(f'<line x1="{PAD}" x2="{PAD + n * CELL}" y1="{PAD + i * CELL}" y2="{PAD + i * CELL}"'
                   ' class="fig-line-accent" stroke-width="3"/>')
    for j in range(0, n + 1, tn):
        out.append(f'<line y1="{PAD}" y2="{PAD + m * CELL}" x1="{PAD + j * CELL}" x2="{PAD + j * CELL}"'
                   ' class="fig-line-accent" stroke-width="3"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    svg = layout_svg()
    if "--write" in sys.argv:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(svg, encoding="utf-8")
        print(f"wrote {OUT.relative_to(HERE.parents[1])}")
    else:
        print(svg, end="")
