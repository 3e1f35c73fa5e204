"""Tests for the companion code of the post "SGLang Deep Dive: How Engine.generate() Boots and Runs".

The model tests run with the repository's venv (pyzmq pinned in requirements-test.txt). The
comparisons with SGLang's own code install the v0.5.23 wheel with --no-deps, plus the pure-Python
packages its import chain needs, into a cache folder outside the repository (once; set
SGLANG_DEEP_DIVE_CACHE to move it) and run real_compare.py against it in a subprocess.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "sglang_deep_dive"
POST = ROOT / "docs" / "blog" / "posts" / "sglang-deep-dive.md"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "sglang-deep-dive"
SGLANG = "0.5.23"
CACHE = Path(os.environ.get("SGLANG_DEEP_DIVE_CACHE",
                            Path.home() / ".cache" / "ml-systems-blog" / f"sglang-{SGLANG}"))
# The only distribution installed next to the wheel: sglang/srt/platforms/interface.py defines
# msgspec.Struct classes at import time. Everything else the import chain reaches is a
# placeholder (examples/sglang_deep_dive/sglang_imports.py), so a cold run downloads about 39 MB.
MSGSPEC = "msgspec==0.23.0"
MARKER = f"sglang=={SGLANG} .py files + {MSGSPEC}"


def _load(name: str):
    """Import an example under a post-specific module name."""
    spec = importlib.util.spec_from_file_location(f"sglang_deep_dive_{name}", EX / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


radix = _load("radix")
figures = _load("figures")


def _run(args: list[str], timeout: float) -> str:
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT / "tests")  # any cwd must work
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def sglang_site() -> Path:
    """The wheel's Python sources plus msgspec, unpacked once into a cache outside the repo."""
    site, done = CACHE / "site-min", CACHE / "installed-min"
    if not done.exists() or done.read_text() != MARKER:
        pip = [sys.executable, "-m", "pip", "-q"]
        subprocess.run([*pip, "download", "--no-deps", f"sglang=={SGLANG}", "-d", str(CACHE / "wheel")],
                       check=True, timeout=900)
        wheel = next((CACHE / "wheel").glob(f"sglang-{SGLANG}-*.whl"))
        with zipfile.ZipFile(wheel) as zf:  # Python sources only: no pip, no bytecode, no .so
            zf.extractall(site, [n for n in zf.namelist() if n.startswith("sglang/") and n.endswith(".py")])
        subprocess.run([*pip, "install", "--no-deps", "--no-compile", "--target", str(site), MSGSPEC],
                       check=True, timeout=900)
        done.write_text(MARKER)
    return site


# --- our models -----------------------------------------------------------------------------

def test_radix_prints_the_first_scenario():
    out = _run([str(EX / "radix.py")], 60)
    # B's match splits A's node at the shared system prompt; the cap keeps C from using the 7th.
    assert "tree: “sys:”[0–3]L2(“ab”[4–5]L1)  evictable=0 protected=6 free=8–11" in out
    assert "The tree holds 7 of them; the match may use at most 6, so C reuses 6" in out
    assert "so C frees its copy (slot 9) and points its row at the tree's slots" in out
    # D needs 5 slots with 3 free: the least recently used unlocked leaf ("xy") goes.
    assert out.strip().endswith("free=none")
    assert "eviction frees 6–7. D gets 5 new slots: 6–7, 9–11." in out


def test_request_scenarios_follow_the_scheduler_rules():
    runs = {name: radix.run_events(radix.RadixTree(), spec["events"], spec["pool"])
            for name, spec in radix.SCENARIOS.items()}
    shared, batch, lru = runs["shared-prompt"], runs["same-batch"], runs["lru"]
    # A prompt whose every token is cached reuses all but the last: input_len - 1.
    assert [s["requests"][-1]["hit"] for s in shared if s["event"] == "arrive"] == [0, 4, 6, 0]
    # Two copies of one prompt in one batch: the second checkpoint frees its 6 duplicate slots.
    assert batch[2]["freed"] == [6, 7, 8, 9, 10, 11]
    assert [r["row"] for r in batch[2]["requests"]] == [[0, 1, 2, 3, 4, 5]] * 2
    # Eviction takes whole leaves, least recently used first: "bbbb" (touched before C's match
    # of "aaaa"), then C's "b"; E's capped match then splits "aaaa" and evicts the tail it split off.
    assert lru[6]["freed"] == [4, 5, 6, 7, 8]
    assert lru[7]["freed"] == [3] and lru[7]["requests"][-1]["row"] == [0, 1, 2, 3]
    for steps in runs.values():  # locks and sizes stay consistent with the tree
        for s in steps:
            assert s["evictable"] + s["protected"] == sum(
                len(n["slots"]) for n in _nodes(s["tree"]))


def _nodes(tree):
    for n in tree:
        yield n
        yield from _nodes(n["children"])


def test_max_prefix_len():
    assert [radix.max_prefix_len(n) for n in (0, 1, 2, 7)] == [0, 0, 1, 6]
    assert radix.max_prefix_len(7, logprob_start_len=3) == 3


def test_stepper_traces_are_what_the_model_writes(tmp_path):
    """The committed golden traces and static figure are figures.py's output now."""
    for path in figures.write(tmp_path):
        assert path.read_text(encoding="utf-8") == (FIG_DIR / path.name).read_text(encoding="utf-8"), path.name
    data = json.loads((FIG_DIR / "radix-traces.json").read_text(encoding="utf-8"))
    assert list(data) == list(radix.SCENARIOS)
    assert [len(d["steps"]) for d in data.values()] == [len(s["events"]) for s in radix.SCENARIOS.values()]


def test_split_keeps_values_and_lock_counts():
    t = radix.RadixTree()
    t.insert([1, 2, 3, 4], [10, 11, 12, 13])
    _, node = t.match_prefix([1, 2, 3, 4])
    t.inc_lock_ref(node)
    slots, upper = t.match_prefix([1, 2, 9])  # ends inside the locked node: split at 2
    assert slots == [10, 11] and upper.key == [1, 2] and upper.lock_ref == 1
    assert t.shape() == [[[1, 2], [10, 11], 1, [[[3, 4], [12, 13], 1, []]]]]
    assert (t.evictable_size, t.protected_size) == (0, 4)
    assert t.evict(100) == 0  # everything is pinned


def test_eviction_is_lru_by_whole_leaves_and_climbs_to_parents():
    t = radix.RadixTree()
    t.insert([1, 1, 1], [1, 2, 3])
    t.insert([1, 1, 2], [4, 5, 6])  # splits [1,1,1] into [1,1] + [1] and [2]
    t.insert([7], [7])
    t.match_prefix([7])  # [7] is now the most recently used
    assert t.evict(1) == 1 and t.freed == [3]  # the oldest leaf, one token
    assert t.evict(3) == 3 and t.freed == [3, 6, 1, 2]  # leaf [2], then parent [1,1]
    assert t.shape() == [[[7], [7], 0, []]]


def test_insert_reports_the_cached_prefix():
    t = radix.RadixTree()
    assert t.insert([1, 2, 3], [0, 1, 2]) == 0
    assert t.insert([1, 2, 3, 4], [5, 6, 7, 8]) == 3  # the tree keeps its slots 0,1,2
    assert t.match_prefix([1, 2, 3, 4, 5]) == ([0, 1, 2, 8], t.root.children[1].children[4])


def test_lpm_order_is_stable():
    assert radix.lpm_order({"a": 0, "b": 5, "c": 5, "d": 9}) == ["d", "b", "c", "a"]


def test_three_process_miniature_end_to_end():
    out = _run([str(EX / "mini_engine.py")], 120)
    pids = re.search(r"pids: tokenizer (\d+), scheduler (\d+), detokenizer (\d+)", out)
    assert pids and len(set(pids.groups())) == 3
    assert "generate('abc') -> 'def' {'finish_reason': {'type': 'length'}, 'cached_tokens': 0}" in out
    assert "generate(['abcdeXY', 'zzz']) -> [('Z[', 5), ('{|', 0)]" in out
    assert "generate('abcde') -> cached_tokens 4" in out
    assert "stream('hello') -> ['p', 'q', 'r', 's']" in out
    # Non-streaming requests send once, at the finish; the streamed one once per step.
    assert "messages per request: {'r0': 1, 'r1': 1, 'r2': 1, 'r3': 1, 'r4': 4}" in out
    assert out.strip().endswith("all three processes exited: True")


def test_miniature_socket_roles_match_the_post():
    src = (EX / "mini_engine.py").read_text()
    # (socket variable, type, bind or connect): the roles the post's process map shows.
    for var, kind, how in [("recv_from_tokenizer", "PULL", "connect"),
                           ("send_to_detokenizer", "PUSH", "connect"),
                           ("recv_from_scheduler", "PULL", "bind"),
                           ("send_to_tokenizer", "PUSH", "connect"),
                           ("recv_from_detokenizer", "PULL", "bind"),
                           ("send_to_scheduler", "PUSH", "bind")]:
        assert re.search(rf"{var} = ctx\.socket\(zmq\.{kind}\)", src), var
        assert re.search(rf"{var}\.{how}\(", src), var


# --- against SGLang v0.5.23's own code ------------------------------------------------------

def test_real_radix_cache_and_schedule_policy_agree_with_the_model(sglang_site: Path):
    out = _run([str(EX / "real_compare.py"), str(sglang_site)], 600)
    result = json.loads(out.strip().splitlines()[-1])
    real = result["modules"]["real"]
    for module in ("sglang.srt.mem_cache.radix_cache", "sglang.srt.mem_cache.base_prefix_cache",
                   "sglang.srt.mem_cache.evict_policy", "sglang.srt.managers.schedule_policy"):
        assert module in real, module  # executed from the wheel, not a placeholder
    # schedule_batch is a placeholder (importing it reaches the model layers); only
    # Req._compute_max_prefix_len is compiled from its source, at the line the post links.
    placeholders = result["modules"]["placeholders_imported"]
    assert "triton" in placeholders and "sglang.srt.managers.schedule_batch" in placeholders
    assert "sglang.srt.managers.schedule_batch" not in real
    linked = re.search(r"_compute_max_prefix_len`\]\([^)#]*/python/([^)#]+)#L(\d+)", POST.read_text())
    assert result["cap"]["source"] == [linked[1], int(linked[2])]
    for name in ("walkthrough", "splits", "lru_and_locks"):
        assert result[name]["real"] == result[name]["ours"], name
    # The stepper's scenarios, request by request, through SGLang's match/lock/checkpoint/
    # free_kv_row/evict: every step's tree, eviction order, sizes, rows and freed slots agree.
    assert list(result["requests"]) == list(radix.SCENARIOS)
    for name, both in result["requests"].items():
        assert both["real"] == both["ours"], name
        assert both["ours"] == radix.run_events(radix.RadixTree(), radix.SCENARIOS[name]["events"],
                                                radix.SCENARIOS[name]["pool"]), name
    # Req._compute_max_prefix_len, run from the wheel's source: input_len - 1, or logprob_start_len.
    assert result["cap"]["real"] == result["cap"]["ours"] == [0, 1, 5, 6, 4095, 0, 3, 5]
    evictions = [step[1] for step in result["walkthrough"]["real"] if step[0] == "evict"]
    assert evictions == [4, 4]  # whole leaves: asked for 3, got A's and B's 2-token tails
    tree, freed = result["walkthrough"]["real"][-1][1:]
    # insert() never frees B's duplicate slots 200-203; the caller does (_insert_cache).
    assert tree == [] and freed == [100, 101, 102, 103, 104, 105, 204, 205]
    lpm = result["lpm"]
    assert lpm["real"] == lpm["ours"] == ["e", "b", "d", "c", "a"]
    assert lpm["real_with_e_deprioritized"] == ["b", "d", "c", "a", "e"]


def test_post_line_anchors_name_their_symbol(sglang_site: Path):
    """Every [`Symbol`](.../blob/v0.5.23/python/sglang/...#La-Lb) link: the lines contain Symbol,
    and a range that starts at a function's def (or its decorator) ends at the function's last line."""
    text = POST.read_text()
    links = re.findall(r"\[`([^`]+)`\]\(https://github\.com/sgl-project/sglang/blob/v"
                       + re.escape(SGLANG) + r"/python/(sglang/[^#)]+)#L(\d+)(?:-L(\d+))?\)", text)
    assert len(links) >= 20
    functions = 0
    for symbol, path, start, end in links:
        source = (sglang_site / path).read_text()
        lines = source.splitlines()[int(start) - 1: int(end or start)]
        name = symbol.split(".")[-1].split("(")[0]
        assert any(name in line for line in lines), (symbol, path, start, end)
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and int(start) in {node.lineno, *(d.lineno for d in node.decorator_list)}):
                assert int(end or start) == node.end_lineno, (symbol, path, start, end, node.end_lineno)
                functions += 1
    assert functions >= 80


def test_ipc_hop_measures_sglang_messages(sglang_site: Path):
    """ipc_hop.py with few rounds: SGLang's BatchTokenIDOutput through its own sock_send/recv."""
    out = _run([str(EX / "ipc_hop.py"), str(sglang_site), "--rounds", "50", "--batches", "1,64"], 300)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["cpus"] >= 1 and result["cpu"] and result["rounds"] == 50
    assert result["io_struct"] == "sglang/srt/managers/io_struct.py"  # the wheel's, not a placeholder
    one, many = result["batches"]["1"], result["batches"]["64"]
    assert 0 < one["pickled_bytes"] < many["pickled_bytes"]
    for b in (one, many):  # a hop includes one pickle and one unpickle
        assert 0 < b["pickle_us"] and 0 < b["unpickle_us"] and b["hop_us"] > 0


def test_post_hop_table_is_the_recorded_runs():
    """The post's hop figures are the lowest and highest medians of the runs in ipc-hop-runs.json."""
    runs = json.loads((FIG_DIR / "ipc-hop-runs.json").read_text(encoding="utf-8"))["runs"]
    text = " ".join(POST.read_text().split())
    words = {5: "Five"}
    loads = [r["load_1min"] for r in runs]
    assert (f"{words[len(runs)]} runs on {runs[0]['cpus']} vCPUs of an {runs[0]['cpu']} "
            f"(Python {runs[0]['python']}, pyzmq {runs[0]['pyzmq']}, libzmq {runs[0]['libzmq']})") in text
    assert f"averages of {min(loads):.0f} to {max(loads):.0f}," in text
    for key in ("cpu", "cpus", "python", "pyzmq", "libzmq", "rounds", "batches"):
        assert len({json.dumps(r[key] if key != "batches" else sorted(r[key])) for r in runs}) == 1, key

    def span(batch: str, field: str) -> str:
        lo, hi = (round(f(r["batches"][batch][field] for r in runs)) for f in (min, max))
        return f"{lo} µs" if lo == hi else f"{lo}–{hi} µs"

    for batch in runs[0]["batches"]:
        row = " | ".join([batch, f"{runs[0]['batches'][batch]['pickled_bytes']:,}",
                          *(span(batch, f) for f in ("pickle_us", "unpickle_us", "hop_us"))])
        assert f"| {row} |" in text, row
    assert f"It times {runs[0]['rounds']:,} round trips" in text


def test_post_sketches_define_every_name_they_use():
    """The post's simplified sketches parse, and use no name they never bind (besides self and
    the imports a reader supplies)."""
    sketches = re.findall(r"```python\n(# simplified sketch of [^\n]+\n.*?)```", POST.read_text(), re.S)
    assert len(sketches) == 2
    for code in sketches:
        names = list(ast.walk(ast.parse(code)))
        bound = {n.id for n in names if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        used = {n.id for n in names if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        assert used - bound - set(dir(builtins)) - {"self", "deque"} == set(), code.splitlines()[0]


@pytest.mark.parametrize("name", ["map", "request-life"])
def test_svg_conventions(name):
    for file, narrow in ((f"{name}.svg", False), (f"{name}-narrow.svg", True)):
        svg = (FIG_DIR / file).read_text()
        cls = "fig-svg fig-svg--narrow" if narrow else "fig-svg"
        assert svg.startswith(f'<svg class="{cls}"') and "viewBox=" in svg
        assert '<title id="sglang-deep-dive-' in svg and '<desc id="sglang-deep-dive-' in svg
        assert "\n\n" not in svg
        for ident in re.findall(r'id="([^"]+)"', svg):  # unique on the page: the twin's say so
            assert ident.startswith(f"sglang-deep-dive-{'life' if name == 'request-life' else name}-")
            assert ("-narrow-" in ident) == narrow, ident
        assert not re.search(r'(fill|stroke)="#', svg)
        width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
        assert width <= (380 if narrow else 680)
        # No label smaller than the site's 11-unit class: only the CSS classes set sizes.
        assert "font-size" not in svg
    # What the expert read asked of both drawings: the default prefix cache by its class name, and
    # a prefill that sends a non-streaming request's first token nowhere.
    for file in (f"{name}.svg", f"{name}-narrow.svg"):
        svg = (FIG_DIR / file).read_text()
        texts = re.findall(r">([^<>]+)</text>", svg)
        if name == "map":
            assert "UnifiedRadixCache" in texts and "RadixCache" not in texts
        else:
            assert "checkpoint · nothing sent" in texts and "only at 50, 100, … tokens" in texts
            assert "first token" not in texts
