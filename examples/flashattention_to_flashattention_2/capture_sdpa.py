"""Time PyTorch's attention backends on a CUDA GPU at the FlashAttention-2 paper's set-up.

Run from the repository root on a machine with one NVIDIA GPU, torch and triton (a few minutes):

    python examples/flashattention_to_flashattention_2/capture_sdpa.py --out h200-sdpa.json

For head dimension 64 and 128 (32 and 16 heads: hidden 2048), sequence lengths 512 to 16k with
batch = 16384 / length, causal and not, it forces each backend of
``torch.nn.functional.scaled_dot_product_attention`` in turn (``flash``, ``cudnn``, ``efficient``,
and ``math`` up to 2k tokens, beyond which its N x N scores take too long) and records the
milliseconds of the forward pass and of forward + backward, bf16, as ``triton.testing.do_bench``
returns them by default: the mean over about --rep ms of calls (after about 5 ms of warm-up), each
timed with CUDA events after an L2 flush. For comparison it also times cuBLAS's bf16 GEMM
(``torch.mm`` of two n x n matrices, n = 2048 to 16384). ``flash`` is PyTorch's own copy of the
FlashAttention-2 kernels: this script never calls ``torch.nn.attention.activate_flash_attention_impl``
(torch 2.13.0), which would route it to an installed FlashAttention-3 or -4 instead.
The output has the schema of docs/blog/posts/flashattention-to-flashattention-2/h200-sdpa.json;
``sdpa_h200.py`` turns it into the post's figure and table. A backend that refuses a shape (an
old GPU, a missing cuDNN) is recorded with its error instead of a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

TOKENS, HIDDEN = 16384, 2048
HEAD_DIMS = (64, 128)
SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
BACKENDS = ("flash", "cudnn", "efficient", "math")
MATH_MAX_SEQLEN = 2048
GEMM_SIZES = (2048, 4096, 8192, 16384)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON")
    parser.add_argument("--rep", type=int, default=30, help="do_bench's rep (ms of timing)")
    return parser.parse_args(argv)


def setups() -> list[dict]:
    """Every (head dim, sequence length, causal, backend) measured, in order."""
    out = []
    for d in HEAD_DIMS:
        for n in SEQLENS:
            for causal in (False, True):
                for backend in BACKENDS:
                    if backend == "math" and n > MATH_MAX_SEQLEN:
                        continue
                    out.append({"d": d, "seqlen": n, "batch": TOKENS // n, "heads": HIDDEN // d,
                                "causal": causal, "backend": backend})
    return out


def check(result: dict) -> None:
    """The schema sdpa_h200.py reads."""
    assert set(result) == {"machine", "setup", "rows", "gemm"}, sorted(result)
    assert {"gpu", "sms", "torch", "cuda"} <= set(result["machine"])
    keys = [{k: r[k] for k in ("d", "seqlen", "batch", "heads", "causal", "backend")}
            for r in result["rows"]]
    assert keys == setups()
    for r in result["rows"]:
        assert ("error" in r) or (r["fwd_ms"] > 0 and r["fwd_bwd_ms"] > 0), r
    assert [(g["dtype"], g["n"]) for g in result["gemm"]] == [("bfloat16", n) for n in GEMM_SIZES]
    assert all(g["ms"] > 0 for g in result["gemm"])


def time_one(s: dict, rep: int) -> tuple[float, float]:  # pragma: no cover - needs a CUDA GPU
    """Mean ms of the forward and of forward + backward, for the backend already forced."""
    import torch
    import torch.nn.functional as F
    from triton.testing import do_bench

    q, k, v = (torch.randn(s["batch"], s["heads"], s["seqlen"], s["d"], device="cuda",
                           dtype=torch.bfloat16, requires_grad=True) for _ in range(3))

    def fwd():
        return F.scaled_dot_product_attention(q, k, v, is_causal=s["causal"])

    grad = torch.randn_like(fwd())

    def fwd_bwd():
        return torch.autograd.grad(fwd(), (q, k, v), grad)

    return do_bench(fwd, warmup=5, rep=rep), do_bench(fwd_bwd, warmup=5, rep=rep)


def capture(rep: int) -> dict:  # pragma: no cover - needs a CUDA GPU
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    kinds = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
             "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}
    props = torch.cuda.get_device_properties(0)
    result = {"machine": {"gpu": props.name, "sms": props.multi_processor_count,
                          "torch": torch.__version__, "cuda": torch.version.cuda},
              "setup": {"dtype": "bfloat16", "tokens_per_batch": TOKENS, "hidden": HIDDEN,
                        "timer": f"triton.testing.do_bench(warmup=5, rep={rep}), mean ms",
                        "gemm": "torch.mm of two n x n bf16 matrices (cuBLAS), "
                                "do_bench(warmup=10, rep=50), 2 n^3 FLOPs",
                        "flops": "4 * seqlen^2 * d * heads * batch, halved when causal; "
                                 "forward+backward counts 3.5 times that"},
              "rows": [], "gemm": []}
    for s in setups():
        row = dict(s)
        try:
            with sdpa_kernel(kinds[s["backend"]]):
                row["fwd_ms"], row["fwd_bwd_ms"] = time_one(s, rep)
        except RuntimeError as e:  # the backend does not support this shape or GPU
            row["error"] = str(e)[:200]
        result["rows"].append(row)
        torch.cuda.empty_cache()
    for n in GEMM_SIZES:
        a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        result["gemm"].append({"dtype": "bfloat16", "n": n,
                               "ms": do_bench(partial(torch.mm, a, b), warmup=10, rep=50)})
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("capture_sdpa.py needs a CUDA GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    result = capture(args.rep)
    check(result)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(result['rows'])} measurements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
