"""A small, runnable model of one vLLM v1 scheduler step and its KV-cache block manager.

It models (and names its parts after) the real code in vLLM v0.33.0:

* ``hash_block_tokens`` / ``NONE_HASH``   -> vllm/v1/core/kv_cache_utils.py
* ``BlockPool`` / ``FreeBlockQueue``      -> vllm/v1/core/block_pool.py, kv_cache_utils.py
* ``KVCacheManager``                      -> vllm/v1/core/kv_cache_manager.py (+ the
  full-attention parts of single_type_kv_cache_manager.py)
* ``Scheduler.schedule``                  -> vllm/v1/core/sched/scheduler.py
* ``check_stop``                          -> vllm/v1/core/sched/utils.py

Included: chunked prefill, prefix caching, FCFS recompute preemption, the full-prompt
admission gate (``scheduler_reserve_full_isl``, on by default) and the rule that
``long_prefill_token_threshold`` is not applied when only one request is eligible.

Two engine loops drive it: ``run`` is the plain ``EngineCore.step`` (schedule, execute,
update, then the next step), and ``run_async`` is ``step_with_batch_queue`` with the
``AsyncScheduler``'s ``num_output_placeholders``: step N + 1 is scheduled and launched before
step N's tokens reach the scheduler, with a batch queue of 2 (the default on one GPU).

Simplified or left out: ``check_stop`` has the ``max_tokens`` and ``stop_token_ids``
branches only (no EOS, ``max_model_len`` or repetition check); the async loop does not model
preemption (its test scenarios never run out of blocks); ``max_num_seqs`` stands in for
``max_num_active_seqs``, and there is no ``skip_request`` / ``kv_holding_waiting``;
no speculative decoding, encoder inputs, KV connectors, sliding-window / Mamba groups,
LoRA, priority policy, watermark or adaptive threshold. ``max_model_len`` is used only for
the rule that chunked prefill off needs a budget of at least ``max_model_len``.
Only the standard library is used.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict, deque
from dataclasses import dataclass, field

# --8<-- [start:hash]
# vLLM derives NONE_HASH from a seed string ("vllm-none-hash" unless PYTHONHASHSEED is set)
# with the configured hash function; the default, "sha256", pickles its input first.
NONE_HASH = hashlib.sha256(
    pickle.dumps("vllm-none-hash", protocol=pickle.HIGHEST_PROTOCOL)).digest()


def hash_block_tokens(parent: bytes | None, tokens: list[int], extra_keys=None) -> bytes:
    """Hash of one *full* block: chained to the parent block's hash, so equal hashes
    mean equal prefixes, not just equal blocks."""
    payload = (parent or NONE_HASH, tuple(tokens), extra_keys)
    return hashlib.sha256(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)).digest()


def extend_block_hashes(hashes: list[bytes], token_ids: list[int], block_size: int) -> None:
    """Append hashes for the full blocks not hashed yet (what Request.update_block_hashes
    does each time tokens are appended). A partial tail block is never hashed."""
    start = len(hashes) * block_size
    while start + block_size <= len(token_ids):
        parent = hashes[-1] if hashes else None
        hashes.append(hash_block_tokens(parent, token_ids[start : start + block_size]))
        start += block_size
# --8<-- [end:hash]


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(eq=False)
class Block:
    block_id: int
    ref_cnt: int = 0
    block_hash: bytes | None = None


class FreeBlockQueue:
    """Free blocks in eviction order (head is reused first). vLLM uses a hand-written
    doubly linked list (FreeKVCacheBlockQueue); an OrderedDict gives the same O(1) ops."""

    def __init__(self, blocks: list[Block]):
        self._q: OrderedDict[int, Block] = OrderedDict((b.block_id, b) for b in blocks)

    def __len__(self) -> int:
        return len(self._q)

    def popleft_n(self, n: int) -> list[Block]:
        return [self._q.popitem(last=False)[1] for _ in range(n)]

    def remove(self, block: Block) -> None:
        del self._q[block.block_id]

    def append_n(self, blocks: list[Block]) -> None:
        for b in blocks:
            self._q[b.block_id] = b

    def prepend_n(self, blocks: list[Block]) -> None:
        for b in reversed(blocks):
            self._q[b.block_id] = b
            self._q.move_to_end(b.block_id, last=False)

    def ids(self) -> list[int]:
        return list(self._q)


# --8<-- [start:pool]
class BlockPool:
    def __init__(self, num_blocks: int, enable_caching: bool = True):
        self.blocks = [Block(i) for i in range(num_blocks)]
        self.free_queue = FreeBlockQueue(self.blocks)
        self.enable_caching = enable_caching
        self.cached: dict[bytes, Block] = {}  # cached_block_hash_to_block
        self.null_block = self.free_queue.popleft_n(1)[0]  # block 0 is never handed out

    @property
    def num_free(self) -> int:
        return len(self.free_queue)

    def get_new_blocks(self, n: int) -> list[Block]:
        assert n <= self.num_free
        out = self.free_queue.popleft_n(n)
        for b in out:
            if b.block_hash is not None:  # reusing a cached block evicts its hash
                if self.cached.get(b.block_hash) is b:
                    del self.cached[b.block_hash]
                b.block_hash = None
            b.ref_cnt = 1
        return out

    def touch(self, blocks: list[Block]) -> None:
        """A prefix-cache hit: take a reference, and pull the block off the free queue
        if nobody held it (ref_cnt == 0 blocks are eviction candidates)."""
        for b in blocks:
            if b.ref_cnt == 0:
                self.free_queue.remove(b)
            b.ref_cnt += 1

    def free_blocks(self, ordered: list[Block]) -> None:
        """Caller passes blocks tail-first. Blocks without a hash go to the *head* of the
        free queue (reused first), hashed ones to the *tail* (kept longest = LRU)."""
        first, last = [], []
        for b in ordered:
            b.ref_cnt -= 1
            if b.ref_cnt == 0:
                (last if b.block_hash is not None and self.enable_caching else first).append(b)
        self.free_queue.prepend_n(first)
        self.free_queue.append_n(last)

    def cache_full_blocks(self, blocks: list[Block], hashes: list[bytes], start: int, end: int):
        for i in range(start, end):
            blocks[i].block_hash = hashes[i]
            self.cached.setdefault(hashes[i], blocks[i])
# --8<-- [end:pool]


@dataclass(eq=False)
class Request:
    request_id: str
    prompt_token_ids: list[int]
    max_tokens: int
    block_size: int
    all_token_ids: list[int] = field(default_factory=list)
    num_computed_tokens: int = 0
    status: str = "WAITING"
    block_hashes: list[bytes] = field(default_factory=list)
    finish_reason: str | None = None
    stop_token_ids: tuple[int, ...] = ()
    num_output_placeholders: int = 0  # sampled on the "GPU", not yet seen (async only)

    def __post_init__(self):
        self.all_token_ids = list(self.prompt_token_ids)
        extend_block_hashes(self.block_hashes, self.all_token_ids, self.block_size)

    @property
    def num_tokens(self) -> int:
        return len(self.all_token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.all_token_ids) - len(self.prompt_token_ids)

    def append_output_token_id(self, tok: int) -> None:
        self.all_token_ids.append(tok)
        extend_block_hashes(self.block_hashes, self.all_token_ids, self.block_size)


# --8<-- [start:kvm]
class KVCacheManager:
    def __init__(self, num_blocks: int, block_size: int, enable_caching: bool = True):
        self.block_size = block_size
        self.enable_caching = enable_caching
        self.pool = BlockPool(num_blocks, enable_caching)
        self.req_to_blocks: dict[str, list[Block]] = {}
        self.num_cached_block: dict[str, int] = {}

    def get_computed_blocks(self, req: Request) -> tuple[list[Block], int]:
        """Longest run of cached full blocks from the start. The hit is capped at
        num_tokens - 1: the last prompt token must run through the model for logits."""
        if not self.enable_caching:
            return [], 0
        hits: list[Block] = []
        for h in req.block_hashes[: (req.num_tokens - 1) // self.block_size]:
            b = self.pool.cached.get(h)
            if b is None:
                break  # chained hashes: one miss means every later block misses too
            hits.append(b)
        return hits, len(hits) * self.block_size

    def allocate_slots(self, req: Request, num_new_tokens: int,
                       num_new_computed_tokens: int = 0,
                       new_computed_blocks: list[Block] | None = None,
                       full_sequence_must_fit: bool = False) -> list[Block] | None:
        new_computed_blocks = new_computed_blocks or []
        blocks = self.req_to_blocks.setdefault(req.request_id, [])
        total_computed = req.num_computed_tokens + num_new_computed_tokens
        # Hit blocks nobody holds sit in the free queue; touching them uses up free capacity.
        evictable = sum(b.ref_cnt == 0 for b in new_computed_blocks)
        have = len(blocks) + len(new_computed_blocks)
        if full_sequence_must_fit:
            # Admission gate: the whole sequence (the prompt, plus outputs so far for a
            # resumed request) must fit now, not just this step's chunk.
            full = max(cdiv(req.num_tokens, self.block_size) - have, 0) + evictable
            if full > self.pool.num_free:
                return None
        required = cdiv(total_computed + num_new_tokens, self.block_size)
        to_allocate = max(required - have, 0) + evictable
        if to_allocate > self.pool.num_free:
            return None  # caller preempts (running request) or stops admitting (waiting)
        if new_computed_blocks:
            self.pool.touch(new_computed_blocks)
            blocks.extend(new_computed_blocks)
            self.num_cached_block[req.request_id] = len(blocks)
        new_blocks = self.pool.get_new_blocks(max(required - len(blocks), 0))
        blocks.extend(new_blocks)
        # Register full blocks in the prefix cache now, at allocation time, capped at
        # request.num_tokens so tokens that are not final yet are never cached.
        num_cached = self.num_cached_block.get(req.request_id, 0)
        to_cache = min(total_computed + num_new_tokens, req.num_tokens)
        num_full = min(to_cache // self.block_size, len(req.block_hashes))
        if self.enable_caching and num_full > num_cached:
            self.pool.cache_full_blocks(blocks, req.block_hashes, num_cached, num_full)
            self.num_cached_block[req.request_id] = num_full
        return new_blocks

    def free(self, req: Request) -> None:
        blocks = self.req_to_blocks.pop(req.request_id, [])
        self.num_cached_block.pop(req.request_id, None)
        self.pool.free_blocks(list(reversed(blocks)))  # tail blocks evicted first

    def block_ids(self, req_id: str) -> list[int]:
        return [b.block_id for b in self.req_to_blocks.get(req_id, [])]
# --8<-- [end:kvm]


@dataclass
class SchedulerOutput:
    num_scheduled_tokens: dict[str, int]  # request id -> tokens to compute this step
    new_req_ids: list[str]  # first time on the GPU (NewRequestData in vLLM)
    resumed_req_ids: list[str]  # back after preemption
    running_req_ids: list[str]  # already running (CachedRequestData in vLLM)
    num_prefix_hit_tokens: dict[str, int]  # tokens skipped thanks to the prefix cache
    preempted_req_ids: list[str]
    prefill_req_ids: list[str]  # requests whose scheduled tokens are prompt tokens
    token_budget: int

    @property
    def total_num_scheduled_tokens(self) -> int:
        return sum(self.num_scheduled_tokens.values())


# --8<-- [start:schedule]
class Scheduler:
    def __init__(self, kv: KVCacheManager, max_num_batched_tokens: int, max_num_seqs: int,
                 enable_chunked_prefill: bool = True, long_prefill_token_threshold: int = 0,
                 scheduler_reserve_full_isl: bool = True, max_model_len: int | None = None,
                 async_scheduling: bool = False):
        if not enable_chunked_prefill and (max_model_len is None
                                           or max_num_batched_tokens < max_model_len):
            # SchedulerConfig.verify_max_model_len: without chunking, a prompt longer than
            # the budget could never be scheduled, so vLLM refuses the configuration.
            raise ValueError(f"max_num_batched_tokens ({max_num_batched_tokens}) is smaller "
                             f"than max_model_len ({max_model_len})")
        self.max_model_len = max_model_len
        self.async_scheduling = async_scheduling
        self.kv = kv
        self.max_num_batched_tokens = max_num_batched_tokens
        self.max_num_seqs = max_num_seqs
        self.enable_chunked_prefill = enable_chunked_prefill
        self.long_prefill_token_threshold = long_prefill_token_threshold
        self.scheduler_reserve_full_isl = scheduler_reserve_full_isl
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []
        self.requests: dict[str, Request] = {}
        self.discarded_tokens = 0  # sampled for a request that had already finished

    def add_request(self, req: Request) -> None:
        self.requests[req.request_id] = req
        self.waiting.append(req)

    def has_requests(self) -> bool:
        return bool(self.waiting or self.running)

    def _cap(self, n: int, budget: int, threshold: int) -> int:
        if 0 < threshold < n:
            n = threshold
        return min(n, budget)

    def schedule(self) -> SchedulerOutput:
        # No prefill or decode phase: every request just needs num_computed_tokens
        # to catch up with num_tokens, within one shared token budget.
        budget = self.max_num_batched_tokens
        sched: dict[str, int] = {}
        new_ids, resumed_ids, running_ids, preempted, hits = [], [], [], [], {}
        prefill_ids = [r.request_id for r in self.running
                       if r.num_computed_tokens < len(r.prompt_token_ids)]
        # The long-prefill cap protects other requests; with one eligible request it is off.
        threshold = (self.long_prefill_token_threshold
                     if len(self.running) + len(self.waiting) > 1 else 0)

        # 1) RUNNING requests first, in order.
        i = 0
        while i < len(self.running) and budget > 0:
            req = self.running[i]
            if (req.num_output_placeholders > 0 and req.num_computed_tokens + 2
                    - req.num_output_placeholders >= len(req.prompt_token_ids) + req.max_tokens):
                i += 1  # async: the step in flight already reaches max_tokens
                continue
            n = self._cap(req.num_tokens + req.num_output_placeholders
                          - req.num_computed_tokens, budget, threshold)
            if n == 0:
                i += 1
                continue
            while (new_blocks := self.kv.allocate_slots(req, n)) is None:
                victim = self.running.pop()  # FCFS: preempt the most recently admitted
                self._preempt(victim)
                preempted.append(victim.request_id)
                if victim is req:
                    break
            if new_blocks is None:
                break
            sched[req.request_id] = n
            running_ids.append(req.request_id)
            budget -= n
            i += 1

        # 2) WAITING requests, only if nobody was preempted in this step.
        while not preempted and self.waiting and budget > 0:
            if len(self.running) >= self.max_num_seqs:
                break
            req = self.waiting[0]
            hit_blocks, num_hit = self.kv.get_computed_blocks(req)
            n = req.num_tokens - num_hit
            if not self.enable_chunked_prefill and n > budget:
                break
            n = self._cap(n, budget, threshold)
            if self.kv.allocate_slots(req, n, num_hit, hit_blocks,
                                      self.scheduler_reserve_full_isl) is None:
                break  # waiting requests never trigger preemption
            self.waiting.popleft()
            self.running.append(req)
            (resumed_ids if req.status == "PREEMPTED" else new_ids).append(req.request_id)
            prefill_ids.append(req.request_id)
            req.status, req.num_computed_tokens = "RUNNING", num_hit
            hits[req.request_id] = num_hit
            sched[req.request_id] = n
            budget -= n

        out = SchedulerOutput(sched, new_ids, resumed_ids, running_ids, hits, preempted,
                              [r for r in prefill_ids if r in sched], self.max_num_batched_tokens)
        assert out.total_num_scheduled_tokens <= self.max_num_batched_tokens
        # _update_after_schedule: advance num_computed_tokens *before* the GPU runs, so the
        # next schedule() can already plan the following chunk.
        for rid, n in sched.items():
            req = self.requests[rid]
            req.num_computed_tokens += n
            if self.async_scheduling and req.num_computed_tokens >= req.num_tokens:
                req.num_output_placeholders += 1  # AsyncScheduler._update_after_schedule
        return out
    # --8<-- [end:schedule]

    def _preempt(self, req: Request) -> None:
        """Recompute-style preemption: drop the KV blocks, forget progress, go back to
        the front of the waiting queue. Cached blocks keep their hashes until reused."""
        self.kv.free(req)
        req.status = "PREEMPTED"
        req.num_computed_tokens = 0
        self.waiting.appendleft(req)

    # --8<-- [start:update]
    def update_from_output(self, out: SchedulerOutput,
                           sampled: dict[str, int]) -> list[tuple[str, list[int], str | None]]:
        """Append sampled tokens, check stop conditions, free finished requests, and
        return (request_id, new_token_ids, finish_reason) per request with news."""
        results = []
        for rid in out.num_scheduled_tokens:
            req = self.requests[rid]
            if rid not in sampled:  # a prefill chunk that did not reach the end of the prompt
                continue
            if req.finish_reason is not None:  # finished while this step was in flight:
                self.discarded_tokens += 1     # its token is thrown away
                continue
            if req.num_output_placeholders:
                req.num_output_placeholders -= 1
            req.append_output_token_id(sampled[rid])
            if sampled[rid] in req.stop_token_ids:  # check_stop, stop_token_ids branch
                req.status, req.finish_reason = "FINISHED_STOPPED", "stop"
            elif req.num_output_tokens >= req.max_tokens:  # check_stop, length branch
                req.status, req.finish_reason = "FINISHED_LENGTH_CAPPED", "length"
            if req.finish_reason is not None:
                self.running.remove(req)
                self.kv.free(req)
            results.append((rid, [sampled[rid]], req.finish_reason))
        return results
    # --8<-- [end:update]

    def finish_requests(self, request_ids: list[str], reason: str = "abort") -> None:
        for rid in request_ids:
            req = self.requests.get(rid)
            if req is None or req.finish_reason is not None:
                continue
            req.finish_reason = reason
            if req in self.running:
                self.running.remove(req)
            elif req in self.waiting:
                self.waiting.remove(req)
            self.kv.free(req)


# --8<-- [start:model]
VOCAB = 997


def fake_next_token(token_ids: list[int]) -> int:
    """Stand-in for forward + sampling: depends only on the sequence, like greedy decoding
    of a real model, so results must not depend on how requests were batched."""
    return 1000 + (sum(token_ids) * 31 + len(token_ids)) % VOCAB


def fake_execute(out: SchedulerOutput, requests: dict[str, Request]) -> dict[str, int]:
    """The model runner samples only for requests whose prompt is fully computed
    (after this step's tokens); partial prefill chunks produce no token."""
    return {rid: fake_next_token(requests[rid].all_token_ids)
            for rid in out.num_scheduled_tokens
            if requests[rid].num_computed_tokens == requests[rid].num_tokens}


def reference_generate(prompt: list[int], max_tokens: int,
                       stop_token_ids: tuple[int, ...] = ()) -> list[int]:
    toks = list(prompt)
    for _ in range(max_tokens):
        toks.append(fake_next_token(toks))
        if toks[-1] in stop_token_ids:
            break
    return toks[len(prompt):]
# --8<-- [end:model]


@dataclass
class StepRecord:
    step: int
    out: SchedulerOutput
    block_tables: dict[str, list[int]]
    finished: list[str]


def run(scheduler: Scheduler, arrivals: dict[int, list[Request]], max_steps: int = 50,
        observe=None):
    """Drive schedule -> execute -> update_from_output; `arrivals[k]` join before step k.
    observe(step, out), if given, sees the scheduler right after each schedule()."""
    records: list[StepRecord] = []
    step = 0
    while step < max_steps and (scheduler.has_requests() or any(k > step for k in arrivals)):
        step += 1
        for req in arrivals.get(step, []):
            scheduler.add_request(req)
        out = scheduler.schedule()
        if observe is not None:
            observe(step, out)
        tables = {rid: scheduler.kv.block_ids(rid) for rid in out.num_scheduled_tokens}
        results = scheduler.update_from_output(out, fake_execute(out, scheduler.requests))
        records.append(StepRecord(step, out, tables, [r for r, _, f in results if f]))
    return records


# --8<-- [start:async]
class FakeRunner:
    """The worker side under async scheduling: it keeps its own copy of every request's
    tokens and feeds each sampled token straight into the next step (as MRV2 reads
    ``last_sampled_tokens`` on the GPU), so it runs ahead of what the scheduler has seen."""

    def __init__(self) -> None:
        self.tokens: dict[str, list[int]] = {}
        self.computed: dict[str, int] = {}

    def execute(self, out: SchedulerOutput, requests: dict[str, Request]) -> dict[str, int]:
        sampled = {}
        for rid, n in out.num_scheduled_tokens.items():
            if rid in out.new_req_ids:
                self.tokens[rid] = list(requests[rid].prompt_token_ids)
                self.computed[rid] = out.num_prefix_hit_tokens.get(rid, 0)
            self.computed[rid] += n
            if self.computed[rid] >= len(self.tokens[rid]):  # prompt done: sample a token
                sampled[rid] = fake_next_token(self.tokens[rid])
                self.tokens[rid].append(sampled[rid])
        return sampled


def run_async(scheduler: Scheduler, arrivals: dict[int, list[Request]],
              batch_queue_size: int = 2, max_calls: int = 100) -> list[StepRecord]:
    """EngineCore.step_with_batch_queue: schedule and launch a batch if the queue has room;
    block on the oldest batch only when the queue is full or nothing else can be scheduled."""
    assert scheduler.async_scheduling
    runner, queue, records = FakeRunner(), deque(), []
    call = 0
    while call < max_calls and (scheduler.has_requests() or queue
                                or any(k > call for k in arrivals)):
        call += 1
        for req in arrivals.get(call, []):
            scheduler.add_request(req)
        if scheduler.has_requests():
            out = scheduler.schedule()
            assert not out.preempted_req_ids, "preemption is not modelled in the async loop"
            executed = out.total_num_scheduled_tokens > 0
            if executed:
                queue.appendleft((out, runner.execute(out, scheduler.requests)))
            if len(queue) < batch_queue_size and executed:
                continue  # don't block on the oldest batch while the queue has room
        if not queue:
            continue
        out, sampled = queue.pop()  # block until the oldest batch's tokens are back
        results = scheduler.update_from_output(out, sampled)
        tables = {rid: scheduler.kv.block_ids(rid) for rid in out.num_scheduled_tokens}
        records.append(StepRecord(call, out, tables, [r for r, _, f in results if f]))
    return records
# --8<-- [end:async]


def prompt(seed: int, n: int) -> list[int]:
    return [(seed * 101 + 7 * i) % 500 for i in range(n)]


# --8<-- [start:scenarios]
def scenario_packing(num_blocks: int = 16) -> tuple[Scheduler, dict[int, list[Request]]]:
    """Chunked prefill, continuous batching and a prefix-cache hit. block_size=4,
    token budget 16, 16 blocks (block 0 is the null block). With 9, B is preempted."""
    kv = KVCacheManager(num_blocks=num_blocks, block_size=4)
    s = Scheduler(kv, max_num_batched_tokens=16, max_num_seqs=4)
    a = Request("A", prompt(1, 10), max_tokens=4, block_size=4)
    b = Request("B", prompt(2, 20), max_tokens=2, block_size=4)
    c = Request("C", a.prompt_token_ids[:8] + prompt(3, 4), max_tokens=2, block_size=4)
    return s, {1: [a, b], 3: [c]}


def scenario_preemption() -> tuple[Scheduler, dict[int, list[Request]]]:
    """A KV cache too small for both requests: 6 blocks (5 usable) of 4 tokens."""
    kv = KVCacheManager(num_blocks=6, block_size=4)
    s = Scheduler(kv, max_num_batched_tokens=16, max_num_seqs=4)
    d = Request("D", prompt(4, 7), max_tokens=3, block_size=4)
    e = Request("E", prompt(5, 7), max_tokens=3, block_size=4)
    return s, {1: [d, e]}


def scenario_admission_gate(reserve_full_isl: bool = True):
    """B's 20-token prompt needs 5 blocks but only 4 of 7 usable blocks are free after A.
    With the gate B waits for A; without it B is admitted with a 4-token chunk and is
    preempted in the next step when it cannot get blocks for the rest."""
    kv = KVCacheManager(num_blocks=8, block_size=4)
    s = Scheduler(kv, max_num_batched_tokens=16, max_num_seqs=4,
                  scheduler_reserve_full_isl=reserve_full_isl)
    a = Request("A", prompt(6, 12), max_tokens=3, block_size=4)
    b = Request("B", prompt(7, 20), max_tokens=2, block_size=4)
    return s, {1: [a, b]}
# --8<-- [end:scenarios]


def token_kinds(records: list[StepRecord], requests: dict[str, Request]):
    """Per step, (request, kind, tokens, prefix-hit tokens) rows. A resumed request's tokens
    are "recompute" only up to what it had computed when it was preempted and the prefix cache
    did not give back; the rest are new prompt tokens ("prefill") or its next "decode"."""
    computed: dict[str, int] = {}  # tokens each request has computed, after its last step
    before: dict[str, int] = {}  # ... when it was preempted
    steps = []
    for r in records:
        for rid in r.out.preempted_req_ids:
            before[rid] = computed.pop(rid, 0)
        rows = []
        for rid, n in r.out.num_scheduled_tokens.items():
            hit = r.out.num_prefix_hit_tokens.get(rid, 0)
            start = computed.get(rid, hit)
            again = (min(n, max(0, before.pop(rid, 0) - hit))
                     if rid in r.out.resumed_req_ids else 0)
            if again:
                rows.append((rid, "recompute", again, hit))
            if n > again:
                kind = ("prefill" if start + again < len(requests[rid].prompt_token_ids)
                        else "decode")
                rows.append((rid, kind, n - again, 0 if again else hit))
            computed[rid] = start + n
        steps.append(rows)
    return steps


def describe(records: list[StepRecord], requests: dict[str, Request]) -> list[str]:
    lines = []
    for r, rows in zip(records, token_kinds(records, requests), strict=True):
        parts = [f"{rid}:{n} {kind}" + (f" (+{hit} cached)" if hit else "")
                 for rid, kind, n, hit in rows]
        extra = ""
        if r.out.preempted_req_ids:
            extra += " | preempted " + ",".join(r.out.preempted_req_ids)
        if r.finished:
            extra += " | finished " + ",".join(r.finished)
        used = r.out.total_num_scheduled_tokens
        lines.append(f"step {r.step}: {', '.join(parts)}  [{used}/{r.out.token_budget}]{extra}")
        lines.append("        blocks " + "  ".join(f"{k}={v}" for k, v in r.block_tables.items()))
    return lines


def main() -> None:
    s1, arr1 = scenario_packing()
    rec1 = run(s1, arr1)
    # Hand-computed expectations (see the post for the arithmetic).
    assert [r.out.num_scheduled_tokens for r in rec1] == [
        {"A": 10, "B": 6}, {"A": 1, "B": 14}, {"A": 1, "B": 1, "C": 4}, {"A": 1, "C": 1}]
    assert rec1[2].out.num_prefix_hit_tokens == {"C": 8}
    assert [r.block_tables for r in rec1][2:] == [
        {"A": [1, 2, 3], "B": [4, 5, 6, 7, 8, 9], "C": [1, 2, 10]},
        {"A": [1, 2, 3, 9], "C": [1, 2, 10, 11]}]  # B's unhashed tail block 9 reused first
    assert [r.finished for r in rec1] == [[], [], ["B"], ["A", "C"]]

    s2, arr2 = scenario_preemption()
    rec2 = run(s2, arr2)
    assert [r.out.num_scheduled_tokens for r in rec2] == [
        {"D": 7, "E": 7}, {"D": 1, "E": 1}, {"D": 1}, {"E": 1}]
    assert rec2[2].out.preempted_req_ids == ["E"]
    assert rec2[3].out.resumed_req_ids == ["E"] and rec2[3].out.num_prefix_hit_tokens == {"E": 8}
    assert rec2[3].block_tables == {"E": [3, 4, 5]}  # its own cached blocks came back

    # Scenario 3: with the default full-prompt gate B waits and nobody is preempted;
    # without it B is admitted with a 4-token chunk and preempted in the next step.
    s3, arr3 = scenario_admission_gate(reserve_full_isl=True)
    rec3 = run(s3, arr3)
    assert [r.out.num_scheduled_tokens for r in rec3] == [
        {"A": 12}, {"A": 1}, {"A": 1}, {"B": 16}, {"B": 4}, {"B": 1}]
    assert not any(r.out.preempted_req_ids for r in rec3)
    s3_off, arr3_off = scenario_admission_gate(reserve_full_isl=False)
    rec3_off = run(s3_off, arr3_off)
    assert [r.out.num_scheduled_tokens for r in rec3_off] == [
        {"A": 12, "B": 4}, {"A": 1}, {"A": 1}, {"B": 16}, {"B": 1}]
    assert rec3_off[1].out.preempted_req_ids == ["B"]

    # Scenario 1 with 9 blocks: B is preempted after computing its 20 prompt tokens; when it is
    # back, A has reused B's fifth block, so 16 tokens are hits and 4 are computed again.
    s4, arr4 = scenario_packing(num_blocks=9)
    rec4 = run(s4, arr4)
    assert rec4[2].out.preempted_req_ids == ["B"]
    assert token_kinds(rec4, s4.requests)[4] == [("B", "recompute", 4, 16), ("B", "decode", 1, 0)]

    for s in (s1, s2, s3, s3_off, s4):  # batching never changes what a request generates
        for req in s.requests.values():
            gen = req.all_token_ids[len(req.prompt_token_ids):]
            assert gen == reference_generate(req.prompt_token_ids, req.max_tokens), req.request_id
        assert s.kv.pool.num_free == len(s.kv.pool.blocks) - 1  # everything returned

    print("scenario 1: chunked prefill + continuous batching + prefix hit")
    print("\n".join(describe(rec1, s1.requests)))
    print("scenario 2: preemption (recompute) with 6 KV blocks (5 usable)")
    print("\n".join(describe(rec2, s2.requests)))
    print("scenario 3: full-prompt admission gate, 8 KV blocks (7 usable)")
    print("scheduler_reserve_full_isl=True (default):")
    print("\n".join(describe(rec3, s3.requests)))
    print("scheduler_reserve_full_isl=False:")
    print("\n".join(describe(rec3_off, s3_off.requests)))
    print("scenario 1 with 9 KV blocks (8 usable): B preempted, 4 tokens computed again")
    print("\n".join(describe(rec4, s4.requests)))
    print("all outputs match the unbatched reference; all blocks returned to the pool")


if __name__ == "__main__":
    main()
