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
that matters, one bucket against overlap, is also taken within each round.
"""

from __future__ import annotations

import argparse
import json
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
SIZES = [64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024]  # plain all-reduces, in bytes
MIB = 1024 * 1024


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
                 "allreduce_rounds_ms": {str(n): [] for n in SIZES}}
    keys = list(models)
    for _ in range(rounds):
        times: dict[str, list[float]] = {k: [] for k in keys}
        for i in range(iters):  # one backward of each configuration, the order rotated
            for key in keys[i % len(keys):] + keys[:i % len(keys)]:
                times[key].append(backward_ms(models[key], x, sync=key != "no_sync"))
        for key in keys:
            out["rounds_ms"][key].append(statistics.median(times[key]))
        for n, buf in bufs.items():  # the alpha-beta fit: t = alpha + s / beta
            times = []
            for _ in range(iters):
                dist.barrier()
                t = time.perf_counter()
                dist.all_reduce(buf)
                times.append((time.perf_counter() - t) * 1e3)
            out["allreduce_rounds_ms"][str(n)].append(statistics.median(times))
    out["buckets"] = {k: [int(b) for b in m._get_ddp_logging_data()
                          .get("rebuilt_bucket_sizes", "").split(", ") if b]
                      for k, m in models.items()}
    return out
# --8<-- [end:measure]


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "rounds": values}


def summarise(raw: dict, rounds: int, iters: int, batch: int) -> dict:
    """Medians and spreads over rounds, the paired differences and the cost-model constants."""
    configs = {k: {**spread(v), "buckets": raw["buckets"][k]}
               for k, v in raw["rounds_ms"].items()}
    allreduce = {k: spread(v) for k, v in raw["allreduce_rounds_ms"].items()}
    # Least squares through every size's median: t = alpha + s * ms_per_mib.
    fit = statistics.linear_regression([int(k) / MIB for k in allreduce],
                                       [v["median"] for v in allreduce.values()])
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
        "fit": {"alpha_ms": fit.intercept, "ms_per_mib": fit.slope},
        "one_bucket_minus": paired,
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
              f" positive in {wins} of {len(d)} rounds")
    for nbytes, a in s["allreduce_ms"].items():
        print(f"  plain all_reduce of {int(nbytes) // 1024:5d} KiB   {a['median']:6.2f} ms"
              f"  [{a['min']:5.2f} - {a['max']:5.2f}]")
    f = s["fit"]
    print(f"  fit: alpha = {f['alpha_ms']:.2f} ms, {f['ms_per_mib']:.2f} ms per MiB;"
          f" backward compute {s['ns_per_mac']:.4f} ns per multiply-add")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
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
