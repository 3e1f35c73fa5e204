"""Tests for the companion code of the post "Torch.compile 101" (examples/torch_compile_101/).

The stage capture and the quick benchmark run as scripts in subprocesses (they must set
TORCH_TRACE / TORCHINDUCTOR_CACHE_DIR before torch is imported); the Dynamo experiments run
in-process with a counting backend (no Inductor compile). The committed artifacts beside the
post are checked against a fresh capture: exactly where the text is deterministic (graphs,
bytecode), structurally where it depends on the machine (the C++ kernel, the IR, the guards).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "torch_compile_101"
POST_DIR = ROOT / "docs" / "blog" / "posts" / "torch-compile-101"
JS = ROOT / "docs" / "javascripts" / "ifig" / "compile-stages.js"
sys.path.insert(0, str(EX))

import benchmark  # noqa: E402  (imports no torch at module level)
import stages  # noqa: E402

# Artifacts whose text is identical on every run once paths and ids are normalised.
EXACT = (
    "source", "bytecode", "dynamo_graph", "aot_joint_graph", "aot_forward_graph",
    "aot_backward_graph", "post_grad_forward", "post_grad_backward", "transformed_bytecode",
    "wrapper_call_forward",
)


def _run(script: str, *args: str, cwd: Path, timeout: int) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, str(EX / script), *args], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A fresh capture of every stage (one cold forward + backward compile, ~20 s)."""
    out = tmp_path_factory.mktemp("stages")
    proc = _run("stages.py", "--out", str(out), cwd=out, timeout=300)
    return out, proc.stdout


def _read(folder: Path, name: str) -> str:
    return (folder / "stages" / f"{name}.txt").read_text(encoding="utf-8")


def test_capture_writes_the_committed_set_of_files(fresh):
    out, stdout = fresh
    names = sorted(p.name for p in (out / "stages").iterdir())
    assert names == sorted(p.name for p in (POST_DIR / "stages").iterdir())
    assert "first call" in stdout and "structured trace events" in stdout


@pytest.mark.parametrize("name", EXACT)
def test_deterministic_stages_match_the_committed_text(fresh, name):
    assert _read(fresh[0], name) == _read(POST_DIR, name)


def test_forward_kernel_is_one_fused_cpp_kernel(fresh):
    for folder in (fresh[0], POST_DIR):
        code = _read(folder, "output_code_forward")
        assert re.findall(r"^(cpp_fused_\w+) = async_compile\.cpp_pybinding", code, re.M) == [
            "cpp_fused_add_mean_mul_pow_rsqrt_0"]
        kernel = _read(folder, "kernel_forward")
        assert kernel.startswith("#include <torch/csrc/inductor/cpp_prefix.h>")
        assert "#pragma omp parallel" in kernel and "at::vec::Vectorized<float>" in kernel
        back = _read(folder, "output_code_backward")
        assert len(re.findall(r"^cpp_fused_\w+ = ", back, re.M)) == 1
    # The Python wrapper's call() is machine-independent: compare it exactly.
    def call_body(text):
        return text[text.index("    def call(self, args):"):text.index("runner = Runner(")]
    for name in ("output_code_forward", "output_code_backward"):
        assert call_body(_read(fresh[0], name)) == call_body(_read(POST_DIR, name))


def test_partitioner_saves_rsqrt_and_recomputes_the_product():
    fw = _read(POST_DIR, "aot_forward_graph")
    bw = _read(POST_DIR, "aot_backward_graph")
    assert "return (mul_1, primals_1, primals_2, rsqrt)" in fw
    assert 'rsqrt: "f32[64, 1]' in bw and "tangents_1" in bw
    # x * rsqrt is recomputed in the backward instead of being saved by the forward
    assert "torch.ops.aten.mul.Tensor(primals_1, rsqrt)" in bw
    joint = _read(POST_DIR, "aot_joint_graph")
    assert "def forward(self, primals, tangents)" in joint


def test_inductor_ir_and_fusion(fresh):
    for folder in (fresh[0], POST_DIR):
        pre = _read(folder, "ir_pre_fusion_forward")
        assert re.findall(r"^(op\d+): SchedulerNode", pre, re.M) == ["op0", "op1", "op2"]
        assert "ops.reduction(torch.float32, torch.float32, 'sum', mul)" in pre
        post = _read(folder, "ir_post_fusion_forward")
        assert "op0_op1_op2: OuterLoopFusedSchedulerNode" in post


def test_guards_and_trace(fresh):
    guards = _read(POST_DIR, "guards")
    for needle in ("RootGuardManager", "GLOBAL_STATE", "TENSOR_MATCH: check_tensor(L['x']",
                   "TENSOR_MATCH: check_tensor(L['weight']", "NO_TENSOR_ALIASING",
                   "ID_MATCH: ___check_obj_id(G['torch'].rsqrt, <id>)"):
        assert needle in guards
    run = json.loads((fresh[0] / "stages-run.json").read_text())
    events = run["trace_events"]
    for kind in ("dynamo_start", "dynamo_output_graph", "aot_joint_graph", "aot_forward_graph",
                 "aot_backward_graph", "dynamo_cpp_guards_str", "compilation_metrics"):
        assert events.get(kind) == 1, kind
    assert events["inductor_output_code"] == 2 and events["artifact:fx_graph_cache_miss"] == 2
    t = run["timings_s"]
    assert t["first_forward_s"] > t["steady_forward_s"] >= t["steady_forward_min_s"] > 0
    assert t["steady_forward_backward_s"] >= t["steady_forward_backward_min_s"] > 0


def test_forward_kernel_fell_back_from_outer_loop_fusion_but_backward_did_not():
    """The scheduler outer-loop-fused all three forward nodes, but codegen fell back to three
    loop nests (op1's row loop is vectorised with step 16, the others' with step 1); the
    backward's op1_op2 kept one row loop holding both inner loops."""
    fw = _read(POST_DIR, "kernel_forward")
    assert fw.count("#pragma omp for") == 2 and fw.count("#pragma omp single") == 1
    assert "x0+=static_cast<int64_t>(16L)" in fw  # the rsqrt loop over 64 rows, 16 lanes
    bw = _read(POST_DIR, "kernel_backward")
    assert bw.count("#pragma omp for") == 2
    body = bw.split("#pragma omp for")[2]  # the row loop: a reduction, then a pointwise loop
    assert body.count("for(int64_t x1=") == 2 and "out_ptr1[static_cast<int64_t>(x0)]" in body
    assert "op1_op2: OuterLoopFusedSchedulerNode" in _read(POST_DIR, "ir_post_fusion_backward")
    # The forward wrapper frees nothing it returns; the backward wrapper drops its inputs.
    assert "del primals_2" not in _read(POST_DIR, "wrapper_call_forward")
    assert "        del primals_2\n" in _read(POST_DIR, "output_code_backward")


def _committed_result() -> dict:
    names = [p.stem for p in (POST_DIR / "stages").glob("*.txt")]
    return {"torch": "2.13.0+cpu", "python": "3.11.7",
            "stages": {n: _read(POST_DIR, n) for n in names}}


def test_explorer_data_is_derived_from_the_committed_artifacts():
    committed = json.loads((POST_DIR / "stages.json").read_text(encoding="utf-8"))
    derived = stages.explorer_data(_committed_result())
    assert committed["stages"] == derived["stages"]
    assert [s["id"] for s in committed["stages"]] == [e[0] for e in stages.EXPLORER]
    for s in committed["stages"]:
        assert s["link"].startswith(
            ("https://github.com/pytorch/pytorch/blob/v2.13.0/", "examples/"))
        assert 20 < len(s["note"]) <= 100, s["id"]  # one line saying what changed
    # The backward is in the explorer too, after the forward's stages, as it is compiled later.
    ids = [s["id"] for s in committed["stages"]]
    assert ids[-3:] == ["ir_pre_fusion_backward", "ir_post_fusion_backward", "output_code_backward"]
    # 2.13.0's _compile logs the modified bytecode before it builds the guards; the tabs follow.
    import torch._dynamo.convert_frame as cf

    src = Path(cf.__file__).read_text(encoding="utf-8")
    assert src.index('"MODIFIED BYTECODE"') < src.index("dynamo_output.build_guards(")
    assert ids.index("transformed_bytecode") + 1 == ids.index("guards")


def test_explorer_fallback_html_regenerates_and_has_no_blank_lines():
    committed = json.loads((POST_DIR / "stages.json").read_text(encoding="utf-8"))
    html = (POST_DIR / "stages-explorer.html").read_text(encoding="utf-8")
    assert html == stages.render_fallback_html(committed)
    assert "\n\n" not in html
    ids = re.findall(r'<section class="ifig-stage" data-stage="([a-z_]+)"', html)
    assert ids == [s["id"] for s in committed["stages"]]
    assert html.count('<p class="ifig-stage-note">What changed: ') == len(ids)
    js = JS.read_text(encoding="utf-8")
    assert 'IFIG.register("compile-stages", init)' in js
    for attr in ("data-stage", "data-stage-index", "data-stage-count", "data-ifig-ready"):
        assert attr in js
    # Contrast: no Material .md-button (white on the accent colour on hover, indigo on slate in
    # the dark palette); colours come from the theme's link and background variables.
    assert '"md-button' not in js and "md-button--primary" not in js
    assert "var(--md-typeset-a-color)" in js and "var(--md-default-bg-color)" in js


POST = ROOT / "docs" / "blog" / "posts" / "torch-compile-101.md"
H200 = POST_DIR / "h200"
SVGS = ("map.svg", "map-narrow.svg", "benchmark-time.svg", "benchmark-time-narrow.svg",
        "benchmark-compile.svg", "benchmark-compile-narrow.svg")


def test_post_includes_the_explorer_svgs_and_tables():
    post = POST.read_text(encoding="utf-8")
    assert '<figure class="ifig" data-ifig="compile-stages"' in post
    assert '--8<-- "docs/blog/posts/torch-compile-101/stages-explorer.html"' in post
    for name in (*SVGS, "benchmark-table.txt", "first-compile-table.txt", "h200/table.txt"):
        assert f'--8<-- "docs/blog/posts/torch-compile-101/{name}"' in post
    # Each narrow drawing follows its wide twin inside the same figure.
    for wide in SVGS[::2]:
        narrow = wide.replace(".svg", "-narrow.svg")
        pair = (f'--8<-- "docs/blog/posts/torch-compile-101/{wide}"\n'
                f'--8<-- "docs/blog/posts/torch-compile-101/{narrow}"\n')
        assert pair in post, wide


def test_benchmark_tables_regenerate_from_the_committed_json():
    data = json.loads(benchmark.RESULTS.read_text(encoding="utf-8"))
    tables = benchmark.make_tables(data)
    assert sorted(tables) == ["benchmark-table.txt", "first-compile-table.txt"]
    for name, text in tables.items():
        assert (POST_DIR / name).read_text(encoding="utf-8") == text, name


def test_speedups_quoted_in_the_prose_match_the_committed_json():
    """Every "N.NN×" in the post is a speed-up of benchmark.json (median or minimum) or of the
    H200 runs (h200/rms_norm.json)."""
    data = json.loads(benchmark.RESULTS.read_text(encoding="utf-8"))
    known = set()
    for c in data["cases"]:
        known.add(f"{c['eager_us'] / c['compiled_us']:.2f}")
        known.add(f"{c['eager_min_us'] / c['compiled_min_us']:.2f}")
    h200 = json.loads((H200 / "rms_norm.json").read_text(encoding="utf-8"))
    for t in h200["timings"]:
        known.add(f"{t['eager_ms'] / t['compiled_ms']:.2f}")
    # ... or a ratio of two modes on one clock in the reduce-overhead run (host, events, do_bench).
    for shape in ("64x256", "4096x4096"):
        modes = h200["reduce_overhead"][shape]
        for a in modes.values():
            for b in modes.values():
                known.update(f"{x / y:.2f}" for x, y in zip(a, b, strict=True))
    quoted = re.findall(r"(\d+\.\d\d)×", POST.read_text(encoding="utf-8"))
    assert quoted and set(quoted) <= known, (sorted(set(quoted) - known), sorted(known))


@pytest.mark.parametrize("name", SVGS)
def test_svgs_follow_the_figure_rules(name):
    text = (POST_DIR / name).read_text(encoding="utf-8")
    assert "\n\n" not in text and text.endswith("\n")
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("viewBox") and "fig-svg" in root.get("class", "")
    assert root.find(f"{ns}title") is not None and root.find(f"{ns}desc") is not None
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert ids and all(i.startswith("torch-compile-101-") for i in ids)
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b", text.replace("url(#", ""))  # no fixed colours
    narrow = name.endswith("-narrow.svg")
    assert ("fig-svg--narrow" in root.get("class")) == narrow
    assert all(i.split("-title")[0].split("-desc")[0].split("-arrow")[0].endswith("-narrow")
               for i in ids) == narrow
    classes = {el.get("class") for el in root.iter(f"{ns}text")}
    assert classes <= {"fig-text", "fig-text-small", "fig-mono", "fig-text-muted"}  # 11 units or more


def test_hand_drawn_narrow_map_fits_a_phone_column():
    """At 390 px the post's column is 358 px wide; a drawing at most 350 units wide keeps 11-unit
    labels at 11 CSS px or more."""
    width = float(ET.fromstring((POST_DIR / "map-narrow.svg").read_text(encoding="utf-8"))
                  .get("viewBox").split()[2])
    assert width <= 350


def test_benchmark_plots_regenerate_from_the_committed_json():
    data = json.loads(benchmark.RESULTS.read_text(encoding="utf-8"))
    for name, svg in benchmark.make_plots(data).items():
        assert (POST_DIR / name).read_text(encoding="utf-8") == svg, name
    assert [c["case"] for c in data["cases"]] == list(benchmark.CASES)
    assert data["machine"]["num_threads"] == 2


def test_quick_benchmark_runs_and_checks_itself(tmp_path):
    proc = _run("benchmark.py", "--quick", "--out", str(tmp_path), cwd=tmp_path, timeout=300)
    data = json.loads((tmp_path / "benchmark.json").read_text())
    assert [c["case"] for c in data["cases"]] == list(benchmark.QUICK_CASES)
    for c in data["cases"]:
        assert c["eager_us"] > 0 and c["compiled_us"] > 0
        assert c["compile_new_graph_s"] > c["compile_cache_hit_s"] > 0
    assert data["first_compile_in_fresh_cache_s"] > 0
    for name in ("benchmark-time.svg", "benchmark-compile.svg"):
        ET.fromstring((tmp_path / name).read_text())
    table = (tmp_path / "benchmark-table.txt").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + len(benchmark.QUICK_CASES) and "| tiny norm |" in table
    assert not (tmp_path / "first-compile-table.txt").exists()  # --quick skips that experiment
    assert "speed-up" in proc.stdout


def test_dynamo_behaviour_counts():
    import dynamo_behaviour

    result = dynamo_behaviour.run_all()
    dynamo_behaviour.check(result)  # every count the post states
    assert result["recompilations"]["graphs_after"]["set_num_threads(1)"] == 6


MORE = POST_DIR / "more-stages"


def test_mutation_decomposition_and_triton_artifacts_regenerate_exactly():
    """more_stages.py --check: a fresh process and cache reproduce the committed files exactly."""
    _run("more_stages.py", "--check", cwd=ROOT / "tests", timeout=600)


def test_mutation_is_functionalized_with_a_trailing_copy():
    graph = (MORE / "mutation_aot_graph.txt").read_text(encoding="utf-8")
    ops = re.findall(r"torch\.ops\.aten\.(\w+)\.", graph)
    assert ops == ["add", "mul", "copy_"]  # out-of-place add, the user's op, then the copy back
    assert "add_" not in ops


def test_silu_reaches_inductor_decomposed():
    assert "torch.nn.functional.silu" in (MORE / "silu_dynamo_graph.txt").read_text(encoding="utf-8")
    aot = (MORE / "silu_aot_graph.txt").read_text(encoding="utf-8")
    assert re.findall(r"torch\.ops\.aten\.(\w+)\.", aot) == ["neg", "exp", "add", "div", "add"]
    assert "silu" not in aot.replace("F.silu(x)", "")  # only in the source-line comment


def test_triton_kernel_source_is_a_persistent_reduction_of_the_forward():
    src = (MORE / "triton_kernel_forward.txt").read_text(encoding="utf-8")
    assert "@triton_heuristics.persistent_reduction(" in src and "@triton.jit" in src
    assert "size_hints={'x': 64, 'r0_': 256}" in src and "ReductionHint.INNER" in src
    assert "R0_BLOCK: tl.constexpr = 256" in src  # the whole row in one block
    for op in ("tl.program_id(0) * XBLOCK", "tl.sum(", "libdevice.rsqrt(", "tl.store("):
        assert op in src, op
    assert src.count("tl.load(") == 2  # x once and the weight once: one pass over x


# ---------------------------------------------------------------------------------------------
# The two experiments on the CPU, the H200 artifacts, and the scripts that reason about them
# ---------------------------------------------------------------------------------------------

EXPECTED = EX / "expected"


def test_cpu_experiments_assert_what_the_post_says(tmp_path):
    """reduce-overhead on a CPU graph: a counted, unlogged skip, the default mode's output; the
    outer-loop check: False for the forward (steps 1, 16, 1 with AVX-512; the middle step is the
    vector ISA's float lanes), True for the backward. The script asserts each; its output is the
    post's, taken on an AVX-512 machine (one run: it prints the text and writes the JSON)."""
    plain = _run("cpu_experiments.py", "--json", str(tmp_path / "result.json"), cwd=ROOT / "tests", timeout=600)
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert result["reduce_overhead"]["cudagraph_skips"] == 1
    lanes = result["outer_loop"]["lanes"]
    assert result["outer_loop"]["forward"]["outer_loop_steps"] == [1, lanes, 1] and lanes in (8, 16)
    assert result["outer_loop"]["backward"]["passed"] is True
    expected = (EXPECTED / "cpu_experiments.txt").read_text(encoding="utf-8")
    assert "steps [1, 16, 1]" in expected  # the post's run: AVX-512
    assert plain.stdout == expected.replace("steps [1, 16, 1]", f"steps [1, {lanes}, 1]")


def test_launch_configs_come_from_the_kernels_own_decorators():
    """launch_config.py evaluates each committed H200 kernel's heuristics decorator under 2.13.0
    (in a subprocess: it installs a stand-in for triton.Config before Inductor's heuristics load)."""
    proc = _run("launch_config.py", cwd=ROOT / "tests", timeout=120)
    assert proc.stdout == (EXPECTED / "launch_config.txt").read_text(encoding="utf-8")
    lines = proc.stdout.splitlines()
    fwd = [line for line in lines if line.startswith("forward_64x256 ")]
    assert len(fwd) == 1 and "{'XBLOCK': 1} num_warps=2: 64 programs of 64 threads" in fwd[0]
    big = [line for line in lines if line.startswith("forward_4096x4096 ")]
    assert len(big) == 2 and all("4096 programs of 512 threads" in line for line in big)


def test_launch_config_parses_every_kernel_of_the_h200_modules():
    import launch_config

    for name, count in (("forward_64x256", 1), ("backward_64x256", 2), ("forward_4096x4096", 1)):
        text = (H200 / f"{name}.txt").read_text(encoding="utf-8")
        kernels = launch_config.kernels_of(text)
        assert len(kernels) == count == len(re.findall(r"^@triton\.jit$", text, re.M)), name
        for k in kernels:
            assert k["decorator"].startswith("triton_heuristics.") and k["decorator"].endswith(")")


def test_h200_artifacts_are_what_the_post_walks():
    import capture_gpu

    data = json.loads((H200 / "rms_norm.json").read_text(encoding="utf-8"))
    capture_gpu.check(data)  # the schema capture_gpu.py writes
    assert data["machine"] == {"gpu": "NVIDIA H200", "sms": 132, "torch": "2.11.0+cu130",
                               "triton": "3.6.0", "cuda": "13.0"}
    for name, kernels in data["kernels"].items():
        assert capture_gpu.kernel_names((H200 / f"{name}.txt").read_text(encoding="utf-8")) == kernels
    assert (H200 / "table.txt").read_text(encoding="utf-8") == capture_gpu.table(data)
    fwd = (H200 / "forward_64x256.txt").read_text(encoding="utf-8").splitlines()
    # The post includes lines 67-106 (decorator to last store) and 123-136 (call()).
    kernel, call = fwd[66:106], fwd[122:136]
    assert kernel[0] == "@triton_heuristics.persistent_reduction(" and "tl.store(out_ptr0" in kernel[-1]
    assert "size_hints={'x': 64, 'r0_': 256}" in kernel[1] and "R0_BLOCK: tl.constexpr = 256" in "\n".join(kernel)
    assert "tl.debug_barrier()" in "\n".join(kernel) and "'mutated_arg_names': ['in_out_ptr0']" in "\n".join(kernel)
    assert call[0] == "    def call(self, args):" and ".run(buf1, primals_1, primals_2, buf2, 64, 256," in call[-2]
    assert "triton_red_fused" in data["kernels"]["forward_4096x4096"][0]
    post = POST.read_text(encoding="utf-8")
    for quoted in ("75.6 / 80.5 / 62.8", "61.3 / 62.2 / 86.4", "137.0 / 138.8 / 141.2",
                   "166.8 / 166.8 / 170.4", "44.8 / 45.9 / 42.6", "88.3 / 84.9 / 90.4"):
        assert quoted in post, quoted
    ro = data["reduce_overhead"]
    assert " / ".join(map(str, ro["64x256"]["reduce-overhead"])) == "137.0 / 138.8 / 141.2"
    assert ro["chain_host_wall_us"]["eager"] == 2300.5
    # That run counted the chain's kernel definitions, not its launches.
    assert ro["chain_kernel_defs"] == 1 and ro["chain_launches"] is None


def test_capture_gpu_runs_its_cpu_side(tmp_path, capsys):
    """What capture_gpu.py can do without a GPU: parse its arguments, refuse to run without CUDA
    (exit status 2, saying why), and read launch configurations off loaded modules."""
    import types

    import capture_gpu

    args = capture_gpu.parse_args(["--out", str(tmp_path), "--loops", "10"])
    assert args.out == tmp_path and args.loops == 10
    with pytest.raises(SystemExit):
        capture_gpu.parse_args([])  # --out is required
    assert capture_gpu.main(["--out", str(tmp_path)]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    cfg = types.SimpleNamespace(kwargs={"XBLOCK": 1}, num_warps=2, num_stages=1)
    tuner = types.SimpleNamespace(launchers=[types.SimpleNamespace(config=cfg)], configs=[cfg],
                                  inductor_meta={"kernel_name": "triton_per_fused_x_0"})
    module = types.SimpleNamespace(triton_per_fused_x_0=tuner, async_compile=None, call=print)
    assert capture_gpu.launch_configs([module]) == {
        "triton_per_fused_x_0": {"block": {"XBLOCK": 1}, "num_warps": 2, "num_stages": 1,
                                 "candidates": 1}}


def test_capture_gpu_counts_launches_not_just_definitions():
    """Inductor names identical kernel sources once: twenty launches of one definition must count
    as twenty, which the definitions alone cannot tell from one."""
    import capture_gpu

    for name in ("forward_64x256", "backward_64x256", "forward_4096x4096"):
        text = (H200 / f"{name}.txt").read_text(encoding="utf-8")
        assert capture_gpu.kernel_launches(text) == capture_gpu.kernel_names(text), name
    call = (H200 / "forward_64x256.txt").read_text(encoding="utf-8").split("    def call(self, args):")
    launch = next(line for line in call[1].splitlines() if ".run(" in line)
    twenty = call[0] + "    def call(self, args):\n" + "\n".join([launch] * 20) + "\n"
    assert len(capture_gpu.kernel_names(twenty)) == 1
    assert capture_gpu.kernel_launches(twenty) == ["triton_per_fused_add_mean_mul_pow_rsqrt_0"] * 20
