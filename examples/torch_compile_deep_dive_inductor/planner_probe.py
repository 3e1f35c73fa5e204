"""Watch the wrapper's two memory planners decide, for the post's mlp.

    python examples/torch_compile_deep_dive_inductor/planner_probe.py

Compiles mlp twice with every Inductor cache disabled: once with the default reuse planner, with
AllocateLine.should_reuse_buffer wrapped so that each decision is recorded with the numbers it
was made on (EfficientPeakEstimate's overall peak and its peak between the free and the
allocation), and once with config.memory_planning=True, with MemoryPlanner.allocate_groups
wrapped so that each BufferGroup's names, live range, pool and offset are recorded. Prints one
JSON object per line (decisions first, then groups); nothing is written to disk. The wrappers
call the real functions and only observe.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"   # must be set before torch is imported
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-planner-probe-")
sys.path.insert(0, str(HERE))

import programs  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
from torch._inductor.codegen import memory_planning, wrapper  # noqa: E402


def probe() -> dict:
    decisions: list[dict] = []
    groups: list[dict] = []
    real_should_reuse = wrapper.AllocateLine.should_reuse_buffer
    real_allocate_groups = memory_planning.MemoryPlanner.allocate_groups

    def should_reuse(self, free_line, size):
        answer = real_should_reuse(self, free_line, size)
        estimate = self.wrapper.estimate_peak
        adjacent = free_line.scheduler_node_index + 1 == self.scheduler_node_index
        decisions.append({
            "freed": free_line.node.get_name(), "allocated": self.node.get_name(),
            "free_node": free_line.scheduler_node_index,
            "alloc_node": self.scheduler_node_index, "size": size, "adjacent": adjacent,
            "overall_peak": estimate.overall_peak_memory,
            "peak_between": None if adjacent else estimate.peak_between(free_line, self),
            "reused": answer})
        return answer

    def allocate_groups(self):
        real_allocate_groups(self)
        for group in self.buffer_groups:
            groups.append({
                "names": list(group.names), "is_output": group.is_output,
                "live_range": [group.live_range.begin, group.live_range.end],
                "pool": group.allocation.pool.name, "offset": int(group.allocation.offset)})

    wrapper.AllocateLine.should_reuse_buffer = should_reuse
    memory_planning.MemoryPlanner.allocate_groups = allocate_groups
    try:
        with torch.no_grad():
            for pooled in (False, True):
                torch._dynamo.reset()
                with inductor_config.patch(memory_planning=pooled):
                    torch.compile(programs.mlp)(*programs.mlp_inputs())
    finally:
        wrapper.AllocateLine.should_reuse_buffer = real_should_reuse
        memory_planning.MemoryPlanner.allocate_groups = real_allocate_groups
    return {"reuse_decisions": decisions, "pool_groups": groups}


if __name__ == "__main__":
    for kind, records in probe().items():
        for record in records:
            print(json.dumps({"kind": kind, **record}))
