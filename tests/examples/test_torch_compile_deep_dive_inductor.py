"""Tests for the companion code of "Torch.compile Deep Dive II — Inductor Codegen and Buffer
Lifetimes, End to End" (examples/torch_compile_deep_dive_inductor/).

capture.py runs once, in a subprocess (it must set TORCHINDUCTOR_FORCE_DISABLE_CACHES and
TORCHINDUCTOR_CACHE_DIR before torch is imported), into a temporary folder: three real Inductor
compiles on the CPU and one attempt at the Triton CPU backend. The assertions check the post's
claims against that fresh output (reuse, in-place updates, frees, fusion rounds, realization,
pooled planning, peak estimates) and against the committed artifacts the post includes; the
wrapper's call() is deterministic and compared line for line, the C++ kernels depend on the CPU's
vector ISA and are checked structurally. The figures are regenerated without torch. Every line
anchor in the post is checked against the installed torch 2.13.0 sources.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "torch_compile_deep_dive_inductor"
POST = ROOT / "docs" / "blog" / "posts" / "torch-compile-deep-dive-inductor.md"
POST_DIR = ROOT / "docs" / "blog" / "posts" / "torch-compile-deep-dive-inductor"


def _load(name: str):
    full = f"torch_compile_deep_dive_inductor_{name}"
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, EX / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
    return sys.modules[full]


lifetimes = _load("lifetimes")
figures = _load("figures")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One run of capture.py into a temporary folder (three cold CPU compiles, about a minute)."""
    out = tmp_path_factory.mktemp("capture")
    proc = subprocess.run([sys.executable, str(EX / "capture.py"), "--out", str(out)], cwd=out,
                          text=True, capture_output=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out, proc.stdout


def _art(folder: Path, name: str) -> str:
    return (folder / "capture" / f"{name}.txt").read_text(encoding="utf-8")


def _summary(folder: Path) -> dict:
    return json.loads((folder / "capture.json").read_text(encoding="utf-8"))


def test_capture_writes_the_committed_set_of_files(fresh):
    out, stdout = fresh
    assert sorted(p.name for p in (out / "capture").iterdir()) == sorted(
        p.name for p in (POST_DIR / "capture").iterdir())
    assert "cpu_backend='triton'" in stdout and "wrote 17 artifacts" in stdout


@pytest.mark.parametrize("name", ["mlp_call", "mlp_pooled_call", "realize_call"])
def test_wrapper_call_matches_the_committed_text(fresh, name):
    assert _art(fresh[0], name) == _art(POST_DIR, name)


@pytest.mark.parametrize("folder", ["fresh", "committed"])
def test_mlp_reuse_inplace_and_pool(fresh, folder):
    where = fresh[0] if folder == "fresh" else POST_DIR
    body = _art(where, "mlp_call").splitlines()
    # In-place updates (decide_inplace_update) and pool reuse (AllocateLine.plan) both print as
    # "bufB = bufA; del bufA  # reuse"; the lifetimes reader tells them apart by what came before.
    reuses = [line for line in body if line.endswith("# reuse")]
    assert reuses == ["buf1 = buf0; del buf0  # reuse", "buf3 = buf2; del buf2  # reuse",
                      "buf4 = buf1; del buf1  # reuse", "buf8 = buf3; del buf3  # reuse"]
    allocs = [line.split(" = ")[0] for line in body if "empty_strided_cpu" in line]
    assert allocs == ["buf0", "buf2", "buf5", "buf7"]
    # The relu kernels write in place: one in_out_ptr argument, right after the reuse line.
    assert body[body.index("buf1 = buf0; del buf0  # reuse") + 2] == "cpp_fused_relu_0(buf1)"
    assert "cpp_fused_relu_0 = async_compile.cpp_pybinding(['float*']" in _art(where, "mlp_output_code")
    tl = lifetimes.timeline(body, lifetimes.input_sizes_from_asserts(body))
    storage = {name: buf.storage for name, buf in tl.buffers.items()}
    assert storage["buf0"] == storage["buf1"] == storage["buf4"] == "s0"
    assert storage["buf2"] == storage["buf3"] == storage["buf8"] == "s1"
    assert tl.buffers["buf4"].reused_from == "buf1" and tl.buffers["buf8"].reused_from == "buf3"
    assert max(tl.live_bytes) == 16640 == 2 * 8192 + 2 * 128
    assert tl.returned == ["buf8"]


def test_mlp_frees_where_expected(fresh):
    body = _art(fresh[0], "mlp_call").splitlines()
    kinds = lifetimes.timeline(body, lifetimes.input_sizes_from_asserts(body)).kinds
    # Each input is deleted right after the extern mm that last reads it (a FreeLine).
    for mm, frees in [("extern_kernels.mm(arg0_1, arg1_1, out=buf0)", ["del arg0_1", "del arg1_1"]),
                      ("extern_kernels.mm(buf1, arg2_1, out=buf2)", ["del arg2_1"]),
                      ("extern_kernels.mm(buf3, arg3_1, out=buf4)", ["del arg3_1"])]:
        i = body.index(mm)
        assert body[i + 1:i + 1 + len(frees)] == frees
    # No buffer is deleted by a plain del: the frees of buf1/buf3 became reuses, and the trailing
    # frees of buf4, buf5, buf7 were popped by memory_plan_reuse.
    assert not [line for line in body if re.fullmatch(r"del buf\d+", line)]
    assert kinds.count("free") == 4 and body[-1] == "return (buf8, )"
    # Input asserts are deferred to the first reader; source comments include unrealized args.
    assert body.index("assert_size_stride(arg3_1, (64, 64), (64, 1), 'input')") > body.index(
        "extern_kernels.mm(buf1, arg2_1, out=buf2)")
    i = body.index("extern_kernels.mm(buf1, arg2_1, out=buf2)")
    assert body[i - 1] == ("# Topologically Sorted Source Nodes: [h, matmul_1], "
                           "Original ATen: [aten.relu, aten.mm]")
    assert not body[body.index("cpp_fused_relu_0(buf1)") - 1].startswith("#")
    assert "    fn = lambda: call(list(args))" in _art(fresh[0], "mlp_output_code")


def test_mlp_fusion_rounds_and_refusal(fresh):
    log = _art(fresh[0], "mlp_fusion")
    assert log == _art(POST_DIR, "mlp_fusion")
    rounds = log.split("===== attempting fusion")
    assert "fusing op6 with op7" in rounds[1]
    assert "cannot fuse op6 with op8: intermediate nodes between node1 & node2" in rounds[1]
    assert "fusing op5 with op6_op7" in rounds[2] and "fusing op5_op6_op7 with op8" in rounds[2]
    assert "found 0 possible fusions" in rounds[3] and "fusion complete (3 iterations)" in log
    post = _art(fresh[0], "mlp_ir_post_fusion")
    assert "op5_op6_op7_op8: OuterLoopFusedSchedulerNode(" in post
    assert len(re.findall(r"^op\w+: ExternKernelSchedulerNode", post, re.M)) == 3
    summary = _summary(fresh[0])["programs"]["mlp"]
    assert summary["kernels"] == ["cpp_fused_relu_0", "cpp_fused_mul_relu_1", "cpp_fused__softmax_2"]
    assert summary["extern_calls"] == ["extern_kernels.mm"] * 3
    # relu and mul were inlined by lowering: one scheduler node before any fusion.
    pre = _art(fresh[0], "mlp_ir_pre_fusion")
    op3 = pre.split("op3: SchedulerNode")[1].split("op4:")[0]
    assert "ops.relu(" in op3 and "ops.mul(" in op3


def test_exp_buffer_is_realized_then_kernel_local(fresh):
    pre = _art(fresh[0], "mlp_ir_pre_fusion")
    assert "op6.writes = [MemoryDep('buf6', c0, {c0: 2048})]" in pre
    assert "buf6" not in _art(fresh[0], "mlp_call")
    kernel = _art(fresh[0], "mlp_kernel_cpp_fused__softmax_2")
    assert "local_buffer_data_0 = buf_local_buffer_data_0.get();" in kernel
    assert "std::make_unique<float []>(64L)" in kernel
    signature = kernel.split("{", 1)[0]
    assert re.findall(r"(in_ptr\d|out_ptr\d|in_out_ptr\d)", signature) == [
        "in_ptr0", "out_ptr0", "out_ptr1", "out_ptr2"]


def test_realize_demo_inlines_sin_and_realizes_sigmoid(fresh):
    pre = _art(fresh[0], "realize_ir_pre_fusion")
    assert pre == _art(POST_DIR, "realize_ir_pre_fusion")
    op0 = pre.split("class op0_loop_body")[1].split("op1:")[0]
    assert op0.count("ops.sin(") == 2 and op0.count("ops.load('arg0_1'") == 2
    op1 = pre.split("class op1_loop_body")[1].split("op2:")[0]
    assert "ops.sigmoid(" in op1 and "ops.store('buf1'" in op1
    assert "fusing op0 with op1" in _art(fresh[0], "realize_fusion")
    assert "fusing op0_op1 with op2" in _art(fresh[0], "realize_fusion")
    kernel = _art(fresh[0], "realize_kernel_cpp_fused_add_cos_mul_rsub_sigmoid_sin_0")
    assert kernel.count(".sin()") == 1          # the kernel's CSE merged the two sines
    assert "in_out_ptr0" in kernel.split("{", 1)[0]
    assert "buf2 = buf1; del buf1  # reuse" in _art(fresh[0], "realize_call")


def test_pooled_plan_uses_two_pools(fresh):
    body = _art(fresh[0], "mlp_pooled_call").splitlines()
    assert "pool1 = empty_strided_cpu((8448, ), (1, ), torch.uint8)" in body
    assert "pool0 = empty_strided_cpu((32, 64), (64, 1), torch.float32)" in body
    assert "buf5 = alloc_from_pool(pool1, 8192, torch.float32, (32, 1), (1, 32))" in body
    assert "buf7 = alloc_from_pool(pool1, 8320, torch.float32, (32, 1), (1, 32))" in body
    assert "buf4 = buf0  # alloc" in body and "buf8 = buf2  # alloc" in body
    assert "del pool1, buf0, buf1, buf4, buf5, buf7" in body
    assert sum("empty_strided_cpu" in line for line in body) == 2


def test_peak_memory_estimates(fresh):
    summary = _summary(fresh[0])
    log = summary["programs"]["mlp"]["memory_log"]
    assert log == _summary(POST_DIR)["programs"]["mlp"]["memory_log"]
    # buf4 plus the fused softmax node's four outputs (buf5..buf8), inputs not counted.
    assert log[1] == f"Baseline peak memory: {3 * 8192 + 2 * 128}"
    assert all(line.endswith(": 24832") for line in log[1:])
    assert summary["programs"]["realize"]["memory_log"][1] == f"Baseline peak memory: {3 * 32768}"


def test_planner_probe_reuse_decision_and_pool_groups(tmp_path):
    """planner_probe.py observes the real planners: the numbers behind buf4 = buf1 and the pools."""
    proc = subprocess.run([sys.executable, str(EX / "planner_probe.py")], cwd=tmp_path, text=True,
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    decisions = {(d["freed"], d["allocated"]): d for d in records
                 if d["kind"] == "reuse_decisions"}
    assert list(decisions) == [("buf1", "buf4"), ("buf3", "buf8")]
    gap = decisions["buf1", "buf4"]     # freed at op2, allocated at op4: the peak test decides
    assert (gap["adjacent"], gap["overall_peak"], gap["peak_between"], gap["size"]) == (
        False, 24832, 16384, 8192)
    assert gap["peak_between"] + gap["size"] == 24576 <= gap["overall_peak"] and gap["reused"]
    assert decisions["buf3", "buf8"]["adjacent"] and decisions["buf3", "buf8"]["reused"]
    groups = {tuple(g["names"]): (g["pool"], g["offset"], g["is_output"])
              for g in records if g["kind"] == "pool_groups"}
    assert groups == {("buf0", "buf1"): ("pool1", 0, False), ("buf2", "buf3"): ("pool0", 0, False),
                      ("buf4",): ("pool1", 0, False), ("buf5",): ("pool1", 8192, False),
                      ("buf7",): ("pool1", 8320, False), ("buf8",): ("pool0", 0, True)}


def test_triton_source_cannot_be_generated_here(fresh):
    assert _summary(fresh[0])["cpu_backend_triton"] == (
        "InductorError: ModuleNotFoundError: No module named 'triton'")


def test_figures_are_what_figures_py_makes(tmp_path):
    (tmp_path / "capture").mkdir()
    shutil.copy(POST_DIR / "capture" / "mlp_call.txt", tmp_path / "capture" / "mlp_call.txt")
    figures.write_all(tmp_path)
    for name in ("lifetimes.json", "lifetimes.svg", "lifetime-explorer.html"):
        assert (tmp_path / name).read_text() == (POST_DIR / name).read_text(), name


def test_explorer_rows_follow_the_wrapper():
    html = (POST_DIR / "lifetime-explorer.html").read_text()
    rows = re.findall(r'<tr data-line="(\d+)" data-kind="(\w+)" data-live-bytes="(\d+)" '
                      r'data-holders="([^"]*)">', html)
    body = (POST_DIR / "capture" / "mlp_call.txt").read_text().splitlines()
    assert [int(r[0]) for r in rows] == list(range(len(body)))
    by_line = {int(r[0]): r for r in rows}
    reuse = body.index("buf4 = buf1; del buf1  # reuse")
    assert by_line[reuse][3].split(",")[0] == "buf4"          # s0 changes hands on that line
    assert max(int(r[2]) for r in rows) == 16640


def test_post_quotes_the_measured_numbers():
    text = POST.read_text(encoding="utf-8")
    assert "24,832" in text and "16,640" in text and "8,448" in text
    summary = _summary(POST_DIR)
    for key in ("mlp", "mlp_pooled"):
        assert f"{summary['programs'][key]['first_call_s']:.2f} s" in text
    assert summary["vec_isa"] == "avx2" and "AVX2" in text


_ANCHOR = re.compile(r"\[`([\w.]+)`\]\(https://github\.com/pytorch/pytorch/blob/v2\.13\.0/"
                     r"(torch/[\w/]+\.py)#L(\d+)(?:-L(\d+))?\)")


def test_line_anchors_point_at_the_symbol():
    torch = pytest.importorskip("torch")
    site = Path(torch.__file__).parent.parent
    links = _ANCHOR.findall(POST.read_text(encoding="utf-8"))
    assert len(links) > 60
    for symbol, path, start, end in links:
        lines = (site / path).read_text(encoding="utf-8").splitlines()
        chunk = "\n".join(lines[int(start) - 1:int(end or start)])
        assert symbol.split(".")[-1] in chunk, (symbol, path, start, end)
