"""Tests for the companion code of the post "Qwen3 Architecture Layer-by-Layer".

Every script builds real transformers 5.24.0 Qwen3 modules on the CPU (random weights, no
download) and asserts its own results; the tests run them from another working directory, check
what they print against the post, check the post's line anchors against the installed package,
check the model-size configurations against litgpt's transcription of the Hub config.json files
(its wheel is fetched from PyPI once, into a cache folder outside the repository), and check the
hand-written figures against the figure rules.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

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
    assert m and float(m.group(1)) > 1
    # the post quotes the bounds the scripts assert, not one run's digits
    text = POST.read_text(encoding="utf-8")
    for bound in ("SDPA in float64: below 1e-08", "differ by less than 1e-08", "more than 1e-02",
                  "unchanged to within\n1e-05", "by more than 1.", "below 1e-06 between eager and SDPA",
                  "to below 1e-06."):
        assert bound in text, bound


def test_param_counts_script_and_the_post_table():
    out = _run("param_counts.py")
    assert "all parameter-count checks passed" in out
    text = POST.read_text(encoding="utf-8")
    for line in out.splitlines():
        if line.startswith("Qwen3-"):
            name, total, non_embedding = line.split()[:3]
            # the post's table quotes every count exactly as the script prints it
            assert f"| {name} |" in text and total in text and non_embedding in text, line
    # the prose figures are the script's, rounded as the post rounds them
    facts = dict(line.split(": ") for line in out.splitlines() if ": " in line)
    for key, quoted in [("0.6B total (M)", "596 M"), ("0.6B embedding (M)", "156 M"),
                        ("8B embedding (M)", "622 M"), ("8B total (B)", "8.19 B"),
                        ("0.6B embedding share (%)", "26 %"), ("8B attention per layer (M)", "41.9 M"),
                        ("8B MLP per layer (M)", "151 M"), ("q_norm+k_norm in the 8B", "9,216"),
                        ("logits, 4096 tokens, float32 (GB)", "about 2.49 GB"),
                        ("logits, 4096 tokens, bf16 (GB)", "1.24 GB in bf16")]:
        assert key in facts and quoted in text, (key, quoted)
    assert "6.95B" not in text and "amanbhandal" not in text   # no second-hand model-card figures


def test_the_config_pins_are_the_front_matter_pins():
    configs = _load("configs")
    front = POST.read_text(encoding="utf-8").split("---")[1]
    pins = dict(re.findall(r"^  ([\w.]+): (\S+)$", front, flags=re.M))
    assert pins == {"transformers": configs.TRANSFORMERS, "torchtune": configs.TORCHTUNE,
                    "litgpt": configs.LITGPT, "qwenlm.github.io": configs.QWENLM_BLOG,
                    "Qwen3": configs.QWEN3_DOCS}
    assert configs.TRANSFORMERS == f"v{TF_VERSION}" and configs.LITGPT == f"v{LITGPT_VERSION}"
    text = POST.read_text(encoding="utf-8")
    for pin in (configs.TORCHTUNE, configs.QWENLM_BLOG, configs.QWEN3_DOCS):
        assert f"/blob/{pin}/" in text, pin          # every link uses the pinned commit


def test_yarn_script_against_the_real_rotary_embedding():
    out = _run("yarn.py")
    assert "all YaRN checks passed" in out
    line = "of 64 frequencies 24 kept, 16 blended, 24 divided by 4; cos/sin scaled by 1.1386"
    assert line in out
    text = POST.read_text(encoding="utf-8")
    assert "24 are kept, 16 blended and 24 divided by four" in text and "1.1386" in text
    assert "yarn table built 2 times while constructing the model, 0 times in a forward" in out
    # the ramp's end indices, and the silent wrong split when original_max_position_embeddings is missing
    assert "ramp from frequency index 23 (kept) to 40 (divided by 4)" in out and "23 and 40 for θ = 10⁶" in text
    assert "split at (24, 41) instead of (23, 40), no warning" in out and "from index 24 to 41" in text


def test_yarn_sketch_matches_transformers_for_other_settings():
    import torch
    from transformers import Qwen3Config
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding
    yarn = _load("yarn")
    for theta, factor, original in [(1e6, 2.0, 32768), (1e4, 8.0, 4096), (5e5, 4.0, 8192)]:
        c = Qwen3Config(head_dim=64, max_position_embeddings=int(original * factor),
                        rope_parameters={"rope_theta": theta, "rope_type": "yarn", "factor": factor,
                                         "original_max_position_embeddings": original})
        ours, scaling = yarn.yarn_inv_freq(theta, 64, factor, original)
        rotary = Qwen3RotaryEmbedding(c)
        assert torch.allclose(rotary.inv_freq, ours, rtol=1e-6, atol=0) and rotary.attention_scaling == scaling


def test_rmsnorm_order_script_and_the_post():
    out = _run("rmsnorm_gemma.py")
    assert "all RMSNorm-order checks passed" in out
    m = re.search(r"(\d+\.\d) % of outputs differ", out)
    assert m, out
    assert f"{m.group(1)} % of the outputs" in POST.read_text(encoding="utf-8")


def test_sliding_and_dispatch_script():
    out = _run("sliding_and_dispatch.py")
    assert "all sliding-window and dispatch checks passed" in out
    assert "cached keys per layer after 11 tokens: [11, 11, 3, 3]" in out
    assert "    0 1 1 1 1 0\n" in out
    assert "flex_attention: 32 query heads -> enable_gqa, 40 -> keys repeated to 40 heads" in out
    assert "[(11, 1, 1), (1, 1, 1), (1, 1, 1)]" in out


# The post cites the dense configurations from pytorch/torchtune's builders at commit bd2a0fc, but no
# torchtune release on PyPI contains them (0.6.1, the newest, has no torchtune/models/qwen3), so a test
# cannot fetch that file. It checks the same values against a second, independent transcription of the
# Hub config.json files that PyPI does ship: litgpt's litgpt/config.py, whose Qwen3 entries each name
# the https://huggingface.co/Qwen/Qwen3-*/blob/main/config.json they were copied from. The wheel is
# downloaded once (pip download --no-deps) into a cache folder outside the repository.
LITGPT_VERSION = "0.5.13"
CACHE = Path(os.environ.get("QWEN3_POST_CACHE", Path.home() / ".cache" / "ml-systems-blog"))
# name: (layers, heads, kv heads, experts, experts per token), as the post states them
MOE = {"Qwen3-30B-A3B": (48, 32, 4, 128, 8), "Qwen3-235B-A22B": (94, 64, 4, 128, 8)}


def _litgpt_qwen3_configs() -> dict[str, dict]:
    target = CACHE / f"litgpt-{LITGPT_VERSION}"
    wheels = sorted(target.glob(f"litgpt-{LITGPT_VERSION}-*.whl"))
    if not wheels:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        f"litgpt=={LITGPT_VERSION}", "-d", str(target)],
                       check=True, capture_output=True, text=True, timeout=600)
        wheels = sorted(target.glob(f"litgpt-{LITGPT_VERSION}-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        tree = ast.parse(wheel.read("litgpt/config.py").decode("utf-8"))

    def value(node):  # the entries are dict(...) calls whose arguments are literals or dict(...) calls
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            return {kw.arg: value(kw.value) for kw in node.keywords}
        return ast.literal_eval(node)

    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in {"qwen_3", "qwen_3_32b", "qwen_3_moe"}):
            for entry in node.value.elts:
                c = value(entry)
                out[c["name"].format("")] = c  # "Qwen3-8B{}" -> "Qwen3-8B" (the "-Base" copies use "{}")
    return out


def test_configs_match_a_transcription_of_the_hub_config_files_from_pypi():
    configs = _load("configs")
    litgpt = _litgpt_qwen3_configs()
    for name, (hidden, inter, layers, heads, kv, _tie) in configs.DENSE.items():
        c = litgpt[name]
        assert c["hf_config"]["org"] == "Qwen" and c["hf_config"]["name"].format("") == name, name
        assert (c["n_embd"], c["intermediate_size"], c["n_layer"], c["n_head"], c["n_query_groups"]) == \
            (hidden, inter, layers, heads, kv), name
        assert c.get("head_size", c["n_embd"] // c["n_head"]) == configs.COMMON["head_dim"], name
        assert c["padded_vocab_size"] == configs.COMMON["vocab_size"], name
        assert c["block_size"] == configs.COMMON["max_position_embeddings"], name
        assert c["rope_base"] == configs.COMMON["rope_theta"] and c["norm_eps"] == configs.COMMON["rms_norm_eps"]
        assert c["bias"] is False and c["norm_qk"] is True, name  # no attention bias; q_norm/k_norm
    for name, (layers, heads, kv, experts, per_token) in MOE.items():
        c = litgpt[name]
        assert (c["n_layer"], c["n_head"], c["n_query_groups"], c["n_expert"], c["n_expert_per_token"]) == \
            (layers, heads, kv, experts, per_token), name
    text = POST.read_text(encoding="utf-8")
    assert f"litgpt {LITGPT_VERSION}" in text and "128 experts, 8 routed per token" in text


LINK = re.compile(r"\[`([^`]+)`\]\((https://github\.com/huggingface/transformers/blob/v([\d.]+)/src/"
                  r"transformers/([^#)]+)#L(\d+)(?:-L(\d+))?)\)")


def _symbol_span(tree: ast.Module, symbol: str) -> tuple[int, int]:
    """First line (the first decorator's, if any) and last line of a def or class, found by name:
    "A.b" is method b of class A; a bare name is a top-level definition or, failing that, the one
    method of that name in the module."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    *outer, name = symbol.removesuffix("()").split(".")
    scope = tree.body
    for part in outer:
        scope = next(n.body for n in scope if isinstance(n, ast.ClassDef) and n.name == part)
    found = [n for n in scope if isinstance(n, defs) and n.name == name]
    if not found and not outer:
        found = [m for n in tree.body if isinstance(n, ast.ClassDef) for m in n.body
                 if isinstance(m, defs) and m.name == name]
    assert len(found) == 1, (symbol, len(found))
    node = found[0]
    return min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno


def test_every_transformers_anchor_covers_exactly_its_symbol_at_the_pinned_version():
    links = LINK.findall(POST.read_text(encoding="utf-8"))
    assert len(links) >= 15
    for symbol, url, version, path, start, end in links:
        assert version == TF_VERSION, url
        tree = ast.parse((TF_SRC / path).read_text(encoding="utf-8"))
        assert (int(start), int(end or start)) == _symbol_span(tree, symbol), (symbol, url)


@pytest.mark.parametrize("name", ["map.svg", "attention.svg", "map-narrow.svg", "attention-narrow.svg"])
def test_svgs_follow_the_figure_rules(name):
    text = (FIG_DIR / name).read_text(encoding="utf-8")
    assert "\n\n" not in text and text.endswith("\n")
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("viewBox") and "fig-svg" in root.get("class", "")
    assert float(root.get("viewBox").split()[2]) <= (350 if "narrow" in name else 680)
    assert ("fig-svg--narrow" in root.get("class")) == ("narrow" in name)
    assert root.find(f"{ns}title") is not None and root.find(f"{ns}desc") is not None
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert ids and all(i.startswith("qwen3-architecture-layer-by-layer-") for i in ids)
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b", text.replace("url(#", ""))  # no fixed colours
    assert not re.search(r"\b(fill|stroke)=\"(?!none)", text)               # colours come from classes


def test_mask_figure_traces_regenerate_from_the_real_functions():
    traces = _load("mask_traces")
    for name, text in traces.render().items():
        assert (FIG_DIR / name).read_text(encoding="utf-8") == text, name
    # the figure's scenarios cover both layer types, the released setting and every GQA ratio
    ts = [t["expect"] for t in traces.traces()]
    assert {t["layer_type"] for t in ts} == {"full_attention", "sliding_attention"}
    assert "none" in {t["sliding_layers"] for t in ts} and {t["group"] for t in ts} == {2, 4, 5, 8}


def test_figures_regenerate_from_figures_py():
    figures = _load("figures")
    for name, text in figures.render().items():
        assert (FIG_DIR / name).read_text(encoding="utf-8") == text, name
