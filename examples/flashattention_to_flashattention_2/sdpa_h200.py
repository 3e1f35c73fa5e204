"""FlashAttention-2 on Hopper, measured: the post's figure and table from one H200 run.

The numbers are in docs/blog/posts/flashattention-to-flashattention-2/h200-sdpa.json: the
milliseconds that ``torch.nn.functional.scaled_dot_product_attention`` took with each backend
forced (``flash``, PyTorch's copy of the FlashAttention-2 kernels; ``cudnn``; ``efficient``; and
``math``), bf16, at the FlashAttention-2 paper's benchmark set-up (16k tokens per batch, hidden
2048, head dimension 64 or 128, causal or not). ``capture_sdpa.py`` measures them on a CUDA machine
and writes that JSON; this script, which runs anywhere, turns the milliseconds into TFLOP/s with
the paper's formula and draws the figure (wide and narrow) and the table the post includes.

Run it: ``python examples/flashattention_to_flashattention_2/sdpa_h200.py`` (``--check``
compares with the committed files instead of writing them).
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path, for common.svgplot
sys.path.insert(0, str(HERE))

from common.svgplot import Series, line_plot  # noqa: E402
from fa_outputs import FIG_DIR, SLUG, write_or_check  # noqa: E402

DATA = FIG_DIR / "h200-sdpa.json"
# Dense BF16 Tensor Core peak of an H200 SXM (NVIDIA lists 1,979 TFLOPS "with sparsity").
PEAK_BF16_DENSE_TFLOPS = 989
NAMES = {"flash": "FlashAttention-2 (flash)", "cudnn": "cuDNN", "efficient": "memory-efficient",
         "math": "math"}


def load() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


# --8<-- [start:flops]
def attention_flops(row: dict) -> float:
    """The FlashAttention-2 paper's count for the forward pass: 4 * seqlen^2 * d * heads per
    sequence, halved with a causal mask (the masked half is skipped, not computed)."""
    flops = 4 * row["seqlen"] ** 2 * row["d"] * row["heads"] * row["batch"]
    return flops / 2 if row["causal"] else flops


def tflops(row: dict, which: str) -> float:
    """TFLOP/s of one measurement; forward + backward counts 2.5 times the forward's FLOPs more
    (five matrix products instead of two)."""
    if which == "fwd":
        return attention_flops(row) / (row["fwd_ms"] * 1e-3) / 1e12
    return 3.5 * attention_flops(row) / (row["fwd_bwd_ms"] * 1e-3) / 1e12
# --8<-- [end:flops]


def rows(data: dict, backend: str, d: int, causal: bool) -> list[dict]:
    return sorted((r for r in data["rows"] if r["backend"] == backend and r["d"] == d
                   and r["causal"] == causal), key=lambda r: r["seqlen"])


def span(data: dict, backend: str, d: int, causal: bool, which: str) -> tuple[float, float]:
    values = [tflops(r, which) for r in rows(data, backend, d, causal)]
    return min(values), max(values)


def figure(narrow: bool = False) -> str:
    data = load()
    m = data["machine"]
    series = []
    for backend in ("flash", "cudnn"):
        for d in (128, 64):
            rs = rows(data, backend, d, False)
            series.append(Series(f"{'FA2' if backend == 'flash' else 'cuDNN'} d={d}",
                                 [r["seqlen"] / 1024 for r in rs], [tflops(r, "fwd") for r in rs]))
    lo, hi = span(data, "flash", 128, False, "fwd")
    clo, chi = span(data, "cudnn", 128, False, "fwd")
    return line_plot(
        series,
        fig_id=f"{SLUG}-sdpa-h200",
        title=f"Attention forward on an {m['gpu'].removeprefix('NVIDIA ')}, bf16, 16k tokens per batch",
        desc=(
            "Line plot of forward-pass TFLOP/s against sequence length from 0.5k to 16k tokens (batch "
            "times sequence length fixed at 16384, hidden 2048, no causal mask) for PyTorch's "
            "scaled_dot_product_attention with the FlashAttention-2 backend and the cuDNN backend, "
            f"head dimension 128 and 64, measured on one {m['gpu']} with torch {m['torch']}. With "
            f"head dimension 128 FlashAttention-2 reaches {lo:.0f} to {hi:.0f} TFLOP/s and cuDNN "
            f"{clo:.0f} to {chi:.0f}, against a dense BF16 peak of {PEAK_BF16_DENSE_TFLOPS}."
        ),
        x_label="sequence length, thousands of tokens (log)",
        y_label="TFLOP/s (forward)",
        log_x=True,
        narrow=narrow,
    )


def gemm_span(data: dict) -> tuple[float, float]:
    """cuBLAS's bf16 GEMM on the same GPU, TFLOP/s (2 n^3 FLOPs), lowest and highest over n."""
    t = [2 * g["n"] ** 3 / g["ms"] / 1e9 for g in data["gemm"]]
    return min(t), max(t)


def table(data: dict | None = None) -> str:
    """TFLOP/s, lowest to highest over the six sequence lengths (512 to 16k), for each set-up."""
    data = data or load()
    cols = [("flash", "fwd"), ("cudnn", "fwd"), ("efficient", "fwd"), ("flash", "fwd_bwd"),
            ("cudnn", "fwd_bwd")]
    head = ("| d | causal | FA2 fwd | cuDNN fwd | mem-efficient fwd | FA2 fwd + bwd "
            "| cuDNN fwd + bwd |")
    lines = [head, "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for d in (64, 128):
        for causal in (False, True):
            cells = []
            for backend, which in cols:
                lo, hi = span(data, backend, d, causal, which)
                cells.append(f"{lo:.0f}–{hi:.0f}")
            lines.append(f"| {d} | {'yes' if causal else 'no'} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


FIGURES = {"sdpa-h200.svg": figure, "sdpa-h200-narrow.svg": partial(figure, narrow=True)}
OUTPUTS = {**FIGURES, "sdpa-h200-table.txt": table}


def main() -> None:
    data = load()
    m = data["machine"]
    print(f"{m['gpu']}, torch {m['torch']}, CUDA {m['cuda']}: TFLOP/s over sequence lengths 512-16k")
    for backend in ("flash", "cudnn", "efficient"):
        for d in (64, 128):
            for which in ("fwd", "fwd_bwd"):
                lo, hi = span(data, backend, d, False, which)
                print(f"  {NAMES[backend]:<26} d={d:<3} {which:<7} {lo:5.0f} to {hi:5.0f}"
                      f"  ({lo / PEAK_BF16_DENSE_TFLOPS:.0%} to {hi / PEAK_BF16_DENSE_TFLOPS:.0%}"
                      f" of {PEAK_BF16_DENSE_TFLOPS})")
    lo, hi = gemm_span(data)
    print(f"  cuBLAS bf16 GEMM, n = 2048 to 16384: {lo:.0f} to {hi:.0f}")
    write_or_check({name: make() for name, make in OUTPUTS.items()}, check="--check" in sys.argv)


if __name__ == "__main__":
    main()
