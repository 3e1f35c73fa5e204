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


def sm80_pipeline_svg(stages: int = 3, k_tiles: int = 6, k_blocks: int = 2) -> str:
    cols = sm80_snapshots(stages, k_tiles, k_blocks)
    cw, rh, left, top = 40, 44, 92, 64
    w = left + cw * len(cols) + 8
    h = top + rh * stages + 118
    slug = "cutlass-deep-dive-sm80"
    box = {"flight": "fig-box-warn", "read": "fig-box-primary", "ready": "fig-box-ok", "empty": "fig-box"}
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
            state, tile = col[st]
            x = left + c * cw
            out.append(f'<rect x="{x + 2}" y="{y + 2}" width="{cw - 4}" height="{rh - 4}" rx="3"'
                       f' class="{box[state]}"/>')
            if tile is not None:
                out.append(f'<text x="{x + cw // 2}" y="{y + rh // 2 + 5}" text-anchor="middle"'
                           f' class="fig-text fig-mono">{tile}</text>')
    legend = [("fig-box-warn", "cp.async in flight (blank: predicated off)"), ("fig-box-ok", "landed, waiting"),
              ("fig-box-primary", "registers load from it"), ("fig-box", "empty")]
    ly = top + stages * rh + 20
    for i, (cls, text) in enumerate(legend):
        x, yy = 8 + (i % 2) * 260, ly + (i // 2) * 30
        out.append(f'<rect x="{x}" y="{yy}" width="22" height="18" rx="3" class="{cls}"/>')
        out.append(f'<text x="{x + 30}" y="{yy + 14}" class="fig-text-small">{text}</text>')
    out.append(f'<text x="8" y="{ly + 78}" class="fig-text-small fig-text-muted">k-tile index in each cell;'
               f' column header = (k-tile).(k-block) the MMA computes.</text>')
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


def _heading(y: float, text: str) -> str:
    return f'<text x="8" y="{y + 10}" class="fig-text" font-weight="bold">{escape(text)}</text>'


def _lane(y: float, label: str, sub: str, left: int) -> list[str]:
    return [f'<text x="8" y="{y + 14}" class="fig-text-small">{escape(label)}</text>',
            f'<text x="8" y="{y + 27}" class="fig-text-small fig-text-muted">{escape(sub)}</text>',
            f'<line x1="{left}" y1="{y + 36}" x2="470" y2="{y + 36}" class="fig-grid"/>']


def _bar(x: float, y: float, w: float, cls: str, text: str) -> list[str]:
    return [f'<rect x="{x}" y="{y + 4}" width="{w}" height="26" rx="3" class="{cls}"/>',
            f'<text x="{x + w / 2}" y="{y + 21}" text-anchor="middle" class="fig-text-small">{escape(text)}</text>']


def ws_schedule_svg() -> str:
    """Warp-specialised schedules, drawn from the order the kernels' barriers impose (not measured)."""
    slug = "cutlass-deep-dive-ws"
    w, left, u = 480, 118, 44   # u: width of one k-loop (MMA) or one epilogue in this sketch
    out = _svg_open(slug, w, 640, "Warp-specialised schedules: Hopper ping-pong and cooperative, Blackwell",
                    "Three timelines. Hopper ping-pong: one producer warp group issues TMA loads; consumer warp"
                    " groups 1 and 2 take alternate output tiles, and an ordered barrier lets only one run its"
                    " MMAs at a time, so one group's epilogue overlaps the other's MMAs. Hopper cooperative: both"
                    " consumer groups split one tile and run MMAs and then the epilogue together. Blackwell: a"
                    " single MMA warp issues tcgen05.mma into one of two TMEM accumulator stages while the"
                    " epilogue warps drain the other stage. The widths are schematic, not measured.")
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


FIGURES = {OUT: layout_svg, PIPE_OUT: sm80_pipeline_svg, FIG_DIR / "map.svg": map_svg,
           FIG_DIR / "ws-schedule.svg": ws_schedule_svg}

if __name__ == "__main__":
    if "--write" in sys.argv:
        for path, render in FIGURES.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(), encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parents[1])}")
    else:
        print(layout_svg(), end="")
