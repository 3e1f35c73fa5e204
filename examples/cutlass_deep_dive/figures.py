"""Render the static fallback of the layout visualiser from the layout algebra itself.

The figure is the index map of the 8x8 column-major layout (8,8):(1,8), coloured by the tiles
that zipped_divide(L, <2,4>) makes. Each cell's tile number comes from inverting the divided
layout (index -> (position, tile)), not from a closed formula, so the picture is what
cute_layouts.py computes. Output is deterministic; a test compares it with the committed SVG.

Run it: python examples/cutlass_deep_dive/figures.py [--write]
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cute_layouts import Layout, zipped_divide  # noqa: E402
from pipelines import sm80_trace  # noqa: E402
from smem_swizzle import SM80_FP16_ATOM, SW128, ldmatrix_passes, swizzled  # noqa: E402

FIG_DIR = HERE.parents[1] / "docs" / "blog" / "posts" / "cutlass-deep-dive"
OUT = FIG_DIR / "layout-static.svg"
PIPE_OUT = FIG_DIR / "sm80-pipeline.svg"
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


def sm80_snapshots(stages: int, k_tiles: int, k_blocks: int) -> list[tuple[tuple[int, int], list]]:
    """Replay sm80_trace's events; at each MMA, the state of every smem stage:
    ("flight", tile) a cp.async into it is outstanding, ("read", tile) the registers load from it,
    ("ready", tile) its data landed, ("empty", None) nothing useful in it."""
    groups: list = []
    pending: list = []
    landed: list = [None] * stages
    reading = None
    columns = []
    for e in sm80_trace(stages, k_tiles, k_blocks):
        if e[0] == "cp.async":
            pending.append((e[1], e[2]))
        elif e[0] == "commit":
            groups.append(pending)
            pending = []
        elif e[0] == "wait":
            while len(groups) > e[1]:
                for st, tile in groups.pop(0):
                    landed[st] = tile
        elif e[0] == "smem->rmem":
            reading = e[1]
        elif e[0] == "mma":
            flight = {st: tile for g in groups + [pending] for st, tile in g}
            col = []
            for st in range(stages):
                if st in flight:
                    col.append(("flight", flight[st]))
                elif landed[st] is None:
                    col.append(("empty", None))
                elif st == reading:
                    col.append(("read", landed[st]))
                else:
                    col.append(("ready", landed[st]))
            columns.append(((e[1], e[2]), col))
    return columns


SM80_BOX = {"flight": "fig-box-warn", "read": "fig-box-primary", "ready": "fig-box-ok", "empty": "fig-box"}
SM80_LEGEND = [("fig-box-warn", "cp.async in flight (blank: predicated off)"), ("fig-box-ok", "landed, waiting"),
               ("fig-box-primary", "registers load from it"), ("fig-box", "empty")]


def _stage_cell(x: float, y: float, w: float, h: float, inset: int, state: str, held, dy: int, mono: str) -> list[str]:
    """One stage at one MMA: a box in the state's class, the k-tile it holds (if any) centred in it."""
    out = [f'<rect x="{x + inset}" y="{y + 2}" width="{w - 2 * inset}" height="{h - 4}" rx="3"'
           f' class="{SM80_BOX[state]}"/>']
    if held is not None:
        out.append(f'<text x="{x + w // 2}" y="{y + h // 2 + dy}" text-anchor="middle" class="{mono}">{held}</text>')
    return out


def sm80_pipeline_svg(stages: int = 3, k_tiles: int = 6, k_blocks: int = 2) -> str:
    cols = sm80_snapshots(stages, k_tiles, k_blocks)
    cw, rh, left, top = 40, 44, 92, 64
    w = left + cw * len(cols) + 8
    h = top + rh * stages + 118
    slug = "cutlass-deep-dive-sm80"
    out = [
        f'<svg class="fig-svg" role="img" viewBox="0 0 {w} {h}" aria-labelledby="{slug}-title {slug}-desc"'
        ' xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{slug}-title">Shared-memory stages of the SM80 multistage main loop, Stages={stages},'
        f' K_BLOCK_MAX={k_blocks}</title>',
        f'<desc id="{slug}-desc">One column per MMA k-block, one row per shared-memory stage. Each cell says'
        ' which k-tile the stage holds and whether a cp.async into it is in flight, its data has landed,'
        ' or the registers are loading from it. Replayed by examples/cutlass_deep_dive/pipelines.py.</desc>',
        f'<text x="{left}" y="18" class="fig-text-small fig-text-muted">MMA on (k-tile, k-block) →</text>',
    ]
    for c, ((tile, kb), _) in enumerate(cols):
        x = left + c * cw + cw // 2
        label = "pad" if tile is None else f"{tile}.{kb}"
        out.append(f'<text x="{x}" y="{top - 12}" text-anchor="middle" class="fig-text-small fig-mono">{label}</text>')
    for st in range(stages):
        y = top + st * rh
        out.append(f'<text x="8" y="{y + rh // 2 + 4}" class="fig-text-small">smem stage {st}</text>')
        for c, (_, col) in enumerate(cols):
            out += _stage_cell(left + c * cw, y, cw, rh, 2, *col[st], 5, "fig-text fig-mono")
    ly = top + stages * rh + 20
    for i, (cls, text) in enumerate(SM80_LEGEND):
        x, yy = 8 + (i % 2) * 260, ly + (i // 2) * 30
        out.append(f'<rect x="{x}" y="{yy}" width="22" height="18" rx="3" class="{cls}"/>')
        out.append(f'<text x="{x + 30}" y="{yy + 14}" class="fig-text-small">{text}</text>')
    out.append(f'<text x="8" y="{ly + 78}" class="fig-text-small fig-text-muted">k-tile index in each cell;'
               f' column header = (k-tile).(k-block) the MMA computes.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def sm80_pipeline_narrow_svg(stages: int = 3, k_tiles: int = 6, k_blocks: int = 2) -> str:
    """The same replay turned on its side for a phone: one row per MMA k-block, one column per stage."""
    cols = sm80_snapshots(stages, k_tiles, k_blocks)
    rh, left, top, cw = 28, 92, 52, 84
    slug = "cutlass-deep-dive-sm80-narrow"
    out = [
        f'<svg class="fig-svg fig-svg--narrow" role="img" viewBox="0 0 {NARROW_W} 900"'
        f' aria-labelledby="{slug}-title {slug}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{slug}-title">Shared-memory stages of the SM80 multistage main loop, Stages={stages},'
        f' K_BLOCK_MAX={k_blocks} (narrow drawing)</title>',
        f'<desc id="{slug}-desc">One row per MMA k-block, top to bottom, one column per shared-memory stage.'
        ' Each cell says which k-tile the stage holds and whether a cp.async into it is in flight, its data has'
        ' landed, or the registers are loading from it. Replayed by examples/cutlass_deep_dive/pipelines.py.</desc>',
        '<text x="8" y="18" class="fig-text-small">MMA on (k-tile).(k-block), time runs down</text>',
    ]
    for st in range(stages):
        out.append(f'<text x="{left + st * cw + cw // 2}" y="{top - 10}" text-anchor="middle"'
                   f' class="fig-text-small">stage {st}</text>')
    for r, ((tile, kb), col) in enumerate(cols):
        y = top + r * rh
        label = "pad" if tile is None else f"{tile}.{kb}"
        out.append(f'<text x="{left - 14}" y="{y + rh // 2 + 4}" text-anchor="end" class="fig-mono">{label}</text>')
        for st, (state, held) in enumerate(col):
            out += _stage_cell(left + st * cw, y, cw, rh, 3, state, held, 4, "fig-mono")
    ly = top + len(cols) * rh + 18
    for i, (cls, text) in enumerate(SM80_LEGEND):
        yy = ly + i * 24
        out.append(f'<rect x="8" y="{yy}" width="22" height="16" rx="3" class="{cls}"/>')
        out.append(f'<text x="38" y="{yy + 12}" class="fig-text-small">{_fits(text, "fig-text-small", 310)}</text>')
    note = ly + len(SM80_LEGEND) * 24 + 10
    out.append(f'<text x="8" y="{note}" class="fig-text-small">number in a cell: the k-tile that stage holds</text>')
    out[0] = out[0].replace(f'viewBox="0 0 {NARROW_W} 900"', f'viewBox="0 0 {NARROW_W} {note + 10}"')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _box(x: float, y: float, w: float, h: float, cls: str, lines: list[str], mono: int = -1) -> list[str]:
    """A rounded box with centred lines of text; line `mono` is set in the code font."""
    out = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" class="{cls}"/>']
    top = y + h / 2 - (len(lines) - 1) * 7 + 4
    for i, line in enumerate(lines):
        klass = "fig-mono" if i == mono else ("fig-text" if i == 0 else "fig-text-small")
        size = ' font-size="10.5"' if klass == "fig-mono" else ""
        out.append(f'<text x="{x + w / 2}" y="{top + i * 14}" text-anchor="middle" class="{klass}"{size}>'
                   f"{escape(line)}</text>")
    return out


def _arrow(x1: float, y1: float, x2: float, y2: float, marker: str) -> str:
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" class="fig-line" marker-end="url(#{marker})"/>'


def _svg_open(slug: str, w: int, h: int, title: str, desc: str) -> list[str]:
    return [
        f'<svg class="fig-svg" role="img" viewBox="0 0 {w} {h}" aria-labelledby="{slug}-title {slug}-desc"'
        ' xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{slug}-title">{escape(title)}</title>',
        f'<desc id="{slug}-desc">{escape(desc)}</desc>',
        f'<defs><marker id="{slug}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"'
        ' orient="auto-start-reverse"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/></marker></defs>',
    ]


MAP_ROWS = [
    ("SM80 (Ampere)", "MainloopSm80CpAsync", [
        ["cp.async", "every thread, 16 B", "SM80_CP_ASYNC_*"],
        ["Stages smem buffers", "wait_group, __syncthreads", "cp_async_wait<N>"],
        ["mma.sync, one warp", "16x8x16, acc in registers", "SM80_16x8x16_*"],
    ]),
    ("SM90 (Hopper)", "MainloopSm90TmaGmmaWarpSpecialized", [
        ["TMA, one thread", "whole tile, multicast", "SM90_TMA_LOAD"],
        ["full/empty mbarriers", "producer/consumer warps", "PipelineTmaAsync"],
        ["WGMMA, 4 warps", "A, B in smem, acc in regs", "MMA_64x128x16_*"],
    ]),
    ("SM100 (Blackwell)", "MainloopSm100TmaUmmaWarpSpecialized", [
        ["TMA, 1 or 2 SMs", "one copy per CTA pair", "SM100_TMA_2SM_LOAD"],
        ["mbarriers, freed by", "tcgen05.commit", "PipelineTmaUmmaAsync"],
        ["tcgen05.mma, 1 thread", "acc in TMEM, not regs", "SM100_MMA_F16BF16_*"],
    ]),
]


def map_svg() -> str:
    slug = "cutlass-deep-dive-map"
    w, bw, gap, left = 480, 148, 8, 12
    out = _svg_open(slug, w, 760, "Map of a CUTLASS GEMM from CuTe layouts to the epilogue, on three GPU generations",
                    "Top: CuTe layouts and tensors cut the problem into CTA tiles and per-thread pieces. Then, for"
                    " each of SM80, SM90 and SM100, three stages: how a tile reaches shared memory (cp.async,"
                    " TMA), how the stages are synchronised (cp.async wait groups, mbarrier pipelines), and which"
                    " instruction multiplies (mma.sync, WGMMA, tcgen05.mma) and where the accumulator lives"
                    " (registers or tensor memory). Bottom: the epilogue visitor tree fuses the elementwise tail"
                    " and stores D.")
    arrow = f"{slug}-arrow"
    out += _box(left, 10, w - 2 * left, 62, "fig-box-accent",
                ["CuTe: Layout = Shape:Stride, Tensor = pointer + Layout",
                 "local_tile (CTA tile), TiledCopy.partition_S/D, TiledMMA.partition_A/B/C",
                 "zipped_divide / logical_product underneath every partition"])
    out += _box(left, 92, w - 2 * left, 36, "fig-box", ["global memory: A (M x K), B (N x K)"])
    out.append(_arrow(w / 2, 72, w / 2, 90, arrow))
    y = 150
    for name, policy, cells in MAP_ROWS:
        out.append(f'<text x="{left}" y="{y}" class="fig-text" font-weight="bold">{escape(name)}</text>')
        out.append(f'<text x="{w - left}" y="{y}" text-anchor="end" class="fig-mono" font-size="10.5">'
                   f"{escape(policy)}</text>")
        for i, lines in enumerate(cells):
            x = left + i * (bw + gap)
            cls = ["fig-box-warn", "fig-box", "fig-box-primary"][i]
            out += _box(x, y + 10, bw, 64, cls, lines, mono=2)
            if i < 2:
                out.append(_arrow(x + bw, y + 42, x + bw + gap, y + 42, arrow))
        y += 108
    out.append(_arrow(w / 2, y - 24, w / 2, y + 2, arrow))
    out += _box(left, y + 4, w - 2 * left, 62, "fig-box-ok",
                ["epilogue: visitor tree (EVT) on each accumulator fragment",
                 "D = act(alpha * acc + beta * C + bias), one store",
                 "Sm90EVT / Sm90TreeVisitor; SM100 reads acc out of TMEM first"])
    out.append(_arrow(w / 2, y + 66, w / 2, y + 86, arrow))
    out += _box(left, y + 88, w - 2 * left, 34, "fig-box", ["global memory: D (M x N)"])
    h = int(y + 130)
    out[0] = out[0].replace('viewBox="0 0 480 760"', f'viewBox="0 0 {w} {h}"')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- narrow twins: the same drawings laid out for a phone's column (360 units wide) ---------------
NARROW_W = 350  # a 390 px phone gives the column 358 px: 350 units keep 11-unit labels at 11 px or more
_CHAR = {"fig-text": 7.2, "fig-text-small": 6.1, "fig-mono": 7.3}  # rough advance per character, units


def _fits(text: str, klass: str, width: float) -> str:
    """The text, after checking that it fits `width` units at its class's size (roughly)."""
    need = len(text) * _CHAR[klass.split()[0]]
    assert need <= width, f"{text!r} needs about {need:.0f} units, has {width:.0f}"
    return escape(text)


def _stack_box(y: float, lines: list[tuple[str, str]], cls: str, x: float = 12, w: float = NARROW_W - 24) -> tuple:
    """A full-width box of (class, text) lines, centred; returns (svg lines, bottom y)."""
    h = 12 + 16 * len(lines)
    out = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" class="{cls}"/>']
    for i, (klass, text) in enumerate(lines):
        out.append(f'<text x="{x + w / 2}" y="{y + 21 + 16 * i}" text-anchor="middle" class="{klass}">'
                   f"{_fits(text, klass, w - 12)}</text>")
    return out, y + h


MAP_NARROW_ROWS = [
    ("SM80 (Ampere)", "MainloopSm80CpAsync", [
        ("fig-box-warn", "cp.async", "every thread, 16 B per instruction", "SM80_CP_ASYNC_*"),
        ("fig-box", "Stages smem buffers", "cp.async.wait_group, __syncthreads", "cp_async_wait<N>"),
        ("fig-box-primary", "mma.sync, one warp", "16x8x16, accumulator in registers", "SM80_16x8x16_*"),
    ]),
    ("SM90 (Hopper)", "MainloopSm90TmaGmmaWarpSpecialized", [
        ("fig-box-warn", "TMA, one thread", "a whole tile, multicast in a cluster", "SM90_TMA_LOAD"),
        ("fig-box", "full/empty mbarriers", "producer and consumer warps", "PipelineTmaAsync"),
        ("fig-box-primary", "WGMMA, four warps", "A, B in smem, accumulator in registers", "MMA_64x128x16_*"),
    ]),
    ("SM100 (Blackwell)", "MainloopSm100TmaUmmaWarpSpecialized", [
        ("fig-box-warn", "TMA, one or two SMs", "one copy per CTA pair", "SM100_TMA_2SM_LOAD"),
        ("fig-box", "mbarriers freed by", "tcgen05.commit", "PipelineTmaUmmaAsync"),
        ("fig-box-primary", "tcgen05.mma, one thread", "accumulator in TMEM, not registers", "SM100_MMA_F16BF16_*"),
    ]),
]


def map_narrow_svg() -> str:
    """The map as one column: CuTe, then each architecture's three stages top to bottom, then the epilogue."""
    slug = "cutlass-deep-dive-map-narrow"
    out = _svg_open(slug, NARROW_W, 1200, "Map of a CUTLASS GEMM from CuTe layouts to the epilogue, on three"
                    " GPU generations (narrow drawing)",
                    "Top: CuTe layouts and tensors cut the problem into CTA tiles and per-thread pieces. Then, for"
                    " each of SM80, SM90 and SM100, three stages from top to bottom: how a tile reaches shared"
                    " memory, how the stages are synchronised, and which instruction multiplies and where the"
                    " accumulator lives. Bottom: the epilogue visitor tree fuses the elementwise tail and stores D.")
    out[0] = out[0].replace('class="fig-svg"', 'class="fig-svg fig-svg--narrow"')
    arrow = f"{slug}-arrow"
    mid = NARROW_W / 2

    def then(y: float, lines: list[tuple[str, str]], cls: str) -> float:
        """An arrow down from y, then a box of lines under it; returns the box's bottom."""
        out.append(_arrow(mid, y, mid, y + 16, arrow))
        box, bottom = _stack_box(y + 18, lines, cls)
        out.extend(box)
        return bottom

    box, y = _stack_box(10, [("fig-text", "CuTe: Layout = Shape:Stride"),
                             ("fig-text-small", "Tensor = pointer (or coordinate) + Layout"),
                             ("fig-text-small", "local_tile: the CTA's tile"),
                             ("fig-text-small", "TiledCopy.partition_S/D, TiledMMA.partition_A/B/C"),
                             ("fig-text-small", "zipped_divide / logical_product underneath")], "fig-box-accent")
    out += box
    y = then(y, [("fig-text", "global memory: A (M x K), B (N x K)")], "fig-box")
    for name, policy, cells in MAP_NARROW_ROWS:
        out.append(_arrow(mid, y, mid, y + 14, arrow))
        y += 34
        out.append(f'<text x="12" y="{y}" class="fig-text" font-weight="bold">{escape(name)}</text>')
        out.append(f'<text x="12" y="{y + 18}" class="fig-mono">{_fits(policy, "fig-mono", NARROW_W - 24)}</text>')
        y += 28
        for i, (cls, title, sub, atom) in enumerate(cells):
            box, bottom = _stack_box(y, [("fig-text", title), ("fig-text-small", sub), ("fig-mono", atom)], cls)
            out += box
            if i < 2:
                out.append(_arrow(mid, bottom, mid, bottom + 10, arrow))
            y = bottom + 12
        y -= 12
    y = then(y, [("fig-text", "epilogue: visitor tree (EVT)"),
                 ("fig-text-small", "runs on each accumulator fragment"),
                 ("fig-text-small", "D = act(alpha * acc + beta * C + bias), one store"),
                 ("fig-mono", "Sm90EVT / Sm90TreeVisitor"),
                 ("fig-text-small", "SM100 reads the accumulator out of TMEM first")], "fig-box-ok")
    y = then(y, [("fig-text", "global memory: D (M x N)")], "fig-box")
    out[0] = out[0].replace(f'viewBox="0 0 {NARROW_W} 1200"', f'viewBox="0 0 {NARROW_W} {int(y + 8)}"')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _heading(y: float, text: str) -> str:
    return f'<text x="8" y="{y + 10}" class="fig-text" font-weight="bold">{escape(text)}</text>'


def _lane(y: float, label: str, sub: str, left: int) -> list[str]:
    return [f'<text x="8" y="{y + 14}" class="fig-text-small">{escape(label)}</text>',
            f'<text x="8" y="{y + 27}" class="fig-text-small fig-text-muted">{escape(sub)}</text>',
            f'<line x1="{left}" y1="{y + 36}" x2="470" y2="{y + 36}" class="fig-grid"/>']


def _bar(x: float, y: float, w: float, cls: str, text: str) -> list[str]:
    return [f'<rect x="{x}" y="{y + 4}" width="{w}" height="26" rx="3" class="{cls}"/>',
            f'<text x="{x + w / 2}" y="{y + 21}" text-anchor="middle" class="fig-text-small">{escape(text)}</text>']


WS_DESC = ("Three timelines. Hopper ping-pong: one producer warp group issues TMA loads; consumer warp"
           " groups 1 and 2 take alternate output tiles, and an ordered barrier lets only one run its"
           " MMAs at a time, so one group's epilogue overlaps the other's MMAs. Hopper cooperative: both"
           " consumer groups split one tile and run MMAs and then the epilogue together. Blackwell: a"
           " single MMA warp issues tcgen05.mma into one of two TMEM accumulator stages while the"
           " epilogue warps drain the other stage. The widths are schematic, not measured.")


def ws_schedule_svg() -> str:
    """Warp-specialised schedules, drawn from the order the kernels' barriers impose (not measured)."""
    slug = "cutlass-deep-dive-ws"
    w, left, u = 480, 118, 44   # u: width of one k-loop (MMA) or one epilogue in this sketch
    out = _svg_open(slug, w, 640, "Warp-specialised schedules: Hopper ping-pong and cooperative, Blackwell",
                    WS_DESC)
    y = 14
    out.append(_heading(y, "Hopper, KernelTmaWarpSpecializedPingpong"))
    y += 24
    out += _lane(y, "producer WG", "warp 0: TMA A, B", left)
    out += _bar(left, y, 7 * u - 4, "fig-box-warn", "k-tiles of t0, t1, t2 … (waits while all Stages are full)")
    y += 40
    out += _lane(y, "consumer WG 1", "tiles t0, t2", left)
    out += _bar(left, y, 2 * u - 4, "fig-box-primary", "MMA t0")
    out += _bar(left + 2 * u, y, u, "fig-box-ok", "epi t0")
    out += _bar(left + 4 * u, y, 2 * u - 4, "fig-box-primary", "MMA t2")
    out += _bar(left + 6 * u, y, u - 4, "fig-box-ok", "epi")
    y += 40
    out += _lane(y, "consumer WG 2", "tiles t1, t3", left)
    out += _bar(left + 2 * u, y, 2 * u - 4, "fig-box-primary", "MMA t1")
    out += _bar(left + 4 * u, y, u, "fig-box-ok", "epi t1")
    out += _bar(left + 6 * u, y, u - 4, "fig-box-primary", "MMA t3")
    y += 54
    out.append(f'<text x="8" y="{y}" class="fig-text-small fig-text-muted">math_wg_order_barrier: wait before'
               ' and arrive after each MMA block and each epilogue</text>')
    y += 30
    out.append(_heading(y, "Hopper, KernelTmaWarpSpecializedCooperative"))
    y += 24
    out += _lane(y, "producer WG", "warp 0: TMA A, B", left)
    out += _bar(left, y, 7 * u - 4, "fig-box-warn", "load k-tiles of t0, t1 …")
    y += 40
    out += _lane(y, "consumer WG 1", "half of each tile", left)
    out += _bar(left, y, 4 * u - 4, "fig-box-primary", "MMA t0, its half")
    out += _bar(left + 4 * u, y, u, "fig-box-ok", "epi t0")
    out += _bar(left + 5 * u + 4, y, 2 * u - 8, "fig-box-primary", "MMA t1")
    y += 40
    out += _lane(y, "consumer WG 2", "the other half", left)
    out += _bar(left, y, 4 * u - 4, "fig-box-primary", "MMA t0, other half")
    out += _bar(left + 4 * u, y, u, "fig-box-ok", "epi t0")
    out += _bar(left + 5 * u + 4, y, 2 * u - 8, "fig-box-primary", "MMA t1")
    y += 54
    out.append(_heading(y, "Blackwell, sm100 warp-specialised kernel"))
    y += 24
    out += _lane(y, "MainloopLoad", "1 warp: TMA", left)
    out += _bar(left, y, 7 * u - 4, "fig-box-warn", "load k-tiles of t0, t1, t2 …")
    y += 40
    out += _lane(y, "MMA warp", "1 thread issues", left)
    out += _bar(left, y, 2 * u - 4, "fig-box-primary", "t0 → TMEM 0")
    out += _bar(left + 2 * u, y, 2 * u - 4, "fig-box-primary", "t1 → TMEM 1")
    out += _bar(left + 4 * u, y, 2 * u - 4, "fig-box-primary", "t2 → TMEM 0")
    y += 40
    out += _lane(y, "Epilogue warps", "TMEM → regs → EVT", left)
    out += _bar(left + 2 * u, y, 2 * u - 4, "fig-box-ok", "epi t0")
    out += _bar(left + 4 * u, y, 2 * u - 4, "fig-box-ok", "epi t1")
    y += 40
    out += _lane(y, "Sched warp", "CLC: next tile", left)
    for i in range(3):
        out += _bar(left + i * 2 * u, y, u - 8, "fig-box", f"t{i + 1}?")
    y += 48
    out.append(f'<text x="8" y="{y}" class="fig-text-small fig-text-muted">time →  (order from the barriers in'
               ' the kernels; widths are schematic)</text>')
    h = int(y + 14)
    out[0] = out[0].replace('viewBox="0 0 480 640"', f'viewBox="0 0 {w} {h}"')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The narrow schedules: (heading, [(lane label, [(start, width, box class, text) in units of u])], notes)
WS_NARROW = [
    ("Hopper, KernelTmaWarpSpecializedPingpong", [
        ("producer WG, warp 0: TMA; waits if all Stages are full", [(0, 7, "fig-box-warn", "k-tiles of t0, t1, t2 …")]),
        ("consumer WG 1: tiles t0, t2", [(0, 2, "fig-box-primary", "MMA t0"), (2, 1, "fig-box-ok", "epi t0"),
                                         (4, 2, "fig-box-primary", "MMA t2"), (6, 1, "fig-box-ok", "epi")]),
        ("consumer WG 2: tiles t1, t3", [(2, 2, "fig-box-primary", "MMA t1"), (4, 1, "fig-box-ok", "epi t1"),
                                         (6, 1, "fig-box-primary", "MMA t3")]),
    ], ["math_wg_order_barrier: wait before and arrive after", "each MMA block and each epilogue"]),
    ("Hopper, KernelTmaWarpSpecializedCooperative", [
        ("producer WG, warp 0: TMA of A and B", [(0, 7, "fig-box-warn", "load k-tiles of t0, t1 …")]),
        ("consumer WG 1: half of each tile", [(0, 4, "fig-box-primary", "MMA t0, its half"),
                                              (4, 1, "fig-box-ok", "epi t0"), (5, 2, "fig-box-primary", "MMA t1")]),
        ("consumer WG 2: the other half", [(0, 4, "fig-box-primary", "MMA t0, other half"),
                                           (4, 1, "fig-box-ok", "epi t0"), (5, 2, "fig-box-primary", "MMA t1")]),
    ], []),
    ("Blackwell, sm100 warp-specialised kernel", [
        ("MainloopLoad, 1 warp: TMA", [(0, 7, "fig-box-warn", "load k-tiles of t0, t1, t2 …")]),
        ("MMA warp: one thread issues every MMA", [(0, 2, "fig-box-primary", "t0 → TMEM 0"),
                                                   (2, 2, "fig-box-primary", "t1 → TMEM 1"),
                                                   (4, 2, "fig-box-primary", "t2 → TMEM 0")]),
        ("Epilogue warps: TMEM → registers → EVT", [(2, 2, "fig-box-ok", "epi t0"), (4, 2, "fig-box-ok", "epi t1")]),
        ("Sched warp: cluster launch control, next tile", [(2 * i, 1, "fig-box", f"t{i + 1}?") for i in range(3)]),
    ], ["time →  (order from the barriers in the kernels;", "widths are schematic)"]),
]


def ws_schedule_narrow_svg() -> str:
    """The three schedules for a phone: each lane's name above its bar, the bars the column's full width."""
    slug = "cutlass-deep-dive-ws-narrow"
    left, u = 8, 47  # u: one k-loop (MMA) or one epilogue, 7 of them across
    out = _svg_open(slug, NARROW_W, 1200, "Warp-specialised schedules: Hopper ping-pong and cooperative, Blackwell"
                    " (narrow drawing)",
                    WS_DESC)
    out[0] = out[0].replace('class="fig-svg"', 'class="fig-svg fig-svg--narrow"')

    def lane(y: float, label: str, bars: list[tuple[float, float, str, str]]) -> list[str]:
        label = _fits(label, "fig-text-small", NARROW_W - 16)
        lines = [f'<text x="{left}" y="{y + 12}" class="fig-text-small">{label}</text>']
        for x0, width, cls, text in bars:
            x, w = left + x0 * u, width * u - 4
            lines += [f'<rect x="{x}" y="{y + 18}" width="{w}" height="24" rx="3" class="{cls}"/>',
                      f'<text x="{x + w / 2}" y="{y + 34}" text-anchor="middle" class="fig-text-small">'
                      f"{_fits(text, 'fig-text-small', w)}</text>"]
        return lines

    def heading(y: float, text: str) -> str:
        text = _fits(text, "fig-text", NARROW_W - 16)
        return f'<text x="{left}" y="{y + 12}" class="fig-text" font-weight="bold">{text}</text>'

    y = 6
    for title, lanes, notes in WS_NARROW:
        out.append(heading(y, title))
        y += 22
        for label, bars in lanes:
            out += lane(y, label, bars)
            y += 48
        y += 4
        for line in notes:
            line = _fits(line, "fig-text-small", NARROW_W - 16)
            out.append(f'<text x="{left}" y="{y}" class="fig-text-small">{line}</text>')
            y += 15
        y += 14
    out[0] = out[0].replace(f'viewBox="0 0 {NARROW_W} 1200"', f'viewBox="0 0 {NARROW_W} {int(y)}"')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _chunk_grid(x0: float, y0: float, cell: int, offset, title: str, passes: int) -> list[str]:
    """8 rows x 8 16-byte vectors of the atom; each cell shows the 16-byte chunk of its row it is stored in."""
    out = [f'<text x="{x0}" y="{y0}" class="fig-mono">{_fits(title, "fig-mono", 8 * cell + 30)}</text>']
    top, left = y0 + 26, x0 + 30
    for c in range(8):
        out.append(f'<text x="{left + c * cell + cell / 2}" y="{top - 6}" text-anchor="middle"'
                   f' class="fig-text-small">{8 * c}</text>')
    for r in range(8):
        out.append(f'<text x="{x0 + 10}" y="{top + r * cell + cell / 2 + 4}" text-anchor="middle"'
                   f' class="fig-text-small">{r}</text>')
        for c in range(8):
            chunk = offset((r, 8 * c)) % 64 // 8
            x, y = left + c * cell, top + r * cell
            opacity = "0.4" if chunk < 4 else "0.18"
            out += [f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" class="fig-fill-{chunk % 4 + 1}"'
                    f' fill-opacity="{opacity}"/>',
                    f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" class="fig-box" fill-opacity="0"/>',
                    f'<text x="{x + cell / 2}" y="{y + cell / 2 + 5}" text-anchor="middle"'
                    f' class="fig-mono">{chunk}</text>']
    out.append(f'<rect x="{left}" y="{top}" width="{cell}" height="{8 * cell}" class="fig-line-accent"'
               ' fill="none" stroke-width="3"/>')
    out.append(f'<text x="{x0}" y="{top + 8 * cell + 20}" class="fig-text-small">outlined: one ldmatrix 8x8 matrix,'
               f' {passes} pass{"es" if passes > 1 else ""}</text>')
    return out


def swizzle_svg(narrow: bool = False) -> str:
    """Where the 16-byte vectors of the SM80 fp16 atom land in each 128-byte row, without and with the swizzle."""
    slug = "cutlass-deep-dive-swizzle" + ("-narrow" if narrow else "")
    plain, swz = SM80_FP16_ATOM, swizzled(SW128, SM80_FP16_ATOM)
    cell = 36 if narrow else 32
    grid_h = 26 + 8 * cell + 30
    w = NARROW_W if narrow else 2 * (30 + 8 * cell) + 70
    h = 48 + (2 * grid_h + 24 if narrow else grid_h) + 6
    out = _svg_open(slug, w, h, "The SM80 fp16 shared-memory atom without and with Swizzle<3,3,3>"
                    + (" (narrow drawing)" if narrow else ""),
                    "Two 8 by 8 grids. Row r, column c is the 16-byte vector holding fp16 columns 8c to 8c+7 of row r"
                    " of"
                    " the 8 by 64 atom; the number is the 16-byte chunk of the 128-byte row it is stored in, which"
                    " picks its four banks. Without the swizzle every row stores column c in chunk c, so the eight"
                    " rows an ldmatrix reads at once hit the same four banks: eight passes. With Swizzle<3,3,3> row r"
                    " stores it in chunk c XOR r: all eight chunks, one pass.")
    if narrow:
        out[0] = out[0].replace('class="fig-svg"', 'class="fig-svg fig-svg--narrow"')
    axes = _fits("down: row of the atom; across: first fp16 column", "fig-text-small", w - 16)
    out.append(f'<text x="8" y="20" class="fig-text-small">{axes}</text>')
    second = (8, 48 + grid_h + 24) if narrow else (30 + 8 * cell + 62, 48)
    out += _chunk_grid(8, 48, cell, plain, "(8,64):(64,1)", ldmatrix_passes(plain))
    out += _chunk_grid(*second, cell, swz, "Swizzle<3,3,3> o (8,64):(64,1)", ldmatrix_passes(swz))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- golden traces for the interactive visualiser (docs/javascripts/ifig/cute-layout.js) -----------
# The presets the figure steps through with "Next example" (the same list as PRESETS in the script),
# then layouts a reader types in. The browser test drives the figure through them and compares what
# it shows with these traces, computed by the algebra in cute_layouts.py.
LAYOUT_PRESETS = [
    {"name": "column-major 8x8, 2x4 tiles", "M": 8, "N": 8, "dM": 1, "dN": 8, "TM": 2, "TN": 4},
    {"name": "row-major 8x8, 4x2 tiles", "M": 8, "N": 8, "dM": 8, "dN": 1, "TM": 4, "TN": 2},
    {"name": "padded 4x6 (leading dimension 5)", "M": 4, "N": 6, "dM": 1, "dN": 5, "TM": 2, "TN": 3},
    {"name": "broadcast column: stride 0", "M": 4, "N": 8, "dM": 1, "dN": 0, "TM": 4, "TN": 2},
    {"name": "row-major 16x8, 8x4 tiles", "M": 16, "N": 8, "dM": 8, "dN": 1, "TM": 8, "TN": 4},
]
LAYOUT_TYPED = [
    {"name": "4x16 column-major, 2x4 tiles (two bands on a phone)", "M": 4, "N": 16, "dM": 1, "dN": 4,
     "TM": 2, "TN": 4},
    {"name": "padded, dN 5 -> 4: coalesces to 24:1", "M": 4, "N": 6, "dM": 1, "dN": 4, "TM": 2, "TN": 3},
    {"name": "a tiler that does not divide", "M": 8, "N": 8, "dM": 1, "dN": 8, "TM": 3, "TN": 4},
]
TRACES = FIG_DIR / "cute-layout-traces.json"


def layout_trace(p: dict) -> dict:
    """What the figure should show for inputs p: the readout's state and every cell's two numbers."""
    if p["M"] % p["TM"] or p["N"] % p["TN"]:
        return {"inputs": p, "layout": "", "divided": ""}
    layout = Layout((p["M"], p["N"]), (p["dM"], p["dN"]))
    zd = zipped_divide(layout, (Layout(p["TM"]), Layout(p["TN"])))
    # The tiling is about coordinates: divide the column-major identity of the same shape and read
    # each cell's (position, tile) off it, which works for a broadcast (non-injective) layout too.
    ident = zipped_divide(Layout((p["M"], p["N"])), (Layout(p["TM"]), Layout(p["TN"])))
    where = {ident((q, t)): (q, t) for t in range(ident.mode(1).size()) for q in range(ident.mode(0).size())}
    index = [[layout((i, j)) for j in range(p["N"])] for i in range(p["M"])]
    cell = [[where[i + p["M"] * j] for j in range(p["N"])] for i in range(p["M"])]
    return {"inputs": p, "layout": f"({p['M']},{p['N']}):({p['dM']},{p['dN']})", "divided": str(zd),
            "tiles": zd.mode(1).size(), "injective": len({x for row in index for x in row}) == p["M"] * p["N"],
            "index": index, "position": [[q for q, _ in row] for row in cell],
            "tile": [[t for _, t in row] for row in cell]}


def layout_traces() -> str:
    import json
    data = {"presets": [layout_trace(p) for p in LAYOUT_PRESETS], "typed": [layout_trace(p) for p in LAYOUT_TYPED]}
    return json.dumps(data, separators=(",", ":")) + "\n"


FIGURES = {OUT: layout_svg, PIPE_OUT: sm80_pipeline_svg, FIG_DIR / "sm80-pipeline-narrow.svg": sm80_pipeline_narrow_svg,
           FIG_DIR / "map.svg": map_svg, FIG_DIR / "map-narrow.svg": map_narrow_svg,
           FIG_DIR / "ws-schedule.svg": ws_schedule_svg, FIG_DIR / "ws-schedule-narrow.svg": ws_schedule_narrow_svg,
           FIG_DIR / "swizzle.svg": swizzle_svg, FIG_DIR / "swizzle-narrow.svg": lambda: swizzle_svg(narrow=True)}

if __name__ == "__main__":
    if "--write" in sys.argv:
        TRACES.write_text(layout_traces(), encoding="utf-8")
        for path, render in FIGURES.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(), encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parents[1])}")
    else:
        print(layout_svg(), end="")
