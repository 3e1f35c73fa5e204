"""Tests for the companion code of the post "PyTorch DDP Deep Dive".

Every script runs a real two-rank DDP job (gloo on 127.0.0.1) and asserts its own results; the
tests run them, check what they print against the post, and check that the committed figures
are exactly what figures.py renders from the committed JSON.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "pytorch_ddp_deep_dive"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive"
sys.path.insert(0, str(EX))
sys.path.insert(0, str(EX.parent))

import figures  # noqa: E402
from buckets import assign_by_size  # noqa: E402

ALLOWED_CLASSES = {
    "fig-svg", "fig-plot", "fig-text", "fig-text-muted", "fig-text-small", "fig-mono", "fig-box",
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


def test_prior_reduction_error_fires_after_the_rebuild():
    # The script asserts the schedule on both ranks; the error must come at forward 4,
    # two forwards after the one-time rebuild, because ensure_prior_reduction_finished runs
    # on every grad-enabled forward.
    out = _run(str(EX / "prior_reduction.py"))
    assert "forward 2: forward ok, rebuilt=True" in out
    assert ("forward 4: forward raised: Expected to have finished reduction in the prior "
            "iteration before starting a new one") in out


def test_sweep_script_layouts_and_medians(tmp_path):
    out = _run(str(EX / "sweep.py"), "--iters", "5", "--batch", "64",
               "--json-out", str(tmp_path / "s.json"), timeout=240.0)
    assert "fit: alpha =" in out
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["25"]["buckets"] == "4202496"  # an explicit cap of 25: one bucket, no overlap
    assert data["2"]["buckets"] == "2101248, 2101248"
    assert data["1"]["buckets"] == ", ".join(["1050624"] * 4)
    assert all(v["median_ms"] > 0 for k, v in data.items() if k != "allreduce_ms")


def test_committed_sweep_matches_the_post():
    data = json.loads((FIG_DIR / "sweep.json").read_text())
    post = (ROOT / "docs" / "blog" / "posts" / "pytorch-ddp-deep-dive.md").read_text()
    for key in ("no_sync", "25", "3", "2", "1"):
        assert f"{data[key]['median_ms']:.1f} ms |" in post, key
    one = data["25"]["median_ms"]
    assert all(data[k]["median_ms"] < one for k in ("3", "2", "1"))  # overlap paid, that run


def test_compile_split_script():
    out = _run(str(EX / "compile_split.py"), timeout=180.0)
    assert "all compile checks passed on both ranks" in out
    assert "  graphs: [[0], [1, 2], [3]]" in out
    assert "compile(DDP(nn.Sequential)) (bucket_cap_mb=1):\n  graphs: []" in out
    assert "First bucket should be smaller/equal" in out
    assert "Compiled autograd is not compatible with C++ DDP Reducer" in out


# ------------------------------------------------------------------ figures

def test_committed_timeline_data_shows_the_overlap():
    data = json.loads((FIG_DIR / "timeline.json").read_text())
    first, third = data["iterations"][0], data["iterations"][2]
    assert len(first["buckets"]) == 1
    assert first["buckets"][0]["launch_ms"] >= max(t for _, t in first["grad_ready_ms"])
    assert len(third["buckets"]) == 4
    assert third["buckets"][0]["launch_ms"] < max(t for _, t in third["grad_ready_ms"])
    for it in data["iterations"]:
        assert all(b["done_ms"] <= it["backward_end_ms"] for b in it["buckets"])


@pytest.mark.parametrize("name", ["map.svg", "timeline.svg", "tail.svg", "buckets.svg"])
def test_generated_figures_are_committed_exactly(name):
    assert (FIG_DIR / name).read_text() == figures.outputs()[name]


@pytest.mark.parametrize("name", ["map.svg", "timeline.svg", "tail.svg", "buckets.svg"])
def test_svg_follows_site_rules(name):
    svg = (FIG_DIR / name).read_text()
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
                         r"([^#)]+)#L(\d+)-L(\d+)\)", post)
    assert len(anchors) >= 8
    for symbol, path, first, last in anchors:
        lines = (site / path).read_text().splitlines()[int(first) - 1:int(last)]
        assert any(symbol in line for line in lines), (symbol, path, first, last)
