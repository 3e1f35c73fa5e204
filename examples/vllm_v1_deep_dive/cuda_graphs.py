"""vLLM's CUDA-graph capture sizes, and what a graph per size buys on a GPU (the capture needs CUDA).

    python examples/vllm_v1_deep_dive/cuda_graphs.py --out cuda_graphs.json

``capture_sizes`` is the rule of ``VllmConfig._set_cudagraph_sizes`` (vllm/config/vllm.py,
v0.33.0) for one-token decodes, no speculative decoding and no sizes given by the user; the tests
compare it with vLLM's own function over many settings. ``main`` captures, on CUDA, one graph per
size of that rule for a decode-like stand-in (``LAYERS`` bf16 ``Linear(HIDDEN, HIDDEN)`` + SiLU:
8 GEMMs and 8 SiLUs per step, not a model), the way vLLM's runner does: largest size first, every
graph into one shared memory pool, all reading a prefix of one persistent input buffer. It writes
per size the capture time, the mean replay time and the mean eager time (``triton.testing.do_bench``,
warmup=10, rep=40), and the pool's size as the drop in free device memory across the captures.
"""

from __future__ import annotations

import argparse
import json
import time

LAYERS, HIDDEN = 8, 4096


# --8<-- [start:sizes]
def capture_sizes(max_num_seqs: int, max_num_batched_tokens: int, *, blackwell: bool = False,
                  performance_mode: str = "balanced") -> list[int]:
    """The batch sizes (in tokens) vLLM captures a graph for, one-token decodes."""
    ceiling = min(2 * max_num_seqs, 1024 if blackwell else 512)  # 2x the decode batch
    decode = [max_num_seqs] if max_num_seqs <= ceiling else []  # the widest decode batch
    top = min(max_num_batched_tokens, ceiling)
    if performance_mode == "interactivity":  # every size up to 32: no padding for small batches
        sizes = list(range(1, min(top, 32) + 1))
    else:
        sizes = [n for n in (1, 2, 4) if n <= top]
    sizes += list(range(8, min(top + 1, 256), 8)) if top >= 8 else []
    sizes += list(range(256, top + 1, 16)) if top >= 256 else []
    if max_num_batched_tokens <= top:
        sizes.append(max_num_batched_tokens)  # the largest possible batch, even off-stride
    sizes += [n for n in decode if n <= max_num_batched_tokens]
    return sorted(set(sizes))
# --8<-- [end:sizes]


def measure(sizes: list[int]) -> dict:  # pragma: no cover - needs CUDA
    import torch
    from triton.testing import do_bench

    torch.manual_seed(0)
    layers = [torch.nn.Linear(HIDDEN, HIDDEN, bias=False, device="cuda", dtype=torch.bfloat16)
              for _ in range(LAYERS)]

    def step(x):
        for lin in layers:
            x = torch.nn.functional.silu(lin(x))
        return x

    buffer = torch.zeros(max(sizes), HIDDEN, device="cuda", dtype=torch.bfloat16)
    pool, graphs, outputs, rows = torch.cuda.graph_pool_handle(), {}, {}, []
    with torch.no_grad():
        for _ in range(3):
            step(buffer)  # warm-up: cuBLAS handles and workspaces exist before the captures
        torch.cuda.synchronize()
        free_before = torch.cuda.mem_get_info()[0]
        for n in sorted(sizes, reverse=True):  # largest first, as vLLM captures
            graph = torch.cuda.CUDAGraph()
            t = time.perf_counter()
            with torch.cuda.graph(graph, pool=pool):
                outputs[n] = step(buffer[:n])
            torch.cuda.synchronize()
            graphs[n] = (graph, time.perf_counter() - t)
        free_after = torch.cuda.mem_get_info()[0]
        for n in sizes:
            graph, seconds = graphs[n]
            rows.append({"batch": n, "capture_ms": seconds * 1e3,
                         "replay_us": do_bench(graph.replay, warmup=10, rep=40) * 1e3,
                         "eager_us": do_bench(lambda n=n: step(buffer[:n]), warmup=10, rep=40) * 1e3})
    return {"versions": {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)},
            "model": f"{LAYERS} x (bf16 Linear {HIDDEN}x{HIDDEN} + SiLU)", "sizes": sizes,
            "graph_pool_MiB": (free_before - free_after) / 2**20,
            "total_capture_s": sum(s for _, s in graphs.values()), "per_size": rows}


def main() -> None:  # pragma: no cover - needs CUDA
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="cuda_graphs.json")
    ap.add_argument("--max-num-seqs", type=int, default=1024)  # vllm serve on an H100/H200
    ap.add_argument("--max-num-batched-tokens", type=int, default=8192)
    args = ap.parse_args()
    result = measure(capture_sizes(args.max_num_seqs, args.max_num_batched_tokens))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({k: v for k, v in result.items() if k != "per_size"}))


if __name__ == "__main__":
    main()
