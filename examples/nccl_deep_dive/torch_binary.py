"""Read, in the machine code of torch 2.13.0's CUDA build, how ProcessGroupNCCL makes a communicator.

Run:  python examples/nccl_deep_dive/torch_binary.py

ProcessGroupNCCL.cpp and NCCLUtils.cpp are not in the torch wheel, but their compiled code is, in
torch/lib/libtorch_cuda.so, whose symbol table keeps every C++ function's name. The installed
torch here is the CPU build, which has no such library, so this script downloads torch===2.13.0
(the CUDA 13.0 build for CPython 3.11 on x86-64 Linux, about 530 MB; `===` so that a local
2.13.0+cpu wheel does not satisfy it) once with pip into a cache outside the repository
($TORCH_WHEEL_CACHE, default ~/.cache/ml-systems-blog/torch-2.13.0), keeps libtorch_cuda.so and
the wheel's version.py, deletes the wheel, and reads the library with binutils' nm and objdump.
Nothing is executed (the library needs CUDA to load): the script lists the calls that
ProcessGroupNCCL::initNCCLComm makes, in address order, with the default each getCvarInt or
getCvarBool call passes, and the NCCL entry point each NCCLComm factory calls.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

TORCH_VERSION = "2.13.0"
WHEEL_SPEC = f"torch==={TORCH_VERSION}"
PIP_TAGS = ["--platform", "manylinux_2_28_x86_64", "--python-version", "311",
            "--implementation", "cp", "--only-binary=:all:"]
KEEP = {"torch/lib/libtorch_cuda.so": "libtorch_cuda.so", "torch/version.py": "version.py"}
PG = "c10d::ProcessGroupNCCL::"
NCCL_API = re.compile(r"^nccl[A-Z]\w*$")      # ncclGetUniqueId..., not c10d's ncclGetErrorWithVersion[abi:cxx11]


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "ml-systems-blog" / f"torch-{TORCH_VERSION}"
    return Path(os.environ.get("TORCH_WHEEL_CACHE", default))


def library_path() -> Path:
    """Path of libtorch_cuda.so from the CUDA wheel, downloading and unpacking it on first use."""
    root = cache_dir()
    lib = root / "libtorch_cuda.so"
    if lib.is_file() and (root / "version.py").is_file():
        return lib
    root.mkdir(parents=True, exist_ok=True)
    wheels = sorted(root.glob(f"torch-{TORCH_VERSION}-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", *PIP_TAGS,
                        WHEEL_SPEC, "-d", str(root)], check=True)
        wheels = sorted(root.glob(f"torch-{TORCH_VERSION}-*.whl"))
    with zipfile.ZipFile(wheels[0]) as zf:
        for member, name in KEEP.items():
            tmp = root / f"{name}.tmp"
            with zf.open(member) as src, open(tmp, "wb") as dst:
                while chunk := src.read(1 << 24):
                    dst.write(chunk)
            tmp.replace(root / name)
    for wheel in wheels:           # the 530 MB wheel is not needed once the library is out
        wheel.unlink()
    return lib


def wheel_version() -> tuple[str, str]:
    """(__version__, git_version) of the downloaded wheel, from its version.py."""
    text = (cache_dir() / "version.py").read_text()
    find = lambda key: re.search(rf"^{key} = '([^']+)'", text, re.M).group(1)  # noqa: E731
    return find("__version__"), find("git_version")


def functions(lib: Path) -> dict[str, tuple[int, int]]:
    """Demangled name -> (address, size) of every defined function (hot parts, not .cold)."""
    out = subprocess.run(["nm", "-C", "-S", "--defined-only", str(lib)], capture_output=True,
                         text=True, check=True).stdout
    funcs = {}
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "tT" and not parts[3].endswith((".cold", "[clone .cold]")):
            funcs[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return funcs


def find(funcs: dict[str, tuple[int, int]], name: str, has: str = "") -> tuple[int, int]:
    """The one function whose name contains `name` (and `has`)."""
    hits = [v for k, v in funcs.items() if name in k and has in k]
    assert len(hits) == 1, (name, has, len(hits))
    return hits[0]


def disassemble(lib: Path, start: int, size: int) -> dict[int, list[str]]:
    """Function address -> its instruction lines, for every function in [start, start + size)."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", f"--start-address={start:#x}",
                          f"--stop-address={start + size:#x}", str(lib)],
                         capture_output=True, text=True, check=True).stdout
    by_func: dict[int, list[str]] = {start: []}
    for line in out.splitlines():
        if m := re.match(r"([0-9a-f]+) <.*>:$", line):
            by_func[int(m.group(1), 16)] = []
        elif re.match(r"\s+[0-9a-f]+:\t", line):
            by_func[next(reversed(by_func))].append(line)
    return by_func


def short(target: str) -> str:
    """A call target as the post names it: no c10d::, no @plt, parameters only for create."""
    name, _, params = target.removesuffix("@plt").partition("(")
    name = name.replace("c10d::", "")
    if name == "NCCLComm::create":
        name += "(…, ncclConfig&)" if "ncclConfig" in params else "(no config)"
    return name


# --8<-- [start:calls]
def calls(insns: list[str]) -> list[str]:
    """Every call in a function's instructions, in address order; a getCvar* call is shown with
    the environment-variable list its first argument (%rdi) points at and the default in %esi."""
    out = []
    for i, ins in enumerate(insns):
        m = re.search(r"\tcall\s+[0-9a-f]+ <(.+)>$", ins)
        if not m:
            continue
        target = short(m.group(1))
        if target in ("getCvarInt", "getCvarBool"):
            var = default = None
            for prev in reversed(insns[max(0, i - 6):i]):   # the argument set-up right before it
                if var is None and (v := re.search(r",%rdi\s+# [0-9a-f]+ <c10d::(\w+)>", prev)):
                    var = v.group(1)
                if default is None and (d := re.search(r"\tmov\s+\$(0x[0-9a-f]+),%esi$", prev)):
                    default = int(d.group(1), 16)
                if default is None and re.search(r"\txor\s+%esi,%esi$", prev):
                    default = 0
            target = f"{target}({var}, {default})"
        out.append(target)
    return out
# --8<-- [end:calls]


def rodata_strings(lib: Path, insns: list[str]) -> set[bytes]:
    """The NUL-terminated strings at the addresses a function's rip-relative leas load."""
    found = set()
    with open(lib, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
        for ins in insns:
            if not (m := re.search(r"\tlea\s+\S+\(%rip\),%r\w+\s+# ([0-9a-f]+)", ins)):
                continue
            addr = int(m.group(1), 16)
            for _n, kind, _fl, sh_addr, sh_off, sh_size in secs:
                if kind == 1 and sh_addr <= addr < sh_addr + sh_size:       # SHT_PROGBITS
                    pos = sh_off + addr - sh_addr
                    found.add(bytes(data[pos:data.find(b"\0", pos)]))
    return found


def report() -> dict:
    lib = library_path()
    funcs = {k: v for k, v in functions(lib).items() if "c10d::" in k}
    # One objdump over the span of ProcessGroupNCCL's and NCCLComm's functions (about 1.5 MB of code).
    ours = [v for k, v in funcs.items() if PG in k or "c10d::NCCLComm::" in k]
    start = min(a for a, _ in ours)
    code = disassemble(lib, start, max(a + s for a, s in ours) - start)
    dis = lambda name, has="": code[find(funcs, name, has)[0]]  # noqa: E731
    init = calls(dis(PG + "initNCCLComm("))
    nccl = lambda insns: [c for c in calls(insns) if NCCL_API.match(c)]  # noqa: E731
    kept = ("getCvarInt(", "getCvarBool(", "NCCLComm::create", "NCCLComm::split",
            "ProcessGroupNCCL::broadcastUniqueNCCLID", "ProcessGroupNCCL::allgatherUniqueNCCLIDs")
    shown = [c for c in init if NCCL_API.match(c) or c.startswith(kept)]
    allreduce = calls(dis(f"> {PG}collective<{PG}allreduce_impl("))
    state_callers = sorted({short(name.split(" c10d::", 1)[-1]) for name, (a, _) in funcs.items()
                            if PG in name and a in code
                            and "ProcessGroupNCCL::initializeDeviceStateForComm" in calls(code[a])})
    return {
        "version": wheel_version(),
        "size_mib": lib.stat().st_size / 2**20,
        "initNCCLComm": [c for i, c in enumerate(shown) if i == 0 or c != shown[i - 1]],
        "create(config)": nccl(dis("c10d::NCCLComm::create(", "ncclConfig")),
        "create(no config)": nccl(dis("c10d::NCCLComm::create(int, int, ncclUniqueId, signed char)")),
        "create_scalable": nccl(dis("c10d::NCCLComm::create_scalable(")),
        "split": nccl(dis("c10d::NCCLComm::split(")),
        "allgather strings": rodata_strings(lib, dis(PG + "allgatherUniqueNCCLIDs(")),
        "allreduce collective": [c for c in allreduce if c.startswith("ProcessGroupNCCL::")
                                 and ("NCCLComm" in c)],
        "initializeDeviceStateForComm callers": state_callers,
    }


def main() -> None:
    import torch  # the installed (CPU) wheel: the same release, built from the same commit?

    r = report()
    version, git = r["version"]
    print(f"torch {version} wheel, git {git[:12]}; the installed torch {torch.__version__}, "
          f"git {torch.version.git_version[:12]}")
    assert version == f"{TORCH_VERSION}+cu130" and git == torch.version.git_version
    print(f"libtorch_cuda.so: {r['size_mib']:.0f} MiB")
    print("ProcessGroupNCCL::initNCCLComm calls (NCCL's API, getCvar*, NCCLComm, the id exchange),")
    print("in address order, which is the compiler's layout rather than the order they run in:")
    for c in r["initNCCLComm"]:
        print(f"  {c}")
    for key in ("create(config)", "create(no config)", "create_scalable", "split"):
        print(f"NCCLComm::{key} -> {', '.join(r[key])}")
    print(f"allgatherUniqueNCCLIDs loads the string 'UniqueNCCLID:': {b'UniqueNCCLID:' in r['allgather strings']}")
    print(f"collective<> of allreduce_impl calls: {', '.join(r['allreduce collective'])}")
    print(f"initializeDeviceStateForComm is called by: {', '.join(r['initializeDeviceStateForComm callers'])}")
    init = r["initNCCLComm"]
    assert "getCvarInt(TORCH_NCCL_RANKS_PER_ROOT, 128)" in init
    assert "getCvarBool(TORCH_NCCL_BCAST_UNIQUEID, 1)" in init
    assert "NCCLComm::create(…, ncclConfig&)" in init and "NCCLComm::create(no config)" not in init
    assert r["create(config)"] == ["ncclCommInitRankConfig"] and r["create_scalable"] == ["ncclCommInitRankScalable"]
    assert "ncclCommSplit" in r["split"] and b"UniqueNCCLID:" in r["allgather strings"]
    print("all torch binary checks passed")


if __name__ == "__main__":
    main()
