"""A radix-tree prefix cache in the shape of SGLang v0.5.23's RadixCache (page_size 1).

Our own model, not SGLang's code: a key is a list of token ids, a value is the list of KV-pool
slot indices holding those tokens' K and V. Matching splits a node when the match ends inside
it, lock refs pin a path against eviction, and eviction pops unlocked leaves, least recently
used first, until enough slots are freed. Run it to see one scenario step by step.
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
    last_access: int = 0

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
    def match_prefix(self, key: list[int]) -> tuple[list[int], Node]:
        """Longest cached prefix of key: its KV slots and the node where it ends."""
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
                     lock_ref=child.lock_ref, last_access=child.last_access)
        upper.children = {child.key[n]: child}
        child.parent.children[child.key[0]] = upper
        child.key, child.value, child.parent = child.key[n:], child.value[n:], upper
        return upper
    # --8<-- [end:match]

    # --8<-- [start:insert]
    def insert(self, key: list[int], value: list[int]) -> int:
        """Add key -> value; return how many leading tokens were already cached.

        The caller frees its own copies of those slots (SGLang's _insert_cache does
        free_segment on them): the tree keeps the slots it had first."""
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
            leaf = Node(key=list(key), value=list(value), parent=node, last_access=now)
            node.children[key[0]] = leaf
            self.evictable_size += len(key)
        return matched
    # --8<-- [end:insert]

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


def lpm_order(waiting: dict[str, int]) -> list[str]:
    """Longest-prefix-match order of a waiting queue: most cached tokens first, stable."""
    return sorted(waiting, key=lambda rid: -waiting[rid])


def scenario() -> list[str]:
    """The walk-through in the post; returns the printed lines."""
    log = []
    t = RadixTree()
    sys_prompt = [1, 2, 3, 4]
    t.insert(sys_prompt + [10, 11], [100, 101, 102, 103, 104, 105])  # request A finished
    log.append(f"insert A: tree={t.shape()}")
    slots, node = t.match_prefix(sys_prompt + [20, 21])  # request B shares the system prompt
    log.append(f"match B: hit {len(slots)} tokens {slots}; split -> {t.shape()}")
    t.inc_lock_ref(node)
    log.append(f"lock B's prefix: evictable={t.evictable_size} protected={t.protected_size}")
    dup = t.insert(sys_prompt + [20, 21], [200, 201, 202, 203, 204, 205])  # B's KV written
    log.append(f"insert B: {dup} tokens already cached; B frees its copies {[200, 201, 202, 203][:dup]}")
    log.append(f"evict 3 while B runs: freed {t.evict(3)} tokens {t.freed}")
    t.dec_lock_ref(node)
    log.append(f"unlock B: evictable={t.evictable_size} protected={t.protected_size}")
    log.append(f"evict 10: freed {t.evict(10)} tokens, tree={t.shape()}")
    return log


if __name__ == "__main__":
    for line in scenario():
        print(line)
