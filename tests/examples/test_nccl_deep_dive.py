"""Tests for the companion code of the post "NCCL Deep Dive: From P2P/CUMEM to torchrun Init".

nccl_lib.py loads the real libnccl.so.2 from the nvidia-nccl-cu12 wheel (downloaded by pip into a
cache outside the repository on first use) and checks what it returns, including the trees of its
internal ncclGetDtree; launch.py runs the real torchrun with two gloo workers; ring_sim.py's ring
and tree schedules are run on arrays and give the figure's traces; capture_log.py's parser reads
the committed H200 log; torch_binary.py reads the CUDA build of torch 2.13.0 (downloaded the same
way) with nm and objdump; the committed figures and files must be exactly what figures.py renders.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
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
TORCH_INCLUDE = Path(__import__("torch").__file__).parent / "include" / "torch" / "csrc" / "distributed" / "c10d"
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



# ------------------------------------------------------------------ torch 2.13.0's compiled ProcessGroupNCCL

def test_calls_reads_arguments_of_getcvar_calls():
    """calls() on objdump lines written by hand: the default comes from %esi (mov or xor), the
    variable from the lea into %rdi, and nothing from instructions further back than the set-up."""
    torch_binary = _load("torch_binary")
    insns = [
        "  10:\tmov    $0x80,%esi",
        "  15:\tlea    0x1(%rip),%rdi        # 40 <c10d::TORCH_NCCL_RANKS_PER_ROOT>",
        "  1c:\tcall   90 <c10d::getCvarInt(std::vector<std::string> const&, int)>",
        "  21:\txor    %esi,%esi",
        "  23:\tlea    0x1(%rip),%rdi        # 48 <c10d::TORCH_NCCL_HIGH_PRIORITY>",
        "  2a:\tcall   a0 <c10d::getCvarBool(std::vector<std::string> const&, bool)>",
        "  2f:\tcall   b0 <ncclGetUniqueId@plt>",
        "  34:\tcall   c0 <c10d::NCCLComm::create(int, int, ncclUniqueId, signed char, ncclConfig_v22800&)>",
    ]
    assert torch_binary.calls(insns) == ["getCvarInt(TORCH_NCCL_RANKS_PER_ROOT, 128)",
                                         "getCvarBool(TORCH_NCCL_HIGH_PRIORITY, 0)",
                                         "ncclGetUniqueId", "NCCLComm::create(…, ncclConfig&)"]


def test_the_cuda_build_of_torch_2_13_makes_communicators_as_the_post_says():
    out = _run(str(EX / "torch_binary.py"))
    assert "all torch binary checks passed" in out
    version = re.search(r"torch 2\.13\.0\+cu130 wheel, git (\w+); the installed torch 2\.13\.0\S*, git (\w+)", out)
    assert version and version.group(1) == version.group(2) == "cf30153c4c13"
    listing = out.split("order they run in:\n", 1)[1].split("NCCLComm::create(config)")[0]
    init = [ln.strip() for ln in listing.splitlines()]
    for call in ("getCvarInt(TORCH_NCCL_RANKS_PER_ROOT, 128)", "getCvarBool(TORCH_NCCL_BCAST_UNIQUEID, 1)",
                 "ncclGetUniqueId", "ProcessGroupNCCL::broadcastUniqueNCCLID", "NCCLComm::split",
                 "ProcessGroupNCCL::allgatherUniqueNCCLIDs", "NCCLComm::create_scalable"):
        assert call in init, call
    assert "NCCLComm::create(…, ncclConfig&)" in init and "NCCLComm::create(no config)" not in init
    assert "NCCLComm::create(config) -> ncclCommInitRankConfig\n" in out
    assert "NCCLComm::create(no config) -> ncclCommInitRank\n" in out
    assert "NCCLComm::create_scalable -> ncclCommInitRankScalable\n" in out
    assert re.search(r"NCCLComm::split -> ncclCommSplit\b", out)
    assert "allgatherUniqueNCCLIDs loads the string 'UniqueNCCLID:': True" in out
    assert ("collective<> of allreduce_impl calls: ProcessGroupNCCL::getNCCLComm, "
            "ProcessGroupNCCL::initNCCLComm\n") in out
    assert "initializeDeviceStateForComm is called by: ProcessGroupNCCL::shrink\n" in out
    # the two variables are also declared in the header the wheels ship (identical in both)
    header = (TORCH_INCLUDE / "ProcessGroupNCCL.hpp").read_text(encoding="utf-8")
    assert '"TORCH_NCCL_BCAST_UNIQUEID"' in header and '"TORCH_NCCL_RANKS_PER_ROOT"' in header

# ------------------------------------------------------------------ torchrun on the CPU

def test_torchrun_rendezvous_environment_and_store_exchange():
    out = _run(str(EX / "launch.py"))
    assert "all torchrun checks passed" in out
    # No rendezvous argument: run() switched the static default to c10d on localhost:0.
    assert "  rdzv_backend : c10d\n" in out and "  rdzv_endpoint : localhost:0\n" in out
    for line in ["RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=2", "LOCAL_WORLD_SIZE=2", "GROUP_WORLD_SIZE=1",
                 "MASTER_ADDR=localhost", "TORCHELASTIC_USE_AGENT_STORE=True",
                 "TORCH_NCCL_ASYNC_ERROR_HANDLING=1", "OMP_NUM_THREADS=1"]:
        assert f"  {line}\n" in out, line
    run_id = re.search(r"TORCHELASTIC_RUN_ID=([0-9a-f-]{36})\n", out).group(1)
    rdzv = out.split("keys in the rendezvous store (localhost:<that port>):\n", 1)[1].split("keys in the workers'")[0]
    prefix = f"torch.rendezvous.{run_id}"
    assert rdzv.split() == [prefix, f"{prefix}.0/MASTER_ADDR", f"{prefix}.0/MASTER_PORT",
                            f"{prefix}.0/torchelastic/assigned_ranks/0", f"{prefix}.0/torchelastic/role_info/0"]
    workers = out.split("keys in the workers' store (MASTER_ADDR:MASTER_PORT):\n", 1)[1].split("unique id")[0]
    assert workers.split() == ["default_pg/0//cpu//0/0", "default_pg/0//cpu//0/1", "default_pg/0//cuda//0"]
    assert "root listening: True" in out and "equal: True" in out


# ------------------------------------------------------------------ ring and tree

@pytest.mark.parametrize("n", [2, 3, 4, 7, 8])
@pytest.mark.parametrize(("algo", "k"), [("ring", 1), ("tree", 1), ("tree", 2), ("tree", 4)])
def test_schedules_are_correct_allreduces_on_floats(algo, k, n):
    ring_sim = _load("ring_sim")
    rng = np.random.default_rng(n)
    inputs = [rng.standard_normal(53) for _ in range(n)]
    steps = ring_sim.ring_steps(n) if algo == "ring" else ring_sim.tree_steps(n, k)
    for o in ring_sim.apply_steps(steps, inputs, n if algo == "ring" else 2 * k):
        np.testing.assert_allclose(o, np.sum(inputs, axis=0), rtol=1e-12, atol=1e-12)
    for msgs in steps:   # one message out and one in per GPU and step
        assert len({m.src for m in msgs}) == len(msgs) == len({m.dst for m in msgs})
    cost = ring_sim.cost(algo, n, k)
    assert cost["sent_total"] == 2 * (n - 1)            # both move 2(n-1)·S in all
    if algo == "ring":
        assert cost["steps"] == 2 * (n - 1) and cost["busbw"] == 1
        assert [op for op, _ in ring_sim.ring_schedule(0, n)][-1] == "recv"


def test_the_step_counts_the_post_quotes():
    ring_sim = _load("ring_sim")
    assert (len(ring_sim.ring_steps(8)), len(ring_sim.tree_steps(8, 1))) == (14, 10)
    tree = [len(ring_sim.tree_steps(n, 1)) for n in (8, 16, 32)]
    ring = [len(ring_sim.ring_steps(n)) for n in (8, 16, 32)]
    assert tree == [10, 14, 18] and ring == [14, 30, 62]   # the gap grows with n


def test_dtree_port_matches_the_real_library():
    """ncclGetDtree is internal to libnccl.so.2; it is called through the library's symbol table."""
    ring_sim = _load("ring_sim")
    nccl_lib = _load("nccl_lib")
    lib = nccl_lib.load()
    for n in range(1, 65):
        for r in range(n):
            assert ring_sim.dtree(n, r) == nccl_lib.real_dtree(lib, n, r), (n, r)


def test_traces_count_what_the_sets_say():
    ring_sim = _load("ring_sim")
    data = json.loads((FIG_DIR / "allreduce-steps.json").read_text(encoding="utf-8"))
    assert data == json.loads(ring_sim.traces_json())
    scenario = next(s for s in data["scenarios"] if (s["algo"], s["n"], s["k"]) == ("tree", 5, 2))
    steps = ring_sim.tree_steps(5, 2)
    have = [[frozenset({r})] * 4 for r in range(5)]
    for msgs, row in zip(steps, scenario["steps"], strict=True):
        for m in msgs:
            have[m.dst][m.unit] = m.ranks if len(m.ranks) == 5 else have[m.dst][m.unit] | m.ranks
        assert row["have"] == [[len(x) for x in h] for h in have]
    assert scenario["sent_max"] == str(ring_sim.cost("tree", 5, 2)["sent_max"])
    assert {(s["algo"], s["k"]) for s in data["scenarios"]} == {("ring", 1), ("tree", 1), ("tree", 2), ("tree", 4)}


def test_ring_sim_script():
    out = _run(str(EX / "ring_sim.py"))
    assert "all ring and tree checks passed" in out
    assert ("schedule for n=4, rank 0: [('send', 3), ('recvReduceSend', 2), ('recvReduceSend', 1), "
            "('recvReduceCopySend', 0), ('recvCopySend', 3), ('recvCopySend', 2), ('recv', 1)]") in out
    assert "n=8 ring k=1: 14 steps, each GPU sent at most 7/4·S, busbw 1.000·B" in out


# ------------------------------------------------------------------ the H200 log and its capture script

def _log_runs() -> dict:
    capture = _load("capture_log")
    return capture.sections((FIG_DIR / "nccl_init_one_gpu.txt").read_text(encoding="utf-8"))


def test_the_h200_log_says_what_the_post_reads_in_it():
    capture = _load("capture_log")
    runs = _log_runs()
    default, cumem0 = capture.parse(runs["default"]), capture.parse(runs["NCCL_CUMEM_ENABLE=0"])
    assert default["version"] == cumem0["version"] == "2.28.9+cuda13.0"
    assert default["init_function"] == "ncclCommInitRankConfig" and default["nranks"] == 1
    assert default["bootstrap"] == "eth0:192.0.2.2<0>" and default["network"] == "Socket"
    assert default["timings"]["total"] == 0.53 and default["timings"]["kernels"] == 0.48
    assert default["timings"]["connections"] == 0.01 and cumem0["timings"]["kernels"] == 0.27
    assert default["channels"] == 64
    assert default["transport_lines"] == [] == cumem0["transport_lines"]      # one rank: no peer
    assert default["proxy_connections"] == [] and default["shm"] == []        # runtime connection
    assert cumem0["proxy_connections"] == ["New proxy send connection 0 from local rank 0, transport 2"]
    assert cumem0["env"] == ["NCCL_CUMEM_ENABLE set by environment to 0."]
    # 64 p2p channels x NCCL_SHARED_STEPS (16) x the 512 KiB P2P chunk of the log's own line
    assert "P2P Chunksize set to 524288" in "\n".join(runs["NCCL_CUMEM_ENABLE=0"])
    assert max(cumem0["cuda_allocs"]) == 64 * 16 * 524288 == 512 * 2**20
    assert max(default["cuda_allocs"]) < 2**20
    assert "init_process_group 0.921s, first all_reduce 0.044s, value 1.0" in runs["default"]
    assert "default_pg_timeout 0:30:00 default_pg_nccl_timeout 0:10:00" in POST.read_text(encoding="utf-8")
    # the log's last section: its heading names TORCH_NCCL_ASYNC_ERROR_HANDLING, but what it prints
    # is the two default timeouts, which the post quotes
    assert runs["TORCH_NCCL_ASYNC_ERROR_HANDLING defaults"] == [
        "default_pg_timeout 0:30:00 default_pg_nccl_timeout 0:10:00"]


def test_the_log_excerpts_are_lines_of_the_log():
    log = (FIG_DIR / "nccl_init_one_gpu.txt").read_text(encoding="utf-8").splitlines()
    for name in ("log-default.txt", "log-cumem0.txt"):
        for line in (FIG_DIR / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("  [... "):
                continue
            assert any(full.startswith(line.removesuffix(" [...]")) for full in log), line
    text = POST.read_text(encoding="utf-8")
    assert "Line 33 and 34" not in text and "**Lines 33 and 34**" in text   # the walk's numbering
    default = (FIG_DIR / "log-default.txt").read_text(encoding="utf-8").splitlines()
    assert "Init COMPLETE" in default[32] and "Init timings" in default[33] and "Destroy" in default[35]
    assert "[Proxy Service]" in default[27] and "P2P Chunksize" in default[25]


@pytest.mark.parametrize(("gpus", "runs"), [(1, 2), (2, 3)])
def test_capture_script_plans_without_a_gpu(gpus, runs):
    out = _run(str(EX / "capture_log.py"), "--dry-run", "--gpus", str(gpus))
    lines = out.splitlines()
    assert len(lines) == runs
    assert all("NCCL_DEBUG=INFO" in ln and "--child" in ln for ln in lines)
    assert "NCCL_CUMEM_ENABLE=0" in lines[1]
    assert ("torch.distributed.run --nnodes 1 --nproc-per-node 2" in out) == (gpus >= 2)


def test_default_timeouts_on_this_wheel_and_header():
    from torch._C._distributed_c10d import _DEFAULT_PG_TIMEOUT
    assert _DEFAULT_PG_TIMEOUT == datetime.timedelta(minutes=30)
    header = (TORCH_INCLUDE / "ProcessGroupNCCL.hpp").read_text(encoding="utf-8").splitlines()
    assert header[156:158] == ["constexpr auto kProcessGroupNCCLDefaultTimeout =",
                               "    std::chrono::milliseconds(10 * 60 * 1000);"]


def test_torch_header_anchors_hold_their_symbols():
    """The post's links into torch's C++ headers, checked against the headers the 2.13.0 wheel ships."""
    text = POST.read_text(encoding="utf-8")
    links = re.findall(r"\[`([^`]+)`\]\(https://github\.com/pytorch/pytorch/blob/v2\.13\.0/torch/csrc/"
                       r"distributed/c10d/(\w+\.hpp)#L(\d+)-L(\d+)\)", text)
    assert len(links) >= 10
    for symbol, name, start, end in links:
        lines = (TORCH_INCLUDE / name).read_text(encoding="utf-8").splitlines()[int(start) - 1:int(end)]
        last = re.split(r"::|\.", symbol)[-1]
        assert any(re.search(rf"(?<!\w){re.escape(last)}(?!\w)", ln) for ln in lines), (symbol, name, start)


# ------------------------------------------------------------------ figures

def test_committed_figures_are_what_figures_py_renders():
    figures = _load("figures")
    rendered = figures.render_all()
    assert {p.name for p in FIG_DIR.iterdir()} == set(rendered) | {"nccl_init_one_gpu.txt"}
    for name, content in rendered.items():
        committed = (FIG_DIR / name).read_text(encoding="utf-8")
        assert committed == content, f"{name} is stale: run python examples/nccl_deep_dive/figures.py"
        if not name.endswith(".svg"):
            continue
        assert "\n\n" not in committed
        width = float(re.search(r'viewBox="0 0 ([\d.]+) ', committed).group(1))
        narrow = name.endswith("-narrow.svg")
        assert width <= (380 if narrow else 680), name
        assert ('class="fig-svg fig-svg--narrow"' in committed) == narrow
        ids = re.findall(r'\bid="([^"]+)"', committed)
        assert ids and all(i.startswith("nccl-deep-dive-") for i in ids), name
        assert all(("-narrow-" in i) == narrow for i in ids), name
        classes = {c for group in re.findall(r'class="([^"]+)"', committed) for c in group.split()}
        assert classes <= ALLOWED_CLASSES | {"fig-svg--narrow"}, classes - ALLOWED_CLASSES
        assert not re.search(r'(fill|stroke)="#', committed)
        sizes = [int(x) for x in re.findall(r'font-size="(\d+)"', committed)]
        assert min(sizes) >= 11, name


def test_every_wide_figure_has_its_narrow_twin_in_the_same_figure():
    text = POST.read_text(encoding="utf-8")
    for wide in ("map", "p2p"):
        include = f'--8<-- "docs/blog/posts/nccl-deep-dive/{wide}.svg"\n'
        twin = f'--8<-- "docs/blog/posts/nccl-deep-dive/{wide}-narrow.svg"\n'
        assert include + twin in text, wide
