"""Where DDP puts each gradient: the constructor's buckets, and the ones rebuilt after iteration 1.

Run:  python examples/pytorch_ddp_deep_dive/buckets.py [--json-out PATH]

Two gloo ranks on 127.0.0.1. The bucket layout is read from DDP's logging data
(``DistributedDataParallel._get_ddp_logging_data()``, an internal, prototype interface) and from
``torch.distributed._compute_bucket_assignment_by_size`` (internal too), and checked against a
pure-Python model of the C++ assignment rule.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import run_ranks  # noqa: E402

MIB = 1024 * 1024


class Tower(nn.Module):
    """Four 512x512 layers: each weight is exactly 1 MiB of fp32, each bias 2 KiB."""

    def __init__(self, width: int = 512, depth: int = 4):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


# --8<-- [start:rule]
def assign_by_size(sizes: list[int], limits: list[int],
                   order: list[int] | None = None) -> list[list[int]]:
    """Python model of c10d::compute_bucket_assignment_by_size (one dtype/device).

    Walk the tensors (in ``order`` if given, else by index) and add each to the
    open bucket; close the bucket as soon as its size reaches the current limit,
    so a bucket can overshoot its limit by one tensor. Move to the next limit
    after each closed bucket and stay on the last one. Without an explicit
    order, sort the buckets by their smallest index.
    """
    walk = list(range(len(sizes))) if order is None else list(order)
    buckets, current, size, li = [], [], 0, 0
    for idx in walk:
        current.append(idx)
        size += sizes[idx]
        if size >= limits[li]:
            buckets.append(current)
            current, size = [], 0
            li = min(li + 1, len(limits) - 1)
    if current:
        buckets.append(current)
    if order is None:
        buckets.sort(key=min)
    return buckets
# --8<-- [end:rule]


def _ints(s: str) -> list[int]:
    return [int(v) for v in s.split(",")] if s else []


def _buckets(s: str) -> list[list[int]]:
    return [[int(v) for v in b.split()] for b in s.split(",")] if s else []


CASES = {
    "default": {},
    "bucket_cap_mb=25": {"bucket_cap_mb": 25},
    "bucket_cap_mb=1": {"bucket_cap_mb": 1},
    "bucket_cap_mb=1, find_unused_parameters=True": {"bucket_cap_mb": 1,
                                                     "find_unused_parameters": True},
    "static_graph=True": {"static_graph": True},
    "bucket_cap_mb_list=[1, 2]": {"bucket_cap_mb_list": [1, 2]},
    "find_unused_parameters=True": {"find_unused_parameters": True},
    "DDP_SET_LAST_BUCKET_CAP=1": {},  # default arguments, the environment variable set
}
ENV = {"DDP_SET_LAST_BUCKET_CAP=1": ("DDP_SET_LAST_BUCKET_CAP", "1")}  # read by the rebuild
FORWARDS = 4


def _first(flags: list[bool]) -> int | None:
    """1-based index of the first forward where the flag was true."""
    return flags.index(True) + 1 if True in flags else None


def per_rank(rank: int, world_size: int) -> dict:
    out: dict = {}
    for name, kwargs in CASES.items():
        torch.manual_seed(0)
        model = Tower()
        ddp = DDP(model, **kwargs)
        built = ddp._get_ddp_logging_data()  # internal: a dict of strings and ints
        x = torch.randn(8, 512, generator=torch.Generator().manual_seed(rank))
        rebuilt, logged = [], []
        if name in ENV:
            os.environ[ENV[name][0]] = ENV[name][1]
        for _ in range(FORWARDS):
            y = ddp(x)
            # After each forward: has _pre_forward rebuilt the buckets yet, and does the
            # logging data show the rebuilt layout yet?
            rebuilt.append(ddp._has_rebuilt_buckets)
            logged.append("rebuilt_bucket_sizes" in ddp._get_ddp_logging_data())
            y.sum().backward()
        if name in ENV:
            del os.environ[ENV[name][0]]
        log = ddp._get_ddp_logging_data()
        out[name] = {
            "bucket_cap_bytes": log["bucket_cap_bytes"],
            "constructor_bucket_sizes": _ints(built["bucket_sizes"]),
            "grad_ready_order": _ints(log.get("prev_iteration_grad_ready_order_indices", "")),
            "has_rebuilt_buckets": log.get("has_rebuilt_buckets", 0),
            "rebuilt_during_forward": _first(rebuilt),
            "rebuilt_layout_logged_from_forward": _first(logged),
            "rebuilt_buckets": _buckets(log.get("rebuilt_per_bucket_param_indices", "")),
            "rebuilt_bucket_sizes": _ints(log.get("rebuilt_bucket_sizes", "")),
            "can_set_static_graph_logged": "can_set_static_graph" in log,
        }
    params = list(Tower().named_parameters())
    out["params"] = [[n, p.numel() * p.element_size()] for n, p in params]

    # gradient_as_bucket_view=True: after the rebuild, each .grad is a view into its bucket,
    # so the grads of one bucket share one storage.
    torch.manual_seed(0)
    ddp = DDP(Tower(), bucket_cap_mb=1, gradient_as_bucket_view=True)
    x = torch.randn(8, 512)
    for _ in range(2):
        ddp(x).sum().backward()
    storages: dict[int, list[int]] = {}
    for i, p in enumerate(ddp.module.parameters()):
        storages.setdefault(p.grad.untyped_storage().data_ptr(), []).append(i)
    out["grad_storage_groups"] = sorted(sorted(v) for v in storages.values())

    # Every trainable parameter in delay_all_reduce_named_params (a frozen layer left outside
    # the list keeps the constructor's device check from finding no parameter at all): the
    # constructor returns before building a Reducer, and also before it sets _lazy_init_ran,
    # which _pre_forward reads before its own early return for this case.
    torch.manual_seed(0)
    model = Tower()
    model.layers[3].requires_grad_(False)
    delayed = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    ddp = DDP(model, delay_all_reduce_named_params=delayed,
              param_to_hook_all_reduce=model.layers[0].weight)
    try:
        ddp(torch.randn(8, 512))
        first_forward = "ok"
    except AttributeError as e:
        first_forward = f"AttributeError: {e}"
    out["all_delayed"] = {"delay_all_reduce_all_params": ddp._delay_all_reduce_all_params,
                          "has_reducer": hasattr(ddp, "reducer"), "first_forward": first_forward}
    return out


def check(data: dict) -> None:
    sizes = [b for _, b in data["params"]]
    first = dist._DEFAULT_FIRST_BUCKET_BYTES
    # 1. The Python model agrees with the C++ function for a few limit lists and orders.
    tensors = [torch.empty(b // 4) for b in sizes]
    for limits in ([MIB], [first, 25 * MIB], [3 * MIB], [MIB // 2, 2 * MIB]):
        cpp, _ = dist._compute_bucket_assignment_by_size(tensors, limits)
        assert [list(b) for b in cpp] == assign_by_size(sizes, limits), limits
        # The rebuild passes tensors already in gradient-ready order plus their indices.
        rev = list(range(len(sizes)))[::-1]
        cpp, _ = dist._compute_bucket_assignment_by_size([tensors[i] for i in rev], limits,
                                                         [], rev)
        assert [list(b) for b in cpp] == assign_by_size(sizes, limits, rev), limits
    # 2. Constructor: one bucket holding everything unless find_unused_parameters=True or
    #    bucket_cap_mb_list is given; those two cut by size in registration order.
    total = sum(sizes)
    for name in ("default", "bucket_cap_mb=25", "bucket_cap_mb=1", "static_graph=True"):
        assert data[name]["constructor_bucket_sizes"] == [total], name
    for name, lim in (("bucket_cap_mb=1, find_unused_parameters=True", [MIB]),
                      ("bucket_cap_mb_list=[1, 2]", [MIB, 2 * MIB])):
        expect = assign_by_size(sizes, lim)[::-1]  # registration order, then reversed
        assert data[name]["constructor_bucket_sizes"] == [sum(sizes[i] for i in b)
                                                          for b in expect], name
    for name in ("bucket_cap_mb=1, find_unused_parameters=True", "find_unused_parameters=True"):
        fu = data[name]
        assert fu["has_rebuilt_buckets"] == 0 and fu["rebuilt_buckets"] == [], name
        assert fu["rebuilt_during_forward"] is None, name
    # With the default caps, find_unused_parameters=True keeps the constructor's layout: cut at
    # 1 MiB first in registration order, then reversed, so the small bucket is reduced last.
    small_last = [sum(sizes[i] for i in b) for b in assign_by_size(sizes, [first, 25 * MIB])[::-1]]
    assert data["find_unused_parameters=True"]["constructor_bucket_sizes"] == small_last
    # 3. The rebuild: in _pre_forward of forward 2 (forward 3 with static_graph=True), in
    #    gradient-ready order (last layer first); the logging data shows it one forward later.
    limits = {"default": [first, 25 * MIB], "bucket_cap_mb=25": [25 * MIB, 25 * MIB],
              "bucket_cap_mb=1": [MIB, MIB], "static_graph=True": [first, 25 * MIB],
              "bucket_cap_mb_list=[1, 2]": [MIB, 2 * MIB]}
    for name, lim in limits.items():
        d = data[name]
        when = 3 if name == "static_graph=True" else 2
        assert d["rebuilt_during_forward"] == when, name
        assert d["rebuilt_layout_logged_from_forward"] == when + 1, name
        assert d["grad_ready_order"] == list(range(len(sizes)))[::-1], name
        assert d["rebuilt_buckets"] == assign_by_size(sizes, lim, d["grad_ready_order"]), name
        assert d["rebuilt_bucket_sizes"] == [sum(sizes[i] for i in b)
                                             for b in d["rebuilt_buckets"]], name
    # DDP_SET_LAST_BUCKET_CAP=1: the rebuild cuts the reversed ready order and reverses the
    # buckets back, so the small bucket is the last one again, as at construction above.
    d = data["DDP_SET_LAST_BUCKET_CAP=1"]
    assert d["rebuilt_during_forward"] == 2
    assert d["rebuilt_buckets"] == assign_by_size(sizes, [first, 25 * MIB],
                                                  d["grad_ready_order"][::-1])[::-1]
    assert d["rebuilt_bucket_sizes"] == small_last
    # For this model the big bucket, reduced first, holds layer 0's bias (index 1), whose
    # gradient is ready last: neither bucket can launch before backward's compute has ended.
    assert 1 in d["rebuilt_buckets"][0] and d["grad_ready_order"][-2:] == [1, 0]
    # The key the static_graph docstring suggests reading is never set in a live run.
    assert not any(data[name]["can_set_static_graph_logged"] for name in CASES)
    # Passing the default cap explicitly loses the small first bucket.
    assert len(data["default"]["rebuilt_buckets"]) == 2
    assert len(data["bucket_cap_mb=25"]["rebuilt_buckets"]) == 1
    # 4. gradient_as_bucket_view: one grad storage per rebuilt bucket.
    want = sorted(sorted(b) for b in data["bucket_cap_mb=1"]["rebuilt_buckets"])
    assert data["grad_storage_groups"] == want
    # 5. Every trainable parameter delayed: no Reducer at all, and no forward either.
    assert data["all_delayed"] == {
        "delay_all_reduce_all_params": True, "has_reducer": False,
        "first_forward": "AttributeError: 'DistributedDataParallel' object has no attribute "
                         "'_lazy_init_ran'"}


def report(data: dict) -> None:
    names = [n for n, _ in data["params"]]
    print("parameters (registration order):")
    for i, (n, b) in enumerate(data["params"]):
        print(f"  {i}: {n:16s} {b:>8d} bytes")
    for case in CASES:
        d = data[case]
        print(f"\nDDP({case})  bucket_cap_bytes={d['bucket_cap_bytes']}")
        print(f"  constructor bucket sizes: {d['constructor_bucket_sizes']}")
        if d["has_rebuilt_buckets"]:
            print(f"  rebuilt during forward {d['rebuilt_during_forward']}, in the logging data "
                  f"from forward {d['rebuilt_layout_logged_from_forward']}")
            print(f"  grad-ready order: {d['grad_ready_order']}")
            for j, (b, s) in enumerate(zip(d["rebuilt_buckets"], d["rebuilt_bucket_sizes"],
                                           strict=True)):
                print(f"  rebuilt bucket {j}: {s:>8d} bytes  {[names[i] for i in b]}")
        else:
            print("  no rebuild")
    logged = [c for c in CASES if data[c]["can_set_static_graph_logged"]]
    print(f"\ncan_set_static_graph in the logging data after {FORWARDS} iterations: "
          f"{logged or 'in no case'}")
    print(f"\ngradient_as_bucket_view=True: grads sharing a storage: {data['grad_storage_groups']}")
    print(f"every trainable parameter in delay_all_reduce_named_params: {data['all_delayed']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()
    results = run_ranks(per_rank)
    assert results[0] == results[1], "both ranks must agree on the layout"
    data = results[0]
    check(data)
    # The log gives the constructor's buckets only as sizes; check() proved they follow the rule.
    sizes = [b for _, b in data["params"]]
    data["bucket_cap_mb=1, find_unused_parameters=True"]["constructor_buckets"] = \
        assign_by_size(sizes, [MIB])[::-1]
    report(data)
    if args.json_out:
        args.json_out.write_text(json.dumps(data, indent=1) + "\n")
    print("\nall bucket checks passed")


if __name__ == "__main__":
    main()
