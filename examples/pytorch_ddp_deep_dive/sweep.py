"""Does overlap shorten backward, and how does bucket_cap_mb trade launches for overlap?

Run:  python examples/pytorch_ddp_deep_dive/sweep.py [--iters N] [--json-out PATH]

Two gloo ranks on 127.0.0.1 train the same four-layer model as overlap.py (4 MiB of fp32
gradients) with several ``bucket_cap_mb`` values and time ``loss.backward()`` on rank 0.
``bucket_cap_mb=25`` gives one 4 MiB bucket even after the rebuild, so nothing overlaps: it is
the baseline. ``no_sync`` times the same backward with no all-reduce at all (compute only).
Iterations 1 and 2 are warm-up (the rebuild happens at forward 2); the medians are over the
remaining iterations, so one slow iteration on a shared machine cannot decide the result.
"""

from __future__ import annotations

import argparse
import json
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

CAPS = [25, 3, 2, 1]  # below 1 MiB this model's buckets do not change (1 MiB weights)


# --8<-- [start:measure]
def per_rank(rank: int, world_size: int, iters: int, batch: int) -> dict:
    torch.manual_seed(0)
    out: dict = {"allreduce_ms": {}}
    for nbytes in (64 * 1024, 1024 * 1024, 4 * 1024 * 1024):  # alpha-beta fit: t = a + s / b
        buf, times = torch.zeros(nbytes // 4), []
        for _ in range(iters):
            dist.barrier()
            t = time.perf_counter()
            dist.all_reduce(buf)
            times.append((time.perf_counter() - t) * 1e3)
        out["allreduce_ms"][nbytes] = statistics.median(times[2:])
    x = torch.randn(batch, 512)
    for cap in [None, *CAPS]:  # None: the compute-only reference under no_sync()
        ddp = DDP(Tower(), bucket_cap_mb=cap if cap is not None else 25)
        times = []
        for _ in range(iters):
            dist.barrier()  # both ranks start each backward together
            if cap is None:
                with ddp.no_sync():
                    loss = ddp(x).square().mean()
                    t = time.perf_counter()
                    loss.backward()
            else:
                loss = ddp(x).square().mean()
                t = time.perf_counter()
                loss.backward()  # with gloo, returns after every bucket's all-reduce
            times.append((time.perf_counter() - t) * 1e3)
            ddp.zero_grad(set_to_none=True)
        buckets = ddp._get_ddp_logging_data().get("rebuilt_bucket_sizes", "")
        key = "no_sync" if cap is None else str(cap)
        out[key] = {"median_ms": statistics.median(times[2:]), "buckets": buckets}
    return out
# --8<-- [end:measure]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=22)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    res = run_ranks(per_rank, args.iters, args.batch)[0]
    print(f"median backward() on rank 0 over iterations 3..{args.iters}, two gloo ranks:")
    ar = res.pop("allreduce_ms")
    for nbytes, ms in ar.items():
        print(f"  plain all_reduce of {nbytes // 1024:5d} KiB   {ms:7.2f} ms")
    s1, s2 = 64 * 1024, 4 * 1024 * 1024
    per_mib = (ar[s2] - ar[s1]) / ((s2 - s1) / 2**20)
    print(f"  fit: alpha = {ar[s1] - per_mib * s1 / 2**20:.2f} ms, {per_mib:.2f} ms per MiB")
    for key, r in res.items():
        label = "no_sync (no all-reduce)" if key == "no_sync" else f"bucket_cap_mb={key}"
        print(f"  {label:26s} {r['median_ms']:7.2f} ms   rebuilt buckets: {r['buckets'] or '-'}")
    one = res["25"]["median_ms"]
    best = min(res[str(c)]["median_ms"] for c in CAPS[1:])
    print(f"one bucket minus best overlapped: {one - best:.2f} ms")
    if args.json_out:
        args.json_out.write_text(json.dumps({"allreduce_ms": ar, **res}, indent=1) + "\n")


if __name__ == "__main__":
    main()
