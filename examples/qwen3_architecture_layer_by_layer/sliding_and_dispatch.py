"""layer_types, the sliding-window mask, the KV cache per layer type, and eager vs SDPA dispatch.

A from-scratch forward of the whole tiny model (embedding, layers with their own windows, final
norm, tied head) is checked against Qwen3ForCausalLM with and without sliding layers.

Run: python examples/qwen3_architecture_layer_by_layer/sliding_and_dispatch.py  (CPU, no download)
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from transformers import DynamicCache, Qwen3Config, Qwen3ForCausalLM
from transformers.cache_utils import DynamicLayer, DynamicSlidingWindowLayer
from transformers.integrations import flex_attention as flex
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import create_causal_mask, create_sliding_window_causal_mask
from transformers.modeling_outputs import BaseModelOutputWithPast, CausalLMOutputWithPast
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
from transformers.models.qwen3.modeling_qwen3 import Qwen3PreTrainedModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scratch_layer import ScratchQwen3Layer, rms_norm, trained_looking  # noqa: E402
from tiny_model import build  # noqa: E402

SLIDING = dict(use_sliding_window=True, sliding_window=4, max_window_layers=2)


def scratch_logits(model, ids: torch.Tensor) -> torch.Tensor:
    """The whole forward from scratch, each layer with the window its layer_type gives it."""
    c = model.config
    layers = [ScratchQwen3Layer.from_hf(layer, c) for layer in model.model.layers]
    x = model.model.embed_tokens.weight[ids]
    pos = torch.arange(ids.shape[1])
    with torch.no_grad():
        for layer, kind in zip(layers, c.layer_types, strict=True):
            x = layer(x, pos, window=c.sliding_window if kind == "sliding_attention" else None)
        x = rms_norm(x, model.model.norm.weight, c.rms_norm_eps)
        return x @ model.lm_head.weight.T


# --8<-- [start:flex]
def flex_gqa(heads: int, kv_heads: int) -> tuple[bool, int]:
    """Run transformers' flex_attention_forward with the kernel call replaced by a recorder."""
    seen = {}

    def record(query, key, value, enable_gqa, **kwargs):
        seen.update(enable_gqa=enable_gqa, key_heads=key.shape[1])
        return torch.zeros_like(query)         # on the CPU no log-sum-exp is requested

    real, flex.compile_friendly_flex_attention = flex.compile_friendly_flex_attention, record
    try:
        q, kv = torch.zeros(1, heads, 5, 8), torch.zeros(1, kv_heads, 5, 8)
        flex.flex_attention_forward(torch.nn.Module(), q, kv, kv, attention_mask=None)
    finally:
        flex.compile_friendly_flex_attention = real
    return seen["enable_gqa"], seen["key_heads"]
# --8<-- [end:flex]


def main() -> None:
    # --8<-- [start:layer-types]
    plain = Qwen3Config()                           # the released configs: use_sliding_window false
    assert plain.sliding_window is None and set(plain.layer_types) == {"full_attention"}
    assert Qwen3Config(sliding_window=4096).sliding_window is None   # ignored unless switched on
    c = Qwen3Config(num_hidden_layers=4, **SLIDING)
    assert c.layer_types == ["full_attention", "full_attention", "sliding_attention", "sliding_attention"]
    # --8<-- [end:layer-types]
    print("layer_types with max_window_layers=2 of 4:", c.layer_types)

    # The window: a query at position i sees keys i-3 .. i (4 keys, itself included).
    model = build("eager", **SLIDING)
    assert [layer.self_attn.sliding_window for layer in model.model.layers] == [None, None, 4, 4]
    x, pos = torch.zeros(1, 6, 64), torch.arange(6)[None]
    kw = dict(config=model.config, inputs_embeds=x, attention_mask=None, cache=None, position_ids=pos)
    eager_sliding = create_sliding_window_causal_mask(**kw)[0, 0] == 0   # additive float mask
    i, j = torch.arange(6)[:, None], torch.arange(6)[None, :]
    assert torch.equal(eager_sliding, (j <= i) & (j > i - 4))
    print("sliding mask, 6 tokens, window 4 (1 = visible):")
    for row in eager_sliding.int().tolist():
        print("   ", *row)

    # SDPA: the full-attention mask is skipped (None -> is_causal=True); the sliding one is a bool tensor.
    model.set_attn_implementation("sdpa")
    assert create_causal_mask(**kw) is None
    sdpa_sliding = create_sliding_window_causal_mask(**kw)
    assert sdpa_sliding.dtype == torch.bool and torch.equal(sdpa_sliding[0, 0], eager_sliding)

    # --8<-- [start:dispatch]
    assert build().config._attn_implementation == "eager"              # we asked for it
    default = Qwen3ForCausalLM(Qwen3Config(vocab_size=10, hidden_size=8, intermediate_size=8,
                                           num_hidden_layers=1, num_attention_heads=2,
                                           num_key_value_heads=1, head_dim=4))
    assert default.config._attn_implementation == "sdpa"               # nobody asked: SDPA
    assert ALL_ATTENTION_FUNCTIONS["sdpa"] is sdpa_attention_forward
    assert "eager" not in ALL_ATTENTION_FUNCTIONS                      # eager is the fallback arg
    try:
        default.set_attn_implementation("flash_attention_2")           # no flash-attn on this CPU
        raise AssertionError("flash_attention_2 should not load here")
    except ImportError as err:
        print("flash_attention_2:", str(err).split(":")[1].strip())
    # --8<-- [end:dispatch]
    flags = {k: getattr(Qwen3PreTrainedModel, k) for k in ("_supports_flash_attn", "_supports_sdpa",
             "_supports_flex_attn", "_can_compile_fullgraph", "_supports_attention_backend")}
    assert all(flags.values()), flags
    assert flex_gqa(32, 8) == (True, 8)          # 8B: 32 query heads, a power of two: GQA in the kernel
    assert flex_gqa(40, 8) == (False, 40)        # 14B: 40 heads: keys and values repeated first
    print("flex_attention: 32 query heads -> enable_gqa, 40 -> keys repeated to 40 heads")

    # Same weights, both implementations, sliding and full layers: same logits as from scratch.
    ids = torch.randint(0, 1000, (2, 11))
    logits = {}
    for impl in ("eager", "sdpa"):
        m = trained_looking(build(impl, **SLIDING))
        with torch.no_grad():
            logits[impl] = m(input_ids=ids).logits
    ours = scratch_logits(m, ids)
    d_impl = (logits["eager"] - logits["sdpa"]).abs().max().item()
    d_ours = (ours - logits["eager"]).abs().max().item()
    print(f"11 tokens, window 4: max |eager - sdpa| = {d_impl:.1e}, max |scratch - eager| = {d_ours:.1e}")
    assert d_ours == 0.0 and d_impl < 1e-6            # same arithmetic as eager: bit-identical
    # Without the window the logits of late tokens differ: the window is not a no-op.
    full = trained_looking(build("eager"))
    with torch.no_grad():
        d_window = (full(input_ids=ids).logits - logits["eager"]).abs()
    assert d_window[:, :4].max() < 1e-4 < d_window[:, 4:].max()       # first 4 tokens: same view

    # --8<-- [start:cache]
    cache = DynamicCache(config=m.config)
    assert [type(layer) for layer in cache.layers] == [DynamicLayer, DynamicLayer,
                                                        DynamicSlidingWindowLayer, DynamicSlidingWindowLayer]
    with torch.no_grad():
        out = m(input_ids=ids[:, :10], cache=cache, use_cache=True)         # prefill 10 tokens
        assert isinstance(out, CausalLMOutputWithPast)
        assert isinstance(m.model(input_ids=ids[:, :1]), BaseModelOutputWithPast)
        step = m(input_ids=ids[:, 10:], cache=out.cache, use_cache=True)    # decode token 11
    kept = [layer.keys.shape[-2] for layer in cache.layers]
    assert kept == [11, 11, 3, 3]          # full layers keep all; sliding keep window - 1 tokens
    # --8<-- [end:cache]
    d_step = (step.logits[:, -1] - logits["sdpa"][:, -1]).abs().max().item()
    print(f"cached keys per layer after 11 tokens: {kept}; decode vs full forward: {d_step:.1e}")
    assert d_step < 1e-6

    # --8<-- [start:generate]
    calls = []
    hook = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(
        (kwargs["input_ids"].shape[1], kwargs.get("logits_to_keep"), out.logits.shape[1])), with_kwargs=True)
    with torch.no_grad():
        m.generate(input_ids=ids, max_new_tokens=3, do_sample=False)
    hook.remove()
    assert calls == [(11, 1, 1), (1, 1, 1), (1, 1, 1)]   # one logit row, prefill included
    # --8<-- [end:generate]
    print("generate: (new tokens, logits_to_keep, logit rows) per forward:", calls)
    print("all sliding-window and dispatch checks passed")


if __name__ == "__main__":
    main()
