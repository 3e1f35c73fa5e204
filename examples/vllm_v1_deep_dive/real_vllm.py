"""Run vLLM v0.33.0's own Scheduler on the CPU and compare it with the post's model.

``make_scheduler`` builds a real ``VllmConfig`` (a ``ModelConfig`` read from a one-layer
Llama ``config.json`` written to a temporary folder, no weights, no tokenizer; a
``SchedulerConfig``; a ``CacheConfig``; ``DeviceConfig("cpu")``) and constructs vLLM's
``Scheduler`` (or ``AsyncScheduler``) with a one-group full-attention ``KVCacheConfig``.
``run_real`` and ``run_real_async`` drive it with the same arrivals and the same fake model
as ``sched_model.run`` / ``run_async``: ``schedule()``, a ``ModelRunnerOutput`` with the fake
model's tokens, ``update_from_output()``. Every schedule, prefix hit, preemption and block
table can then be compared with the model's.

vLLM is never installed. ``prepare()`` downloads the release wheel once with
``pip download --no-deps vllm==0.33.0`` into a cache folder outside the repository
(``$ML_DEEP_DIVES_CACHE``, default ``~/.cache/ml-systems-blog``), extracts only its Python
files, and installs the small dependencies pinned below with ``pip install --no-deps
--target`` into the same cache. torch, transformers and pydantic come from the environment.
Packages the wheel's import chain names but that are not installed here are replaced by
inert stubs (``STUBS``); the code that would call them never runs. No C++ or CUDA extension
is loaded: vLLM logs that ``vllm._C`` is missing and carries on. ``ModelConfig`` inspects
the model class in a child process (``_run_in_subprocess``); that child gets the same stubs
through a ``sitecustomize.py`` in a scratch folder.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path

VERSION = "0.33.0"
WHEEL = f"vllm-{VERSION}-cp38-abi3-manylinux_2_28_x86_64.whl"
# Imported (not all called) by vllm.config and vllm.v1.core at v0.33.0; all small.
PINNED_DEPS = ["msgspec==0.23.0", "pyzmq==27.3.0", "psutil==7.2.2", "cachetools==8.0.2",
               "regex==2026.11.19", "cbor2==6.3.0", "cloudpickle==3.1.3", "py-cpuinfo==9.0.0"]
# Named by the import chain of vllm.config and the scheduler, not installed here, never
# called by what runs: replaced by inert stubs. (The post's aside lists the same names.)
STUBS = ("aiohttp", "einops", "llguidance", "prometheus_client", "pybase64", "uvloop",
         "xgrammar", "vllm.entrypoints", "vllm.parser")
# Imported from the environment the tests run in (top-level names): torch, transformers,
# pydantic and numpy, and what they import in turn.
FROM_ENVIRONMENT = (
    "torch", "torchgen", "functorch", "transformers", "tokenizers", "safetensors",
    "huggingface_hub", "pydantic", "pydantic_core", "annotated_types", "typing_inspection",
    "typing_extensions", "numpy", "PIL", "sympy", "mpmath", "networkx", "jinja2", "markupsafe",
    "filelock", "fsspec", "packaging", "yaml", "tqdm", "requests", "urllib3", "idna", "certifi",
    "charset_normalizer", "anyio", "sniffio", "h11", "httpcore", "httpx", "httpcore2", "httpx2",
    "truststore", "colorama", "setuptools", "_distutils_hack", "distutils", "jaraco",
    "more_itertools", "backports", "hf_xet", "shellingham", "typer", "click", "rich")
HERE = Path(__file__).resolve().parent
_SAVED_ENV: dict[str, str | None] = {}


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
    def __init__(self) -> None:
        self.answered: set[str] = set()  # which STUBS entries were actually imported

    def find_spec(self, fullname, path, target=None):
        for s in STUBS:
            if fullname == s or fullname.startswith(s + "."):
                self.answered.add(s)
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install_stubs(log: bool = False) -> _StubFinder:
    """Put the stub finder first on sys.meta_path. With log (vLLM's child processes), the
    names it answered are appended to $REAL_VLLM_STUB_LOG at exit."""
    for f in sys.meta_path:
        if isinstance(f, _StubFinder):
            return f
    finder = _StubFinder()
    sys.meta_path.insert(0, finder)
    if log and os.environ.get("REAL_VLLM_STUB_LOG"):
        def _write() -> None:
            with open(os.environ["REAL_VLLM_STUB_LOG"], "a") as f:
                f.write("".join(f"{name}\n" for name in sorted(finder.answered)))
        atexit.register(_write)
    return finder


def stubs_answered() -> set[str]:
    """The STUBS entries imported so far, here and in vLLM's child processes."""
    names = set(install_stubs().answered)
    log = os.environ.get("REAL_VLLM_STUB_LOG")
    if log and os.path.exists(log):
        names |= set(Path(log).read_text().split())
    return names


def forget_vllm() -> None:
    """Undo import_vllm for whatever runs next in this process: the stub finder would otherwise
    answer later imports of the stubbed names."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _StubFinder)]
    for name, module in list(sys.modules.items()):
        if isinstance(module, _StubModule) or name == "vllm" or name.startswith("vllm."):
            del sys.modules[name]
    src, deps = (str(p) for p in (cache_dir() / "py", cache_dir() / "deps"))
    sys.path[:] = [p for p in sys.path if p not in (src, deps)]
    for key, old in _SAVED_ENV.items():
        if old is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = old
    _SAVED_ENV.clear()


def _setenv(key: str, value: str) -> None:
    _SAVED_ENV.setdefault(key, os.environ.get(key))
    os.environ[key] = value


def import_vllm() -> types.SimpleNamespace:
    src, deps = prepare()
    install_stubs()
    sys.path[:0] = [str(src), str(deps)]
    # A fresh model-info cache, so that ModelConfig inspects the model class in a child
    # process every time (what a first start does) rather than reading a cached answer, and
    # a sitecustomize.py that gives that child the same stubs.
    scratch = tempfile.mkdtemp(prefix="real-vllm-")
    Path(scratch, "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\n"
        "import real_vllm\nreal_vllm.install_stubs(log=True)\n")
    _setenv("PYTHONPATH", os.pathsep.join([str(src), str(deps), scratch]))
    _setenv("VLLM_CACHE_ROOT", scratch)
    _setenv("REAL_VLLM_STUB_LOG", os.path.join(scratch, "stubs.txt"))
    names = {
        "torch": ("torch", None),
        "__version__": ("vllm._version", "__version__"),
        "__commit_id__": ("vllm._version", "__commit_id__"),
        "SamplingParams": ("vllm.sampling_params", "SamplingParams"),
        "sha256": ("vllm.utils.hashing", "sha256"),
        "get_request_block_hasher": ("vllm.v1.core.kv_cache_utils", "get_request_block_hasher"),
        "init_none_hash": ("vllm.v1.core.kv_cache_utils", "init_none_hash"),
        "FullAttentionSpec": ("vllm.v1.kv_cache_interface", "FullAttentionSpec"),
        "KVCacheConfig": ("vllm.v1.kv_cache_interface", "KVCacheConfig"),
        "KVCacheGroupSpec": ("vllm.v1.kv_cache_interface", "KVCacheGroupSpec"),
        "Request": ("vllm.v1.request", "Request"),
        "ModelRunnerOutput": ("vllm.v1.outputs", "ModelRunnerOutput"),
        "VllmConfig": ("vllm.config", "VllmConfig"),
        "ModelConfig": ("vllm.config", "ModelConfig"),
        "SchedulerConfig": ("vllm.config", "SchedulerConfig"),
        "CacheConfig": ("vllm.config", "CacheConfig"),
        "DeviceConfig": ("vllm.config", "DeviceConfig"),
        "StructuredOutputManager": ("vllm.v1.structured_output", "StructuredOutputManager"),
        "Scheduler": ("vllm.v1.core.sched.scheduler", "Scheduler"),
        "AsyncScheduler": ("vllm.v1.core.sched.async_scheduler", "AsyncScheduler"),
    }
    found = {}
    for key, (mod, attr) in names.items():
        module = importlib.import_module(mod)
        found[key] = module if attr is None else getattr(module, attr)
    return types.SimpleNamespace(**found)


# A one-layer Llama: only its config.json is read (architecture, max length). No weights.
TINY_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
              "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 1,
              "num_hidden_layers": 1, "vocab_size": 2048, "max_position_embeddings": 64,
              "torch_dtype": "float32"}


# --8<-- [start:make]
def make_scheduler(v, *, num_blocks: int, block_size: int, max_num_batched_tokens: int,
                   max_num_seqs: int, max_model_len: int = 64, enable_chunked_prefill=True,
                   long_prefill_token_threshold=0, scheduler_reserve_full_isl=True,
                   enable_prefix_caching=True, async_scheduling=False):
    """vLLM's own Scheduler (AsyncScheduler with async_scheduling) from a real VllmConfig."""
    model_dir = tempfile.mkdtemp(prefix="tiny-llama-")
    Path(model_dir, "config.json").write_text(json.dumps(TINY_LLAMA))
    model = v.ModelConfig(model=model_dir, skip_tokenizer_init=True,
                          max_model_len=max_model_len, dtype="float32")
    sched = v.SchedulerConfig(
        max_model_len=max_model_len, is_encoder_decoder=False,
        max_num_batched_tokens=max_num_batched_tokens, max_num_seqs=max_num_seqs,
        enable_chunked_prefill=enable_chunked_prefill,
        long_prefill_token_threshold=long_prefill_token_threshold,
        scheduler_reserve_full_isl=scheduler_reserve_full_isl,
        async_scheduling=async_scheduling)
    cache = v.CacheConfig(block_size=block_size, enable_prefix_caching=enable_prefix_caching)
    cache.num_gpu_blocks = num_blocks  # what EngineCore writes back after profiling
    config = v.VllmConfig(model_config=model, scheduler_config=sched, cache_config=cache,
                          device_config=v.DeviceConfig(device="cpu"))
    spec = v.FullAttentionSpec(block_size=block_size, num_kv_heads=1, head_size=1,
                               dtype=v.torch.float32)
    kv_config = v.KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[],
                                kv_cache_groups=[v.KVCacheGroupSpec(["layer.0"], spec)])
    v.init_none_hash(v.sha256)  # NONE_HASH from "vllm-none-hash", as in the model
    cls = v.AsyncScheduler if async_scheduling else v.Scheduler
    return cls(config, kv_config, v.StructuredOutputManager(config), block_size=block_size)
# --8<-- [end:make]


def _request(v, q, block_size: int):
    """vLLM's Request for one of the model's requests (Scheduler.add_request takes it as
    _handle_client_request passes it on)."""
    params = v.SamplingParams(max_tokens=q.max_tokens,
                              stop_token_ids=list(q.stop_token_ids) or None)
    return v.Request(q.request_id, list(q.prompt_token_ids), params, None,
                     block_hasher=v.get_request_block_hasher(block_size, v.sha256))


def _record(s, out, step: int, finished: list[str]) -> dict:
    """What the model's StepRecord holds, read from vLLM's SchedulerOutput."""
    hits = {n.req_id: n.num_computed_tokens for n in out.scheduled_new_reqs}
    cached = out.scheduled_cached_reqs
    for i, rid in enumerate(cached.req_ids):
        if rid in cached.resumed_req_ids:
            hits[rid] = cached.num_computed_tokens[i]
    return {"step": step, "num_scheduled_tokens": dict(out.num_scheduled_tokens),
            "num_prefix_hit_tokens": hits,
            "preempted_req_ids": sorted(out.preempted_req_ids or ()),
            "finished": finished}


def _runner_output(v, req_ids: list[str], sampled: dict[str, int]):
    return v.ModelRunnerOutput(req_ids=req_ids, req_id_to_index={r: i for i, r in
                                                                 enumerate(req_ids)},
                               sampled_token_ids=[[sampled[r]] if r in sampled else []
                                                  for r in req_ids])


def _finished(engine_outputs) -> list[str]:
    return [o.request_id for outs in engine_outputs.values() for o in outs.outputs
            if o.finish_reason is not None]


# --8<-- [start:run]
def run_real(v, s, arrivals, fake_next_token, max_steps: int = 50):
    """EngineCore.step with vLLM's Scheduler: schedule, a fake forward pass, update."""
    records, reqs, step = [], {}, 0
    while step < max_steps and (s.has_unfinished_requests() or any(k > step for k in arrivals)):
        step += 1
        for q in arrivals.get(step, []):
            reqs[q.request_id] = _request(v, q, s.block_size)
            s.add_request(reqs[q.request_id])
        out = s.schedule()
        tables = {r: list(s.kv_cache_manager.get_block_ids(r)[0])
                  for r in out.num_scheduled_tokens}
        sampled = {r: fake_next_token(list(reqs[r].all_token_ids))
                   for r in out.num_scheduled_tokens  # a token only once the prompt is done
                   if reqs[r].num_computed_tokens == reqs[r].num_tokens}
        done = _finished(s.update_from_output(out, _runner_output(
            v, list(out.num_scheduled_tokens), sampled)))
        records.append(_record(s, out, step, done) | {"block_tables": tables})
    return records, reqs
# --8<-- [end:run]


def run_real_async(v, s, arrivals, fake_next_token, batch_queue_size: int = 2,
                   max_calls: int = 100):
    """EngineCore.step_with_batch_queue with vLLM's AsyncScheduler. The fake runner keeps its
    own copy of each request's tokens, as the worker does, and runs ahead of the scheduler."""
    records, reqs, queue, tokens, call = [], {}, [], {}, 0
    while call < max_calls and (s.has_unfinished_requests() or queue
                                or any(k > call for k in arrivals)):
        call += 1
        for q in arrivals.get(call, []):
            reqs[q.request_id] = _request(v, q, s.block_size)
            s.add_request(reqs[q.request_id])
        if s.has_unfinished_requests():
            out = s.schedule()
            executed = out.total_num_scheduled_tokens > 0
            if executed:
                sampled = {}
                for n in out.scheduled_new_reqs:
                    tokens[n.req_id] = [list(n.prompt_token_ids), n.num_computed_tokens]
                for r, n in out.num_scheduled_tokens.items():
                    tokens[r][1] += n
                    if tokens[r][1] >= len(tokens[r][0]):
                        sampled[r] = fake_next_token(tokens[r][0])
                        tokens[r][0].append(sampled[r])
                queue.insert(0, (out, sampled))
            if len(queue) < batch_queue_size and executed:
                continue
        if not queue:
            continue
        out, sampled = queue.pop()
        done = _finished(s.update_from_output(out, _runner_output(
            v, list(out.num_scheduled_tokens), sampled)))
        tables = {r: list(s.kv_cache_manager.get_block_ids(r)[0]) if r in s.requests else []
                  for r in out.num_scheduled_tokens}
        records.append(_record(s, out, call, done) | {"block_tables": tables})
    discarded = sum(len(t) - len(reqs[r].prompt_token_ids) - reqs[r].num_output_tokens
                    for r, (t, _) in tokens.items())
    return records, reqs, discarded
