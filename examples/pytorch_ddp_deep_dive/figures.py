"""Render the post's figures: the map, and the plots of the JSON from buckets.py and overlap.py.

Run:  python examples/pytorch_ddp_deep_dive/figures.py

Rendering is a pure function of the committed JSON (docs/blog/posts/pytorch-ddp-deep-dive/
buckets.json and timeline.json), so a test can regenerate every SVG and compare it byte for
byte. To record new data: buckets.py --json-out ..., overlap.py --json-out ..., then this.
"""

from __future__ import annotations

import json
import math
import sys
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ on the path
from common.svgplot import Series, bar_chart  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive"
SLUG = "pytorch-ddp-deep-dive"


def _svg(fig_id: str, width: int, height: int, title: str, desc: str, body: list[str]) -> str:
    head = (f'<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} '
            f'{height}" role="img" aria-labelledby="{fig_id}-title {fig_id}-desc">')
    lines = [head, f'<title id="{fig_id}-title">{escape(title)}</title>',
             f'<desc id="{fig_id}-desc">{escape(desc)}</desc>', *body, "</svg>"]
    return "\n".join(lines) + "\n"


def _text(x: float, y: float, s: str, cls: str = "fig-text", anchor: str = "start",
          extra: str = "") -> str:
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>'
            f"{escape(s)}</text>")


# ---------------------------------------------------------------- timeline (overlap.py data)

def render_timeline(data: dict) -> str:
    """Backward vs bucket all-reduces for iteration 1 (one bucket) and iteration 3 (rebuilt)."""
    fig_id = f"{SLUG}-timeline"
    iters = [it for it in data["iterations"] if it["iteration"] in (1, 3)]
    left, right, width = 150, 24, 760
    t_max = max(it["backward_end_ms"] for it in iters)
    step = 5.0 if t_max <= 40 else 10.0
    t_top = step * math.ceil(t_max / step)

    def x(t: float) -> float:
        return left + t / t_top * (width - left - right)

    body: list[str] = []
    y = 34
    body.append(_text(width / 2, 22, "Gradients ready vs bucket all-reduces (rank 0, measured)",
                      anchor="middle", extra=' font-weight="bold"'))
    for it in iters:
        n_b = len(it["buckets"])
        head = ("Iteration 1: constructor layout, one bucket" if it["iteration"] == 1 else
                f"Iteration {it['iteration']}: rebuilt layout, {n_b} buckets")
        y += 14
        body.append(_text(12, y, head, extra=' font-weight="bold"'))
        y += 12
        top = y
        # Lane: gradient-ready ticks.
        lane = y + 16
        body.append(_text(12, lane + 4, "gradient ready", "fig-text-small"))
        for idx, t in it["grad_ready_ms"]:
            body.append(f'<line class="fig-line-accent" x1="{x(t):.1f}" y1="{lane - 9:.1f}" '
                        f'x2="{x(t):.1f}" y2="{lane + 9:.1f}"><title>param {idx} ready at '
                        f'{t:.2f} ms</title></line>')
            if idx % 2 == 0:  # label the weights (even indices); biases are the unlabelled twin
                body.append(_text(x(t), lane - 12, f"w{idx // 2}", "fig-text-small", "middle"))
        y = lane + 14
        # One lane per bucket: launch -> future completed.
        for bk in it["buckets"]:
            y += 22
            cls = f"fig-fill-{bk['index'] % 4 + 1}"
            layers = sorted({p // 2 for p in bk["params"]})
            what = (f"layers {','.join(map(str, layers))}" if len(layers) > 1
                    else f"layer {layers[0]}")
            body.append(_text(12, y + 4, f"bucket {bk['index']}: {what}", "fig-text-small"))
            x0, x1 = x(bk["launch_ms"]), x(bk["done_ms"])
            body.append(f'<rect class="{cls}" x="{x0:.1f}" y="{y - 7:.1f}" '
                        f'width="{max(x1 - x0, 1.5):.1f}" height="14" rx="2"><title>bucket '
                        f'{bk["index"]}, {bk["bytes"]} bytes: launched {bk["launch_ms"]:.2f} ms, '
                        f'done {bk["done_ms"]:.2f} ms</title></rect>')
        bottom = y + 12
        end = it["backward_end_ms"]
        body.append(f'<line class="fig-line-dashed" x1="{x(end):.1f}" y1="{top - 22:.1f}" '
                    f'x2="{x(end):.1f}" y2="{bottom:.1f}"/>')
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
    body.append(_text((left + width - right) / 2, y + 36,
                      "milliseconds since loss.backward() was called", anchor="middle"))
    height = int(y + 48)
    desc = ("Two timelines from one recorded run. In iteration 1 all eight gradients become "
            "ready before the single bucket's all-reduce starts, and backward returns only "
            "after it finishes. In iteration 3 the rebuilt buckets start their all-reduces "
            "while later layers are still computing gradients.")
    return _svg(fig_id, width, height, "DDP backward timeline", desc, body)


def render_tail(data: dict) -> str:
    """Bar chart: last gradient ready vs backward() return, per iteration (svgplot)."""
    iters = data["iterations"]
    cats = [f"iteration {it['iteration']} ({len(it['buckets'])} bucket"
            f"{'s' if len(it['buckets']) > 1 else ''})" for it in iters]
    last = [max(t for _, t in it["grad_ready_ms"]) for it in iters]
    end = [it["backward_end_ms"] for it in iters]
    return bar_chart(cats, [Series("last gradient ready", [], last),
                            Series("backward() returned", [], end)],
                     fig_id=f"{SLUG}-tail", title="Communication left after the last gradient",
                     desc="For each recorded iteration, the time at which the last gradient was "
                          "ready and the time at which backward() returned, in milliseconds.",
                     y_label="ms since backward() was called")


# ---------------------------------------------------------------- bucket layout (buckets.py data)

def render_buckets(data: dict) -> str:
    fig_id = f"{SLUG}-buckets"
    params = data["params"]
    width, left = 760, 12
    wide, narrow, gap, group_gap = 74, 30, 4, 14

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

    body = [_text(width / 2, 22, "Which gradients share a bucket (Tower: 4 x Linear(512, 512))",
                  anchor="middle", extra=' font-weight="bold"')]
    y = 46
    for label, buckets in rows:
        body.append(_text(left, y, label, "fig-text-small"))
        y += 10
        x = left
        for k, b in enumerate(buckets):
            w = max(sum(wide if i % 2 == 0 else narrow for i in b) + gap * (len(b) + 1), 78)
            cls = "fig-box-primary" if k % 2 == 0 else "fig-box-accent"
            if len(buckets) == 1 and label.startswith("Constructor"):
                cls = "fig-box"
            nbytes = sum(sizes[i] for i in b)
            body.append(f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="44" '
                        f'rx="4"><title>bucket {k}: {nbytes} bytes</title></rect>')
            body.append(_text(x + 4, y + 13, f"b{k} · {kib(nbytes)}", "fig-text-small"))
            px = x + gap
            for i in b:
                pw = wide if i % 2 == 0 else narrow
                body.append(f'<rect class="fig-box" x="{px:.1f}" y="{y + 18:.1f}" width="{pw}" '
                            f'height="20" rx="2"><title>{escape(params[i][0])}: {params[i][1]} '
                            f'bytes</title></rect>')
                body.append(_text(px + pw / 2, y + 32, short(i), "fig-mono", "middle"))
                px += pw + gap
            x += w + group_gap
        y += 62
    body.append(_text(left, y - 4, "n.w / n.b: weight (1 MiB) and bias (2 KiB) of layer n. "
                      "Buckets are drawn in Reducer order: b0 is reduced first.", "fig-text-small"))
    desc = ("Five bucket layouts for the same four-layer model, read from DDP's logging data. "
            "The constructor puts every gradient in one bucket unless find_unused_parameters is "
            "set or bucket_cap_mb_list is given; after the first iteration the buckets are "
            "rebuilt in the order gradients became ready, so bucket 0 holds the last layer.")
    return _svg(fig_id, width, int(y + 8), "DDP bucket layouts", desc, body)


# ---------------------------------------------------------------- the map (no data)

# The map is drawn narrow (500 units) with 14-16 unit text so that it stays legible when a phone
# scales it to ~340 CSS pixels. Text sizes are set with font-size on plain fig-text labels (the
# fig-text-small class would force 11px).
_MAP_W, _MAP_PAD, _MAP_GAP = 500, 14, 12
_ARROW = f'marker-end="url(#{SLUG}-map-arrow)"'


def _mtext(x: float, y: float, s: str, size: int, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return _text(x, y, s, extra=f' font-size="{size}"{weight}')


def _mbox(body: list[str], x: float, y: float, w: float, cls: str, head: str | None,
          lines: list[str]) -> float:
    """A box with an optional bold head and body lines; returns its height."""
    rows = ([(head, True)] if head else []) + [(ln, False) for ln in lines]
    h = 22 + 19 * (len(rows) - 1) + 11
    body.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/>')
    for i, (s, bold) in enumerate(rows):
        if s:
            body.append(_mtext(x + 10, y + 22 + 19 * i, s, 15 if bold else 14, bold))
    return h


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


def render_map() -> str:
    """The overview figure: construction, forward, backward, optimizer step."""
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
    y = 0.0
    for k, (title, rows) in enumerate(bands):
        if k:
            body.append(f'<line class="fig-line-accent" x1="{_MAP_W / 2}" y1="{y + 2}" '
                        f'x2="{_MAP_W / 2}" y2="{y + 26}" {_ARROW}/>')
            y += 24
        body.append(_mtext(_MAP_PAD, y + 24, title, 16, bold=True))
        y += 36
        for boxes in rows:
            y = _mrow(body, y, boxes) + 10
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
    return _svg(fig_id, _MAP_W, height, "Map of DistributedDataParallel: construction, forward, "
                "backward, optimizer step", desc, body)


def outputs() -> dict[str, str]:
    timeline = json.loads((FIG_DIR / "timeline.json").read_text())
    buckets = json.loads((FIG_DIR / "buckets.json").read_text())
    return {"map.svg": render_map(), "timeline.svg": render_timeline(timeline),
            "tail.svg": render_tail(timeline), "buckets.svg": render_buckets(buckets)}


def main() -> None:
    for name, svg in outputs().items():
        (FIG_DIR / name).write_text(svg)
        print(f"wrote {FIG_DIR.relative_to(ROOT) / name}")


if __name__ == "__main__":
    main()
