"""Load NCCL's real shared library from its PyPI wheel and call what needs no GPU.

Run:  python examples/nccl_deep_dive/nccl_lib.py

The wheel nvidia-nccl-cu12==2.30.7 (about 300 MB) is downloaded once with pip into a cache outside
the repository ($NCCL_WHEEL_CACHE, default ~/.cache/ml-systems-blog/nccl-2.30.7); only
libnccl.so.2 (398 MiB) is unpacked from it and kept, and the wheel is then deleted. Everything
below is the real library: ncclGetVersion, ncclGetUniqueId (which opens the bootstrap root's
listening socket and starts its thread), and ncclCommInitRank, which needs a CUDA device and
fails here.
"""

from __future__ import annotations

import ctypes
import functools
import os
import socket
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

NCCL_VERSION = "2.30.7"
WHEEL_NAME = f"nvidia-nccl-cu12=={NCCL_VERSION}"
NCCL_UNIQUE_ID_BYTES = 128  # nccl.h
NCCL_SOCKET_MAGIC = 0x564AB9F2FC4B9D6C  # src/include/socket.h


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "ml-systems-blog" / f"nccl-{NCCL_VERSION}"
    return Path(os.environ.get("NCCL_WHEEL_CACHE", default))


def library_path() -> Path:
    """Path of libnccl.so.2 from the wheel, downloading and unpacking it on first use."""
    root = cache_dir()
    lib = root / "lib" / "libnccl.so.2"
    if lib.is_file():
        return lib
    root.mkdir(parents=True, exist_ok=True)
    wheels = sorted(root.glob("nvidia_nccl_cu12-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        WHEEL_NAME, "-d", str(root)], check=True)
        wheels = sorted(root.glob("nvidia_nccl_cu12-*.whl"))
    with zipfile.ZipFile(wheels[0]) as zf:
        data = zf.read("nvidia/nccl/lib/libnccl.so.2")
    lib.parent.mkdir(exist_ok=True)
    tmp = lib.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(lib)
    for wheel in wheels:           # the 300 MB wheel is not needed once the library is out
        wheel.unlink()
    return lib


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_ubyte * NCCL_UNIQUE_ID_BYTES)]


def load() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(library_path()))
    lib.ncclGetErrorString.restype = ctypes.c_char_p
    lib.ncclGetLastError.restype = ctypes.c_char_p
    lib.ncclGetLastError.argtypes = [ctypes.c_void_p]
    return lib


def version(lib: ctypes.CDLL) -> int:
    v = ctypes.c_int()
    rc = lib.ncclGetVersion(ctypes.byref(v))
    assert rc == 0, rc
    return v.value


def get_unique_id(lib: ctypes.CDLL) -> bytes:
    uid = UniqueId()
    rc = lib.ncclGetUniqueId(ctypes.byref(uid))
    if rc != 0:
        raise RuntimeError(f"ncclGetUniqueId: {lib.ncclGetErrorString(rc).decode()}")
    return bytes(uid.internal)


# --8<-- [start:parse]
def parse_unique_id(raw: bytes) -> dict:
    """Decode the ncclBootstrapHandle that ncclGetUniqueId copies into the 128-byte id.

    Layout (src/include/bootstrap.h at v2.30.7-1): uint64_t magic; union ncclSocketAddress addr
    (a sockaddr_in or sockaddr_in6, 28 bytes); int nRanks. The rest of the id is zero.
    """
    assert len(raw) == NCCL_UNIQUE_ID_BYTES
    magic, family = struct.unpack_from("<QH", raw, 0)
    port = struct.unpack_from(">H", raw, 10)[0]          # sin_port is big-endian
    if family == socket.AF_INET:
        host = socket.inet_ntop(socket.AF_INET, raw[12:16])
    elif family == socket.AF_INET6:
        host = socket.inet_ntop(socket.AF_INET6, raw[16:32])
    else:
        raise ValueError(f"unexpected address family {family}")
    n_ranks = struct.unpack_from("<i", raw, 36)[0]
    return {"magic": f"0x{magic:016x}", "family": socket.AddressFamily(family).name,
            "host": host, "port": port, "nRanks": n_ranks,
            "zero_tail": raw[40:] == bytes(NCCL_UNIQUE_ID_BYTES - 40)}
# --8<-- [end:parse]


def listening_ports() -> set[int]:
    """TCP ports in LISTEN state on this machine, read from /proc/net/tcp{,6}."""
    ports = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":  # TCP_LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@functools.cache
def elf_symbols(path: Path) -> dict[str, int]:
    """Name -> st_value of every function in an ELF64 file's .symtab (the local ones included).

    The wheel's libnccl.so.2 is not stripped, so internal functions such as ncclGetDtree keep
    their (C++-mangled) names there even though the dynamic table exports only the public API.
    """
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a little-endian ELF64 file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out: dict[str, int] = {}
    for _name, kind, _flags, _addr, off, size, link, _info, _align, entsize in sections:
        if kind != 2:                                   # SHT_SYMTAB
            continue
        stroff = sections[link][4]
        for pos in range(off, off + size, entsize):
            st_name, st_info, _other, _shndx, st_value, _size = struct.unpack_from("<IBBHQQ", data, pos)
            if st_info & 0xF == 2 and st_value:          # STT_FUNC, defined
                end = data.index(b"\0", stroff + st_name)
                out[data[stroff + st_name:end].decode()] = st_value
    return out


@functools.cache
def internal_function(lib: ctypes.CDLL, mangled: str, restype, *argtypes):
    """A callable for a function the library does not export, at load base + its symbol value.

    The load base is where an exported function is in memory minus its symbol value.
    """
    symbols = elf_symbols(library_path())
    base = ctypes.cast(lib.ncclGetVersion, ctypes.c_void_p).value - symbols["ncclGetVersion"]
    return ctypes.CFUNCTYPE(restype, *argtypes)(base + symbols[mangled])


def real_dtree(lib: ctypes.CDLL, nranks: int, rank: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(up, down0, down1) of `rank` in NCCL's two trees, from the library's own ncclGetDtree."""
    pint = ctypes.POINTER(ctypes.c_int)
    fn = internal_function(lib, "_Z12ncclGetDtreeiiPiS_S_S_S_S_S_S_", ctypes.c_int,
                           ctypes.c_int, ctypes.c_int, *[pint] * 8)
    v = [ctypes.c_int(-7) for _ in range(8)]
    assert fn(nranks, rank, *[ctypes.byref(x) for x in v]) == 0
    return (v[0].value, v[1].value, v[2].value), (v[4].value, v[5].value, v[6].value)


def try_comm_init_rank(lib: ctypes.CDLL, raw: bytes) -> tuple[int, str, str]:
    """ncclCommInitRank(&comm, 1, id, 0): needs cudaGetDevice, so on a CPU machine it fails."""
    comm = ctypes.c_void_p()
    uid = UniqueId.from_buffer_copy(raw)
    rc = lib.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0)
    return rc, lib.ncclGetErrorString(rc).decode(), (lib.ncclGetLastError(None) or b"").decode()


def main() -> None:
    lib = load()
    size_mb = library_path().stat().st_size / 2**20
    v = version(lib)
    print(f"libnccl.so.2 from {WHEEL_NAME}: {size_mb:.0f} MiB")
    print(f"ncclGetVersion -> {v}  (= 2*10000 + 30*100 + 7)")
    assert v == 23007
    raw = get_unique_id(lib)
    h = parse_unique_id(raw)
    print(f"ncclGetUniqueId -> {raw[:40].hex()} + {len(raw) - 40} zero bytes")
    print(f"  magic {h['magic']}  {h['family']} {h['host']}:{h['port']}  nRanks {h['nRanks']}")
    listening = h["port"] in listening_ports()
    print(f"  bootstrap root listening on port {h['port']}: {listening}")
    assert h["zero_tail"] and h["nRanks"] == 0 and listening
    second = parse_unique_id(get_unique_id(lib))
    assert second["magic"] != h["magic"] and second["port"] != h["port"]
    print(f"a second id: new magic {second['magic']}, new port {second['port']}")
    rc, name, last = try_comm_init_rank(lib, raw)
    print(f"ncclCommInitRank(nranks=1) -> {rc} ({name}); last error: {last!r}")
    assert rc != 0
    print("all NCCL library checks passed")


if __name__ == "__main__":
    main()
