"""Drive the real vLLM v0.33.0 KVCacheManager with the companion scheduler model.

The post's ``sched_model.Scheduler`` calls its block manager through five methods
(``get_computed_blocks``, ``allocate_slots``, ``free``, ``block_ids`` and the free-block
count). ``RealKV`` implements them on top of vLLM's own ``KVCacheManager`` (with its
``BlockPool``, ``FreeKVCacheBlockQueue``, ``FullAttentionManager`` and the sha256 block-hash
chain), so the same scenarios can be run against the model and against the real code, and
every schedule and block table compared.

vLLM is never installed. ``prepare()`` downloads the release wheel once with
``pip download --no-deps vllm==0.33.0`` into a cache folder outside the repository
(``$ML_DEEP_DIVES_CACHE``, default ``~/.cache/ml-systems-blog``, where the vLLM torch.compile
post keeps the same wheel), extracts only its Python files, installs the few small dependencies
the imported modules need (pinned below) with ``pip install --no-deps --target`` into the same
cache, and stubs the modules that the
block manager's import chain touches but never calls (the OpenAI front end, grammar
back-ends, transformers). Its C++/CUDA extensions are never loaded.

What cannot run here: vLLM's ``Scheduler`` itself. Its constructor takes a complete
``VllmConfig``, whose ``ModelConfig`` resolves a Hugging Face model configuration through
transformers, and it builds a ``StructuredOutputManager`` and KV-connector plumbing; we did
not construct it on the CPU. The scheduling loop compared here is therefore the model's,
with the real block manager underneath.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import subprocess
import sys
import types
import zipfile
from pathlib import Path

VERSION = "0.33.0"
WHEEL = f"vllm-{VERSION}-cp38-abi3-manylinux_2_28_x86_64.whl"
# Imported (not called) by vllm.v1.core and vllm.v1.request at v0.33.0; all small.
PINNED_DEPS = ["msgspec==0.23.0", "pyzmq==27.3.0", "psutil==7.2.2", "cachetools==8.0.2",
               "regex==2026.11.19", "cbor2==6.3.0", "cloudpickle==3.1.3", "py-cpuinfo==9.0.0"]
# Imported on the way to KVCacheManager but never used by it: replaced by inert stubs.
STUBS = ("xgrammar", "fastapi", "partial_json_parser", "llguidance", "openai", "openai_harmony",
         "aiohttp", "prometheus_client", "uvloop", "pybase64", "transformers",
         "vllm.parser", "vllm.renderers", "vllm.entrypoints")


def cache_dir() -> Path:
    root = Path(os.environ.get("ML_DEEP_DIVES_CACHE", Path.home() / ".cache" / "ml-systems-blog"))
    return root / f"vllm-{VERSION}"


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                   check=True, capture_output=True, text=True)


def prepare() -> tuple[Path, Path]:
    """Wheel downloaded, Python sources extracted, deps installed: reused when present."""
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    wheel = d / WHEEL
    if not wheel.exists():
        _pip("download", "--no-deps", f"vllm=={VERSION}", "-d", str(d))
    src = d / "py"
    if not (src / "vllm" / "_version.py").exists():
        with zipfile.ZipFile(wheel) as z:
            z.extractall(src, members=[n for n in z.namelist() if n.endswith(".py")])
    deps = d / "deps"
    if not (deps / ".done").exists():
        _pip("install", "--no-deps", "--target", str(deps), *PINNED_DEPS)
        (deps / ".done").write_text("\n".join(PINNED_DEPS) + "\n")
    return src, deps


class _Anything(type):
    """A class that is every attribute of itself: enough for module-level type hints,
    base classes and decorators of code that is imported but never run."""

    def __getattr__(cls, name):
        return _Anything(name, (), {})

    def __call__(cls, *args, **kwargs):
        return cls

    def __getitem__(cls, key):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(name, (), {})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if any(fullname == s or fullname.startswith(s + ".") for s in STUBS):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def forget_vllm() -> None:
    """Undo import_vllm for whatever runs next in this process: the stub finder would otherwise
    answer later imports of the stubbed names (transformers' lazily imported submodules included)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _StubFinder)]
    for name, module in list(sys.modules.items()):
        if isinstance(module, _StubModule) or name == "vllm" or name.startswith("vllm."):
            del sys.modules[name]
    src, deps = (str(p) for p in (cache_dir() / "py", cache_dir() / "deps"))
    sys.path[:] = [p for p in sys.path if p not in (src, deps)]


def import_vllm() -> types.SimpleNamespace:
    src, deps = prepare()
    if not any(isinstance(f, _StubFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _StubFinder())
    sys.path[:0] = [str(src), str(deps)]
    names = {
        "torch": ("torch", None),
        "__version__": ("vllm._version", "__version__"),
        "__commit_id__": ("vllm._version", "__commit_id__"),
        "SamplingParams": ("vllm.sampling_params", "SamplingParams"),
        "sha256": ("vllm.utils.hashing", "sha256"),
        "KVCacheManager": ("vllm.v1.core.kv_cache_manager", "KVCacheManager"),
        "get_request_block_hasher": ("vllm.v1.core.kv_cache_utils", "get_request_block_hasher"),
        "init_none_hash": ("vllm.v1.core.kv_cache_utils", "init_none_hash"),
        "FullAttentionSpec": ("vllm.v1.kv_cache_interface", "FullAttentionSpec"),
        "KVCacheConfig": ("vllm.v1.kv_cache_interface", "KVCacheConfig"),
        "KVCacheGroupSpec": ("vllm.v1.kv_cache_interface", "KVCacheGroupSpec"),
        "Request": ("vllm.v1.request", "Request"),
    }
    found = {}
    for key, (mod, attr) in names.items():
        module = importlib.import_module(mod)
        found[key] = module if attr is None else getattr(module, attr)
    return types.SimpleNamespace(**found)


# --8<-- [start:adapter]
class RealKV:
    """The model's block-manager interface, answered by vLLM's KVCacheManager."""

    def __init__(self, v: types.SimpleNamespace, num_blocks: int, block_size: int,
                 max_model_len: int = 1024):
        v.init_none_hash(v.sha256)  # NONE_HASH from "vllm-none-hash", as in the model
        spec = v.FullAttentionSpec(block_size=block_size, num_kv_heads=1, head_size=1,
                                   dtype=v.torch.float32)
        config = v.KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[],
                                 kv_cache_groups=[v.KVCacheGroupSpec(["layer.0"], spec)])
        self.v, self.block_size = v, block_size
        self.mgr = v.KVCacheManager(config, max_model_len=max_model_len,
                                    scheduler_block_size=block_size,
                                    hash_block_size=block_size, enable_caching=True)
        self.hasher = v.get_request_block_hasher(block_size, v.sha256)
        self.reqs: dict[str, object] = {}
        self.pool = self  # the model reads kv.pool.num_free and kv.pool.blocks

    def _real(self, req):
        """vLLM's Request for the model's request, brought up to date (tokens, progress)."""
        real = self.reqs.get(req.request_id)
        if real is None:
            real = self.v.Request(req.request_id, list(req.prompt_token_ids),
                                  self.v.SamplingParams(max_tokens=req.max_tokens), None,
                                  block_hasher=self.hasher)
            self.reqs[req.request_id] = real
        for tok in req.all_token_ids[real.num_tokens:]:
            real.append_output_token_ids(tok)  # extends block_hashes like the model
        real.num_computed_tokens = req.num_computed_tokens
        return real

    def get_computed_blocks(self, req):
        blocks, num_hit = self.mgr.get_computed_blocks(self._real(req))[:2]
        return blocks, num_hit

    def allocate_slots(self, req, num_new_tokens, num_new_computed_tokens=0,
                       new_computed_blocks=None, full_sequence_must_fit=False):
        return self.mgr.allocate_slots(self._real(req), num_new_tokens,
                                       num_new_computed_tokens, new_computed_blocks,
                                       full_sequence_must_fit=full_sequence_must_fit)

    def free(self, req) -> None:
        self.mgr.free(self._real(req))

    def block_ids(self, req_id: str) -> list[int]:
        if req_id not in self.reqs:
            return []
        return list(self.mgr.get_block_ids(req_id)[0])

    @property
    def num_free(self) -> int:
        return self.mgr.block_pool.get_num_free_blocks()

    @property
    def blocks(self) -> list:
        return self.mgr.block_pool.blocks
# --8<-- [end:adapter]
