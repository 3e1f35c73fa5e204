"""Ring all-reduce, simulated: NCCL's chunk schedule on real arrays, then a bandwidth model.

Run:  python examples/nccl_deep_dive/ring_sim.py

Part 1 follows the order in which runRing (src/device/all_reduce.h at v2.30.7-1) visits chunks:
send, n-2 x recv-reduce-send, recv-reduce-copy-send (the chunk is now final), n-2 x
recv-copy-send, recv. Every rank ends with the element-wise sum, and every rank has sent
2(n-1) chunks of S/n bytes. Part 2 is an event simulation of the same messages over links of
given bandwidth and per-message latency; with equal links it must reproduce the closed form
T = 2(n-1)/n * S/B (+ 2(n-1)*k*alpha for k slices per chunk).
"""

from __future__ import annotations

import numpy as np


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


def ring_allreduce(inputs: list[np.ndarray]) -> tuple[list[np.ndarray], list[int]]:
    """Run the schedule on n ranks; returns each rank's output and the bytes each rank sent."""
    n = len(inputs)
    chunks = [np.array_split(x.copy(), n) for x in inputs]   # rank's buffer, in n chunks
    inbox: list[list[np.ndarray]] = [[] for _ in range(n)]   # FIFO from the previous rank
    sent = [0] * n
    schedules = [ring_schedule(r, n) for r in range(n)]
    for step in range(2 * n - 1):                             # 2(n-1) sends + the final recv
        outgoing = []
        for r in range(n):
            op, c = schedules[r][step]
            if op != "send":
                data = inbox[r].pop(0)
                if "Reduce" in op:
                    chunks[r][c] = chunks[r][c] + data        # reduce into the buffer
                else:
                    chunks[r][c] = data                       # copy the final chunk
            if op != "recv":
                outgoing.append(((r + 1) % n, chunks[r][c]))
                sent[r] += chunks[r][c].nbytes
        for dst, data in outgoing:                            # all sends of a step land
            inbox[dst].append(data)
    assert all(not q for q in inbox)
    return [np.concatenate(c) for c in chunks], sent
# --8<-- [end:schedule]


# --8<-- [start:model]
def simulate_time(n: int, size: float, bw: list[float], alpha: float = 0.0, slices: int = 1) -> float:
    """Finish time of ring all-reduce: 2(n-1) steps, each chunk (size/n) cut into `slices`.

    Link r -> r+1 has bandwidth bw[r] and carries one message at a time; a message costs
    alpha + bytes/bw. Message m of rank r can leave once its link is free and message m - slices
    (the same slice one step earlier, whose data this one reduces or forwards) has arrived from
    the previous rank, as in the chunk schedule above.
    """
    msg = size / n / slices
    total = 2 * (n - 1) * slices
    done = np.zeros((n, total))          # arrival time at rank r+1 of message m sent by rank r
    link_free = np.zeros(n)
    for m in range(total):
        for r in range(n):
            ready = 0.0 if m < slices else done[(r - 1) % n, m - slices]
            start = max(ready, link_free[r])
            done[r, m] = start + alpha + msg / bw[r]
            link_free[r] = done[r, m]
    return float(done[:, -1].max())


def closed_form(n: int, size: float, bw: float, alpha: float = 0.0, slices: int = 1) -> float:
    return 2 * (n - 1) / n * size / bw + 2 * (n - 1) * slices * alpha
# --8<-- [end:model]


def curve(ns: list[int], size: float, bw: float, slow: float | None, slices: int) -> list[float]:
    """algbw / link bandwidth (S / T / B) from the simulation, for each ring size."""
    out = []
    for n in ns:
        links = [bw] * n
        if slow is not None:
            links[0] = bw * slow
        out.append(size / simulate_time(n, size, links, 0.0, slices) / bw)
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 3, 4, 5, 8):
        inputs = [rng.integers(-1000, 1000, size=1000 + n).astype(np.int64) for _ in range(n)]
        outs, sent = ring_allreduce(inputs)
        want = np.sum(inputs, axis=0)
        assert all(np.array_equal(o, want) for o in outs)
        nbytes = inputs[0].nbytes
        # every rank sends 2(n-1) chunks; np.array_split makes them differ by at most 1 element
        assert all(abs(s - 2 * (n - 1) / n * nbytes) <= 2 * (n - 1) * 8 for s in sent)
        print(f"n={n}: all ranks hold the sum; bytes sent per rank {sent[0]} "
              f"(2(n-1)/n * S = {2 * (n - 1) / n * nbytes:.0f})")
    print("schedule for n=4, rank 0:", ring_schedule(0, 4))

    size, bw = 256 * 2**20, 100e9            # model inputs, not measurements: 256 MiB, 100 GB/s
    for n in (2, 4, 8, 16):
        for slices, alpha in ((1, 0.0), (4, 0.0), (8, 5e-6)):
            t = simulate_time(n, size, [bw] * n, alpha, slices)
            assert abs(t - closed_form(n, size, bw, alpha, slices)) <= 1e-12 * t, (n, slices)
    print("event simulation == closed form 2(n-1)/n * S/B + 2(n-1)*k*alpha for n in 2..16")
    n = 8
    slow = [bw] * n
    slow[3] = bw / 2
    for k in (1, 8, 64):
        t = simulate_time(n, size, slow, 0.0, k)
        bound = closed_form(n, size, bw / 2)
        assert abs(t - bound) <= 1e-12 * bound, (k, t, bound)   # the slowest link sets the pace
        print(f"n=8, one link at B/2, {k:2d} slices: T = {t * 1e3:.3f} ms, "
              f"slowest-link bound {bound * 1e3:.3f} ms ({t / bound:.3f}x)")
    print("all ring checks passed")


if __name__ == "__main__":
    main()
