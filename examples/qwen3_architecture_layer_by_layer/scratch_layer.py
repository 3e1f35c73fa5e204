"""A Qwen3 decoder layer written from scratch, checked against transformers' Qwen3DecoderLayer.

Same weights, same inputs: the outputs must agree to float64 rounding. Then the two orders of
q_norm/k_norm and RoPE are compared, to show what the library's order buys.

Run: python examples/qwen3_architecture_layer_by_layer/scratch_layer.py  (CPU, no download)
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiny_model import build  # noqa: E402


# --8<-- [start:scratch]
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    x32 = x.float()                                               # statistics in fp32, as upstream
    x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return weight * x32.to(x.dtype)                               # scale after casting back


def rope_cos_sin(positions: torch.Tensor, head_dim: int, theta: float, dtype: torch.dtype):
    inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim)
    angles = positions[:, None].float() * inv_freq                # (T, head_dim/2)
    angles = torch.cat([angles, angles], dim=-1)                  # "half" layout, not interleaved
    return angles.cos().to(dtype), angles.sin().to(dtype)         # (T, head_dim)


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2                                       # pairs channel i with i + d/2
    x_rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + x_rot * sin


class ScratchQwen3Layer(nn.Module):
    """Pre-norm block: x + Attn(RMSNorm(x)), then h + SwiGLU(RMSNorm(h))."""

    def __init__(self, hidden, inter, heads, kv_heads, head_dim, eps, theta):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.eps, self.theta = eps, theta
        lin = lambda i, o: nn.Linear(i, o, bias=False)  # noqa: E731
        self.wq, self.wk = lin(hidden, heads * head_dim), lin(hidden, kv_heads * head_dim)
        self.wv, self.wo = lin(hidden, kv_heads * head_dim), lin(heads * head_dim, hidden)
        self.w_gate, self.w_up, self.w_down = lin(hidden, inter), lin(hidden, inter), lin(inter, hidden)
        self.g_attn, self.g_mlp = nn.Parameter(torch.ones(hidden)), nn.Parameter(torch.ones(hidden))
        self.g_q, self.g_k = nn.Parameter(torch.ones(head_dim)), nn.Parameter(torch.ones(head_dim))

    def attention(self, x, positions, window=None, order="norm_then_rope"):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.heads, self.head_dim)     # per-head view first ...
        k = self.wk(x).view(B, T, self.kv_heads, self.head_dim)
        v = self.wv(x).view(B, T, self.kv_heads, self.head_dim)
        cos, sin = rope_cos_sin(positions, self.head_dim, self.theta, x.dtype)
        cos, sin = cos[:, None, :], sin[:, None, :]               # broadcast over heads
        if order == "norm_then_rope":                             # ... then RMSNorm over head_dim
            q = rotate(rms_norm(q, self.g_q, self.eps), cos, sin)
            k = rotate(rms_norm(k, self.g_k, self.eps), cos, sin)
        else:                                                     # the swapped order
            q = rms_norm(rotate(q, cos, sin), self.g_q, self.eps)
            k = rms_norm(rotate(k, cos, sin), self.g_k, self.eps)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))          # (B, heads, T, head_dim)
        group = self.heads // self.kv_heads                       # query head h reads kv head h // group
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-1, -2)) * self.head_dim ** -0.5
        i, j = positions[:, None], positions[None, :]
        allowed = (j <= i) if window is None else (j <= i) & (j > i - window)
        scores = scores.masked_fill(~allowed, float("-inf"))
        probs = scores.softmax(-1, dtype=torch.float32).to(x.dtype)  # fp32 softmax, as eager
        out = (probs @ v).transpose(1, 2).reshape(B, T, self.heads * self.head_dim)
        return self.wo(out), scores

    def forward(self, x, positions, window=None, order="norm_then_rope"):
        h = x + self.attention(rms_norm(x, self.g_attn, self.eps), positions, window, order)[0]
        y = rms_norm(h, self.g_mlp, self.eps)
        return h + self.w_down(nn.functional.silu(self.w_gate(y)) * self.w_up(y))
# --8<-- [end:scratch]

    @classmethod
    def from_hf(cls, hf_layer, config) -> ScratchQwen3Layer:
        a, m = hf_layer.self_attn, hf_layer.mlp
        me = cls(config.hidden_size, config.intermediate_size, config.num_attention_heads,
                 config.num_key_value_heads, config.head_dim, config.rms_norm_eps,
                 config.rope_parameters["rope_theta"])
        pairs = [(me.wq, a.q_proj), (me.wk, a.k_proj), (me.wv, a.v_proj), (me.wo, a.o_proj),
                 (me.w_gate, m.gate_proj), (me.w_up, m.up_proj), (me.w_down, m.down_proj)]
        with torch.no_grad():
            for mine, theirs in pairs:
                mine.weight.copy_(theirs.weight)
            me.g_attn.copy_(hf_layer.input_layernorm.weight)
            me.g_mlp.copy_(hf_layer.post_attention_layernorm.weight)
            me.g_q.copy_(a.q_norm.weight)
            me.g_k.copy_(a.k_norm.weight)
        return me.to(a.q_proj.weight.dtype)


def trained_looking(model, seed: int = 1):
    """Give every RMSNorm weight a spread like a trained model's (fresh ones hide order bugs)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name or name.startswith("g_"):   # library names, or ScratchQwen3Layer's
                p.copy_(1.0 + 0.5 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    return model


def library_layer0(model, x, positions):
    """Run the library's layer 0 the way Qwen3Model.forward does: shared RoPE, mask mapping."""
    from transformers.masking_utils import create_causal_mask
    pos = positions[None, :]
    cos_sin = model.model.rotary_emb(x, pos)
    mask = create_causal_mask(config=model.config, inputs_embeds=x, attention_mask=None,
                              cache=None, position_ids=pos)
    with torch.no_grad():
        return model.model.layers[0](x, attention_mask=mask, position_embeddings=cos_sin, position_ids=pos)


def max_diff(a, b) -> float:
    return (a - b).abs().max().item()


def main() -> None:
    results = {}
    for impl in ("eager", "sdpa"):
        model = trained_looking(build(impl)).double()
        mine = ScratchQwen3Layer.from_hf(model.model.layers[0], model.config)
        torch.manual_seed(2)
        x = torch.randn(2, 9, model.config.hidden_size, dtype=torch.float64)
        pos = torch.arange(9)
        ref = library_layer0(model, x, pos)
        with torch.no_grad():
            ours = mine(x, pos)
        results[impl] = max_diff(ours, ref)
        print(f"layer 0, {impl:5s}, float64: max |scratch - library| = {results[impl]:.2e}")
    assert results["eager"] < 1e-12     # same arithmetic: fp32 norms and fp32 softmax, like eager
    assert results["sdpa"] < 1e-8       # SDPA's softmax runs in float64 here; eager's in float32

    # float32, the library's default dtype: still equal to rounding.
    model = trained_looking(build("eager"))
    mine = ScratchQwen3Layer.from_hf(model.model.layers[0], model.config)
    x = torch.randn(2, 9, model.config.hidden_size)
    pos = torch.arange(9)
    with torch.no_grad():
        d32 = max_diff(mine(x, pos), library_layer0(model, x, pos))
    print(f"layer 0, eager, float32: max |scratch - library| = {d32:.2e}")
    assert d32 < 1e-5

    # --8<-- [start:swap]
    model = build("eager").double()                 # fresh init: every RMSNorm weight is 1
    mine = ScratchQwen3Layer.from_hf(model.model.layers[0], model.config)
    x = torch.randn(1, 9, model.config.hidden_size, dtype=torch.float64)
    pos = torch.arange(9)
    with torch.no_grad():
        fresh = max_diff(mine(x, pos), mine(x, pos, order="rope_then_norm"))
    trained_looking(mine)                           # spread the q_norm/k_norm weights
    with torch.no_grad():
        right, swapped = mine(x, pos), mine(x, pos, order="rope_then_norm")
        # Relative position: shift every position by 100; real order keeps every score.
        _, s0 = mine.attention(x, pos)
        _, s1 = mine.attention(x, pos + 100)
        _, w0 = mine.attention(x, pos, order="rope_then_norm")
        _, w1 = mine.attention(x, pos + 100, order="rope_then_norm")
    causal = torch.ones(9, 9, dtype=torch.bool).tril()
    shift_right = max_diff(s0[..., causal], s1[..., causal])
    shift_swapped = max_diff(w0[..., causal], w1[..., causal])
    # --8<-- [end:swap]
    print(f"swap, unit norm weights:   max |norm->rope - rope->norm| = {fresh:.2e}")
    print(f"swap, spread norm weights: max |norm->rope - rope->norm| = {max_diff(right, swapped):.2e}")
    print(f"scores after shifting all positions by 100: norm->rope {shift_right:.2e}, "
          f"rope->norm {shift_swapped:.2e}")
    assert fresh < 1e-8                             # rotation keeps the RMS: the swap is invisible
    assert max_diff(right, swapped) > 1e-2          # with real weights it is a different model
    assert shift_right < 1e-5                       # scores depend on i - j only (fp32 cos/sin)
    assert shift_swapped > 1                        # ... and no longer do

    # GQA's head grouping is repeat_interleave (h -> h // group), not tile (h -> h % kv_heads).
    from transformers.models.qwen3.modeling_qwen3 import repeat_kv
    kv = torch.randn(1, 2, 5, 4)
    assert torch.equal(repeat_kv(kv, 4), kv.repeat_interleave(4, dim=1))
    assert not torch.equal(repeat_kv(kv, 4), kv.repeat(1, 4, 1, 1))
    print("all scratch-layer checks passed")


if __name__ == "__main__":
    main()
