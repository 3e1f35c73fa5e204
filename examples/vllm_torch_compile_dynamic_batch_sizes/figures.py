"""Draw the post's GPU figures from the measurements in its figure folder, and write the
capture-size calculator's golden traces.

Run:  python examples/vllm_torch_compile_dynamic_batch_sizes/figures.py [--data FILE] [--out DIR]

The default data is docs/blog/posts/vllm-torch-compile-dynamic-batch-sizes/gpu-h200.json: numbers
taken on one NVIDIA H200 with torch 2.11.0+cu130 (see its "about" field). gpu_capture.py writes a
file of the same shape at whatever version it runs under; pass it as --data to redraw. Rendering
is a pure function of the JSON, so a test regenerates every SVG and compares it byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ on the path
from common.svgplot import Series, bar_chart, line_plot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SLUG = "vllm-torch-compile-dynamic-batch-sizes"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / SLUG
DATA = FIG_DIR / "gpu-h200.json"
TRACES = FIG_DIR / "calculator-traces.json"
SPEEDUP_BATCHES = (1, 8, 64, 256, 512)


def _label(data: dict) -> str:
    m = data["machine"]
    return f"{m['gpu']}, torch {m['torch']}"


def step_times(data: dict, *, narrow: bool = False) -> str:
    """Per-step time against tokens in the step: at each capture size, eager launches and the
    replay of its graph; at batches between sizes, eager launches and the replay of the next
    size's graph (the padded batch)."""
    cs = data["capture_sizes"]
    per, pad = cs["per_size"], cs["padding"]
    series = [
        Series("eager", [r["batch"] for r in per], [r["eager_us"] for r in per]),
        Series("replay", [r["batch"] for r in per], [r["replay_us"] for r in per]),
        Series("eager, uncaptured", [p["batch"] for p in pad], [p["eager_exact_us"] for p in pad]),
        Series("replay, padded", [p["batch"] for p in pad], [p["replay_padded_us"] for p in pad]),
    ]
    eager = sorted([(r["batch"], r["eager_us"]) for r in per]
                   + [(p["batch"], p["eager_exact_us"]) for p in pad])
    sizes = ", ".join(str(s) for s in cs["sizes"])
    pads = "; ".join(f"{p['batch']} replays the {p['padded_to']} graph in {p['replay_padded_us']:.0f} µs "
                     f"against {p['eager_exact_us']:.0f} µs eager" for p in cs["padding"])
    return line_plot(
        series, fig_id=f"{SLUG}-gpu-step", narrow=narrow, log_x=True,
        title=f"One decode-like step per batch size ({_label(data)})",
        desc=(f"{cs['model']}, measured by {cs['script']} on {_label(data)}. Graphs captured for "
              f"{len(cs['sizes'])} sizes ({sizes}), largest first into one shared pool of "
              f"{cs['graph_pool_MiB']:.0f} MiB, in {cs['total_capture_s'] * 1e3:.0f} ms together. Replay "
              + ", ".join(f"{r['batch']}: {r['replay_us']:.0f} µs" for r in cs["per_size"])
              + ". Eager " + ", ".join(f"{b}: {t:.0f} µs" for b, t in eager) + f". Padding: {pads}."),
        x_label="tokens in the step", y_label="microseconds per step")


def speedups(data: dict, *, narrow: bool = False) -> str:
    """Eager time over graph-replay time at five batch sizes, for each run in the data."""
    groups = []
    if "cuda_graph_decode" in data:
        rows = {r["batch"]: r for r in data["cuda_graph_decode"]["rows"]}
        groups.append(Series(f"{data['cuda_graph_decode']['script']}, one graph",
                             list(SPEEDUP_BATCHES),
                             [rows[b]["eager_us"] / rows[b]["graph_us"] for b in SPEEDUP_BATCHES]))
    per = {r["batch"]: r for r in data["capture_sizes"]["per_size"]}
    groups.append(Series(f"{data['capture_sizes']['script']}, shared pool", list(SPEEDUP_BATCHES),
                         [per[b]["eager_us"] / per[b]["replay_us"] for b in SPEEDUP_BATCHES]))
    desc = "; ".join(f"{g.name}: " + ", ".join(f"batch {b} {v:.2f}x" for b, v in zip(g.xs, g.ys, strict=True))
                     for g in groups)
    return bar_chart(
        [str(b) for b in SPEEDUP_BATCHES], groups, fig_id=f"{SLUG}-gpu-speedup", narrow=narrow,
        title=f"Replay speed-up over eager launches, per batch size ({_label(data)})",
        desc=f"Eager time divided by CUDA graph replay time, per batch size, {_label(data)}. {desc}.",
        y_label="eager / replay")


# The capture-size calculator's scenarios: settings as the figure's controls take them, and the
# token count typed. calculator_traces() answers each with the miniature's rules, which the tests
# check against vLLM's own functions; the browser test drives the figure through the same
# scenarios and compares what it shows.
DEFAULTS = {"max_num_seqs": 1024, "max_num_batched_tokens": 8192, "cudagraph_mode": "FULL_AND_PIECEWISE",
            "compile_sizes": [], "uniform": False, "blackwell": False}
CALCULATOR_SCENARIOS = [
    {"tokens": 13},
    {"tokens": 13, "uniform": True},
    {"tokens": 1, "uniform": True},
    {"tokens": 300},
    {"tokens": 513},
    {"tokens": 600, "uniform": True},
    {"tokens": 5, "uniform": True, "compile_sizes": [8]},
    {"tokens": 5, "compile_sizes": [8], "cudagraph_mode": "FULL_DECODE_ONLY"},
    {"tokens": 40, "uniform": True, "cudagraph_mode": "FULL_DECODE_ONLY", "max_num_seqs": 32},
    {"tokens": 60, "uniform": True, "max_num_seqs": 64},    # padded to 64 = max_num_seqs: FULL
    {"tokens": 100, "cudagraph_mode": "FULL"},
    {"tokens": 100, "cudagraph_mode": "NONE"},
    {"tokens": 900, "blackwell": True},
    {"tokens": 13, "uniform": True, "max_num_seqs": 8, "max_num_batched_tokens": 16},
    {"tokens": 20, "max_num_seqs": 8, "max_num_batched_tokens": 16},
]


def _mini():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from measure import _mini as load  # noqa: PLC0415  (the miniature, loaded once under one name)
    return load()


def calculator_traces() -> list[dict]:
    mini = _mini()
    out = []
    for scenario in CALCULATOR_SCENARIOS:
        s = {**DEFAULTS, **scenario}
        n = min(s["tokens"], s["max_num_batched_tokens"])   # the figure caps the typed count
        sizes = mini.default_capture_sizes(s["max_num_seqs"], s["max_num_batched_tokens"],
                                           blackwell=s["blackwell"])
        mode, seen = mini.runtime_mode(n, sizes, s["cudagraph_mode"], s["uniform"], s["max_num_seqs"])
        artifact = mini.artifact_for(seen, s["compile_sizes"], s["max_num_batched_tokens"])
        out.append({"settings": s, "expect": {
            "num_tokens": n, "num_sizes": len(sizes), "mode": mode,
            "padded": "none" if mode == "NONE" else seen,
            "artifact": f"Range({seen}, {seen})" if artifact.startswith("size")
                        else f"Range(1, {s['max_num_batched_tokens']})"}})
    return out


def outputs(data_path: Path = DATA) -> dict[str, str]:
    data = json.loads(data_path.read_text(encoding="utf-8"))
    out = {}
    for name, draw in (("gpu-step", step_times), ("gpu-speedup", speedups)):
        out[f"{name}.svg"] = draw(data)
        out[f"{name}-narrow.svg"] = draw(data, narrow=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=FIG_DIR)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, svg in outputs(args.data).items():
        (args.out / name).write_text(svg, encoding="utf-8")
        print("wrote", args.out / name)
    if args.out == FIG_DIR:
        TRACES.write_text(json.dumps(calculator_traces(), indent=1) + "\n", encoding="utf-8")
        print("wrote", TRACES)


if __name__ == "__main__":
    main()
