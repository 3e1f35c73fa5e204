"""Drive SGLang v0.5.23's real RadixCache and SchedulePolicy through the scenarios of radix.py.

Needs SGLang's wheel unpacked into DIR, with msgspec installed there too (the test module builds
that folder in a cache outside the repository); sglang_imports.py replaces the heavy modules the
import chain reaches with placeholders that raise if called. Nothing here needs a GPU. Prints one
JSON object: for each scenario, what the real code did and what our model did, and which SGLang
modules ran for real. The op-by-op scenarios call the tree's methods directly; the request
scenarios (radix.SCENARIOS, the stepper's traces) run radix.run_events over SGLang's own
match_prefix (with the input_len - 1 limit in its RadixKey), lock/unlock, checkpoint,
free_kv_row and evict_for_alloc, with stand-ins for the Req and the req_to_token pool.

Usage: python real_compare.py DIR
"""

from __future__ import annotations

import ast
import json
import os
import sys
import types
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sglang_imports import PLACEHOLDERS, install, placeholders_imported, real_sglang_modules  # noqa: E402

install(sys.argv[1])

import torch  # noqa: E402
from radix import SCENARIOS as REQUEST_SCENARIOS  # noqa: E402
from radix import RadixTree, lpm_order, max_prefix_len, run_events, tree_state  # noqa: E402
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

    def free_segments(self, segments) -> None:  # what free_kv_row calls
        for indices, start_pos in segments:
            self.free_segment(indices, start_pos)


class KvRecord:
    """The fields of Req.kv that checkpoint and free_kv_row read, with no SWA in play."""

    def __init__(self, req_pool_idx: int) -> None:
        self.req_pool_idx = req_pool_idx
        self.cache_protected_len = 0
        self.cache_inserted_len = 0
        self.swa_evict_floor = 0

    def get_evicted_seqlen(self, component) -> int:
        return 0

    def swa_dead_lo(self, page_size: int) -> int:
        return 0


class ReqToTokenPool:
    """req_to_token: one row of KV slots per request, as the scheduler's pool holds them."""

    def __init__(self, rows: int = 8, width: int = 64) -> None:
        self.req_to_token = torch.zeros((rows, width), dtype=torch.int64)

    def write(self, index, values) -> None:
        self.req_to_token[index] = values


class RealTree:
    """SGLang's RadixCache behind the interface radix.run_events drives (our RadixTree's)."""

    def __init__(self) -> None:
        self.alloc = Allocator()
        self.cache = RadixCache.create_simulated(mock_allocator=self.alloc)
        self.cache.req_to_token_pool = ReqToTokenPool()
        self.reqs = {}  # rid -> the stand-in Req SGLang's code reads

    @property
    def freed(self) -> list[int]:
        return self.alloc.freed

    def match_prefix(self, ids, limit=None):
        m = self.cache.match_prefix(MatchPrefixParams(key=RadixKey(array("q", ids), limit=limit)))
        slots = [int(v) for v in self.cache.path_device_indices(m.last_device_node)]
        assert len(slots) == m.device_prefix_len
        return slots, m.last_device_node

    def lock(self, req, node) -> None:
        req.lock = self.cache.lock(node)

    def unlock(self, req) -> None:
        self.cache.unlock(req.lock)
        req.lock = None

    def _standin(self, req):
        """Copy req (radix.Req) into the Req and row SGLang's checkpoint reads."""
        s = self.reqs.get(req.rid)
        if s is None:
            s = self.reqs[req.rid] = types.SimpleNamespace(
                kv=KvRecord(len(self.reqs)), extra_key=None, cache_salt=None, priority=None)
        s.origin_input_ids = array("q", req.prompt)
        s.full_untruncated_fill_ids = array("q", req.ids)
        s.kv.cache_protected_len = req.protected
        s.lock, s.last_node = req.lock, None
        row = self.cache.req_to_token_pool.req_to_token[s.kv.req_pool_idx]
        row[: len(req.row)] = torch.tensor(req.row, dtype=torch.int64)
        return s, row

    def checkpoint(self, req, up_to: int) -> None:
        s, row = self._standin(req)
        self.cache.checkpoint(s, up_to=up_to)
        req.row = [int(v) for v in row[: len(req.row)]]
        req.protected, req.lock = s.kv.cache_protected_len, s.lock

    def free_row(self, req, start: int, end: int) -> None:
        s, _ = self._standin(req)
        self.cache.free_kv_row(s.kv, [(start, end)])

    def evict(self, num_tokens: int) -> int:
        return self.cache.evict_for_alloc(EvictParams(num_tokens=num_tokens)).num_tokens_evicted

    def state(self) -> dict:
        return tree_state(
            self.cache.root_node,
            lambda n: sorted(n.children.items(), key=lambda kv: kv[1].key.token_ids[0]),
            lambda n: (list(n.key.token_ids), n.value, n.lock_ref, n.last_access_time),
            self.cache.evictable_size(), self.cache.protected_size())


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


def real_compute_max_prefix_len():
    """Req._compute_max_prefix_len, executed from the wheel's schedule_batch.py on its own (the
    module is a placeholder here: importing it reaches the model layers)."""
    path = os.path.join(sys.argv[1], "sglang", "srt", "managers", "schedule_batch.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    req = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Req")
    fn = next(n for n in req.body if isinstance(n, ast.FunctionDef) and n.name == "_compute_max_prefix_len")
    namespace: dict = {}
    exec(compile(ast.Module([fn], type_ignores=[]), path, "exec"), namespace)
    return namespace["_compute_max_prefix_len"]


def cap_compare():
    """The prefix-match cap, SGLang's function against ours, for plain and logprob requests."""
    real_fn = real_compute_max_prefix_len()
    code = real_fn.__code__  # where the function was compiled from: the wheel's file and line
    out = {"real": [], "ours": [],
           "source": [os.path.relpath(code.co_filename, sys.argv[1]), code.co_firstlineno]}
    for input_len, start in [(1, -1), (2, -1), (6, -1), (7, -1), (4096, -1), (6, 0), (6, 3), (6, 9)]:
        req = types.SimpleNamespace(dllm_config=None, return_logprob=start >= 0,
                                    logprob_start_len=start, is_dllm=lambda: False)
        out["real"].append(real_fn(req, input_len))
        out["ours"].append(max_prefix_len(input_len, start))
    return out


if __name__ == "__main__":
    result = {name: run_both(ops) for name, ops in SCENARIOS.items()}
    result["lpm"] = lpm_compare()
    result["cap"] = cap_compare()
    result["requests"] = {
        name: {"real": run_events(RealTree(), spec["events"], spec["pool"]),
               "ours": run_events(RadixTree(), spec["events"], spec["pool"])}
        for name, spec in REQUEST_SCENARIOS.items()}
    result["modules"] = {"real": real_sglang_modules(), "placeholders": PLACEHOLDERS,
                         "placeholders_imported": placeholders_imported()}
    print(json.dumps(result))
