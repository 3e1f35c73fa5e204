"""Blackwell tensor memory (TMEM) as CUTLASS v4.7.0 uses it: a model of the rules, not of a GPU.

- Capacity: 128 lanes ("data paths") x 512 columns of 32-bit cells per SM, MAX_CAPACITY_BITS in
  include/cute/arch/tmem_allocator_sm100.hpp; an address is lane << 16 | column.
- Allocation: Allocator1Sm::allocate takes 32 <= num_columns <= 512, a power of two, issued by one
  whole warp (its doc comment; tcgen05.alloc in the PTX ISA).
- Access: a warp reaches only the 32-lane slice (warp id % 4) of TMEM; copy_unpack of the
  SM100_TMEM_LOAD atoms asserts (threadIdx.x / 32) % 4 == (lane / 32) % 4
  (include/cute/atom/copy_traits_sm100.hpp).
- Accumulator stages: the SM100 collective builder (sm100_umma_builder.inl) fits as many
  BLK_M x BLK_N fp32 accumulators as the 128 x 512 cells hold, at most 4.

Run it: python examples/cutlass_deep_dive/tmem.py
"""

from __future__ import annotations

# --8<-- [start:tmem]
LANES, COLUMNS, CELL_BITS = 128, 512, 32


def capacity_bytes() -> int:
    return LANES * COLUMNS * CELL_BITS // 8


def address(lane: int, column: int) -> int:
    """A TMEM address: the lane in the upper 16 bits, the column in the lower 16."""
    return lane << 16 | column


def check_allocation(columns: int) -> None:
    """tcgen05.alloc: a power of two from 32 to 512 columns (all 128 lanes come with them)."""
    if not (32 <= columns <= COLUMNS and columns & (columns - 1) == 0):
        raise ValueError(f"cannot allocate {columns} TMEM columns: need a power of two in [32, 512]")


def warp_may_access(warp: int, tmem_addr: int) -> bool:
    """The assert in SM100::TMEM::LOAD/STORE copy_unpack: a warp reaches its own 32-lane slice only."""
    return warp % 4 == ((tmem_addr >> 16) // 32) % 4


def accumulator_stages(cta_m: int, cta_n: int, two_sm: bool, mma_m: int) -> int:
    """AccumulatorPipelineStageCount of the SM100 UMMA collective builder (fp32 accumulators)."""
    if two_sm or mma_m > 64:
        stages = (LANES * COLUMNS) // (cta_m * cta_n)
    else:  # one-SM MMA with M = 64
        stages = (COLUMNS // cta_n) * 2
    return min(4, stages)
# --8<-- [end:tmem]


if __name__ == "__main__":
    print(f"TMEM per SM: {LANES} lanes x {COLUMNS} columns x {CELL_BITS} bit = {capacity_bytes() // 1024} KiB")
    for tile in [(128, 256), (128, 128), (128, 64)]:
        print(f"CTA tile {tile[0]}x{tile[1]}, 1-SM MMA M=128: {accumulator_stages(*tile, False, 128)}"
              " accumulator stages")
    print("epilogue warps 4..7 reach lanes", [next(lane for lane in range(LANES)
                                                   if warp_may_access(w, address(lane, 0))) for w in range(4, 8)])
