"""The buffer broadcast at the start of DDP's forward: when it happens and what it overwrites.

Run:  python examples/pytorch_ddp_deep_dive/buffers.py

Two gloo ranks on 127.0.0.1. Each rank writes its own value into a buffer; after a forward we
look at what rank 1 holds. Everything here uses public API except the profiler event names
(``gloo:broadcast``), which are what the gloo backend records.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import run_ranks  # noqa: E402


class Probe(nn.Module):
    """A Linear, a BatchNorm (float running stats + an int64 counter), and a marker buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.bn = nn.BatchNorm1d(16)
        self.register_buffer("marker", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.lin(x))


def batch(rank: int, step: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(1000 * rank + step)
    return torch.randn(32, 16, generator=g) * (1 + rank) + 3 * rank  # ranks see different data


# --8<-- [start:schedule]
SCHEDULE = ["train", "train", "no_sync", "train", "eval", "eval", "train", "train"]


def schedule(rank: int, world_size: int) -> list[bool]:
    """Per forward: was rank 1's marker overwritten by rank 0's value?"""
    torch.manual_seed(0)
    ddp = DDP(Probe())
    seen = []
    for step, kind in enumerate(SCHEDULE):
        ddp.module.marker.fill_(rank + 1.0)  # rank 0 writes 1.0, rank 1 writes 2.0
        x = batch(rank, step)
        if kind == "eval":
            ddp.eval()
            with torch.no_grad():
                ddp(x)
        elif kind == "no_sync":
            ddp.train()
            with ddp.no_sync():
                ddp(x).sum().backward()
        else:
            ddp.train()
            ddp(x).sum().backward()
        seen.append(ddp.module.marker.item() == 1.0)
    return seen
# --8<-- [end:schedule]


def init_sync(rank: int, world_size: int) -> dict[str, float]:
    """What rank 1's marker holds right after construction, per constructor argument."""
    out = {}
    cases = {"default": {}, "broadcast_buffers=False": {"broadcast_buffers": False},
             "forward_sync_buffers=False": {"forward_sync_buffers": False}}
    for name, kwargs in cases.items():
        torch.manual_seed(0)
        m = Probe()
        m.marker.fill_(rank + 1.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            DDP(m, **kwargs)
        out[name] = m.marker.item()
        out[name + " warns"] = any(issubclass(w.category, FutureWarning) for w in caught)
    return out


def bn_stats(rank: int, world_size: int, steps: int = 5) -> dict:
    """BatchNorm running_mean after `steps` training forwards, with and without forward sync."""
    out = {}
    for sync in (True, False):
        torch.manual_seed(0)
        ddp = DDP(Probe(), forward_sync_buffers=sync)
        for step in range(steps):
            ddp(batch(rank, step)).sum().backward()
        out[f"sync={sync}"] = ddp.module.bn.running_mean.tolist()
    # Single-process references on the same initial weights (no optimizer step is taken).
    for name, ranks in (("only_rank0_batches", [0]), ("only_rank1_batches", [1]),
                        ("both_ranks_batches", [0, 1])):
        torch.manual_seed(0)
        ref = Probe()
        with torch.no_grad():
            for step in range(steps):
                ref(torch.cat([batch(r, step) for r in ranks]))
        out[name] = ref.bn.running_mean.tolist()
    return out


def collectives(rank: int, world_size: int) -> dict[str, int]:
    """gloo collectives recorded by the profiler in one training step (forward + backward)."""
    out = {}
    for name, model_fn, kwargs in (
        ("BatchNorm model, forward sync on", Probe, {}),
        ("BatchNorm model, forward sync off", Probe, {"forward_sync_buffers": False}),
        ("float buffers only, forward sync on", lambda: nn.Sequential(Probe().lin, Marker()), {}),
    ):
        torch.manual_seed(0)
        ddp = DDP(model_fn(), **kwargs)
        for step in range(3):  # let the buckets be rebuilt first
            ddp(batch(rank, step)).sum().backward()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            ddp(batch(rank, 9)).sum().backward()
        for op in ("gloo:broadcast", "gloo:all_reduce"):
            out[f"{name}: {op}"] = sum(1 for e in prof.events() if e.name == op)
    return out


class Marker(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("marker", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.marker


def per_rank(rank: int, world_size: int) -> dict:
    return {"schedule": schedule(rank, world_size), "init": init_sync(rank, world_size),
            "bn": bn_stats(rank, world_size), "collectives": collectives(rank, world_size)}


def check(r0: dict, r1: dict) -> None:
    # Rank 0 is the source: its own marker is never replaced.
    assert all(r0["schedule"])
    # Rank 1: the broadcast runs at the start of a forward only if the previous forward was a
    # gradient-syncing one (see require_forward_param_sync in _pre_forward/_post_forward).
    assert r1["schedule"] == [True, True, True, False, True, False, False, True]
    # Construction: only the deprecated broadcast_buffers=False skips the init broadcast.
    assert r1["init"]["default"] == 1.0
    assert r1["init"]["broadcast_buffers=False"] == 2.0
    assert r1["init"]["forward_sync_buffers=False"] == 1.0
    assert r1["init"]["broadcast_buffers=False warns"] and not r1["init"]["default warns"]
    # With forward sync, rank 0's running stats are exactly those of a process that only ever
    # saw rank 0's batches; without it, each rank keeps statistics of its own data.
    b0, b1 = r0["bn"], r1["bn"]

    def close(a: list[float], b: list[float]) -> bool:
        return torch.allclose(torch.tensor(a), torch.tensor(b), atol=1e-6)

    assert close(b0["sync=True"], b0["only_rank0_batches"])
    assert not close(b0["sync=True"], b0["both_ranks_batches"])
    assert close(b0["sync=False"], b0["only_rank0_batches"])
    assert close(b1["sync=False"], b1["only_rank1_batches"])
    assert not close(b0["sync=False"], b1["sync=False"])
    # Collectives per training step: one broadcast per buffer dtype, plus the gradient bucket.
    c = r0["collectives"]
    assert c["BatchNorm model, forward sync on: gloo:broadcast"] == 2  # float32 + int64
    assert c["BatchNorm model, forward sync off: gloo:broadcast"] == 0
    assert c["float buffers only, forward sync on: gloo:broadcast"] == 1
    assert all(v == 1 for k, v in c.items() if k.endswith("all_reduce"))


def main() -> None:
    r0, r1 = run_ranks(per_rank)
    check(r0, r1)
    print("rank 1 marker overwritten by rank 0 in this forward?")
    for kind, hit in zip(SCHEDULE, r1["schedule"], strict=True):
        print(f"  {kind:8s} {'yes' if hit else 'no'}")
    print("rank 1 marker right after DDP(...) (rank 0 wrote 1.0, rank 1 wrote 2.0):")
    for k in ("default", "broadcast_buffers=False", "forward_sync_buffers=False"):
        print(f"  {k:28s} {r1['init'][k]}   FutureWarning: {r1['init'][k + ' warns']}")
    print("BatchNorm running_mean[:3] after 5 training forwards:")
    for who, r in (("rank 0", r0), ("rank 1", r1)):
        for k in ("sync=True", "sync=False"):
            print(f"  {who} {k:10s} {[round(v, 4) for v in r['bn'][k][:3]]}")
    for label, key in (("rank 0's batches only", "only_rank0_batches"),
                       ("both ranks' batches  ", "both_ranks_batches")):
        print(f"  reference, {label} {[round(v, 4) for v in r0['bn'][key][:3]]}")
    print("gloo collectives in one training step (profiler events on rank 0):")
    for k, v in r0["collectives"].items():
        print(f"  {k}: {v}")
    print("all buffer checks passed")


if __name__ == "__main__":
    main()
