"""Follow rms_norm through every stage of torch.compile and save what each stage produced.

Run from the repository root:

    python examples/torch_compile_101/stages.py            # rewrites the committed artifacts
    python examples/torch_compile_101/stages.py --out DIR  # writes them somewhere else

What it captures, in the order the stages run (CPU, torch 2.13.0):
  source and CPython bytecode (dis), Dynamo's FX graph (TORCH_LOGS=graph_code), AOTAutograd's
  joint graph and the partitioned forward/backward graphs (aot_joint_graph, aot_graphs), the
  post-grad graphs Inductor lowers (post_grad_graphs), Inductor's loop-level IR before and after
  fusion (ir_pre_fusion, ir_post_fusion), the generated wrapper + C++ kernel (output_code), the
  guards (guards) and the bytecode Dynamo installed in the frame's cache entry.

Environment variables must be set before torch is imported, so this script imports torch only
inside main(): TORCH_TRACE (the structured trace that tlparse reads; we count its events),
TORCHINDUCTOR_CACHE_DIR (a fresh directory, so every cache misses and the full compile runs) and
TORCHINDUCTOR_COMPILE_THREADS=1 (each C++ kernel is built in the calling thread, one after
another, so compile times are sequential and comparable between runs).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SLUG = "torch-compile-101"
DEFAULT_OUT = REPO / "docs" / "blog" / "posts" / SLUG
TAG = "v2.13.0"
BLOB = f"https://github.com/pytorch/pytorch/blob/{TAG}/"

ARTIFACTS = (
    "graph_code", "aot_joint_graph", "aot_graphs", "post_grad_graphs",
    "ir_pre_fusion", "ir_post_fusion", "output_code", "guards",
)

# The interactive explorer's stages, in execution order (convert_frame logs the new bytecode,
# then builds the guards; the backward is compiled at the first .backward()):
# (id, tab label, title, how to see it, where it is produced, what changed at this stage).
EXPLORER = (
    ("source", "source", "Python source", "inspect.getsource(rms_norm)",
     "examples/torch_compile_101/rms_norm.py",
     "The function as written: one reduction, the mean of squares, feeding three pointwise ops."),
    ("bytecode", "bytecode", "CPython 3.11 bytecode, what Dynamo interprets", "dis.dis(rms_norm)",
     "torch/_dynamo/symbolic_convert.py",
     "What CPython compiled the source to. Dynamo reads these instructions, not the source."),
    ("dynamo_graph", "FX graph", "Dynamo's FX graph", "TORCH_LOGS=graph_code",
     "torch/_dynamo/output_graph.py",
     "Dynamo ran the bytecode on fake tensors: each torch call is now an FX node with a shape."),
    ("aot_joint_graph", "joint", "AOTAutograd joint forward + backward graph (ATen ops)",
     "TORCH_LOGS=aot_joint_graph", "torch/_functorch/_aot_autograd/graph_capture.py",
     "AOTAutograd traced forward and backward together in ATen ops; autograd's formulas are nodes."),
    ("aot_forward_graph", "forward", "Partitioned forward graph", "TORCH_LOGS=aot_graphs",
     "torch/_functorch/partitioners.py",
     "The min-cut split: the forward also returns x, weight and rsqrt for the backward."),
    ("aot_backward_graph", "backward", "Partitioned backward graph", "TORCH_LOGS=aot_graphs",
     "torch/_functorch/partitioners.py",
     "The backward recomputes x * rsqrt from what was saved instead of storing the product."),
    ("ir_pre_fusion_forward", "IR", "Inductor loop-level IR (forward, before fusion)",
     "TORCH_LOGS=ir_pre_fusion", "torch/_inductor/scheduler.py",
     "Inductor lowered the forward to three loop nests over the 64 rows: a reduction, two pointwise."),
    ("ir_post_fusion_forward", "fusion", "Scheduler node after fusion (forward)",
     "TORCH_LOGS=ir_post_fusion", "torch/_inductor/codegen/cpp.py",
     "The scheduler fused the three nodes into one OuterLoopFusedSchedulerNode."),
    ("output_code_forward", "code", "Generated code (forward): C++ kernel and Python wrapper",
     "TORCH_LOGS=output_code", "torch/_inductor/codegen/cpp.py",
     "One C++ kernel, but three loop nests (the outer-loop check failed), and the wrapper's call()."),
    ("transformed_bytecode", "new bytecode", "Bytecode Dynamo installed for the frame",
     "dis.dis(cache_entry.code)", "torch/_dynamo/convert_frame.py",
     "What runs instead of the function on a hit: load the compiled graph, call it, return item 0."),
    ("guards", "guards", "Guards on the cache entry", "TORCH_LOGS=guards",
     "torch/_dynamo/guards.py",
     "What the next call must satisfy to reuse all of the above: global state, dtypes, sizes, strides."),
    ("ir_pre_fusion_backward", "IR (bwd)", "Inductor loop-level IR (backward, compiled at the first .backward())",
     "TORCH_LOGS=ir_pre_fusion", "torch/_inductor/scheduler.py",
     "The backward, lowered only when .backward() first runs: a column sum, a row sum, a pointwise."),
    ("ir_post_fusion_backward", "fusion (bwd)", "Scheduler nodes after fusion (backward)",
     "TORCH_LOGS=ir_post_fusion", "torch/_inductor/codegen/cpp.py",
     "The two row-wise nodes fused into one OuterLoopFusedSchedulerNode; the column sum stays apart."),
    ("output_code_backward", "code (bwd)", "Generated code (backward): C++ kernel and Python wrapper",
     "TORCH_LOGS=output_code", "torch/_inductor/codegen/cpp.py",
     "One C++ kernel; this time the check passed and one row loop holds both inner loops."),
)


def _one(records: dict[str, list[str]], artifact: str, marker: str) -> str:
    hits = [m for m in records.get(artifact, []) if marker in m]
    if not hits:
        raise AssertionError(f"no {artifact} record containing {marker!r}")
    return hits[0]


def _two(records: dict[str, list[str]], artifact: str, marker: str) -> tuple[str, str]:
    hits = [m for m in records.get(artifact, []) if marker in m]
    if len(hits) != 2:
        raise AssertionError(f"expected a forward and a backward {artifact}, got {len(hits)}")
    return hits[0], hits[1]


def kernel_source(output_code: str) -> str:
    """The C++ source of the (single) kernel in an output_code module."""
    m = re.search(r"async_compile\.cpp_pybinding\([^\n]*r'''\n(.*?)'''\)", output_code, re.S)
    if not m:
        raise AssertionError("no cpp_pybinding kernel in the output code")
    return m.group(1)


def wrapper_call(output_code: str) -> str:
    """The Python wrapper's call(): allocations, the kernel launch, frees, the return."""
    start = output_code.index("    def call(self, args):")
    end = output_code.index("runner = Runner(")
    return textwrap.dedent(output_code[start:end]).rstrip() + "\n"


def output_code_excerpt(output_code: str) -> str:
    """The kernel definition and the wrapper's call(); imports and benchmark harness dropped."""
    start = output_code.index("cpp_fused_")
    start = output_code.rfind("\n", 0, start) + 1
    end = output_code.index("runner = Runner(")
    return output_code[start:end].rstrip() + "\n"


def post_fusion_summary(ir_post: str) -> str:
    """The fused node's header (name, type, reads and writes), without the repeated sub-nodes."""
    head = ir_post.split(".snodes[0] =")[0]
    return "\n".join(head.rstrip().splitlines()[:-1]) + "\n"


WARMUP, REPEATS = 5, 21


def _median_and_min_time(fn) -> tuple[float, float]:
    """Median and minimum wall time of single calls, after WARMUP untimed calls."""
    for _ in range(WARMUP):
        fn()
    samples = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return sorted(samples)[REPEATS // 2], min(samples)


def capture(tmp: str) -> dict:
    """Compile rms_norm, run forward and backward, and return every stage's text."""
    import dis
    import inspect

    import torch
    from artifacts import normalise, record_artifacts
    from rms_norm import make_inputs, rms_norm

    x, weight = make_inputs()
    compiled = torch.compile(rms_norm)
    timings = {}
    with record_artifacts(*ARTIFACTS) as rec:
        t0 = time.perf_counter()
        out = compiled(x, weight)
        timings["first_forward_s"] = time.perf_counter() - t0
        grad = torch.ones_like(out)
        t0 = time.perf_counter()
        out.backward(grad)
        timings["first_backward_s"] = time.perf_counter() - t0
    # Steady state: median and minimum of single calls (forward alone, then forward + backward).
    timings["steady_forward_s"], timings["steady_forward_min_s"] = _median_and_min_time(
        lambda: compiled(x, weight))
    timings["steady_forward_backward_s"], timings["steady_forward_backward_min_s"] = (
        _median_and_min_time(lambda: compiled(x, weight).backward(grad)))
    calls = 1 + WARMUP + REPEATS  # backward passes that accumulated into x.grad and weight.grad

    # The compiled function must agree with eager: output and both gradients (the compiled
    # gradients accumulated over `calls` backward passes).
    x_ref, w_ref = make_inputs()
    ref = rms_norm(x_ref, w_ref)
    ref.backward(grad)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(x.grad / calls, x_ref.grad)
    torch.testing.assert_close(weight.grad / calls, w_ref.grad)

    entries = torch._dynamo.eval_frame._debug_get_cache_entry_list(rms_norm.__code__)
    if len(entries) != 1:
        raise AssertionError(f"expected one cache entry, got {len(entries)}")
    r = rec.records
    fw_post, bw_post = _two(r, "post_grad_graphs", "AFTER POST GRAD")
    fw_pre, bw_pre = _two(r, "ir_pre_fusion", "BEFORE FUSION")
    fw_fused, bw_fused = _two(r, "ir_post_fusion", "AFTER FUSION")
    fw_code, bw_code = _two(r, "output_code", "Output code: \n")
    stages = {
        "source": inspect.getsource(rms_norm),
        "bytecode": dis.Bytecode(rms_norm).dis(),
        "dynamo_graph": _one(r, "graph_code", "TRACED GRAPH"),
        "aot_joint_graph": _one(r, "aot_joint_graph", "Joint graph"),
        "aot_forward_graph": _one(r, "aot_graphs", "Forward graph"),
        "aot_backward_graph": _one(r, "aot_graphs", "Backward graph"),
        "post_grad_forward": fw_post,
        "post_grad_backward": bw_post,
        "ir_pre_fusion_forward": fw_pre,
        "ir_pre_fusion_backward": bw_pre,
        "ir_post_fusion_forward": fw_fused,
        "ir_post_fusion_backward": bw_fused,
        "output_code_forward": fw_code.split("Output code: \n", 1)[1],
        "output_code_backward": bw_code.split("Output code: \n", 1)[1],
        "guards": _one(r, "guards", "TREE_GUARD_MANAGER"),
        "transformed_bytecode": dis.Bytecode(entries[0].code).dis(),
    }
    stages = {k: normalise(v, temp_dirs=(tmp,)) for k, v in stages.items()}
    stages["wrapper_call_forward"] = wrapper_call(stages["output_code_forward"])
    stages["kernel_forward"] = kernel_source(stages["output_code_forward"])
    stages["kernel_backward"] = kernel_source(stages["output_code_backward"])
    latency = re.findall(r"Guard eval latency = ([\d.]+) us", " ".join(r.get("guards", [])))
    return {
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "stages": stages,
        "timings_s": {k: round(v, 6) for k, v in timings.items()},
        "guard_eval_latency_us": float(latency[0]) if latency else None,
        "loadavg_1min": round(os.getloadavg()[0], 2),  # the machine may be shared
    }


def read_trace(trace_dir: str) -> tuple[dict[str, int], dict[str, dict]]:
    """Count the structured-trace events (what tlparse reads) and pull the compile metrics."""
    counts: dict[str, int] = {}
    metrics: dict[str, dict] = {}
    for path in sorted(Path(trace_dir).glob("*.log")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("\t") or "] {" not in line:
                continue
            event = json.loads(line.split("] ", 1)[1])
            kind = next(iter(event))
            if kind == "artifact":
                kind = f"artifact:{event['artifact']['name']}"
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("compilation_metrics", "bwd_compilation_metrics"):
                keep = ("entire_frame_compile_time_s", "backend_compile_time_s",
                        "inductor_compile_time_s", "code_gen_time_s", "guard_count",
                        "graph_op_count", "graph_node_count", "graph_input_count")
                metrics[kind] = {k: event[kind][k] for k in keep if event[kind].get(k) is not None}
    return dict(sorted(counts.items())), metrics


def explorer_data(result: dict) -> dict:
    """The interactive explorer's data: one entry per stage, texts trimmed to what matters."""
    st = result["stages"]
    text = dict(st)
    text["output_code_forward"] = output_code_excerpt(st["output_code_forward"])
    text["output_code_backward"] = output_code_excerpt(st["output_code_backward"])
    for name in ("ir_post_fusion_forward", "ir_post_fusion_backward"):
        text[name] = post_fusion_summary(st[name])
    stages = []
    for sid, label, title, how, where, note in EXPLORER:
        link = where if where.startswith("examples/") else BLOB + where
        stages.append({"id": sid, "label": label, "title": title, "how": how, "where": where,
                       "link": link, "note": note, "lines": text[sid].count("\n"), "text": text[sid]})
    return {"function": "rms_norm", "torch": result["torch"], "python": result["python"],
            "stages": stages}


def render_fallback_html(data: dict) -> str:
    """The explorer's static content: every stage as a plain code block, one line of HTML each.

    Newlines inside code are written as &#10; so the HTML has no blank lines (Markdown would end
    a raw HTML block at a blank line). The interactive script turns the sections into tabs.
    """
    parts = ['<div class="ifig-stages" style="text-align: left">']
    for i, s in enumerate(data["stages"], start=1):
        code = html.escape(s["text"].rstrip("\n"), quote=False).replace("\n", "&#10;")
        where = (f'<a href="{html.escape(s["link"])}">{html.escape(s["where"])}</a>'
                 if s["link"].startswith("https://")
                 else f"<code>{html.escape(s['where'])}</code>")
        parts.append(
            f'<section class="ifig-stage" data-stage="{s["id"]}" '
            f'data-label="{html.escape(s["label"])}" '
            f'aria-label="{html.escape(s["title"])}">'
            f'<p class="ifig-stage-title"><strong>{i}. {html.escape(s["title"])}</strong> '
            f'({s["lines"]} lines) · see it with <code>{html.escape(s["how"])}</code> · '
            f"{where}</p>"
            f'<p class="ifig-stage-note">What changed: {html.escape(s["note"])}</p>'
            f"<pre><code>{code}</code></pre></section>"
        )
    parts.append("</div>")
    return "\n".join(parts) + "\n"


def write_outputs(out: Path, result: dict) -> None:
    (out / "stages").mkdir(parents=True, exist_ok=True)
    for name, text in result["stages"].items():
        (out / "stages" / f"{name}.txt").write_text(text, encoding="utf-8")
    data = explorer_data(result)
    (out / "stages.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "stages-explorer.html").write_text(render_fallback_html(data), encoding="utf-8")
    run = {k: v for k, v in result.items() if k != "stages"}
    (out / "stages-run.json").write_text(json.dumps(run, indent=1, sort_keys=True) + "\n",
                                         encoding="utf-8")


def _shown(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if "torch" in sys.modules:
        raise RuntimeError("run this as a script: TORCH_TRACE must be set before torch is imported")
    tmp = tempfile.mkdtemp(prefix="tc101-stages-")
    os.environ["TORCH_TRACE"] = os.path.join(tmp, "trace")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor-cache")
    # Compile in this process: no compile workers competing with the steady-state timings.
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    sys.path.insert(0, str(HERE))

    result = capture(tmp)
    import logging

    for handler in logging.getLogger("torch.__trace").handlers:
        handler.flush()
    result["trace_events"], result["compile_metrics"] = read_trace(os.environ["TORCH_TRACE"])
    write_outputs(args.out, result)

    print(f"torch {result['torch']}, python {result['python']}")
    for name, text in result["stages"].items():
        print(f"  {name:<24} {text.count(chr(10)):4d} lines")
    t = result["timings_s"]
    print(f"first call {t['first_forward_s']:.2f} s (compiles the forward), first backward "
          f"{t['first_backward_s']:.2f} s (compiles the backward)")
    print(f"then forward {t['steady_forward_s'] * 1e6:.0f} us (min "
          f"{t['steady_forward_min_s'] * 1e6:.0f}), forward + backward "
          f"{t['steady_forward_backward_s'] * 1e6:.0f} us (min "
          f"{t['steady_forward_backward_min_s'] * 1e6:.0f}); median of {REPEATS} calls after "
          f"{WARMUP} warm-up calls; load average {result['loadavg_1min']}")
    for kind, m in result["compile_metrics"].items():
        print(f"  {kind}: " + ", ".join(f"{k}={v}" for k, v in m.items()))
    print(f"structured trace events: {sum(result['trace_events'].values())} "
          f"({len(result['trace_events'])} kinds)")
    print(f"wrote {_shown(args.out)}")
    return result


if __name__ == "__main__":
    main()
