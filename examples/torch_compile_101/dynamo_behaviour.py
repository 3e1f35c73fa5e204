"""Graph breaks, guards and recompilations, made visible and counted.

Run from the repository root:  python examples/torch_compile_101/dynamo_behaviour.py

Every experiment compiles with a tiny counting backend instead of Inductor: Dynamo's decisions
(where to break, what to guard, when to recompile) do not depend on the backend, and skipping
Inductor keeps each experiment well under a second. The backend records each FX graph it is
handed and the compile id ("frame/recompile") it was compiled under, then runs the graph as is.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from pathlib import Path

import torch
import torch._dynamo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from artifacts import record_artifacts  # noqa: E402


# --8<-- [start:backend]
class CountingBackend:
    """A torch.compile backend: keep every graph Dynamo produces, then run it unchanged."""

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []
        self.compile_ids: list[str] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> object:
        self.graphs.append(gm)
        self.compile_ids.append(str(torch._guards.CompileContext.current_compile_id()))
        return gm.forward  # a backend returns any callable that runs the graph
# --8<-- [end:backend]


def _symint_inputs(gm: torch.fx.GraphModule) -> list[str]:
    return [n.name for n in gm.graph.find_nodes(op="placeholder")
            if isinstance(n.meta.get("example_value"), torch.SymInt)]


# --8<-- [start:graph_break]
def with_print(x):
    y = x.sin()
    print("logging from inside the compiled region")  # Dynamo cannot put print in a graph
    return y.cos()
# --8<-- [end:graph_break]


def graph_break_print() -> dict:
    torch._dynamo.reset()
    backend = CountingBackend()
    compiled = torch.compile(with_print, backend=backend)
    x = torch.randn(8)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        first, second = compiled(x), compiled(x)
    with contextlib.redirect_stdout(io.StringIO()):
        torch.testing.assert_close(first, with_print(x))
        explained = torch._dynamo.explain(with_print)(x)
    torch.testing.assert_close(second, first)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            torch.compile(with_print, backend=CountingBackend(), fullgraph=True)(x)
        fullgraph_error = None
    except torch._dynamo.exc.Unsupported as e:
        fullgraph_error = type(e).__name__
    return {
        "graphs": len(backend.graphs),
        "compile_ids": backend.compile_ids,
        "prints": out.getvalue().count("logging from"),  # runs eagerly, once per call
        "explain_graph_count": explained.graph_count,
        "explain_graph_break_count": explained.graph_break_count,
        "break_reason": " / ".join(
            line.strip() for line in str(explained.break_reasons[0].reason).splitlines()[:2]),
        "fullgraph_error": fullgraph_error,
    }


def loop_with_break(x):
    for _ in range(3):
        x = x + 1
        print("inside a loop")
    return x


def graph_break_in_loop() -> dict:
    torch._dynamo.reset()
    backend = CountingBackend()
    x = torch.randn(8)
    with contextlib.redirect_stdout(io.StringIO()):
        torch.testing.assert_close(torch.compile(loop_with_break, backend=backend)(x),
                                   loop_with_break(x))
    return {"graphs": len(backend.graphs)}  # 0: the whole frame was skipped


def caller_of_loop(x):
    y = x.sin()
    y = loop_with_break(y)  # the loop moved into a helper function
    return y.cos()


def graph_break_loop_in_helper() -> dict:
    """The caller compiles around the call; the helper, loop included, still runs eagerly."""
    torch._dynamo.reset()
    backend = CountingBackend()
    x = torch.randn(8)
    with contextlib.redirect_stdout(io.StringIO()):
        torch.testing.assert_close(torch.compile(caller_of_loop, backend=backend)(x),
                                   caller_of_loop(x))
    return {
        "graphs": len(backend.graphs),
        "compile_ids": backend.compile_ids,
        "ops": [[str(n.target) for n in gm.graph.nodes if n.op.startswith("call")]
                for gm in backend.graphs],
    }


# --8<-- [start:recompiles]
def affine(x, n):
    return x * n + 1


def recompilations() -> dict:
    """Which changes between calls fail a guard, and what Dynamo does about it."""
    torch._dynamo.reset()
    backend = CountingBackend()
    f = torch.compile(affine, backend=backend)
    counts = {}
    with record_artifacts("recompiles") as rec:
        x = torch.randn(8)
        f(x, 2)
        counts["first call"] = len(backend.graphs)
        f(x, 2)
        counts["same call again"] = len(backend.graphs)
        f(x.double(), 2)  # TENSOR_MATCH fails: dtype
        counts["float64 input"] = len(backend.graphs)
        f(x, 3)  # the int was specialised to 2: recompile with n as a SymInt
        counts["n=3"] = len(backend.graphs)
        f(x, 4)  # ...which now covers every int
        counts["n=4"] = len(backend.graphs)
        f(torch.randn(16), 4)  # size 8 was static: recompile with a dynamic size
        counts["size 16"] = len(backend.graphs)
        f(torch.randn(32), 5)
        counts["size 32"] = len(backend.graphs)
        with torch.no_grad():  # GLOBAL_STATE guard: grad mode
            f(x, 5)
        counts["under no_grad"] = len(backend.graphs)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # GLOBAL_STATE guard: the intra-op thread count
        try:
            f(x, 5)
        finally:
            torch.set_num_threads(threads)
        counts["set_num_threads(1)"] = len(backend.graphs)
    return {
        "graphs_after": counts,
        "compile_ids": backend.compile_ids,
        "symint_inputs": [_symint_inputs(gm) for gm in backend.graphs],
        "reasons": [m.split("triggered by the following guard failure(s):")[-1].strip()
                    for m in rec.records.get("recompiles", [])],
    }
# --8<-- [end:recompiles]


def scale_sum(x):
    return (x * 2).sum()


def recompile_limit_hit() -> dict:
    """dynamic=False: every new size recompiles, until recompile_limit; then eager."""
    torch._dynamo.reset()
    backend = CountingBackend()
    f = torch.compile(scale_sum, backend=backend, dynamic=False, recompile_limit=3)
    for n in range(2, 9):
        x = torch.randn(n)
        torch.testing.assert_close(f(x), scale_sum(x))  # still correct after the limit: eager
    entries = torch._dynamo.eval_frame._debug_get_cache_entry_list(scale_sum.__code__)
    return {"sizes_called": 7, "graphs": len(backend.graphs), "cache_entries": len(entries)}


def mark_dynamic_upfront() -> dict:
    torch._dynamo.reset()
    backend = CountingBackend()
    f = torch.compile(scale_sum, backend=backend)
    for n in (8, 16, 32, 64):
        x = torch.randn(n)
        torch._dynamo.mark_dynamic(x, 0)
        f(x)
    return {"graphs": len(backend.graphs), "symint_inputs": _symint_inputs(backend.graphs[0])}


def dynamic_flag() -> dict:
    """What dynamic=False and dynamic=True set: the defaults for unmarked sizes, nothing more."""
    out = {}
    for dynamic, marked in ((False, True), (False, False), (True, False)):
        torch._dynamo.reset()
        backend = CountingBackend()
        f = torch.compile(scale_sum, backend=backend, dynamic=dynamic)
        for n in (8, 16, 32):
            x = torch.randn(n)
            if marked:
                torch._dynamo.mark_dynamic(x, 0)
            f(x)
        out[f"dynamic={dynamic}{', mark_dynamic' if marked else ''}"] = {
            "graphs": len(backend.graphs), "symint_inputs": _symint_inputs(backend.graphs[0])}
    return out


def sizes_zero_and_one() -> dict:
    """Automatic dynamic shapes never cover sizes 0 and 1: each gets its own specialised graph."""
    torch._dynamo.reset()
    backend = CountingBackend()
    f = torch.compile(scale_sum, backend=backend)
    counts = {}
    for n in (8, 16, 32, 1, 2, 0, 64):
        f(torch.randn(n))
        counts[n] = len(backend.graphs)
    return {"graphs_after_size": counts}


def fail_on_recompile() -> dict:
    torch._dynamo.reset()
    f = torch.compile(scale_sum, backend=CountingBackend())
    f(torch.randn(8))
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            f(torch.randn(8, dtype=torch.float64))
        raised = None
    except RuntimeError as e:
        raised = str(e).splitlines()[0]
    return {"raised": raised}


def _per_call_us(fn, x, calls: int = 2000, repeats: int = 7) -> float:
    for _ in range(200):
        fn(x)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(x)
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return sorted(samples)[repeats // 2]


def dispatch_overhead() -> dict:
    """What a cache hit costs: guard evaluation plus the call into the compiled graph."""
    torch._dynamo.reset()
    x = torch.randn(16)
    compiled = torch.compile(scale_sum, backend=CountingBackend())
    eager_us = _per_call_us(scale_sum, x)
    compiled_us = _per_call_us(compiled, x)
    # The guard tree alone, called from Python with the frame's locals (what the C++ cache
    # lookup runs before it picks the entry's code).
    (entry,) = torch._dynamo.eval_frame._debug_get_cache_entry_list(scale_sum.__code__)
    guard_us = _per_call_us(lambda t: entry.guard_manager.check({"x": t}), x)
    return {"eager_us": round(eager_us, 2), "compiled_same_graph_us": round(compiled_us, 2),
            "overhead_us": round(compiled_us - eager_us, 2), "guard_check_us": round(guard_us, 2)}


def run_all() -> dict:
    return {
        "graph_break_print": graph_break_print(),
        "graph_break_in_loop": graph_break_in_loop(),
        "loop_in_helper": graph_break_loop_in_helper(),
        "recompilations": recompilations(),
        "recompile_limit": recompile_limit_hit(),
        "mark_dynamic": mark_dynamic_upfront(),
        "dynamic_flag": dynamic_flag(),
        "sizes_zero_and_one": sizes_zero_and_one(),
        "fail_on_recompile": fail_on_recompile(),
        "dispatch_overhead": dispatch_overhead(),
    }


def check(r: dict) -> None:
    """The counts the post states; each is asserted, not just printed."""
    gb = r["graph_break_print"]
    assert gb["graphs"] == 2 and gb["compile_ids"] == ["0/0", "1/0"], gb
    assert gb["prints"] == 2, gb
    assert (gb["explain_graph_count"], gb["explain_graph_break_count"]) == (2, 1), gb
    assert "print" in gb["break_reason"] and gb["fullgraph_error"] == "Unsupported", gb
    assert r["graph_break_in_loop"]["graphs"] == 0
    lh = r["loop_in_helper"]  # frame 1 (the helper) produced no graph
    assert lh["graphs"] == 2 and lh["compile_ids"] == ["0/0", "2/0"], lh
    assert lh["ops"] == [["sin"], ["cos"]], lh
    rc = r["recompilations"]
    assert rc["graphs_after"] == {
        "first call": 1, "same call again": 1, "float64 input": 2, "n=3": 3, "n=4": 3,
        "size 16": 4, "size 32": 4, "under no_grad": 5, "set_num_threads(1)": 6,
    }, rc["graphs_after"]
    assert rc["symint_inputs"][0] == [] and "l_n_" in rc["symint_inputs"][2], rc
    assert any(s.startswith("s") for s in rc["symint_inputs"][3]), rc
    assert len(rc["reasons"]) == 5, rc["reasons"]
    assert "dtype mismatch" in rc["reasons"][0], rc["reasons"]
    assert r["recompile_limit"] == {"sizes_called": 7, "graphs": 3, "cache_entries": 3}
    assert r["mark_dynamic"]["graphs"] == 1 and r["mark_dynamic"]["symint_inputs"]
    df = r["dynamic_flag"]  # dynamic=False does not forbid symbols: mark_dynamic still wins
    assert df["dynamic=False, mark_dynamic"]["graphs"] == 1, df
    assert df["dynamic=False, mark_dynamic"]["symint_inputs"], df
    assert df["dynamic=False"] == {"graphs": 3, "symint_inputs": []}, df
    assert df["dynamic=True"]["graphs"] == 1 and df["dynamic=True"]["symint_inputs"], df
    # 8 -> 16 -> 32: static, then dynamic, then covered; but 1 and 0 each compile again
    assert r["sizes_zero_and_one"]["graphs_after_size"] == {
        8: 1, 16: 2, 32: 2, 1: 3, 2: 3, 0: 4, 64: 4}, r["sizes_zero_and_one"]
    assert r["fail_on_recompile"]["raised"] is not None
    d = r["dispatch_overhead"]
    assert d["overhead_us"] > 0 and 0 < d["guard_check_us"] < d["compiled_same_graph_us"], d


def main() -> dict:
    r = run_all()
    check(r)
    gb = r["graph_break_print"]
    print(f"print() inside the function: {gb['graphs']} graphs, compile ids {gb['compile_ids']}; "
          f"explain: {gb['explain_graph_count']} graphs, {gb['explain_graph_break_count']} break")
    print(f"  reason: {gb['break_reason']}")
    print(f"  fullgraph=True raises {gb['fullgraph_error']}")
    print(f"graph break inside a loop: {r['graph_break_in_loop']['graphs']} graphs "
          "(the frame runs in eager)")
    lh = r["loop_in_helper"]
    print(f"the loop moved into a helper: {lh['graphs']} graphs {lh['ops']}, compile ids "
          f"{lh['compile_ids']} (the helper's frame, 1, runs in eager)")
    rc = r["recompilations"]
    print("graphs compiled so far, after each call of affine(x, n):")
    for step, n in rc["graphs_after"].items():
        print(f"  {step:<20} {n}")
    print("recompile reasons (TORCH_LOGS=recompiles):")
    for reason in rc["reasons"]:
        print(f"  {reason.splitlines()[0]}")
    lim = r["recompile_limit"]
    print(f"dynamic=False, recompile_limit=3, {lim['sizes_called']} sizes: {lim['graphs']} graphs, "
          f"{lim['cache_entries']} cache entries, the rest ran eagerly")
    md = r["mark_dynamic"]
    print(f"mark_dynamic before the first call: {md['graphs']} graph for 4 sizes, "
          f"SymInt inputs {md['symint_inputs']}")
    for name, v in r["dynamic_flag"].items():
        print(f"{name}, sizes 8/16/32: {v['graphs']} graph(s), SymInt inputs {v['symint_inputs']}")
    sz = r["sizes_zero_and_one"]["graphs_after_size"]
    print("scale_sum, graphs after each size: " + ", ".join(f"{n}: {g}" for n, g in sz.items()))
    print(f"set_stance('fail_on_recompile'): {r['fail_on_recompile']['raised'][:60]}...")
    d = r["dispatch_overhead"]
    print(f"per call, 16-element tensor: eager {d['eager_us']} us, the same graph through "
          f"Dynamo {d['compiled_same_graph_us']} us (+{d['overhead_us']} us, of which the guard "
          f"tree {d['guard_check_us']} us)")
    return r


if __name__ == "__main__":
    main()
