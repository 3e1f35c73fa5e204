"""Draw the post's buffer-lifetime figures from the captured mlp wrapper (no torch needed).

    python examples/torch_compile_deep_dive_inductor/figures.py [--out DIR]

lifetimes.json          the timeline lifetimes.py reads out of capture/mlp_call.txt
lifetimes.svg           the static lifetime chart: one row per line of the mlp wrapper's call(),
                        one column per storage, a bar per buffer name that owns the storage
lifetimes-narrow.svg    the same chart laid out for a phone (350 units wide)
lifetime-explorer.html  the interactive timeline's content: a table with one row per line and
                        the state after it (docs/javascripts/ifig/buffer-lifetimes.js steps
                        through it; without JavaScript the table itself is the figure)
lifetime-traces.json    golden traces for that figure's browser test: for each scenario of clicks
                        and key presses, the state after each one, from the same model

Both are deterministic, so a test can compare them with the committed files. The chart is drawn
here rather than with examples/common/svgplot.py, whose line and bar plots have no lane chart;
it uses the same palette classes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
POST_DIR = HERE.parents[1] / "docs" / "blog" / "posts" / "torch-compile-deep-dive-inductor"
FIG_ID = "torch-compile-deep-dive-inductor-lifetimes"


def _sibling(name: str):
    """Import a module of this folder under a post-specific name (no clash with other posts)."""
    full = f"torch_compile_deep_dive_inductor_{name}"
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, HERE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module  # dataclasses look their module up while executing
        spec.loader.exec_module(module)
    return sys.modules[full]


lifetimes = _sibling("lifetimes")


def short(line: str) -> str:
    """A short label for one wrapper line (the chart's row label)."""
    if m := re.match(r"^(buf\d+) = empty_strided_cpu", line):
        return f"{m.group(1)} = empty_strided_cpu(...)"
    if m := re.match(r"^(buf\d+) = (buf\d+); del", line):
        return f"{m.group(1)} = {m.group(2)}; del {m.group(2)}"
    if m := re.match(r"^extern_kernels\.(\w+)\((.*)\)$", line):
        return f"mm({m.group(2).replace(', out=', ' -> ')})" if m.group(1) == "mm" else line
    if m := re.match(r"^(cpp_fused_\w+?)_(\d+)\((.*)\)$", line):
        name = m.group(1).replace("cpp_fused_", "fused_")
        return f"{name}_{m.group(2)}({m.group(3)})"
    if line.endswith(" = args") and line.count(",") > 2:
        return line.split(", ")[0] + ", ..., " + line.split(", ")[-1]
    if line.startswith("assert_size_stride("):
        return "assert_size_stride(" + line.split("(", 1)[1].split(",", 1)[0] + ", ...)"
    return line


def columns(data: dict) -> list[str]:
    """Storage ids in the order the chart shows them: inputs first, then allocations."""
    ins = [s for s in data["storages"] if s.startswith("in:")]
    return ins + [s for s in data["storages"] if not s.startswith("in:")]


def rows(data: dict) -> list[int]:
    """The lines the chart shows: all but the asserts and the source-node comments."""
    return [i for i, k in enumerate(data["kinds"]) if k not in ("assert", "comment")]


def lifetime_svg(data: dict) -> str:
    cols = columns(data)
    shown = rows(data)
    row_of = {line: r for r, line in enumerate(shown)}
    left, col_w, top, row_h = 250, 46, 92, 22
    width = left + col_w * len(cols) + 10
    height = top + row_h * len(shown) + 56
    out = [
        f'<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="{FIG_ID}-title {FIG_ID}-desc">',
        f'<title id="{FIG_ID}-title">Buffer lifetimes in the generated call() of mlp</title>',
        f'<desc id="{FIG_ID}-desc">Rows are the lines of the wrapper function in order, columns '
        "are storages: four graph inputs and the allocations Inductor makes. A bar is a buffer name "
        "holding a storage, from the line that creates the name to the line that deletes it or "
        "hands the storage to the next name. Dots mark kernels that use the buffer.</desc>",
        f'<text class="fig-text" x="{width / 2:.0f}" y="20" text-anchor="middle" '
        'font-weight="bold">Who holds which storage, line by line</text>',
    ]
    for c, sid in enumerate(cols):
        x = left + c * col_w + col_w / 2
        label = sid[3:].replace("_1", "") if sid.startswith("in:") else sid
        out.append(f'<text class="fig-text-small fig-mono" x="{x:.0f}" y="{top - 30}" '
                   f'text-anchor="middle">{escape(label)}</text>')
        out.append(f'<text class="fig-text-small" x="{x:.0f}" y="{top - 14}" '
                   f'text-anchor="middle">{data["storages"][sid] // 1024 or data["storages"][sid]}'
                   f'{" KiB" if data["storages"][sid] >= 1024 else " B"}</text>')
    out.append(f'<text class="fig-text-small" x="{left + 2 * col_w:.0f}" y="{top - 50}" '
               'text-anchor="middle">graph inputs</text>')
    n_in = sum(1 for s in cols if s.startswith("in:"))
    out.append(f'<text class="fig-text-small" x="{left + (n_in + (len(cols) - n_in) / 2) * col_w:.0f}" '
               f'y="{top - 50}" text-anchor="middle">allocated by the wrapper</text>')
    for r, line in enumerate(shown):
        y = top + r * row_h
        if r % 2 == 0:
            out.append(f'<rect class="fig-grid" x="4" y="{y}" width="{width - 8}" height="{row_h}" '
                       'fill-opacity="0.08" stroke="none"/>')
        out.append(f'<text class="fig-text-small fig-mono" x="8" y="{y + 15}">'
                   f'{escape(short(data["lines"][line]))}</text>')
    owners: dict[str, int] = {}
    for name, buf in data["buffers"].items():
        c = cols.index(buf["storage"])
        k = owners.get(buf["storage"], 0)
        owners[buf["storage"]] = k + 1
        fill = "fig-fill-4" if buf["storage"].startswith("in:") else ("fig-fill-1", "fig-fill-2")[k % 2]
        r0 = row_of.get(buf["born"], 0)
        died = buf["died"] if buf["died"] is not None else shown[-1]
        r1 = row_of[died] if died in row_of else len(shown) - 1
        x = left + c * col_w + 6
        y0, y1 = top + r0 * row_h + 3, top + (r1 + 1) * row_h - 3
        if buf["how_it_died"] == "reused":
            y1 = top + r1 * row_h + row_h / 2   # the next owner takes over on the same line
        if buf["reused_from"]:
            y0 = top + r0 * row_h + row_h / 2
        out.append(f'<rect class="{fill}" x="{x}" y="{y0:.1f}" width="{col_w - 12}" '
                   f'height="{max(y1 - y0, 4):.1f}" rx="3" fill-opacity="0.75"/>')
        out.append(f'<text class="fig-text-small fig-mono" x="{x + (col_w - 12) / 2:.0f}" '
                   f'y="{y0 + 12:.1f}" text-anchor="middle" font-weight="bold">'
                   f'{escape(name.replace("_1", ""))}</text>')
        for use in buf["uses"]:
            if use in row_of:
                cy = top + row_of[use] * row_h + row_h / 2 + (4 if use == buf["born"] else 0)
                out.append(f'<circle class="fig-text" cx="{x + col_w - 18}" cy="{cy:.1f}" r="3"/>')
        if buf["how_it_died"] in ("returned", "end of call()"):
            out.append(f'<text class="fig-text-small" x="{x + (col_w - 12) / 2:.0f}" '
                       f'y="{y1 + 14:.1f}" text-anchor="middle">'
                       f'{"returned" if buf["how_it_died"] == "returned" else "no del"}</text>')
    out.append(f'<text class="fig-text-small fig-text-muted" x="8" y="{height - 10}">'
               "Bar: a name owns the storage. Dot: a kernel reads or writes it. "
               "Alternate shades: the next owner of the same storage.</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def wrap(label: str, width: int = 22) -> list[str]:
    """A row label broken at spaces into lines of at most WIDTH characters (a token is never cut)."""
    lines: list[str] = []
    for word in label.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _size(nbytes: int) -> str:
    return f"{nbytes // 1024} KiB" if nbytes >= 1024 else f"{nbytes} B"


def lifetime_svg_narrow(data: dict) -> str:
    """The same chart laid out for a phone's column (350 units): row labels wrapped onto two
    lines, column headers written vertically, input bars named by their column header."""
    fid = f"{FIG_ID}-narrow"
    cols = columns(data)
    shown = rows(data)
    row_of = {line: r for r, line in enumerate(shown)}
    n_in = sum(1 for s in cols if s.startswith("in:"))
    left, in_w, alloc_w, top, row_h = 164, 20, 26, 150, 30
    x_of = [left + c * in_w if c < n_in else left + n_in * in_w + (c - n_in) * alloc_w
            for c in range(len(cols))]
    w_of = [in_w if c < n_in else alloc_w for c in range(len(cols))]
    width = 350   # a 390 px phone's column is about 357 px: every label at 11 units stays >= 11 px
    height = top + row_h * len(shown) + 110
    out = [
        f'<svg class="fig-svg fig-svg--narrow" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="{fid}-title {fid}-desc">',
        f'<title id="{fid}-title">Buffer lifetimes in the generated call() of mlp</title>',
        f'<desc id="{fid}-desc">Rows are the lines of the wrapper function in order, columns are '
        "storages: four graph inputs, named at the top of their columns, and the allocations A to "
        "D that Inductor makes. A bar is a buffer name holding a storage, from the line that "
        "creates the name to the line that deletes it or hands the storage to the next name. Dots "
        "mark kernels that use the buffer.</desc>",
        f'<text class="fig-text" x="{width / 2:.0f}" y="20" text-anchor="middle" '
        'font-weight="bold">Who holds which storage, line by line</text>',
        f'<text class="fig-text-small" x="{left + n_in * in_w / 2:.0f}" y="42" '
        'text-anchor="middle">inputs</text>',
        f'<text class="fig-text-small" x="{left + n_in * in_w + 2 * alloc_w:.0f}" y="42" '
        'text-anchor="middle">allocated</text>',
    ]
    for c, sid in enumerate(cols):
        x = x_of[c] + w_of[c] / 2 + 4
        label = sid[3:] if sid.startswith("in:") else sid
        out.append(f'<text class="fig-text-small" transform="translate({x:.1f} {top - 8}) '
                   f'rotate(-90)"><tspan class="fig-mono">{escape(label)}</tspan> · '
                   f'{_size(data["storages"][sid])}</text>')
    for r, line in enumerate(shown):
        y = top + r * row_h
        if r % 2 == 0:
            out.append(f'<rect class="fig-grid" x="2" y="{y}" width="{width - 4}" height="{row_h}" '
                       'fill-opacity="0.08" stroke="none"/>')
        parts = wrap(short(data["lines"][line]))
        first = y + (20 if len(parts) == 1 else 13)
        for k, part in enumerate(parts):
            out.append(f'<text class="fig-text-small fig-mono" x="4" y="{first + 13 * k}">'
                       f'{escape(part)}</text>')
    owners: dict[str, int] = {}
    for name, buf in data["buffers"].items():
        c = cols.index(buf["storage"])
        k = owners.get(buf["storage"], 0)
        owners[buf["storage"]] = k + 1
        is_input = buf["storage"].startswith("in:")
        fill = "fig-fill-4" if is_input else ("fig-fill-1", "fig-fill-2")[k % 2]
        r0 = row_of.get(buf["born"], 0)
        died = buf["died"] if buf["died"] is not None else shown[-1]
        r1 = row_of[died] if died in row_of else len(shown) - 1
        x, bar_w = x_of[c] + 3, w_of[c] - 6
        y0, y1 = top + r0 * row_h + 3, top + (r1 + 1) * row_h - 3
        if buf["how_it_died"] == "reused":
            y1 = top + r1 * row_h + row_h / 2
        if buf["reused_from"]:
            y0 = top + r0 * row_h + row_h / 2
        out.append(f'<rect class="{fill}" x="{x:.1f}" y="{y0:.1f}" width="{bar_w:.1f}" '
                   f'height="{max(y1 - y0, 4):.1f}" rx="3" fill-opacity="0.75"/>')
        if not is_input:
            out.append(f'<text class="fig-text-small" x="{x + bar_w / 2:.1f}" y="{y0 + 13:.1f}" '
                       f'text-anchor="middle" font-weight="bold">{escape(name)}</text>')
        for use in buf["uses"]:
            if use in row_of:
                cy = top + row_of[use] * row_h + row_h / 2 + (6 if use == buf["born"] else 0)
                out.append(f'<circle class="fig-text" cx="{x + bar_w / 2:.1f}" cy="{cy:.1f}" r="3"/>')
        if buf["how_it_died"] in ("returned", "end of call()"):
            word = "returned" if buf["how_it_died"] == "returned" else "no del"
            out.append(f'<text class="fig-text-small" transform="translate({x + bar_w / 2 + 4:.1f} '
                       f'{y1 + 6:.1f}) rotate(90)">{word}</text>')
    legend = ["Bar: a name owns the storage.", "Dot: a kernel reads or writes it.",
              "Alternate shades: the next owner", "of the same storage."]
    for k, text in enumerate(legend):
        out.append(f'<text class="fig-text-small fig-text-muted" x="4" '
                   f'y="{height - 62 + 15 * k}">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def states(data: dict) -> list[dict]:
    """The state after each line of call(): who holds each allocated storage, the event, the bytes."""
    cols = [s for s in columns(data) if not s.startswith("in:")]
    result = []
    for i in range(len(data["lines"])):
        holders = []
        for sid in cols:
            name = ""
            for bname, buf in data["buffers"].items():
                died = buf["died"] if buf["died"] is not None else len(data["lines"])
                ends_here_by_reuse = buf["how_it_died"] == "reused" and died == i
                if buf["storage"] == sid and buf["born"] <= i and (died > i or (
                        died == i and buf["how_it_died"] in ("returned", "end of call()"))) \
                        and not ends_here_by_reuse:
                    name = bname
            holders.append(name)
        events = []
        for bname, buf in data["buffers"].items():
            if buf["born"] == i and not bname.startswith("arg"):
                events.append(f"{bname} reuses {buf['reused_from']}" if buf["reused_from"]
                              else f"{bname} allocated")
            if buf["died"] == i and buf["how_it_died"] == "del":
                events.append(f"{bname} freed")
            if i in buf["uses"]:
                events.append(f"{bname} used")
            if buf["died"] == i and buf["how_it_died"] in ("returned", "end of call()"):
                events.append(f"{bname} {buf['how_it_died']}")
        result.append({"step": i, "kind": data["kinds"][i], "event": "; ".join(events)
                       or data["kinds"][i], "live_bytes": data["live_bytes"][i],
                       "holders": ",".join(holders)})
    return result


def explorer_html(data: dict) -> str:
    """One table row per wrapper line with the state after it, as data-* attributes."""
    cols = [s for s in columns(data) if not s.startswith("in:")]
    out = ['<div class="ifig-static">',
           '<div style="overflow-x: auto" tabindex="0" role="region" '
           'aria-label="Buffer lifetimes, line by line (scrolls sideways)">',
           '<table class="bl-table">',
           "<caption>State after each line of <code>call()</code>: which name holds each storage "
           "Inductor allocated, and the bytes they add up to</caption>",
           "<thead><tr><th scope=\"col\">#</th><th scope=\"col\">line</th><th scope=\"col\">event</th>"
           + "".join(f'<th scope="col">{c}</th>' for c in cols)
           + '<th scope="col">live bytes</th></tr></thead>', "<tbody>"]
    for line, state in zip(data["lines"], states(data), strict=True):
        i = state["step"]
        attrs = (f'data-line="{i}" data-kind="{state["kind"]}" '
                 f'data-live-bytes="{state["live_bytes"]}" '
                 f'data-holders="{escape(state["holders"])}"')
        out.append(f"<tr {attrs}><td>{i}</td><td><code>{escape(line)}</code></td>"
                   f"<td>{escape(state['event'])}</td>"
                   + "".join(f"<td>{escape(h) or '&middot;'}</td>" for h in state["holders"].split(","))
                   + f"<td>{state['live_bytes']}</td></tr>")
    out += ["</tbody>", "</table>", "</div>", "</div>"]
    return "\n".join(out) + "\n"


# What a reader does to the interactive figure (docs/javascripts/ifig/buffer-lifetimes.js), as the
# browser test replays it: a button's accessible name, or a key pressed in the listing.
SCENARIOS = {
    "next through every line": None,   # "Next line" until the last line
    "last, then back": ["Last line", "Previous line", "Previous line", "First line", "Next line"],
    "keys in the listing": ["key:End", "key:ArrowUp", "key:ArrowUp", "key:Home", "key:ArrowDown",
                            "key:ArrowDown", "key:ArrowDown"],
}
_MOVES = {"First line": lambda i, n: 0, "Previous line": lambda i, n: i - 1,
          "Next line": lambda i, n: i + 1, "Last line": lambda i, n: n - 1,
          "key:Home": lambda i, n: 0, "key:ArrowUp": lambda i, n: i - 1,
          "key:ArrowDown": lambda i, n: i + 1, "key:End": lambda i, n: n - 1}


def traces(data: dict) -> dict:
    """Golden traces: for each scenario, the figure's state after each action, from the model."""
    per_line = states(data)
    n = len(per_line)
    out = {"step_count": n, "initial": per_line[0], "scenarios": []}
    for name, actions in SCENARIOS.items():
        actions = actions or ["Next line"] * (n - 1)
        index, after = 0, []
        for action in actions:
            index = max(0, min(n - 1, _MOVES[action](index, n)))
            after.append({"action": action, **per_line[index]})
        out["scenarios"].append({"name": name, "states": after})
    return out


def write_all(out: Path) -> None:
    body = (out / "capture" / "mlp_call.txt").read_text(encoding="utf-8").splitlines()
    data = lifetimes.timeline(body, lifetimes.input_sizes_from_asserts(body)).to_json()
    (out / "lifetimes.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "lifetimes.svg").write_text(lifetime_svg(data), encoding="utf-8")
    (out / "lifetimes-narrow.svg").write_text(lifetime_svg_narrow(data), encoding="utf-8")
    (out / "lifetime-explorer.html").write_text(explorer_html(data), encoding="utf-8")
    (out / "lifetime-traces.json").write_text(json.dumps(traces(data), indent=1) + "\n",
                                              encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=POST_DIR)
    write_all(parser.parse_args(argv).out)


if __name__ == "__main__":
    sys.exit(main())
