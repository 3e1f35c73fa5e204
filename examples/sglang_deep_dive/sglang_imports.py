"""Import SGLang v0.5.23's RadixCache and SchedulePolicy on a CPU-only machine, and nothing more.

`sglang.srt.mem_cache.radix_cache` and `sglang.srt.managers.schedule_policy` sit at the top of an
import graph that reaches the model layers, the Triton kernels, the distributed stack and the
GPU builds among the wheel's requirements. The code this post compares with our model uses none
of them. So `install()` puts the unpacked wheel on sys.path and
replaces the modules below with placeholders: any name imported from one is a class that raises
`PlaceholderCalled` when it is instantiated or called, and a `@triton.jit` kernel raises when it
is launched. A comparison that reached any of them would fail instead of silently using a fake.
Everything else, including radix_cache.py, base_prefix_cache.py, evict_policy.py,
mem_cache/utils.py, utils/common.py and schedule_policy.py, is SGLang's own code, executed.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types

# Third-party modules that sglang/srt/utils/common.py (and a few others) import at module level,
# none of them called by the code we run.
THIRD_PARTY = ["triton", "orjson", "psutil", "pybase64", "starlette"]
# SGLang's own heavy subsystems, reached only through imports that the cache and the sort do not
# use at run time (type hints, isinstance checks on other cache kinds, GPU pools and kernels).
SGLANG_INTERNAL = [
    "sglang.kernels",                             # Triton/CUDA kernels
    "sglang.srt.layers",                          # model layers, quantisation, attention backends
    "sglang.srt.configs",                         # Hugging Face model configs (pull torchvision)
    "sglang.srt.distributed",                     # process groups, custom all-reduce
    "sglang.srt.disaggregation",                  # prefill/decode disaggregation
    "sglang.srt.model_executor.forward_batch_info",
    "sglang.srt.mem_cache.memory_pool",           # GPU KV pools (ReqToTokenPool is a type hint here)
    "sglang.srt.mem_cache.allocator.hisparse",
    "sglang.srt.mem_cache.unified_radix_cache",
    "sglang.srt.managers.schedule_batch",         # Req / ScheduleBatch (type hints in the policy)
]
PLACEHOLDERS = THIRD_PARTY + SGLANG_INTERNAL


class PlaceholderCalled(RuntimeError):
    pass


def _placeholder_class(module: str, name: str) -> type:
    class _Meta(type):
        def __call__(cls, *args, **kwargs):
            raise PlaceholderCalled(f"{module}.{name} is a placeholder and was called")

    def _init_subclass(cls, **kwargs):  # allow `class X(Placeholder, flag=True)`
        pass

    return _Meta(name, (), {"__module__": module, "__init_subclass__": classmethod(_init_subclass)})


class _Kernel:
    """What `@triton.jit` returns here: defining a kernel works, launching one raises."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __getitem__(self, grid):
        raise PlaceholderCalled(f"Triton kernel {getattr(self.fn, '__name__', self.fn)} launched")

    def __call__(self, *args, **kwargs):
        raise PlaceholderCalled(f"Triton kernel {getattr(self.fn, '__name__', self.fn)} called")


def _jit(fn=None, **kwargs):
    return _Kernel(fn) if callable(fn) else _Kernel


def _decorator_factory(*args, **kwargs):
    return _Kernel


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _placeholder_class(self.__name__, name)
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if any(name == p or name.startswith(p + ".") for p in PLACEHOLDERS):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _PlaceholderModule(spec.name)

    def exec_module(self, module) -> None:
        module.__path__ = []
        if module.__name__ == "triton":
            module.jit, module.autotune, module.heuristics = _jit, _decorator_factory, _decorator_factory
            module.__version__ = "0.0.0"


def install(site: str) -> None:
    """Make `import sglang.srt...` work from the unpacked wheel in `site`."""
    # torch asks once (functools.cache) whether triton exists; let it get the true answer, False,
    # before the placeholder is importable.
    import torch.utils._triton as torch_triton

    torch_triton.has_triton_package()
    torch_triton.has_triton()
    sys.path.insert(0, site)
    sys.meta_path.insert(0, _Finder())
    # sglang/__init__.py imports the frontend language (IPython, aiohttp, openai, ...). Register
    # the package without running it; sglang.srt and its subpackages are namespace packages or
    # are imported normally.
    package = types.ModuleType("sglang")
    package.__path__ = [os.path.join(site, "sglang")]
    sys.modules["sglang"] = package


def real_sglang_modules() -> list[str]:
    """The SGLang modules that were really executed from the wheel."""
    return sorted(name for name, mod in sys.modules.items()
                  if name.startswith("sglang.") and getattr(mod, "__file__", None))


def placeholders_imported() -> list[str]:
    """The modules that were imported as placeholders (each one's name, not its attributes)."""
    return sorted(name for name, mod in sys.modules.items() if isinstance(mod, _PlaceholderModule))
