"""Eager vs torch.compile (Inductor, CPU) on a few representative functions: time per call and
the time the first call spends compiling.

Run from the repository root:

    python examples/torch_compile_101/benchmark.py          # full run: JSON, SVGs, tables
    python examples/torch_compile_101/benchmark.py --quick  # two small cases, to a temp folder
    python examples/torch_compile_101/benchmark.py --plot   # only redraw SVGs + tables from JSON

Method: torch.set_num_threads(2) (the machine has 2 cores); inputs fixed per case; each timing
is the median over `repeats` of a loop of `calls` back-to-back calls (after `warmup` calls),
divided by `calls`, plus the minor page faults per call; the eager and compiled loops
alternate, so both see the same background load (the machine is shared; its load average is
recorded). Compile time is the wall time of
the first call of a fresh torch.compile wrapper: once for a graph Inductor has never seen
("new graph"), and once more after torch._dynamo.reset(), when the FX graph cache and the
AOTAutograd cache hit ("cache hit").
Before the cases, one throwaway compile pays the once-per-process and once-per-cache-directory
costs, reported separately.

The full run starts with a first-compile experiment (skipped with --quick): each scenario is a
new Python process that compiles two graphs it has never seen, with TORCHINDUCTOR_CACHE_DIR and
TMPDIR either fresh or reused from an earlier scenario. TMPDIR matters because the precompiled
cpp_prefix.h header lives in default_cache_dir() (under tempfile.gettempdir()), which ignores
TORCHINDUCTOR_CACHE_DIR. Comparing the scenarios splits the cost of the first compile into what
every new process pays, what every new cache directory pays, and the header; each scenario also
adds up the wall time of the child processes Inductor starts (compiler runs, ISA probes) by kind.

Environment set before torch is imported (so the script imports torch only in main()):
TORCHINDUCTOR_CACHE_DIR (a fresh directory: no graph hits from earlier runs) and
TORCHINDUCTOR_COMPILE_THREADS=1 (compile in this process: with the default on a 2-core machine
a pool of compile worker processes would compete with the timed loops).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SLUG = "torch-compile-101"
OUT = REPO / "docs" / "blog" / "posts" / SLUG
RESULTS = OUT / "benchmark.json"

# Short names: they are the bar chart's category labels.
CASES = ("tiny norm", "rmsnorm", "norm fwd+bwd", "gelu chain", "mlp")
QUICK_CASES = ("tiny norm", "gelu chain")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def make_case(name: str, quick: bool):
    """(description, fn, args, is_training) for one case; fn is what gets compiled."""
    import torch
    from rms_norm import make_inputs, rms_norm

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

    if name == "tiny norm":
        x, w = make_inputs(8, 64, requires_grad=False)
        return "rms_norm forward, x 8x64 (overhead-bound)", rms_norm, (x, w), False
    if name == "rmsnorm":
        x, w = make_inputs(4096, 1024, requires_grad=False)
        return "rms_norm forward, x 4096x1024", rms_norm, (x, w), False
    if name == "norm fwd+bwd":
        x, w = make_inputs(4096, 1024, requires_grad=True)
        return "rms_norm forward + backward, x 4096x1024", rms_norm, (x, w), True
    if name == "gelu chain":
        n = 1 << (16 if quick else 22)
        x = torch.randn(n, generator=torch.Generator().manual_seed(0))
        return f"tanh-GELU written as 9 pointwise ops, {n} floats", gelu_tanh, (x,), False
    if name == "mlp":
        torch.manual_seed(0)
        mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                  torch.nn.Linear(4096, 1024)).eval()
        x = torch.randn(256, 1024)
        desc = "Linear(1024,4096)-GELU-Linear(4096,1024), batch 256 (matmul-bound)"
        return desc, mlp, (x,), False
    raise ValueError(name)


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def per_call_us(fns, args, *, training: bool, warmup: int, repeats: int,
                min_loop_s: float) -> list[tuple[float, float, float]]:
    """(median, min) time per call in microseconds, and minor page faults per call, for each
    of `fns`.

    The loops of the different functions are interleaved (eager, compiled, eager, ...) so that
    both see the same background load on a shared machine. Page faults are counted because a
    large tensor whose memory the allocator just returned to the OS is faulted in again, page
    by page, on its next use, which can dominate the time of a memory-bound call.
    """
    import torch

    def once(fn):
        out = fn(*args)
        if training:
            out.backward(torch.ones_like(out))

    calls = []
    for fn in fns:
        for _ in range(warmup):
            once(fn)
        t0 = time.perf_counter()
        once(fn)
        calls.append(max(1, int(min_loop_s / max(time.perf_counter() - t0, 1e-7))))
    samples: list[list[float]] = [[] for _ in fns]
    faults = [0 for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            f0 = _minor_faults()
            t0 = time.perf_counter()
            for _ in range(calls[i]):
                once(fn)
            samples[i].append((time.perf_counter() - t0) / calls[i] * 1e6)
            faults[i] += _minor_faults() - f0
    return [(statistics.median(s), min(s), f / (repeats * c))
            for s, f, c in zip(samples, faults, calls, strict=True)]


def first_call_s(fn, args, *, training: bool) -> float:
    import torch

    t0 = time.perf_counter()
    out = fn(*args)
    if training:
        out.backward(torch.ones_like(out))  # the backward graph compiles on first use
    return time.perf_counter() - t0


def run(cases, *, quick: bool, load_at_start: float) -> dict:
    import torch

    torch.set_num_threads(2)
    warmup, repeats, min_loop_s = (3, 3, 0.005) if quick else (10, 21, 0.05)
    no_grad = torch.no_grad

    def one_time(x):
        return x + 1

    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()  # the first torch.compile() call imports most of the compiler
    throwaway = torch.compile(one_time)
    t_first_ever = time.perf_counter() - t0
    t_first_ever += first_call_s(throwaway, (torch.randn(4),), training=False)
    results = []
    for name in cases:
        desc, fn, args, training = make_case(name, quick)
        ctx = torch.enable_grad if training else no_grad
        with ctx():
            compiled = torch.compile(fn)
            new_graph_s = first_call_s(compiled, args, training=training)
            (eager_us, eager_min, eager_pf), (compiled_us, compiled_min, compiled_pf) = per_call_us(
                [fn, compiled], args, training=training, warmup=warmup, repeats=repeats,
                min_loop_s=min_loop_s)
            torch.testing.assert_close(compiled(*args), fn(*args), rtol=1e-4, atol=1e-4)
            torch._dynamo.reset()  # drop Dynamo's in-memory cache; the on-disk caches stay
            cache_hit_s = first_call_s(torch.compile(fn), args, training=training)
            torch._dynamo.reset()
        results.append({
            "case": name, "description": desc,
            "eager_us": round(eager_us, 2), "compiled_us": round(compiled_us, 2),
            "speedup": round(eager_us / compiled_us, 3),
            "eager_min_us": round(eager_min, 2), "compiled_min_us": round(compiled_min, 2),
            "eager_page_faults_per_call": round(eager_pf, 1),
            "compiled_page_faults_per_call": round(compiled_pf, 1),
            "compile_new_graph_s": round(new_graph_s, 3),
            "compile_cache_hit_s": round(cache_hit_s, 3),
        })
    return {
        "machine": {"cpu": _cpu_model(), "logical_cpus": os.cpu_count(),
                    "torch": torch.__version__, "python": sys.version.split()[0],
                    "num_threads": torch.get_num_threads(),
                    # The machine is shared: the 1-minute load average when the script
                    # started, before the timed cases, and at the end.
                    "loadavg_1min": [round(load_at_start, 2), round(load_before, 2),
                                     round(os.getloadavg()[0], 2)]},
        "method": {"warmup": warmup, "repeats": repeats, "min_loop_s": min_loop_s,
                   "statistic": "median of per-call times over repeats",
                   "env": {"TORCHINDUCTOR_COMPILE_THREADS": "1",
                           "TORCHINDUCTOR_CACHE_DIR": "fresh temporary directory"}},
        "first_compile_in_fresh_cache_s": round(t_first_ever, 3),
        "cases": results,
    }


def _subprocess_kind(cmd) -> str:
    """Which first-compile step a subprocess that Inductor started belongs to."""
    text = " ".join(map(str, cmd)) if isinstance(cmd, (list, tuple)) else str(cmd)
    if " -c " in f" {text} " and "LoadLibrary" in text:
        return "ISA load probe (child Python)"
    if "-x c++-header" in text:
        return "precompile cpp_prefix.h"
    if "header.hpp" in text or text.startswith("openssl"):
        return "preprocess + hash cpp_prefix.h"
    if ".main.cpp" in text:
        return "compile the kernel"
    if text.rstrip().endswith(("--version", " -v")):
        return "compiler version queries"
    if ".cpp" in text:
        return "ISA test build"
    return "other"


def _time_subprocesses() -> dict[str, float]:
    """Patch subprocess.run and subprocess.call (check_output and check_call go through them)
    to add up the wall time of every child process by kind; returns the live totals."""
    totals: dict[str, float] = {}

    def timed(fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                kind = _subprocess_kind(args[0] if args else kwargs.get("args", ""))
                totals[kind] = totals.get(kind, 0.0) + time.perf_counter() - t0
        return wrapper

    subprocess.run, subprocess.call = timed(subprocess.run), timed(subprocess.call)
    return totals


def first_compile_worker(graphs: int, shape_base: int) -> dict:
    """Runs in a new process: compile `graphs` never-seen graphs in a row.

    Each graph is rms_norm's forward on a (64, cols) input with a column count no other scenario
    uses, compiled with dynamic=False after torch._dynamo.reset(), so each is a new static graph
    (an FX graph cache miss) of the same size and shape of work. Timed separately: the
    torch.compile() call (the first one imports torch._dynamo and torch._inductor) and the first
    call of the compiled function (where the compiling happens).
    """
    t0 = time.perf_counter()
    import torch
    import_torch_s = time.perf_counter() - t0
    from rms_norm import make_inputs, rms_norm

    torch.set_num_threads(2)
    totals = _time_subprocesses()
    wrap, call, children = [], [], []
    for i in range(graphs):
        if i:  # (not before the first: touching torch._dynamo would import it outside the timer)
            torch._dynamo.reset()
        x, w = make_inputs(64, 256 + 16 * (shape_base + i), requires_grad=False)
        totals.clear()
        t0 = time.perf_counter()
        compiled = torch.compile(rms_norm, dynamic=False)
        wrap.append(time.perf_counter() - t0)
        with torch.no_grad():
            call.append(first_call_s(compiled, (x, w), training=False))
            children.append({k: round(v, 3) for k, v in sorted(totals.items())})
            torch.testing.assert_close(compiled(x, w), rms_norm(x, w))
    return {"import_torch_s": round(import_torch_s, 3),
            "torch_compile_call_s": [round(t, 3) for t in wrap],
            "first_call_s": [round(t, 3) for t in call],
            "child_process_s": children}


# (name, cache dir, TMPDIR), run in this order; "A" and "B" are created fresh by the experiment.
FIRST_COMPILE_SCENARIOS = (
    ("fresh cache dir, fresh TMPDIR", "A", "A"),
    ("same dirs, new process", "A", "A"),
    ("fresh cache dir, TMPDIR with the header", "B", "A"),
)


def first_compile_experiment(graphs: int = 2) -> dict:
    """One new process per scenario, each compiling `graphs` new graphs."""
    root = Path(tempfile.mkdtemp(prefix="tc101-first-"))
    try:
        rows = []
        for k, (name, cache, tmp) in enumerate(FIRST_COMPILE_SCENARIOS):
            (root / f"cache-{cache}").mkdir(exist_ok=True)
            (root / f"tmp-{tmp}").mkdir(exist_ok=True)
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(root / f"cache-{cache}"),
                       TMPDIR=str(root / f"tmp-{tmp}"), TORCHINDUCTOR_COMPILE_THREADS="1")
            cmd = [sys.executable, str(Path(__file__).resolve()), "--first-compile-worker",
                   str(graphs), str(k * graphs)]
            proc = subprocess.run(cmd, env=env, text=True, capture_output=True, timeout=900,
                                  check=False)
            if proc.returncode != 0:
                raise RuntimeError(proc.stdout + proc.stderr)
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append({"scenario": name, "cache_dir": cache, "tmpdir": tmp, **result})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"graphs_per_process": graphs,
            "graph": "rms_norm forward, x 64x(256+16k), a column count used once",
            "scenarios": rows}


# --8<-- [start:plots]
def make_plots(data: dict) -> dict[str, str]:
    """Both figures as SVG text, each wide and narrow (a phone's drawing); a pure function of the
    results JSON."""
    sys.path.insert(0, str(HERE.parent))
    from common.svgplot import Series, bar_chart

    cases = [c["case"] for c in data["cases"]]
    plots = {}
    for suffix, narrow in (("", False), ("-narrow", True)):
        plots[f"benchmark-time{suffix}.svg"] = bar_chart(
            cases,
            [Series("eager", [], [c["eager_us"] for c in data["cases"]]),
             Series("torch.compile (Inductor C++)", [], [c["compiled_us"] for c in data["cases"]])],
            fig_id=f"{SLUG}-time",
            title="Time per call, eager vs compiled (2-core x86-64, torch 2.13.0 CPU)",
            desc="Grouped bars on a log scale, one group per function: median microseconds per "
                 "call in eager mode and after torch.compile. " + "; ".join(
                     f"{c['case']}: {c['eager_us']:.0f} vs {c['compiled_us']:.0f} us"
                     for c in data["cases"]),
            y_label="microseconds per call (log)", log_y=True, narrow=narrow)
        plots[f"benchmark-compile{suffix}.svg"] = bar_chart(
            cases,
            [Series("new graph", [], [c["compile_new_graph_s"] for c in data["cases"]]),
             Series("FX graph cache hit", [], [c["compile_cache_hit_s"] for c in data["cases"]])],
            fig_id=f"{SLUG}-compile",
            title="First-call time: compiling a new graph vs hitting the caches",
            desc="Grouped bars, one group per function: seconds spent in the first call of a fresh "
                 "torch.compile wrapper, for a graph never compiled before and again after "
                 "torch._dynamo.reset() when the on-disk caches hit. " + "; ".join(
                     f"{c['case']}: {c['compile_new_graph_s']:.2f} s vs "
                     f"{c['compile_cache_hit_s']:.2f} s"
                     for c in data["cases"]),
            y_label="seconds", narrow=narrow)
    return plots
# --8<-- [end:plots]


def _num(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def make_tables(data: dict) -> dict[str, str]:
    """The post's benchmark tables as Markdown; a pure function of the results JSON."""
    lines = [f"- **{c['case']}**: {c['description']}" for c in data["cases"]]
    lines += [
        "",
        "| case | eager µs, median (min) | compiled µs, median (min) "
        "| speed-up, median (min) | page faults per call, eager / compiled "
        "| first call, new graph / cache hit |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in data["cases"]:
        lines.append(
            f"| {c['case']} "
            f"| {_num(c['eager_us'])} ({_num(c['eager_min_us'])}) "
            f"| {_num(c['compiled_us'])} ({_num(c['compiled_min_us'])}) "
            f"| {c['eager_us'] / c['compiled_us']:.2f}× "
            f"({c['eager_min_us'] / c['compiled_min_us']:.2f}×) "
            f"| {c['eager_page_faults_per_call']:,.0f} / {c['compiled_page_faults_per_call']:,.0f} "
            f"| {c['compile_new_graph_s']:.2f} s / {c['compile_cache_hit_s']:.2f} s |")
    tables = {"benchmark-table.txt": "\n".join(lines) + "\n"}
    fc = data.get("first_compile")
    if fc:
        lines = [
            "| new process | cache dir | `TMPDIR` "
            "| `torch.compile()` | first call | second graph |",
            "| --- | --- | --- | ---: | ---: | ---: |",
        ]
        seen: set[tuple[str, str]] = set()

        def state(kind: str, d: str) -> str:
            new = (kind, d) not in seen
            seen.add((kind, d))
            return f"{d}, {'new' if new else 'reused'}"

        for i, r in enumerate(fc["scenarios"], start=1):
            cache, tmp = state("cache", r["cache_dir"]), state("tmp", r["tmpdir"])
            second = r["torch_compile_call_s"][1] + r["first_call_s"][1]
            lines.append(f"| {i} | {cache} | {tmp} | {r['torch_compile_call_s'][0]:.2f} s "
                         f"| {r['first_call_s'][0]:.2f} s | {second:.2f} s |")
        tables["first-compile-table.txt"] = "\n".join(lines) + "\n"
    return tables


def write_plots(data: dict, out: Path) -> None:
    """Both SVG figures and the Markdown tables the post includes."""
    for name, text in {**make_plots(data), **make_tables(data)}.items():
        (out / name).write_text(text, encoding="utf-8")


def print_table(data: dict) -> None:
    m = data["machine"]
    print(f"{m['cpu']}, {m['logical_cpus']} logical CPUs, torch {m['torch']}, "
          f"{m['num_threads']} threads, load average {m['loadavg_1min']}")
    scenarios = (data.get("first_compile") or {}).get("scenarios", [])
    if scenarios:
        print("first compile, each scenario a new process: import torch; first graph: "
              "torch.compile() + first call; second graph: both")
    for r in scenarios:
        print(f"  {r['scenario']:<42} {r['import_torch_s']:5.2f} s; "
              f"{r['torch_compile_call_s'][0]:5.2f} s + {r['first_call_s'][0]:5.2f} s; "
              f"{r['torch_compile_call_s'][1] + r['first_call_s'][1]:.2f} s")
        print("    child processes during the first graph: " + ", ".join(
            f"{k} {v:.2f} s" for k, v in r["child_process_s"][0].items()))
    print("throwaway first compile in this process (torch.compile() + first call, fresh cache "
          "directory): "
          f"{data['first_compile_in_fresh_cache_s']:.2f} s")
    print(f"{'case':<14}{'eager us':>11}{'compiled us':>13}{'speed-up':>10}{'faults/call':>13}"
          f"{'new graph s':>13}{'cache hit s':>13}")
    for c in data["cases"]:
        faults = f"{c['eager_page_faults_per_call']:.0f}/{c['compiled_page_faults_per_call']:.0f}"
        print(f"{c['case']:<14}{c['eager_us']:>11.1f}{c['compiled_us']:>13.1f}"
              f"{c['eager_us'] / c['compiled_us']:>9.2f}x{faults:>13}"
              f"{c['compile_new_graph_s']:>13.2f}"
              f"{c['compile_cache_hit_s']:>13.2f}")


def _shown(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small cases, few repeats")
    parser.add_argument("--plot", action="store_true", help="only redraw SVGs from the JSON")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for JSON + SVGs (default: the post's folder; a temporary "
                             "folder with --quick)")
    parser.add_argument("--first-compile-worker", nargs=2, type=int, metavar=("GRAPHS", "BASE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_compile_worker:
        sys.path.insert(0, str(HERE))
        print(json.dumps(first_compile_worker(*args.first_compile_worker)))
        return {}
    out = args.out or (Path(tempfile.mkdtemp(prefix="tc101-bench-")) if args.quick else OUT)
    if args.plot:
        data = json.loads(RESULTS.read_text(encoding="utf-8"))
        write_plots(data, out)
        print_table(data)
        return data
    if "torch" in sys.modules:
        raise RuntimeError("run this as a script: the environment must be set before torch loads")
    load_at_start = os.getloadavg()[0]
    # Before this process imports torch: the first-compile scenarios, each in a new process.
    first = None if args.quick else first_compile_experiment()
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="tc101-inductor-")
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    sys.path.insert(0, str(HERE))
    data = run(QUICK_CASES if args.quick else CASES, quick=args.quick, load_at_start=load_at_start)
    if first is not None:
        data["first_compile"] = first
    out.mkdir(parents=True, exist_ok=True)
    (out / "benchmark.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    write_plots(data, out)
    print_table(data)
    print(f"wrote {_shown(out)}")
    return data


if __name__ == "__main__":
    main()
