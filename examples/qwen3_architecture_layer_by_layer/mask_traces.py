"""Golden traces for the interactive figure "qwen3-masks-heads", computed by transformers 5.24.0.

For each scenario (a released size, a sequence length, a layer, and the sliding-window settings)
the real Qwen3Config gives the layer types, the real mask function gives the mask, the real
repeat_kv gives which key/value head each query head reads, and a real DynamicCache, filled with
one prefill, gives how many tokens each layer keeps. The figure (docs/javascripts/ifig/
qwen3-masks-heads.js) computes the same from the size's configuration, and
tests/browser/test_ifig_qwen3_masks_heads.py drives it through these scenarios in a browser.

Run: python examples/qwen3_architecture_layer_by_layer/mask_traces.py  (rewrites the JSON files)
"""

from __future__ import annotations

import json
import sys
from html import escape
from pathlib import Path

import torch
from transformers import DynamicCache, Qwen3Config
from transformers.masking_utils import create_causal_mask, create_sliding_window_causal_mask
from transformers.models.qwen3.modeling_qwen3 import repeat_kv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from configs import DENSE, config_kwargs  # noqa: E402
from tiny_model import build  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "blog" / "posts" / "qwen3-architecture-layer-by-layer"
BF16 = 2

# (model, tokens, layer, use_sliding_window, window, max_window_layers)
SCENARIOS = [
    ("Qwen3-8B", 8, 30, True, 4, 28),
    ("Qwen3-8B", 8, 30, False, 4, 28),      # as released: the window is switched off
    ("Qwen3-0.6B", 12, 27, True, 5, 20),
    ("Qwen3-0.6B", 12, 3, True, 5, 20),
    ("Qwen3-14B", 6, 39, True, 3, 0),        # every layer slides
    ("Qwen3-32B", 16, 63, True, 16, 60),     # window as long as the sequence
    ("Qwen3-4B", 1, 35, True, 4, 30),
    ("Qwen3-1.7B", 10, 10, False, 4, 28),
]


def figure_data() -> dict:
    """What the page embeds: each size's layers, heads and head size, from configs.py."""
    out = {}
    for name in DENSE:
        c = Qwen3Config(**config_kwargs(name))
        out[name] = {"layers": c.num_hidden_layers, "heads": c.num_attention_heads,
                     "kv_heads": c.num_key_value_heads, "head_dim": c.head_dim}
    return {"models": out, "default": dict(zip(
        ("model", "tokens", "layer", "sliding", "window", "max_window_layers"), SCENARIOS[0], strict=True))}


def mask_rows(tokens: int, window: int | None) -> list[str]:
    """The eager mask of the real mask functions, one string of 0/1 per query."""
    model = build("eager", **({"use_sliding_window": True, "sliding_window": window,
                               "max_window_layers": 0} if window else {}))
    kw = dict(config=model.config, inputs_embeds=torch.zeros(1, tokens, 64), attention_mask=None,
              cache=None, position_ids=torch.arange(tokens)[None])
    mask = (create_sliding_window_causal_mask if window else create_causal_mask)(**kw)[0, 0] == 0
    return ["".join("1" if v else "0" for v in row) for row in mask.tolist()]


def trace(model: str, tokens: int, layer: int, sliding: bool, window: int, max_window_layers: int) -> dict:
    config = Qwen3Config(**config_kwargs(model), use_sliding_window=sliding, sliding_window=window,
                         max_window_layers=max_window_layers)
    types = config.layer_types
    kind = types[layer]
    heads, kv_heads, h = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    rows = mask_rows(tokens, window if kind == "sliding_attention" else None)
    kv_index = torch.arange(kv_heads, dtype=torch.float32).view(1, kv_heads, 1, 1)
    kv_of_query = [int(v) for v in repeat_kv(kv_index, heads // kv_heads)[0, :, 0, 0]]
    cache = DynamicCache(config=config)
    for i in range(config.num_hidden_layers):        # one prefill of `tokens` tokens, head size 1
        cache.update(torch.zeros(1, 1, tokens, 1), torch.zeros(1, 1, tokens, 1), i)
    kept = [layer_cache.keys.shape[-2] for layer_cache in cache.layers]
    per_token_layer = 2 * kv_heads * h * BF16                                   # K and V, bf16
    sliding_layers = [i for i, t in enumerate(types) if t == "sliding_attention"]
    return {
        "settings": {"model": model, "tokens": tokens, "layer": layer, "sliding": sliding,
                     "window": window, "max_window_layers": max_window_layers},
        "expect": {
            "layer_type": kind,
            "sliding_layers": f"{sliding_layers[0]}-{sliding_layers[-1]}" if sliding_layers else "none",
            "mask": rows,
            "visible": [row.count("1") for row in rows],
            "group": heads // kv_heads,
            "kv_of_query": kv_of_query,
            "kv_bytes_per_token": per_token_layer * config.num_hidden_layers,
            "cache_bytes": per_token_layer * sum(kept),
        },
    }


def traces() -> list[dict]:
    return [trace(*s) for s in SCENARIOS]


def static_table(ts: list[dict]) -> str:
    """The no-JavaScript fallback: every scenario as a table row."""
    head = ("model", "tokens", "layer", "window", "layer type", "keys seen by each query",
            "query heads per KV head", "KV cache after the prompt")
    lines = ['<div class="ifig-static">', "<table>",
             "<caption>The figure's scenarios, as transformers 5.24.0 computes them</caption>",
             "<thead><tr>" + "".join(f'<th scope="col">{escape(x)}</th>' for x in head) + "</tr></thead>",
             "<tbody>"]
    for t in ts:
        s, e = t["settings"], t["expect"]
        window = f"{s['window']} from layer {s['max_window_layers']}" if s["sliding"] else "off"
        cells = (s["model"], s["tokens"], s["layer"], window, e["layer_type"].replace("_", " "),
                 " ".join(map(str, e["visible"])), e["group"], f"{e['cache_bytes']:,} bytes")
        lines.append("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    lines += ["</tbody>", "</table>", "</div>"]
    return "\n".join(lines) + "\n"


def render() -> dict[str, str]:
    ts = traces()
    return {"masks-traces.json": json.dumps(ts, indent=1) + "\n",
            "masks-figure.json": json.dumps(figure_data(), indent=1) + "\n",
            "masks-table.html": static_table(ts)}


if __name__ == "__main__":
    for name, text in render().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print("wrote", OUT / name)
