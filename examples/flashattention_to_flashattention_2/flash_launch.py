"""flash-attn v2.8.3's forward launch choices, re-expressed in Python so they can be tabulated.

Nothing here runs on a GPU. The tile table transcribes the non-dropout branches of the
run_mha_fwd_hdim* functions in csrc/flash_attn/src/flash_fwd_launch_template.h; smem_bytes mirrors
Flash_fwd_kernel_traits::kSmemSize in kernel_traits.h; num_splits_heuristic re-implements the
function of that name in csrc/flash_attn/flash_api.cpp (the same rule, written afresh here in
Python, with the C++'s float32 arithmetic; the tests compile the real function with g++ and
compare).

Run it: ``python examples/flashattention_to_flashattention_2/flash_launch.py``
"""

from __future__ import annotations

import math
import re
import sys
from functools import partial
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path, for common.svgplot
sys.path.insert(0, str(HERE))

from common.svgplot import Series, line_plot  # noqa: E402
from fa_outputs import SLUG, write_or_check  # noqa: E402

# head dim -> (kBlockM, kBlockN, warps) on sm80/sm90 without dropout, v2.8.3. hdim 256 depends on
# the device's shared memory; the A100 branch (128 x 64, 8 warps) is listed, see the post.
FWD_TILES_SM80 = {
    32: (128, 128, 4),
    64: (128, 128, 4),
    96: (128, 64, 4),
    128: (128, 64, 4),
    192: (128, 64, 8),
    256: (128, 64, 8),
}
# sm86 / sm89 (is_sm8x) pick differently for hdim 96 and 128.
FWD_TILES_SM8X = {96: {"causal": (64, 64, 4), "non-causal": (128, 64, 4)},
                  128: {"causal": (64, 64, 4), "non-causal": (128, 32, 4)}}


# --8<-- [start:parse]
TRAITS = re.compile(r"Flash_fwd_kernel_traits<Headdim, (\d+), (\d+), (\d+),")


def _braces(text: str, open_at: int) -> tuple[int, int]:
    """(start, end) of the text inside the braces that open at text[open_at] == "{"."""
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return open_at + 1, i
    raise ValueError("unbalanced braces")


def _branch(body: str, condition: str) -> tuple[str, str]:
    """The `if <condition> { ... } else { ... }` blocks of body (else "" when there is none)."""
    i = body.index(condition)
    s, e = _braces(body, body.index("{", i))
    rest = body[e + 1:].lstrip()
    if not rest.startswith("else"):
        return body[s:e], ""
    s2, e2 = _braces(body, body.index("{", e + 1))
    return body[s:e], body[s2:e2]


def parse_fwd_tiles(source: str) -> dict[int, dict[str, list[tuple[int, int, int]]]]:
    """The Flash_fwd_kernel_traits<Headdim, kBlockM, kBlockN, kNWarps, ...> that each
    run_mha_fwd_hdim<d> of flash_fwd_launch_template.h instantiates on the path without dropout,
    read from its live code (comments dropped): under "sm80" for a device that is not sm86/sm89
    (is_sm8x false), and for head dims that branch on it, under "sm8x causal" and
    "sm8x non-causal"."""
    src = re.sub(r"//[^\n]*", "", source)
    tiles = {}
    for m in re.finditer(r"void run_mha_fwd_hdim(\d+)\(", src):
        s, e = _braces(src, src.index("{", m.end()))
        body = src[s:e]
        if "if constexpr(!Is_dropout)" in body:
            body, _ = _branch(body, "if constexpr(!Is_dropout)")
        found = {}
        if "if (is_sm8x)" in body:
            sm8x, body = _branch(body, "if (is_sm8x)")
            non_causal, causal = _branch(sm8x, "if constexpr(!Is_causal)")
            found["sm8x non-causal"] = [tuple(map(int, t)) for t in TRAITS.findall(non_causal)]
            found["sm8x causal"] = [tuple(map(int, t)) for t in TRAITS.findall(causal)]
        found["sm80"] = [tuple(map(int, t)) for t in TRAITS.findall(body)]
        tiles[int(m.group(1))] = found
    return tiles
# --8<-- [end:parse]


def smem_bytes(head_dim: int, block_m: int, block_n: int, elem_bytes: int = 2) -> int:
    """Q tile plus double-width K/V tile (K and V), as kSmemSize without Share_Q_K_smem."""
    return (block_m + 2 * block_n) * head_dim * elem_bytes


def splitkv_block_n(head_dim: int) -> int:
    """kBlockN of run_mha_fwd_splitkv_dispatch (kBlockM is fixed at 64 there)."""
    return 256 if head_dim <= 64 else (128 if head_dim <= 128 else 64)


# --8<-- [start:splits]
f32 = np.float32  # the C++ computes the waves and efficiencies in float


def num_splits_heuristic(batch_nheads_mblocks: int, num_sms: int, num_n_blocks: int,
                         max_splits: int) -> int:
    """Smallest split count whose wave efficiency is within 85% of the best one."""
    if f32(batch_nheads_mblocks) >= f32(0.8) * f32(num_sms):  # `>= 0.8f * num_SMs`: no split
        return 1
    max_splits = min(max_splits, num_sms, num_n_blocks)

    def eligible(s: int) -> bool:  # s splits that give the same blocks per split as s - 1 are
        return s == 1 or math.ceil(num_n_blocks / s) != math.ceil(num_n_blocks / (s - 1))

    eff = {}
    for s in range(1, max_splits + 1):
        if eligible(s):
            waves = f32(batch_nheads_mblocks * s) / f32(num_sms)  # float(a * s) / num_SMs
            eff[s] = waves / np.ceil(waves)                        # float / float: float
    best = max(eff.values())
    # `efficiency[s - 1] >= 0.85 * max_efficiency`: 0.85 is a double, so this compares in double
    return next(s for s in sorted(eff) if float(eff[s]) >= 0.85 * float(best))


MAX_SPLITS = 128  # set_params_splitkv passes 128 and then checks num_splits <= 128


def splits_for(batch: int, heads: int, seqlen_q: int, seqlen_k: int, head_dim: int,
               num_sms: int) -> int:
    """What set_params_splitkv asks for (dropout off): 64-row query blocks, 2 x SMs."""
    num_m_blocks = -(-seqlen_q // 64)  # the split-KV kernel's kBlockM, whatever the head dim
    num_n_blocks = -(-seqlen_k // splitkv_block_n(head_dim))
    return num_splits_heuristic(batch * heads * num_m_blocks, 2 * num_sms, num_n_blocks,
                                MAX_SPLITS)
# --8<-- [end:splits]


BH = list(range(1, 201))


def figure_splits(num_sms: int = 108, narrow: bool = False) -> str:
    series = [
        Series(f"seqlen_k={s:,}", BH, [splits_for(1, bh, 1, s, 128, num_sms) for bh in BH])
        for s in (1024, 8192, 65536)
    ]
    return line_plot(
        series,
        fig_id=f"{SLUG}-num-splits",
        title=f"num_splits chosen for decoding (seqlen_q=1, d=128, {num_sms} SMs)",
        desc=(
            "num_splits returned by a Python re-implementation of num_splits_heuristic from "
            "flash_api.cpp at v2.8.3, against batch times heads from 1 to 200, for key lengths "
            "1024, 8192 and 65536, assuming 108 SMs, on a logarithmic y axis. With few heads "
            "the key sequence is split many ways, up to the smallest of the number of 128-key "
            "blocks, twice the SM count (216) and the hard cap of 128 splits, which is where "
            "the 65536-key curve starts; past about 173 thread blocks, which is 0.8 times "
            "twice the SM count, the heuristic returns 1 and no split is made."
        ),
        x_label="batch × heads (thread blocks without a split)",
        y_label="num_splits",
        log_y=True,
        narrow=narrow,
    )


FIGURES = {"num-splits.svg": figure_splits, "num-splits-narrow.svg": partial(figure_splits, narrow=True)}


def main() -> None:
    print("forward tiles on sm80/sm90, no dropout (kBlockM x kBlockN, warps, smem):")
    for d, (bm, bn, w) in FWD_TILES_SM80.items():
        print(f"  hdim {d:>3}: {bm:>3} x {bn:<3} {w} warps  {smem_bytes(d, bm, bn) // 1024:>3} KiB")
    print("num_splits for one decode step (seqlen_q=1, d=128, 108 SMs;"
          f" at most min({MAX_SPLITS}, 2 x SMs, K/V blocks of 128 keys)):")
    for bh in (1, 8, 16, 32, 48, 64, 96, 128):
        row = "  ".join(f"{splits_for(1, bh, 1, s, 128, 108):>3}" for s in (1024, 8192, 65536))
        print(f"  batch*heads={bh:>3}: seqlen_k 1k/8k/64k -> {row}")
    print("the flash_api.cpp comment's example (48 blocks, 108 SMs):",
          num_splits_heuristic(48, 108, 64, 128))
    # A training-shaped call: the heuristic counts 64-row blocks (the split-KV tile), while the
    # standard kernel for d=128 on sm80/sm90 would launch 128-row blocks.
    b, h, n, d = 1, 16, 512, 128
    blocks64 = b * h * -(-n // 64)
    blocks_std = b * h * -(-n // FWD_TILES_SM80[d][0])
    print(f"batch {b}, {h} heads, {n} tokens, d={d}, 108 SMs: {blocks64} 64-row query blocks"
          f" (standard kernel: {blocks_std} thread blocks) -> {splits_for(b, h, n, n, d, 108)}"
          " splits")
    write_or_check({name: make() for name, make in FIGURES.items()}, check="--check" in sys.argv)


if __name__ == "__main__":
    main()
