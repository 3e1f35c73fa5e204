"""When does each bucket's all-reduce start? A comm hook that timestamps itself.

Run:  python examples/pytorch_ddp_deep_dive/overlap.py [--json-out PATH]

Two gloo ranks on 127.0.0.1. Every parameter gets a post-accumulate-grad hook (public API) that
records when its gradient is ready; DDP gets a communication hook (``register_comm_hook``) that
records when the Reducer hands it a bucket and when that bucket's all-reduce future completes.
Iteration 1 runs with the constructor's single bucket, iteration 3 with the rebuilt buckets.
"""

# No `from __future__ import annotations` here: DDP's register_comm_hook compares the hook's
# annotations with dist.GradBucket and would reject them as strings.
import argparse
import json
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from buckets import Tower, assign_by_size  # noqa: E402
from launch import run_ranks  # noqa: E402

MIB = 1024 * 1024


# --8<-- [start:model]
def ready_order(n_layers: int) -> list[int]:
    """Gradient-ready order of a stack of Linear layers, as the Reducer records it:
    last layer first, its bias (index 2i + 1) before its weight (2i)."""
    return [j for i in reversed(range(n_layers)) for j in (2 * i + 1, 2 * i)]


def rebuild_limits(bucket_cap_mb: float | None) -> list[int]:
    """Limits of Reducer::rebuild_buckets: [first_bucket_bytes_cap, bucket_bytes_cap]."""
    if bucket_cap_mb is None:  # unset: a 1 MiB first bucket, then 25 MiB
        return [MIB, 25 * MIB]
    cap = int(bucket_cap_mb * MIB)  # any explicit cap is also the first bucket's
    return [cap, cap]


def backward_macs(widths: list[int], batch: int, i: int) -> int:
    """Multiply-adds of layer i's backward: the weight's gradient, and the input's gradient
    except in the first layer, whose input needs none."""
    return batch * widths[i] * widths[i + 1] * (2 if i > 0 else 1)


def backward_timeline(widths: list[int], bucket_cap_mb: float | None, batch: int,
                      alpha_ms: float, ms_per_mib: float, ns_per_mac: float,
                      rebuilt: bool = True) -> dict:
    """The post's cost model of one DDP backward over Linear(widths[i], widths[i + 1]) layers.

    Compute: layers run last to first, each taking ns_per_mac per multiply-add of its
    backward (backward_macs); both its gradients are ready when it ends. Buckets: the rebuilt
    layout (rebuilt=False: the constructor's one bucket), launched strictly in index order once
    full. Communication: one all-reduce at a time, in launch order, each
    alpha_ms + bytes / MiB * ms_per_mib. That is NCCL's rule (a process group issues its
    collectives on one CUDA stream per device); gloo runs up to two at once, one on each of its
    two worker threads, which this model leaves out. backward() returns when both are done.
    """
    n = len(widths) - 1
    sizes = [b for i in range(n) for b in (widths[i] * widths[i + 1] * 4, widths[i + 1] * 4)]
    order = ready_order(n)
    buckets = assign_by_size(sizes, rebuild_limits(bucket_cap_mb), order) if rebuilt \
        else [order]
    t, ready, layers = 0.0, {}, []
    for i in reversed(range(n)):
        start, t = t, t + backward_macs(widths, batch, i) * ns_per_mac / 1e6
        layers.append({"layer": i, "start_ms": start, "end_ms": t})
        ready[2 * i + 1] = ready[2 * i] = t
    out, launch, done = [], 0.0, 0.0
    for k, params in enumerate(buckets):
        nbytes = sum(sizes[p] for p in params)
        full = max(ready[p] for p in params)
        launch = max(full, launch)  # mark_bucket_ready: strictly in index order
        start = max(launch, done)  # the model runs one collective at a time
        done = start + alpha_ms + nbytes / MIB * ms_per_mib
        out.append({"index": k, "params": params, "param_bytes": [sizes[p] for p in params],
                    "bytes": nbytes, "full_ms": full,
                    "launch_ms": launch, "start_ms": start, "done_ms": done})
    compute = t
    return {"layers": layers, "grad_ready_ms": [[p, ready[p]] for p in order],
            "buckets": out, "compute_ms": compute, "backward_ms": max(compute, done),
            "exposed_ms": max(compute, done) - compute}
# --8<-- [end:model]


# The order of simultaneous events: a layer's gradients arrive, a bucket's all-reduce finishes,
# a full bucket is launched, a queued all-reduce starts, backward() returns.
_RANK = {"begin": -1, "ready": 0, "done": 1, "launch": 2, "start": 3, "end": 4}


def timeline_events(tl: dict) -> list[dict]:
    """What happens during the modelled backward, in order, and the buckets' states after each
    event (what the interactive figure steps through): filling (bytes of its ready gradients),
    full (every gradient in, not launched yet), queued (launched, another all-reduce still
    running), reducing, done."""
    ev = [(0.0, "begin", -1)]
    ev += [(lay["end_ms"], "ready", lay["layer"]) for lay in tl["layers"]]
    for b in tl["buckets"]:
        ev += [(b["launch_ms"], "launch", b["index"]), (b["done_ms"], "done", b["index"])]
        if b["start_ms"] > b["launch_ms"]:
            ev.append((b["start_ms"], "start", b["index"]))
    ev.append((tl["backward_ms"], "end", -1))
    ev.sort(key=lambda e: (e[0], _RANK[e[1]]))  # stable: equal keys keep the order above
    ready_layers: set[int] = set()
    launched: set[int] = set()
    started: set[int] = set()
    finished: set[int] = set()
    out = []
    for t, kind, ident in ev:
        if kind == "ready":
            ready_layers.add(ident)
        elif kind == "launch":
            launched.add(ident)
        elif kind == "start":
            started.add(ident)
        elif kind == "done":
            finished.add(ident)
        states, ready_bytes = [], []
        for b in tl["buckets"]:
            k = b["index"]
            got = [j for j, p in enumerate(b["params"]) if p // 2 in ready_layers]
            ready_bytes.append(sum(b["param_bytes"][j] for j in got))
            if k in finished:
                states.append("done")
            elif k in started or (k in launched and b["start_ms"] == b["launch_ms"]):
                states.append("reducing")
            elif k in launched:
                states.append("queued")
            elif len(got) == len(b["params"]):
                states.append("full")
            else:
                states.append("filling")
        out.append({"t_ms": t, "kind": kind, "id": ident, "states": states,
                    "ready_bytes": ready_bytes})
    return out


class Recorder:
    def __init__(self) -> None:
        self.t0 = 0
        self.ready: list[tuple[int, int]] = []  # (param index, ns since t0)
        self.buckets: dict[int, dict] = {}

    def now(self) -> int:
        return time.perf_counter_ns() - self.t0


# --8<-- [start:hook]
def timed_allreduce(state: tuple[Recorder, dict[int, int]],
                    bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """Same math as the built-in allreduce_hook, plus two timestamps per bucket."""
    rec, index_of = state
    entry = {"launch": rec.now(),
             "params": [index_of[id(p)] for p in bucket.parameters()],
             "bytes": bucket.buffer().numel() * bucket.buffer().element_size()}
    rec.buckets[bucket.index()] = entry
    buf = bucket.buffer().div_(dist.get_world_size())  # hooks average themselves
    fut = dist.all_reduce(buf, async_op=True).get_future()

    def done(f: torch.futures.Future) -> torch.Tensor:
        entry["done"] = rec.now()  # on the thread that completed the collective
        return f.value()[0]

    return fut.then(done)
# --8<-- [end:hook]


def per_rank(rank: int, world_size: int, batch: int) -> list[dict]:
    torch.manual_seed(0)
    model = Tower()
    rec = Recorder()
    params = list(model.parameters())
    index_of = {id(p): i for i, p in enumerate(params)}
    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(lambda p, i=i: rec.ready.append((i, rec.now())))
    ddp = DDP(model, bucket_cap_mb=1)
    ddp.register_comm_hook((rec, index_of), timed_allreduce)
    x = torch.randn(batch, 512, generator=torch.Generator().manual_seed(rank))
    out = []
    for it in range(1, 4):
        loss = ddp(x).square().mean()
        rec.ready, rec.buckets = [], {}
        rec.t0 = time.perf_counter_ns()
        loss.backward()  # returns after finalize_backward waited for every bucket
        end = rec.now()
        out.append({
            "iteration": it,
            "grad_ready": rec.ready,
            "buckets": [rec.buckets[k] for k in sorted(rec.buckets)],
            "backward_end": end,
        })
    return out


def check(iters: list[dict]) -> None:
    first, third = iters[0], iters[2]
    # Iteration 1: the constructor put every parameter into one bucket, so the all-reduce
    # can only start after the last gradient is ready: no overlap at all.
    assert len(first["buckets"]) == 1
    assert first["buckets"][0]["launch"] >= max(t for _, t in first["grad_ready"])
    # Iteration 3: four rebuilt buckets, launched in index order, each right after its own
    # last gradient and before any gradient of the next bucket is ready.
    b = third["buckets"]
    assert len(b) == 4
    ready = dict(third["grad_ready"])
    for k, bk in enumerate(b):
        assert bk["launch"] >= max(ready[i] for i in bk["params"])
        if k + 1 < len(b):
            assert bk["launch"] < min(ready[i] for i in b[k + 1]["params"])
    # The point of bucketing: the first all-reduce starts while backward is still computing.
    assert b[0]["launch"] < max(ready.values())
    # backward() returns only when every bucket's future has completed.
    for it in iters:
        assert all(bk["done"] <= it["backward_end"] for bk in it["buckets"])


def to_ms(iters: list[dict]) -> list[dict]:
    """Nanoseconds -> milliseconds rounded to 1 us: the form committed beside the figure."""
    def ms(ns: int) -> float:
        return round(ns / 1e6, 3)

    return [{
        "iteration": it["iteration"],
        "grad_ready_ms": [[i, ms(t)] for i, t in it["grad_ready"]],
        "buckets": [{"index": k, "params": bk["params"], "bytes": bk["bytes"],
                     "launch_ms": ms(bk["launch"]), "done_ms": ms(bk["done"])}
                    for k, bk in enumerate(it["buckets"])],
        "backward_end_ms": ms(it["backward_end"]),
    } for it in iters]


def report(iters: list[dict]) -> None:
    for it in iters:
        last_ready = max(t for _, t in it["grad_ready_ms"])
        print(f"iteration {it['iteration']}: last gradient ready at {last_ready:.2f} ms, "
              f"backward() returned at {it['backward_end_ms']:.2f} ms")
        for bk in it["buckets"]:
            print(f"  bucket {bk['index']} params {bk['params']}: "
                  f"launched {bk['launch_ms']:6.2f} ms, done {bk['done_ms']:6.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args()
    results = run_ranks(per_rank, args.batch)
    for r in results:
        check(r)
    iters = to_ms(results[0])
    report(iters)
    if args.json_out:
        meta = {"command": "python examples/pytorch_ddp_deep_dive/overlap.py --json-out ...",
                "torch": torch.__version__, "rank": 0, "batch": args.batch}
        args.json_out.write_text(json.dumps({"meta": meta, "iterations": iters}, indent=1) + "\n")
    print("all overlap checks passed on both ranks")


if __name__ == "__main__":
    main()
