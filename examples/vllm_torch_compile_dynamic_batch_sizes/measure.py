"""Time the miniature on this machine: Dynamo capture + split, each Inductor compile, and
steady-state calls (eager, general artifact, size-specialised artifact, padded dispatch).

Run it:  python examples/vllm_torch_compile_dynamic_batch_sizes/measure.py [--warm]
(cold Inductor cache by default; --warm reuses the default cache, like a second start.)
CPU numbers of a toy model: they show the mechanism's shape, not GPU behaviour.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and "--warm" not in sys.argv:
    # A fresh Inductor cache, so the first call pays for every compile (a cold start).
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-cold-")

import torch  # noqa: E402

HERE = Path(__file__).resolve().parent


def _mini():
    name = "vllm_torch_compile_dynamic_batch_sizes_mini_piecewise"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "mini_piecewise.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def per_call_us(fn, x, reps: int) -> float:
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(reps):
                fn(x)
            best = min(best, (time.perf_counter() - t0) / reps)
    return best * 1e6


def timings(model, compiled, dispatcher, reps: int = 200) -> dict[str, float]:
    """Microseconds per call, best of 3 rounds, for the paths a batch can take."""
    torch.manual_seed(1)
    x4, x3, x13 = torch.randn(4, 32), torch.randn(3, 32), torch.randn(13, 32)
    return {
        "eager, 4 tokens": per_call_us(model, x4, reps),
        "compiled, 4 tokens (size-4 artifact)": per_call_us(compiled, x4, reps),
        "compiled, 13 tokens (general artifact)": per_call_us(compiled, x13, reps),
        "eager, 13 tokens": per_call_us(model, x13, reps),
        "dispatcher, 3 tokens padded to 4": per_call_us(dispatcher, x3, reps),
        "dispatcher, 13 tokens padded to 16": per_call_us(dispatcher, x13, reps),
    }


def main() -> None:
    mini = _mini()
    torch.set_num_threads(1)
    torch._dynamo.reset()
    model = mini.TinyModel().eval()
    backend = mini.MiniBackend(mini.SPLITTING_OPS, compile_sizes=[4])
    t0 = time.perf_counter()
    compiled = mini.compile_like_vllm(model, torch.randn(16, 32), backend)
    total = time.perf_counter() - t0
    print(f"first call (Dynamo + split + {len(backend.compile_log)} Inductor compiles): {total:.1f} s")
    dispatcher = mini.MiniDispatcher(compiled, mini.default_capture_sizes(8, 16))
    for label, us in timings(model, compiled, dispatcher).items():
        print(f"{label:40s} {us:8.1f} us")


if __name__ == "__main__":
    main()
