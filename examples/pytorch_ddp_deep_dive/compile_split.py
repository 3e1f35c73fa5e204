"""torch.compile on a DDP model: where DDPOptimizer cuts the graph; what compiled autograd needs.

Run:  python examples/pytorch_ddp_deep_dive/compile_split.py

Two gloo ranks on 127.0.0.1. To keep this fast on a CPU we never run Inductor: a counting
backend (records each FX graph it is given, then runs it as is) shows how many graphs Dynamo
hands to the backend and which parameters each one owns; the compiled-autograd runs use
``backend="eager"``. The splitting logic is the same whatever the backend.
"""

import re
import sys
from pathlib import Path

import torch
import torch._dynamo
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from buckets import Tower  # noqa: E402
from launch import run_ranks  # noqa: E402

_LAYER = re.compile(r"modules_(\d+)_parameters_(weight|bias)")


def layers_per_graph(graphs: list[torch.fx.GraphModule]) -> list[list[int]]:
    """For each FX graph given to the backend: the layer indices whose parameters it reads."""
    out = []
    for gm in graphs:
        found = {int(m.group(1)) for n in gm.graph.nodes if n.op == "placeholder"
                 for m in [_LAYER.search(n.name)] if m}
        out.append(sorted(found))
    return out


def split_case(rank: int, cap_mb: float | None, optimize_ddp: bool,
               model: str = "Tower", wrap: str = "compile(DDP(m))") -> dict:
    torch._dynamo.reset()
    torch._dynamo.config.optimize_ddp = optimize_ddp
    graphs: list[torch.fx.GraphModule] = []

    def counting_backend(gm: torch.fx.GraphModule, example_inputs: list) -> object:
        graphs.append(gm)
        return gm.forward

    torch.manual_seed(0)
    kwargs = {} if cap_mb is None else {"bucket_cap_mb": cap_mb}
    m = Tower() if model == "Tower" else torch.nn.Sequential(*Tower().layers)
    if wrap == "compile(DDP(m))":
        ddp = DDP(m, **kwargs)
        compiled = torch.compile(ddp, backend=counting_backend)
    else:  # "DDP(compile(m))"
        ddp = DDP(torch.compile(m, backend=counting_backend), **kwargs)
        compiled = ddp
    x = torch.randn(8, 512, generator=torch.Generator().manual_seed(rank))
    try:
        for _ in range(3):
            compiled(x).sum().backward()
    except Exception as e:  # noqa: BLE001 - we report the exact failure
        return {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
    log = ddp._get_ddp_logging_data()  # internal: DDP's own runtime buckets after the rebuild
    ddp_buckets = [sorted({int(i) // 2 for i in b.split()})
                   for b in log["rebuilt_per_bucket_param_indices"].split(",")]
    return {"graphs": layers_per_graph(graphs), "ddp_buckets_as_layers": sorted(ddp_buckets)}


def compiled_autograd_case(rank: int, mode: str) -> dict:
    """Backward inside the compiled region with compiled autograd turned on."""
    torch._dynamo.reset()
    torch._dynamo.config.optimize_ddp = mode  # read by DDP.__init__: set it before wrapping
    torch._dynamo.config.compiled_autograd = True
    try:
        torch.manual_seed(0)
        ddp = DDP(Tower(depth=2), bucket_cap_mb=1)

        @torch.compile(backend="eager")
        def step(x: torch.Tensor) -> torch.Tensor:
            loss = ddp(x).sum()
            loss.backward()
            return loss

        x = torch.randn(8, 512, generator=torch.Generator().manual_seed(rank))
        try:
            step(x)
        except Exception as e:  # noqa: BLE001
            return {"error": f"{type(e).__name__}: {e}".splitlines()[0],
                    "python_reducer": ddp._use_python_reducer}
        g = ddp.module.layers[0].weight.grad
        gathered = [torch.empty_like(g) for _ in range(dist.get_world_size())]
        dist.all_gather(gathered, g)
        # Reference: the same step in eager mode on the same global batch.
        torch.manual_seed(0)
        ref = Tower(depth=2)
        xs = torch.cat([torch.randn(8, 512, generator=torch.Generator().manual_seed(r))
                        for r in range(dist.get_world_size())])
        (ref(xs).sum() / dist.get_world_size()).backward()
        return {"python_reducer": ddp._use_python_reducer,
                "grads_equal_across_ranks": bool(torch.equal(gathered[0], gathered[1])),
                "matches_eager_reference": bool(torch.allclose(g, ref.layers[0].weight.grad,
                                                               atol=1e-5))}
    finally:
        torch._dynamo.config.compiled_autograd = False


def per_rank(rank: int, world_size: int) -> dict:
    out = {}
    for cap in (None, 1, 2, 0.5):
        out[f"bucket_cap_mb={cap}"] = split_case(rank, cap, optimize_ddp=True)
    out["optimize_ddp=False (bucket_cap_mb=1)"] = split_case(rank, 1, optimize_ddp=False)
    # A bare torch.nn container as the wrapped module: compiling the DDP wrapper compiles
    # nothing (Dynamo skips torch.nn frames it meets at the top level); compiling the
    # module first and wrapping it works.
    out["compile(DDP(nn.Sequential)) (bucket_cap_mb=1)"] = split_case(
        rank, 1, True, "Sequential", "compile(DDP(m))")
    out["DDP(compile(nn.Sequential)) (bucket_cap_mb=1)"] = split_case(
        rank, 1, True, "Sequential", "DDP(compile(m))")
    out["compiled_autograd+ddp_optimizer"] = compiled_autograd_case(rank, "ddp_optimizer")
    out["compiled_autograd+python_reducer"] = compiled_autograd_case(rank, "python_reducer")
    return out


def check(r: dict) -> None:
    # Default caps (first bucket 1 MiB, then 25 MiB): two graphs, matching DDP's two buckets.
    assert r["bucket_cap_mb=None"]["graphs"] == [[0, 1, 2], [3]]
    assert r["bucket_cap_mb=None"]["ddp_buckets_as_layers"] == [[0, 1, 2], [3]]
    # 1 MiB buckets: one graph per layer, one DDP bucket per layer.
    assert r["bucket_cap_mb=1"]["graphs"] == [[0], [1], [2], [3]]
    assert r["bucket_cap_mb=1"]["ddp_buckets_as_layers"] == [[0], [1], [2], [3]]
    # 2 MiB buckets: DDP uses 2 MiB for its first bucket too, DDPOptimizer still uses 1 MiB,
    # so the graph cuts no longer line up with DDP's buckets.
    assert r["bucket_cap_mb=2"]["ddp_buckets_as_layers"] == [[0, 1], [2, 3]]
    assert r["bucket_cap_mb=2"]["graphs"] == [[0], [1, 2], [3]]
    # Caps below DDPOptimizer's 1 MiB first bucket are rejected at compile time.
    assert "First bucket should be smaller/equal" in r["bucket_cap_mb=0.5"]["error"]
    # optimize_ddp=False: one graph, whatever the buckets.
    assert r["optimize_ddp=False (bucket_cap_mb=1)"]["graphs"] == [[0, 1, 2, 3]]
    assert r["compile(DDP(nn.Sequential)) (bucket_cap_mb=1)"]["graphs"] == []
    assert r["DDP(compile(nn.Sequential)) (bucket_cap_mb=1)"]["graphs"] == [[0], [1], [2], [3]]
    # Compiled autograd cannot run the C++ Reducer's hooks ...
    assert "Compiled autograd is not compatible with C++ DDP Reducer" in \
        r["compiled_autograd+ddp_optimizer"]["error"]
    # ... the Python reducer (per-parameter functional all_reduce) can.
    pr = r["compiled_autograd+python_reducer"]
    assert pr["python_reducer"] and pr["grads_equal_across_ranks"] and pr["matches_eager_reference"]


def main() -> None:
    results = run_ranks(per_rank)
    for r in results:
        check(r)
    for name, v in results[0].items():
        print(f"{name}:")
        for k, val in v.items():
            print(f"  {k}: {val}")
    print("all compile checks passed on both ranks")


if __name__ == "__main__":
    main()
