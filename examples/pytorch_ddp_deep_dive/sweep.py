"""Does overlap shorten backward, and how does bucket_cap_mb trade launches for overlap?

Run:  python examples/pytorch_ddp_deep_dive/sweep.py [--rounds R] [--iters N] [--json-out PATH]

Two gloo ranks on 127.0.0.1 train the four-layer model of overlap.py (4 MiB of fp32 gradients)
under several ``bucket_cap_mb`` values and time ``loss.backward()`` on rank 0.
``bucket_cap_mb=25`` gives one 4 MiB bucket even after the rebuild, so nothing overlaps: it is
the baseline. ``no_sync`` times the same backward with no all-reduce at all (compute only).

A shared machine drifts: another job starts, a core gets busy. So every configuration is built
once and warmed up (its buckets rebuilt), and then the configurations take turns, one timed
backward each, in an order rotated every turn; N turns make a round. A drift hits all of them
alike, and each configuration gets R round medians whose spread shows the noise. The comparison
that matters, one bucket against overlap, is also taken within each round, and a two-sided sign
test says whether "slower in k of R rounds" is more than chance.

The plain all-reduces that fit the cost model's alpha and bandwidth take turns the same way
(seven sizes, 16 KiB to 8 MiB, the order rotated every turn), and the fit goes through each
size's median over every round, not through one round's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from buckets import Tower  # noqa: E402
from launch import run_ranks  # noqa: E402
from overlap import backward_macs  # noqa: E402

CAPS = [25, 3, 2, 1]  # below 1 MiB this model's buckets do not change (1 MiB weights)
MIB = 1024 * 1024
SIZES = [16 * 1024, 64 * 1024, 256 * 1024, MIB, 2 * MIB, 4 * MIB, 8 * MIB]  # plain all-reduces


# --8<-- [start:measure]
def backward_ms(ddp: DDP, x: torch.Tensor, sync: bool) -> float:
    dist.barrier()  # both ranks start each backward together
    if sync:
        loss = ddp(x).square().mean()
        t = time.perf_counter()
        loss.backward()  # with gloo, returns after every bucket's all-reduce
    else:
        with ddp.no_sync():  # no all-reduce: backward compute alone
            loss = ddp(x).square().mean()
            t = time.perf_counter()
            loss.backward()
    ms = (time.perf_counter() - t) * 1e3
    ddp.zero_grad(set_to_none=True)
    return ms


def turns(keys: list, i: int) -> list:
    """Turn i's order: the keys rotated by i, so no key always goes first."""
    return keys[i % len(keys):] + keys[:i % len(keys)]


def per_rank(rank: int, world_size: int, rounds: int, iters: int, batch: int) -> dict:
    torch.manual_seed(0)
    x = torch.randn(batch, 512)
    models = {"no_sync": DDP(Tower(), bucket_cap_mb=25)}
    models |= {str(cap): DDP(Tower(), bucket_cap_mb=cap) for cap in CAPS}
    for ddp in models.values():  # warm-up: two steps each, so every layout is rebuilt
        for _ in range(2):
            backward_ms(ddp, x, sync=True)
    bufs = {n: torch.zeros(n // 4) for n in SIZES}
    out: dict = {"rounds_ms": {k: [] for k in models},
                 "allreduce_ms": {str(n): [] for n in SIZES}}
    keys = list(models)
    for _ in range(rounds):
        times: dict[str, list[float]] = {k: [] for k in keys}
        for i in range(iters):  # one backward of each configuration, the order rotated
            for key in turns(keys, i):
                times[key].append(backward_ms(models[key], x, sync=key != "no_sync"))
            for n in turns(SIZES, i):  # plain all-reduces for the fit, rotated the same way
                dist.barrier()
                t = time.perf_counter()
                dist.all_reduce(bufs[n])
                out["allreduce_ms"][str(n)].append((time.perf_counter() - t) * 1e3)
        for key in keys:
            out["rounds_ms"][key].append(statistics.median(times[key]))
    out["buckets"] = {k: [int(b) for b in m._get_ddp_logging_data()
                          .get("rebuilt_bucket_sizes", "").split(", ") if b]
                      for k, m in models.items()}
    return out
# --8<-- [end:measure]


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "rounds": values}


def sign_test_p(diffs: list[float]) -> float:
    """Two-sided sign test: the chance of a split at least this uneven between positive and
    negative differences if each sign were a fair coin (ties dropped)."""
    pos, neg = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    n, k = pos + neg, min(pos, neg)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0


def fit_alpha(medians: dict[str, float]) -> dict:
    """t = alpha + s * ms_per_mib through each size's median time t, by least squares on the
    relative misfit (alpha + s * ms_per_mib - t) / t: a 16 KiB all-reduce, where alpha shows,
    weighs as much as an 8 MiB one, whose absolute misfit would otherwise decide alpha."""
    rows = [(1 / t, int(k) / MIB / t) for k, t in medians.items()]  # fit 1 = alpha/t + b*s/t
    aa, ab, bb = (sum(u * v for u, v in pairs) for pairs in
                  ([(a, a) for a, _ in rows], [(a, b) for a, b in rows], [(b, b) for _, b in rows]))
    a1, b1 = sum(a for a, _ in rows), sum(b for _, b in rows)
    det = aa * bb - ab * ab
    return {"alpha_ms": (a1 * bb - b1 * ab) / det, "ms_per_mib": (b1 * aa - a1 * ab) / det}


def summarise(raw: dict, rounds: int, iters: int, batch: int) -> dict:
    """Medians and spreads over rounds, the paired differences and the cost-model constants."""
    configs = {k: {**spread(v), "buckets": raw["buckets"][k]}
               for k, v in raw["rounds_ms"].items()}
    # Every size: the median and quartiles of all its all-reduces (rounds x iters of them).
    allreduce = {k: dict(zip(("q1", "median", "q3"), statistics.quantiles(v, n=4), strict=True),
                         n=len(v)) for k, v in raw["allreduce_ms"].items()}
    one = raw["rounds_ms"]["25"]
    bucketed = [str(c) for c in CAPS[1:]]
    paired = {k: [a - b for a, b in zip(one, raw["rounds_ms"][k], strict=True)]
              for k in bucketed}
    widths = [512] * (len(Tower().layers) + 1)
    macs = sum(backward_macs(widths, batch, i) for i in range(len(widths) - 1))
    return {
        "command": "python examples/pytorch_ddp_deep_dive/sweep.py --json-out ...",
        "torch": torch.__version__, "rounds": rounds, "iters": iters, "batch": batch,
        "configs": configs, "allreduce_ms": allreduce,
        "fit": fit_alpha({k: v["median"] for k, v in allreduce.items()}),
        "one_bucket_minus": paired,
        "sign_test_p": {k: sign_test_p(d) for k, d in paired.items()},
        # The cost model's compute rate (overlap.backward_timeline): no_sync time per multiply-add.
        "ns_per_mac": configs["no_sync"]["median"] * 1e6 / macs,
    }


def report(s: dict) -> None:
    print(f"backward() on rank 0, two gloo ranks: median of {s['rounds']} round medians "
          f"({s['iters']} backwards each) [min - max over rounds]")
    for key, c in s["configs"].items():
        label = "no_sync (no all-reduce)" if key == "no_sync" else f"bucket_cap_mb={key}"
        print(f"  {label:26s} {c['median']:7.2f} ms  [{c['min']:6.2f} - {c['max']:6.2f}]"
              f"   rebuilt buckets: {c['buckets'] or '-'}")
    for key, d in s["one_bucket_minus"].items():
        wins = sum(v > 0 for v in d)
        print(f"  bucket_cap_mb=25 minus bucket_cap_mb={key}: {min(d):6.2f} to {max(d):6.2f} ms,"
              f" positive in {wins} of {len(d)} rounds (sign test p = "
              f"{s['sign_test_p'][key]:.2f})")
    print("  plain all_reduce: median [quartiles] of all rounds")
    for nbytes, a in s["allreduce_ms"].items():
        print(f"    {int(nbytes) // 1024:5d} KiB   {a['median']:6.2f} ms"
              f"  [{a['q1']:5.2f} - {a['q3']:5.2f}]  ({a['n']} all-reduces)")
    f = s["fit"]
    print(f"  fit: alpha = {f['alpha_ms']:.2f} ms, {f['ms_per_mib']:.2f} ms per MiB;"
          f" backward compute {s['ns_per_mac']:.4f} ns per multiply-add")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    load = [os.getloadavg()[0]]  # the machine's 1-minute load, before and after
    raw = run_ranks(per_rank, args.rounds, args.iters, args.batch)[0]
    load.append(os.getloadavg()[0])
    s = summarise(raw, args.rounds, args.iters, args.batch) | {"load_1min": load}
    report(s)
    if args.json_out:
        args.json_out.write_text(json.dumps(s, indent=1) + "\n")


if __name__ == "__main__":
    main()
