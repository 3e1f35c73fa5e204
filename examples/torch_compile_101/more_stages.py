"""Three more real artifacts of torch 2.13.0, beyond rms_norm: a mutation, a decomposition, Triton.

Run from the repository root:

    python examples/torch_compile_101/more_stages.py            # rewrites the committed artifacts
    python examples/torch_compile_101/more_stages.py --check    # compares instead

1. An in-place update of an input (``buf.add_(x)``), compiled for inference: AOTAutograd's
   functionalization turns it into an out-of-place ``add`` and, because the input really must
   change, a trailing ``copy_`` back into it (TORCH_LOGS=aot_graphs).
2. ``F.silu``, an op Inductor decomposes: Dynamo's graph holds ``torch.nn.functional.silu``, and
   the graph AOTAutograd hands Inductor holds its decomposition, ``x / (1 + exp(-x))`` as
   ``neg``, ``exp``, ``add`` and ``div`` (graph_code, aot_graphs).
3. The Triton kernel Inductor generates for rms_norm's forward. This machine has no GPU and the
   CPU wheel has no ``triton`` package, so the kernel is generated for Inductor's Triton CPU backend
   (``cpu_backend="triton"``) with one function replaced: ``triton_hash_with_backend``, which asks
   the ``triton`` package for a cache key. ``TritonKernel.codegen_kernel`` writes the source; it is
   captured, and the compile fails as expected when the generated module runs ``import triton``.
   Nothing Triton is compiled or run.

The cases run in one fresh process with a fresh TORCHINDUCTOR_CACHE_DIR, so every cache misses;
the Triton case runs last because it changes Inductor's configuration for the process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parents[1] / "docs" / "blog" / "posts" / "torch-compile-101" / "more-stages"
FILES = ("mutation_aot_graph.txt", "silu_dynamo_graph.txt", "silu_aot_graph.txt",
         "triton_kernel_forward.txt")


# --8<-- [start:cases]
def mutation_case() -> dict[str, str]:
    import torch

    def bump(x, buf):
        buf.add_(x)  # mutates an input
        return buf * 2

    with torch.no_grad(), record_artifacts("aot_graphs") as rec:
        x, buf = torch.ones(8), torch.zeros(8)
        out = torch.compile(bump)(x, buf)
    assert torch.equal(buf, torch.ones(8)) and torch.equal(out, torch.full((8,), 2.0))
    return {"mutation_aot_graph.txt": one(rec.records, "aot_graphs", "copy_")}


def silu_case() -> dict[str, str]:
    import torch
    import torch.nn.functional as F

    def act(x):
        return F.silu(x) + 1

    with torch.no_grad(), record_artifacts("graph_code", "aot_graphs") as rec:
        x = torch.randn(8)
        torch.testing.assert_close(torch.compile(act)(x), act(x))
    return {"silu_dynamo_graph.txt": one(rec.records, "graph_code", "silu"),
            "silu_aot_graph.txt": one(rec.records, "aot_graphs", "aten.exp")}


def compile_without_triton(fn, *args) -> None:
    """Compile and call fn under no_grad; with cpu_backend="triton" and no triton package, the
    call must fail where the generated module runs ``import triton``."""
    import torch

    try:
        with torch.no_grad():
            torch.compile(fn)(*args)
    except Exception as e:  # the generated module starts with `import triton`
        assert "No module named 'triton'" in str(e), e
    else:
        raise AssertionError("compiled and ran without the triton package?")


def triton_case() -> dict[str, str]:
    import torch
    import torch._inductor.config as inductor_config
    import torch.utils._triton
    from rms_norm import rms_norm
    from torch._inductor.codegen import triton as triton_codegen

    inductor_config.cpu_backend = "triton"  # Inductor's Triton backend for CPU tensors
    # The one function that needs the triton package while the kernel's source is written.
    torch.utils._triton.triton_hash_with_backend = lambda: "<no triton package>"
    sources = []
    codegen_kernel = triton_codegen.TritonKernel.codegen_kernel

    def keep_source(self, *args, **kwargs):
        sources.append(codegen_kernel(self, *args, **kwargs))
        return sources[-1]

    triton_codegen.TritonKernel.codegen_kernel = keep_source
    compile_without_triton(rms_norm, torch.randn(64, 256), torch.randn(256))
    assert len(sources) == 1, len(sources)
    return {"triton_kernel_forward.txt": sources[0]}
# --8<-- [end:cases]


CASES = {"mutation": mutation_case, "silu": silu_case, "triton": triton_case}


def one(records: dict[str, list[str]], artifact: str, marker: str) -> str:
    hits = [m for m in records.get(artifact, []) if marker in m]
    assert len(hits) == 1, (artifact, marker, len(hits))
    return hits[0]


def record_artifacts(*names):
    from artifacts import record_artifacts as rec

    return rec(*names)


def run_cases() -> dict[str, str]:
    """Run the cases in a fresh process with a fresh Inductor cache; return the normalised files."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": tmp, "TORCHINDUCTOR_COMPILE_THREADS": "1"}
        proc = subprocess.run([sys.executable, __file__, "--cases"], env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"the cases failed:\n{proc.stderr[-3000:]}")
        sys.path.insert(0, str(HERE))
        from artifacts import normalise

        files = {k: normalise(v, temp_dirs=(tmp,)) for k, v in json.loads(proc.stdout).items()}
    # The Triton CPU backend's device properties count this machine's CPUs.
    files["triton_kernel_forward.txt"] = re.sub(r"multi_processor_count=\d+", "multi_processor_count=<cpus>",
                                                files["triton_kernel_forward.txt"])
    return files


def main(argv: list[str]) -> None:
    if "--cases" in argv:
        sys.path.insert(0, str(HERE))
        files = {}
        for case in CASES.values():
            files.update(case())
        print(json.dumps(files))
        return
    files = run_cases()
    stale = []
    for name in FILES:
        path = OUT / name
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != files[name]:
                stale.append(name)
        else:
            path.write_text(files[name], encoding="utf-8")
        print(f"{name:28} {files[name].count(chr(10)):>4} lines")
    if stale:
        raise SystemExit(f"out of date (rerun without --check): {', '.join(stale)}")


if __name__ == "__main__":
    main(sys.argv[1:])
