"""One torchrun worker: what the agent handed it, and the store exchange NCCL init relies on.

Started by launch.py as  torchrun --nnodes 1 --nproc-per-node 2 torchrun_worker.py --out DIR
It records its environment, joins the default process group with gloo (the CPU stand-in for
NCCL) through env://, then does what ProcessGroupNCCL does before ncclCommInitRank: rank 0 asks
the real libnccl for a unique id and puts its 128 bytes in the process group's store; the other
ranks block on get() until it is there. Each rank writes what it saw to <out>/rank<R>.json.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nccl_lib  # noqa: E402

ENV_KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
            "ROLE_RANK", "ROLE_NAME", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
            "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
            "TORCHELASTIC_USE_AGENT_STORE", "TORCH_NCCL_ASYNC_ERROR_HANDLING", "OMP_NUM_THREADS"]


def agent_ports(pid: int) -> list[int]:
    """TCP ports process `pid` listens on: its socket inodes matched against /proc/net/tcp{,6}."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(name).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:          # LISTEN, and one of the agent's sockets
                ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return sorted(ports)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    env = {k: os.environ.get(k) for k in ENV_KEYS}

    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()

    # --8<-- [start:exchange]
    # init_process_group wraps the TCPStore client in PrefixStore("default_pg"), and
    # _new_process_group_helper adds PrefixStore("<group name>/") (the group's own store, "0/"
    # for the default group) and, per backend, PrefixStore("<device>/"). ProcessGroupNCCL then
    # uses its communicator counter ("0" for the first communicator) as the key.
    pg_store = dist.PrefixStore("cuda/", dist.distributed_c10d._get_default_store())
    lib = nccl_lib.load()
    if rank == 0:
        uid = nccl_lib.get_unique_id(lib)        # real ncclGetUniqueId: opens the root socket
        pg_store.set("0", uid)
    else:
        uid = pg_store.get("0")                  # blocks until rank 0 has set it
    # --8<-- [end:exchange]
    handle = nccl_lib.parse_unique_id(uid)
    digests = [None] * world
    dist.all_gather_object(digests, hashlib.sha256(uid).hexdigest())

    t = torch.full((4,), float(rank + 1))
    dist.all_reduce(t)                           # gloo ring/tree on the CPU

    # The agent (our parent) hosts the rendezvous store on localhost:0 and, as rank-0 agent, the
    # workers' store on MASTER_PORT: the rendezvous port is the other one it listens on.
    ports = agent_ports(os.getppid())
    rdzv_port = next(p for p in ports if p != int(os.environ["MASTER_PORT"]))
    record = {"rdzv_port": rdzv_port, "agent_ports": ports, "rank": rank, "world": world, "env": env,
              "pid": os.getpid(),
              "uid_digests": digests, "handle": handle, "allreduce": t.tolist(),
              "root_listening": handle["port"] in nccl_lib.listening_ports() if rank == 0 else None}
    dist.barrier()
    if rank == 0:
        timeout = datetime.timedelta(seconds=30)
        host = os.environ["MASTER_ADDR"]
        worker_store = dist.TCPStore(host, int(os.environ["MASTER_PORT"]), is_master=False, timeout=timeout)
        rdzv_store = dist.TCPStore("127.0.0.1", rdzv_port, is_master=False, timeout=timeout)
        record["worker_store_keys"] = sorted(worker_store.list_keys())
        record["rdzv_store_keys"] = sorted(rdzv_store.list_keys())
        record["nccl_id_from_raw_store"] = worker_store.get("default_pg/0//cuda//0") == uid
    Path(args.out, f"rank{rank}.json").write_text(json.dumps(record, indent=1, sort_keys=True))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
