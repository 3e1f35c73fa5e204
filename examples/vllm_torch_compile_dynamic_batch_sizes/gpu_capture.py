"""Capture CUDA graphs per batch size the way vLLM does, and time what they buy (needs CUDA).

    python examples/vllm_torch_compile_dynamic_batch_sizes/gpu_capture.py --out gpu.json
    python examples/vllm_torch_compile_dynamic_batch_sizes/figures.py --data gpu.json --out DIR

A decode-like stand-in, not vLLM: LAYERS bf16 Linear(HIDDEN, HIDDEN) + SiLU, two kernels per
layer. What it copies from vLLM v0.33.0: the capture sizes (the default rule of
VllmConfig._set_cudagraph_sizes, ported in mini_piecewise.py and checked against the wheel);
one persistent input buffer of the largest size, which every graph reads a prefix of; one warm-up
run before each capture; captures largest first, all into one shared memory pool, no graph's
output kept alive after its capture (vLLM keeps only weak references to them; here each graph
copies its result into a persistent output buffer); and at run time, a batch copied into the
front of the input buffer and the graph of the next capture size replayed, its padded rows
ignored. It writes the JSON that figures.py draws.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from measure import _mini  # noqa: E402  (the miniature, loaded once under one module name)

PAD_BATCHES = (3, 5, 17, 33, 100, 200, 300, 511)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("gpu-capture.json"))
    p.add_argument("--max-num-seqs", type=int, default=256)
    p.add_argument("--max-num-batched-tokens", type=int, default=8192)
    p.add_argument("--sizes", type=lambda s: [int(v) for v in s.split(",")], default=None,
                   help="comma-separated capture sizes (default: vLLM's rule for the two limits)")
    p.add_argument("--pad-batches", type=lambda s: [int(v) for v in s.split(",")],
                   default=list(PAD_BATCHES))
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--reps", type=int, default=100, help="calls per timed round (5 rounds)")
    args = p.parse_args(argv)
    if args.sizes is None:
        args.sizes = _mini().default_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens)
    args.sizes = sorted(set(args.sizes))
    return args


def padding_plan(batches: list[int], sizes: list[int]) -> list[tuple[int, int]]:
    """(batch, capture size it is padded to), for the batches a graph can serve."""
    padded = _mini().padded_size
    return [(b, padded(b, sizes)) for b in batches if padded(b, sizes) is not None]


def summarize(args: argparse.Namespace, machine: dict, rows: list[dict], pads: list[dict],
              pool_mib: float, capture_s: float) -> dict:
    """The JSON figures.py reads: same shape as the committed gpu-h200.json (without the
    cuda_graph_decode section, which came from a separate script)."""
    return {
        "about": (f"Written by gpu_capture.py on {machine['gpu']}, torch {machine['torch']}. "
                  "Times in microseconds (median of 5 rounds, CUDA events), captures in ms."),
        "machine": machine,
        "capture_sizes": {
            "script": "gpu_capture.py",
            "model": f"{args.layers} x (bf16 Linear {args.hidden}x{args.hidden} + SiLU)",
            "sizes": args.sizes,
            "graph_pool_MiB": pool_mib,
            "weights_MiB": args.layers * args.hidden * args.hidden * 2 / 2**20,
            "total_capture_s": capture_s,
            "per_size": rows,
            "padding": pads,
        },
    }


def _time_us(fn, reps: int) -> float:
    """Median over 5 rounds of the mean per-call time, between CUDA events on the stream."""
    for _ in range(3):
        fn()
    rounds = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        rounds.append(start.elapsed_time(end) * 1e3 / reps)
    return statistics.median(rounds)


def run(args: argparse.Namespace) -> dict:
    if not torch.cuda.is_available():
        raise SystemExit("gpu_capture.py needs a CUDA device; this machine has none.")
    dev = torch.device("cuda")
    torch.manual_seed(0)
    layers = [torch.nn.Linear(args.hidden, args.hidden, bias=False, device=dev,
                              dtype=torch.bfloat16) for _ in range(args.layers)]

    def step(x: torch.Tensor) -> torch.Tensor:
        for lin in layers:
            x = torch.nn.functional.silu(lin(x))
        return x

    # --8<-- [start:capture]
    largest = args.sizes[-1]
    buffer = torch.zeros(largest, args.hidden, device=dev, dtype=torch.bfloat16)  # persistent
    result = torch.zeros_like(buffer)       # persistent too: no graph output outlives its capture
    pool = torch.cuda.graph_pool_handle()
    graphs: dict[int, tuple[torch.cuda.CUDAGraph, float]] = {}
    with torch.inference_mode():
        step(buffer)                     # eager blocks of the largest size, outside the pool
        torch.cuda.synchronize()
        reserved0 = torch.cuda.memory_reserved()
        for size in reversed(args.sizes):                       # largest first, like vLLM
            step(buffer[:size])                                 # warm-up run, no graph
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, pool=pool):
                result[:size].copy_(step(buffer[:size]))
            torch.cuda.synchronize()
            graphs[size] = (g, time.perf_counter() - t0)
        pool_mib = (torch.cuda.memory_reserved() - reserved0) / 2**20

        rows = []
        for size in args.sizes:
            g, cap = graphs[size]
            x = buffer[:size]
            rows.append({"batch": size, "capture_ms": cap * 1e3,
                         "replay_us": _time_us(g.replay, args.reps),
                         "eager_us": _time_us(lambda x=x: step(x), args.reps)})
        pads = []
        for batch, size in padding_plan(args.pad_batches, args.sizes):
            g, _ = graphs[size]
            x = torch.randn(batch, args.hidden, device=dev, dtype=torch.bfloat16)

            def padded_call(g=g, x=x, batch=batch):
                buffer[:batch].copy_(x)       # the runner writes the real rows; the tail is stale
                g.replay()                    # the graph of the next capture size

            padded_call()
            want = step(x)                    # eager, real rows; outputs are ~1e-4, so atol scales
            torch.testing.assert_close(result[:batch], want, rtol=2e-2, atol=2e-2 * want.abs().max().item())
            # --8<-- [end:capture]
            pads.append({"batch": batch, "padded_to": size,
                         "replay_padded_us": _time_us(padded_call, args.reps),
                         "eager_exact_us": _time_us(lambda x=x: step(x), args.reps)})
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    machine = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "triton": triton_version, "cuda": torch.version.cuda}
    return summarize(args, machine, rows, pads, pool_mib, sum(c for _, c in graphs.values()))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    result = run(args)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    cs = result["capture_sizes"]
    print(f"{len(cs['sizes'])} graphs captured in {cs['total_capture_s'] * 1e3:.0f} ms, "
          f"pool {cs['graph_pool_MiB']:.0f} MiB; wrote {args.out}")
    for r in cs["per_size"]:
        print(f"  batch {r['batch']:4d}: replay {r['replay_us']:7.1f} us, eager {r['eager_us']:7.1f} us")
    for p in cs["padding"]:
        print(f"  batch {p['batch']:4d} -> graph {p['padded_to']:4d}: {p['replay_padded_us']:7.1f} us "
              f"(eager at {p['batch']}: {p['eager_exact_us']:7.1f} us)")


if __name__ == "__main__":
    main()
