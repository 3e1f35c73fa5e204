"""When does "Expected to have finished reduction in the prior iteration" fire?

Two gloo ranks train a two-layer model three times: with the default flags, with
``find_unused_parameters=True`` and with ``static_graph=True``. Both layers are used in iterations
1 and 2. In iteration 3 the loss is computed from layer a's output, which the forward keeps on the
module besides returning layer b's, so layer b's parameters get no gradient and their bucket is
never reduced. In all three runs the error comes at the start of forward 4, after the one-time
rebuild (forward 2, or 3 with ``static_graph``; none with ``find_unused_parameters``):
``Reducer::rebuild_buckets`` calls ``ensure_prior_reduction_finished()`` first, on every
grad-enabled forward, before it returns early when there is nothing to rebuild. The message
after its first sentence differs by flag.

With ``find_unused_parameters=True`` the detour matters: the Reducer walks the graph from the
returned output, finds layer b on it and expects its gradient. Had the loss merely ignored a
returned output, ``_DDPSink`` would have handed that output an undefined gradient and the
iteration would have finished.

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

FIRST = "Expected to have finished reduction in the prior iteration before starting a new one"
# Each run's flags, the forward whose _pre_forward rebuilds the buckets, and words that only
# its message contains.
CASES = {
    "default flags": ({}, 2, "You can enable unused parameter detection"),
    "find_unused_parameters=True": ({"find_unused_parameters": True}, None,
                                    "Since `find_unused_parameters=True` is enabled"),
    "static_graph=True": ({"static_graph": True}, 3,
                          "your training graph has changed in this iteration"),
}


class TwoLayers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.hidden = self.a(x)  # kept on the module, not returned
        return self.b(self.hidden)


# --8<-- [start:work]
def work(rank: int, world_size: int) -> dict:
    runs = {}
    for name, (flags, _, _) in CASES.items():
        torch.manual_seed(0)
        ddp = DDP(TwoLayers(), bucket_cap_mb=1, **flags)
        events = []
        for it in (1, 2, 3, 4):
            try:
                out = ddp(torch.randn(4, 8))
            except RuntimeError as e:
                events.append((it, "raised", str(e)))
                break
            events.append((it, "ok", ddp._has_rebuilt_buckets))
            # Iteration 3: the loss skips layer b (it reads a's output off the module).
            loss = ddp.module.hidden.sum() if it == 3 else out.sum()
            loss.backward()
        runs[name] = events
        dist.barrier()
    return runs
# --8<-- [end:work]


def sentence(message: str, words: str) -> str:
    """The sentence of the message that holds ``words`` (sentences end with ". ")."""
    at = message.index(words)
    start = message.rfind(". ", 0, at) + 2
    end = message.find(". ", at)
    return message[start:end + 1].replace("\n", "")


def check(name: str, events: list) -> str:
    flags, rebuild_at, words = CASES[name]
    assert [it for it, *_ in events] == [1, 2, 3, 4], events
    assert [kind for _, kind, _ in events] == ["ok", "ok", "ok", "raised"], events
    rebuilt = [it for it, _, done in events[:3] if done]
    assert rebuilt == ([] if rebuild_at is None else list(range(rebuild_at, 4))), (name, rebuilt)
    message = events[3][2]
    assert message.startswith(FIRST + ". "), message
    for other, (_, _, w) in CASES.items():  # the words tell the three messages apart
        assert (w in message) == (other == name), (name, other)
    return sentence(message, words)


def main() -> None:
    results = run_ranks(work)
    print(f"every run, both ranks: forward 4 raised \"{FIRST}.\"")
    for name in CASES:
        said = {check(name, r[name]) for r in results}
        assert len(said) == 1  # both ranks raise the same message
        rebuild_at = CASES[name][1]
        when = "no rebuild" if rebuild_at is None else f"rebuilt at forward {rebuild_at}"
        print(f"{name} ({when}); the message says:")
        print(f"  \"{said.pop()}\"")
    print("all prior-reduction checks passed on both ranks")


if __name__ == "__main__":
    main()
