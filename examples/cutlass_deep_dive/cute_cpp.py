"""Run CuTe's own C++ layout algebra on the CPU and read its results back.

CuTe's layout functions are host-and-device templates, so a plain g++ build can run them. They
need CuTe's headers (shipped in the `nvidia-cutlass` wheel under cutlass_library/source/include),
libcu++ (`nvidia-cuda-cccl-cu12`) and a few CUDA runtime headers (`nvidia-cuda-runtime-cu12`).
Three of those CUDA headers are only needed for declarations the layout code never uses; STUBS
replaces them with empty files or the handful of macros they define. This module writes a C++
program for a list of cases (static layouts, so every operation is the compile-time path),
builds it and parses what cute::print writes. swizzle_program does the same for swizzled layout
atoms (cute/swizzle_layout.hpp), printing every offset.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

STUBS = {
    "cuda_runtime.h": "#pragma once\n",
    "cuda_runtime_api.h": "#pragma once\n",
    "crt/host_defines.h": "#pragma once\n" + "".join(f"#define {m}\n" for m in (
        "__host__", "__device__", "__global__", "__cudart_builtin__", "__device_builtin__", "CUDARTAPI",
    )) + "#define __forceinline__ inline\n#define __align__(n) alignas(n)\n"
         "#define __builtin_align__(n) alignas(n)\n#define __location__(a)\n",
}

OPS = {
    "composition": "composition({a}, {b})",
    "complement": "complement({a}, Int<{n}>{{}})",
    "logical_divide": "logical_divide({a}, {b})",
    "zipped_divide": "zipped_divide({a}, {b})",
    "logical_product": "logical_product({a}, {b})",
    "blocked_product": "blocked_product({a}, {b})",
    "raked_product": "raked_product({a}, {b})",
    "right_inverse": "right_inverse({a})",
    "coalesce": "coalesce({a})",
}


def cpp_tuple(t, kind: str) -> str:
    if isinstance(t, tuple):
        return f"{kind}<" + ",".join(cpp_tuple(e, kind) for e in t) + ">"
    return f"Int<{t}>"


def cpp_layout(layout) -> str:
    return f"Layout<{cpp_tuple(layout.shape, 'Shape')},{cpp_tuple(layout.stride, 'Stride')}>{{}}"


def cpp_tiler(b) -> str:
    """A layout, a static integer (CuTe makes a layout of it), or a by-mode tiler <B0, B1, ...>."""
    if isinstance(b, tuple):
        return "make_tile(" + ",".join(cpp_tiler(x) for x in b) + ")"
    return f"Int<{b}>{{}}" if isinstance(b, int) else cpp_layout(b)


def program(cases: list[tuple]) -> str:
    """cases: (op, A, B or None, n or None). One printed line per case."""
    body = []
    for op, a, b, n in cases:
        tiler = cpp_tiler(b) if b is not None else ""
        expr = OPS[op].format(a=cpp_layout(a), b=tiler, n=n)
        body.append(f'  print({expr}); printf("\\n");')
    return "#include <cute/layout.hpp>\n#include <cstdio>\nusing namespace cute;\nint main() {\n" + \
        "\n".join(body) + "\n}\n"


def parse(text: str):
    """'((_2,_3),_5):((_1,_2),_6)' -> (shape, stride) as nested tuples of ints."""
    shape, stride = text.strip().replace("_", "").split(":")
    return ast.literal_eval(shape), ast.literal_eval(stride)


def swizzle_program(cases: list[tuple]) -> str:
    """cases: (B, M, S, layout). One line per case: composition(Swizzle<B,M,S>{}, layout)(i) for every i."""
    body = []
    for b, m, shift, layout in cases:
        body.append(f"  {{ auto sw = composition(Swizzle<{b},{m},{shift}>{{}}, {cpp_layout(layout)});\n"
                    '    for (int i = 0; i < int(size(sw)); ++i) { printf("%d ", int(sw(i))); } printf("\\n"); }')
    return "#include <cute/layout.hpp>\n#include <cute/swizzle_layout.hpp>\n#include <cstdio>\n" \
        "using namespace cute;\nint main() {\n" + "\n".join(body) + "\n}\n"


def _build_and_run(source: str, include_dirs: list[Path], workdir: Path, name: str) -> str:
    stub = workdir / "stub"
    for file, text in STUBS.items():
        (stub / file).parent.mkdir(parents=True, exist_ok=True)
        (stub / file).write_text(text)
    src = workdir / f"{name}.cpp"
    src.write_text(source)
    exe = workdir / name
    flags = [f"-I{stub}"] + [f"-I{d}" for d in include_dirs]
    build = subprocess.run(["g++", "-std=c++17", "-O0", *flags, str(src), "-o", str(exe)],
                           capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        errors = [line for line in build.stderr.splitlines() if "error" in line]
        raise RuntimeError("g++ failed:\n" + "\n".join(errors[:8]))
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout


def run(cases: list[tuple], include_dirs: list[Path], workdir: Path) -> list[tuple]:
    out = _build_and_run(program(cases), include_dirs, workdir, "cute_cases")
    return [parse(line) for line in out.splitlines()]


def run_swizzles(cases: list[tuple], include_dirs: list[Path], workdir: Path) -> list[list[int]]:
    out = _build_and_run(swizzle_program(cases), include_dirs, workdir, "cute_swizzles")
    return [[int(x) for x in line.split()] for line in out.splitlines()]
