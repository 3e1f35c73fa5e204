"""When does "Expected to have finished reduction in the prior iteration" fire?

Two gloo ranks train a model with two layers and ``find_unused_parameters=False``. Both
layers are used in iterations 1 and 2 (the buckets are rebuilt at the start of forward 2);
in iteration 3 the second layer is skipped, so its gradient never arrives and its bucket is
never reduced. The error comes at the start of forward 4, long after the one-time rebuild:
``Reducer::rebuild_buckets`` calls ``ensure_prior_reduction_finished()`` first, on every
grad-enabled forward, before it returns early because the buckets were already rebuilt.

Run: python examples/pytorch_ddp_deep_dive/prior_reduction.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import run_ranks  # noqa: E402


class TwoLayers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, use_b: bool = True) -> torch.Tensor:
        x = self.a(x)
        return self.b(x) if use_b else x


# --8<-- [start:work]
def work(rank: int, world_size: int) -> dict:
    torch.manual_seed(0)
    ddp = DDP(TwoLayers(), bucket_cap_mb=1)  # find_unused_parameters=False (the default)
    events = []
    for it in (1, 2, 3, 4):
        try:
            out = ddp(torch.randn(4, 8), use_b=(it != 3))  # layer b unused in iteration 3
        except RuntimeError as e:
            events.append((it, "forward raised: " + str(e).split(".")[0]))
            break
        events.append((it, f"forward ok, rebuilt={ddp._has_rebuilt_buckets}"))
        out.sum().backward()
    dist.barrier()
    return {"events": events}
# --8<-- [end:work]


def main() -> None:
    results = run_ranks(work)
    for rank, res in enumerate(results):
        print(f"rank {rank}:")
        for it, what in res["events"]:
            print(f"  forward {it}: {what}")
    for res in results:
        ev = res["events"]
        assert [it for it, _ in ev] == [1, 2, 3, 4], ev
        assert ev[0][1] == "forward ok, rebuilt=False"
        assert ev[1][1] == "forward ok, rebuilt=True"  # the one-time rebuild: forward 2
        assert ev[2][1] == "forward ok, rebuilt=True"  # iteration 3 leaves b's bucket pending
        assert ev[3][1].startswith("forward raised: Expected to have finished reduction in the "
                                   "prior iteration before starting a new one"), ev[3]
    print("the error fired at forward 4, after the rebuild at forward 2, on both ranks")


if __name__ == "__main__":
    main()
