"""Drive SGLang v0.5.23's real RadixCache and SchedulePolicy through the scenarios of radix.py.

Needs SGLang's wheel unpacked into DIR, with msgspec installed there too (the test module builds
that folder in a cache outside the repository); sglang_imports.py replaces the heavy modules the
import chain reaches with placeholders that raise if called. Nothing here needs a GPU. Prints one
JSON object: for each scenario, what the real code did and what our model did, and which SGLang
modules ran for real.

Usage: python real_compare.py DIR
"""

from __future__ import annotations

import json
import os
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sglang_imports import PLACEHOLDERS, install, placeholders_imported, real_sglang_modules  # noqa: E402

install(sys.argv[1])

import torch  # noqa: E402
from radix import RadixTree, lpm_order  # noqa: E402
from sglang.srt.managers.schedule_policy import SchedulePolicy  # noqa: E402
from sglang.srt.mem_cache.base_prefix_cache import (  # noqa: E402
    EvictParams,
    InsertParams,
    MatchPrefixParams,
)
from sglang.srt.mem_cache.radix_cache import RadixCache, RadixKey  # noqa: E402


class Allocator:
    """What RadixCache asks of the KV-pool allocator when it evicts or drops duplicates."""

    device = "cpu"
    page_size = 1

    def __init__(self) -> None:
        self.freed: list[int] = []

    def free_segment(self, indices, start_pos=0) -> None:
        self.freed += [int(i) for i in indices]


def key(ids):
    return RadixKey(token_ids=array("q", ids))


def real_shape(node) -> list:
    return [[list(c.key.token_ids), [int(v) for v in c.value], c.lock_ref, real_shape(c)]
            for _, c in sorted(node.children.items(), key=lambda kv: kv[1].key.token_ids[0])]


def run_both(ops):
    """Apply one list of operations to the real tree and to ours; record every result."""
    alloc = Allocator()
    real = RadixCache.create_simulated(mock_allocator=alloc)
    ours = RadixTree()
    real_nodes, our_nodes, real_locks = {}, {}, {}
    out = {"real": [], "ours": []}
    for op, *args in ops:
        if op == "insert":
            ids, vals = args
            r = real.insert(InsertParams(key=key(ids), value=torch.tensor(vals, dtype=torch.int64)))
            out["real"].append(("insert", r.prefix_len))
            out["ours"].append(("insert", ours.insert(ids, vals)))
        elif op == "match":
            ids, name = args
            m = real.match_prefix(MatchPrefixParams(key=key(ids)))
            real_nodes[name] = m.last_device_node
            v, node = ours.match_prefix(ids)
            our_nodes[name] = node
            out["real"].append(("match", m.device_prefix_len,
                                [int(x) for x in real.path_device_indices(m.last_device_node)]))
            out["ours"].append(("match", len(v), v))
        elif op == "lock":
            (name,) = args
            real_locks[name] = real.lock(real_nodes[name])
            ours.inc_lock_ref(our_nodes[name])
        elif op == "unlock":
            (name,) = args
            real.unlock(real_locks.pop(name))
            ours.dec_lock_ref(our_nodes[name])
        elif op == "evict":
            (n,) = args
            r = real.evict(EvictParams(num_tokens=n))
            out["real"].append(("evict", r.num_tokens_evicted))
            out["ours"].append(("evict", ours.evict(n)))
        out["real"].append(("sizes", real.evictable_size(), real.protected_size()))
        out["ours"].append(("sizes", ours.evictable_size, ours.protected_size))
    out["real"].append(("tree", real_shape(real.root_node), sorted(alloc.freed)))
    out["ours"].append(("tree", ours.shape(), sorted(ours.freed)))
    return out


SYS = [1, 2, 3, 4]
SCENARIOS = {
    # The post's walk-through: A cached, B matches the shared system prompt (split), B is
    # locked while it runs, eviction may only take unlocked leaves, then everything goes.
    "walkthrough": [
        ("insert", SYS + [10, 11], [100, 101, 102, 103, 104, 105]),
        ("match", SYS + [20, 21], "B"),
        ("lock", "B"),
        ("insert", SYS + [20, 21], [200, 201, 202, 203, 204, 205]),
        ("evict", 3),
        ("unlock", "B"),
        ("evict", 10),
    ],
    # Insert splitting a node in the middle, a second split below it, and exact re-inserts.
    "splits": [
        ("insert", [5, 6, 7, 8, 9], [0, 1, 2, 3, 4]),
        ("insert", [5, 6, 7, 1], [10, 11, 12, 13]),
        ("insert", [5, 6, 2], [20, 21, 22]),
        ("insert", [5, 6, 7, 8, 9], [30, 31, 32, 33, 34]),
        ("match", [5, 6, 7, 8, 9, 9], "x"),
        ("match", [5, 6, 7, 8], "y"),
        ("match", [7, 7], "z"),
    ],
    # LRU: touching the older branch makes the other one the victim; a lock blocks a leaf
    # and, with it, its parent.
    "lru_and_locks": [
        ("insert", [1, 1, 1], [1, 2, 3]),
        ("insert", [2, 2, 2], [4, 5, 6]),
        ("insert", [3, 3], [7, 8]),
        ("match", [1, 1, 1], "one"),
        ("evict", 1),
        ("match", [3, 3], "three"),
        ("lock", "three"),
        ("evict", 4),
        ("unlock", "three"),
        ("evict", 1),
    ],
}


def lpm_compare():
    """SchedulePolicy's longest-prefix-match sort against ours, on plain stand-in requests."""

    class R:
        def __init__(self, rid, hit):
            self.rid, self.num_matched_prefix_tokens = rid, hit

    hits = {"a": 0, "b": 12, "c": 3, "d": 12, "e": 40}
    queue = [R(rid, h) for rid, h in hits.items()]
    SchedulePolicy._sort_by_longest_prefix(queue, set())
    deprioritized = [R(rid, h) for rid, h in hits.items()]
    SchedulePolicy._sort_by_longest_prefix(deprioritized, {"e"})
    return {"real": [r.rid for r in queue], "ours": lpm_order(hits),
            "real_with_e_deprioritized": [r.rid for r in deprioritized]}


if __name__ == "__main__":
    result = {name: run_both(ops) for name, ops in SCENARIOS.items()}
    result["lpm"] = lpm_compare()
    result["modules"] = {"real": real_sglang_modules(), "placeholders": PLACEHOLDERS,
                         "placeholders_imported": placeholders_imported()}
    print(json.dumps(result))
