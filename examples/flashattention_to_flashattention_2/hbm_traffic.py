"""HBM traffic of standard attention and of the two tiled loop orders, as N, d and SRAM size M vary.

The model counts elements moved between HBM and on-chip memory for one attention head's forward
pass, exactly as the numpy implementation in tiled_attention.py moves them, and compares that with
the asymptotic forms of Theorem 2 in the FlashAttention paper (arXiv 2205.14135): Theta(N d + N^2)
for standard attention and Theta(N^2 d^2 / M) for the tiled algorithm. It is a model, not a GPU
measurement: the L2 cache, which catches many re-reads on a real GPU, is ignored (as in the paper).

Run it: ``python examples/flashattention_to_flashattention_2/hbm_traffic.py``  (rewrites the SVGs)
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path, for common.svgplot
sys.path.insert(0, str(HERE))

from common.svgplot import Series, line_plot  # noqa: E402
from fa_outputs import SLUG, write_or_check  # noqa: E402
from tiled_attention import (  # noqa: E402
    HBM,
    flash1_forward,
    flash2_forward,
    naive_attention,
    standard_attention_counted,
    tile_status,
)

# The papers' "192KB" of A100 on-chip SRAM per SM, in fp16 elements. That is L1 and shared memory
# combined; at most 164 KB of it can be shared memory (163 KB per thread block).
M_A100 = 98_304


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --8<-- [start:blocks]
def fa1_blocks(m: int, d: int) -> tuple[int, int]:
    """Algorithm 1 of the FlashAttention paper: B_c = ceil(M / 4d), B_r = min(ceil(M / 4d), d).
    Returned as (block_m, block_n) = (B_r, B_c)."""
    b_c = _ceil_div(m, 4 * d)
    return min(b_c, d), b_c


def fa2_blocks(m: int, d: int) -> tuple[int, int]:
    """The same SRAM budget with the roles swapped: the block that stays resident (now the
    query block and its output accumulator) gets the Theta(M / d) rows."""
    b_r = _ceil_div(m, 4 * d)
    return b_r, min(b_r, d)


def working_set(block_m: int, block_n: int, d: int) -> int:
    """Elements on chip at once: Q_i and O_i, K_j and V_j, and the score tile S_ij."""
    return 2 * block_m * d + 2 * block_n * d + block_m * block_n
# --8<-- [end:blocks]


# --8<-- [start:model]
def standard_accesses(n: int, d: int) -> int:
    """Algorithm 0: read Q, K; write S; read S; write P; read P, V; write O."""
    return 4 * n * n + 4 * n * d


def fa1_accesses(n: int, d: int, m: int, causal: bool = False) -> int:
    """Outer loop over K/V blocks; O, l, m are read and written back for every visited tile."""
    block_m, block_n = fa1_blocks(m, d)
    total = n * d + 2 * n  # initialise O, l, m in HBM
    for j in range(_ceil_div(n, block_n)):
        c0, c1 = j * block_n, min((j + 1) * block_n, n)
        total += 2 * (c1 - c0) * d  # K_j, V_j: read once in the whole run
        for i in range(_ceil_div(n, block_m)):
            r0, r1 = i * block_m, min((i + 1) * block_m, n)
            if tile_status(r0, r1, c0, c1, 0, causal) != "skip":
                total += 3 * (r1 - r0) * d + 4 * (r1 - r0)  # read Q_i, O_i, l, m; write O_i, l, m
    return total


def fa2_accesses(n: int, d: int, m: int, causal: bool = False) -> int:
    """Outer loop over query blocks; K/V re-read per query block, O and LSE written once."""
    block_m, block_n = fa2_blocks(m, d)
    total = 0
    for i in range(_ceil_div(n, block_m)):
        r0, r1 = i * block_m, min((i + 1) * block_m, n)
        n_block_max = _ceil_div(n, block_n)
        if causal:
            n_block_max = min(n_block_max, _ceil_div((i + 1) * block_m, block_n))
        kv_rows = sum(min((j + 1) * block_n, n) - j * block_n for j in range(n_block_max))
        total += (r1 - r0) * d + 2 * kv_rows * d + (r1 - r0) * d + (r1 - r0)  # Q, K/V, O, LSE
    return total


def theorem2_standard(n: int, d: int) -> float:
    return n * d + n * n


def theorem2_flash(n: int, d: int, m: int) -> float:
    return n * n * d * d / m
# --8<-- [end:model]


def counted_accesses(n: int, d: int, m: int, order: str, causal: bool = False, seed: int = 0):
    """Run the numpy implementation and return (elements moved, max error vs naive)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    ref, _ = naive_attention(q, k, v, causal=causal)
    hbm = HBM()
    if order == "standard":
        out = standard_attention_counted(q, k, v, hbm=hbm)
        ref, _ = naive_attention(q, k, v)
    elif order == "fa1":
        block_m, block_n = fa1_blocks(m, d)
        out, _, _ = flash1_forward(q, k, v, block_m=block_m, block_n=block_n, causal=causal,
                                   hbm=hbm)
    else:
        block_m, block_n = fa2_blocks(m, d)
        out, _ = flash2_forward(q, k, v, block_m=block_m, block_n=block_n, causal=causal, hbm=hbm)
    return hbm.total, float(np.abs(out - ref).max())


def roofline_numbers(n: int = 4096, d: int = 64) -> dict[str, float]:
    """Why standard attention is memory-bound: one head, fp16, against the A100 peak numbers the
    FlashAttention-2 paper quotes (312 TFLOPs/s FP16 matmul, 1.5-2.0 TB/s HBM)."""
    matmul_flops = 4 * n * n * d  # S = QK^T and O = PV, 2 N^2 d each
    hbm_bytes = 2 * standard_accesses(n, d)
    softmax_bytes = 2 * 2 * n * n  # read S, write P
    return {
        "matmul GFLOP": matmul_flops / 1e9,
        "standard HBM MB": hbm_bytes / 1e6,
        "FLOP per byte": matmul_flops / hbm_bytes,
        "A100 ridge FLOP per byte (2.0 TB/s)": 312e12 / 2.0e12,
        "matmul time at peak us": matmul_flops / 312e12 * 1e6,
        "HBM time at 2.0 TB/s us": hbm_bytes / 2.0e12 * 1e6,
        "softmax round trip at 2.0 TB/s us": softmax_bytes / 2.0e12 * 1e6,
    }


N_SWEEP = [2**e for e in range(9, 17)]  # 512 .. 65536
M_SWEEP = [2**e for e in range(15, 21)]  # 32 Ki .. 1 Mi elements


def _ratio_range(d: int, m: int, accesses) -> str:
    ratios = [standard_accesses(n, d) / accesses(n, d, m) for n in N_SWEEP]
    return f"{min(ratios):.1f} to {max(ratios):.1f}"


def figure_vs_n(d: int = 64, m: int = M_A100, narrow: bool = False) -> str:
    return line_plot(
        [
            Series("standard (Alg. 0)", N_SWEEP, [standard_accesses(n, d) for n in N_SWEEP]),
            Series("FA1 loop order", N_SWEEP, [fa1_accesses(n, d, m) for n in N_SWEEP]),
            Series("FA2 loop order", N_SWEEP, [fa2_accesses(n, d, m) for n in N_SWEEP]),
            Series("N²d²/M", N_SWEEP, [theorem2_flash(n, d, m) for n in N_SWEEP]),
        ],
        fig_id=f"{SLUG}-hbm-vs-n",
        title=f"Modelled HBM accesses, one head, forward (d={d}, M={m:,} elements)",
        desc=(
            "Log-log plot of elements moved between HBM and on-chip memory against sequence "
            "length N from 512 to 65536. Standard attention grows as 4N squared; both tiled loop "
            "orders grow as a constant times N squared d squared over M, about 12 times for the "
            "FlashAttention loop order and 8 times for the FlashAttention-2 order. Across the "
            f"sweep the first moves {_ratio_range(d, m, fa1_accesses)} times fewer elements "
            f"than standard attention and the second {_ratio_range(d, m, fa2_accesses)} times."
        ),
        x_label="sequence length N",
        y_label="HBM accesses (elements)",
        log_x=True,
        log_y=True,
        narrow=narrow,
    )


def figure_vs_m(n: int = 8192, d: int = 64, narrow: bool = False) -> str:
    return line_plot(
        [
            Series("standard (Alg. 0)", M_SWEEP, [standard_accesses(n, d) for _ in M_SWEEP]),
            Series("FA1 loop order", M_SWEEP, [fa1_accesses(n, d, m) for m in M_SWEEP]),
            Series("FA2 loop order", M_SWEEP, [fa2_accesses(n, d, m) for m in M_SWEEP]),
            Series("N²d²/M", M_SWEEP, [theorem2_flash(n, d, m) for m in M_SWEEP]),
        ],
        fig_id=f"{SLUG}-hbm-vs-m",
        title=f"Modelled HBM accesses vs on-chip memory M (N={n:,}, d={d})",
        desc=(
            "Log-log plot of elements moved against SRAM size M from 32768 to 1048576 elements. "
            "Standard attention does not depend on M and stays flat; the tiled loop orders fall "
            "as one over M, so doubling the on-chip memory halves their HBM traffic."
        ),
        x_label="on-chip memory M (elements)",
        y_label="HBM accesses (elements)",
        log_x=True,
        log_y=True,
        narrow=narrow,
    )


FIGURES = {"hbm-vs-n.svg": figure_vs_n, "hbm-vs-n-narrow.svg": partial(figure_vs_n, narrow=True),
           "hbm-vs-m.svg": figure_vs_m, "hbm-vs-m-narrow.svg": partial(figure_vs_m, narrow=True)}


def main() -> None:
    r = roofline_numbers()
    print("standard attention, one head, N=4096, d=64, fp16 (A100 peaks from the FA2 paper):")
    for name, value in r.items():
        print(f"  {name:<38} {value:10.1f}")
    print("counted by running the numpy code == closed-form model (N=512, d=16, M=2048):")
    for order, model in (("standard", standard_accesses(512, 16)),
                         ("fa1", fa1_accesses(512, 16, 2048)),
                         ("fa2", fa2_accesses(512, 16, 2048))):
        counted, err = counted_accesses(512, 16, 2048, order)
        assert counted == model and err < 1e-12, (order, counted, model, err)
        print(f"  {order:<8} counted {counted:>10,}  model {model:>10,}")
    print(f"model vs Theorem 2, d=64, M={M_A100:,} elements:")
    print(f"  {'N':>6} {'standard':>14} {'FA1 order':>12} {'FA2 order':>12} "
          f"{'FA1/(N²d²/M)':>13} {'FA2/(N²d²/M)':>13} {'std/FA2':>8}")
    for n in (1024, 4096, 16384, 65536):
        std, f1, f2 = standard_accesses(n, 64), fa1_accesses(n, 64, M_A100), fa2_accesses(
            n, 64, M_A100)
        t = theorem2_flash(n, 64, M_A100)
        print(f"  {n:>6} {std:>14,} {f1:>12,} {f2:>12,} {f1 / t:>13.2f} {f2 / t:>13.2f} "
              f"{std / f2:>8.1f}")
    print("block sizes (B_r, B_c) from the SRAM budget, and whether the working set fits:")
    for m, d in ((M_A100, 64), (M_A100, 128), (2 * M_A100, 128)):
        b1, b2 = fa1_blocks(m, d), fa2_blocks(m, d)
        fits = working_set(*b1, d) <= m and working_set(*b2, d) <= m
        print(f"  M={m:>7,} d={d:>3}: FA1 {b1}, FA2 {b2}, fits: {fits}")
    write_or_check({name: make() for name, make in FIGURES.items()}, check="--check" in sys.argv)


if __name__ == "__main__":
    main()
