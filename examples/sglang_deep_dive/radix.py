"""A radix-tree prefix cache in the shape of SGLang v0.5.23's RadixCache (page_size 1).

Our own model, not SGLang's code: a key is a list of token ids, a value is the list of KV-pool
slot indices holding those tokens' K and V. Matching splits a node when the match ends inside
it, lock refs pin a path against eviction, and eviction pops unlocked leaves, least recently
used first, until enough slots are freed. `checkpoint` is how the scheduler inserts: after a
prefill and again when a request is released.

On top of the tree, `run_events` plays requests through it as the scheduler does (match with the
input_len - 1 cap, lock, allocate from a small KV pool that evicts when it runs short,
checkpoint, release) and records every step. Those traces are what the post's radix-cache
stepper shows (figures.py writes them); real_compare.py plays the same events through SGLang's
own RadixCache. Run this file to print the first scenario.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field

_clock = itertools.count(1)  # a logical clock: SGLang stamps nodes with time.monotonic()


@dataclass(eq=False)
class Node:
    key: list[int] = field(default_factory=list)
    value: list[int] = field(default_factory=list)  # KV-pool slot per token
    children: dict[int, Node] = field(default_factory=dict)  # first token -> child
    parent: Node | None = None
    lock_ref: int = 0
    last_access: int = field(default_factory=lambda: next(_clock))  # TreeNode() stamps itself

    def __lt__(self, other: Node) -> bool:
        return self.last_access < other.last_access


def _common_len(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # stop at the shorter key
        if x != y:
            break
        n += 1
    return n


class RadixTree:
    def __init__(self) -> None:
        self.root = Node(lock_ref=1)  # the root is never evicted
        self.evictable_size = 0  # tokens in nodes nobody locks
        self.protected_size = 0  # tokens on some locked path
        self.freed: list[int] = []  # slots handed back to the KV pool, in order

    # --8<-- [start:match]
    def match_prefix(self, key: list[int], limit: int | None = None) -> tuple[list[int], Node]:
        """Longest cached prefix of key[:limit]: its KV slots and the node where it ends."""
        key = key[:limit]
        now = next(_clock)
        node, value = self.root, []
        node.last_access = now
        while key and key[0] in node.children:
            child = node.children[key[0]]
            child.last_access = now
            n = _common_len(child.key, key)
            if n < len(child.key):  # the match ends inside child: split it there
                node = self._split(child, n)
                value += node.value
                break
            value += child.value
            node, key = child, key[n:]
        return value, node

    def _split(self, child: Node, n: int) -> Node:
        """Cut child after n tokens; the new upper node inherits its lock count."""
        upper = Node(key=child.key[:n], value=child.value[:n], parent=child.parent,
                     lock_ref=child.lock_ref)
        upper.children = {child.key[n]: child}
        child.parent.children[child.key[0]] = upper
        child.key, child.value, child.parent = child.key[n:], child.value[n:], upper
        return upper
    # --8<-- [end:match]

    # --8<-- [start:insert]
    def insert(self, key: list[int], value: list[int]) -> int:
        """Add key -> value; return how many leading tokens were already cached.

        The tree keeps the slots it had first: the caller frees its own copies of
        those tokens (checkpoint below does)."""
        now = next(_clock)
        node, matched = self.root, 0
        node.last_access = now
        while key and key[0] in node.children:
            node = node.children[key[0]]
            node.last_access = now
            n = _common_len(node.key, key)
            matched += n
            key, value = key[n:], value[n:]
            if n < len(node.key):
                node = self._split(node, n)
        if key:
            node.children[key[0]] = Node(key=list(key), value=list(value), parent=node)
            self.evictable_size += len(key)
        return matched
    # --8<-- [end:insert]

    # --8<-- [start:checkpoint]
    def checkpoint(self, req: Req, up_to: int) -> None:
        """RadixCache.checkpoint: publish req's first up_to tokens, adopt the tree's slots."""
        key = req.ids[:up_to]
        cached = self.insert(key, req.row[:up_to])
        self.freed += req.row[req.protected:cached]  # req's duplicates of tree tokens
        slots, node = self.match_prefix(key)
        req.row[req.protected:len(slots)] = slots[req.protected:]
        req.protected = len(slots)  # cache_protected_len: this much of the row is the tree's
        self.unlock(req)
        self.lock(req, node)
    # --8<-- [end:checkpoint]

    # --8<-- [start:lock]
    def inc_lock_ref(self, node: Node) -> None:
        while node is not self.root:
            if node.lock_ref == 0:  # first holder: the tokens stop being evictable
                self.evictable_size -= len(node.key)
                self.protected_size += len(node.key)
            node.lock_ref += 1
            node = node.parent

    def dec_lock_ref(self, node: Node) -> None:
        while node is not self.root:
            if node.lock_ref == 1:  # last holder gone
                self.evictable_size += len(node.key)
                self.protected_size -= len(node.key)
            node.lock_ref -= 1
            node = node.parent
    # --8<-- [end:lock]

    def lock(self, req: Req, node: Node) -> None:
        self.inc_lock_ref(node)
        req.lock = node

    def unlock(self, req: Req) -> None:
        if req.lock is not None:
            self.dec_lock_ref(req.lock)
            req.lock = None

    def free_row(self, req: Req, start: int, end: int) -> None:
        self.freed += req.row[start:end]

    # --8<-- [start:evict]
    def evictable_leaves(self) -> list[Node]:
        out, stack = [], [self.root]
        while stack:
            n = stack.pop()
            stack.extend(n.children.values())
            if n is not self.root and not n.children and n.lock_ref == 0:
                out.append(n)
        return out

    def evict(self, num_tokens: int) -> int:
        """Free at least num_tokens slots (whole leaves, oldest first) if possible."""
        heap = [(n.last_access, n) for n in self.evictable_leaves()]
        heapq.heapify(heap)
        evicted = 0
        while evicted < num_tokens and heap:
            _, leaf = heapq.heappop(heap)
            self.freed += leaf.value
            evicted += len(leaf.value)
            del leaf.parent.children[leaf.key[0]]
            self.evictable_size -= len(leaf.key)
            parent = leaf.parent
            if parent is not self.root and not parent.children and parent.lock_ref == 0:
                heapq.heappush(heap, (parent.last_access, parent))
        return evicted
    # --8<-- [end:evict]

    def shape(self, node: Node | None = None) -> list:
        """The tree as nested [key, value, lock_ref, children] lists, children by first token."""
        node = node or self.root
        return [[c.key, c.value, c.lock_ref, self.shape(c)]
                for _, c in sorted(node.children.items())]

    def state(self) -> dict:
        """What a trace records of the tree: nodes with their eviction rank, and the sizes."""
        return tree_state(self.root, lambda n: sorted(n.children.items()),
                          lambda n: (n.key, n.value, n.lock_ref, n.last_access),
                          self.evictable_size, self.protected_size)


def tree_state(root, children, fields, evictable: int, protected: int) -> dict:
    """Nodes as nested dicts; "rank" is a leaf's place in the eviction order (1 goes first),
    0 for a node that cannot be evicted now. Shared with real_compare.py's view of SGLang's tree."""
    leaves = []

    def walk(node) -> list[dict]:
        out = []
        for _, child in children(node):
            key, value, lock_ref, stamp = fields(child)
            entry = {"key": list(key), "slots": [int(v) for v in value], "lock": int(lock_ref),
                     "rank": 0, "children": walk(child)}
            if lock_ref == 0 and not entry["children"]:
                leaves.append((stamp, entry))
            out.append(entry)
        return out

    nodes = walk(root)
    stamps = [s for s, _ in leaves]
    assert len(set(stamps)) == len(stamps), "two leaves with one access time: no LRU order"
    for rank, (_, entry) in enumerate(sorted(leaves, key=lambda se: se[0]), start=1):
        entry["rank"] = rank
    return {"tree": nodes, "evictable": int(evictable), "protected": int(protected)}


def lpm_order(waiting: dict[str, int]) -> list[str]:
    """Longest-prefix-match order of a waiting queue: most cached tokens first, stable."""
    return sorted(waiting, key=lambda rid: -waiting[rid])


# --- requests through the tree, as the scheduler drives it --------------------------------

def max_prefix_len(input_len: int, logprob_start_len: int = -1) -> int:
    """Req._compute_max_prefix_len for a plain request: the match leaves at least one token to
    compute, and with input logprobs from logprob_start_len on, every token from there."""
    cap = input_len - 1
    if logprob_start_len >= 0:
        cap = min(cap, logprob_start_len)
    return max(cap, 0)


@dataclass(eq=False)
class Req:
    rid: str
    prompt: list[int]
    plan: list[int]  # the tokens it will generate, in order
    ids: list[int] = field(default_factory=list)  # prompt + output so far
    row: list[int] = field(default_factory=list)  # its req_to_token_pool row: a slot per token
    protected: int = 0  # cache_protected_len: the leading part of the row the tree owns
    lock: object = None  # what the tree locked for it (a node, or SGLang's TreeLock)
    hit: int = 0


class KVPool:
    """The token_to_kv_pool_allocator of our model: a sorted free list, lowest slots first.
    Short of slots, it evicts the shortfall from the tree, as evict_to_free_tokens does."""

    def __init__(self, size: int) -> None:
        self.size, self.free, self.seen = size, list(range(size)), 0

    def reclaim(self, tree) -> list[int]:
        back = tree.freed[self.seen:]
        self.seen = len(tree.freed)
        self.free = sorted(self.free + back)
        return back

    def alloc(self, n: int, tree) -> tuple[list[int], list[int]]:
        """n slots, and the slots eviction had to free first."""
        evicted = []
        if n > len(self.free):
            tree.evict(n - len(self.free))
            evicted = self.reclaim(tree)
        if n > len(self.free):
            raise MemoryError(f"need {n} slots, {len(self.free)} free after eviction")
        out, self.free = self.free[:n], self.free[n:]
        return out, evicted


def text(ids: list[int]) -> str:
    return "".join(chr(i) for i in ids)


def span(slots: list[int]) -> str:
    """Slots as runs: [0, 1, 2, 5] -> '0–2, 5'."""
    runs: list[list[int]] = []
    for s in slots:
        if runs and s == runs[-1][1] + 1:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs) or "none"


def cached_len(nodes: list[dict], ids: list[int]) -> int:
    """How many leading tokens of ids a recorded tree holds (a pure walk: no split, no stamp)."""
    n = 0
    while ids:
        child = next((c for c in nodes if c["key"][0] == ids[0]), None)
        if child is None:
            return n
        k = _common_len(child["key"], ids)
        n += k
        if k < len(child["key"]):
            return n
        nodes, ids = child["children"], ids[k:]
    return n


def _sample(tree, req: Req, notes: list[str]) -> None:
    """A forward step sampled req's next token: release it if that was its last, else (after a
    prefill) checkpoint what the step computed. As process_batch_result_prefill/_decode do."""
    after_prefill = len(req.ids) == len(req.prompt)
    req.ids.append(req.plan[len(req.ids) - len(req.prompt)])
    sampled = f"{req.rid} samples “{text(req.ids[-1:])}”"
    if len(req.ids) - len(req.prompt) == len(req.plan):  # finished (by length, here)
        owned = len(req.ids) - 1  # the token just sampled was never fed back: it has no KV
        tree.checkpoint(req, owned)
        tree.free_row(req, req.protected, owned)
        tree.unlock(req)
        notes.append(f"{sampled}, its last token, and finishes: release_kv_cache inserts "
                     f"“{text(req.ids[:owned])}” and unlocks.")
    elif after_prefill:
        before = list(req.row)
        tree.checkpoint(req, len(req.prompt))
        dup = sorted(set(before) - set(req.row))
        notes.append(f"{sampled}. The checkpoint inserts its prompt and moves its lock to the new node"
                     + (f"; the tree already held {len(dup)} token{'s' * (len(dup) != 1)} that "
                        f"{req.rid} computed itself, so {req.rid} frees its "
                        f"cop{'ies' if len(dup) != 1 else 'y'} (slot{'s' * (len(dup) != 1)} {span(dup)}) and "
                        f"points its row at the tree's slots." if dup else "."))
    else:
        notes.append(f"{sampled}.")


def run_events(tree, events: list[tuple], pool_size: int) -> list[dict]:
    """Play requests through `tree` (ours, or real_compare.py's wrapper of SGLang's RadixCache)
    and record the state after every event. Events:
      ("arrive", rid, prompt, output)  match (capped at len(prompt) - 1), lock, allocate the rest
      ("prefill", rid, ...)            one extend step: sample a token, checkpoint or release
      ("decode", rid, ...)             one decode step: a slot for the token fed back, sample
    A request finishes when it has sampled all of `output`.
    """
    pool, reqs, steps = KVPool(pool_size), {}, []
    for event in events:
        kind, rids = event[0], event[1:]
        notes: list[str] = []
        mark = len(tree.freed)
        if kind == "arrive":
            rid, prompt, output = rids
            req = reqs[rid] = Req(rid, [ord(c) for c in prompt], [ord(c) for c in output])
            req.ids = list(req.prompt)
            limit = max_prefix_len(len(req.prompt))
            held = cached_len(tree.state()["tree"], req.prompt)
            slots, node = tree.match_prefix(req.prompt, limit)
            req.hit = req.protected = len(slots)
            tree.lock(req, node)
            new, evicted = pool.alloc(len(req.prompt) - len(slots), tree)
            req.row = slots + new
            notes.append(f"{rid} arrives with “{prompt}”, {len(req.prompt)} tokens. The tree holds "
                         f"{held} of them; the match may use at most {limit}, so {rid} reuses "
                         f"{len(slots)}" + (f" (slots {span(slots)}) and locks that path." if slots else "."))
            if evicted:
                notes.append(f"The pool is short: eviction frees {span(evicted)}.")
            notes.append(f"{rid} gets {len(new)} new slot{'s' * (len(new) != 1)}: {span(new)}.")
            rids = (rid,)
        elif kind == "prefill":
            for rid in rids:
                _sample(tree, reqs[rid], notes)
        elif kind == "decode":
            for rid in rids:
                req = reqs[rid]
                new, evicted = pool.alloc(1, tree)
                req.row += new
                notes.append(f"Decode {rid}: “{text(req.ids[-1:])}” is fed back; its KV goes to slot "
                             f"{new[0]}" + (", which eviction freed" if evicted else "") + ".")
                _sample(tree, req, notes)
        else:
            raise ValueError(kind)
        for rid in [r for r, q in reqs.items() if len(q.ids) - len(q.prompt) == len(q.plan)]:
            del reqs[rid]
        pool.reclaim(tree)
        steps.append({"event": kind, "rids": list(rids), "note": " ".join(notes),
                      "freed": list(tree.freed[mark:]), **tree.state(), "free": list(pool.free),
                      "requests": [{"rid": r.rid, "hit": r.hit, "row": list(r.row),
                                    "text": text(r.ids)} for r in reqs.values()]})
    return steps


SCENARIOS = {
    "shared-prompt": {
        "title": "Two requests share a system prompt",
        "pool": 12,
        "events": [
            ("arrive", "A", "sys:ab", "cd"),
            ("prefill", "A"),
            ("arrive", "B", "sys:xy", "z"),
            ("prefill", "B"),
            ("decode", "A"),
            ("arrive", "C", "sys:abc", "!?"),
            ("prefill", "C"),
            ("arrive", "D", "hello", "!"),
        ],
    },
    "same-batch": {
        "title": "One prompt, twice in the same batch",
        "pool": 12,
        "events": [
            ("arrive", "A", "sys:ab", "cd"),
            ("arrive", "B", "sys:ab", "xy"),
            ("prefill", "A", "B"),
            ("decode", "A", "B"),
        ],
    },
    "lru": {
        "title": "Eviction: least recently used leaves first",
        "pool": 10,
        "events": [
            ("arrive", "A", "aaaa", "!"),
            ("prefill", "A"),
            ("arrive", "B", "bbbb", "!"),
            ("prefill", "B"),
            ("arrive", "C", "aaaab", "!"),
            ("prefill", "C"),
            ("arrive", "D", "cccccc", "!"),
            ("arrive", "E", "aaaa", "!"),
        ],
    },
}


def main() -> None:
    name = "shared-prompt"
    spec = SCENARIOS[name]
    for i, step in enumerate(run_events(RadixTree(), spec["events"], spec["pool"]), start=1):
        print(f"{i:2}. {step['note']}")
        print(f"    tree: {show(step['tree'])}  evictable={step['evictable']} "
              f"protected={step['protected']} free={span(step['free'])}")


def show(nodes: list[dict]) -> str:
    """One line per tree: “key”[slots]lock, children in parentheses; #n marks the eviction order."""
    return " ".join(f"“{text(n['key'])}”[{span(n['slots'])}]"
                    + (f"L{n['lock']}" if n["lock"] else f"#{n['rank']}" if n["rank"] else "")
                    + (f"({show(n['children'])})" if n["children"] else "") for n in nodes) or "∅"


if __name__ == "__main__":
    main()
