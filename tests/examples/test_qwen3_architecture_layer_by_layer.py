"""Tests for the companion code of the post "Qwen3 Architecture Layer-by-Layer".

Every script builds real transformers 5.24.0 Qwen3 modules on the CPU (random weights, no
download) and asserts its own results; the tests run them from another working directory, check
what they print against the post, check the post's line anchors against the installed package,
and check the hand-written figures against the figure rules.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

transformers = pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "qwen3_architecture_layer_by_layer"
POST = ROOT / "docs" / "blog" / "posts" / "qwen3-architecture-layer-by-layer.md"
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "qwen3-architecture-layer-by-layer"
TF_VERSION = "5.24.0"
TF_SRC = Path(transformers.__file__).resolve().parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"qwen3_architecture_layer_by_layer_{name}", EX / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(script: str, timeout: float = 300.0) -> str:
    proc = subprocess.run([sys.executable, str(EX / script)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT / "tests")  # any cwd must work
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_pinned_transformers_is_installed():
    assert transformers.__version__ == TF_VERSION
    assert f"transformers=={TF_VERSION}" in (ROOT / "requirements-test.txt").read_text(encoding="utf-8")


def test_tiny_model_script():
    out = _run("tiny_model.py")
    assert "all tiny-model checks passed" in out
    assert re.search(r"model\.layers\.0\.self_attn\.q_norm +\(2, 7, 8, 32\)", out)
    assert "parameters: 351552 total, 71872 per layer, tied lm_head; untied adds 64000" in out


@pytest.mark.parametrize("tie", [True, False])
@pytest.mark.parametrize(("hidden", "inter", "layers", "heads", "kv", "head_dim"), [
    (32, 48, 2, 4, 4, 8),       # MHA: kv heads == heads
    (48, 64, 3, 6, 1, 16),      # MQA, q width 96 != hidden 48
    (64, 96, 1, 8, 2, 8),       # GQA, q width 64 == hidden
])
def test_formula_matches_an_allocated_model(hidden, inter, layers, heads, kv, head_dim, tie):
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM
    tiny = _load("tiny_model")
    config = Qwen3Config(vocab_size=97, hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                         num_attention_heads=heads, num_key_value_heads=kv, head_dim=head_dim,
                         tie_word_embeddings=tie)
    model = Qwen3ForCausalLM(config)
    assert not any(p.is_meta for p in model.parameters())
    counted = sum(p.numel() for p in model.parameters())
    assert counted == tiny.count_params(hidden, inter, layers, heads, kv, head_dim, 97, tie)["total"]
    with torch.device("meta"):
        meta = Qwen3ForCausalLM(config)
    assert sum(p.numel() for p in meta.parameters()) == counted


def test_scratch_layer_script():
    out = _run("scratch_layer.py")
    assert "all scratch-layer checks passed" in out
    assert "layer 0, eager, float64: max |scratch - library| = 0.00e+00" in out
    assert "layer 0, eager, float32: max |scratch - library| = 0.00e+00" in out
    m = re.search(r"rope->norm (\S+)", out)
    assert m and float(m.group(1)) > 0.1


def test_param_counts_script_and_the_post_table():
    out = _run("param_counts.py")
    assert "all parameter-count checks passed" in out
    text = POST.read_text(encoding="utf-8")
    for line in out.splitlines():
        if line.startswith("Qwen3-"):
            name, total, non_embedding = line.split()[:3]
            # the post's table quotes every count exactly as the script prints it
            assert f"| {name} |" in text and total in text and non_embedding in text, line


def test_sliding_and_dispatch_script():
    out = _run("sliding_and_dispatch.py")
    assert "all sliding-window and dispatch checks passed" in out
    assert "cached keys per layer after 11 tokens: [11, 11, 3, 3]" in out
    assert "    0 1 1 1 1 0\n" in out


def test_configs_match_their_source_where_it_is_on_this_machine():
    src = Path("/work/.mirror/pytorch+torchtune/repo")
    if not src.exists():
        pytest.skip("torchtune mirror not on this machine")
    text = subprocess.run(["git", "--git-dir", str(src), "show",
                           "bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1:torchtune/models/qwen3/_model_builders.py"],
                          capture_output=True, text=True, check=True).stdout
    configs = _load("configs")
    for name, (hidden, inter, layers, heads, kv, tie) in configs.DENSE.items():
        size = name.removeprefix("Qwen3-").lower().replace(".", "_")
        fn = f"qwen3_{size}" if size == "32b" else f"qwen3_{size}_instruct"
        body = text.split(f"def {fn}()", 1)[1].split("\ndef ", 1)[0]
        for key, value in [("embed_dim", hidden), ("intermediate_dim", inter), ("num_layers", layers),
                           ("num_heads", heads), ("num_kv_heads", kv)]:
            assert f"{key}={value}," in body, (name, key)
        assert ("tie_word_embeddings=True" in body) == tie, name
        assert "max_seq_len=40960" in body and "rope_base=1000000.0" in body and "head_dim=128" in body


LINK = re.compile(r"\[`([^`]+)`\]\((https://github\.com/huggingface/transformers/blob/v([\d.]+)/src/"
                  r"transformers/([^#)]+)#L(\d+)(?:-L(\d+))?)\)")


def test_every_transformers_anchor_names_its_symbol_at_the_pinned_version():
    links = LINK.findall(POST.read_text(encoding="utf-8"))
    assert len(links) >= 15
    for symbol, url, version, path, start, end in links:
        assert version == TF_VERSION, url
        lines = (TF_SRC / path).read_text(encoding="utf-8").splitlines()
        chunk = "\n".join(lines[int(start) - 1:int(end or start)])
        assert symbol.rsplit(".", 1)[-1].removesuffix("()") in chunk, (symbol, url)


@pytest.mark.parametrize("name", ["map.svg", "attention.svg"])
def test_svgs_follow_the_figure_rules(name):
    text = (FIG_DIR / name).read_text(encoding="utf-8")
    assert "\n\n" not in text and text.endswith("\n")
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("viewBox") and "fig-svg" in root.get("class", "")
    assert float(root.get("viewBox").split()[2]) <= 680
    assert root.find(f"{ns}title") is not None and root.find(f"{ns}desc") is not None
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert ids and all(i.startswith("qwen3-architecture-layer-by-layer-") for i in ids)
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b", text.replace("url(#", ""))  # no fixed colours
    assert not re.search(r"\b(fill|stroke)=\"(?!none)", text)               # colours come from classes


def test_figures_regenerate_from_figures_py():
    figures = _load("figures")
    for name, text in figures.render().items():
        assert (FIG_DIR / name).read_text(encoding="utf-8") == text, name
