"""CPU models of CUTLASS v4.7.0's two main-loop pipelines (a model: the real code needs a GPU).

1. sm80_trace(): the k-loop of CollectiveMma<MainloopSm80CpAsync<Stages>> (sm80_mma_multistage.hpp)
   with cp.async commit groups and cp.async.wait_group<N> semantics, replayed step by step. It
   checks that every MMA reads the k-block of the tile it should, that no shared-memory stage is
   read while a copy into it is in flight, and that a __syncthreads() separates the last read of a
   stage from the next copy into it.
2. PipelineState and an mbarrier with phase parity, as in sm90_pipeline.hpp, driving a producer
   (TMA copies of A and B, counted in bytes against the stage's expect_tx) and a consumer (WGMMA,
   K_PIPE_MMAS = 1) in a random interleaving: a consumer never reads a stage before both copies
   landed and a producer never overwrites one before it is released.

Run it: python examples/cutlass_deep_dive/pipelines.py
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


# --8<-- [start:sm80]
@dataclass
class Sm80Model:
    stages: int
    k_tiles: int
    k_blocks: int                      # K_BLOCK_MAX: MMA k-blocks per smem k-tile
    slot: list = field(default_factory=list)       # tile each smem stage holds (None = zeros)
    groups: list = field(default_factory=list)     # committed cp.async groups, oldest first
    pending: list = field(default_factory=list)    # copies issued since the last commit
    regs: dict = field(default_factory=dict)       # k_block -> (tile, k_block) held in registers
    last_read: dict = field(default_factory=dict)  # stage -> event number of its last smem read
    last_sync: int = -1
    events: list = field(default_factory=list)
    next_tile: int = 0

    def log(self, *e) -> None:
        self.events.append(e)

    def in_flight(self, stage: int) -> bool:
        return any(s == stage for g in self.groups for s, _ in g) or any(s == stage for s, _ in self.pending)

    # cp.async into a stage: the predicate is off once the tiles run out (copies nothing)
    def copy_tile(self, stage: int, predicated_off: bool) -> None:
        tile = None if predicated_off else self.next_tile
        self.next_tile += 1
        if stage in self.last_read:
            assert self.last_sync > self.last_read[stage], f"stage {stage} overwritten before a barrier"
        self.pending.append((stage, tile))
        self.log("cp.async", stage, tile)

    def fence(self) -> None:  # cp_async_fence = cp.async.commit_group
        self.groups.append(self.pending)
        self.pending = []
        self.log("commit")

    def wait(self, n: int) -> None:  # cp.async.wait_group n: all but the newest n groups land
        while len(self.groups) > n:
            for stage, tile in self.groups.pop(0):
                while len(self.slot) <= stage:
                    self.slot.append(None)
                self.slot[stage] = tile
        self.log("wait", n)

    def sync(self) -> None:
        self.last_sync = len(self.events)
        self.log("__syncthreads")

    def smem_to_regs(self, stage: int, k_block: int) -> None:
        assert not self.in_flight(stage), f"read of stage {stage} while a copy into it is in flight"
        self.regs[k_block] = (self.slot[stage], k_block)
        self.last_read[stage] = len(self.events)
        self.log("smem->rmem", stage, k_block)


def sm80_trace(stages: int, k_tiles: int, k_blocks: int) -> list[tuple]:
    """Replay the predicated multistage k-loop; return its events. Asserts the invariants."""
    m = Sm80Model(stages, k_tiles, k_blocks, slot=[None] * stages)
    count = k_tiles
    mmas: list[tuple] = []
    for k_pipe in range(stages - 1):             # PREFETCH: Stages-1 tiles in flight
        m.copy_tile(k_pipe, predicated_off=count <= 0)
        m.fence()
        count -= 1
    read, write = 0, stages - 1
    current = read                               # tCsA_p: the stage the registers load from
    if k_blocks > 1:
        m.wait(stages - 2)
        m.sync()
        m.smem_to_regs(current, 0)
    while count > -(stages - 1):
        for k_block in range(k_blocks):
            if k_block == k_blocks - 1:
                current = read
                m.wait(stages - 2)
                m.sync()
            m.smem_to_regs(current, (k_block + 1) % k_blocks)
            if k_block == 0:
                m.copy_tile(write, predicated_off=count <= 0)
                m.fence()
                write = read
                read = (read + 1) % stages
            tile, kb = m.regs[k_block]
            mmas.append((tile, kb))
            m.log("mma", tile, kb)
        count -= 1
    m.wait(0)
    m.sync()
    want = [(t, kb) for t in range(k_tiles) for kb in range(k_blocks)]
    assert mmas == want, (mmas, want)
    return m.events
# --8<-- [end:sm80]


# --8<-- [start:state]
@dataclass
class PipelineState:
    """index/phase/count of cutlass::PipelineState<Stages>: ++ wraps the index and flips the phase."""
    stages: int
    index: int = 0
    phase: int = 0
    count: int = 0

    def step(self) -> None:
        self.index += 1
        self.count += 1
        if self.index == self.stages:
            self.index = 0
            self.phase ^= 1

    def advance(self, n: int) -> None:
        """PipelineState::advance: the same result as n steps, computed directly."""
        if n < self.stages and self.index + n >= self.stages:
            self.phase ^= 1
        if n >= self.stages and ((self.index + n) // self.stages) % 2 == 1:
            self.phase ^= 1
        self.index = (self.index + n) % self.stages
        self.count += n


class MBarrier:
    """An mbarrier: a phase completes when `expected` arrivals (and the bytes) are in.
    wait(parity) returns once the phase with that parity has completed, i.e. while the current
    (incomplete) phase has the other parity. A fresh barrier is in phase 0, so wait(1) passes."""

    def __init__(self, expected: int) -> None:
        self.expected, self.arrived, self.bytes, self.completed = expected, 0, 0, 0

    def ready(self, parity: int) -> bool:
        return self.completed % 2 != parity

    def arrive(self) -> None:
        self.arrived += 1
        self._maybe_flip()

    def arrive_and_expect_tx(self, n: int) -> None:
        """One arrival that also raises the transaction count by n bytes, atomically."""
        self.bytes -= n
        self.arrive()

    def complete_tx(self, n: int) -> None:
        self.bytes += n
        self._maybe_flip()

    def _maybe_flip(self) -> None:
        if self.arrived == self.expected and self.bytes == 0:
            self.completed += 1
            self.arrived = 0


def make_producer_start_state(stages: int) -> PipelineState:
    return PipelineState(stages, 0, 1, 0)  # empty buffers: the producer starts on the flipped phase
# --8<-- [end:state]


# --8<-- [start:tma]
def tma_transaction_bytes(smem_a: tuple[int, int], smem_b: tuple[int, int], bits_a: int, bits_b: int) -> int:
    """TmaTransactionBytes of the SM90 collective: one stage of A (BLK_M x BLK_K) plus one of B."""
    return (smem_a[0] * smem_a[1] * bits_a + smem_b[0] * smem_b[1] * bits_b) // 8


def simulate_tma_pipeline(stages: int, k_tiles: int, seed: int, bytes_a: int = 16384, bytes_b: int = 16384,
                          expect_tx: int | None = None, producer_phase: int = 1,
                          max_steps: int = 100_000) -> list[tuple]:
    """Producer: producer_acquire (wait empty, arrive_and_expect_tx(expect_tx)), then two TMA copies,
    A and B, each completing its bytes on the stage's full barrier, in either order.
    Consumer: consumer_wait (full), issue WGMMA, wait until <= 1 WGMMA batch is in flight, then
    consumer_release the *previous* stage (K_PIPE_MMAS = 1). Steps interleave at random."""
    expect_tx = bytes_a + bytes_b if expect_tx is None else expect_tx
    rng = random.Random(seed)
    full = [MBarrier(1) for _ in range(stages)]
    empty = [MBarrier(1) for _ in range(stages)]
    landed: list = [set() for _ in range(stages)]  # (tile, operand) whose bytes are in each stage
    in_use: set = set()                    # stages a WGMMA may still be reading
    prod = PipelineState(stages, 0, producer_phase, 0)
    cons, release = PipelineState(stages), PipelineState(stages)
    landing: list = []                     # (stage, tile, operand, bytes): TMA copies in flight
    batches: list = []                     # stages read by WGMMA batches not yet retired
    consumed: list = []
    events: list = []
    produced = 0
    for _ in range(max_steps):
        moves = []
        if produced < k_tiles and empty[prod.index].ready(prod.phase):
            moves.append("acquire")
        if landing:
            moves.append("land")
        if len(consumed) < k_tiles and full[cons.index].ready(cons.phase):
            moves.append("mma")
        if batches:
            moves.append("retire")
        if not moves:
            break
        move = rng.choice(moves)
        if move == "acquire":
            s = prod.index
            assert s not in in_use, f"producer overwrote stage {s} while a WGMMA reads it"
            full[s].arrive_and_expect_tx(expect_tx)
            landed[s] = set()
            landing += [(s, produced, "A", bytes_a), (s, produced, "B", bytes_b)]
            events.append(("producer_acquire", s, produced))
            produced += 1
            prod.step()
        elif move == "land":  # copies complete in any order
            s, tile, operand, n = landing.pop(rng.randrange(len(landing)))
            landed[s].add((tile, operand))
            full[s].complete_tx(n)
            events.append(("tma_complete", s, tile, operand))
        elif move == "mma":
            s, tile = cons.index, len(consumed)
            assert landed[s] >= {(tile, "A"), (tile, "B")}, f"stage {s} read before its tile landed"
            in_use.add(s)
            batches.append(s)
            consumed.append(tile)
            events.append(("wgmma", s, tile))
            cons.step()
            # warpgroup_wait<1>: every batch but the newest retires, then release those stages
            while len(batches) > 1:
                done = batches.pop(0)
                in_use.discard(done)
                assert release.index == done
                empty[done].arrive()
                events.append(("consumer_release", done))
                release.step()
        elif move == "retire":  # mma_tail: warpgroup_wait<0>, release what is left
            if len(consumed) == k_tiles:
                done = batches.pop(0)
                in_use.discard(done)
                empty[done].arrive()
                events.append(("consumer_release", done))
                release.step()
    return events if len(consumed) == k_tiles else events + [("deadlock",)]
# --8<-- [end:tma]


if __name__ == "__main__":
    ev = sm80_trace(stages=3, k_tiles=4, k_blocks=2)
    print(f"sm80 Stages=3, 4 k-tiles, K_BLOCK_MAX=2: {len(ev)} events, all invariants hold")
    for e in ev[:12]:
        print("  ", *e)
    tma = simulate_tma_pipeline(stages=4, k_tiles=16, seed=0)
    print(f"TMA/WGMMA pipeline, 4 stages, 16 k-tiles: {sum(e[0] == 'wgmma' for e in tma)} tiles consumed,"
          f" last event {tma[-1][0]}")
    bad = simulate_tma_pipeline(stages=4, k_tiles=16, seed=0, producer_phase=0)
    print("producer starting on phase 0:", bad[-1][0])
    print("TmaTransactionBytes, 128x64 bf16 tiles of A and B:", tma_transaction_bytes((128, 64), (128, 64), 16, 16))
