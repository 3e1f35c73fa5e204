"""Tests for the companion code of the post "NCCL Deep Dive: From P2P/CUMEM to torchrun Init".

nccl_lib.py loads the real libnccl.so.2 from the nvidia-nccl-cu12 wheel (downloaded by pip into a
cache outside the repository on first use) and checks what it returns; launch.py runs the real
torchrun with two gloo workers; ring_sim.py checks NCCL's ring schedule and the bandwidth model;
the committed figures must be exactly what figures.py renders.
"""

from __future__ import annotations

import importlib.util
import re
import socket
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "nccl_deep_dive"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "nccl-deep-dive"
POST = ROOT / "docs" / "blog" / "posts" / "nccl-deep-dive.md"
ALLOWED_CLASSES = {
    "fig-svg", "fig-plot", "fig-text", "fig-text-muted", "fig-text-small", "fig-mono", "fig-box",
    "fig-box-primary", "fig-box-accent", "fig-box-warn", "fig-box-ok", "fig-line",
    "fig-line-accent", "fig-line-dashed", "fig-arrow", "fig-grid", "fig-axis", "fig-legend",
    *(f"fig-series-{i}" for i in range(1, 5)), *(f"fig-fill-{i}" for i in range(1, 5)),
}


def _load(name: str):
    """Import an example under a post-specific module name (no shadowing between posts)."""
    sys.path.insert(0, str(EX))
    sys.path.insert(0, str(EX.parent))
    spec = importlib.util.spec_from_file_location(f"nccl_deep_dive_{name}", EX / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(*args: str, timeout: float = 600.0) -> str:
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT / "tests")  # any cwd must work
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


# ------------------------------------------------------------------ the unique-id layout, by hand

def test_parse_unique_id_reads_a_handle_built_by_hand():
    nccl_lib = _load("nccl_lib")
    raw = bytearray(128)
    struct.pack_into("<QH", raw, 0, 0x1122334455667788, socket.AF_INET)
    struct.pack_into(">H", raw, 10, 29500)
    raw[12:16] = socket.inet_aton("10.1.2.3")
    h = nccl_lib.parse_unique_id(bytes(raw))
    assert h == {"magic": "0x1122334455667788", "family": "AF_INET", "host": "10.1.2.3", "port": 29500,
                 "nRanks": 0, "zero_tail": True}
    raw[100] = 1
    assert nccl_lib.parse_unique_id(bytes(raw))["zero_tail"] is False


# ------------------------------------------------------------------ the real library

def test_real_libnccl_version_unique_id_and_init_failure():
    out = _run(str(EX / "nccl_lib.py"))
    assert "ncclGetVersion -> 23007" in out
    assert re.search(r"ncclGetUniqueId -> [0-9a-f]{80} \+ 88 zero bytes", out)
    assert re.search(r"bootstrap root listening on port \d+: True", out)
    assert re.search(r"ncclCommInitRank\(nranks=1\) -> [1-9]", out)  # no GPU: fails, and says so
    assert "all NCCL library checks passed" in out


def test_the_wheel_pin_matches_the_post():
    nccl_lib = _load("nccl_lib")
    assert nccl_lib.WHEEL_NAME == "nvidia-nccl-cu12==2.30.7"
    text = POST.read_text(encoding="utf-8")
    assert "nccl: v2.30.7-1" in text and "nvidia-nccl-cu12==2.30.7" in text


# ------------------------------------------------------------------ torchrun on the CPU

def test_torchrun_rendezvous_environment_and_store_exchange():
    out = _run(str(EX / "launch.py"))
    assert "all torchrun checks passed" in out
    for line in ["RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=2", "LOCAL_WORLD_SIZE=2", "GROUP_WORLD_SIZE=1",
                 "MASTER_ADDR=localhost", "TORCHELASTIC_USE_AGENT_STORE=True",
                 "TORCH_NCCL_ASYNC_ERROR_HANDLING=1", "OMP_NUM_THREADS=1"]:
        assert f"  {line}\n" in out, line
    rdzv = out.split("keys in the rendezvous store (--rdzv-endpoint):\n", 1)[1].split("keys in the workers'")[0]
    assert rdzv.split() == [
        "torch.rendezvous.nccl-deep-dive",
        "torch.rendezvous.nccl-deep-dive.0/MASTER_ADDR",
        "torch.rendezvous.nccl-deep-dive.0/MASTER_PORT",
        "torch.rendezvous.nccl-deep-dive.0/torchelastic/assigned_ranks/0",
        "torch.rendezvous.nccl-deep-dive.0/torchelastic/role_info/0",
    ]
    workers = out.split("keys in the workers' store (MASTER_ADDR:MASTER_PORT):\n", 1)[1].split("unique id")[0]
    assert workers.split() == ["default_pg/0//cpu//0/0", "default_pg/0//cpu//0/1", "default_pg/0//cuda//0"]
    assert "root listening: True" in out and "equal: True" in out


# ------------------------------------------------------------------ the ring

@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_ring_schedule_is_a_correct_allreduce_on_floats(n):
    ring_sim = _load("ring_sim")
    rng = np.random.default_rng(n)
    inputs = [rng.standard_normal(53) for _ in range(n)]
    outs, sent = ring_sim.ring_allreduce(inputs)
    for o in outs:
        np.testing.assert_allclose(o, np.sum(inputs, axis=0), rtol=1e-12, atol=1e-12)
    assert len(ring_sim.ring_schedule(0, n)) == 2 * (n - 1) + 1
    # at every step the n ranks send n different chunks, i.e. the whole buffer once
    assert sum(sent) == 2 * (n - 1) * inputs[0].nbytes


def test_ring_model_against_the_closed_form_and_the_script():
    ring_sim = _load("ring_sim")
    for n in (2, 5, 9):
        t = ring_sim.simulate_time(n, 1e6, [1e9] * n)
        assert t == pytest.approx(2 * (n - 1) / n * 1e6 / 1e9, rel=1e-12)
    out = _run(str(EX / "ring_sim.py"))
    assert "all ring checks passed" in out
    assert ("schedule for n=4, rank 0: [('send', 3), ('recvReduceSend', 2), ('recvReduceSend', 1), "
            "('recvReduceCopySend', 0), ('recvCopySend', 3), ('recvCopySend', 2), ('recv', 1)]") in out


# ------------------------------------------------------------------ figures

def test_committed_figures_are_what_figures_py_renders():
    figures = _load("figures")
    for name, svg in figures.render_all().items():
        committed = (FIG_DIR / name).read_text(encoding="utf-8")
        assert committed == svg, f"{name} is stale: run python examples/nccl_deep_dive/figures.py"
        assert "\n\n" not in committed
        width = float(re.search(r'viewBox="0 0 ([\d.]+) ', committed).group(1))
        assert width <= 680, name
        ids = re.findall(r'\bid="([^"]+)"', committed)
        assert ids and all(i.startswith("nccl-deep-dive-") for i in ids), name
        classes = {c for group in re.findall(r'class="([^"]+)"', committed) for c in group.split()}
        assert classes <= ALLOWED_CLASSES, classes - ALLOWED_CLASSES
        assert not re.search(r'(fill|stroke)="#', committed)
