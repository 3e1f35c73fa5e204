"""Capture CUDA graphs per batch size the way vLLM does, and time what they buy (needs CUDA).

    python examples/vllm_torch_compile_dynamic_batch_sizes/gpu_capture.py --out gpu.json
    python examples/vllm_torch_compile_dynamic_batch_sizes/figures.py --data gpu.json --out DIR

A decode-like stand-in, not vLLM: LAYERS bf16 Linear(HIDDEN, HIDDEN) + SiLU, two kernels per
layer. What it copies from vLLM v0.33.0: one persistent input buffer of the largest size, which
every graph reads a prefix of; captures largest first, all into one shared memory pool; and at run
time, a batch copied into the front of the buffer and the graph of the next capture size replayed,
its padded rows ignored. It measures the way the H200 run behind the post's figures did, so its
numbers can be set beside them: the same 15 capture sizes (``--sizes vllm`` takes vLLM's default
rule instead, ported in mini_piecewise.py and checked against the wheel), three eager warm-up
steps at the largest size before the captures (vLLM warms up before each capture instead), every
graph's output kept alive, the pool taken as the drop in free device memory across the captures,
and every time a ``triton.testing.do_bench`` mean with warmup=10 and rep=40 (milliseconds of
warm-up and of timed calls). A padded batch's time is the replay of its graph: the copy into the
buffer is the runner's, made for every step, graph or not. It writes the JSON that figures.py draws.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from measure import _mini  # noqa: E402  (the miniature, loaded once under one module name)

H200_SIZES = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)  # the H200 run's
PAD_BATCHES = (3, 5, 17, 33, 100, 200, 300, 511)
WARMUP_MS, REP_MS = 10, 40      # do_bench's budgets, in milliseconds, as in the H200 run
EAGER_WARMUPS = 3               # eager steps at the largest size before the first capture


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("gpu-capture.json"))
    p.add_argument("--sizes", default=",".join(map(str, H200_SIZES)),
                   help="comma-separated capture sizes (default: the H200 run's 15), or 'vllm' "
                        "for vLLM's default rule for --max-num-seqs and --max-num-batched-tokens")
    p.add_argument("--max-num-seqs", type=int, default=256)
    p.add_argument("--max-num-batched-tokens", type=int, default=8192)
    p.add_argument("--pad-batches", type=lambda s: [int(v) for v in s.split(",")],
                   default=list(PAD_BATCHES))
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    args = p.parse_args(argv)
    if args.sizes == "vllm":
        args.sizes = _mini().default_capture_sizes(args.max_num_seqs, args.max_num_batched_tokens)
    else:
        args.sizes = [int(v) for v in args.sizes.split(",")]
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
                  f"Times in microseconds (triton.testing.do_bench means, warmup={WARMUP_MS} ms, "
                  f"rep={REP_MS} ms), captures in ms, the pool as the drop in free device memory."),
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


def time_us(fn, bench=None) -> float:
    """Mean time per call in microseconds, by triton.testing.do_bench (CUDA events around each
    call, L2 cleared before each), with the H200 run's budgets."""
    if bench is None:
        from triton.testing import do_bench as bench  # noqa: PLC0415  (CUDA machines only)
    return bench(fn, warmup=WARMUP_MS, rep=REP_MS, return_mode="mean") * 1e3


def run(args: argparse.Namespace) -> dict:
    if not torch.cuda.is_available():
        raise SystemExit("gpu_capture.py needs a CUDA device; this machine has none.")
    try:
        import triton  # noqa: PLC0415  (its do_bench times every figure)
    except ImportError:
        raise SystemExit("gpu_capture.py needs Triton for triton.testing.do_bench.") from None
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
    pool = torch.cuda.graph_pool_handle()
    graphs: dict[int, tuple[torch.cuda.CUDAGraph, float]] = {}
    outs: dict[int, torch.Tensor] = {}
    with torch.no_grad():
        for _ in range(EAGER_WARMUPS):
            step(buffer)                 # eager, largest size, outside the pool
        torch.cuda.synchronize()
        free_before = torch.cuda.mem_get_info()[0]
        for size in reversed(args.sizes):                       # largest first, like vLLM
            g = torch.cuda.CUDAGraph()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with torch.cuda.graph(g, pool=pool):
                outs[size] = step(buffer[:size])
            torch.cuda.synchronize()
            graphs[size] = (g, time.perf_counter() - t0)
        pool_mib = (free_before - torch.cuda.mem_get_info()[0]) / 2**20

        rows = []
        for size in args.sizes:
            g, cap = graphs[size]
            x = buffer[:size]
            rows.append({"batch": size, "capture_ms": cap * 1e3, "replay_us": time_us(g.replay),
                         "eager_us": time_us(lambda x=x: step(x))})
        replay = {r["batch"]: r["replay_us"] for r in rows}
        pads = []
        for batch, size in padding_plan(args.pad_batches, args.sizes):
            x = torch.randn(batch, args.hidden, device=dev, dtype=torch.bfloat16)
            buffer[:batch].copy_(x)           # the runner writes the real rows; the tail is stale
            graphs[size][0].replay()          # the graph of the next capture size
            want = step(x)                    # eager, real rows; outputs are ~1e-4, so atol scales
            torch.testing.assert_close(outs[size][:batch], want, rtol=2e-2,
                                       atol=2e-2 * want.abs().max().item())
            # --8<-- [end:capture]
            pads.append({"batch": batch, "padded_to": size, "replay_padded_us": replay[size],
                         "eager_exact_us": time_us(lambda b=batch: step(buffer[:b]))})
    machine = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "triton": triton.__version__, "cuda": torch.version.cuda}
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
