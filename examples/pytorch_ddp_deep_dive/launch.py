"""Run a function on N gloo ranks on this machine and collect what each rank returns.

Every example in this folder is a real multi-process DDP run: two CPU processes, the gloo
backend, a rendezvous on a free TCP port of 127.0.0.1. Nothing leaves the machine.
"""

from __future__ import annotations

import gc
import os
import socket
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch._dynamo  # before init_process_group: see _entry
import torch.distributed as dist
import torch.multiprocessing as mp


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody is listening on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gloo_threads() -> list[str]:
    """Names of this process's native gloo threads (Linux; empty where /proc is missing)."""
    tasks = Path("/proc/self/task")
    names = []
    for t in tasks.iterdir() if tasks.is_dir() else []:
        try:
            names.append((t / "comm").read_text().strip())
        except OSError:  # the thread exited meanwhile
            pass
    return [n for n in names if "gloo" in n]


def _entry(rank: int, world_size: int, port: int, fn: Callable[..., Any], args: tuple,
           queue: Any) -> None:
    # One intra-op thread per rank: the two ranks share the two cores of the CI machine.
    torch.set_num_threads(1)
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    # torch._dynamo is imported above, before the process group exists (DDP's constructor
    # would import it later, after the group): part of the shutdown precaution below.
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world_size)
    try:
        queue.put((rank, fn(rank, world_size, *args), None))
    except BaseException:  # report the failure to the parent instead of hanging it
        queue.put((rank, None, traceback.format_exc()))
        dist.destroy_process_group()
        raise
    # Deliberate shutdown: ranks ended with a plain destroy_process_group() sometimes aborted at
    # exit with "terminate called without an active exception". As a precaution, drop what
    # still holds the group, wait until every rank has finished every collective, destroy the
    # group, and check that no gloo thread is left.
    torch._dynamo.reset()
    gc.collect()
    dist.barrier()
    dist.destroy_process_group()
    gc.collect()
    if _gloo_threads():
        # Something still holds the group (after torch.compile), so its threads outlive this
        # function: skip the interpreter's finalization. The result is already in the pipe.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def run_ranks(fn: Callable[..., Any], *args: Any, world_size: int = 2) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` on ``world_size`` gloo ranks; return results by rank.

    ``fn`` must be importable by the spawned children (a module-level function).
    """
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(_entry, args=(world_size, free_port(), fn, args, queue), nprocs=world_size,
             join=True)
    results: list[Any] = [None] * world_size
    for _ in range(world_size):
        rank, value, err = queue.get()
        if err is not None:
            raise RuntimeError(f"rank {rank} failed:\n{err}")
        results[rank] = value
    return results
