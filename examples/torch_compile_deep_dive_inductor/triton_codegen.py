"""Run Inductor's CUDA code generation (Triton kernels and the wrapper) on a machine without a GPU.

    python examples/torch_compile_deep_dive_inductor/triton_codegen.py [--out DIR]

The post's two functions are compiled for device "cuda:0" with fake input tensors
(FakeTensorMode makes tensors that carry a device, a shape and strides but no memory, so no GPU
is touched). Dynamo, AOTAutograd, the post-grad passes, lowering, the scheduler with the CUDA
backend (CUDACombinedScheduling, which hands every node of these graphs to TritonScheduling) and
the wrapper run as they would on a CUDA machine, and the logged module is kept. Loading that
module is where it stops: its first lines import Triton and a CUDA stream getter, and neither
exists in a CPU-only install. Nothing is compiled for, or run on, a GPU.

Four things need a device or a Triton driver before that point, and this script supplies them
for the duration of the compiles (simulated_cuda_device):

  * the device's properties (SM count, compute capability, ...), asked through Dynamo's
    CudaInterface and, in a few places, torch.cuda directly: the H200's, as its generated kernels
    record them in DeviceProperties(...);
  * Scheduler.create_backend refuses a GPU backend when has_triton() is false (no driver):
    that check is answered True;
  * the Triton backend hash in each kernel's inductor_meta asks the Triton driver for its target:
    it is replaced by a fixed placeholder string;
  * the joint-graph pattern library traces its patterns once with real tensors on the input's
    device: it is traced on the CPU instead (none of those patterns matches these graphs).

Written to DIR (default: the post's folder, cuda/): for each program the module, its call(), the
ir_pre_fusion/ir_post_fusion/fusion logs and the post-grad graph, and summary.json with the
kernels, the backend classes the scheduler created, the reuse planner's decisions and
reorder_for_peak_memory's estimates. The only part of the output that depends on whether the
`triton` package is importable is the signature/configs format in each kernel's triton_meta.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import re
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import capture  # noqa: E402  (sets the cache environment before torch is imported)
import lifetimes  # noqa: E402
import programs  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
from torch._inductor.codegen import wrapper  # noqa: E402

# The H200's properties as its generated kernels record them (DeviceProperties in triton_meta).
H200 = types.SimpleNamespace(
    name="NVIDIA H200", multi_processor_count=132, major=9, minor=0,
    regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048,
    max_threads_per_block=1024, warp_size=32)
BACKEND_HASH = "NO-DRIVER"
ARTIFACTS = ("output_code", "ir_pre_fusion", "ir_post_fusion", "fusion", "post_grad_graphs")


@contextlib.contextmanager
def simulated_cuda_device(props: types.SimpleNamespace = H200):
    """Supply what Inductor asks of a CUDA device and a Triton driver before it loads the module."""
    from torch._dynamo.device_interface import CudaInterface
    from torch._inductor import scheduler
    from torch._inductor.fx_passes import joint_graph

    saved = [(CudaInterface, "get_device_properties", CudaInterface.__dict__["get_device_properties"]),
             (CudaInterface, "get_compute_capability",
              CudaInterface.__dict__["get_compute_capability"]),
             (torch.cuda, "get_device_properties", torch.cuda.get_device_properties),
             (torch.cuda, "get_device_capability", torch.cuda.get_device_capability),
             (scheduler, "has_triton", scheduler.has_triton),
             (torch.utils._triton, "triton_hash_with_backend",
              torch.utils._triton.triton_hash_with_backend),
             (joint_graph, "lazy_init", joint_graph.lazy_init)]
    lazy_init = joint_graph.lazy_init
    CudaInterface.get_device_properties = staticmethod(lambda device=None: props)
    CudaInterface.get_compute_capability = staticmethod(
        lambda device=None: props.major * 10 + props.minor)
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.get_device_capability = lambda device=None: (props.major, props.minor)
    scheduler.has_triton = lambda: True
    torch.utils._triton.triton_hash_with_backend = lambda: BACKEND_HASH
    joint_graph.lazy_init = lambda input_device=None: lazy_init(torch.device("cpu"))
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


@contextlib.contextmanager
def watching_decisions():
    """Record the scheduler's backend classes and the reuse planner's decisions (observe only)."""
    from torch._inductor import scheduler

    seen: dict[str, list] = {"backends": [], "reuse_decisions": []}
    real_create_backend = scheduler.Scheduler.create_backend
    real_should_reuse = wrapper.AllocateLine.should_reuse_buffer

    def create_backend(self, device):
        backend = real_create_backend(self, device)
        inner = getattr(backend, "_triton_scheduling", None)
        seen["backends"].append({"device": str(device), "backend": type(backend).__name__,
                                 "nodes_go_to": type(inner).__name__ if inner else None})
        return backend

    def should_reuse(self, free_line, size):
        answer = real_should_reuse(self, free_line, size)
        estimate = self.wrapper.estimate_peak
        adjacent = free_line.scheduler_node_index + 1 == self.scheduler_node_index
        seen["reuse_decisions"].append({
            "freed": free_line.node.get_name(), "allocated": self.node.get_name(),
            "free_node": free_line.scheduler_node_index, "alloc_node": self.scheduler_node_index,
            "size": size, "adjacent": adjacent, "overall_peak": estimate.overall_peak_memory,
            "peak_between": None if adjacent else estimate.peak_between(free_line, self),
            "reused": answer})
        return answer

    scheduler.Scheduler.create_backend = create_backend
    wrapper.AllocateLine.should_reuse_buffer = should_reuse
    try:
        yield seen
    finally:
        scheduler.Scheduler.create_backend = real_create_backend
        wrapper.AllocateLine.should_reuse_buffer = real_should_reuse


def fake_cuda(tensors: list[torch.Tensor], mode) -> list[torch.Tensor]:
    """Tensors of the same shapes on cuda:0 that have no memory (FakeTensorMode)."""
    with mode:
        return [torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cuda:0")
                for t in tensors]


def generate(fn, inputs: list[torch.Tensor]) -> dict:
    """Compile fn for cuda:0 up to loading the module; return the logs and the decisions."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    torch._dynamo.reset()
    with capture.recording(ARTIFACTS) as rec, watching_decisions() as seen, \
            simulated_cuda_device(), torch.no_grad():
        try:
            torch.compile(fn)(*fake_cuda(inputs, FakeTensorMode()))
        except Exception as exc:  # noqa: BLE001  (the load is expected to fail; see below)
            stopped = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        else:
            raise AssertionError("the CUDA module loaded on a machine without a GPU")
    modules = [m for m in rec.records["output_code"] if m.startswith("Output code:")]
    # The module was written and logged; what failed is importing it (Triton or the CUDA stream
    # getter is missing), not anything before.
    assert len(modules) == 1 and re.search(r"\b(ModuleNotFoundError|ImportError)\b", stopped), stopped
    return {"module": normalise(modules[0]), "stopped_at": stopped, "records": rec.records, **seen}


def normalise(logged: str) -> str:
    """The logged module without its log header and with the per-compile cache folder elided."""
    return re.sub(r"<cache>/tmp\w+/", "<cache>/", capture.normalise(logged.split("\n", 1)[1]))


def write_program(out: Path, key: str, module: str, records: dict[str, list[str]]) -> dict:
    """Write one program's module, call() and logs into OUT; return its summary record."""
    files = {"output_code": module, "call": "\n".join(lifetimes.call_body(module)) + "\n",
             "fusion": capture.fusion_log(records["fusion"])}
    for name in ("ir_pre_fusion", "ir_post_fusion", "post_grad_graphs"):
        files[name] = capture.normalise("\n".join(records[name]))
    for name, text in files.items():
        (out / f"{key}_{name}.txt").write_text(text, encoding="utf-8")
    return {"kernels": list(lifetimes.triton_kernels(module)),
            "extern_calls": re.findall(r"^\s+(extern_kernels\.\w+)\(", module, re.M),
            "memory_log": records["memory"]}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=capture.POST_DIR)
    out = parser.parse_args(argv).out / "cuda"
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"torch": torch.__version__, "device_properties": vars(H200),
                     "triton_importable": importlib.util.find_spec("triton") is not None,
                     "online_softmax": inductor_config.online_softmax, "programs": {}}
    for key, fn, inputs in (("mlp", programs.mlp, programs.mlp_inputs()),
                            ("realize", programs.realize_demo, programs.realize_inputs())):
        got = generate(fn, inputs)
        record = write_program(out, key, got["module"], got["records"])
        summary["programs"][key] = {**record, "backends": got["backends"],
                                    "reuse_decisions": got["reuse_decisions"],
                                    "stopped_at": got["stopped_at"]}
        print(f"{key:8s} kernels: {', '.join(record['kernels'])}")
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(f"wrote the CUDA modules, logs and summary.json to {out}")
    return summary


if __name__ == "__main__":
    main()
