"""Parameter counts of the six dense Qwen3 sizes, without allocating a single weight.

Each configuration (configs.py) is built into a Qwen3ForCausalLM on PyTorch's meta device, whose
tensors carry shapes but no storage; the counts are checked against the closed-form formula that
tiny_model.py checks against a real, allocated model.

Run: python examples/qwen3_architecture_layer_by_layer/param_counts.py  (CPU, no download)
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from configs import DENSE, config_kwargs  # noqa: E402
from tiny_model import count_params  # noqa: E402


# --8<-- [start:meta]
def meta_count(name: str) -> tuple[int, int, Qwen3Config]:
    config = Qwen3Config(**config_kwargs(name))
    with torch.device("meta"):                       # shapes only: 32B costs no memory
        model = Qwen3ForCausalLM(config)
    assert all(p.is_meta for p in model.parameters())
    total = sum(p.numel() for p in model.parameters())          # tied weights counted once
    embed = model.model.embed_tokens.weight.numel()
    return total, embed, config
# --8<-- [end:meta]


def rows() -> list[dict]:
    out = []
    for name in DENSE:
        total, embed, c = meta_count(name)
        f = count_params(c.hidden_size, c.intermediate_size, c.num_hidden_layers,
                         c.num_attention_heads, c.num_key_value_heads, c.head_dim,
                         c.vocab_size, c.tie_word_embeddings)
        assert total == f["total"], (name, total, f)
        head = 0 if c.tie_word_embeddings else embed
        kv_bytes = 2 * c.num_hidden_layers * c.num_key_value_heads * c.head_dim * 2  # K+V, bf16
        out.append({"name": name, "total": total, "non_embedding": total - embed - head,
                    "tied": c.tie_word_embeddings, "per_layer": f["per_layer"],
                    "q_width": c.num_attention_heads * c.head_dim, "hidden": c.hidden_size,
                    "kv_bytes_per_token": kv_bytes})
    return out


def main() -> None:
    table = rows()
    print(f"{'model':11s} {'total':>15s} {'non-embedding':>15s} {'tied':>5s} "
          f"{'q width/hidden':>14s} {'KV bytes/token':>14s}")
    for r in table:
        print(f"{r['name']:11s} {r['total']:15,d} {r['non_embedding']:15,d} {str(r['tied']):>5s} "
              f"{r['q_width']:>6d}/{r['hidden']:<7d} {r['kv_bytes_per_token']:14,d}")
    by = {r["name"]: r for r in table}
    # The names round these: 0.6B, 1.7B, 4B, 8B, 14B, 32B (model cards: 8.2B and 6.95B for 8B).
    assert round(by["Qwen3-8B"]["total"] / 1e9, 1) == 8.2
    assert round(by["Qwen3-8B"]["non_embedding"] / 1e9, 2) == 6.95
    assert round(by["Qwen3-32B"]["total"] / 1e9, 1) == 32.8
    assert round(by["Qwen3-0.6B"]["total"] / 1e9, 2) == 0.60
    print("all parameter-count checks passed")


if __name__ == "__main__":
    main()
