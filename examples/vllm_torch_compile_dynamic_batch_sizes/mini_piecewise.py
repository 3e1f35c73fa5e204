"""A CPU miniature of vLLM's piecewise torch.compile backend (modelled, not vLLM's code).

One Dynamo capture with the token dimension marked dynamic and every guard dropped; the FX
graph split at a chosen "attention" custom op; each piece compiled by Inductor once for the
general (symbolic) size and once per entry of ``compile_sizes``; and a dispatcher that pads a
batch to the next capture size. The names follow vLLM v0.33.0 (support_torch_compile,
VllmBackend, split_graph, PiecewiseBackend, CudagraphDispatcher); the code is our own.
CUDA graphs cannot be captured on a CPU, so a "captured graph" here is a record of the
padded size it was captured for, replayed by calling the pieces with the padded batch.

Run it:  python examples/vllm_torch_compile_dynamic_batch_sizes/mini_piecewise.py
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from dataclasses import dataclass, field

import torch
import torch.fx as fx
from torch.fx.passes.split_module import split_module

# --8<-- [start:op]
# The splitting ops. vLLM's attention layer calls two custom ops, opaque to Dynamo, one after
# the other: vllm::unified_kv_cache_update writes this step's keys and values into the paged
# cache, then vllm::unified_attention_with_output reads the cache. Both are splitting ops by
# default. Ours keep the cache in a dict keyed by layer name, and the update returns an empty
# dummy that attention takes as an argument, so nothing can reorder the two. Attention is
# causal over the token axis: a padded token at the end of the batch cannot change the rows
# of the real tokens before it.
KV_CACHE: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}


@torch.library.custom_op("minivllm::kv_cache_update", mutates_args=())
def kv_cache_update(k: torch.Tensor, v: torch.Tensor, layer_name: str) -> torch.Tensor:
    KV_CACHE[layer_name] = (k.clone(), v.clone())
    return k.new_empty(0)


@kv_cache_update.register_fake
def _(k, v, layer_name):
    return k.new_empty(0)


@torch.library.custom_op("minivllm::attention", mutates_args=())
def attention(q: torch.Tensor, layer_name: str, kv_dep: torch.Tensor) -> torch.Tensor:
    k, v = KV_CACHE[layer_name]
    n = q.shape[0]
    scores = (q @ k.T) / q.shape[-1] ** 0.5
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    return scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v


@attention.register_fake
def _(q, layer_name, kv_dep):
    return torch.empty_like(q)


SPLITTING_OPS = ["minivllm::kv_cache_update", "minivllm::attention"]  # vLLM's default pair
# --8<-- [end:op]


class Layer(torch.nn.Module):
    def __init__(self, d: int, name: str):
        super().__init__()
        self.name = name
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.SiLU(),
                                       torch.nn.Linear(2 * d, d))
        self.norm1 = torch.nn.RMSNorm(d)
        self.norm2 = torch.nn.RMSNorm(d)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        dep = torch.ops.minivllm.kv_cache_update(k, v, self.name)
        x = x + self.out(torch.ops.minivllm.attention(q, self.name, dep))
        return x + self.mlp(self.norm2(x))


class TinyModel(torch.nn.Module):
    """A two-layer decoder body: input [num_tokens, d] -> output [num_tokens, d]."""

    def __init__(self, d: int = 32, layers: int = 2):
        super().__init__()
        torch.manual_seed(0)
        self.layers = torch.nn.ModuleList(Layer(d, f"layers.{i}") for i in range(layers))
        self.final = torch.nn.RMSNorm(d)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final(x)


# --8<-- [start:split]
def should_split(node: fx.Node, splitting_ops: list[str]) -> bool:
    """Our analogue of vllm/compilation/partition_rules.py should_split."""
    target = node.target
    if node.op != "call_function" or not isinstance(target, (torch._ops.OpOverload,
                                                             torch._ops.OpOverloadPacket)):
        return False
    packet = target._qualified_op_name if isinstance(target, torch._ops.OpOverloadPacket) \
        else target.name()
    return packet in splitting_ops


@dataclass
class Piece:
    name: str
    graph_id: int
    is_splitting_graph: bool
    module: fx.GraphModule


def split_at(gm: fx.GraphModule, splitting_ops: list[str]) -> tuple[fx.GraphModule, list[Piece]]:
    """Give every node a subgraph id; a splitting op gets an id of its own, shared with the
    splitting ops directly after it (a KV-cache update and its attention: one piece)."""
    sid, ids, split_ids = 0, {}, []
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if node.op == "call_function" and node.target is operator.getitem \
                and node.args[0].op != "placeholder":
            ids[node] = ids[node.args[0]]      # a getitem stays with the tuple it reads
            continue
        if should_split(node, splitting_ops):
            sid += 1
            ids[node] = sid
            split_ids.append(sid)
            # Back to back: step back, so the next splitting op gets this same id.
            sid += -1 if should_split(node.next, splitting_ops) else 1
        else:
            ids[node] = sid
    split_gm = split_module(gm, None, lambda n: ids[n], keep_original_order=True)
    pieces = [Piece(name, int(name.split("_")[1]), int(name.split("_")[1]) in split_ids, mod)
              for name, mod in split_gm.named_children()]
    return split_gm, sorted(pieces, key=lambda p: p.graph_id)
# --8<-- [end:split]


# --8<-- [start:piecewise]
class PiecewisePiece:
    """One compiled piece: a general-shape Inductor artifact plus one per compile size,
    all compiled up front, chosen at call time by the runtime token count (the SymInt
    argument that Dynamo threads into every piece)."""

    def __init__(self, module: fx.GraphModule, fake_args: list, compile_sizes: list[int],
                 log: list[tuple[str, object]], name: str):
        from torch._inductor import standalone_compile
        self.sym_index = next(i for i, a in enumerate(fake_args) if isinstance(a, torch.SymInt))
        # The general shape: compile from the graph's own symbolic shapes.
        self.general = standalone_compile(module, fake_args, dynamic_shapes="from_graph")
        log.append((name, "general"))
        self.by_size = {}
        for size in compile_sizes:
            # A concrete size: fresh inputs of that size, so Inductor specialises on it.
            concrete = [size if isinstance(a, torch.SymInt) else _concrete(a, size)
                        for a in fake_args]
            self.by_size[size] = standalone_compile(module, concrete,
                                                    dynamic_shapes="from_example_inputs")
            log.append((name, size))
        self.calls: list[tuple[int, str]] = []

    def __call__(self, *args):
        n = args[self.sym_index]
        choice = artifact_for(n, list(self.by_size))
        self.calls.append((n, choice))
        out = (self.general if choice == "general" else self.by_size[n])(*args)
        return out[0] if isinstance(out, (tuple, list)) and len(out) == 1 else out


def artifact_for(n: int, compile_sizes: list[int], max_num_batched_tokens: int | None = None):
    """Which artifact serves n tokens: its own compile size if it has one, else the general
    one (vLLM's range [1, max_num_batched_tokens]); None past that range."""
    if max_num_batched_tokens is not None and not 1 <= n <= max_num_batched_tokens:
        return None
    return f"size {n}" if n in compile_sizes else "general"


def _concrete(fake, size: int):
    if not isinstance(fake, torch.Tensor):
        return fake
    shape = [size if isinstance(d, torch.SymInt) else int(d) for d in fake.shape]
    return torch.zeros(shape, dtype=fake.dtype)
# --8<-- [end:piecewise]


# --8<-- [start:backend]
@dataclass
class MiniBackend:
    """Our analogue of VllmBackend: called once by Dynamo with the whole graph."""

    splitting_ops: list[str]
    compile_sizes: list[int] = field(default_factory=list)
    calls: int = 0
    compile_log: list = field(default_factory=list)
    pieces: dict = field(default_factory=dict)
    split_gm: fx.GraphModule | None = None

    def __call__(self, gm: fx.GraphModule, example_inputs):
        self.calls += 1
        self.split_gm, items = split_at(gm, self.splitting_ops)
        # Run the split graph on the fake inputs, like vLLM's PiecewiseCompileInterpreter,
        # to learn each piece's (symbolic) inputs, then swap the piece for its compiled form.
        fakes = [n.meta["example_value"] for n in gm.graph.find_nodes(op="placeholder")]
        compile_names = {p.name for p in items if not p.is_splitting_graph}
        backend = self

        class Interp(fx.Interpreter):
            def call_module(self, target, args, kwargs):
                sub = getattr(self.module, target)
                out = fx.map_arg(sub.graph.output_node().args[0], lambda n: n.meta["example_value"])
                if target in compile_names:
                    backend.pieces[target] = PiecewisePiece(sub, list(args), backend.compile_sizes,
                                                            backend.compile_log, target)
                    self.module.__dict__[target] = backend.pieces[target]
                return out

        Interp(self.split_gm).run(*fakes)
        return self.split_gm
# --8<-- [end:backend]


# --8<-- [start:wrap]
def compile_like_vllm(model: torch.nn.Module, example: torch.Tensor, backend: MiniBackend,
                      drop_guards: bool = True):
    """What @support_torch_compile arranges: dynamic=False for everything except the
    token dimension, which is marked dynamic on the first call; fullgraph=True; and a
    guard filter that keeps no guard at all, so Dynamo never traces the model again."""
    options = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe} if drop_guards else {}
    compiled = torch.compile(model, fullgraph=True, dynamic=False, backend=backend,
                             options=options)
    torch._dynamo.mark_dynamic(example, 0)
    with torch.no_grad():
        compiled(example)
    return compiled
# --8<-- [end:wrap]


# --8<-- [start:sizes]
def default_capture_sizes(max_num_seqs: int, max_num_batched_tokens: int,
                          max_capture_size: int | None = None, uniform_decode_query_len: int = 1,
                          blackwell: bool = False) -> list[int]:
    """Our port of the default cudagraph_capture_sizes rule of vLLM v0.33.0
    (VllmConfig._set_cudagraph_sizes), for performance_mode="balanced" and
    uniform_decode_query_len=1 only. tests/ checks it against the wheel's own code."""
    assert uniform_decode_query_len == 1, "speculative decoding is not modelled"
    decode_sizes: list[int] = []
    if max_capture_size is None:
        ceiling = 1024 if blackwell else 512
        max_capture_size = min(max_num_seqs * 2, ceiling)
        if max_num_seqs <= max_capture_size:
            decode_sizes = [max_num_seqs]
    max_capture_size = min(max_num_batched_tokens, max_capture_size)
    sizes = [s for s in (1, 2, 4) if s <= max_capture_size]
    sizes += list(range(8, min(max_capture_size + 1, 256), 8))
    sizes += list(range(256, max_capture_size + 1, 16))
    if max_num_batched_tokens <= max_capture_size:
        sizes.append(max_num_batched_tokens)
    sizes += [s for s in decode_sizes if s <= max_num_batched_tokens]
    return sorted(set(sizes))


def padded_size(num_tokens: int, capture_sizes: list[int]) -> int | None:
    """The smallest capture size >= num_tokens, or None (run without a graph)."""
    i = bisect_left(capture_sizes, num_tokens)
    return capture_sizes[i] if i < len(capture_sizes) else None
# --8<-- [end:sizes]


# --8<-- [start:dispatch]
@dataclass
class MiniDispatcher:
    """Pads a batch to the next capture size and 'replays' the graph captured for it.
    On a GPU the replay would be a CUDA graph launch; here it is a call of the compiled
    pieces with the padded batch, recorded so tests can see which path ran."""

    compiled: object
    capture_sizes: list[int]
    captured: set = field(default_factory=set)
    log: list = field(default_factory=list)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        size = padded_size(n, self.capture_sizes)
        if size is None:                         # above the largest capture size: eager pieces
            self.log.append((n, "NONE", n))
            return self.compiled(x)
        mode = "replay" if size in self.captured else "capture"
        self.captured.add(size)
        self.log.append((n, mode, size))
        padded = torch.cat([x, x.new_zeros(size - n, *x.shape[1:])])
        return self.compiled(padded)[:n]
# --8<-- [end:dispatch]


# CUDAGraphMode's members as (decode mode, mixed mode), as in vllm/config/compilation.py.
GRAPH_MODES = {"NONE": ("NONE", "NONE"), "PIECEWISE": ("PIECEWISE", "PIECEWISE"),
               "FULL": ("FULL", "FULL"), "FULL_DECODE_ONLY": ("FULL", "NONE"),
               "FULL_AND_PIECEWISE": ("FULL", "PIECEWISE")}


def runtime_mode(num_tokens: int, capture_sizes: list[int], cudagraph_mode: str,
                 uniform_decode: bool, max_num_seqs: int) -> tuple[str, int]:
    """(runtime mode, token count the pieces see) for one step, our port of
    CudagraphDispatcher.dispatch without speculative decoding or LoRA: a FULL decode graph
    exists for a uniform decode batch up to max_num_seqs tokens, else the mixed mode's graph
    serves it, else the step runs without a graph on its real count."""
    size = padded_size(num_tokens, capture_sizes)
    decode, mixed = GRAPH_MODES[cudagraph_mode]
    if size is None:
        return "NONE", num_tokens
    if uniform_decode and decode == "FULL" and size <= max_num_seqs:
        return "FULL", size
    return (mixed, size) if mixed != "NONE" else ("NONE", num_tokens)


def main() -> None:
    torch._dynamo.reset()
    model = TinyModel().eval()
    backend = MiniBackend(SPLITTING_OPS, compile_sizes=[4])
    compiled = compile_like_vllm(model, torch.randn(16, 32), backend)
    print(f"Dynamo graphs handed to the backend: {backend.calls}")
    def label(name, mod):
        if name in backend.pieces:
            return name
        ops = [n.target._qualified_op_name.split("::")[1] for n in mod.graph.nodes
               if n.op == "call_function"]
        return f"{name} (split: {' + '.join(ops)})"

    print("pieces:", ", ".join(label(*child) for child in backend.split_gm.named_children()))
    print("Inductor compiles:", backend.compile_log)
    sizes = default_capture_sizes(max_num_seqs=8, max_num_batched_tokens=16)
    print("capture sizes:", sizes)
    disp = MiniDispatcher(compiled, sizes)
    with torch.no_grad():
        for n in (3, 3, 4, 13, 20, 1):
            x = torch.randn(n, 32)
            torch.testing.assert_close(disp(x), model(x), rtol=1e-4, atol=1e-4)
    for n, mode, size in disp.log:
        print(f"  batch {n:2d} -> {mode:7s} size {size}")
    print("piece submod_0 ran as:", backend.pieces["submod_0"].calls[-6:])
    print(f"Dynamo graphs after all batches: {backend.calls}")


if __name__ == "__main__":
    main()
