"""Ring and tree all-reduce, stepped message by message, on real arrays.

Run:  python examples/nccl_deep_dive/ring_sim.py

The ring follows the order in which runRing (src/device/all_reduce.h at v2.30.7-1) visits chunks:
send, n-2 x recv-reduce-send, recv-reduce-copy-send (the chunk is now final), n-2 x
recv-copy-send, recv. The tree is NCCL's double binary tree (ncclGetDtree in src/graph/trees.cc,
ported below and checked against the library's own function by the tests), one GPU per node:
each half of the buffer is reduced up one tree and broadcast back down it, in k chunks. Both run
in one model: in every step each GPU sends at most one message and receives at most one (one
full-duplex port, as a node's NIC), a message of m bytes costs alpha + m/B, and a message sent in
a step can be forwarded from the next step on. The tree's steps are scheduled greedily, lowest
chunk first; the ring needs no scheduling, its order is fixed.

The interactive figure of the post (docs/javascripts/ifig/allreduce-steps.js) computes the same
rules in the browser; `traces()` writes what this model gives for every scenario the figure
offers into docs/blog/posts/nccl-deep-dive/allreduce-steps.json, which the tests regenerate and
the browser test compares with what the figure shows.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

FIG_JSON = Path(__file__).resolve().parents[2] / "docs" / "blog" / "posts" / "nccl-deep-dive" / "allreduce-steps.json"


# --8<-- [start:schedule]
def ring_schedule(r: int, n: int) -> list[tuple[str, int]]:
    """(primitive, chunk index) for the rank at ring position r, in runRing's order."""
    def mod(x: int) -> int:
        return x % n
    ops = [("send", mod(r + n - 1))]
    ops += [("recvReduceSend", mod(r + n - j)) for j in range(2, n)]
    ops += [("recvReduceCopySend", r)]
    ops += [("recvCopySend", mod(r + n - j)) for j in range(1, n - 1)]
    ops += [("recv", mod(r + 1))]
    return ops
# --8<-- [end:schedule]


# --8<-- [start:dtree]
def btree(n: int, rank: int) -> tuple[int, int, int]:
    """(up, down0, down1) of ncclGetBtree: -1 where there is none. Root 0, bit tricks."""
    bit = 1
    while bit < n and not bit & rank:
        bit <<= 1
    if rank == 0:
        return -1, -1, (bit >> 1 if n > 1 else -1)
    up = (rank ^ bit) | (bit << 1)
    if up >= n:
        up = rank ^ bit
    lowbit = bit >> 1
    down0 = -1 if lowbit == 0 else rank - lowbit
    down1 = -1 if lowbit == 0 else rank + lowbit
    while down1 >= n:                       # the C loop: recompute, then halve lowbit
        down1 = -1 if lowbit == 0 else rank + lowbit
        lowbit >>= 1
    return up, down0, down1


def dtree(n: int, rank: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """ncclGetDtree: tree 0 is the btree; tree 1 mirrors it (n even) or shifts it by one (n odd)."""
    def back(x: int, f) -> int:
        return -1 if x == -1 else f(x)
    if n % 2 == 1:
        t1 = btree(n, (rank - 1 + n) % n)
        return btree(n, rank), tuple(back(x, lambda v: (v + 1) % n) for x in t1)
    t1 = btree(n, n - 1 - rank)
    return btree(n, rank), tuple(back(x, lambda v: n - 1 - v) for x in t1)
# --8<-- [end:dtree]


class Msg(NamedTuple):
    """One message of one step: `unit` is the piece of the buffer, `ranks` whose inputs it sums."""

    src: int
    dst: int
    unit: int
    ranks: frozenset[int]
    tree: int = -1                           # -1 for the ring


# --8<-- [start:steps]
def ring_steps(n: int) -> list[list[Msg]]:
    """2(n-1) steps; in step j every rank r sends what op j of its schedule sends to r+1."""
    have = [[frozenset({r})] * n for r in range(n)]          # contributors per rank and chunk
    steps = []
    for j in range(2 * (n - 1)):
        msgs = [Msg(r, (r + 1) % n, ring_schedule(r, n)[j][1], have[r][ring_schedule(r, n)[j][1]])
                for r in range(n)]
        for m in msgs:                                        # arrive at the end of the step
            have[m.dst][m.unit] = m.ranks if len(m.ranks) == n else have[m.dst][m.unit] | m.ranks
        steps.append(msgs)
    return steps


def tree_steps(n: int, k: int) -> list[list[Msg]]:
    """Half t of the buffer (units t*k .. t*k+k-1) goes up tree t and back down, greedily."""
    trees = [[dtree(n, r)[t] for r in range(n)] for t in (0, 1)]
    units = 2 * k
    have = [[frozenset({r})] * units for r in range(n)]
    heard = [[set() for _ in range(units)] for _ in range(n)]  # children heard from, per unit
    sent_up = [[False] * units for _ in range(n)]
    sent_down = [[set() for _ in range(units)] for _ in range(n)]
    everyone = frozenset(range(n))
    steps = []
    while any(have[r][u] != everyone for r in range(n) for u in range(units)):
        ready = []                                            # (priority, message)
        for r in range(n):
            for u in range(units):
                t, c = divmod(u, k)
                up, *down = trees[t][r]
                kids = [d for d in down if d != -1]
                if up != -1 and not sent_up[r][u] and heard[r][u] == set(kids):
                    ready.append(((c, t, 0, r), Msg(r, up, u, have[r][u], t)))
                if have[r][u] == everyone:
                    ready += [((c, t, 1, r, d), Msg(r, d, u, everyone, t))
                              for d in kids if d not in sent_down[r][u]]
        busy_out, busy_in, msgs = set(), set(), []
        for _, m in sorted(ready):                           # lowest chunk first, then tree, up
            if m.src not in busy_out and m.dst not in busy_in:
                busy_out.add(m.src)
                busy_in.add(m.dst)
                msgs.append(m)
        for m in msgs:
            if m.ranks == everyone and trees[m.tree][m.dst][0] == m.src:   # broadcast down
                have[m.dst][m.unit] = everyone
                sent_down[m.src][m.unit].add(m.dst)
            else:                                                          # reduce up
                have[m.dst][m.unit] = have[m.dst][m.unit] | m.ranks
                heard[m.dst][m.unit].add(m.src)
                sent_up[m.src][m.unit] = True
        for r in range(n):                                   # a root that heard all: final
            for u in range(units):
                up, *down = trees[u // k][r]
                if up == -1 and heard[r][u] == {d for d in down if d != -1}:
                    have[r][u] = everyone
        assert msgs, "no message could be sent: the schedule is stuck"
        steps.append(msgs)
    return steps
# --8<-- [end:steps]


def apply_steps(steps: list[list[Msg]], inputs: list[np.ndarray], units: int) -> list[np.ndarray]:
    """Run the messages on real arrays: a partial sum is added, a final one is copied."""
    n = len(inputs)
    bufs = [np.array_split(x.copy(), units) for x in inputs]
    for msgs in steps:
        payload = [bufs[m.src][m.unit].copy() for m in msgs]  # what was sent, before arrivals
        for m, data in zip(msgs, payload, strict=True):
            if len(m.ranks) == n:
                bufs[m.dst][m.unit] = data
            else:
                bufs[m.dst][m.unit] = bufs[m.dst][m.unit] + data
    return [np.concatenate(b) for b in bufs]


# --8<-- [start:model]
def cost(algo: str, n: int, k: int = 1) -> dict:
    """Steps, bytes and bandwidths of the model, with S (buffer bytes) and B (port rate) as 1.

    Every step moves messages of one size m (S/n in the ring, S/2k in the tree), so with
    alpha = 0 the time is steps * m / B, the algorithm bandwidth S/T, and the bus bandwidth
    algbw * 2(n-1)/n, the factor nccl-tests and NCCL's tuner use for all-reduce.
    """
    steps = ring_steps(n) if algo == "ring" else tree_steps(n, k)
    m = Fraction(1, n) if algo == "ring" else Fraction(1, 2 * k)
    sent = [sum(msg.src == r for s in steps for msg in s) * m for r in range(n)]
    t = len(steps) * m
    algbw = 1 / t
    return {"steps": len(steps), "message": m, "sent_max": max(sent), "sent_total": sum(sent),
            "algbw": algbw, "busbw": algbw * Fraction(2 * (n - 1), n)}
# --8<-- [end:model]


NS = range(2, 9)            # the figure's GPU counts
KS = (1, 2, 4)              # its chunks per tree


def traces() -> dict:
    """Every scenario of the figure: per step, the messages and each GPU's contributor counts."""
    out = []
    for algo, k in [("ring", 1)] + [("tree", k) for k in KS]:
        for n in NS:
            steps = ring_steps(n) if algo == "ring" else tree_steps(n, k)
            units = n if algo == "ring" else 2 * k
            have = [[1] * units for _ in range(n)]
            rows = []
            for msgs in steps:
                for m in msgs:
                    have[m.dst][m.unit] = n if len(m.ranks) == n else have[m.dst][m.unit] + len(m.ranks)
                rows.append({"msgs": [[m.src, m.dst, m.unit, len(m.ranks)] for m in msgs],
                             "have": [row[:] for row in have]})
            c = cost(algo, n, k)
            out.append({"algo": algo, "n": n, "k": k, "units": units, "steps": rows,
                        "trees": ([[list(dtree(n, r)[t]) for r in range(n)] for t in (0, 1)]
                                  if algo == "tree" else None),
                        "sent_max": str(c["sent_max"]), "busbw": float(c["busbw"])})
    return {"model": "ring_sim.py: one send and one receive per GPU per step; S = B = 1",
            "scenarios": out}


def traces_json() -> str:
    return json.dumps(traces(), separators=(",", ":"), sort_keys=True) + "\n"


def main() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 3, 4, 5, 8):
        inputs = [rng.integers(-1000, 1000, size=1000 + n).astype(np.int64) for _ in range(n)]
        want = np.sum(inputs, axis=0)
        for algo, k in (("ring", 1), ("tree", 1), ("tree", 4)):
            steps = ring_steps(n) if algo == "ring" else tree_steps(n, k)
            outs = apply_steps(steps, inputs, n if algo == "ring" else 2 * k)
            assert all(np.array_equal(o, want) for o in outs), (algo, n, k)
            c = cost(algo, n, k)
            assert c["sent_total"] == 2 * (n - 1)          # both move 2(n-1)·S in total
            print(f"n={n} {algo:4} k={k}: {c['steps']:2} steps, each GPU sent at most "
                  f"{c['sent_max']}·S, busbw {float(c['busbw']):.3f}·B")
        assert cost("ring", n)["busbw"] == 1              # the ring reaches the port rate
    print("schedule for n=4, rank 0:", ring_schedule(0, 4))
    if "--write" in sys.argv:
        FIG_JSON.write_text(traces_json(), encoding="utf-8")
        print(f"wrote {FIG_JSON}")
    print("all ring and tree checks passed")


if __name__ == "__main__":
    main()
