"""Data for the interactive online-softmax figure: one query block stepping through K/V blocks.

Uses the same softmax_rescale_o / normalize_softmax_lse as tiled_attention.py, checks the result
against naive attention and against flash2_forward, then writes
docs/blog/posts/flashattention-to-flashattention-2/online-softmax.json (read by
docs/javascripts/ifig/online-softmax.js) and online-softmax-table.html (the static fallback
shown without JavaScript). The tests regenerate both and compare them byte for byte.

Run it: ``python examples/flashattention_to_flashattention_2/online_softmax_steps.py``
"""

from __future__ import annotations

import json
import math
import sys
from html import escape
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fa_outputs import write_or_check  # noqa: E402
from tiled_attention import (  # noqa: E402
    RowState,
    flash2_forward,
    naive_attention,
    normalize_softmax_lse,
    softmax_rescale_o,
)

BLOCK_M, BLOCK_N, N_KEYS, HEAD_DIM, SEED = 4, 4, 20, 4, 7


def _r(x) -> list:
    """Round for display; -inf/+inf become strings so the JSON stays standard."""
    arr = np.asarray(x, dtype=float)
    out = np.where(np.isfinite(arr), np.round(arr, 4), 0.0).tolist()
    if arr.ndim == 0:
        return out if np.isfinite(arr) else ("-inf" if arr < 0 else "inf")
    flat_inf = [("-inf" if v < 0 else "inf") if not np.isfinite(v) else None for v in arr.ravel()]
    if any(flat_inf):
        out = [f if f is not None else o for f, o in zip(flat_inf, np.ravel(out), strict=True)]
        out = np.array(out, dtype=object).reshape(arr.shape).tolist()
    return out


def inputs():
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((BLOCK_M, HEAD_DIM)) * 1.6
    k = rng.standard_normal((N_KEYS, HEAD_DIM)) * 1.6
    v = rng.standard_normal((N_KEYS, HEAD_DIM))
    return q, k, v


def trace() -> dict:
    """Every intermediate state of one query block, in the kernel's (reverse) block order."""
    q, k, v = inputs()
    scale = 1.0 / math.sqrt(HEAD_DIM)
    n_blocks = N_KEYS // BLOCK_N
    st = RowState.empty(BLOCK_M, HEAD_DIM)
    steps = []
    for step, n_block in enumerate(range(n_blocks - 1, -1, -1)):
        c0, c1 = n_block * BLOCK_N, (n_block + 1) * BLOCK_N
        s = scale * (q @ k[c0:c1].T)
        m_old = st.row_max.copy()
        alpha = softmax_rescale_o(st, s, v[c0:c1], is_first=step == 0)
        steps.append({
            "n_block": n_block,
            "is_first": step == 0,
            "keys": [c0, c1 - 1],
            "scores": _r(s),
            "block_max": _r(s.max(axis=1)),
            "m": _r(st.row_max),
            "m_changed": [bool(a) for a in (st.row_max > m_old)],
            "alpha": _r(alpha),
            "l": _r(st.row_sum),
            "acc": _r(st.acc_o),
            "o_partial": _r(st.acc_o / st.row_sum[:, None]),  # what O would be if we stopped here
        })
    o, lse = normalize_softmax_lse(st)
    ref_o, ref_lse = naive_attention(q, k, v)
    fa2_o, fa2_lse = flash2_forward(q, k, v, block_m=BLOCK_M, block_n=BLOCK_N)
    assert np.allclose(o, ref_o, atol=1e-12) and np.allclose(lse, ref_lse, atol=1e-12)
    assert np.array_equal(o, fa2_o) and np.array_equal(lse, fa2_lse)
    return {
        "generator": "examples/flashattention_to_flashattention_2/online_softmax_steps.py",
        "block_m": BLOCK_M,
        "block_n": BLOCK_N,
        "n_keys": N_KEYS,
        "head_dim": HEAD_DIM,
        "softmax_scale": _r(scale),
        "steps": steps,
        "visit_order": [st["n_block"] for st in steps],
        "final": {"o": _r(o), "lse": _r(lse)},
    }


def _vec(values) -> str:
    return " · ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in values)


def render_json(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


FIRST = "— (first block: nothing to rescale)"


def render_table(data: dict) -> str:
    """The no-JavaScript fallback: every step in one table (no blank lines, for Markdown)."""
    n = len(data["steps"])
    rows = [
        '<div class="ifig-static">',
        "<table>",
        "<caption>Online softmax for query rows 0–3: running max m, rescale factor "
        "α = exp(m<sub>old</sub> − m<sub>new</sub>) and running sum ℓ after each K/V block "
        f"({n} blocks of {data['block_n']} keys, visited last block first as the kernel does)."
        "</caption>",
        "<thead><tr><th>step</th><th>K/V block (keys)</th><th>running max m</th>"
        "<th>rescale α</th><th>running sum ℓ</th></tr></thead>",
        "<tbody>",
    ]
    for i, st in enumerate(data["steps"], start=1):
        rows.append(
            f"<tr><td>{i}</td><td>{st['n_block']} ({st['keys'][0]}–{st['keys'][1]})</td>"
            f"<td>{escape(_vec(st['m']))}</td>"
            f"<td>{FIRST if st['is_first'] else escape(_vec(st['alpha']))}</td>"
            f"<td>{escape(_vec(st['l']))}</td></tr>"
        )
    rows.append(
        f"<tr><td>{n + 1}</td><td>epilogue</td><td colspan=\"3\">O = acc / ℓ; "
        f"LSE = m + log ℓ = {escape(_vec(data['final']['lse']))}</td></tr>"
    )
    rows += ["</tbody>", "</table>", "</div>"]
    return "\n".join(rows) + "\n"


OUTPUTS = {"online-softmax.json": render_json, "online-softmax-table.html": render_table}


def main() -> None:
    data = trace()
    for i, st in enumerate(data["steps"], start=1):
        print(f"step {i}: K/V block {st['n_block']}  m={_vec(st['m'])}  alpha={_vec(st['alpha'])}"
              f"  l={_vec(st['l'])}")
    print(f"epilogue: LSE={_vec(data['final']['lse'])}")
    write_or_check({name: render(data) for name, render in OUTPUTS.items()},
                   check="--check" in sys.argv)


if __name__ == "__main__":
    main()
