"""Capture NCCL_DEBUG=INFO logs of communicator init on a CUDA machine, in one command.

Run (needs torch with CUDA and at least one GPU; it cannot run on a CPU-only machine):

    python examples/nccl_deep_dive/capture_log.py --out nccl_init.txt

Each run is a fresh process, because NCCL reads most of its variables once per process: one rank
on cuda:0 as shipped, the same with NCCL_CUMEM_ENABLE=0 (eager connection instead of runtime
connection), and, on a machine with two GPUs or more, two ranks under torchrun, which adds what a
one-rank communicator cannot show: real ring and tree neighbours and the per-channel
`via P2P/...` transport lines. `--dry-run` prints the plan and works anywhere.

`parse()` reads such a log back (the tests run it on the committed H200 log) and `excerpt()`
keeps the lines the post walks through, folding runs of near-identical lines.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

# ALLOC_HOST and DESTROY exist at 2.30.7 (src/debug.cc) but not at 2.28.9: the shared-memory
# allocation and "Destroy COMPLETE" lines moved there. 2.28.9 ignores names it does not know.
SUBSYS = "INIT,BOOTSTRAP,ENV,P2P,SHM,NET,GRAPH,ALLOC,ALLOC_HOST,PROXY,DESTROY"
HERE = Path(__file__).resolve()


# --8<-- [start:capture]
def plan(n_gpus: int) -> list[tuple[str, dict[str, str], list[str]]]:
    """(title, extra environment, command) of every run, for a machine with n_gpus GPUs."""
    one = [sys.executable, str(HERE), "--child"]
    runs = [("default", {}, one), ("NCCL_CUMEM_ENABLE=0", {"NCCL_CUMEM_ENABLE": "0"}, one)]
    if n_gpus >= 2:
        runs.append(("two ranks under torchrun", {}, [sys.executable, "-m", "torch.distributed.run",
                                                       "--nnodes", "1", "--nproc-per-node", "2",
                                                       str(HERE), "--child"]))
    return runs


def child() -> None:
    """One rank: eager init through device_id, one all-reduce, destroy; prints its timings."""
    import torch
    import torch.distributed as dist
    from torch.distributed.constants import default_pg_nccl_timeout, default_pg_timeout

    rank = int(os.environ.get("RANK", "0"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    if rank == 0:
        print(f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
              f"default_pg_timeout {default_pg_timeout}, default_pg_nccl_timeout {default_pg_nccl_timeout}",
              flush=True)
    start = time.perf_counter()
    dist.init_process_group("nccl", rank=rank, world_size=int(os.environ.get("WORLD_SIZE", "1")),
                            device_id=torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0"))))
    ready = time.perf_counter()
    x = torch.ones(1 << 20, device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    print(f"rank {rank}: init_process_group {ready - start:.3f} s, first all_reduce "
          f"{time.perf_counter() - ready:.3f} s, value {x[0].item()}", flush=True)
    dist.destroy_process_group()
# --8<-- [end:capture]


def capture(out: Path, n_gpus: int) -> None:
    parts = []
    for title, extra, cmd in plan(n_gpus):
        env = {**os.environ, "NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": SUBSYS, **extra}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        parts.append(f"### {title}\n{proc.stdout}{proc.stderr}")
        print(f"{title}: exit {proc.returncode}, {len((proc.stdout + proc.stderr).splitlines())} lines")
    out.write_text("".join(parts), encoding="utf-8")


# ---------------------------------------------------------------- reading a log back

PREFIX = re.compile(r"^(?P<host>[^:\s]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] NCCL INFO (?P<msg>.*)$")
TIMINGS = re.compile(r"Init timings - (?P<func>\w+): rank (?P<rank>\d+) nranks (?P<nranks>\d+) "
                     r"total (?P<total>[\d.]+) \((?P<parts>[^)]*)\)")


def sections(text: str) -> dict[str, list[str]]:
    """The log split at its '### title' lines."""
    out: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        if line.startswith("### "):
            name = line[4:]
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return out


def parse(lines: list[str]) -> dict:
    """What one run's log says about the init, as the post reads it."""
    msgs = [m["msg"] for m in map(PREFIX.match, lines) if m]
    start = next(m for m in msgs if m.endswith("Init START"))
    timing = next(TIMINGS.search(m) for m in msgs if TIMINGS.search(m))
    return {
        "version": next(m.split()[-1] for m in msgs if m.startswith("NCCL version")),
        "bootstrap": next(m.split("Using ", 1)[1] for m in msgs if m.startswith("Bootstrap: Using")),
        "network": next(m.split()[-1] for m in msgs if m.startswith("Using network")),
        "init_function": start.split()[0],
        "nranks": int(re.search(r"nranks (\d+)", start).group(1)),
        "timings": {"total": float(timing["total"]),
                    **{k: float(v) for k, v in (p.split() for p in timing["parts"].split(", "))}},
        "channels": sum(bool(re.match(r"Channel \d+/\d+ :", m)) for m in msgs),
        "transport_lines": [m for m in msgs if " via " in m],
        "proxy_connections": [m for m in msgs if m.startswith("New proxy")],
        "cuda_allocs": [int(x) for x in re.findall(r"Cuda Alloc Size (\d+)", "\n".join(msgs))],
        "shm": [m for m in msgs if "bytes of shared memory" in m],
        "env": [m for m in msgs if "set by environment" in m],
    }


FOLD = [r"Channel \d+/64 :", r"Ring \d+ :", r"Tree \d+ :", r"channel\.cc:\d+ Cuda Alloc"]
KEEP = [r"Bootstrap: Using", r"NCCL version", r"Comm config", r"NET/IB : No device", r"Failed to initialize NET",
        r"Initialized NET plugin", r"Using network", r"Init START", r"Bootstrap timings", r"set by environment",
        r"=== System", r"^CPU/", r"^\+ PCI", r"^ +\+ NET", r"^GPU/0-60 :", r"Pattern \d", r"nNodes",
        r"Trees \[0\]", r"P2P Chunksize", r"Check P2P Type", r"\[Proxy", r"shared memory", r"New proxy",
        r"Connected to proxy", r"transport/net\.cc", r"coll channels", r"Init COMPLETE", r"Init timings",
        r"Destroy COMPLETE"] + FOLD
# What NCCL_CUMEM_ENABLE=0 adds to the same init (eager connection, section "Sharing buffers").
KEEP_CUMEM0 = [r"set by environment", r"shared memory", r"New proxy", r"Connected to proxy", r"Proxy Progress",
               r"transport/net\.cc", r"Init timings"]


def excerpt(lines: list[str], width: int = 210, keep: list[str] = KEEP) -> list[str]:
    """The lines the post walks through, in order; a run of FOLD lines becomes its first and a count."""
    out: list[str] = []
    folding, folded = None, 0
    for line in lines:
        m = PREFIX.match(line)
        msg = m["msg"] if m else line
        if not m and not msg.startswith("init_process_group"):
            continue
        if m and not any(re.search(k, msg) for k in keep):
            continue
        kind = next((f for f in FOLD if re.search(f, msg)), None)
        if kind is not None and kind == folding:
            folded += 1
            continue
        if folded:
            out.append(f"  [... {folded} more lines like the one above]")
        folding, folded = kind, 0
        out.append(line if len(line) <= width else line[:width - 5] + " [...]")
    if folded:
        out.append(f"  [... {folded} more lines like the one above]")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("nccl_init.txt"), help="where to write the log")
    ap.add_argument("--dry-run", action="store_true", help="print the runs and exit (no GPU needed)")
    ap.add_argument("--gpus", type=int, default=None, help="GPU count to plan for (default: as detected)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child()
        return
    n_gpus = args.gpus
    if n_gpus is None:
        import torch
        n_gpus = torch.cuda.device_count()
    if args.dry_run:
        for title, extra, cmd in plan(n_gpus):
            env = " ".join(f"{k}={v}" for k, v in {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": SUBSYS, **extra}.items())
            print(f"{title}: {env} {' '.join(cmd[1:])}")
        return
    if n_gpus < 1:
        raise SystemExit("capture_log.py needs a CUDA GPU: torch.cuda.device_count() is 0")
    capture(args.out, n_gpus)


if __name__ == "__main__":
    main()
