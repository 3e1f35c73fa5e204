"""Compile the post's two functions with Inductor on a real CUDA GPU and keep what it generated.

    python examples/torch_compile_deep_dive_inductor/cuda_capture.py [--out DIR]

Needs a CUDA device and a CUDA build of torch with its Triton; it refuses to start without them.
The same compiles as triton_codegen.py (mlp and realize_demo, the inputs of programs.py moved to
cuda:0, under torch.no_grad(), every Inductor cache disabled), but run for real: the kernels are
compiled by Triton and launched, and each compiled result is checked against eager. Written to
DIR/cuda-device/ (default DIR: the post's folder), in the layout triton_codegen.py uses for its
simulated device, so the two can be compared file by file: for each program the module, its
call(), the ir_pre_fusion/ir_post_fusion/fusion logs and the post-grad graph, and summary.json
with the versions, the device, the kernels, the reuse planner's decisions and the largest
difference from eager.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import capture  # noqa: E402  (sets the cache environment before torch is imported)
import programs  # noqa: E402
import torch  # noqa: E402
import triton_codegen  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=capture.POST_DIR)
    return parser.parse_args(argv)


def device_summary() -> dict:
    """The versions and the device, as the summary records them (needs CUDA)."""
    import triton

    props = torch.cuda.get_device_properties(0)
    return {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
            "gpu": props.name, "sms": props.multi_processor_count,
            "cc": f"{props.major}.{props.minor}"}


def run_program(fn, inputs: list[torch.Tensor]) -> dict:
    """Compile and run fn on cuda:0; return the module, the logs, the decisions and the error."""
    torch._dynamo.reset()
    cuda_inputs = [t.to("cuda:0") for t in inputs]
    with capture.recording(triton_codegen.ARTIFACTS) as rec, \
            triton_codegen.watching_decisions() as seen, torch.no_grad():
        got = torch.compile(fn)(*cuda_inputs)
        want = fn(*cuda_inputs)
    got, want = ((x,) if isinstance(x, torch.Tensor) else x for x in (got, want))
    error = max(float((g - w).abs().max()) for g, w in zip(got, want, strict=True))
    modules = [m for m in rec.records["output_code"] if m.startswith("Output code:")]
    assert len(modules) == 1, len(modules)
    return {"module": triton_codegen.normalise(modules[0]), "records": rec.records,
            "max_abs_err_vs_eager": error, **seen}


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("cuda_capture.py needs a CUDA device and a CUDA build of torch; "
                         "triton_codegen.py writes the same files without one")
    out = args.out / "cuda-device"
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {**device_summary(), "programs": {}}
    for key, fn, inputs in (("mlp", programs.mlp, programs.mlp_inputs()),
                            ("realize", programs.realize_demo, programs.realize_inputs())):
        got = run_program(fn, inputs)
        record = triton_codegen.write_program(out, key, got["module"], got["records"])
        summary["programs"][key] = {**record, "backends": got["backends"],
                                    "reuse_decisions": got["reuse_decisions"],
                                    "max_abs_err_vs_eager": got["max_abs_err_vs_eager"]}
        print(f"{key:8s} kernels: {', '.join(record['kernels'])}; "
              f"max |compiled - eager| = {got['max_abs_err_vs_eager']:.3g}")
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(f"wrote the modules, logs and summary.json to {out}")
    return summary


if __name__ == "__main__":
    main()
