"""Tests for the companion code of "Torch.compile Deep Dive II — Inductor Codegen and Buffer
Lifetimes, End to End" (examples/torch_compile_deep_dive_inductor/).

capture.py runs once, in a subprocess (it must set TORCHINDUCTOR_FORCE_DISABLE_CACHES and
TORCHINDUCTOR_CACHE_DIR before torch is imported), into a temporary folder: three real Inductor
compiles on the CPU. triton_codegen.py runs once the
same way: 2.13.0's CUDA code generation for both programs, without a GPU; its output is compared
with the committed cuda/ files and with the H200's (torch 2.11.0) excerpts in h200/. The assertions check the post's
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
    assert "wrote 17 artifacts" in stdout


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
    assert storage["buf0"] == storage["buf1"] == storage["buf4"] == "A"
    assert storage["buf2"] == storage["buf3"] == storage["buf8"] == "B"
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
    # Input asserts are deferred to the first reader (the second mm reads arg2_1), but the C++
    # backend writes a kernel's call at its flush, after the assert: the relu's call comes next.
    assert body.index("assert_size_stride(arg3_1, (64, 64), (64, 1), 'input')") > body.index(
        "extern_kernels.mm(buf1, arg2_1, out=buf2)")
    i = body.index("assert_size_stride(arg2_1, (64, 64), (64, 1), 'input')")
    assert body[i + 1] == "cpp_fused_relu_0(buf1)"
    assert body[i + 2:i + 5] == ["buf2 = empty_strided_cpu((32, 64), (64, 1), torch.float32)",
                                 "# Topologically Sorted Source Nodes: [h, matmul_1], "
                                 "Original ATen: [aten.relu, aten.mm]",
                                 "extern_kernels.mm(buf1, arg2_1, out=buf2)"]
    # Source comments include unrealized args.
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


def test_figures_are_what_figures_py_makes(tmp_path):
    (tmp_path / "capture").mkdir()
    shutil.copy(POST_DIR / "capture" / "mlp_call.txt", tmp_path / "capture" / "mlp_call.txt")
    figures.write_all(tmp_path)
    for name in ("lifetimes.json", "lifetimes.svg", "lifetimes-narrow.svg", "lifetime-explorer.html",
                 "lifetime-traces.json"):
        assert (tmp_path / name).read_text() == (POST_DIR / name).read_text(), name


def test_narrow_lifetime_chart_fits_a_phone():
    """The narrow twin: 350 units wide, no label under 11 units, every row label 22 characters
    or fewer per line (12-unit monospace: about 160 units, left of the first column at 164)."""
    svg = (POST_DIR / "lifetimes-narrow.svg").read_text(encoding="utf-8")
    assert 'class="fig-svg fig-svg--narrow"' in svg and 'viewBox="0 0 350 ' in svg
    assert 'id="torch-compile-deep-dive-inductor-lifetimes-narrow-title"' in svg
    data = json.loads((POST_DIR / "lifetimes.json").read_text(encoding="utf-8"))
    for row in figures.rows(data):
        assert all(len(part) <= 22 for part in figures.wrap(figures.short(data["lines"][row])))
    assert figures.wrap("mm(arg0_1, arg1_1 -> buf0)") == ["mm(arg0_1, arg1_1 ->", "buf0)"]


def test_golden_traces_follow_the_model():
    """Each traced state is the model's state for that line, and the moves clamp at both ends."""
    data = json.loads((POST_DIR / "lifetimes.json").read_text(encoding="utf-8"))
    traces = figures.traces(data)
    per_line = figures.states(data)
    for scenario in traces["scenarios"]:
        for state in scenario["states"]:
            assert {k: v for k, v in state.items() if k != "action"} == per_line[state["step"]]
    back = next(sc for sc in traces["scenarios"] if sc["name"] == "last, then back")["states"]
    assert [s["step"] for s in back] == [27, 26, 25, 0, 1]
    reuse = data["lines"].index("buf4 = buf1; del buf1  # reuse")
    assert per_line[reuse]["holders"].split(",")[0] == "buf4"
    assert per_line[reuse]["event"] == "buf4 reuses buf1"


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


# --- The CUDA path: 2.13.0's code generation without a GPU, and the H200's output ---------------

CUDA_DIR = POST_DIR / "cuda"
H200_DIR = POST_DIR / "h200"


@pytest.fixture(scope="module")
def cuda_fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of triton_codegen.py into a temporary folder (two compiles for cuda:0, no GPU)."""
    out = tmp_path_factory.mktemp("cuda")
    proc = subprocess.run([sys.executable, str(EX / "triton_codegen.py"), "--out", str(out)], cwd=out,
                          text=True, capture_output=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wrote the CUDA modules" in proc.stdout
    return out / "cuda"


def _without_triton_meta(text: str) -> str:
    """The file minus the lines that depend on whether Triton is importable: triton_meta, whose
    signature format follows the installed Triton, and '# kernel path:', whose file name is a hash
    of the kernel's source, triton_meta line included (absent today, they would differ with Triton)."""
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("triton_meta=", "# kernel path:")))


def _cuda(folder: Path, name: str) -> str:
    return (folder / f"{name}.txt").read_text(encoding="utf-8")


def test_cuda_codegen_writes_the_committed_files(cuda_fresh):
    assert sorted(p.name for p in cuda_fresh.iterdir()) == sorted(p.name for p in CUDA_DIR.iterdir())
    for path in CUDA_DIR.glob("*.txt"):
        assert _without_triton_meta(_cuda(cuda_fresh, path.stem)) == _without_triton_meta(
            path.read_text(encoding="utf-8")), path.name
    fresh = json.loads((cuda_fresh / "summary.json").read_text(encoding="utf-8"))
    committed = json.loads((CUDA_DIR / "summary.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in fresh.items() if k != "triton_importable"} == {
        k: v for k, v in committed.items() if k != "triton_importable"}


def test_cuda_backend_and_what_reaches_it(cuda_fresh):
    summary = json.loads((cuda_fresh / "summary.json").read_text(encoding="utf-8"))
    for program in summary["programs"].values():
        assert program["backends"] == [{"device": "cuda:0", "backend": "CUDACombinedScheduling",
                                        "nodes_go_to": "TritonScheduling"}]
        # Everything up to the module ran; only importing it (Triton, the CUDA stream) failed.
        assert re.search(r"ModuleNotFoundError|ImportError", program["stopped_at"])
    assert summary["programs"]["mlp"]["kernels"] == [
        "triton_poi_fused_relu_0", "triton_poi_fused_mul_relu_1",
        "triton_per_fused__softmax_prepare_softmax_online_2"]
    assert summary["programs"]["realize"]["kernels"] == [
        "triton_poi_fused_add_cos_mul_rsub_sigmoid_sin_0"]
    # The online-softmax pass rewrote the softmax on CUDA (and not on the CPU).
    assert "torch.ops.prims.prepare_softmax_online.default(mm_2, -1)" in _cuda(
        cuda_fresh, "mlp_post_grad_graphs")
    assert "prepare_softmax_online" not in _art(POST_DIR, "mlp_ir_pre_fusion")
    pre = _cuda(cuda_fresh, "mlp_ir_pre_fusion")
    assert pre.count("online_softmax_reduce") >= 2 and "ops.store('buf7'" in pre
    assert "op8" not in pre
    # The sigmoid is not realized on CUDA: two nodes, the second output is buf1.
    realize = _cuda(cuda_fresh, "realize_ir_pre_fusion")
    assert re.findall(r"^(op\d+): SchedulerNode", realize, re.M) == ["op0", "op1"]
    op1 = realize.split("class op1_loop_body")[1]
    assert op1.count("ops.sigmoid(") == 2 and "ops.store('buf1'" in op1


def test_cuda_fusion_needs_one_round(cuda_fresh):
    log = _cuda(cuda_fresh, "mlp_fusion")
    rounds = log.split("===== attempting fusion")
    assert "8 nodes" in rounds[1].splitlines()[0]
    assert "fusing op5 with op6" in rounds[1] and "fusing op5_op6 with op7" in rounds[1]
    assert "found 0 possible fusions" in rounds[2] and "fusion complete (2 iterations)" in log
    assert "fusing op0 with op1" in _cuda(cuda_fresh, "realize_fusion")


def test_cuda_reuse_refused_for_a_lower_peak(cuda_fresh):
    summary = json.loads((cuda_fresh / "summary.json").read_text(encoding="utf-8"))
    mlp = summary["programs"]["mlp"]
    assert mlp["memory_log"][1] == f"Baseline peak memory: {2 * 8192 + 2 * 128}"
    (decision,) = mlp["reuse_decisions"]
    assert (decision["freed"], decision["allocated"], decision["adjacent"]) == ("buf1", "buf4", False)
    assert (decision["overall_peak"], decision["peak_between"], decision["size"]) == (16640, 16384, 8192)
    assert decision["peak_between"] + decision["size"] > decision["overall_peak"]
    assert not decision["reused"]
    call = _cuda(cuda_fresh, "mlp_call").splitlines()
    assert "del buf1" in call and "buf4 = empty_strided_cuda((32, 64), (64, 1), torch.float32)" in call
    assert [line for line in call if line.endswith("# reuse")] == [
        "buf1 = buf0; del buf0  # reuse", "buf3 = buf2; del buf2  # reuse",
        "buf7 = buf4; del buf4  # reuse"]
    realize = _cuda(cuda_fresh, "realize_call")
    assert realize.count("empty_strided_cuda") == 2 and "# reuse" not in realize


def _kernel_body(source: str) -> list[str]:
    """A Triton kernel's lines from its def to its last store, with its own name replaced."""
    name = re.search(r"^def (triton_\w+)\(", source, re.M).group(1)
    lines = source.replace(name, "KERNEL").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def KERNEL("))
    end = max(i for i, line in enumerate(lines) if "tl.store(" in line)
    return lines[start:end + 1]


def _h200(name: str) -> str:
    text = (H200_DIR / f"{name}.txt").read_text(encoding="utf-8")
    first, rest = text.split("\n", 1)
    assert first.startswith("# ") and "NVIDIA H200, torch 2.11.0+cu130, Triton 3.6.0" in first
    return rest


def test_h200_kernels_are_2_13_kernels_but_for_one_hint():
    """The H200's kernels (torch 2.11.0) against 2.13.0's for the same device properties: the
    same lines from def to the last store, except the eviction hint 2.13 adds to one load."""
    ours = lifetimes.triton_kernels((CUDA_DIR / "mlp_output_code.txt").read_text(encoding="utf-8"))
    softmax_213 = ours["triton_per_fused__softmax_prepare_softmax_online_2"]
    h200 = _kernel_body(_h200("mlp_softmax_kernel"))
    diff = [(a, b) for a, b in zip(h200, _kernel_body(softmax_213), strict=True) if a != b]
    assert diff == [("    tmp0 = tl.load(in_out_ptr0 + (r0_1 + 64*x0), xmask, other=0.0)",
                     "    tmp0 = tl.load(in_out_ptr0 + (r0_1 + 64*x0), xmask, "
                     "eviction_policy='evict_first', other=0.0)")]
    realize_213 = lifetimes.triton_kernels((CUDA_DIR / "realize_output_code.txt").read_text(
        encoding="utf-8"))["triton_poi_fused_add_cos_mul_rsub_sigmoid_sin_0"]
    assert _kernel_body(_h200("realize_kernel")) == _kernel_body(realize_213)
    h200_summary = json.loads((H200_DIR / "summary.json").read_text(encoding="utf-8"))
    assert h200_summary["versions"]["torch"] == "2.11.0+cu130"
    assert "triton_per_fused__softmax_exp_prepare_softmax_online_sub_2" in h200_summary[
        "inductor_programs"]["mlp"]["kernels"]


def test_h200_wrapper_is_2_13_wrapper_but_for_input_checks():
    """The H200's call() against 2.13.0's: the same lines once 2.13's deferred size asserts and
    alignment copies are set aside, its stream variable renamed and the softmax kernel renamed."""
    def normalised(lines: list[str]) -> list[str]:
        out = []
        for line in (line.strip() for line in lines):
            if line.startswith(("assert_size_stride(", "def call(")) or "copy_if_misaligned" in line:
                continue
            out.append(line.replace("raw_stream0", "stream0").replace(
                "triton_per_fused__softmax_exp_prepare_softmax_online_sub_2",
                "triton_per_fused__softmax_prepare_softmax_online_2").replace(
                "aten.sub, aten.exp, aten._softmax", "aten._softmax"))
        return out

    for h200, ours in (("mlp_call", "mlp_call"), ("realize_call", "realize_call")):
        assert normalised(_h200(h200).splitlines()) == normalised(_cuda(CUDA_DIR, ours).splitlines())
    mlp = _cuda(CUDA_DIR, "mlp_call").splitlines()
    # 2.13 checks each input just before its first reader's lines (launches are written node by
    # node on CUDA): arg2_1 right before the second mm, after the relu's launch; arg3_1 after two
    # matmuls.
    i = mlp.index("assert_size_stride(arg2_1, (64, 64), (64, 1), 'input')")
    assert mlp[i - 1] == "triton_poi_fused_relu_0.run(buf1, 2048, stream=raw_stream0)"
    assert mlp[i + 1:i + 3] == ["arg2_1 = copy_if_misaligned(arg2_1)",
                                "buf2 = empty_strided_cuda((32, 64), (64, 1), torch.float32)"]
    assert mlp[i + 4] == "extern_kernels.mm(buf1, arg2_1, out=buf2)"
    assert mlp.index("arg3_1 = copy_if_misaligned(arg3_1)") > mlp.index(
        "extern_kernels.mm(buf1, arg2_1, out=buf2)")


def test_cuda_capture_refuses_to_run_without_cuda(tmp_path):
    """cuda_capture.py needs a GPU; here it must stop with its message, and parse its arguments."""
    proc = subprocess.run([sys.executable, str(EX / "cuda_capture.py"), "--out", str(tmp_path)],
                          cwd=tmp_path, text=True, capture_output=True, timeout=600)
    assert proc.returncode == 1 and not (tmp_path / "cuda-device").exists()
    assert "cuda_capture.py needs a CUDA device" in proc.stderr
    proc = subprocess.run([sys.executable, str(EX / "cuda_capture.py"), "--help"], cwd=tmp_path,
                          text=True, capture_output=True, timeout=600)
    assert proc.returncode == 0 and "--out" in proc.stdout


def test_capture_names_the_side_off_float64(tmp_path):
    """capture.check_against_eager: within 1e-5 passes; an eager result off by the 2.8e-4 seen
    before the VML warm-up fails, and the message says eager, not compiled, is off float64, and
    that this assumes the reference is right. warm_up_vml calls each function in both dtypes."""
    code = """
import torch, capture
x = torch.linspace(-3, 3, 1000)
ref = (x.double().sin(),)
capture.check_against_eager((x.sin(),), (x.sin() + 1e-7,), ref)
try:
    capture.check_against_eager((x.sin(),), (x.sin() + 2.8e-4,), ref)
except AssertionError as exc:
    print(str(exc).splitlines()[-1])
calls = []
for name in ("sin", "cos", "exp"):
    real = getattr(torch, name)
    setattr(torch, name, lambda t, real=real, name=name: calls.append(f"{name}:{t.dtype}") or real(t))
capture.warm_up_vml()
print(",".join(sorted(calls)))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=EX, text=True, capture_output=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    message, calls = proc.stdout.splitlines()
    assert message.startswith("assuming the float64 reference is right: ")
    compiled, eager = re.findall(r"= ([\d.e-]+)", message)
    assert float(compiled) < 1e-6 and float(eager) > 2e-4
    assert calls.split(",") == sorted(f"{name}:torch.{dtype}" for name in ("sin", "cos", "exp")
                                      for dtype in ("float32", "float64"))


def test_post_quotes_the_cuda_outputs():
    """The CUDA section's names and numbers are the committed summaries'."""
    text = POST.read_text(encoding="utf-8")
    cuda = json.loads((CUDA_DIR / "summary.json").read_text(encoding="utf-8"))["programs"]
    h200 = json.loads((H200_DIR / "summary.json").read_text(encoding="utf-8"))["inductor_programs"]
    assert cuda["mlp"]["kernels"][2] in text and cuda["realize"]["kernels"][0] in text
    assert "triton_per_fused__softmax_exp_prepare_softmax_online_sub_2" in h200["mlp"]["kernels"]
    (decision,) = cuda["mlp"]["reuse_decisions"]
    # The CUDA statement itself: the CPU text also says 16,640 (the wrapper's real high-water
    # mark), so a bare "16,640 in text" would pass without it.
    flat = " ".join(text.split())
    assert (f"`reorder_for_peak_memory` logs {decision['overall_peak']:,} bytes (`buf4`, `buf5`, "
            "`buf6` and `buf7` at the softmax node's step)") in flat
    assert (f"`triton_codegen.py` records that decision from 2.13.0 (`overall_peak` "
            f"{decision['overall_peak']:,}, `peak_between` {decision['peak_between']:,}, "
            "`reused` false)") in flat
    for program in ("mlp", "realize_demo"):
        assert f"{h200[program]['max_abs_err']:.1e}".replace("e-0", "e-") in text, program
