"""Render the post's figures: the map, and the plots of the JSON from buckets.py and overlap.py.

Run:  python examples/pytorch_ddp_deep_dive/figures.py

Rendering is a pure function of the committed JSON (docs/blog/posts/pytorch-ddp-deep-dive/
buckets.json and timeline.json), so a test can regenerate every SVG and compare it byte for
byte. To record new data: buckets.py --json-out ..., overlap.py --json-out ..., then this.
"""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ on the path
from common.svgplot import Series, bar_chart  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from overlap import backward_timeline, timeline_events  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive"
SLUG = "pytorch-ddp-deep-dive"
# Phone twins are 350 units wide: at a 390 px viewport the post's column is 358 px, so an 11-unit
# label renders at 11 px or more.
NARROW_W = 350


def _svg(fig_id: str, width: int, height: int, title: str, desc: str, body: list[str],
         narrow: bool = False) -> str:
    """A hand-drawn figure; ``narrow``: its phone twin (NARROW_W wide, class fig-svg--narrow,
    ids suffixed -narrow so both drawings can sit on one page)."""
    if narrow:
        fig_id = f"{fig_id}-narrow"
        body = [re.sub(r'url\(#([^)]+)\)', r"url(#\1-narrow)",
                       re.sub(r'\bid="([^"]+)"', r'id="\1-narrow"', b)) for b in body]
    cls = "fig-svg fig-svg--narrow" if narrow else "fig-svg"
    head = (f'<svg class="{cls}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} '
            f'{height}" role="img" aria-labelledby="{fig_id}-title {fig_id}-desc">')
    lines = [head, f'<title id="{fig_id}-title">{escape(title)}</title>',
             f'<desc id="{fig_id}-desc">{escape(desc)}</desc>', *body, "</svg>"]
    return "\n".join(lines) + "\n"


def _text(x: float, y: float, s: str, cls: str = "fig-text", anchor: str = "start",
          extra: str = "") -> str:
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>'
            f"{escape(s)}</text>")


# ---------------------------------------------------------------- timeline (overlap.py data)

def render_timeline(data: dict, narrow: bool = False) -> str:
    """Backward vs bucket all-reduces for iteration 1 (one bucket) and iteration 3 (rebuilt).
    Wide: lane names in a left column. Narrow: each lane's name above it, full-width lanes."""
    fig_id = f"{SLUG}-timeline"
    iters = [it for it in data["iterations"] if it["iteration"] in (1, 3)]
    left, right, width = (12, 12, NARROW_W) if narrow else (150, 24, 760)
    t_max = max(it["backward_end_ms"] for it in iters)
    step = (10.0 if t_max <= 40 else 20.0) if narrow else (5.0 if t_max <= 40 else 10.0)
    t_top = step * math.ceil(t_max / step)

    def x(t: float) -> float:
        return left + t / t_top * (width - left - right)

    body: list[str] = []
    y = 34
    titles = (["Gradients ready vs bucket all-reduces", "(rank 0, measured)"] if narrow else
              ["Gradients ready vs bucket all-reduces (rank 0, measured)"])
    for i, line in enumerate(titles):
        body.append(_text(width / 2, 22 + 17 * i, line, anchor="middle",
                          extra=' font-weight="bold"'))
    y += 17 * (len(titles) - 1)
    if narrow:
        body.append(_text(width / 2, y + 14, "dashed line: backward() returns", "fig-text-small",
                          "middle"))
        y += 16
    for it in iters:
        n_b = len(it["buckets"])
        head = ("Iteration 1: constructor layout, one bucket" if it["iteration"] == 1 else
                f"Iteration {it['iteration']}: rebuilt layout, {n_b} buckets")
        y += 14
        body.append(_text(12, y, head, extra=' font-weight="bold"'))
        y += 12
        top = y
        # Lane: gradient-ready ticks.
        if narrow:
            y += 16
            body.append(_text(12, y, "gradient ready (w: weights)", "fig-text-small"))
        lane = y + (22 if narrow else 16)
        if not narrow:
            body.append(_text(12, lane + 4, "gradient ready", "fig-text-small"))
        labelled = -100.0
        for idx, t in it["grad_ready_ms"]:
            body.append(f'<line class="fig-line-accent" x1="{x(t):.1f}" y1="{lane - 9:.1f}" '
                        f'x2="{x(t):.1f}" y2="{lane + 9:.1f}"><title>param {idx} ready at '
                        f'{t:.2f} ms</title></line>')
            # Label the weights (even indices; biases are the unlabelled twin) where they fit.
            if idx % 2 == 0 and (not narrow or x(t) - labelled >= 18):
                body.append(_text(x(t), lane - 12, f"w{idx // 2}", "fig-text-small", "middle"))
                labelled = x(t)
        y = lane + 14
        # One lane per bucket: launch -> future completed.
        for bk in it["buckets"]:
            y += 22
            cls = f"fig-fill-{bk['index'] % 4 + 1}"
            layers = sorted({p // 2 for p in bk["params"]})
            what = (f"layers {','.join(map(str, layers))}" if len(layers) > 1
                    else f"layer {layers[0]}")
            if narrow:  # the name on its own line, the bar under it
                body.append(_text(12, y - 4, f"bucket {bk['index']}: {what}", "fig-text-small"))
                y += 14
            else:
                body.append(_text(12, y + 4, f"bucket {bk['index']}: {what}", "fig-text-small"))
            x0, x1 = x(bk["launch_ms"]), x(bk["done_ms"])
            body.append(f'<rect class="{cls}" x="{x0:.1f}" y="{y - 7:.1f}" '
                        f'width="{max(x1 - x0, 1.5):.1f}" height="14" rx="2"><title>bucket '
                        f'{bk["index"]}, {bk["bytes"]} bytes: launched {bk["launch_ms"]:.2f} ms, '
                        f'done {bk["done_ms"]:.2f} ms</title></rect>')
        bottom = y + 12
        end = it["backward_end_ms"]
        y1 = top - 4 if narrow else top - 22
        body.append(f'<line class="fig-line-dashed" x1="{x(end):.1f}" y1="{y1:.1f}" '
                    f'x2="{x(end):.1f}" y2="{bottom:.1f}"/>')
        if not narrow:  # narrow: the legend under the title names the dashed line
            body.append(_text(x(end) - 4, top - 12, "backward() returns", "fig-text-small", "end"))
        y = bottom + 8
    # Shared time axis.
    y += 6
    body.append(f'<line class="fig-axis" x1="{left}" y1="{y}" x2="{width - right}" y2="{y}"/>')
    t = 0.0
    while t <= t_top + 1e-9:
        body.append(f'<line class="fig-axis" x1="{x(t):.1f}" y1="{y}" x2="{x(t):.1f}" '
                    f'y2="{y + 5}"/>')
        body.append(_text(x(t), y + 18, f"{t:g}", "fig-text-small", "middle"))
        t += step
    axis_label = ("ms since loss.backward() was called" if narrow else
                  "milliseconds since loss.backward() was called")
    body.append(_text((left + width - right) / 2, y + 36, axis_label, anchor="middle"))
    height = int(y + 48)
    desc = ("Two timelines from one recorded run. In iteration 1 all eight gradients become "
            "ready before the single bucket's all-reduce starts, and backward returns only "
            "after it finishes. In iteration 3 the rebuilt buckets start their all-reduces "
            "while later layers are still computing gradients.")
    return _svg(fig_id, width, height, "DDP backward timeline", desc, body, narrow)


def render_tail(data: dict, narrow: bool = False) -> str:
    """Bar chart: last gradient ready vs backward() return, per iteration (svgplot; its phone
    drawing is 348 units wide)."""
    iters = data["iterations"]
    # Narrow: the categories short enough to stay horizontal, "iteration" said once in the title.
    cats = [f"{'' if narrow else 'iteration '}{it['iteration']} ({len(it['buckets'])} bucket"
            f"{'s' if len(it['buckets']) > 1 else ''})" for it in iters]
    last = [max(t for _, t in it["grad_ready_ms"]) for it in iters]
    end = [it["backward_end_ms"] for it in iters]
    return bar_chart(cats, [Series("last gradient ready", [], last),
                            Series("backward() returned", [], end)],
                     fig_id=f"{SLUG}-tail",
                     title="Communication left after the last gradient"
                     + (", per iteration" if narrow else ""),
                     desc="For each recorded iteration, the time at which the last gradient was "
                          "ready and the time at which backward() returned, in milliseconds.",
                     y_label="ms since backward() was called", narrow=narrow)


# ---------------------------------------------------------------- bucket layout (buckets.py data)

def render_buckets(data: dict, narrow: bool = False) -> str:
    """Five layouts, one row each. Narrow: smaller parameter boxes, buckets wrapped onto more
    lines where a row does not fit, labels wrapped."""
    fig_id = f"{SLUG}-buckets"
    params = data["params"]
    width, left = (NARROW_W, 12) if narrow else (760, 12)
    w_box, b_box, gap, group_gap = (44, 26, 3, 10) if narrow else (74, 30, 4, 14)
    min_w = 86 if narrow else 78

    def short(i: int) -> str:
        return f"{i // 2}.{'w' if i % 2 == 0 else 'b'}"

    def kib(b: int) -> str:
        return f"{b / 1024:,.0f} KiB" if b < 1024 * 1024 else f"{b / 1024 / 1024:.2f} MiB"

    rows = [
        ("Constructor, default arguments: one bucket, registration order",
         [list(range(len(params)))]),
        ("Constructor, find_unused_parameters=True, bucket_cap_mb=1: registration order, reversed",
         None),
        ("After the rebuild, bucket_cap_mb=1: gradient-ready order",
         data["bucket_cap_mb=1"]["rebuilt_buckets"]),
        ("After the rebuild, default caps (first bucket 1 MiB, then 25 MiB)",
         data["default"]["rebuilt_buckets"]),
        ("After the rebuild, bucket_cap_mb=25 passed explicitly: no small first bucket",
         data["bucket_cap_mb=25"]["rebuilt_buckets"]),
    ]
    rows[1] = (rows[1][0],
               data["bucket_cap_mb=1, find_unused_parameters=True"]["constructor_buckets"])
    sizes = [b for _, b in params]

    title = "Which gradients share a bucket (Tower: 4 x Linear(512, 512))"
    titles = textwrap.wrap(title, 36) if narrow else [title]
    body = [_text(width / 2, 22 + 17 * i, t, anchor="middle", extra=' font-weight="bold"')
            for i, t in enumerate(titles)]
    y = 46 + 17 * (len(titles) - 1)
    for label, buckets in rows:
        for line in textwrap.wrap(label, 54) if narrow else [label]:
            body.append(_text(left, y, line, "fig-text-small"))
            y += 14
        y -= 4
        x = left
        for k, b in enumerate(buckets):
            w = max(sum(w_box if i % 2 == 0 else b_box for i in b) + gap * (len(b) + 1), min_w)
            if x > left and x + w > width - left:  # narrow: this bucket goes on the next line
                x, y = left, y + 52
            cls = "fig-box-primary" if k % 2 == 0 else "fig-box-accent"
            if len(buckets) == 1 and label.startswith("Constructor"):
                cls = "fig-box"
            nbytes = sum(sizes[i] for i in b)
            body.append(f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="44" '
                        f'rx="4"><title>bucket {k}: {nbytes} bytes</title></rect>')
            body.append(_text(x + 4, y + 13, f"b{k} · {kib(nbytes)}", "fig-text-small"))
            px = x + gap
            for i in b:
                pw = w_box if i % 2 == 0 else b_box
                body.append(f'<rect class="fig-box" x="{px:.1f}" y="{y + 18:.1f}" width="{pw}" '
                            f'height="20" rx="2"><title>{escape(params[i][0])}: {params[i][1]} '
                            f'bytes</title></rect>')
                body.append(_text(px + pw / 2, y + 32, short(i), "fig-mono", "middle"))
                px += pw + gap
            x += w + group_gap
        y += 62
    note = ("n.w / n.b: weight (1 MiB) and bias (2 KiB) of layer n. "
            "Buckets are drawn in Reducer order: b0 is reduced first.")
    for line in textwrap.wrap(note, 54) if narrow else [note]:
        body.append(_text(left, y - 4, line, "fig-text-small"))
        y += 14
    y -= 14
    desc = ("Five bucket layouts for the same four-layer model, read from DDP's logging data. "
            "The constructor puts every gradient in one bucket unless find_unused_parameters is "
            "set or bucket_cap_mb_list is given; after the first iteration the buckets are "
            "rebuilt in the order gradients became ready, so bucket 0 holds the last layer.")
    return _svg(fig_id, width, int(y + 8), "DDP bucket layouts", desc, body, narrow)


# ---------------------------------------------------------------- bucket timeline (the cost model)

# The interactive figure's controls (docs/javascripts/ifig/ddp-bucket-timeline.js offers the
# same values) and the scenarios whose golden traces the tests compare with what it shows.
CONTROLS = {"bucket_cap_mb": [None, 0.25, 0.5, 1, 2, 3, 5, 10, 25, 100],
            "width": [128, 256, 512, 1024, 2048, 4096], "batch": [8, 32, 64, 256, 1024],
            "layers": [1, 16], "iteration": [1, 2]}


def _scenario(name: str, layers: int, width: int, batch: int, cap: float | None,
              iteration: int = 2) -> dict:
    return {"id": name, "layers": layers, "width": width, "batch": batch, "bucket_cap_mb": cap,
            "iteration": iteration}


SCENARIOS = [  # the first is the page's initial state and the static drawing
    _scenario("tower-default", 4, 512, 256, None),
    *(_scenario(f"tower-cap-{c}", 4, 512, 256, c) for c in (25, 1, 3, 2)),
    _scenario("tower-iteration-1", 4, 512, 256, None, iteration=1),
    _scenario("wide-small-batch", 8, 1024, 32, 5),
    _scenario("many-small-buckets", 12, 256, 8, 0.25),
    _scenario("two-wide-layers", 2, 2048, 64, None),
]


def model_constants(sweep: dict) -> dict:
    """The cost model's three numbers, from the committed sweep (sweep.py, gloo on this CPU)."""
    return {"alpha_ms": sweep["fit"]["alpha_ms"], "ms_per_mib": sweep["fit"]["ms_per_mib"],
            "ns_per_mac": sweep["ns_per_mac"]}


def scenario_trace(sc: dict, const: dict) -> dict:
    tl = backward_timeline([sc["width"]] * (sc["layers"] + 1), sc["bucket_cap_mb"], sc["batch"],
                           const["alpha_ms"], const["ms_per_mib"], const["ns_per_mac"],
                           rebuilt=sc["iteration"] > 1)
    return {"inputs": sc, "timeline": tl, "events": timeline_events(tl)}


def bucket_timeline_traces(sweep: dict) -> dict:
    const = model_constants(sweep)
    return {"source": "overlap.backward_timeline with the constants of sweep.json",
            "constants": const, "controls": CONTROLS,
            "scenarios": [scenario_trace(sc, const) for sc in SCENARIOS]}


def _cap_label(cap: float | None) -> str:
    return "bucket_cap_mb unset" if cap is None else f"bucket_cap_mb={cap:g}"


def render_bucket_timeline(trace: dict, narrow: bool = False) -> str:
    """One scenario of the model as a drawing: the layers' backward, the all-reduces, the axis."""
    sc, tl = trace["inputs"], trace["timeline"]
    fig_id = f"{SLUG}-bucket-timeline"
    width = NARROW_W if narrow else 640
    pad = 12
    t_top = tl["backward_ms"]

    def x(t: float) -> float:
        return pad + t / t_top * (width - 2 * pad)

    head = (f"{sc['layers']} × Linear({sc['width']}, {sc['width']}), batch {sc['batch']}, "
            f"{_cap_label(sc['bucket_cap_mb'])}")
    title = "Modelled backward (cost model, this machine's constants)"
    titles = textwrap.wrap(title, 40) if narrow else [title]
    body = [_text(pad, 20 + 17 * i, t, extra=' font-weight="bold"') for i, t in enumerate(titles)]
    top = 17 * (len(titles) - 1)
    body.append(_text(pad, 38 + top, head, "fig-text-small"))
    y = 62 + top
    body.append(_text(pad, y, "backward compute, last layer first", "fig-text-small"))
    y += 6
    for k, lay in enumerate(tl["layers"]):
        x0, x1 = x(lay["start_ms"]), x(lay["end_ms"])
        body.append(f'<rect class="fig-box{"-primary" if k % 2 == 0 else ""}" x="{x0:.1f}" '
                    f'y="{y}" width="{x1 - x0:.1f}" height="22"><title>layer {lay["layer"]}: '
                    f'{lay["start_ms"]:.2f} to {lay["end_ms"]:.2f} ms</title></rect>')
        if x1 - x0 >= 26:
            body.append(_text((x0 + x1) / 2, y + 15, f"L{lay['layer']}", "fig-mono", "middle"))
    y += 44
    body.append(_text(pad, y, "all-reduces one at a time, as with NCCL", "fig-text-small"))
    y += 6
    for b in tl["buckets"]:
        x0, x1 = x(b["start_ms"]), x(b["done_ms"])
        if b["start_ms"] > b["launch_ms"]:  # launched, waiting for the previous all-reduce
            body.append(f'<line class="fig-line-dashed" x1="{x(b["launch_ms"]):.1f}" '
                        f'y1="{y + 11}" x2="{x0:.1f}" y2="{y + 11}"/>')
        body.append(f'<rect class="fig-fill-{b["index"] % 4 + 1}" x="{x0:.1f}" y="{y}" '
                    f'width="{max(x1 - x0, 1.5):.1f}" height="22"><title>bucket {b["index"]}, '
                    f'{b["bytes"]} bytes: launched {b["launch_ms"]:.2f} ms, done '
                    f'{b["done_ms"]:.2f} ms</title></rect>')
    y += 40
    end = tl["compute_ms"]
    body.append(f'<line class="fig-line-dashed" x1="{x(end):.1f}" y1="{66 + top}" '
                f'x2="{x(end):.1f}" y2="{y - 12}"/>')
    # Axis: 0, the end of compute, the end of backward.
    body.append(f'<line class="fig-axis" x1="{pad}" y1="{y}" x2="{width - pad}" y2="{y}"/>')
    body.append(_text(pad, y + 16, "0 ms", "fig-text-small"))
    body.append(_text(width - pad, y + 16, f"{t_top:.1f} ms", "fig-text-small", "end"))
    y += 38
    legend = (f"backward {t_top:.1f} ms: compute {tl['compute_ms']:.1f} ms, then "
              f"{tl['exposed_ms']:.1f} ms of exposed all-reduce; "
              f"{len(tl['buckets'])} bucket{'s' if len(tl['buckets']) != 1 else ''} "
              "(coloured bars), dashed line: compute ends")
    lines = textwrap.wrap(legend, 50) if narrow else [legend]
    for ln in lines:
        body.append(_text(pad, y, ln, "fig-text-small"))
        y += 16
    desc = (f"The cost model's backward for {head}: each layer's backward in turn from the last "
            f"layer, and the all-reduce of each bucket, which starts when its last gradient is "
            f"ready and the previous all-reduce is done, as on NCCL's one stream. Backward takes "
            f"{t_top:.1f} ms, of which {tl['exposed_ms']:.1f} ms is communication after the "
            f"compute ends.")
    return _svg(fig_id, width, int(y), "DDP bucket timeline (cost model)", desc, body, narrow)


def static_attributes(traces: dict) -> str:
    """The model's constants as attributes of the interactive <figure>, which the post writes
    out and the script reads (a test checks the post against this)."""
    return " ".join(f'data-{k.replace("_", "-")}="{v!r}"' for k, v in traces["constants"].items())


# ---------------------------------------------------------------- the map (no data)

# The map is drawn narrow (500 units) with 14-16 unit text so that it stays legible when a phone
# scales it to ~340 CSS pixels. Text sizes are set with font-size on plain fig-text labels (the
# fig-text-small class would force 11px).
_MAP_W, _MAP_PAD, _MAP_GAP, _MAP_NARROW_W = 500, 14, 12, NARROW_W
_ARROW = f'marker-end="url(#{SLUG}-map-arrow)"'


def _mtext(x: float, y: float, s: str, size: int, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return _text(x, y, s, extra=f' font-size="{size}"{weight}')


def _mbox(body: list[str], x: float, y: float, w: float, cls: str, head: str | None,
          lines: list[str], narrow: bool = False) -> float:
    """A box with an optional bold head and body lines; returns its height."""
    rows = ([(head, True)] if head else []) + [(ln, False) for ln in lines]
    step, sizes = (17, (14, 13)) if narrow else (19, (15, 14))
    h = 22 + step * (len(rows) - 1) + 11
    body.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/>')
    for i, (s, bold) in enumerate(rows):
        if s:
            body.append(_mtext(x + 10, y + 22 + step * i, s, sizes[0] if bold else sizes[1], bold))
    return h


def _mcolumn(body: list[str], y: float, boxes: list[tuple[str, str | None, list[str]]]) -> float:
    """The narrow map's row: the boxes one under the other, full width, each line rewrapped,
    an arrow between consecutive ones; returns the bottom."""
    x, w = _MAP_PAD, _MAP_NARROW_W - 2 * _MAP_PAD
    for i, (cls, head, lines) in enumerate(boxes):
        if i:
            body.append(f'<line class="fig-line" x1="{_MAP_NARROW_W / 2}" y1="{y}" '
                        f'x2="{_MAP_NARROW_W / 2}" y2="{y + 14}" {_ARROW}/>')
            y += 16
        text = [part for line in lines for part in textwrap.wrap(line, 42)]
        y += _mbox(body, x, y, w, cls, head, text, narrow=True)
    return y


def _mrow(body: list[str], y: float, boxes: list[tuple[str, str | None, list[str]]]) -> float:
    """One row of one (full width) or two (half width) boxes; returns the row's bottom."""
    full = _MAP_W - 2 * _MAP_PAD
    w = full if len(boxes) == 1 else (full - _MAP_GAP) / 2
    n_lines = max(len(lines) + (1 if head else 0) for _, head, lines in boxes)
    x, bottom = float(_MAP_PAD), y
    for i, (cls, head, lines) in enumerate(boxes):
        pad = [""] * (n_lines - len(lines) - (1 if head else 0))  # equal heights in a row
        bottom = y + _mbox(body, x, y, w, cls, head, lines + pad)
        if i < len(boxes) - 1:
            mid = y + 30
            body.append(f'<line class="fig-line" x1="{x + w}" y1="{mid}" x2="{x + w + _MAP_GAP}" '
                        f'y2="{mid}" {_ARROW}/>')
        x += w + _MAP_GAP
    return bottom


def render_map(narrow: bool = False) -> str:
    """The overview figure: construction, forward, backward, optimizer step. Narrow: one
    column, every box full width."""
    fig_id = f"{SLUG}-map"
    body = [f'<defs><marker id="{fig_id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path '
            'class="fig-arrow" d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    bands = [
        ("1  DDP(model): once", [
            [("fig-box-primary", "verify shapes", ["allgather parameter count,",
                                                   "broadcast sizes + strides"]),
             ("fig-box-primary", "sync state", ["broadcast params + buffers",
                                                "from rank 0"])],
            [("fig-box-primary", "assign buckets", ["one bucket, unless",
                                                    "find_unused_parameters",
                                                    "or bucket_cap_mb_list"]),
             ("fig-box-primary", "build the Reducer", ["post-hook on every",
                                                       "AccumulateGrad node;",
                                                       "then the Logger"])],
        ]),
        ("2  forward(): every step", [
            [("fig-box-accent", "_pre_forward", [
                "every forward: prior reduction must have finished",
                "rebuild buckets once: forward 2 (3 with static_graph)",
                "broadcast buffers from rank 0, if the module has any"])],
            [("fig-box", "module.forward", ["your model; torch.compile",
                                            "cuts it at bucket bounds"]),
             ("fig-box", "_post_forward", ["prepare_for_backward;",
                                           "find_unused: walk graph"])],
        ]),
        ("3  loss.backward(): every step", [
            [("fig-box", "autograd_hook(i)", ["per gradient: copy it,",
                                              "÷ world size, into bucket"]),
             ("fig-box-ok", "bucket full", ["all-reduce in index order,",
                                            "async: overlaps backward"])],
            [("fig-box-warn", "finalize_backward (engine callback)", [
                "waits on every bucket's future, copies into .grad"])],
        ]),
        ("4  optimizer.step()", [
            [("fig-box", None, ["same averaged gradients on every rank, same update:",
                                "parameters are not re-broadcast between steps"])],
        ]),
    ]
    width = _MAP_NARROW_W if narrow else _MAP_W
    y = 0.0
    for k, (title, rows) in enumerate(bands):
        if k:
            body.append(f'<line class="fig-line-accent" x1="{width / 2}" y1="{y + 2}" '
                        f'x2="{width / 2}" y2="{y + 26}" {_ARROW}/>')
            y += 24
        body.append(_mtext(_MAP_PAD, y + 24, title, 15 if narrow else 16, bold=True))
        y += 36
        for boxes in rows:
            y = (_mcolumn(body, y, boxes) if narrow else _mrow(body, y, boxes)) + 10
    height = int(y + 4)
    desc = ("Four bands. Construction runs once: verify parameter shapes, broadcast parameters "
            "and buffers from rank 0, assign buckets (one bucket unless find_unused_parameters "
            "or bucket_cap_mb_list is given), build the C++ Reducer and the logger. Each "
            "forward: pre-forward (check that the previous reduction finished, rebuild buckets "
            "once, broadcast buffers if there are any), "
            "the module forward, post-forward (prepare for backward). Each backward: a hook "
            "after every AccumulateGrad copies the gradient into its bucket, full buckets "
            "launch all-reduces in index order while backward continues, and a final engine "
            "callback waits for them and writes the averaged gradients. Then the optimizer "
            "step applies the same update on every rank.")
    return _svg(fig_id, width, height, "Map of DistributedDataParallel: construction, forward, "
                "backward, optimizer step", desc, body, narrow)


def outputs() -> dict[str, str]:
    timeline = json.loads((FIG_DIR / "timeline.json").read_text())
    buckets = json.loads((FIG_DIR / "buckets.json").read_text())
    traces = bucket_timeline_traces(json.loads((FIG_DIR / "sweep.json").read_text()))
    return {"map.svg": render_map(), "map-narrow.svg": render_map(narrow=True),
            "timeline.svg": render_timeline(timeline),
            "timeline-narrow.svg": render_timeline(timeline, narrow=True),
            "tail.svg": render_tail(timeline), "tail-narrow.svg": render_tail(timeline, narrow=True),
            "buckets.svg": render_buckets(buckets),
            "buckets-narrow.svg": render_buckets(buckets, narrow=True),
            "bucket-timeline.json": json.dumps(traces, indent=1) + "\n",
            "bucket-timeline.svg": render_bucket_timeline(traces["scenarios"][0]),
            "bucket-timeline-narrow.svg": render_bucket_timeline(traces["scenarios"][0], True)}


def main() -> None:
    for name, svg in outputs().items():
        (FIG_DIR / name).write_text(svg)
        print(f"wrote {FIG_DIR.relative_to(ROOT) / name}")


if __name__ == "__main__":
    main()
