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


def derived(table: list[dict]) -> dict[str, float]:
    """The figures the post quotes in prose, computed from the same configurations."""
    by = {r["name"]: r for r in table}
    c8 = Qwen3Config(**config_kwargs("Qwen3-8B"))
    d, h, heads, kv = c8.hidden_size, c8.head_dim, c8.num_attention_heads, c8.num_key_value_heads
    embed = {n: Qwen3Config(**config_kwargs(n)).vocab_size * DENSE[n][0] for n in DENSE}
    return {
        "0.6B total (M)": by["Qwen3-0.6B"]["total"] / 1e6,
        "8B total (B)": by["Qwen3-8B"]["total"] / 1e9,
        "32B total (B)": by["Qwen3-32B"]["total"] / 1e9,
        "0.6B embedding (M)": embed["Qwen3-0.6B"] / 1e6,
        "8B embedding (M)": embed["Qwen3-8B"] / 1e6,
        "0.6B embedding share (%)": 100 * embed["Qwen3-0.6B"] / by["Qwen3-0.6B"]["total"],
        "32B embedding share (%)": 100 * embed["Qwen3-32B"] / by["Qwen3-32B"]["total"],
        "8B attention per layer (M)": (2 * d * heads * h + 2 * d * kv * h) / 1e6,
        "8B MLP per layer (M)": 3 * d * c8.intermediate_size / 1e6,
        "q_norm+k_norm per layer": 2 * h,
        "q_norm+k_norm in the 8B": 2 * h * c8.num_hidden_layers,
        # logits of one 4,096-token prompt, all positions kept (logits_to_keep=0)
        "logits, 4096 tokens, float32 (GB)": 4096 * c8.vocab_size * 4 / 1e9,
        "logits, 4096 tokens, bf16 (GB)": 4096 * c8.vocab_size * 2 / 1e9,
    }


def main() -> None:
    table = rows()
    print(f"{'model':11s} {'total':>15s} {'non-embedding':>15s} {'tied':>5s} "
          f"{'q width/hidden':>14s} {'KV bytes/token':>14s}")
    for r in table:
        print(f"{r['name']:11s} {r['total']:15,d} {r['non_embedding']:15,d} {str(r['tied']):>5s} "
              f"{r['q_width']:>6d}/{r['hidden']:<7d} {r['kv_bytes_per_token']:14,d}")
    facts = derived(table)
    for key, value in facts.items():
        print(f"{key}: {value:,.4g}")
    # What the post says in prose, asserted against what was just computed.
    assert round(facts["0.6B total (M)"]) == 596
    assert round(facts["8B total (B)"], 2) == 8.19 and round(facts["32B total (B)"], 1) == 32.8
    assert round(facts["0.6B embedding (M)"]) == 156 and round(facts["8B embedding (M)"]) == 622
    assert round(facts["0.6B embedding share (%)"]) == 26 and facts["32B embedding share (%)"] < 2.4
    assert round(facts["8B attention per layer (M)"], 1) == 41.9 and round(facts["8B MLP per layer (M)"]) == 151
    assert round(facts["logits, 4096 tokens, float32 (GB)"], 2) == 2.49
    assert round(facts["logits, 4096 tokens, bf16 (GB)"], 2) == 1.24
    assert facts["q_norm+k_norm per layer"] == 256 and facts["q_norm+k_norm in the 8B"] == 9216
    print("all parameter-count checks passed")


if __name__ == "__main__":
    main()
