"""A tiny random-weight Qwen3ForCausalLM from a Qwen3Config: module tree, shapes, parameter counts.

Run: python examples/qwen3_architecture_layer_by_layer/tiny_model.py  (CPU, no download)
"""

from __future__ import annotations

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

# --8<-- [start:config]
TINY = dict(
    vocab_size=1000, hidden_size=64, intermediate_size=160, num_hidden_layers=4,
    num_attention_heads=8, num_key_value_heads=2, head_dim=32,  # 8*32 = 256 != hidden_size
    max_position_embeddings=256, rope_theta=1_000_000.0, tie_word_embeddings=True,
)


def build(attn_implementation: str = "eager", seed: int = 0, **overrides) -> Qwen3ForCausalLM:
    torch.manual_seed(seed)
    config = Qwen3Config(**{**TINY, **overrides})
    model = Qwen3ForCausalLM(config).eval()
    model.set_attn_implementation(attn_implementation)  # "eager", "sdpa", "flex_attention", ...
    return model
# --8<-- [end:config]


# --8<-- [start:formula]
def count_params(hidden: int, inter: int, layers: int, heads: int, kv_heads: int, head_dim: int,
                 vocab: int, tie: bool) -> dict[str, int]:
    """Parameters of a dense Qwen3ForCausalLM, from its configuration alone."""
    attn = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2  # q,o + k,v; no bias
    qk_norm = 2 * head_dim                                                    # q_norm, k_norm
    mlp = 3 * hidden * inter                                                  # gate, up, down
    norms = 2 * hidden                                                        # input, post_attention
    per_layer = attn + qk_norm + mlp + norms
    embed = vocab * hidden
    head = 0 if tie else vocab * hidden
    return {"per_layer": per_layer, "embed": embed, "lm_head": head,
            "total": embed + layers * per_layer + hidden + head,  # + final norm
            "non_embedding": layers * per_layer + hidden}
# --8<-- [end:formula]


def shapes_through_one_forward(model: Qwen3ForCausalLM, batch: int = 2, seq: int = 7):
    """Record the output shape of every sub-module of layer 0 (and the trunk ends) on one forward."""
    seen: dict[str, tuple] = {}

    def hook(name):
        def fn(_module, _inputs, output):
            out = output[0] if isinstance(output, tuple) else output
            seen[name] = tuple(out.shape)
        return fn

    watch = ["model.embed_tokens", "model.rotary_emb", "model.layers.0.input_layernorm",
             "model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj",
             "model.layers.0.self_attn.v_proj", "model.layers.0.self_attn.q_norm",
             "model.layers.0.self_attn.k_norm", "model.layers.0.self_attn.o_proj",
             "model.layers.0.self_attn", "model.layers.0.post_attention_layernorm",
             "model.layers.0.mlp.gate_proj", "model.layers.0.mlp", "model.layers.0",
             "model.norm", "lm_head"]
    modules = dict(model.named_modules())
    handles = [modules[n].register_forward_hook(hook(n)) for n in watch]
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    for h in handles:
        h.remove()
    return seen, tuple(logits.shape)


def main() -> None:
    model = build()
    c = model.config
    print(model.model.layers[0])
    seen, logits = shapes_through_one_forward(model)
    for name, shape in seen.items():
        print(f"{name:42s} {shape}")
    # Shapes at every stop (batch 2, 7 tokens); q_norm/k_norm see (B, T, heads, head_dim).
    assert seen["model.embed_tokens"] == (2, 7, 64)
    assert seen["model.rotary_emb"] == (1, 7, 32)                  # cos (and sin): (1, T, head_dim)
    assert seen["model.layers.0.self_attn.q_proj"] == (2, 7, 8 * 32)
    assert seen["model.layers.0.self_attn.k_proj"] == (2, 7, 2 * 32)
    assert seen["model.layers.0.self_attn.q_norm"] == (2, 7, 8, 32)
    assert seen["model.layers.0.self_attn.k_norm"] == (2, 7, 2, 32)
    assert seen["model.layers.0.self_attn.o_proj"] == (2, 7, 64)
    assert seen["model.layers.0.mlp.gate_proj"] == (2, 7, 160)
    assert seen["model.layers.0"] == (2, 7, 64)
    assert logits == (2, 7, 1000)

    # Parameter counts: the module tree against the formula, tied and untied.
    total = sum(p.numel() for p in model.parameters())   # parameters() de-duplicates tied tensors
    f = count_params(c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.num_attention_heads,
                     c.num_key_value_heads, c.head_dim, c.vocab_size, c.tie_word_embeddings)
    assert model.lm_head.weight is model.model.embed_tokens.weight
    assert total == f["total"], (total, f)
    layer0 = sum(p.numel() for p in model.model.layers[0].parameters())
    assert layer0 == f["per_layer"]
    untied = build(tie_word_embeddings=False)
    assert untied.lm_head.weight is not untied.model.embed_tokens.weight
    assert sum(p.numel() for p in untied.parameters()) == total + 1000 * 64
    # Qwen3 has no bias anywhere by default; Qwen2's q/k/v projections had one.
    assert all(m.bias is None for m in model.modules() if isinstance(m, torch.nn.Linear))
    # Freshly initialised norms are all ones; projections are N(0, initializer_range).
    assert torch.equal(model.model.layers[0].self_attn.q_norm.weight, torch.ones(32))
    print(f"parameters: {total} total, {layer0} per layer, tied lm_head; untied adds {1000 * 64}")
    print("all tiny-model checks passed")


if __name__ == "__main__":
    main()
