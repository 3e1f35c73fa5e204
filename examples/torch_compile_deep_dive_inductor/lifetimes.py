"""Read buffer lifetimes out of the ``call()`` function of an Inductor wrapper module.

The wrapper is the Python that ``PythonWrapperCodegen`` writes; its memory plan is visible in four
kinds of line, which this module turns into events (no torch needed):

``bufN = empty_strided_cpu(shape, stride, dtype)``  a new storage is allocated (AllocateLine)
``bufB = bufA; del bufA  # reuse``                 bufA's storage is handed to bufB (ReuseLine)
``bufB = reinterpret_tensor(bufA, ...); del bufA  # reuse``   the same, with a new size/stride
``del bufN`` / ``del argN_1``                      the last reference is dropped (FreeIfNotReusedLine / FreeLine)

Kernel calls (``cpp_fused_*(...)``, ``extern_kernels.*(...)``) are the steps buffers are used in.
A *storage* is one allocation; a *buffer* is one name that owns it for a while. Names that are
still held when ``call()`` returns die with its frame (returned ones live on in the caller).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

DTYPE_BYTES = {"torch.float32": 4, "torch.float64": 8, "torch.float16": 2, "torch.bfloat16": 2,
               "torch.int64": 8, "torch.int32": 4, "torch.uint8": 1, "torch.bool": 1}

_ALLOC = re.compile(r"^(buf\d+) = empty_strided_cpu\(\(([^)]*)\), \(([^)]*)\), (torch\.\w+)\)$")
_REUSE = re.compile(r"^(buf\d+) = (?:reinterpret_tensor\()?(buf\d+)\b.*; del (buf\d+)  # reuse$")
_DEL = re.compile(r"^del ((?:buf|arg)\w+)$")
_ASSERT = re.compile(r"^assert_size_stride\((arg\w+), \(([^)]*)\), \(([^)]*)\)")
_KERNEL = re.compile(r"^((?:cpp_fused_\w+|extern_kernels\.\w+))\((.*)\)$")
_UNPACK = re.compile(r"^((?:arg\w+, )*arg\w+),? = args$")
_NAME = re.compile(r"\b((?:buf|arg)\w*\d+(?:_\d+)?)\b")


def triton_kernels(module_source: str) -> dict[str, str]:
    """Each Triton kernel a wrapper module defines: its name and the source string it passes to
    ``async_compile.triton``, in the order of the module."""
    return dict(re.findall(r"^(triton_\w+) = async_compile\.triton\('\w+', '''\n(.*?\n)''', device_str",
                           module_source, re.S | re.M))


def call_body(module_source: str) -> list[str]:
    """The stripped lines of ``def call(self, args):`` in a wrapper module, up to its return."""
    lines = module_source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "def call(self, args):")
    body = []
    for line in lines[start + 1:]:
        text = line.strip()
        if text:
            body.append(text)
        if text.startswith("return "):
            break
    return body


def _numel(shape: str) -> int:
    dims = [d for d in (s.strip() for s in shape.split(",")) if d]
    return math.prod(int(d) for d in dims)


@dataclass
class Buffer:
    name: str
    storage: str
    nbytes: int
    born: int                      # index of the line that creates the name
    last_use: int | None = None    # index of the last kernel line that reads or writes it
    died: int | None = None        # index of the line that drops the name
    reused_from: str | None = None
    reused_by: str | None = None
    how_it_died: str = ""          # "del", "reused", "returned", "end of call()"
    uses: list[int] = field(default_factory=list)


@dataclass
class Timeline:
    lines: list[str]
    kinds: list[str]               # per line: unpack, clear, assert, comment, alloc, reuse, free, kernel, return
    buffers: dict[str, Buffer]
    storages: dict[str, int]       # storage id -> bytes
    live_bytes: list[int]          # bytes of intermediate storages alive after each line
    returned: list[str]

    def to_json(self) -> dict:
        return {"lines": self.lines, "kinds": self.kinds,
                "buffers": {k: asdict(v) for k, v in self.buffers.items()},
                "storages": self.storages, "live_bytes": self.live_bytes,
                "returned": self.returned}


def storage_id(n: int) -> str:
    """The n-th allocation's id: A, B, C, ... (letters, so that they read as no symbolic size s0)."""
    return chr(ord("A") + n) if n < 26 else f"Z{n}"


def timeline(body: list[str], input_bytes: dict[str, int]) -> Timeline:
    """Replay ``call()`` line by line. ``input_bytes`` gives each ``argN_1`` its size."""
    buffers: dict[str, Buffer] = {}
    storages: dict[str, int] = {}
    owner: dict[str, str] = {}      # storage -> name that holds it now
    kinds: list[str] = []
    live_bytes: list[int] = []
    returned: list[str] = []
    alive: set[str] = set()         # storages of intermediates alive now
    for i, line in enumerate(body):
        kind = "other"
        if m := _UNPACK.match(line):
            kind = "unpack"
            for name in m.group(1).split(", "):
                sid = f"in:{name}"
                storages[sid] = input_bytes[name]
                owner[sid] = name
                buffers[name] = Buffer(name, sid, input_bytes[name], born=i)
        elif m := _ALLOC.match(line):
            kind = "alloc"
            name, shape, _, dtype = m.groups()
            sid = storage_id(sum(1 for s in storages if not s.startswith("in:")))
            storages[sid] = _numel(shape) * DTYPE_BYTES[dtype]
            owner[sid] = name
            alive.add(sid)
            buffers[name] = Buffer(name, sid, storages[sid], born=i)
        elif m := _REUSE.match(line):
            kind = "reuse"
            new, old, deleted = m.groups()
            assert old == deleted, line
            sid = buffers[old].storage
            buffers[old].died, buffers[old].how_it_died, buffers[old].reused_by = i, "reused", new
            buffers[new] = Buffer(new, sid, buffers[old].nbytes, born=i, reused_from=old)
            owner[sid] = new
        elif m := _DEL.match(line):
            kind = "free"
            name = m.group(1)
            buffers[name].died, buffers[name].how_it_died = i, "del"
            alive.discard(buffers[name].storage)
        elif m := _KERNEL.match(line):
            kind = "kernel"
            for name in _NAME.findall(m.group(2)):
                if name in buffers:
                    buffers[name].uses.append(i)
                    buffers[name].last_use = i
        elif line.startswith("assert_size_stride("):
            kind = "assert"
        elif line.startswith("return "):
            kind = "return"
            returned = [n for n in _NAME.findall(line) if n in buffers]
            for name, buf in buffers.items():
                if buf.died is None:
                    buf.died = i
                    buf.how_it_died = "returned" if name in returned else "end of call()"
            alive.clear()
        elif line == "args.clear()":
            kind = "clear"
        elif line.startswith("#"):
            kind = "comment"
        kinds.append(kind)
        live_bytes.append(sum(storages[s] for s in alive))
    return Timeline(body, kinds, buffers, storages, live_bytes, returned)


def input_sizes_from_asserts(body: list[str], dtype_bytes: int = 4) -> dict[str, int]:
    """Bytes of each graph input, from the wrapper's ``assert_size_stride`` lines."""
    sizes = {}
    for line in body:
        if m := _ASSERT.match(line):
            sizes[m.group(1)] = _numel(m.group(2)) * dtype_bytes
    return sizes
