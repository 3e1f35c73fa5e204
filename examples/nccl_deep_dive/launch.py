"""Launch two CPU workers with torchrun (gloo) and print what they recorded.

Run:  python examples/nccl_deep_dive/launch.py

The launcher is the real torch.distributed.run from PyTorch 2.13.0, started as most people start
it on one machine: `torchrun --nnodes 1 --nproc-per-node 2 worker.py`, no rendezvous arguments.
run() then switches the default static backend to c10d on localhost:0 with a random run id, the
switch --standalone makes explicitly; the workers find the rendezvous store's port among the
ports their agent listens on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import nccl_lib  # noqa: E402


def run(nproc: int = 2) -> tuple[list[dict], str]:
    nccl_lib.library_path()                      # download/unpack once, before the workers start
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
               "--nproc-per-node", str(nproc), str(HERE / "torchrun_worker.py"), "--out", out]
        env = {**os.environ, "LOGLEVEL": "INFO", "NCCL_SOCKET_IFNAME": "lo"}
        env.pop("OMP_NUM_THREADS", None)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=HERE.parent)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        records = [json.loads(Path(out, f"rank{r}.json").read_text()) for r in range(nproc)]
    return records, proc.stderr


def main() -> None:
    records, log = run()
    r0, r1 = records
    agent = [ln for ln in log.splitlines() if "Rendezvous complete" in ln or "master_port=" in ln
             or "global_ranks=" in ln or "use_agent_store" in ln or " rdzv_backend " in ln
             or " rdzv_endpoint " in ln]
    print("agent log (torchrun, LOGLEVEL=INFO):")
    shown = [" ".join(ln.split("] ", 1)[-1].split()) for ln in agent]
    for ln in shown:
        print("  " + ln)
    # No rendezvous argument was given and --nnodes is 1: run() chose c10d on localhost:0.
    assert "rdzv_backend : c10d" in shown and "rdzv_endpoint : localhost:0" in shown
    print("worker environment (rank 1):")
    for k, v in r1["env"].items():
        print(f"  {k}={v}")
    print(f"ports the agent listens on: {r0['agent_ports']}, rendezvous store on {r0['rdzv_port']}")
    print("keys in the rendezvous store (localhost:<that port>):")
    for k in r0["rdzv_store_keys"]:
        print("  " + k)
    print("keys in the workers' store (MASTER_ADDR:MASTER_PORT):")
    for k in r0["worker_store_keys"]:
        print("  " + k)
    h = r0["handle"]
    print(f"unique id from rank 0's libnccl: magic {h['magic']} {h['host']}:{h['port']}, "
          f"root listening: {r0['root_listening']}")
    print(f"sha256 of the id on each rank equal: {len(set(r0['uid_digests'])) == 1}")
    print(f"all_reduce of [rank+1]*4: {r0['allreduce']}")
    # c10d rendezvous: MASTER_PORT is a second TCPStore that rank 0's agent opened on a free
    # port, neither the rendezvous store nor the static backend's default 29500.
    assert r0["env"]["MASTER_PORT"] not in ("29500", str(r0["rdzv_port"]))
    assert len(r0["agent_ports"]) == 2 and int(r0["env"]["MASTER_PORT"]) in r0["agent_ports"]
    run_id = r0["env"]["TORCHELASTIC_RUN_ID"]
    assert len(run_id) == 36 and run_id.count("-") == 4           # uuid4(), as --standalone sets
    assert r0["rdzv_store_keys"][0] == f"torch.rendezvous.{run_id}"
    assert [r["env"]["RANK"] for r in records] == ["0", "1"]
    assert all(r["env"]["TORCHELASTIC_USE_AGENT_STORE"] == "True" for r in records)
    assert len(set(r0["uid_digests"])) == 1 and r0["root_listening"] and r0["nccl_id_from_raw_store"]
    assert r0["allreduce"] == [3.0] * 4 == r1["allreduce"]
    assert "default_pg/0//cuda//0" in r0["worker_store_keys"]
    print("all torchrun checks passed")


if __name__ == "__main__":
    main()
