"""Measure the roofline's numbers on a CUDA GPU as they were measured on the H200: one command, one JSON.

    python examples/cutlass_deep_dive/capture_gemm.py --out gemm.json

It times square GEMMs through torch.mm (cuBLAS) in bf16 and fp16, one fp8 (e4m3) GEMM through
torch._scaled_mm, and a device-to-device copy, and writes them in the format of
docs/blog/posts/cutlass-deep-dive/gemm-h200.json, which roofline.py draws. Each time is the mean
that Triton's triton.testing.do_bench returns by default, called as the H200 capture behind that file
called it: warmup 10 ms and rep 50 ms (5 ms of warm-up for the copy). do_bench budgets time, not
runs: it times five runs to estimate one, then runs about 10 ms of warm-up and about 50 ms of timed
runs, each timed with CUDA events after zeroing a 256 MB buffer to flush the L2 cache. It needs a
CUDA GPU and Triton (CUDA builds of PyTorch install it); fp8 needs compute capability 8.9 or newer
(the row is skipped, and says why, on older GPUs).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Callable
from pathlib import Path

import torch

FP8_MIN_CAPABILITY = (8, 9)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("gemm.json"), help="where to write the JSON")
    p.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096, 8192, 16384], help="n of the n^3 GEMMs")
    p.add_argument("--dtypes", nargs="+", default=["bfloat16", "float16"], choices=["bfloat16", "float16"])
    p.add_argument("--fp8-n", type=int, default=8192, help="n of the fp8 GEMM (0: skip it)")
    p.add_argument("--copy-gib", type=float, default=2.0, help="size of the copied tensor, GiB")
    p.add_argument("--warmup-ms", type=float, default=10.0, help="do_bench's warmup budget, ms")
    p.add_argument("--rep-ms", type=float, default=50.0, help="do_bench's rep budget, ms")
    args = p.parse_args(argv)
    if min(args.sizes) < 1 or args.warmup_ms < 0 or args.rep_ms <= 0 or args.copy_gib <= 0:
        p.error("sizes, --rep-ms and --copy-gib must be positive, --warmup-ms non-negative")
    return args


def gemm_row(dtype: str, n: int, ms: float) -> dict:
    return {"dtype": dtype, "n": n, "ms": ms, "tflops": 2 * n**3 / (ms * 1e-3) / 1e12}


def copy_gbps(nbytes: int, ms: float) -> float:
    """A copy of nbytes reads nbytes and writes nbytes."""
    return 2 * nbytes / (ms * 1e-3) / 1e9


def document(rows: list[dict], copy: float, versions: dict, machine: str, args: argparse.Namespace) -> dict:
    return {
        "machine": machine,
        "versions": versions,
        "how": (f"cuBLAS through torch.mm on n x n by n x n matrices (torch.randn), n = {args.sizes}, and "
                f"torch._scaled_mm in float8_e4m3fn (B column-major, unit scales, bfloat16 output) at n = "
                f"{args.fp8_n}; a device-to-device copy_ of a {args.copy_gib:g} GiB float16 tensor; {method(args)}; "
                "TFLOP/s = 2 n^3 / time; the copy's GB/s counts the bytes read plus the bytes written"),
        "script": "examples/cutlass_deep_dive/capture_gemm.py",
        "gemm": rows,
        "copy_GBps_read_plus_write": copy,
    }


def copy_warmup_ms(args: argparse.Namespace) -> float:
    return min(args.warmup_ms, 5.0)


def method(args: argparse.Namespace) -> str:
    return (f"triton.testing.do_bench means in ms (its default return_mode; warmup {args.warmup_ms:g} ms, "
            f"rep {args.rep_ms:g} ms; the copy warmup {copy_warmup_ms(args):g} ms)")


def mean_ms(fn: Callable[[], object], warmup_ms: float, rep_ms: float) -> float:
    from triton.testing import do_bench  # imported here: the CPU-side tests run without Triton

    return do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="mean")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("capture_gemm.py needs a CUDA GPU: torch.cuda.is_available() is False", file=sys.stderr)
        return 2
    try:
        import triton
    except ImportError:
        print("capture_gemm.py needs Triton for triton.testing.do_bench", file=sys.stderr)
        return 2
    rows: list[dict] = []
    for name in args.dtypes:
        dtype = getattr(torch, name)
        for n in args.sizes:
            a, b = torch.randn(n, n, device="cuda", dtype=dtype), torch.randn(n, n, device="cuda", dtype=dtype)
            rows.append(gemm_row(name, n, mean_ms(lambda a=a, b=b: torch.mm(a, b), args.warmup_ms, args.rep_ms)))
            print(rows[-1], flush=True)
            del a, b
    if args.fp8_n and torch.cuda.get_device_capability() >= FP8_MIN_CAPABILITY:
        n = args.fp8_n
        a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()  # _scaled_mm wants B column-major
        one = torch.ones((), device="cuda")
        ms = mean_ms(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16), args.warmup_ms, args.rep_ms)
        rows.append(gemm_row("float8_e4m3fn", n, ms))
        print(rows[-1], flush=True)
        del a, b
    elif args.fp8_n:
        print(f"fp8 skipped: compute capability {torch.cuda.get_device_capability()} < {FP8_MIN_CAPABILITY}")
    src = torch.empty(int(args.copy_gib * 2**30) // 2, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    copy = copy_gbps(src.numel() * 2, mean_ms(lambda: dst.copy_(src), copy_warmup_ms(args), args.rep_ms))
    props = torch.cuda.get_device_properties(0)
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda, "triton": triton.__version__,
                "python": platform.python_version()}
    machine = f"one {props.name} ({props.multi_processor_count} SMs, {props.total_memory / 1e9:.0f} GB)"
    args.out.write_text(json.dumps(document(rows, copy, versions, machine, args), indent=1) + "\n", encoding="utf-8")
    print(f"copy {copy:.0f} GB/s (read + write); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
