"""Tests for the companion code of the post "vLLM v1 Deep Dive"."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "vllm_v1_deep_dive"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive"
sys.path.insert(0, str(EX))
sys.path.insert(0, str(EX.parent))


def _load(name: str):
    """Import an example under a post-specific module name, so that examples of other posts
    with the same file names cannot shadow it."""
    spec = importlib.util.spec_from_file_location(f"vllm_v1_deep_dive_{name}", EX / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while executing
    spec.loader.exec_module(module)
    return module


sm = _load("sched_model")
make_figures = _load("make_figures")


def _run_script(name: str, timeout: float = 90.0) -> str:
    proc = subprocess.run([sys.executable, str(EX / name)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT / "tests")  # any cwd must work
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _schedules(records):
    return [r.out.num_scheduled_tokens for r in records]


def test_sched_model_script_asserts_and_prints_the_post_output():
    out = _run_script("sched_model.py")
    assert "step 3: A:1 decode, B:1 decode, C:4 prefill (+8 cached)  [6/16] | finished B" in out
    assert "step 3: D:1 decode  [1/16] | preempted E | finished D" in out
    assert "step 4: E:1 decode (+8 cached)  [1/16] | finished E" in out
    assert "step 5: B:4 recompute (+16 cached), B:1 decode  [5/16] | finished B" in out
    assert "step 2: A:1 decode  [1/16] | preempted B" in out  # scenario 3, gate off


def test_packing_scenario_hand_computed():
    s, arrivals = sm.scenario_packing()
    rec = sm.run(s, arrivals)
    # Step 1: A's 10-token prompt fits; B gets the remaining 6 of the 16-token budget.
    # Step 2: A decodes 1, B's remaining 14 prompt tokens fit in 15.
    # Step 3: C's first 8 tokens (two 4-token blocks shared with A) come from the cache.
    assert _schedules(rec) == [{"A": 10, "B": 6}, {"A": 1, "B": 14},
                               {"A": 1, "B": 1, "C": 4}, {"A": 1, "C": 1}]
    assert rec[0].out.new_req_ids == ["A", "B"] and rec[2].out.new_req_ids == ["C"]
    assert rec[1].out.prefill_req_ids == ["B"]
    assert rec[2].block_tables["C"][:2] == rec[2].block_tables["A"][:2]


def test_full_prefix_hit_still_recomputes_last_token():
    kv = sm.KVCacheManager(num_blocks=16, block_size=4)
    s = sm.Scheduler(kv, max_num_batched_tokens=16, max_num_seqs=4)
    p = sm.prompt(7, 8)  # exactly two full blocks
    rec = sm.run(s, {1: [sm.Request("X", p, 1, 4)], 3: [sm.Request("Y", list(p), 1, 4)]})
    # Y's whole prompt is cached, but the hit is capped at num_tokens - 1 = 7 tokens,
    # which rounds down to one block: the second block is computed again.
    y_step = next(r for r in rec if "Y" in r.out.num_scheduled_tokens)
    assert y_step.out.num_prefix_hit_tokens == {"Y": 4}
    assert y_step.out.num_scheduled_tokens == {"Y": 4}


def test_chunked_prefill_disabled_waits_for_room():
    kv = sm.KVCacheManager(num_blocks=16, block_size=4)
    s = sm.Scheduler(kv, max_num_batched_tokens=16, max_num_seqs=4, enable_chunked_prefill=False,
                     max_model_len=16)
    a = sm.Request("A", sm.prompt(1, 10), 3, 4)
    b = sm.Request("B", sm.prompt(2, 14), 1, 4)
    rec = sm.run(s, {1: [a, b]})
    assert _schedules(rec)[:2] == [{"A": 10}, {"A": 1, "B": 14}]


def test_chunked_prefill_off_needs_budget_of_max_model_len():
    # Scenario 1 with chunked prefill off: vLLM refuses a 16-token budget when prompts may be
    # 32 tokens long (SchedulerConfig.verify_max_model_len); otherwise B's 20-token prompt
    # would never fit and the engine would spin. With a 32-token budget B goes in whole.
    kv = sm.KVCacheManager(num_blocks=16, block_size=4)
    with pytest.raises(ValueError, match="smaller than max_model_len"):
        sm.Scheduler(kv, 16, 4, enable_chunked_prefill=False, max_model_len=32)
    s, arrivals = sm.scenario_packing()
    s2 = sm.Scheduler(sm.KVCacheManager(16, 4), 32, 4, enable_chunked_prefill=False,
                      max_model_len=32)
    for reqs in arrivals.values():
        for r in reqs:
            r.num_computed_tokens = 0
    rec = sm.run(s2, arrivals)
    assert _schedules(rec)[0] == {"A": 10, "B": 20}
    assert all(r.finish_reason == "length" for r in s2.requests.values())


def _async_requests(stop_at: dict[str, int]):
    """Three requests; request X stops on its stop_at[X]-th generated token (0 = no stop)."""
    specs = {"A": (1, 10, 6), "B": (2, 7, 5), "C": (3, 13, 4)}
    reqs = []
    for rid, (seed, n, max_tokens) in specs.items():
        p = sm.prompt(seed, n)
        stop = ()
        if stop_at.get(rid):
            stop = (sm.reference_generate(p, max_tokens)[stop_at[rid] - 1],)
        reqs.append(sm.Request(rid, p, max_tokens, 4, stop_token_ids=stop))
    return reqs


def test_async_batch_queue_runs_ahead_and_matches_sync():
    kv = sm.KVCacheManager(num_blocks=32, block_size=4)
    s = sm.Scheduler(kv, 16, 4, async_scheduling=True)
    rec = sm.run_async(s, {1: _async_requests({})})
    for req in s.requests.values():  # same tokens as the unbatched reference
        gen = req.all_token_ids[len(req.prompt_token_ids):]
        assert gen == sm.reference_generate(req.prompt_token_ids, req.max_tokens)
        assert req.num_output_placeholders == 0
    # max_tokens is predictable from the counts, so no step is ever wasted on it.
    assert s.discarded_tokens == 0
    # Step 2 was scheduled before step 1's tokens existed: A is decoding in step 2 although
    # the scheduler had seen no token of A when it built that batch.
    assert rec[0].out.num_scheduled_tokens["A"] == 10 and rec[1].out.num_scheduled_tokens["A"] == 1
    assert kv.pool.num_free == len(kv.pool.blocks) - 1


@pytest.mark.parametrize("stop_at", [{"A": 1}, {"A": 2, "B": 3}, {"A": 3, "B": 1, "C": 2}])
def test_stop_token_wastes_at_most_one_in_flight_step(stop_at):
    kv = sm.KVCacheManager(num_blocks=32, block_size=4)
    s = sm.Scheduler(kv, 16, 4, async_scheduling=True)
    sm.run_async(s, {1: _async_requests(stop_at)})
    for rid, req in s.requests.items():
        gen = req.all_token_ids[len(req.prompt_token_ids):]
        ref = sm.reference_generate(req.prompt_token_ids, req.max_tokens, req.stop_token_ids)
        assert gen == ref
        assert req.finish_reason == ("stop" if rid in stop_at else "length")
    # One batch was already in flight for each stopped request: at most one token each.
    assert s.discarded_tokens == len(stop_at)
    # The synchronous loop wastes nothing: it never schedules before it has seen the token.
    s_sync = sm.Scheduler(sm.KVCacheManager(32, 4), 16, 4)
    sm.run(s_sync, {1: _async_requests(stop_at)})
    assert s_sync.discarded_tokens == 0


def test_long_prefill_token_threshold_caps_each_chunk():
    kv = sm.KVCacheManager(num_blocks=16, block_size=4)
    s = sm.Scheduler(kv, 16, 4, long_prefill_token_threshold=6)
    rec = sm.run(s, {1: [sm.Request("A", sm.prompt(1, 10), 1, 4),
                         sm.Request("B", sm.prompt(2, 10), 1, 4)]})
    assert _schedules(rec) == [{"A": 6, "B": 6}, {"A": 4, "B": 4}]


def test_long_prefill_threshold_is_off_for_a_single_eligible_request():
    kv = sm.KVCacheManager(num_blocks=16, block_size=4)
    s = sm.Scheduler(kv, 16, 4, long_prefill_token_threshold=6)
    rec = sm.run(s, {1: [sm.Request("A", sm.prompt(1, 10), 1, 4)]})
    assert _schedules(rec) == [{"A": 10}]  # nobody to starve: the whole prompt at once


def test_full_prompt_admission_gate():
    s, arrivals = sm.scenario_admission_gate(reserve_full_isl=True)
    rec = sm.run(s, arrivals)
    # B's 20-token prompt needs 5 blocks; after A's 3, only 4 of 7 are free: B waits.
    assert _schedules(rec)[:4] == [{"A": 12}, {"A": 1}, {"A": 1}, {"B": 16}]
    assert not any(r.out.preempted_req_ids for r in rec)
    s, arrivals = sm.scenario_admission_gate(reserve_full_isl=False)
    rec = sm.run(s, arrivals)
    # Without the gate B's first 4-token chunk is admitted, then B is preempted.
    assert _schedules(rec)[:2] == [{"A": 12, "B": 4}, {"A": 1}]
    assert rec[1].out.preempted_req_ids == ["B"]
    assert rec[3].out.resumed_req_ids == ["B"] and rec[3].out.num_prefix_hit_tokens == {"B": 4}


def test_prefix_caching_off_means_no_hits():
    s, arrivals = sm.scenario_packing()
    s.kv = sm.KVCacheManager(num_blocks=16, block_size=4, enable_caching=False)
    rec = sm.run(s, arrivals)
    assert all(not any(r.out.num_prefix_hit_tokens.values()) for r in rec)
    assert rec[2].out.num_scheduled_tokens == {"A": 1, "B": 1, "C": 12}


def test_preemption_frees_and_resumes_from_cache():
    s, arrivals = sm.scenario_preemption()
    rec = sm.run(s, arrivals)
    assert rec[2].out.preempted_req_ids == ["E"] and "E" not in rec[2].out.num_scheduled_tokens
    assert rec[3].out.resumed_req_ids == ["E"]
    assert rec[3].out.num_prefix_hit_tokens == {"E": 8}


def test_only_tokens_computed_before_the_preemption_count_as_recomputed():
    """A resumed request recomputes what it had computed and the prefix cache did not give back;
    its other tokens are new prompt tokens or its next decode (the stepper's colours)."""
    data = make_figures.traces()

    def rows(name, step):
        return [(r["rid"], r["kind"], r["tokens"], r["cached"]) for r in data[name]["steps"][step - 1]["rows"]]

    assert rows("preemption", 4) == [("E", "decode", 1, 8)]  # E's two blocks come back whole
    assert rows("gate-off", 4) == [("B", "prefill", 16, 4)]  # B had computed only its 4 hits
    # 9 blocks: B had computed 20 tokens; A reused its fifth block, so 4 are computed again.
    assert rows("nine-blocks", 5) == [("B", "recompute", 4, 16), ("B", "decode", 1, 0)]
    kinds = {r["kind"] for sc in data.values() for st in sc["steps"] for r in st["rows"]}
    assert kinds == {"prefill", "decode", "recompute"}
    assert sum(r["kind"] == "recompute" for sc in data.values() for st in sc["steps"]
               for r in st["rows"]) == 1


def test_hash_chain_depends_on_the_whole_prefix():
    block = [1, 2, 3, 4]
    h_first = sm.hash_block_tokens(None, block)
    h_second = sm.hash_block_tokens(h_first, block)
    assert h_first != h_second  # same tokens, different prefix -> different key
    hashes: list[bytes] = []
    sm.extend_block_hashes(hashes, block + block + [9, 9], 4)
    assert hashes == [h_first, h_second]  # the partial tail block is not hashed


def test_free_queue_order_lifo_for_uncached_lru_for_cached():
    pool = sm.BlockPool(6)
    a, b, c = pool.get_new_blocks(3)  # ids 1, 2, 3
    a.block_hash, b.block_hash = b"ha", b"hb"
    pool.cached.update({b"ha": a, b"hb": b})
    pool.free_blocks([c, b, a])  # tail first, as KVCacheManager.free passes them
    assert pool.free_queue.ids() == [3, 4, 5, 2, 1]
    (nxt,) = pool.get_new_blocks(1)
    assert nxt.block_id == 3


def test_proc_split_end_to_end():
    out = _run_script("proc_split.py")
    assert re.search(r"EngineCore ready: num_blocks=64, max_num_batched_tokens=32", out)
    assert out.count("(length)") == 4
    assert "stream s0: 8 deltas" in out
    assert "front end raised EngineDeadError" in out
    assert out.strip().endswith("all outputs match the in-process reference")


@pytest.mark.parametrize("name", sorted(make_figures.FIGURES))
def test_committed_figures_are_regenerated(name):
    assert (FIG_DIR / name).read_text() == make_figures.FIGURES[name]()


@pytest.mark.parametrize("name", ["map.svg", "map-narrow.svg"])
def test_svg_conventions(name):
    svg = (FIG_DIR / name).read_text()
    assert svg.startswith("<svg class=\"fig-svg") and "viewBox=" in svg
    assert "<title id=\"vllm-v1-deep-dive-" in svg and "<desc id=\"vllm-v1-deep-dive-" in svg
    assert "\n\n" not in svg
    for ident in re.findall(r'id="([^"]+)"', svg):
        assert ident.startswith("vllm-v1-deep-dive-")
    assert not re.search(r'(fill|stroke)="#', svg)


def test_ipc_cost_measures_something():
    # A subprocess, because the spawned echo child must import the module by its file name.
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import ipc_cost; "
            "print(json.dumps(ipc_cost.measure((1, 16), iters=20)))")
    proc = subprocess.run([sys.executable, "-c", code, str(EX)], capture_output=True,
                          text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["batch"] for r in rows] == [1, 16]
    assert all(r["process_us"] > 0 and r["thread_us"] > 0 and r["pickle_us"] > 0 for r in rows)
    assert rows[1]["bytes"] > rows[0]["bytes"]


# ---------------------------------------------------------------- against the real vLLM code
# real_vllm.prepare() downloads the v0.33.0 wheel once (pip download --no-deps) into a cache
# outside the repo; real_vllm.make_scheduler builds vLLM's own Scheduler from a real VllmConfig.


@pytest.fixture(scope="module")
def real_vllm():
    module = _load("real_vllm")
    try:
        v = module.import_vllm()
    except subprocess.CalledProcessError as e:  # no wheel, no comparison: that is a failure
        pytest.fail(f"could not fetch vllm=={module.VERSION} or its pinned deps: {e.stderr}")
    assert v.__version__ == "0.33.0" and v.__commit_id__ == "g4ba787ec9"
    yield module, v
    module.forget_vllm()  # later tests must not see vLLM's stubs or its sys.path entries


def _real_scheduler(real_vllm, s, **kwargs):
    """vLLM's Scheduler configured like the model's scheduler s."""
    module, v = real_vllm
    return module.make_scheduler(
        v, num_blocks=len(s.kv.pool.blocks), block_size=s.kv.block_size,
        max_num_batched_tokens=s.max_num_batched_tokens, max_num_seqs=s.max_num_seqs,
        long_prefill_token_threshold=s.long_prefill_token_threshold,
        scheduler_reserve_full_isl=s.scheduler_reserve_full_isl,
        enable_chunked_prefill=s.enable_chunked_prefill,
        enable_prefix_caching=s.kv.enable_caching, **kwargs)


def _assert_same(model, real):
    assert [r["num_scheduled_tokens"] for r in real] == _schedules(model)
    assert [r["num_prefix_hit_tokens"] for r in real] == [
        r.out.num_prefix_hit_tokens for r in model]
    assert [r["preempted_req_ids"] for r in real] == [r.out.preempted_req_ids for r in model]
    assert [r["block_tables"] for r in real] == [r.block_tables for r in model]  # reuse order too
    assert [sorted(r["finished"]) for r in real] == [sorted(r.finished) for r in model]


def _threshold_scenario():
    s = sm.Scheduler(sm.KVCacheManager(16, 4), 16, 4, long_prefill_token_threshold=6)
    return s, {1: [sm.Request("A", sm.prompt(1, 10), 1, 4), sm.Request("B", sm.prompt(2, 10), 1, 4)]}


def _no_caching_scenario():
    s, arrivals = sm.scenario_packing()
    s.kv = sm.KVCacheManager(num_blocks=16, block_size=4, enable_caching=False)
    return s, arrivals


def _tight_scenario():  # "things to try": scenario 1 with 9 blocks preempts B in step 3
    return sm.scenario_packing(num_blocks=9)


def _no_chunking_scenario():
    _, arrivals = sm.scenario_packing()
    return sm.Scheduler(sm.KVCacheManager(16, 4), 32, 4, enable_chunked_prefill=False,
                        max_model_len=32), arrivals


@pytest.mark.parametrize("factory", [
    sm.scenario_packing, sm.scenario_preemption,
    lambda: sm.scenario_admission_gate(reserve_full_isl=True),
    lambda: sm.scenario_admission_gate(reserve_full_isl=False),
    _threshold_scenario, _no_caching_scenario, _no_chunking_scenario, _tight_scenario,
], ids=["packing", "preemption", "gate-on", "gate-off", "long-prefill-threshold",
        "no-prefix-caching", "no-chunked-prefill", "nine-blocks"])
def test_real_scheduler_gives_the_models_schedules_and_block_tables(real_vllm, factory):
    module, v = real_vllm
    s_model, arrivals = factory()
    model = sm.run(s_model, arrivals)
    s_fresh, arrivals = factory()
    extra = {"max_model_len": s_fresh.max_model_len} if s_fresh.max_model_len else {}
    s_real = _real_scheduler(real_vllm, s_fresh, **extra)
    assert type(s_real) is v.Scheduler
    real, reqs = module.run_real(v, s_real, arrivals, sm.fake_next_token)
    _assert_same(model, real)
    for rid, req in s_model.requests.items():  # the same tokens, and every block back
        assert list(reqs[rid].output_token_ids) == req.all_token_ids[len(req.prompt_token_ids):]
    assert s_real.kv_cache_manager.block_pool.get_num_free_blocks() == len(s_model.kv.pool.blocks) - 1


@pytest.mark.parametrize("stop_at", [{}, {"A": 1}, {"A": 2, "B": 3}, {"A": 3, "B": 1, "C": 2}])
def test_real_async_scheduler_under_the_batch_queue(real_vllm, stop_at):
    module, v = real_vllm
    s_model = sm.Scheduler(sm.KVCacheManager(32, 4), 16, 4, async_scheduling=True)
    model = sm.run_async(s_model, {1: _async_requests(stop_at)})
    s_real = _real_scheduler(real_vllm, s_model, async_scheduling=True)
    assert type(s_real) is v.AsyncScheduler
    real, _, discarded = module.run_real_async(v, s_real, {1: _async_requests(stop_at)},
                                               sm.fake_next_token)
    _assert_same(model, real)
    assert [r["step"] for r in real] == [r.step for r in model]
    assert discarded == s_model.discarded_tokens == len(stop_at)


def test_stubs_are_exactly_what_the_import_chain_needs(real_vllm):
    """Every name in STUBS was imported (here or in vLLM's model-inspection child) and none of
    the non-vLLM ones is installed, so no stub hides a real package."""
    module, _ = real_vllm
    assert module.stubs_answered() == set(module.STUBS)
    for name in module.STUBS:
        if not name.startswith("vllm."):
            assert importlib.machinery.PathFinder.find_spec(name) is None, name


IMPORT_CHECK = """
import json, sys, sysconfig
start = set(sys.modules)  # site, .pth hooks, editable finders: not ours to account for
sys.path.insert(0, sys.argv[1])
import real_vllm, sched_model as sm
v = real_vllm.import_vllm()
s, arrivals = sm.scenario_packing()
real_vllm.run_real(v, real_vllm.make_scheduler(v, num_blocks=16, block_size=4,
    max_num_batched_tokens=16, max_num_seqs=4), arrivals, sm.fake_next_token)
where = {}
for name, m in list(sys.modules.items()):
    f = getattr(m, "__file__", None) or ""
    if name in start:
        continue
    if isinstance(m, real_vllm._StubModule):
        kind, name = "stub", m.__name__  # its own name, whatever sys.modules calls it
    elif not f or f.startswith(sysconfig.get_paths()["stdlib"]):
        continue
    elif f.startswith(str(real_vllm.cache_dir() / "py")):
        kind = "wheel"
    elif f.startswith(str(real_vllm.cache_dir() / "deps")):
        kind = "deps"
    elif f.startswith(sys.argv[1]):
        kind = "examples"
    else:
        kind = "environment"
    where.setdefault(kind, set()).add(name)
print(json.dumps({k: sorted(n) for k, n in where.items()}))
"""


def test_real_vllm_imports_come_from_the_wheel_the_pins_and_the_declared_environment(real_vllm):
    module, _ = real_vllm
    proc = subprocess.run([sys.executable, "-c", IMPORT_CHECK, str(EX)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    where = json.loads(proc.stdout.splitlines()[-1])
    # No installed vLLM is picked up: every vllm module is the wheel's source or a stub.
    assert not [n for n in where["environment"] if n.split(".")[0] == "vllm"]
    assert {n.split(".")[0] for n in where["deps"]} == {
        "msgspec", "zmq", "psutil", "cachetools", "regex", "cbor2", "cloudpickle", "cpuinfo"}
    assert len(module.PINNED_DEPS) == 8
    assert {n.split(".")[0] for n in where["environment"]} <= set(module.FROM_ENVIRONMENT)
    assert {n.split(".")[0] for n in where["stub"]} <= {s.split(".")[0] for s in module.STUBS}


def test_the_posts_aside_lists_every_stub(real_vllm):
    module, _ = real_vllm
    post = (ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive.md").read_text()
    aside = post[post.index("??? note \"What real_vllm.py stubs"):]
    aside = aside[:aside.index("\n\n", aside.index("\n    "))]
    listed = set(re.findall(r"`([a-z0-9_.]+)`", aside))
    assert listed == set(module.STUBS)  # every stub named, and nothing that is not stubbed
    pinned = re.sub(r"\s+", " ", re.search(r"beside them \(([^)]+)\)", aside).group(1))
    assert {n.strip() for n in pinned.replace(" and ", ", ").split(",")} == {
        d.split("==")[0] for d in module.PINNED_DEPS}


ANCHOR = re.compile(r"\[`([^`]+)`\]\(https://github\.com/vllm-project/vllm/blob/v0\.33\.0/"
                    r"([^#)]+)#L(\d+)-L(\d+)\)")


def _symbol_spans(source: str, name: str) -> list[tuple[int, int]]:
    """(first, last) line of every def/class called name, decorators included."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append((first, node.end_lineno))
    return spans


def test_line_anchors_cover_their_whole_symbol_in_the_wheel(real_vllm):
    module, _ = real_vllm
    src = module.cache_dir() / "py"
    post = (ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive.md").read_text()
    anchors = ANCHOR.findall(post)
    assert len(anchors) >= 15
    for symbol, path, first, last in anchors:
        name = symbol.split(".")[-1].removesuffix("()")
        spans = _symbol_spans((src / path).read_text(), name)
        assert (int(first), int(last)) in spans, (symbol, path, first, last, spans)


# ---------------------------------------------------------------- CUDA graphs
def _vllm_capture_sizes(v, monkeypatch, max_num_seqs, max_num_batched_tokens):
    """vLLM's own VllmConfig._set_cudagraph_sizes, run on a stand-in for the config it reads."""
    import vllm.config.compilation as compilation
    import vllm.platforms as platforms

    monkeypatch.setattr(platforms.current_platform, "is_device_capability_family",
                        lambda family: False)  # not data-centre Blackwell: an H100/H200
    cc = compilation.CompilationConfig()
    cc.cudagraph_mode = compilation.CUDAGraphMode.FULL_AND_PIECEWISE
    stand_in = types.SimpleNamespace(
        model_config=types.SimpleNamespace(enforce_eager=False), compilation_config=cc,
        scheduler_config=types.SimpleNamespace(max_num_seqs=max_num_seqs,
                                               max_num_batched_tokens=max_num_batched_tokens),
        uniform_decode_query_len=1, speculative_config=None, num_speculative_tokens=0,
        performance_mode="balanced")
    v.VllmConfig._set_cudagraph_sizes(stand_in)
    return cc.cudagraph_capture_sizes


def test_vllm_serve_captures_51_sizes(real_vllm, monkeypatch):
    """vllm serve on an H100/H200 (1024 sequences, 8192 tokens): 51 sizes, 1 to 512, the ceiling
    being twice max_num_seqs capped at 512; with 100 sequences the ceiling is 200."""
    _, v = real_vllm
    sizes = _vllm_capture_sizes(v, monkeypatch, 1024, 8192)
    assert (len(sizes), sizes[:4], sizes[-2:]) == (51, [1, 2, 4, 8], [496, 512])
    assert _vllm_capture_sizes(v, monkeypatch, 100, 8192)[-1] == 200


def test_quoted_gpu_speedups_are_the_sibling_posts_h200_data():
    """The CUDA-graph paragraph's speed-ups are capture.py's rows in the torch.compile post's
    gpu-h200.json (the H200 run), rounded as that post rounds them."""
    sibling = ROOT / "docs" / "blog" / "posts" / "vllm-torch-compile-dynamic-batch-sizes"
    data = json.loads((sibling / "gpu-h200.json").read_text())
    speedup = {r["batch"]: r["speedup"] for r in data["cuda_graph_decode"]["rows"]}
    assert "torch 2.11.0+cu130" in data["about"] and "Triton 3.6.0" in data["about"]
    post = (ROOT / "docs" / "blog" / "posts" / "vllm-v1-deep-dive.md").read_text()
    text = post[post.index("**Warm-up and CUDA graphs.**"):post.index("**The scheduler comes last")]
    text = re.sub(r"\s+", " ", text)
    assert (f"{speedup[1]:.1f}× faster than eager launches at batch 1 and {speedup[512]:.2f}× at 512 "
            "(one NVIDIA H200, torch 2.11.0+cu130, Triton 3.6.0, not the post's pins)") in text


@pytest.mark.parametrize("name", sorted(make_figures.SCENARIOS))
def test_stepper_traces_show_the_real_schedulers_blocks(real_vllm, name):
    """The stepper's golden traces: every step's token split and every request's blocks are what
    vLLM's own Scheduler schedules and allocates for the same scenario."""
    module, v = real_vllm
    trace = make_figures.traces()[name]
    s_model, arrivals = make_figures.SCENARIOS[name][1]()
    real, _ = module.run_real(v, _real_scheduler(real_vllm, s_model), arrivals, sm.fake_next_token)
    assert len(real) == len(trace["steps"])
    for step, record in zip(trace["steps"], real, strict=True):
        tokens = {}
        for r in step["rows"]:  # a resumed request can have a recompute row and another
            tokens[r["rid"]] = tokens.get(r["rid"], 0) + r["tokens"]
        assert tokens == record["num_scheduled_tokens"]
        assert {r["rid"]: r["cached"] for r in step["rows"] if r["cached"]} == {
            k: n for k, n in record["num_prefix_hit_tokens"].items() if n}
        for rid, table in record["block_tables"].items():
            assert [b["id"] for b in step["blocks"] if rid in b["owners"]] == sorted(table)
