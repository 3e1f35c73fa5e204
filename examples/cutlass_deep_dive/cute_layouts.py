"""A small, independent implementation of CuTe's layout algebra (CUTLASS v4.7.0 semantics).

A layout is a pair of congruent integer tuples, shape and stride; it maps a coordinate to an
index by an inner product. Everything else (coalesce, composition, complement, divides,
products) is built from three primitives, as in `include/cute/layout.hpp`. Written from the
CuTe documentation and the C++ definitions; it is checked against CUTLASS's own `pycute` port
by tests/examples/test_cutlass_deep_dive.py.

Run it: python examples/cutlass_deep_dive/cute_layouts.py
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

IntTuple = int | tuple


# --8<-- [start:core]
def flat(t: IntTuple) -> tuple[int, ...]:
    """Leaves of a nested tuple, left to right."""
    return tuple(x for e in t for x in flat(e)) if isinstance(t, tuple) else (t,)


def size_of(shape: IntTuple) -> int:
    return prod(flat(shape))


def left_strides(shape: IntTuple, start: int = 1) -> IntTuple:
    """Generalised column-major strides (LayoutLeft): exclusive prefix product of the leaves."""
    if not isinstance(shape, tuple):
        return start
    out = []
    for mode in shape:
        out.append(left_strides(mode, start))
        start *= size_of(mode)
    return tuple(out)


def idx2crd(i: int, shape: IntTuple) -> IntTuple:
    """The natural (hierarchical) coordinate of a 1-D index, colexicographic order."""
    if not isinstance(shape, tuple):
        return i
    out = []
    for mode in shape:
        n = size_of(mode)
        out.append(idx2crd(i % n, mode))
        i //= n
    return tuple(out)


@dataclass(frozen=True)
class Layout:
    shape: IntTuple
    stride: IntTuple = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.stride is None:
            object.__setattr__(self, "stride", left_strides(self.shape))

    def __call__(self, crd: IntTuple) -> int:
        """Index of a coordinate; an int is a 1-D coordinate, a tuple may be partly flattened."""
        return _dot(crd, self.shape, self.stride)

    def size(self) -> int:
        return size_of(self.shape)

    def cosize(self) -> int:
        return self(self.size() - 1) + 1

    def rank(self) -> int:
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def mode(self, i: int) -> Layout:
        if isinstance(self.shape, tuple):
            return Layout(self.shape[i], self.stride[i])
        assert i == 0
        return self

    def modes(self) -> list[Layout]:
        return [self.mode(i) for i in range(self.rank())]

    def __str__(self) -> str:
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"


def _dot(crd: IntTuple, shape: IntTuple, stride: IntTuple) -> int:
    if isinstance(crd, tuple):
        return sum(_dot(c, s, d) for c, s, d in zip(crd, shape, stride, strict=True))
    if isinstance(shape, tuple):  # an integer into a tuple mode: split it colexicographically
        return _dot(idx2crd(crd, shape), shape, stride)
    return crd * stride


def _fmt(t: IntTuple) -> str:
    return "(" + ",".join(_fmt(e) for e in t) + ")" if isinstance(t, tuple) else str(t)


def cat(*layouts: Layout) -> Layout:
    """Concatenation: each argument becomes one mode of the result."""
    return Layout(tuple(a.shape for a in layouts), tuple(a.stride for a in layouts))


def from_modes(pairs: list[tuple[int, int]]) -> Layout:
    """A flat layout from (shape, stride) leaves; a single leaf stays rank-1, none is 1:0."""
    if not pairs:
        return Layout(1, 0)
    if len(pairs) == 1:
        return Layout(*pairs[0])
    return Layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs))
# --8<-- [end:core]


# --8<-- [start:coalesce]
def coalesce(a: Layout, profile: IntTuple | None = None) -> Layout:
    """Fewest modes with the same int -> int function. With a profile, coalesce mode by mode."""
    if isinstance(profile, tuple):
        rest = a.modes()[len(profile):]
        return cat(*(coalesce(m, p) for m, p in zip(a.modes(), profile, strict=False)), *rest)
    kept: list[tuple[int, int]] = []
    for s, d in zip(flat(a.shape), flat(a.stride), strict=True):
        if s == 1:                                  # rule 1 and 2: size-1 modes vanish
            continue
        if kept and kept[-1][0] * kept[-1][1] == d:  # rule 3: s0:d0 ++ s1:s0*d0 -> s0*s1:d0
            kept[-1] = (kept[-1][0] * s, kept[-1][1])
        else:                                       # rule 4: keep both
            kept.append((s, d))
    return from_modes(kept)
# --8<-- [end:coalesce]


# --8<-- [start:composition]
def composition(a: Layout, b: Layout | int | tuple | None) -> Layout:
    """R = A o B, R(i) == A(B(i)); a tuple B is a by-mode tiler, None leaves a mode alone."""
    if b is None:
        return a
    if isinstance(b, int):
        return composition(a, Layout(b))
    if isinstance(b, tuple):  # tiler <B0, B1, ...>: mode i of A composed with B_i
        if len(b) > a.rank():
            raise ValueError(f"tiler of rank {len(b)} for a rank-{a.rank()} layout")
        rest = a.modes()[len(b):]
        return cat(*(composition(m, t) for m, t in zip(a.modes(), b, strict=False)), *rest)
    if isinstance(b.shape, tuple):  # left distributivity over B's modes
        return cat(*(composition(a, m) for m in b.modes()))
    return _compose_1d(coalesce(a), b.shape, b.stride)


def _compose_1d(a: Layout, s: int, d: int) -> Layout:
    """(flattened A) o s:d, in the doc's two steps: divide out the stride d, then keep s elements."""
    if d == 0:
        return Layout(s, 0)
    leaves = list(zip(flat(a.shape), flat(a.stride), strict=True))
    # Step 1, "A / d": skip the first d elements' worth of modes.
    divided: list[tuple[int, int]] = []
    rest = d
    for k, (ak, ek) in enumerate(leaves):
        last = k == len(leaves) - 1
        if last:  # the last mode is unbounded: stride scaled by what is left of d
            divided.append((0, ek * rest))
            break
        if rest >= ak:
            if rest % ak:
                raise ValueError(f"stride {d} not divisible through shape {a.shape}")
            rest //= ak
        else:  # the stride lands inside this mode, and must divide it
            if ak % rest:
                raise ValueError(f"stride {d} does not divide mode {ak} of {a.shape}")
            divided.append((ak // rest, ek * rest))
            divided.extend(leaves[k + 1:-1])
            divided.append((0, leaves[-1][1]))
            break
    # Step 2, "% s": keep modes until s elements are covered (0 marks the unbounded last mode).
    out: list[tuple[int, int]] = []
    rest = s
    for ak, ek in divided:
        if rest == 1:
            break
        if ak == 0 or rest <= ak:
            out.append((rest, ek))
            rest = 1
        else:  # C++: "Shape Divisibility Condition"
            if rest % ak:
                raise ValueError(f"shape {s} not divisible by mode {ak} of {a}")
            out.append((ak, ek))
            rest //= ak
    return from_modes([(x, y) for x, y in out if x != 1])
# --8<-- [end:composition]


# --8<-- [start:complement]
def complement(a: Layout, cotarget: int | None = None) -> Layout:
    """The layout of the 'holes' and repeats of A, so that (A, A*) is a bijection onto [0, cotarget)."""
    if cotarget is None:
        cotarget = a.cosize()
    leaves = sorted((d, s) for s, d in zip(flat(a.shape), flat(a.stride), strict=True) if s != 1 and d != 0)
    pairs: list[tuple[int, int]] = []
    reach = 1  # every index below `reach` is covered by what we have so far
    for d, s in leaves:
        if d % reach:
            raise ValueError(f"{a} is not injective-compatible: stride {d} after reach {reach}")
        pairs.append((d // reach, reach))  # fill the gap below this mode
        reach = d * s
    pairs.append((-(-cotarget // reach), reach))  # repeat the whole thing up to the cotarget
    return coalesce(from_modes(pairs))
# --8<-- [end:complement]


# --8<-- [start:divide]
def logical_divide(a: Layout, tiler) -> Layout:
    """A / B = A o (B, B*): mode 0 is the tile, mode 1 iterates over the tiles."""
    if tiler is None:
        return a
    if isinstance(tiler, int):
        tiler = Layout(tiler)
    if isinstance(tiler, tuple):
        rest = a.modes()[len(tiler):]
        return cat(*(logical_divide(m, t) for m, t in zip(a.modes(), tiler, strict=False)), *rest)
    return composition(a, cat(tiler, complement(tiler, a.size())))


def _unzip(split, a: Layout, tiler) -> Layout:
    """((tile modes...), (rest modes..., untouched modes...)) from a by-mode split."""
    if not isinstance(tiler, tuple):
        return split(a, tiler)
    parts = [split(m, t) for m, t in zip(a.modes(), tiler, strict=False)]
    tiles = [p.mode(0) for p in parts]
    rests = [p.mode(1) for p in parts] + a.modes()[len(tiler):]
    return cat(cat(*tiles), cat(*rests))


def zipped_divide(a: Layout, tiler) -> Layout:
    return _unzip(logical_divide, a, tiler)


def tiled_divide(a: Layout, tiler) -> Layout:
    z = zipped_divide(a, tiler)
    return cat(z.mode(0), *z.mode(1).modes())


def flat_divide(a: Layout, tiler) -> Layout:
    z = zipped_divide(a, tiler)
    return cat(*z.mode(0).modes(), *z.mode(1).modes())
# --8<-- [end:divide]


# --8<-- [start:product]
def logical_product(a: Layout, tiler) -> Layout:
    """A x B = (A, A* o B) with A* = complement(A, size(A) * cosize(B))."""
    if tiler is None:
        return a
    if isinstance(tiler, int):
        tiler = Layout(tiler)
    if isinstance(tiler, tuple):
        rest = a.modes()[len(tiler):]
        return cat(*(logical_product(m, t) for m, t in zip(a.modes(), tiler, strict=False)), *rest)
    return cat(a, composition(complement(a, a.size() * tiler.cosize()), tiler))


def zipped_product(a: Layout, tiler) -> Layout:
    return _unzip(logical_product, a, tiler)


def tiled_product(a: Layout, tiler) -> Layout:
    z = zipped_product(a, tiler)
    return cat(z.mode(0), *z.mode(1).modes())


def _pad(a: Layout, r: int) -> Layout:
    """append<R>: pad a layout to rank r with 1:0 modes."""
    return cat(*a.modes(), *[Layout(1, 0)] * (r - a.rank()))


def blocked_product(block: Layout, tiler: Layout) -> Layout:
    """Rank-sensitive: mode i of the result is (block_i, tiles_i); the block stays contiguous."""
    r = max(block.rank(), tiler.rank())
    p = logical_product(_pad(block, r), _pad(tiler, r))
    return cat(*(cat(x, y) for x, y in zip(p.mode(0).modes(), p.mode(1).modes(), strict=True)))


def raked_product(block: Layout, tiler: Layout) -> Layout:
    """Like blocked_product with the pair reversed: (tiles_i, block_i), so the blocks interleave."""
    r = max(block.rank(), tiler.rank())
    p = logical_product(_pad(block, r), _pad(tiler, r))
    return cat(*(cat(y, x) for x, y in zip(p.mode(0).modes(), p.mode(1).modes(), strict=True)))
# --8<-- [end:product]


# --8<-- [start:inverse]
def right_inverse(a: Layout) -> Layout:
    """R with A(R(i)) == i for the longest prefix of indices that A reaches contiguously."""
    c = coalesce(a)
    leaves = list(zip(flat(c.shape), flat(c.stride), strict=True))
    position = [1]  # the 1-D coordinate where each mode of A starts (prefix product of the shape)
    for s, _ in leaves:
        position.append(position[-1] * s)
    pairs: list[tuple[int, int]] = []
    reach = 1
    for (s, d), pos in sorted(((leaf, position[k]) for k, leaf in enumerate(leaves)), key=lambda x: x[0][1]):
        if d != reach:  # a gap: the inverse stops here
            break
        pairs.append((s, pos))
        reach = s * d
    return coalesce(from_modes(pairs))


def tiled_copy_tv(thr_layout: Layout, val_layout: Layout) -> tuple[Layout, Layout]:
    """make_tiled_copy's arithmetic: (M,N) -> (thr,val) is raked_product(thr, val); its right
    inverse, reshaped to (threads, values), is the TV layout (thr,val) -> position in the tile."""
    layout_mn = raked_product(thr_layout, val_layout)
    tv = composition(right_inverse(layout_mn), Layout((thr_layout.size(), val_layout.size())))
    return layout_mn, tv
# --8<-- [end:inverse]


# --8<-- [start:demo]
def as_grid(layout: Layout) -> list[list[int]]:
    """A rank-2 layout as rows x cols of indices (row = mode 0, column = mode 1)."""
    rows, cols = size_of(layout.mode(0).shape), size_of(layout.mode(1).shape)
    return [[layout((i, j)) for j in range(cols)] for i in range(rows)]


if __name__ == "__main__":
    a = Layout((6, 2), (8, 2))
    b = Layout((4, 3), (3, 1))
    print("composition  ", a, "o", b, "=", composition(a, b))
    print("complement   ", Layout(4, 2), "in 24 =", complement(Layout(4, 2), 24))
    v = Layout((4, 2, 3), (2, 1, 8))
    print("logical_divide", v, "/", Layout(4, 2), "=", logical_divide(v, Layout(4, 2)))
    m = Layout((9, (4, 8)), (59, (13, 1)))
    tiler = (Layout(3, 3), Layout((2, 4), (1, 8)))
    print("zipped_divide ", m, "/ <3:3,(2,4):(1,8)> =", zipped_divide(m, tiler))
    blk, grid = Layout((2, 5), (5, 1)), Layout((3, 4))
    print("blocked_product", blk, "x", grid, "=", blocked_product(blk, grid))
    print("raked_product  ", blk, "x", grid, "=", raked_product(blk, grid))
    # 32 threads as an 8x4 row-major grid, each copying 1x8 contiguous fp16 (one 16-byte cp.async):
    mn, tv = tiled_copy_tv(Layout((8, 4), (4, 1)), Layout((1, 8)))
    print("tiled copy (M,N)->(thr,val)", mn, " TV", tv)
    # A 4x4 column-major matrix cut into 2x2 tiles: each column of this grid is one tile
    # (mode 1 of zipped_divide), each row one position inside a tile (mode 0).
    for row in as_grid(zipped_divide(Layout((4, 4)), (Layout(2), Layout(2)))):
        print(" ".join(f"{x:2d}" for x in row))
# --8<-- [end:demo]
