"""Tests for the companion code of the post "PyTorch DDP Deep Dive".

Every script runs a real two-rank DDP job (gloo on 127.0.0.1) and asserts its own results; the
tests run them, check what they print against the post, and check that the committed figures
are exactly what figures.py renders from the committed JSON.
"""

from __future__ import annotations

import json
import mmap
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from support import node_executable

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "pytorch_ddp_deep_dive"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive"
sys.path.insert(0, str(EX))
sys.path.insert(0, str(EX.parent))

import figures  # noqa: E402
import sweep  # noqa: E402
from buckets import assign_by_size  # noqa: E402
from overlap import backward_timeline, ready_order, rebuild_limits, timeline_events  # noqa: E402

POST = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive.md"
JS = ROOT / "docs" / "javascripts" / "ifig" / "ddp-bucket-timeline.js"

ALLOWED_CLASSES = {
    "fig-svg", "fig-svg--narrow", "fig-plot", "fig-text", "fig-text-muted", "fig-text-small", "fig-mono", "fig-box",
    "fig-box-primary", "fig-box-accent", "fig-box-warn", "fig-box-ok", "fig-line",
    "fig-line-accent", "fig-line-dashed", "fig-arrow", "fig-grid", "fig-axis",
    *(f"fig-series-{i}" for i in range(1, 5)), *(f"fig-fill-{i}" for i in range(1, 5)),
}


def _run(*args: str, timeout: float = 120.0) -> str:
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT / "tests")  # any cwd must work
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


# ------------------------------------------------------------------ the bucket rule, by hand

@pytest.mark.parametrize(("sizes", "limits", "order", "expected"), [
    ([4, 4, 4], [8], None, [[0, 1], [2]]),             # closes exactly at the limit
    ([3, 10, 1], [5], None, [[0, 1], [2]]),            # overshoots by one tensor
    ([1, 1, 1, 1, 1], [1, 3], None, [[0], [1, 2, 3], [4]]),  # first limit, then the second
    ([2, 2, 2, 2], [4], [3, 2, 1, 0], [[3, 2], [1, 0]]),     # explicit order: no sort
    ([10], [1 << 62], None, [[0]]),                     # DDP's "one bucket" (sys.maxsize)
])
def test_assign_by_size_hand_cases(sizes, limits, order, expected):
    assert assign_by_size(sizes, limits, order) == expected


# ------------------------------------------------------------------ the scripts

def test_buckets_script_matches_committed_layout(tmp_path):
    out = _run(str(EX / "buckets.py"), "--json-out", str(tmp_path / "b.json"))
    assert "all bucket checks passed" in out
    assert "rebuilt bucket 0:  1050624 bytes  ['layers.3.bias', 'layers.3.weight']" in out
    assert "constructor bucket sizes: [2048, 1050624, 1050624, 1050624, 1048576]" in out
    # static_graph=True rebuilds one forward later; bucket_cap_mb_list buckets by size at once.
    static = out.split("DDP(static_graph=True)", 1)[1]
    assert "rebuilt during forward 3, in the logging data from forward 4" in static
    assert "constructor bucket sizes: [1052672, 2101248, 1048576]" in out
    assert "can_set_static_graph in the logging data after 4 iterations: in no case" in out
    # DDP_SET_LAST_BUCKET_CAP=1 and find_unused_parameters=True (default caps): the small bucket
    # is the last one, and the big one, first, holds layer 0's bias.
    last = out.split("DDP(DDP_SET_LAST_BUCKET_CAP=1)", 1)[1]
    assert "rebuilt bucket 0:  3153920 bytes  ['layers.0.bias', 'layers.1.weight'," in last
    assert "rebuilt bucket 1:  1048576 bytes  ['layers.0.weight']" in last
    unused = out.split("DDP(find_unused_parameters=True)", 1)[1]
    assert unused.split("\n")[1] == "  constructor bucket sizes: [3153920, 1048576]"
    # Every trainable parameter delayed: no Reducer, and the first forward fails.
    assert ("'has_reducer': False, 'first_forward': \"AttributeError: 'DistributedDataParallel' "
            "object has no attribute '_lazy_init_ran'\"") in out
    # The layout is deterministic: the committed JSON (and so the figure) is what a run gives.
    assert json.loads((tmp_path / "b.json").read_text()) == \
        json.loads((FIG_DIR / "buckets.json").read_text())


def test_buffers_script_shows_when_the_broadcast_runs():
    out = _run(str(EX / "buffers.py"))
    assert "all buffer checks passed" in out
    pattern = ["train    yes", "train    yes", "no_sync  yes", "train    no", "eval     yes",
               "eval     no", "train    no", "train    yes"]
    lines = [ln.strip() for ln in out.splitlines()]
    start = lines.index("rank 1 marker overwritten by rank 0 in this forward?") + 1
    assert lines[start:start + len(pattern)] == pattern
    assert "broadcast_buffers=False      2.0   FutureWarning: True" in out
    assert "forward_sync_buffers=False   1.0   FutureWarning: False" in out
    assert "BatchNorm model, forward sync on: gloo:broadcast: 2" in out


def test_overlap_script_orders_buckets_before_backward_ends(tmp_path):
    out = _run(str(EX / "overlap.py"), "--batch", "64", "--json-out", str(tmp_path / "t.json"))
    assert "all overlap checks passed on both ranks" in out
    data = json.loads((tmp_path / "t.json").read_text())
    assert [len(it["buckets"]) for it in data["iterations"]] == [1, 4, 4]
    assert [b["params"] for b in data["iterations"][2]["buckets"]] == \
        [[7, 6], [5, 4], [3, 2], [1, 0]]
    # A fresh run renders with the same code path as the committed one.
    svg = figures.render_timeline(data)
    assert svg.count("<rect ") == 1 + 4


def test_prior_reduction_error_fires_under_every_flag_setting():
    # The script asserts the schedule on both ranks; the error must come at forward 4, after the
    # one-time rebuild (if any), because ensure_prior_reduction_finished runs on every
    # grad-enabled forward; each flag setting has its own message.
    out = _run(str(EX / "prior_reduction.py"))
    assert "all prior-reduction checks passed on both ranks" in out
    assert ('every run, both ranks: forward 4 raised "Expected to have finished reduction in the '
            'prior iteration before starting a new one."') in out
    lines = out.splitlines()
    for head, said in (
            ("default flags (rebuilt at forward 2)", "You can enable unused parameter detection"),
            ("find_unused_parameters=True (no rebuild)",
             "Since `find_unused_parameters=True` is enabled, this likely  means that not all "
             "`forward` outputs participate in computing loss."),
            ("static_graph=True (rebuilt at forward 3)",
             "This error indicates that your training graph has changed in this iteration")):
        i = lines.index(f"{head}; the message says:")
        assert lines[i + 1].startswith(f'  "{said}'), lines[i + 1]
    # The post shows this output, the long sentences cut short.
    post = POST.read_text()
    for line in lines:
        assert any(ln.startswith(line[:60]) for ln in post.splitlines()), line


def test_sweep_script_layouts_and_summary(tmp_path):
    out = _run(str(EX / "sweep.py"), "--rounds", "2", "--iters", "2", "--batch", "64",
               "--json-out", str(tmp_path / "s.json"), timeout=240.0)
    assert "fit: alpha =" in out
    # Each one-bucket comparison is printed with its sign test, whatever this run's noise made of
    # the two rounds: 1 of 2 positive gives p = 1.00, 0 or 2 of 2 give p = 0.50 (not a timed test).
    lines = re.findall(r"positive in (\d) of 2 rounds \(sign test p = (\d\.\d\d)\)", out)
    assert lines, out
    assert all(p == ("1.00" if wins == "1" else "0.50") for wins, p in lines), lines
    data = json.loads((tmp_path / "s.json").read_text())
    c = data["configs"]
    assert c["25"]["buckets"] == [4202496]  # an explicit cap of 25: one bucket, no overlap
    assert c["3"]["buckets"] == [3151872, 1050624]
    assert c["2"]["buckets"] == [2101248, 2101248]
    assert c["1"]["buckets"] == [1050624] * 4
    for v in c.values():  # two round medians each, summarised as median, min and max
        assert len(v["rounds"]) == 2 and v["min"] <= v["median"] <= v["max"] and v["min"] > 0
    assert set(data["one_bucket_minus"]) == set(data["sign_test_p"]) == {"3", "2", "1"}
    assert list(data["allreduce_ms"]) == [str(n) for n in sweep.SIZES] and len(sweep.SIZES) == 7
    for a in data["allreduce_ms"].values():  # 2 rounds x 2 turns of every size
        assert a["n"] == 4 and 0 < a["q1"] <= a["median"] <= a["q3"]
    assert data["ns_per_mac"] > 0 and len(data["load_1min"]) == 2


@pytest.mark.parametrize(("diffs", "p"), [
    ([1.0] * 4 + [-1.0], 0.375),             # 4 of 5: the reviewer's p of about 0.38
    ([1.0] * 16 + [-1.0] * 4, 0.011818),     # 16 of 20
    ([1.0, -1.0], 1.0), ([1.0] * 5, 0.0625), ([0.0, 1.0], 1.0), ([], 1.0),
])
def test_sign_test(diffs, p):
    assert sweep.sign_test_p(diffs) == pytest.approx(p, abs=1e-6)


def test_fit_recovers_a_line_and_weighs_sizes_by_relative_misfit():
    line = {str(n): 0.5 + n / MIB * 0.25 for n in sweep.SIZES}
    assert sweep.fit_alpha(line) == pytest.approx({"alpha_ms": 0.5, "ms_per_mib": 0.25})
    # One size off by 20%: the fit moves less than plain least squares lets a large size move it.
    bent = dict(line) | {str(8 * MIB): line[str(8 * MIB)] * 1.2}
    assert abs(sweep.fit_alpha(bent)["alpha_ms"] - 0.5) < 0.05


def _sweep_table(data: dict, traces: dict) -> list[str]:
    """The rows of the post's sweep table, from the committed sweep and the model's traces."""
    model = {str(t["inputs"]["bucket_cap_mb"]): t["timeline"]["backward_ms"]
             for t in traces["scenarios"] if t["inputs"]["id"].startswith("tower-cap-")}
    rows = []
    for key, c in data["configs"].items():
        label = ("`no_sync()` (no all-reduce)" if key == "no_sync" else
                 f"`bucket_cap_mb={key}`" + (" (one bucket)" if key == "25" else ""))
        sizes = ", ".join(f"{b:,}".replace(",", " ") for b in c["buckets"]) or "—"
        pred = ("(its calibration)" if key == "no_sync" else f"{model[key]:.1f} ms")
        rows.append(f"| {label} | {sizes} | {c['median']:.1f} ms ({c['min']:.1f}–{c['max']:.1f}) "
                    f"| {pred} |")
    return rows


def test_committed_sweep_matches_the_post():
    data = json.loads((FIG_DIR / "sweep.json").read_text())
    traces = json.loads((FIG_DIR / "bucket-timeline.json").read_text())
    post = " ".join(POST.read_text().split())  # prose wraps anywhere; table rows stay whole
    for row in _sweep_table(data, traces):
        assert row in post, row
    assert data["rounds"] == 20 and data["iters"] == 10 and data["batch"] == 256
    assert data["fit"]["alpha_ms"] > 0 and data["fit"]["ms_per_mib"] > 0  # a usable model
    # The comparison the post draws: each cap against the single bucket, round by round.
    for key in ("1", "2", "3"):
        d = data["one_bucket_minus"][key]
        assert f"`bucket_cap_mb={key}` in {sum(v > 0 for v in d)} of 20 rounds" in post, key
        assert data["sign_test_p"][key] == sweep.sign_test_p(d)
    d = data["one_bucket_minus"]["1"]
    assert f"(by {min(d):.1f} to {max(d):.1f} ms)" in post
    p = data["sign_test_p"]
    assert f"sign test gives p = {p['1']:.2g}, {p['2']:.2g} and {p['3']:.2g}." in post
    assert p["1"] < 0.05 and p["2"] < 0.05 and p["3"] > 0.05  # "1 and 2 MiB ... 3 MiB cannot"
    assert "load average {:.1f} at the start and {:.1f} at the end".format(*data["load_1min"]) in post
    # The fit: the committed constants are the fit of the committed medians, within 18% of each,
    # and plain least squares would have put alpha at about half the 16 KiB median.
    fit = data["fit"]
    medians = {k: a["median"] for k, a in data["allreduce_ms"].items()}
    assert fit == sweep.fit_alpha(medians)
    assert all(a["n"] == 200 for a in data["allreduce_ms"].values())
    assert f"$\\alpha \\approx$ {fit['alpha_ms']:.2f} ms and {fit['ms_per_mib']:.2f} ms per MiB" in post
    misfit = max(abs(fit["alpha_ms"] + int(k) / MIB * fit["ms_per_mib"] - t) / t
                 for k, t in medians.items())
    assert f"within {100 * misfit:.0f}% of each" in post
    plain = statistics.linear_regression([int(k) / MIB for k in medians], list(medians.values()))
    assert 0.4 < plain.intercept / medians[str(16 * 1024)] < 0.6
    one = next(t["timeline"] for t in traces["scenarios"] if t["inputs"]["id"] == "tower-cap-25")
    assert f"one 4 MiB all-reduce, {one['exposed_ms']:.1f} ms" in post
    c = data["configs"]
    assert f"shows {c['25']['median'] - c['no_sync']['median']:.1f} ms" in post


def test_compile_split_script():
    out = _run(str(EX / "compile_split.py"), timeout=180.0)
    assert "all compile checks passed on both ranks" in out
    assert "  graphs: [[0], [1, 2], [3]]" in out
    assert "compile(DDP(nn.Sequential)) (bucket_cap_mb=1):\n  graphs: []" in out
    assert "First bucket should be smaller/equal" in out
    assert "Compiled autograd is not compatible with C++ DDP Reducer" in out


# ------------------------------------------------------------------ figures

def test_gloo_runs_two_collectives_at_once():
    """The post: gloo has two worker threads by default, and the committed timeline has two
    all-reduces in flight at once (bucket 2 handed over before bucket 1 finished)."""
    assert dist.ProcessGroupGloo._Options()._threads == 2
    third = json.loads((FIG_DIR / "timeline.json").read_text())["iterations"][2]["buckets"]
    assert third[2]["launch_ms"] < third[1]["done_ms"]
    post = " ".join(POST.read_text().split())
    assert (f"bucket 2 was handed over at {third[2]['launch_ms']:.1f} ms, before bucket 1 "
            f"finished at {third[1]['done_ms']:.1f} ms") in post


def test_committed_timeline_data_shows_the_overlap():
    data = json.loads((FIG_DIR / "timeline.json").read_text())
    first, third = data["iterations"][0], data["iterations"][2]
    assert len(first["buckets"]) == 1
    assert first["buckets"][0]["launch_ms"] >= max(t for _, t in first["grad_ready_ms"])
    assert len(third["buckets"]) == 4
    assert third["buckets"][0]["launch_ms"] < max(t for _, t in third["grad_ready_ms"])
    for it in data["iterations"]:
        assert all(b["done_ms"] <= it["backward_end_ms"] for b in it["buckets"])


FIGS = ("map", "timeline", "tail", "buckets", "bucket-timeline")
SVGS = [f"{n}{w}.svg" for n in FIGS for w in ("", "-narrow")]


@pytest.mark.parametrize("name", [*SVGS, "bucket-timeline.json"])
def test_generated_figures_are_committed_exactly(name):
    assert (FIG_DIR / name).read_text() == figures.outputs()[name]


@pytest.mark.parametrize("name", SVGS)
def test_svg_follows_site_rules(name):
    _check_svg((FIG_DIR / name).read_text())


def test_the_interactive_figure_gets_the_models_constants():
    """The post hands the script the constants the traces were made with."""
    attrs = figures.static_attributes(TRACES)
    assert f'<figure class="ifig" data-ifig="ddp-bucket-timeline" {attrs} markdown="0">' in \
        POST.read_text()


def test_narrow_twins_are_phone_drawings():
    """Each wide figure has a twin at most 380 units wide, ids suffixed -narrow, and the post
    includes both in one figure, wide first."""
    post = POST.read_text()
    for name in FIGS:
        narrow = (FIG_DIR / f"{name}-narrow.svg").read_text()
        width = int(re.search(r'viewBox="0 0 (\d+)', narrow).group(1))
        assert width <= 380 and "fig-svg--narrow" in narrow.split(">", 1)[0], name
        assert all("-narrow" in i for i in re.findall(r'\bid="([^"]+)"', narrow)), name
        assert (f'--8<-- "docs/blog/posts/pytorch-ddp-deep-dive/{name}.svg"\n'
                f'--8<-- "docs/blog/posts/pytorch-ddp-deep-dive/{name}-narrow.svg"') in post


def _check_svg(svg: str) -> None:
    assert svg.startswith("<svg ") and svg.endswith("</svg>\n")
    assert "\n\n" not in svg
    head = svg.split(">", 1)[0]
    assert 'viewBox="' in head and "width=" not in head and 'role="img"' in head
    assert re.search(r'class="[^"]*\bfig-svg\b', head)
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert ids and all(i.startswith("pytorch-ddp-deep-dive-") for i in ids)
    labelled = re.search(r'aria-labelledby="([^"]+)"', head).group(1).split()
    assert all(f'id="{i}"' in svg for i in labelled)
    assert "<title" in svg and "<desc" in svg
    classes = {c for attr in re.findall(r'class="([^"]+)"', svg) for c in attr.split()}
    assert classes <= ALLOWED_CLASSES, classes - ALLOWED_CLASSES
    assert not re.search(r'(fill|stroke)="#', svg)  # colours come from the stylesheet only


def test_line_anchors_hold_their_symbol_in_torch_2_13():
    import torch

    assert torch.__version__.split("+")[0] == "2.13.0"
    site = Path(torch.__file__).resolve().parents[1]
    post = (ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive.md").read_text()
    anchors = re.findall(r"\[`([^`]+)`\]\(https://github\.com/pytorch/pytorch/blob/v2\.13\.0/"
                         r"([^#)]+\.py)#L(\d+)-L(\d+)\)", post)
    assert len(anchors) >= 8
    for symbol, path, first, last in anchors:
        lines = (site / path).read_text().splitlines()[int(first) - 1:int(last)]
        assert any(symbol in line for line in lines), (symbol, path, first, last)
    # C++ headers ship verbatim in the wheel (torch/include/...): their ranges hold the name too.
    headers = re.findall(r"\[`([^`]+)`\]\(https://github\.com/pytorch/pytorch/blob/v2\.13\.0/"
                         r"([^#)]+\.hpp)#L(\d+)-L(\d+)\)", post)
    assert len(headers) >= 4
    for symbol, path, first, last in headers:
        lines = (site / "torch" / "include" / path).read_text().splitlines()[int(first) - 1:int(last)]
        assert any(symbol.split("::")[-1] in line for line in lines), (symbol, path, first, last)


# ------------------------------------------------------------------ reducer.cpp line ranges

# The TORCH_INTERNAL_ASSERT locations the 2.13.0 libtorch_cpu.so records for reducer.cpp
# ("...reducer.cpp":LINE, in each assert's message). They anchor the listing the post's ranges
# come from: each is one line below its assert there up to 2305, two lines below at 2542. The
# second line differs at the end of compute_bucket_assignment_by_size (the library moves its two
# result vectors into the returned tuple; the listing's one-line return copies them), so that
# range ends one line later than the listing's plus one.
REDUCER_ASSERTS = [73, 129, 162, 329, 330, 352, 570, 629, 792, 793, 838, 952, 1052, 1163, 1281,
                   1512, 1732, 1738, 1748, 1855, 1996, 2003, 2052, 2121, 2187, 2302, 2305, 2542]
# Each range the post links, as (listing start, listing end) + 1, with the asserts inside it.
REDUCER_RANGES = {
    "Reducer::set_divide_factor": ((557, 575), [570]),
    "Reducer::autograd_hook": ((668, 753), []),
    "Reducer::mark_variable_ready": ((895, 961), [952]),
    "all_reduce_bucket": ((978, 1000), []),
    "Reducer::mark_bucket_ready": ((1051, 1075), [1052]),
    "Reducer::finalize_backward": ((1730, 1824), [1732, 1738, 1748]),
    "flush_deferred_copies": ((1842, 1887), [1855]),
    "sync_bucket_indices": ((1903, 1983), []),
    "Reducer::rebuild_buckets": ((1985, 2071), [1996, 2003, 2052]),
    "ensure_prior_reduction_finished": ((2111, 2205), [2121, 2187]),
    "compute_bucket_assignment_by_size": ((2293, 2418), [2302, 2305]),
}


def test_reducer_cpp_ranges_agree_with_the_asserts_of_the_2_13_library():
    lib = Path(torch.__file__).resolve().parent / "lib" / "libtorch_cpu.so"
    with lib.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        found = sorted({int(v) for v in re.findall(rb'c10d/reducer\.cpp":(\d+)', m)})
    assert found == REDUCER_ASSERTS
    links = re.findall(r"\[`([^`]+)`\]\(https://github\.com/pytorch/pytorch/blob/v2\.13\.0/"
                       r"torch/csrc/distributed/c10d/reducer\.cpp#L(\d+)-L(\d+)\)",
                       POST.read_text())
    assert {sym: (int(a), int(b)) for sym, a, b in links} == \
        {sym: rng for sym, (rng, _) in REDUCER_RANGES.items()}
    for sym, ((first, last), inside) in REDUCER_RANGES.items():
        assert [a for a in REDUCER_ASSERTS if first <= a <= last] == inside, sym
        # The range lies where the listing's offset is established: between two asserts that
        # are both one line below the listing's (the last range: its start only).
        before = max(a for a in REDUCER_ASSERTS if a < first)
        after = min(a for a in REDUCER_ASSERTS if a > first)
        assert before >= 73 and after <= 2305, sym


# ------------------------------------------------------------------ the cost model and its figure

TRACES = json.loads((FIG_DIR / "bucket-timeline.json").read_text())
MIB = 1024 * 1024


@pytest.mark.parametrize("trace", TRACES["scenarios"], ids=lambda t: t["inputs"]["id"])
def test_model_buckets_are_torchs_assignment(trace):
    """Every scenario's layout is what torch's own function gives for the same tensors."""
    sc, tl = trace["inputs"], trace["timeline"]
    w = sc["width"]
    tensors = [t for _ in range(sc["layers"]) for t in (torch.empty(w, w), torch.empty(w))]
    order = ready_order(sc["layers"])
    if sc["iteration"] > 1:  # Reducer::rebuild_buckets: tensors in ready order, with indices
        want, _ = dist._compute_bucket_assignment_by_size(
            [tensors[i] for i in order], rebuild_limits(sc["bucket_cap_mb"]), [], order)
    else:  # the constructor: one limit of sys.maxsize, then reversed
        want, _ = dist._compute_bucket_assignment_by_size(tensors, [sys.maxsize])
        want = [sorted(b, key=order.index) for b in want[::-1]]
    assert [b["params"] for b in tl["buckets"]] == [list(b) for b in want]
    assert [b["bytes"] for b in tl["buckets"]] == \
        [sum(tensors[i].numel() * 4 for i in b) for b in want]


def test_model_layout_and_order_match_the_recorded_ddp_run():
    data = json.loads((FIG_DIR / "buckets.json").read_text())
    assert ready_order(4) == data["default"]["grad_ready_order"]
    for cap, case in ((None, "default"), (25, "bucket_cap_mb=25"), (1, "bucket_cap_mb=1")):
        tl = backward_timeline([512] * 5, cap, 256, 0.1, 1.0, 0.05)
        assert [b["params"] for b in tl["buckets"]] == data[case]["rebuilt_buckets"], case


@pytest.mark.parametrize("trace", TRACES["scenarios"], ids=lambda t: t["inputs"]["id"])
def test_model_follows_the_reducers_rules(trace):
    const, tl = TRACES["constants"], trace["timeline"]
    ready = dict(tl["grad_ready_ms"])
    prev_launch = prev_done = 0.0
    for b in tl["buckets"]:
        assert b["full_ms"] == max(ready[p] for p in b["params"])
        # mark_bucket_ready: never before the bucket is full, never before the previous launch.
        assert b["launch_ms"] == max(b["full_ms"], prev_launch)
        # One all-reduce at a time, in launch order; alpha plus bytes over bandwidth.
        assert b["start_ms"] == max(b["launch_ms"], prev_done)
        assert b["done_ms"] == pytest.approx(
            b["start_ms"] + const["alpha_ms"] + b["bytes"] / MIB * const["ms_per_mib"])
        prev_launch, prev_done = b["launch_ms"], b["done_ms"]
    assert tl["backward_ms"] == max(tl["compute_ms"], prev_done)
    assert trace["events"] == timeline_events(tl)
    assert trace["events"][-1]["states"] == ["done"] * len(tl["buckets"])


def test_what_the_post_says_about_the_figure():
    by = {t["inputs"]["id"]: t["timeline"] for t in TRACES["scenarios"]}
    d = by["tower-default"]
    # Defaults: bucket 0 (layer 3, just over 1 MiB) is reduced while the other layers compute,
    # and only the 3 MiB bucket is left after compute.
    assert [b["bytes"] for b in d["buckets"]] == [1050624, 3151872]
    assert d["buckets"][0]["done_ms"] < d["compute_ms"] <= d["buckets"][1]["start_ms"]
    one = by["tower-cap-25"]
    assert len(one["buckets"]) == 1 and one["buckets"][0]["launch_ms"] == one["compute_ms"]
    # Small batch, many small buckets: communication-bound, and a larger cap is faster.
    small = by["many-small-buckets"]
    inp = next(t["inputs"] for t in TRACES["scenarios"] if t["inputs"]["id"] == "many-small-buckets")
    c = TRACES["constants"]
    bigger = backward_timeline([inp["width"]] * (inp["layers"] + 1), 25, inp["batch"],
                               c["alpha_ms"], c["ms_per_mib"], c["ns_per_mac"])
    assert small["exposed_ms"] > small["compute_ms"] and len(small["buckets"]) == 12
    assert any(b["start_ms"] > b["launch_ms"] for b in small["buckets"])  # they queue
    assert 12 * c["alpha_ms"] > small["exposed_ms"] / 2  # mostly latency
    assert bigger["backward_ms"] < small["backward_ms"]


def test_figure_script_runs_the_same_rule_in_node():
    """The figure's JavaScript port (DDPBT) gives exactly the model's numbers, scenario by
    scenario and on random settings beyond them."""
    c = TRACES["constants"]
    rng = random.Random(0)
    cases = [([t["inputs"]["width"]] * (t["inputs"]["layers"] + 1), t["inputs"]["bucket_cap_mb"],
              t["inputs"]["batch"], c["alpha_ms"], c["ms_per_mib"], c["ns_per_mac"],
              t["inputs"]["iteration"] > 1) for t in TRACES["scenarios"]]
    ctl = TRACES["controls"]
    for _ in range(150):
        cases.append(([rng.choice(ctl["width"])] * (rng.randint(*ctl["layers"]) + 1),
                       rng.choice(ctl["bucket_cap_mb"]), rng.choice(ctl["batch"]),
                       rng.uniform(0, 2), rng.uniform(0.05, 5), rng.uniform(0.005, 1),
                       rng.random() < 0.7))
    probe = JS.read_text() + "\n;console.log(JSON.stringify(" + json.dumps(cases) + \
        ".map(function (c) { var t = DDPBT.timeline.apply(null, c); return [t, DDPBT.events(t)]; })));"
    out = subprocess.run([node_executable(), "-e", probe], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    for case, (tl_js, ev_js) in zip(cases, json.loads(out.stdout), strict=True):
        tl = backward_timeline(*case)
        for key in ("compute_ms", "backward_ms", "exposed_ms", "layers"):
            assert tl_js[key] == tl[key], (case, key)
        assert tl_js["buckets"] == tl["buckets"], case
        assert ev_js == timeline_events(tl), case
