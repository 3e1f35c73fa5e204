"""Compile the post's two functions with Inductor on the CPU and keep what it generated.

    python examples/torch_compile_deep_dive_inductor/capture.py [--out DIR]

Three compiles, each in this process with every Inductor cache disabled
(TORCHINDUCTOR_FORCE_DISABLE_CACHES=1) and a private TORCHINDUCTOR_CACHE_DIR, so each one runs
the whole pipeline instead of loading an earlier result:

  mlp            default config (memory_planning=False: the reuse planner)
  mlp_pooled     the same graph with config.memory_planning=True (pools)
  realize_demo   default config, to show which values lowering realizes

For each it records what TORCH_LOGS="output_code,ir_pre_fusion,ir_post_fusion,fusion" would
print, plus the INFO messages of torch._inductor.memory (reorder_for_peak_memory's estimates),
checks the compiled results against eager, and writes the artifacts and capture.json into
DIR (default: the post's folder), then derives lifetimes.json and the figures from the mlp
wrapper (figures.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import platform
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
POST_DIR = REPO_ROOT / "docs" / "blog" / "posts" / "torch-compile-deep-dive-inductor"
CACHE_DIR = tempfile.mkdtemp(prefix="inductor-deep-dive-")
os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"   # must be set before torch is imported
os.environ["TORCHINDUCTOR_CACHE_DIR"] = CACHE_DIR
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
import lifetimes  # noqa: E402
import programs  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402

ARTIFACTS = ("output_code", "ir_pre_fusion", "ir_post_fusion", "fusion")


class Recorder(logging.Handler):
    """Files each log message under its artifact name (or 'memory' for torch._inductor.memory)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: dict[str, list[str]] = defaultdict(list)

    def emit(self, record: logging.LogRecord) -> None:
        _, sep, artifact = record.name.rpartition(".__")
        if sep:
            self.records[artifact].append(record.getMessage())
        elif record.name == "torch._inductor.memory":
            self.records["memory"].append(record.getMessage())


@contextlib.contextmanager
def recording(artifacts: tuple[str, ...] = ARTIFACTS):
    torch._logging.set_logs(**{name: True for name in artifacts})
    rec = Recorder()
    parent = logging.getLogger("torch._inductor")
    memory = logging.getLogger("torch._inductor.memory")
    old_level = memory.level
    memory.setLevel(logging.INFO)
    quiet = [(h, h.level) for h in parent.handlers]
    for h, _ in quiet:
        h.setLevel(logging.CRITICAL + 1)
    parent.addHandler(rec)
    try:
        yield rec
    finally:
        parent.removeHandler(rec)
        memory.setLevel(old_level)
        for h, level in quiet:
            h.setLevel(level)
        torch._logging.set_logs()


def normalise(text: str) -> str:
    text = text.replace(CACHE_DIR, "<cache>")
    text = re.sub(r"[^\s\"',]*/site-packages/torch/", "torch/", text)
    text = text.replace(str(REPO_ROOT) + "/", "")
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


def fusion_log(messages: list[str]) -> str:
    """The fusion log with each candidate line shortened to its node (no loop body, no traces)."""
    return normalise("\n".join(m.split(", ")[0] if m.startswith("  ") else m for m in messages))


def kernel_source(module: str, name: str) -> str:
    """The C++ source string that the wrapper module passes to async_compile for kernel NAME."""
    m = re.search(rf"^{name} = async_compile\.cpp_pybinding\(\[[^\]]*\], r'''\n(.*?)\n'''\)",
                  module, re.S | re.M)
    assert m, name
    return m.group(1) + "\n"


def warm_up_vml() -> None:
    """Call sin, cos and exp once on one thread, in float32 and float64, before eager uses them.

    Eager sin/cos/exp on the CPU call oneMKL's vector math (at::vml, in VML_HA mode), which picks
    a function's kernel on its first call. pytorch/pytorch#188792 documents that concurrent first
    calls from ATen's worker threads can then run a low-accuracy kernel on one thread's chunk
    (oneMKL 2024.2, the version this wheel bundles); the fix proposed there, #188791, is this
    one-element warm-up. An earlier version of this script, without it, twice saw eager and
    compiled differ by up to 2.8e-4; that race fits, but we never reproduced the difference, so it
    is the documented cause that fits rather than one observed here. The float64 calls warm up
    the functions the reference uses as well.
    """
    for dtype in (torch.float32, torch.float64):
        for op in (torch.sin, torch.cos, torch.exp):
            op(torch.zeros(1, dtype=dtype))


def check_against_eager(got: tuple, want: tuple, reference: tuple) -> None:
    """Compiled within 1e-5 of eager; on a mismatch, say how far each side is from float64.

    The diagnosis assumes the float64 reference is right (its functions are warmed up too)."""
    for g, w, r in zip(got, want, reference, strict=True):
        def diagnosis(msg: str, g=g, w=w, r=r) -> str:
            return (f"{msg}\nassuming the float64 reference is right: "
                    f"max |compiled - float64| = {(g.double() - r).abs().max():.3g}, "
                    f"max |eager - float64| = {(w.double() - r).abs().max():.3g}")
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5, msg=diagnosis)


def compile_once(fn, inputs, patches: dict) -> tuple[dict[str, list[str]], float]:
    torch._dynamo.reset()
    with recording() as rec, torch.no_grad(), inductor_config.patch(patches):
        t0 = time.perf_counter()
        compiled = torch.compile(fn)
        got = compiled(*inputs)
        seconds = time.perf_counter() - t0
        want = fn(*inputs)
        reference = fn(*[t.double() for t in inputs])
    check_against_eager(*(x if isinstance(x, tuple) else (x,) for x in (got, want, reference)))
    return rec.records, seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=POST_DIR)
    args = parser.parse_args(argv)
    out = args.out
    (out / "capture").mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(2)
    warm_up_vml()
    runs = {
        "mlp": (programs.mlp, programs.mlp_inputs(), {}),
        "mlp_pooled": (programs.mlp, programs.mlp_inputs(), {"memory_planning": True}),
        "realize": (programs.realize_demo, programs.realize_inputs(), {}),
    }
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    isa = pick_vec_isa()
    summary: dict = {"torch": torch.__version__, "python": platform.python_version(),
                     "threads": torch.get_num_threads(), "vec_isa": str(isa),
                     "vec_isa_bit_width": isa.bit_width(), "programs": {}}
    files: dict[str, str] = {}
    for key, (fn, inputs, patches) in runs.items():
        records, seconds = compile_once(fn, inputs, patches)
        module = normalise(next(m for m in records["output_code"]
                                if m.startswith("Output code:")).split("\n", 1)[1])
        kernels = re.findall(r"^(cpp_fused_\w+) = async_compile", module, re.M)
        files[f"{key}_call"] = "\n".join(lifetimes.call_body(module)) + "\n"
        files[f"{key}_ir_pre_fusion"] = normalise("\n".join(records["ir_pre_fusion"]))
        files[f"{key}_ir_post_fusion"] = normalise("\n".join(records["ir_post_fusion"]))
        if key != "mlp_pooled":
            files[f"{key}_output_code"] = module
            files[f"{key}_fusion"] = fusion_log(records["fusion"])
            for k in kernels:
                files[f"{key}_kernel_{k}"] = kernel_source(module, k)
        summary["programs"][key] = {
            "config_patches": patches,
            "first_call_s": round(seconds, 2),
            "kernels": kernels,
            "extern_calls": re.findall(r"^\s+(extern_kernels\.\w+)\(", module, re.M),
            "memory_log": records["memory"],
        }
        print(f"{key:12s} compiled + first call {seconds:6.2f} s; kernels: {', '.join(kernels)}")
    for name, text in files.items():
        (out / "capture" / f"{name}.txt").write_text(text, encoding="utf-8")
    (out / "capture.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    for line in summary["programs"]["mlp"]["memory_log"]:
        print("  mlp, torch._inductor.memory:", line)
    figures.write_all(out)
    print(f"wrote {len(files)} artifacts, lifetimes.json, capture.json and the figures to {out}")


if __name__ == "__main__":
    main()
