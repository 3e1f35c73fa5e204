"""Swizzled shared-memory layout atoms, and the bank conflicts they remove (CUTLASS v4.7.0).

CuTe's Swizzle<B, M, S> (include/cute/swizzle.hpp) maps an offset to itself with the B bits that
sit S bits above the lowest M bits XOR-ed into those B bits. A shared-memory layout atom is a
layout composed with a swizzle, e.g. the SM80 fp16 K-major atom for a 64-wide k-tile in CUTLASS's
unit-test configurations (test/unit/gemm/device/default_gemm_configuration.hpp): composition(
Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{}), eight rows of 64 fp16 values (128 bytes
each). The default 128x128x32 configuration uses the 32-wide atom, Swizzle<2,3,3> over (8,32):(32,1).

Shared memory has 32 banks of 4-byte words (CUDA C++ Programming Guide, "Shared Memory"): a
request that needs several different words from one bank is served in that many passes. ldmatrix
reads an 8x8 fp16 matrix as eight 16-byte rows, one address per row; this module counts the passes
those eight rows need with and without the swizzle. The swizzle is checked against pycute's
Swizzle and against CuTe's C++ by tests/examples/test_cutlass_deep_dive.py.

Run it: python examples/cutlass_deep_dive/smem_swizzle.py
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cute_layouts import Layout  # noqa: E402


# --8<-- [start:swizzle]
@dataclass(frozen=True)
class Swizzle:
    """Swizzle<B, M, S>: keep the low M bits, XOR bits [M+S, M+S+B) into bits [M, M+B)
    (a negative S moves the other way)."""
    bits: int   # B: how many bits are XOR-ed
    base: int   # M: the low bits left alone (2^M elements stay contiguous)
    shift: int  # S: how far above them the bits that are XOR-ed in sit

    def __call__(self, offset: int) -> int:
        yyy = ((1 << self.bits) - 1) << (self.base + max(0, self.shift))  # the bits XOR-ed in
        moved = offset & yyy
        return offset ^ (moved >> self.shift if self.shift >= 0 else moved << -self.shift)


def swizzled(swizzle: Swizzle, layout: Layout):
    """composition(Swizzle, Layout): coordinate -> swizzle(layout(coordinate))."""
    return lambda crd: swizzle(layout(crd))


SM80_FP16_ATOM = Layout((8, 64), (64, 1))   # 8 rows of 64 fp16 = 128 bytes, K contiguous
SW128 = Swizzle(3, 3, 3)                    # XOR row % 8 into the 16-byte chunk index
SM80_FP16_ATOM_K32 = Layout((8, 32), (32, 1))  # the 32-wide k-tile's atom: 64-byte rows
SW64 = Swizzle(2, 3, 3)
# --8<-- [end:swizzle]


# --8<-- [start:banks]
BANKS, WORD = 32, 4  # shared memory: 32 banks of 4-byte words


def passes(byte_addresses: list[int], access_bytes: int = 16) -> int:
    """Passes one shared-memory request needs: the most distinct words any one bank must serve."""
    per_bank: dict[int, set[int]] = {}
    for address in byte_addresses:
        for word in range(address // WORD, (address + access_bytes) // WORD):
            per_bank.setdefault(word % BANKS, set()).add(word)
    return max(len(words) for words in per_bank.values())


def ldmatrix_passes(offset, rows: int = 8, cols: int = 64, elem_bytes: int = 2) -> int:
    """Worst case over the 8x8 matrices of a rows x cols tile: ldmatrix gives one 16-byte row
    address per thread, and the eight rows of one matrix (same columns, rows r..r+7) are one request."""
    vec = 16 // elem_bytes
    return max(passes([offset((r, k)) * elem_bytes for r in range(r0, r0 + 8)])
               for r0 in range(0, rows, 8) for k in range(0, cols, vec))


def cp_async_passes(offset, thr_rows: int = 16, thr_cols: int = 8, elem_bytes: int = 2) -> int:
    """The writes: thread t of the (16,8):(8,1) thread layout stores 8 fp16 at row t // 8,
    columns 8 * (t % 8) ...; eight consecutive threads (128 bytes) form one request."""
    vec = 16 // elem_bytes
    starts = [(t // thr_cols, vec * (t % thr_cols)) for t in range(thr_rows * thr_cols)]
    return max(passes([offset(crd) * elem_bytes for crd in starts[i:i + 8]])
               for i in range(0, len(starts), 8))
# --8<-- [end:banks]


if __name__ == "__main__":
    plain, swz = SM80_FP16_ATOM, swizzled(SW128, SM80_FP16_ATOM)
    print("16-byte chunk of each row that holds columns 0-7, 8-15, ... (plain | swizzled):")
    for r in range(8):
        print(f"  row {r}:", *(plain((r, k)) % 64 // 8 for k in range(0, 64, 8)), "|",
              *(swz((r, k)) % 64 // 8 for k in range(0, 64, 8)))
    print(f"ldmatrix passes per 8x8 matrix: plain {ldmatrix_passes(plain)}, Swizzle<3,3,3> {ldmatrix_passes(swz)}")
    print(f"cp.async passes per 8 threads:  plain {cp_async_passes(plain)}, Swizzle<3,3,3> {cp_async_passes(swz)}")
    k32 = SM80_FP16_ATOM_K32
    print(f"(8,32):(32,1), ldmatrix passes: plain {ldmatrix_passes(k32, cols=32)},"
          f" Swizzle<2,3,3> {ldmatrix_passes(swizzled(SW64, k32), cols=32)}")
