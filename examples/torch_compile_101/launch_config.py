"""How torch 2.13.0 would launch the H200 kernels: Inductor's own heuristics, evaluated on the CPU.

Run from the repository root:

    python examples/torch_compile_101/launch_config.py

A generated Triton kernel carries a heuristics decorator (``persistent_reduction``, ``reduction``,
``pointwise``) whose arguments are the kernel's size hints and metadata, including the device it
was generated for; at the first launch the decorator's candidate configurations are compiled and,
if there is more than one, benchmarked. This script takes each kernel's decorator call from the
committed H200 wrapper modules, evaluates it as written with ``return_configs=True`` (the
heuristics then return their candidates instead of an autotuner), and prints each candidate and
its grid (``Grid1D``: ceil(xnumel / XBLOCK) programs).

The CPU wheel has no ``triton`` package, and ``triton_compat`` then defines ``Config`` as a bare
``object``; the candidates are Triton ``Config`` objects, so a four-line stand-in with the same
constructor (block sizes, ``num_warps``, ``num_stages``) is installed before the heuristics module
is imported. Nothing else is replaced.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
H200 = HERE.parents[1] / "docs" / "blog" / "posts" / "torch-compile-101" / "h200"


class Config:
    """Stand-in for ``triton.Config``: what a launch configuration holds."""

    def __init__(self, kwargs, num_warps=4, num_stages=1, **_):
        self.kwargs, self.num_warps, self.num_stages = dict(kwargs), num_warps, num_stages


def heuristics():
    import torch._inductor.runtime.triton_compat as compat

    if "torch._inductor.runtime.triton_heuristics" not in sys.modules:
        compat.Config = Config  # only without the triton package; see the docstring
    from torch._inductor.runtime import triton_heuristics

    return triton_heuristics


def kernels_of(module_text: str) -> list[dict]:
    """Each kernel of a wrapper module: its name, its number of rows and its decorator call."""
    found = []
    for m in re.finditer(r"^@(triton_heuristics\.\w+\(\n.*?\n\))\n@triton\.jit\ndef (triton_\w+)\(.*?\n"
                         r"    xnumel = (\d+)\n", module_text, re.S | re.M):
        found.append({"decorator": m.group(1), "name": m.group(2), "xnumel": int(m.group(3))})
    return found


def candidates(kernel: dict) -> list[dict]:
    """The launch configurations 2.13.0 proposes: the kernel's own decorator call, evaluated with
    ``return_configs=True`` (the heuristics return their candidates instead of an autotuner)."""
    from torch._inductor.runtime.hints import DeviceProperties, ReductionHint

    names = {"triton_heuristics": heuristics(), "ReductionHint": ReductionHint,
             "DeviceProperties": DeviceProperties, "set": set, "__file__": "<kernel>"}
    call = kernel["decorator"][:-1].rstrip().rstrip(",") + ", return_configs=True)"
    configs = eval(call, {"__builtins__": {}}, names)  # noqa: S307 - our committed kernel text
    out = []
    for c in configs:
        xblock = c.kwargs["XBLOCK"]
        out.append({"block": c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages,
                    "grid": -(-kernel["xnumel"] // xblock), "threads": 32 * c.num_warps})
    return out


def main() -> dict[str, list[dict]]:
    result = {}
    for path in sorted(H200.glob("*.txt")):
        for kernel in kernels_of(path.read_text(encoding="utf-8")):
            result[kernel["name"]] = cands = candidates(kernel)
            for c in cands:
                print(f"{path.stem:18} {kernel['name']:46} "
                      f"{c['block']} num_warps={c['num_warps']}: {c['grid']} programs of "
                      f"{c['threads']} threads")
    return result


if __name__ == "__main__":
    main()
