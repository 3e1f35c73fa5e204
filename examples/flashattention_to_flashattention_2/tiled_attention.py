"""Tiled attention with an online softmax, in both FlashAttention loop orders (numpy, CPU).

The online softmax is Milakov and Gimelshein's (arXiv 1805.02867), applied to attention by Rabe
and Staats (arXiv 2112.05682) and by FlashAttention.

This is a teaching implementation of the algorithms in the FlashAttention (arXiv 2205.14135) and
FlashAttention-2 (arXiv 2307.08691) papers, not a port of the CUDA kernels. Every array that the
papers keep in HBM lives in numpy arrays that are touched only through an ``HBM`` object, which
counts each element loaded or stored; everything else is "on chip". The per-block update is
named after the functions in flash-attention v2.8.3's ``csrc/flash_attn/src/softmax.h``
(``softmax_rescale_o``, ``normalize_softmax_lse``) so the sketch in the post lines up with it.

Run it: ``python examples/flashattention_to_flashattention_2/tiled_attention.py``
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


# --8<-- [start:hbm]
@dataclass
class HBM:
    """Off-chip memory, counted the way the papers count it: one access per element moved."""

    reads: int = 0
    writes: int = 0

    def load(self, array: np.ndarray) -> np.ndarray:
        self.reads += array.size
        return np.array(array, copy=True)  # the on-chip copy

    def store(self, dst: np.ndarray, index: tuple | slice, value: np.ndarray | float) -> None:
        value = np.asarray(value, dtype=dst.dtype)
        self.writes += int(np.broadcast_to(value, dst[index].shape).size)
        dst[index] = value

    @property
    def total(self) -> int:
        return self.reads + self.writes
# --8<-- [end:hbm]


@dataclass
class OpCount:
    """Element-wise work on the output tile (the non-matmul FLOPs FlashAttention-2 trims)."""

    output_rescale: int = 0  # multiplies, adds and divides applied to Br x d output tiles
    masked_tiles: int = 0  # tiles that needed the causal mask applied element by element
    unmasked_tiles: int = 0  # tiles computed without any masking
    skipped_tiles: int = 0  # tiles never loaded because the causal mask covers all of them


def causal_limit(n_q: int, n_k: int) -> int:
    """Key j is visible to query i iff j <= i + (n_k - n_q): the bottom-right alignment that
    flash-attn uses since v2.1 (README changelog; ``mask.h``, ``col_idx_limit_right``)."""
    return n_k - n_q


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def naive_attention(q, k, v, *, causal=False, scale=None):
    """Reference: materialise S and P, as Algorithm 0 of the FlashAttention paper does.

    Returns (O, LSE); rows whose keys are all masked give O = 0 and LSE = +inf, which is what
    flash-attn writes for them (``normalize_softmax_lse`` and the early exit in
    ``compute_attn_1rowblock``)."""
    n_q, d = q.shape
    n_k = k.shape[0]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    s = scale * (q @ k.T)
    if causal:
        rows = np.arange(n_q)[:, None]
        cols = np.arange(n_k)[None, :]
        s = np.where(cols <= rows + causal_limit(n_q, n_k), s, -np.inf)
    m = s.max(axis=1, keepdims=True)
    m_safe = np.where(np.isneginf(m), 0.0, m)
    p = np.exp(s - m_safe)
    ell = p.sum(axis=1, keepdims=True)
    empty = ell == 0
    o = (p / np.where(empty, 1.0, ell)) @ v
    lse = np.where(empty, np.inf, m_safe + np.log(np.where(empty, 1.0, ell)))[:, 0]
    return o, lse


def tile_status(r0: int, r1: int, c0: int, c1: int, offset: int, causal: bool) -> str:
    """'skip' (every entry masked), 'mask' (some entries masked) or 'full' (none masked)."""
    if not causal:
        return "full"
    if c0 > (r1 - 1) + offset:  # first key is beyond what the last query may see
        return "skip"
    if (c1 - 1) > r0 + offset:  # last key is beyond what the first query may see
        return "mask"
    return "full"


def _causal_tile_mask(r0, r1, c0, c1, offset):
    rows = np.arange(r0, r1)[:, None]
    cols = np.arange(c0, c1)[None, :]
    return cols <= rows + offset


# --8<-- [start:rowstate]
@dataclass
class RowState:
    """What one thread block keeps in registers for its query block (``Softmax`` in softmax.h):
    running max m, running sum l and the un-normalised output, named as in the kernel."""

    row_max: np.ndarray  # (Br,)   m: max of the scores seen so far, -inf before any block
    row_sum: np.ndarray  # (Br,)   l: sum of exp(s - m), not used to divide anything yet
    acc_o: np.ndarray  # (Br, d) sum of exp(s - m) @ V, also un-normalised

    @classmethod
    def empty(cls, rows: int, d: int) -> RowState:
        return cls(np.full(rows, -np.inf), np.zeros(rows), np.zeros((rows, d)))


def softmax_rescale_o(st: RowState, s: np.ndarray, v: np.ndarray, *, is_first: bool,
                      ops: OpCount | None = None) -> np.ndarray:
    """One K/V block of the FlashAttention-2 online softmax; returns the rescale factors.

    s is the (Br, Bc) block of already-scaled scores, v the matching (Bc, d) values."""
    m_new = np.maximum(st.row_max, s.max(axis=1))
    # A row whose scores are all -inf so far keeps m = -inf; use 0 in the subtraction so that
    # exp(-inf - -inf) never produces NaN (the Check_inf branch in softmax_rescale_o).
    m_use = np.where(np.isneginf(m_new), 0.0, m_new)
    alpha = np.exp(st.row_max - m_use)  # exp(m_old - m_new): 0 first, 1 if the max is unchanged
    p = np.exp(s - m_use[:, None])  # un-normalised probabilities, never divided by l here
    if is_first:  # acc and l are zero: nothing to rescale (Is_first=true in the kernel)
        st.row_sum = p.sum(axis=1)
        st.acc_o = p @ v
    else:
        st.row_sum = alpha * st.row_sum + p.sum(axis=1)
        st.acc_o = alpha[:, None] * st.acc_o + p @ v  # one multiply, one add per output element
        if ops is not None:
            ops.output_rescale += 2 * st.acc_o.size
    st.row_max = m_new
    return alpha


def normalize_softmax_lse(st: RowState, ops: OpCount | None = None):
    """Epilogue: the only division by l, and the log-sum-exp saved for the backward pass."""
    empty = st.row_sum == 0  # every key masked: O = 0, LSE = +inf, as the kernel writes them
    inv = np.where(empty, 1.0, 1.0 / np.where(empty, 1.0, st.row_sum))
    o = st.acc_o * inv[:, None]
    if ops is not None:
        ops.output_rescale += o.size
    lse = np.where(empty, np.inf, st.row_max + np.log(np.where(empty, 1.0, st.row_sum)))
    return o, lse
# --8<-- [end:rowstate]


# --8<-- [start:fa2]
def flash2_forward(q, k, v, *, block_m: int, block_n: int, causal=False, scale=None,
                   hbm: HBM | None = None, ops: OpCount | None = None):
    """FlashAttention-2 order: outer loop over query blocks (one thread block each on a GPU),
    inner loop over K/V blocks, output kept on chip and normalised once at the end.

    K/V blocks are visited from the last to the first, as compute_attn_1rowblock does, so the
    blocks that need the causal mask come first. Returns (O, LSE)."""
    hbm = HBM() if hbm is None else hbm
    ops = OpCount() if ops is None else ops
    n_q, d = q.shape
    n_k = k.shape[0]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    offset = causal_limit(n_q, n_k) if causal else 0
    o = np.zeros((n_q, d))
    lse = np.zeros(n_q)
    for m_block in range(_ceil_div(n_q, block_m)):  # embarrassingly parallel on a GPU
        r0, r1 = m_block * block_m, min((m_block + 1) * block_m, n_q)
        n_block_max = _ceil_div(n_k, block_n)
        if causal:  # never visit a block to the right of the diagonal
            n_block_max = min(n_block_max, _ceil_div((m_block + 1) * block_m + offset, block_n))
        ops.skipped_tiles += _ceil_div(n_k, block_n) - max(n_block_max, 0)
        if n_block_max <= 0:  # no visible key at all: write O = 0, LSE = +inf and stop
            hbm.store(o, np.s_[r0:r1], 0.0)
            hbm.store(lse, np.s_[r0:r1], np.inf)
            continue
        q_i = hbm.load(q[r0:r1])  # Q_i is read from HBM once
        st = RowState.empty(r1 - r0, d)
        for step, n_block in enumerate(range(n_block_max - 1, -1, -1)):
            c0, c1 = n_block * block_n, min((n_block + 1) * block_n, n_k)
            k_j, v_j = hbm.load(k[c0:c1]), hbm.load(v[c0:c1])
            s = scale * (q_i @ k_j.T)  # stays on chip
            if tile_status(r0, r1, c0, c1, offset, causal) == "mask":
                s = np.where(_causal_tile_mask(r0, r1, c0, c1, offset), s, -np.inf)
                ops.masked_tiles += 1
            else:
                ops.unmasked_tiles += 1
            softmax_rescale_o(st, s, v_j, is_first=step == 0, ops=ops)
        o_i, lse_i = normalize_softmax_lse(st, ops)
        hbm.store(o, np.s_[r0:r1], o_i)  # O_i written once
        hbm.store(lse, np.s_[r0:r1], lse_i)  # plus Br floats of LSE, nothing else
    return o, lse
# --8<-- [end:fa2]


# --8<-- [start:fa1]
def flash1_forward(q, k, v, *, block_m: int, block_n: int, causal=False, scale=None,
                   hbm: HBM | None = None, ops: OpCount | None = None):
    """FlashAttention (v1) order, Algorithm 1 of arXiv 2205.14135: outer loop over K/V blocks,
    inner loop over query blocks, and O, l, m read from and written back to HBM on every inner
    step, each step normalising O by the new l. Returns (O, m, l)."""
    hbm = HBM() if hbm is None else hbm
    ops = OpCount() if ops is None else ops
    n_q, d = q.shape
    n_k = k.shape[0]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    offset = causal_limit(n_q, n_k) if causal else 0
    o, ell, m = np.empty((n_q, d)), np.empty(n_q), np.empty(n_q)
    hbm.store(o, np.s_[:], 0.0)  # Algorithm 1 line 2: initialise O, l, m in HBM
    hbm.store(ell, np.s_[:], 0.0)
    hbm.store(m, np.s_[:], -np.inf)
    for j in range(_ceil_div(n_k, block_n)):
        c0, c1 = j * block_n, min((j + 1) * block_n, n_k)
        k_j, v_j = hbm.load(k[c0:c1]), hbm.load(v[c0:c1])  # K_j, V_j read once
        for i in range(_ceil_div(n_q, block_m)):
            r0, r1 = i * block_m, min((i + 1) * block_m, n_q)
            status = tile_status(r0, r1, c0, c1, offset, causal)
            if status == "skip":
                ops.skipped_tiles += 1
                continue
            q_i, o_i = hbm.load(q[r0:r1]), hbm.load(o[r0:r1])  # re-read on every j
            l_i, m_i = hbm.load(ell[r0:r1]), hbm.load(m[r0:r1])
            s = scale * (q_i @ k_j.T)
            if status == "mask":
                s = np.where(_causal_tile_mask(r0, r1, c0, c1, offset), s, -np.inf)
                ops.masked_tiles += 1
            else:
                ops.unmasked_tiles += 1
            m_tilde = s.max(axis=1)
            m_tilde_use = np.where(np.isneginf(m_tilde), 0.0, m_tilde)
            p_tilde = np.exp(s - m_tilde_use[:, None])
            l_tilde = p_tilde.sum(axis=1)
            m_new = np.maximum(m_i, m_tilde)
            m_new_use = np.where(np.isneginf(m_new), 0.0, m_new)
            l_new = np.exp(m_i - m_new_use) * l_i + np.exp(m_tilde_use - m_new_use) * l_tilde
            l_div = np.where(l_new == 0, 1.0, l_new)
            # Algorithm 1 line 12: rescale the old O, scale the new block, add, divide by l_new.
            o_new = ((l_i * np.exp(m_i - m_new_use))[:, None] * o_i
                     + np.exp(m_tilde_use - m_new_use)[:, None] * (p_tilde @ v_j)) / l_div[:, None]
            ops.output_rescale += 4 * o_i.size
            hbm.store(o, np.s_[r0:r1], o_new)  # O_i, l_i, m_i written back on every j
            hbm.store(ell, np.s_[r0:r1], l_new)
            hbm.store(m, np.s_[r0:r1], m_new)
    return o, m, ell
# --8<-- [end:fa1]


def standard_attention_counted(q, k, v, *, scale=None, hbm: HBM | None = None):
    """Algorithm 0 with its HBM traffic counted: S and P both make a round trip through HBM."""
    hbm = HBM() if hbm is None else hbm
    n, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    s_hbm, p_hbm, o = np.empty((n, k.shape[0])), np.empty((n, k.shape[0])), np.empty((n, d))
    hbm.store(s_hbm, np.s_[:], scale * (hbm.load(q) @ hbm.load(k).T))  # line 1: write S
    s = hbm.load(s_hbm)  # line 2: read S, softmax, write P
    p = np.exp(s - s.max(axis=1, keepdims=True))
    hbm.store(p_hbm, np.s_[:], p / p.sum(axis=1, keepdims=True))
    hbm.store(o, np.s_[:], hbm.load(p_hbm) @ hbm.load(v))  # line 3: read P and V, write O
    return o


# --8<-- [start:bwd]
def flash2_backward(q, k, v, o, lse, d_o, *, block_m: int, block_n: int, causal=False,
                    scale=None, hbm: HBM | None = None):
    """Backward pass from the saved log-sum-exp (Algorithm 2 of arXiv 2307.08691), in the shape
    of flash-attn's sequence-parallel backward: one worker per K/V block, dQ accumulated in an
    fp32 buffer by read-modify-write (atomicAdd on the GPU). Returns (dQ, dK, dV)."""
    hbm = HBM() if hbm is None else hbm
    n_q, d = q.shape
    n_k = k.shape[0]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    offset = causal_limit(n_q, n_k) if causal else 0
    # flash_bwd_dot_do_o_kernel: D = rowsum(dO * O), and the dQ accumulator is cleared.
    big_d = np.empty(n_q)
    hbm.store(big_d, np.s_[:], (hbm.load(d_o) * hbm.load(o)).sum(axis=1))
    dq_accum = np.empty((n_q, d))
    hbm.store(dq_accum, np.s_[:], 0.0)
    dk, dv = np.empty((n_k, d)), np.empty((n_k, d))
    for n_block in range(_ceil_div(n_k, block_n)):  # one thread block per column block
        c0, c1 = n_block * block_n, min((n_block + 1) * block_n, n_k)
        k_j, v_j = hbm.load(k[c0:c1]), hbm.load(v[c0:c1])
        dk_j, dv_j = np.zeros((c1 - c0, d)), np.zeros((c1 - c0, d))
        m_block_min = max(0, (c0 - offset) // block_m) if causal else 0
        for m_block in range(_ceil_div(n_q, block_m) - 1, m_block_min - 1, -1):
            r0, r1 = m_block * block_m, min((m_block + 1) * block_m, n_q)
            status = tile_status(r0, r1, c0, c1, offset, causal)
            if status == "skip":
                continue
            q_i, do_i = hbm.load(q[r0:r1]), hbm.load(d_o[r0:r1])
            lse_i, d_i = hbm.load(lse[r0:r1]), hbm.load(big_d[r0:r1])
            s = scale * (q_i @ k_j.T)
            if status == "mask":
                s = np.where(_causal_tile_mask(r0, r1, c0, c1, offset), s, -np.inf)
            p = np.exp(s - lse_i[:, None])  # recomputed: exactly softmax, no max or sum needed
            dv_j += p.T @ do_i
            dp = do_i @ v_j.T
            ds = p * (dp - d_i[:, None])
            dq_i = hbm.load(dq_accum[r0:r1])  # atomicAdd = read-modify-write of fp32 dQ
            hbm.store(dq_accum, np.s_[r0:r1], dq_i + scale * (ds @ k_j))
            dk_j += scale * (ds.T @ q_i)
        hbm.store(dk, np.s_[c0:c1], dk_j)
        hbm.store(dv, np.s_[c0:c1], dv_j)
    dq = np.empty((n_q, d))
    hbm.store(dq, np.s_[:], hbm.load(dq_accum))  # flash_bwd_convert_dq_kernel
    return dq, dk, dv
# --8<-- [end:bwd]


def torch_reference_grads(q, k, v, d_o, *, causal=False):
    """dQ, dK, dV from torch autograd (float64, CPU) for the same attention."""
    import torch

    tq, tk, tv = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (q, k, v))
    n_q, n_k = q.shape[0], k.shape[0]
    s = (tq @ tk.T) / math.sqrt(q.shape[1])
    keep = torch.ones(n_q, n_k, dtype=torch.bool)
    if causal:
        keep = keep.tril(diagonal=causal_limit(n_q, n_k))
    rows = keep.any(dim=1)  # rows with no visible key have output 0 and no gradient
    p = torch.softmax(s[rows].masked_fill(~keep[rows], float("-inf")), dim=-1)
    out = torch.zeros(n_q, tv.shape[1], dtype=torch.float64)
    out = out.index_put((rows.nonzero()[:, 0],), p @ tv)
    out.backward(torch.tensor(d_o, dtype=torch.float64))
    return tq.grad.numpy(), tk.grad.numpy(), tv.grad.numpy()


def run_checks(seed: int = 0) -> dict[str, float]:
    """Everything main() prints, as numbers (the tests assert on these)."""
    rng = np.random.default_rng(seed)
    results: dict[str, float] = {}
    for causal in (False, True):
        for n_q, n_k in ((256, 256), (200, 328)):
            d = 32
            q, k, v = (rng.standard_normal((n, d)) for n in (n_q, n_k, n_k))
            ref_o, ref_lse = naive_attention(q, k, v, causal=causal)
            o2, lse2 = flash2_forward(q, k, v, block_m=64, block_n=32, causal=causal)
            o1, m1, l1 = flash1_forward(q, k, v, block_m=32, block_n=64, causal=causal)
            assert np.allclose(o2, ref_o, atol=1e-12, rtol=1e-10)
            assert np.allclose(lse2, ref_lse, atol=1e-12, rtol=1e-10)
            assert np.allclose(o1, ref_o, atol=1e-12, rtol=1e-10)
            assert np.allclose(m1 + np.log(l1), ref_lse, atol=1e-12, rtol=1e-10)
            tag = f"{'causal' if causal else 'full'} {n_q}x{n_k}"
            results[f"fwd max|O2-O| {tag}"] = float(np.abs(o2 - ref_o).max())
            results[f"fwd max|O1-O| {tag}"] = float(np.abs(o1 - ref_o).max())
            d_o = rng.standard_normal((n_q, d))
            dq, dk, dv = flash2_backward(q, k, v, o2, lse2, d_o, block_m=64, block_n=32,
                                         causal=causal)
            tdq, tdk, tdv = torch_reference_grads(q, k, v, d_o, causal=causal)
            for name, ours, ref in (("dQ", dq, tdq), ("dK", dk, tdk), ("dV", dv, tdv)):
                assert np.allclose(ours, ref, atol=1e-10, rtol=1e-8), (name, tag)
                results[f"bwd max|{name}-autograd| {tag}"] = float(np.abs(ours - ref).max())
    return results


def rescale_work(n: int = 1024, d: int = 64, block: int = 64) -> dict[str, OpCount]:
    """Output-tile element-wise work of the two loop orders on the same square tiles."""
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    out = {}
    for causal in (False, True):
        ops1, ops2 = OpCount(), OpCount()
        flash1_forward(q, k, v, block_m=block, block_n=block, causal=causal, ops=ops1)
        flash2_forward(q, k, v, block_m=block, block_n=block, causal=causal, ops=ops2)
        out[f"FA1 {'causal' if causal else 'full'}"] = ops1
        out[f"FA2 {'causal' if causal else 'full'}"] = ops2
    return out


def main() -> None:
    results = run_checks()
    print("forward and backward against the references (float64, allclose):")
    worst = max(results.values())
    print(f"  {len(results)} comparisons, all within tolerance; worst max-abs error < 1e-12: "
          f"{worst < 1e-12}")
    print("output-tile work, N=1024, d=64, 64x64 tiles:")
    print(f"  {'order':<11} {'rescale ops':>12} {'masked':>7} {'full':>6} {'skipped':>8}")
    for name, ops in rescale_work().items():
        print(f"  {name:<11} {ops.output_rescale:>12,} {ops.masked_tiles:>7} "
              f"{ops.unmasked_tiles:>6} {ops.skipped_tiles:>8}")


if __name__ == "__main__":
    main()
