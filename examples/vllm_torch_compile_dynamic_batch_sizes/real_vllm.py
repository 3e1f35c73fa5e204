"""Run vLLM v0.33.0's own functions, taken from the release wheel, on the CPU.

vLLM cannot be imported without its GPU dependencies, and ``import vllm.config`` alone pulls in
dozens of packages. The functions this post compares against are plain Python, though, so we
read their source out of the wheel (``pip download --no-deps vllm==0.33.0``), cut out each
function or class with ``ast`` exactly as released, and execute it with small stand-ins for
the names it imports (a logger, ``current_platform``). Nothing is edited: the bodies that run
are the wheel's bytes. The wheel is cached outside the repository (VLLM_WHEEL_CACHE, default
~/.cache/ml-systems-blog/vllm-0.33.0).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import logging
import operator
import os
import subprocess
import sys
import textwrap
import types
import zipfile
from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path

VERSION = "0.33.0"


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "ml-systems-blog" / f"vllm-{VERSION}"
    return Path(os.environ.get("VLLM_WHEEL_CACHE", default))


def wheel(download: bool = True) -> Path:
    folder = cache_dir()
    found = sorted(folder.glob(f"vllm-{VERSION}-*.whl"))
    if not found and download:
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        f"vllm=={VERSION}", "-d", str(folder)], check=True)
        found = sorted(folder.glob(f"vllm-{VERSION}-*.whl"))
    if not found:
        raise FileNotFoundError(f"no vllm-{VERSION} wheel in {folder}")
    return found[0]


@functools.cache
def source(path: str) -> str:
    """The text of one file of the wheel, e.g. 'vllm/config/vllm.py'."""
    with zipfile.ZipFile(wheel()) as zf:
        return zf.read(path).decode()


def _find(tree: ast.Module, qualname: str) -> ast.AST:
    node: ast.AST = tree
    for part in qualname.split("."):
        node = next(n for n in node.body  # type: ignore[attr-defined]
                    if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part)
    return node


@functools.cache
def segment(path: str, qualname: str) -> tuple[str, int, int]:
    """Source of one function or class (decorators included), with its 1-based line span."""
    text = source(path)
    node = _find(ast.parse(text), qualname)
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    lines = text.splitlines()[start - 1: node.end_lineno]
    return textwrap.dedent("\n".join(lines)), start, node.end_lineno


def load(path: str, qualname: str, namespace: dict):
    code, start, _ = segment(path, qualname)
    # Keep the wheel's line numbers in tracebacks.
    exec(compile("\n" * (start - 1) + code, f"<vllm-{VERSION}>/{path}", "exec"), namespace)
    return namespace[qualname.rsplit(".", 1)[-1]]


LOG = logging.getLogger("real_vllm")
LOG.addHandler(logging.NullHandler())
LOG.warning_once = LOG.warning  # type: ignore[attr-defined]
LOG.info_once = LOG.info  # type: ignore[attr-defined]
LOG.debug_once = LOG.debug  # type: ignore[attr-defined]


def base_namespace() -> dict:
    ns = {"__name__": "real_vllm_exec", "enum": enum, "dataclass": dataclass,
          "dataclasses": dataclasses, "replace": replace, "product": product,
          "AbstractSet": AbstractSet, "logger": LOG, "operator": operator,
          "defaultdict": defaultdict}
    sys.modules.setdefault("real_vllm_exec", types.ModuleType("real_vllm_exec"))
    sys.modules["real_vllm_exec"].__dict__.update(ns)  # dataclasses look the module up
    ns = sys.modules["real_vllm_exec"].__dict__
    ns["CUDAGraphMode"] = load("vllm/config/compilation.py", "CUDAGraphMode", ns)
    ns["Range"] = load("vllm/config/utils.py", "Range", ns)
    ns["BatchDescriptor"] = load("vllm/forward_context.py", "BatchDescriptor", ns)
    return ns


class _Platform:
    def __init__(self, blackwell: bool):
        self.blackwell = blackwell

    def is_device_capability_family(self, family: int) -> bool:
        return self.blackwell and family == 100


@dataclass
class Compilation:
    """Stand-in for CompilationConfig carrying the fields the real methods read."""

    cudagraph_mode: object
    cudagraph_capture_sizes: list[int] | None = None
    max_cudagraph_capture_size: int | None = None
    compile_sizes: list | None = None
    compile_ranges_endpoints: list[int] | None = None
    cudagraph_specialize_lora: bool = True
    pass_config: object = dataclasses.field(default_factory=lambda: types.SimpleNamespace(
        fuse_allreduce_rms=False, fuse_rope_kvcache=False, fuse_qk_norm_rope_kvcache=False))


def real_config(max_num_seqs: int, max_num_batched_tokens: int, *, cudagraph_mode: str =
                "FULL_AND_PIECEWISE", capture_sizes: list[int] | None = None,
                max_capture_size: int | None = None, compile_sizes: list | None = None,
                blackwell: bool = False, performance_mode: str = "balanced"):
    """Run the real VllmConfig._set_cudagraph_sizes and _set_compile_ranges (and, through
    them, CompilationConfig.post_init_cudagraph_sizes) on a stand-in config object."""
    ns = base_namespace()
    mode = ns["CUDAGraphMode"][cudagraph_mode]
    cc = Compilation(mode, capture_sizes, max_capture_size, compile_sizes)
    for name in ("post_init_cudagraph_sizes", "get_compile_ranges"):
        setattr(Compilation, name, load("vllm/config/compilation.py", f"CompilationConfig.{name}", ns))
    cfg = types.SimpleNamespace(
        model_config=types.SimpleNamespace(enforce_eager=False),
        compilation_config=cc,
        scheduler_config=types.SimpleNamespace(max_num_seqs=max_num_seqs,
                                               max_num_batched_tokens=max_num_batched_tokens),
        uniform_decode_query_len=1, speculative_config=None, performance_mode=performance_mode,
        num_speculative_tokens=0, lora_config=None)
    fake_platforms = types.ModuleType("vllm.platforms")
    fake_platforms.current_platform = _Platform(blackwell)
    saved = {k: sys.modules.get(k) for k in ("vllm", "vllm.platforms")}
    sys.modules.setdefault("vllm", types.ModuleType("vllm"))
    sys.modules["vllm.platforms"] = fake_platforms
    try:
        load("vllm/config/vllm.py", "VllmConfig._set_cudagraph_sizes", ns)(cfg)
        load("vllm/config/vllm.py", "VllmConfig._set_compile_ranges", ns)(cfg)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return cfg, ns


def real_dispatcher(cfg, ns):
    """A CudagraphDispatcher built from the real methods (its __init__ imports GPU-only
    modules, so the handful of attributes it sets are set here by hand)."""
    methods = {name: load("vllm/v1/cudagraph_dispatcher.py", f"CudagraphDispatcher.{name}", ns)
               for name in ("_compute_bs_to_padded_graph_size", "_get_lora_cases",
                            "_create_padded_batch_descriptor", "add_cudagraph_key",
                            "initialize_cudagraph_keys", "dispatch")}
    cls = type("CudagraphDispatcher", (), methods)
    d = cls()
    mode = ns["CUDAGraphMode"]
    d.vllm_config = cfg
    d.compilation_config = cfg.compilation_config
    d.uniform_decode_query_len = 1 + cfg.num_speculative_tokens
    d.cudagraph_keys = {mode.PIECEWISE: set(), mode.FULL: set()}
    d.keys_initialized = False
    d.specialize_lora_count = False
    d.cudagraph_mode = mode.NONE
    d.initialize_cudagraph_keys(cfg.compilation_config.cudagraph_mode, d.uniform_decode_query_len)
    return d


def real_resolve_mode(cudagraph_mode: str, support: str, *, attention_split: bool) -> str:
    """CompilationConfig.resolve_cudagraph_mode_and_sizes for one attention backend's
    AttentionCGSupport level (by name), in mode VLLM_COMPILE without speculative decoding:
    the graph mode it settles on, by name (a ValueError propagates)."""
    ns = base_namespace()
    ns["CompilationMode"] = load("vllm/config/compilation.py", "CompilationMode", ns)
    ns["Enum"] = enum.Enum
    levels = load("vllm/v1/attention/backend.py", "AttentionCGSupport", ns)
    cc = types.SimpleNamespace(
        cudagraph_mode=ns["CUDAGraphMode"][cudagraph_mode], mode=ns["CompilationMode"].VLLM_COMPILE,
        use_inductor_graph_partition=False,
        splitting_ops_contain_attention=lambda: attention_split)
    fake = types.ModuleType("vllm.v1.attention.backend")
    fake.AttentionCGSupport = levels
    saved = sys.modules.get(fake.__name__)
    sys.modules[fake.__name__] = fake
    try:
        fn = load("vllm/config/compilation.py", "CompilationConfig.resolve_cudagraph_mode_and_sizes", ns)
        return fn(cc, levels[support], "TestBackend", use_v2_model_runner=True).name
    finally:
        if saved is None:
            sys.modules.pop(fake.__name__, None)
        else:
            sys.modules[fake.__name__] = saved


def real_find_range(cfg, ns, runtime_shape: int):
    """PiecewiseBackend._find_range_for_shape on the real compile ranges and sizes."""
    fn = load("vllm/compilation/piecewise_backend.py", "PiecewiseBackend._find_range_for_shape", ns)
    cc = cfg.compilation_config
    Range = ns["Range"]
    self = types.SimpleNamespace(compile_sizes=cc.compile_sizes,
                                 compile_ranges=cc.get_compile_ranges())
    self.range_entries = {r: r for r in self.compile_ranges}
    self.range_entries.update({Range(s, s): Range(s, s) for s in cc.compile_sizes})
    return fn(self, runtime_shape)


def real_split_graph():
    """vllm.compilation.backends.split_graph and the helpers it calls, from the wheel."""
    import torch
    import torch.fx as fx
    from torch.fx._lazy_graph_module import _use_lazy_graph_module
    ns = base_namespace()
    ns.update(torch=torch, fx=fx, _use_lazy_graph_module=_use_lazy_graph_module,
              is_torch_equal_or_newer=lambda v: _torch_at_least(torch.__version__, v))
    ns["should_split"] = load("vllm/compilation/partition_rules.py", "should_split", ns)
    for name in ("SplitItem", "_is_empty_allocation_node", "_merge_empty_only_subgraphs",
                 "_decompose_size_nodes", "split_graph"):
        ns[name] = load("vllm/compilation/backends.py", name, ns)
    return ns["split_graph"]


def _torch_at_least(have: str, want: str) -> bool:
    def key(v: str):
        return tuple(int(p) for p in v.split("+")[0].split(".")[:3] if p.isdigit())
    return key(have) >= key(want.replace(".dev", ""))


def real_cudagraph_manager(cfg, ns):
    """Model runner V2's CudaGraphManager (vllm/v1/worker/gpu/cudagraph_utils.py), the
    default runner's capture and dispatch logic, built from the real methods. Its __init__
    needs a GPU and a process group, so the attributes _init_candidates and dispatch read are
    set here by hand: no speculative decoding, no LoRA, no micro-batching, no varlen decode."""
    from itertools import groupby
    path = "vllm/v1/worker/gpu/cudagraph_utils.py"
    ns.update(groupby=groupby,
              round_up=load("vllm/utils/math_utils.py", "round_up", ns))
    ns["BatchExecutionDescriptor"] = load(path, "BatchExecutionDescriptor", ns)
    ns["_is_compatible"] = load(path, "_is_compatible", ns)
    methods = {name: load(path, f"CudaGraphManager.{name}", ns)
               for name in ("_init_candidates", "_maybe_ubatch_twin",
                            "_resolve_effective_loras", "dispatch")}
    m = type("CudaGraphManager", (), methods)()
    cc = cfg.compilation_config
    m.vllm_config = types.SimpleNamespace(
        speculative_config=None, num_speculative_tokens=0,
        cache_config=types.SimpleNamespace(use_kda_recoverssm=False))
    m.compilation_config = cc
    m.cudagraph_mode = cc.cudagraph_mode
    m.max_num_reqs = cfg.scheduler_config.max_num_seqs
    m.decode_query_len = 1
    m.varlen_decode = False
    m.ubatch_runner = None
    m.lora_capture_cases = [0]
    m._lora_dispatch_map, m._max_lora_case = {}, 0
    m._candidates, m._capture_descs = {}, {}
    m._init_candidates()
    m._graphs_captured = True  # dispatch() answers NONE until capture() has run
    return m
