"""Measure rms_norm under torch.compile on a CUDA GPU: the post's "On an H200" figures, re-taken.

Run from the repository root on a machine with one NVIDIA GPU, torch and triton (about a minute):

    python examples/torch_compile_101/capture_gpu.py --out /tmp/tc101-gpu

It writes, into --out, files of the same names and shapes as the ones committed in
docs/blog/posts/torch-compile-101/h200/: rms_norm.json (every number the post quotes, with the
versions it ran under) and the wrapper module Inductor generated for three compiles
(forward_64x256.txt, backward_64x256.txt, forward_4096x4096.txt), and the post's table of eager
against compiled (table.txt). Copy them over the committed
ones to re-take the post's figures at the installed torch; the tests check the schema.

What it measures:
  * the first call of a fresh torch.compile(rms_norm) with a backward (64x256, float32), the
    generated code, the kernels' names and the launch configuration each kernel settled on (also
    for the 4096x4096 float32 forward, after its first launch has autotuned);
  * eager vs compiled at four shapes and two dtypes (triton.testing.do_bench with its defaults:
    25 ms of warm-up, then 100 ms of calls, each timed with CUDA events after an L2 flush; it
    returns the mean, in ms);
  * eager, default and mode="reduce-overhead" at 64x256 and 4096x4096 three ways (host wall time
    per call over a loop of --loops calls after 50 warm-up calls, CUDA events around the same
    loop, do_bench), the GPU time per call of the input copy that CUDA graph trees make
    (aten::_foreach_copy_ in the profiler), and a chain of 20 RMSNorms compiled both ways (host
    wall time over a quarter as many calls), with the number of kernels its wrapper defines and
    the number of launches (.run( calls) in its call(): Inductor gives identical kernel sources
    one name, so the definitions alone cannot tell one launch from twenty.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPES = ((64, 256, "float32"), (4096, 4096, "float32"), (4096, 4096, "bfloat16"),
          (16384, 8192, "bfloat16"))
CODE_FILES = ("forward_64x256.txt", "backward_64x256.txt", "forward_4096x4096.txt")
MODES = ("eager", "default", "reduce-overhead")
CHAIN = 20


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for rms_norm.json and the code")
    parser.add_argument("--loops", type=int, default=2000, help="calls per host-timed loop")
    return parser.parse_args(argv)


def kernel_names(code: str) -> list[str]:
    """The Triton kernels a generated wrapper module defines, in order of definition."""
    return re.findall(r"^def (triton_\w+)\(", code, re.M)


def kernel_launches(code: str) -> list[str]:
    """The Triton kernels a generated wrapper module's call() launches, in order, once per launch."""
    return re.findall(r"^\s+(triton_\w+)\.run\(", code, re.M)


def launch_configs(modules) -> dict[str, dict]:
    """The configuration each Triton kernel of the loaded wrapper modules launched with.

    After a call, a kernel is a CachingAutotuner whose ``launchers`` hold the compiled configs;
    once autotuned (or with a single candidate) there is one.
    """
    found = {}
    for mod in modules:
        for value in vars(mod).values():
            launchers = getattr(value, "launchers", None)
            meta = getattr(value, "inductor_meta", None)
            if not launchers or not isinstance(meta, dict) or "kernel_name" not in meta:
                continue
            cfg = launchers[0].config
            # precompile() sets ``configs`` to None once the launchers are built: the number of
            # candidates is then unknown here (launch_config.py recomputes it from the decorator).
            configs = getattr(value, "configs", None)
            found[meta["kernel_name"]] = {"block": dict(cfg.kwargs), "num_warps": cfg.num_warps,
                                          "num_stages": cfg.num_stages,
                                          "candidates": len(configs) if configs is not None else None}
    return dict(sorted(found.items()))


def check(result: dict) -> None:
    """The schema of rms_norm.json, and the facts the post reads off it."""
    assert set(result) == {"machine", "first_call_s_64x256_fwd_bwd", "kernels", "launch_configs",
                           "max_abs_err_fp32", "timings", "reduce_overhead"}, sorted(result)
    assert set(result["machine"]) == {"gpu", "sms", "torch", "triton", "cuda"}
    assert set(result["kernels"]) == {name.removesuffix(".txt") for name in CODE_FILES}
    assert [(t["rows"], t["cols"], t["dtype"]) for t in result["timings"]] == list(SHAPES)
    for t in result["timings"]:
        assert t["eager_ms"] > 0 and t["compiled_ms"] > 0 and t["compile_s"] > 0
    ro = result["reduce_overhead"]
    for shape in ("64x256", "4096x4096"):
        assert set(ro[shape]) == set(MODES) and all(len(v) == 3 for v in ro[shape].values())
    assert set(ro["chain_host_wall_us"]) == set(MODES) and ro["chain_kernel_defs"] >= 1
    # None: not counted (the committed H200 run counted definitions only).
    assert ro["chain_launches"] is None or ro["chain_launches"] >= ro["chain_kernel_defs"]
    assert set(ro["foreach_copy_gpu_us_per_call"]) == {"64x256", "4096x4096"}
    assert result["max_abs_err_fp32"] < 1e-5


def table(result: dict) -> str:
    """The post's table of eager against compiled, as Markdown; a pure function of rms_norm.json."""
    lines = ["| rows × cols | dtype | eager | compiled | speed-up | compiled, read x + write y |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for t in result["timings"]:
        nbytes = 2 * t["rows"] * t["cols"] * (4 if t["dtype"] == "float32" else 2)
        lines.append(f"| {t['rows']} × {t['cols']} | {t['dtype']} | {t['eager_ms'] * 1e3:,.1f} µs "
                     f"| {t['compiled_ms'] * 1e3:,.1f} µs | {t['eager_ms'] / t['compiled_ms']:.2f}× "
                     f"| {nbytes / (t['compiled_ms'] * 1e-3) / 1e9:,.0f} GB/s |")
    return "\n".join(lines) + "\n"


def capture(loops: int) -> tuple[dict, dict[str, str]]:  # pragma: no cover - needs a CUDA GPU
    import torch
    import triton
    from rms_norm import rms_norm
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.utils import run_and_get_code
    from torch.profiler import ProfilerActivity, profile
    from triton.testing import do_bench

    dev = "cuda"
    props = torch.cuda.get_device_properties(0)
    result: dict = {"machine": {"gpu": props.name, "sms": props.multi_processor_count,
                                "torch": torch.__version__, "triton": triton.__version__,
                                "cuda": torch.version.cuda}}
    code: dict[str, str] = {}

    # 1. Forward and backward at 64x256: the generated code and what it launched with.
    torch._dynamo.reset()
    x = torch.randn(64, 256, device=dev, requires_grad=True)
    w = (torch.rand(256, device=dev) + 0.5).requires_grad_()

    def fwd_bwd():
        out = torch.compile(rms_norm)(x, w)
        out.sum().backward()
        return out

    t0 = time.perf_counter()
    out, codes = run_and_get_code(fwd_bwd)
    torch.cuda.synchronize()
    result["first_call_s_64x256_fwd_bwd"] = time.perf_counter() - t0
    code["forward_64x256.txt"], code["backward_64x256.txt"] = codes
    result["launch_configs"] = launch_configs(PyCodeCache.modules)
    result["max_abs_err_fp32"] = float((out - rms_norm(x, w)).abs().max())

    # 2. Eager vs compiled at four shapes (inference: no grad).
    timings = []
    for rows, cols, dtype in SHAPES:
        torch._dynamo.reset()
        dt = getattr(torch, dtype)
        xx = torch.randn(rows, cols, device=dev, dtype=dt)
        ww = torch.rand(cols, device=dev, dtype=dt) + 0.5
        compiled = torch.compile(rms_norm)
        t0 = time.perf_counter()
        loaded = len(PyCodeCache.modules)
        if (rows, cols, dtype) == (4096, 4096, "float32"):
            _, (code["forward_4096x4096.txt"],) = run_and_get_code(compiled, xx, ww)
        else:
            compiled(xx, ww)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        eager_ms, compiled_ms = do_bench(partial(rms_norm, xx, ww)), do_bench(partial(compiled, xx, ww))
        if (rows, cols, dtype) == (4096, 4096, "float32"):  # the config its first launch chose
            result["launch_configs"].update(launch_configs(PyCodeCache.modules[loaded:]))
        timings.append({"rows": rows, "cols": cols, "dtype": dtype, "eager_ms": eager_ms,
                        "compiled_ms": compiled_ms, "compile_s": compile_s})
    result["timings"] = timings
    result["kernels"] = {name.removesuffix(".txt"): kernel_names(text) for name, text in code.items()}

    # 3. reduce-overhead against the default mode.
    def host_us(fn, n=loops):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / n * 1e6

    def event_us(fn):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        for _ in range(loops):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / loops * 1e3

    ro: dict = {"foreach_copy_gpu_us_per_call": {}}
    for rows, cols in ((64, 256), (4096, 4096)):
        torch._dynamo.reset()
        xx, ww = torch.randn(rows, cols, device=dev), torch.rand(cols, device=dev) + 0.5
        fns = {"eager": rms_norm, "default": torch.compile(rms_norm),
               "reduce-overhead": torch.compile(rms_norm, mode="reduce-overhead")}
        for fn in fns.values():
            for _ in range(5):
                fn(xx, ww)
        ro[f"{rows}x{cols}"] = {
            name: [round(host_us(partial(fn, xx, ww)), 1), round(event_us(partial(fn, xx, ww)), 1),
                   round(do_bench(partial(fn, xx, ww)) * 1e3, 1)]
            for name, fn in fns.items()}
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                fns["reduce-overhead"](xx, ww)
            torch.cuda.synchronize()
        copy = [e for e in prof.key_averages() if e.key == "aten::_foreach_copy_"]
        ro["foreach_copy_gpu_us_per_call"][f"{rows}x{cols}"] = (
            round(copy[0].self_device_time_total / 20, 2) if copy else 0.0)

    def chain(x, w):
        for _ in range(CHAIN):
            x = rms_norm(x, w) * 1.0001
        return x

    torch._dynamo.reset()
    xx, ww = torch.randn(64, 256, device=dev), torch.rand(256, device=dev) + 0.5
    fns = {"eager": chain, "default": torch.compile(chain),
           "reduce-overhead": torch.compile(chain, mode="reduce-overhead")}
    for fn in fns.values():
        for _ in range(5):
            fn(xx, ww)
    ro["chain_host_wall_us"] = {name: round(host_us(partial(fn, xx, ww), max(1, loops // 4)), 1)
                                for name, fn in fns.items()}
    torch._dynamo.reset()
    _, chain_codes = run_and_get_code(torch.compile(chain), xx, ww)
    ro["chain_kernel_defs"] = len({k for c in chain_codes for k in kernel_names(c)})
    ro["chain_launches"] = sum(len(kernel_launches(c)) for c in chain_codes)
    result["reduce_overhead"] = ro
    return result, code


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("capture_gpu.py needs a CUDA GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    result, code = capture(args.loops)
    check(result)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rms_norm.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, text in code.items():
        (args.out / name).write_text(text, encoding="utf-8")
    (args.out / "table.txt").write_text(table(result), encoding="utf-8")
    print(json.dumps(result["timings"], indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
