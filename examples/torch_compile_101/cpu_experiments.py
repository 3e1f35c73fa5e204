"""Three things the post says, run and checked on the CPU build (torch 2.13.0, no GPU).

Run from the repository root (under a minute with warm Inductor directories):

    python examples/torch_compile_101/cpu_experiments.py

1. mode="reduce-overhead" on a CPU-only graph changes nothing, silently. While lowering,
   compile_fx asks cudagraph_utils.check_multiple_devices_or_any_cpu_nodes whether the graph can
   be recorded; it receives a device map holding only the CPU, and with graph partitioning on
   (the 2.13.0 default) drops the CPU entry, is left with an empty map, and returns a reason.
   CompiledFxGraph then counts a skip (counters["inductor"]["cudagraph_skips"]) without logging
   it, because "cuda" is not among the graph's device types. The compiled function returns
   exactly what the default mode's does.
2. The outer-loop fusion check. Inductor's C++ scheduler fuses the forward's three nodes into one
   OuterLoopFusedSchedulerNode, but code generation asks check_outer_fusion_loop_level_attr
   whether the nodes' outer loops agree (variable, size, offset, step). In the forward they do
   not (the rsqrt loop over the 64 rows steps by the float lanes of the vector ISA Inductor picks,
   16 with AVX-512; the other two step by 1), so codegen falls back to one loop nest per node; in
   the backward the check passes and the two row-wise nodes share one loop over the rows.
3. A chain of 20 RMSNorms, each followed by a multiply, compiles to one Triton kernel launched
   once. The CPU wheel has no triton package, so the wrapper is generated for Inductor's Triton
   backend on CPU tensors with more_stages.py's stand-in for triton_hash_with_backend, and kept as
   PyCodeCache.write receives it; the compile then fails, as it must, at `import triton`.

Each experiment wraps the one function it observes (the wrapper records arguments and result and
returns the result unchanged) and compiles with the FX graph and AOTAutograd caches off, so that
Inductor really lowers and generates code in this process.
"""

from __future__ import annotations

import inspect
import json
import logging
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent


@contextmanager
def spy(owner, name: str, record, on_entry=lambda args: None):
    """Replace owner.name by a wrapper that calls it and hands (on_entry(args), args, result) to
    record: on_entry sees the arguments before the call, record after it."""
    raw, original = inspect.getattr_static(owner, name), getattr(owner, name)

    def wrapper(*args, **kwargs):
        entry = on_entry(args)
        result = original(*args, **kwargs)
        record(entry, args, result)
        return result

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, raw)


@contextmanager
def fresh_compiles():
    """No cache hits: Inductor lowers and generates code for every graph."""
    import torch

    torch._dynamo.reset()
    with torch._inductor.config.patch(fx_graph_cache=False), \
            torch._functorch.config.patch(enable_autograd_cache=False):
        yield
    torch._dynamo.reset()


# --8<-- [start:reduce_overhead]
def reduce_overhead_on_cpu() -> dict:
    import torch
    import torch._inductor.cudagraph_utils as cudagraph_utils
    from rms_norm import make_inputs, rms_norm
    from torch._dynamo.utils import counters

    checks = []
    logged: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda rec: logged.append(rec.getMessage())
    torch_log = logging.getLogger("torch")
    x, w = make_inputs(requires_grad=False)
    counters.clear()
    with fresh_compiles(), warnings.catch_warnings(record=True) as warned, \
            spy(cudagraph_utils, "check_multiple_devices_or_any_cpu_nodes",
                lambda received, args, reason: checks.append((received, [str(d) for d in args[0]], reason)),
                on_entry=lambda args: [str(d) for d in args[0]]):
        warnings.simplefilter("always")
        torch_log.addHandler(handler)
        try:
            with torch.no_grad():
                graphed = torch.compile(rms_norm, mode="reduce-overhead")(x, w)
                skips = counters["inductor"]["cudagraph_skips"]
                torch._dynamo.reset()
                default = torch.compile(rms_norm)(x, w)
        finally:
            torch_log.removeHandler(handler)
    return {"device_map_received": checks[0][0] if checks else None,
            "device_map_after_dropping_cpu": checks[0][1] if checks else None,
            "reason": checks[0][2] if checks else None, "checks": len(checks),
            "cudagraph_skips": skips,
            # (importing Inductor also warns, about torch.jit: only CUDA-graph messages count)
            "cudagraph_warnings": [m for m in [str(w.message) for w in warned] + logged
                                   if "cudagraph" in m.lower()],
            "same_as_default": bool(torch.equal(graphed, default)),
            "matches_eager": bool(torch.allclose(graphed, rms_norm(x, w)))}
# --8<-- [end:reduce_overhead]


# --8<-- [start:outer_loop]
def outer_loop_fusion() -> dict:
    import torch
    from rms_norm import make_inputs, rms_norm
    from torch._inductor.codegen.cpp import OuterLoopFusedSchedulerNode
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    seen = []

    def record(_, args, passed):
        node, kernels = args[0], args[1]
        seen.append({"node": node.get_name(), "passed": passed,
                     "outer_loop_steps": [int(k.loop_nest.loops[0].steps) for k in kernels],
                     "outer_loop_sizes": [int(k.loop_nest.loops[0].size) for k in kernels]})

    x, w = make_inputs()
    with fresh_compiles(), spy(OuterLoopFusedSchedulerNode, "check_outer_fusion_loop_level_attr", record):
        out = torch.compile(rms_norm)(x, w)
        out.sum().backward()
    # The vectorized row loop steps by the float lanes of the ISA Inductor picks: 16 with AVX-512, 8 with AVX2.
    return {"forward": seen[0], "backward": seen[1], "checks": len(seen), "lanes": pick_vec_isa().nelements()}
# --8<-- [end:outer_loop]


def chain_on_triton_backend(links: int = 20) -> dict:
    import torch
    import torch.utils._triton
    from capture_gpu import kernel_launches, kernel_names
    from more_stages import compile_without_triton
    from rms_norm import rms_norm
    from torch._inductor.codecache import PyCodeCache

    def chain(x, w):
        for _ in range(links):
            x = rms_norm(x, w) * 1.0001
        return x

    written: list[str] = []
    x, w = torch.randn(64, 256), torch.rand(256) + 0.5
    # The one function that needs the triton package while the code is written (more_stages.py).
    no_triton = mock.patch.object(torch.utils._triton, "triton_hash_with_backend",
                                  lambda: "<no triton package>")
    with fresh_compiles(), torch._inductor.config.patch(cpu_backend="triton"), no_triton, \
            spy(PyCodeCache, "write", lambda _, args, result: written.append(args[0])):
        compile_without_triton(chain, x, w)
    wrappers = [code for code in written if "def call(self, args):" in code]
    # Counted as capture_gpu.py counts the H200's wrappers.
    return {"wrappers": len(wrappers),
            "kernel_defs": sorted({k for c in wrappers for k in kernel_names(c)}),
            "launches": [k for c in wrappers for k in kernel_launches(c)]}


def check(result: dict) -> None:
    """What the post says, as assertions."""
    ro = result["reduce_overhead"]
    assert ro["checks"] == 1 and ro["device_map_received"] == ["cpu"], ro
    assert ro["device_map_after_dropping_cpu"] == [], ro
    assert ro["reason"] == "skipping cudagraphs due to multiple devices: ", ro["reason"]
    assert ro["cudagraph_skips"] == 1 and ro["cudagraph_warnings"] == [], ro
    assert ro["same_as_default"] and ro["matches_eager"]
    ol = result["outer_loop"]
    assert ol["checks"] == 2 and ol["lanes"] > 1
    assert ol["forward"] == {"node": "op0_op1_op2", "passed": False, "outer_loop_steps": [1, ol["lanes"], 1],
                             "outer_loop_sizes": [64, 64, 64]}, ol["forward"]
    assert ol["backward"] == {"node": "op1_op2", "passed": True, "outer_loop_steps": [1, 1],
                              "outer_loop_sizes": [64, 64]}, ol["backward"]
    ch = result["chain"]
    assert ch["wrappers"] == 1 and len(ch["kernel_defs"]) == 1 and ch["launches"] == ch["kernel_defs"], ch


def main(argv: list[str]) -> dict:
    sys.path.insert(0, str(HERE))
    result = {"reduce_overhead": reduce_overhead_on_cpu(), "outer_loop": outer_loop_fusion(),
              "chain": chain_on_triton_backend()}
    ro, ol = result["reduce_overhead"], result["outer_loop"]
    print(f"reduce-overhead on the CPU: device map received {ro['device_map_received']}, "
          f"after dropping the CPU {ro['device_map_after_dropping_cpu']}")
    print(f"reduce-overhead on the CPU: reason {ro['reason']!r}, cudagraph_skips "
          f"{ro['cudagraph_skips']}, warnings about it {len(ro['cudagraph_warnings'])}, same output as the "
          f"default mode: {ro['same_as_default']}")
    for name in ("forward", "backward"):
        c = ol[name]
        print(f"outer-loop check, {name} {c['node']}: outer-loop steps {c['outer_loop_steps']} "
              f"-> {'one shared row loop' if c['passed'] else 'fell back to one loop nest per node'}")
    ch = result["chain"]
    print(f"20 chained RMSNorms, Triton backend: {len(ch['kernel_defs'])} kernel defined, "
          f"{len(ch['launches'])} launch ({', '.join(ch['launches'])})")
    if "--json" in argv:  # the same run's result, for the tests: --json PATH
        Path(argv[argv.index("--json") + 1]).write_text(json.dumps(result, indent=1), encoding="utf-8")
    check(result)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
