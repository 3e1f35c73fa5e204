"""Writes the post's two diagrams (hand-laid-out SVG, palette classes only).

Run: python examples/qwen3_architecture_layer_by_layer/figures.py  (rewrites the committed SVGs)
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

SLUG = "qwen3-architecture-layer-by-layer"
OUT = Path(__file__).resolve().parents[2] / "docs" / "blog" / "posts" / SLUG
W = 480


class Svg:
    def __init__(self, name: str, height: int, title: str, desc: str):
        self.name, self.h = name, height
        self.items: list[str] = []
        self.title, self.desc = title, desc

    def rect(self, x, y, w, h, cls="fig-box"):
        self.items.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/>')

    def text(self, x, y, s, cls="fig-text", anchor="start", size=14, bold=False):
        weight = ' font-weight="bold"' if bold else ""
        self.items.append(f'<text class="{cls}" x="{x}" y="{y}" text-anchor="{anchor}" '
                          f'font-size="{size}"{weight}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, cls="fig-line", arrow=True):
        end = f' marker-end="url(#{SLUG}-{self.name}-arrow)"' if arrow else ""
        self.items.append(f'<line class="{cls}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"{end}/>')

    def path(self, d, cls="fig-line", arrow=True):
        end = f' marker-end="url(#{SLUG}-{self.name}-arrow)"' if arrow else ""
        self.items.append(f'<path class="{cls}" d="{d}"{end}/>')

    def box(self, x, y, w, h, label, shape=None, cls="fig-box", note=None):
        """A box with a bold label, an optional monospace shape line and a muted note."""
        self.rect(x, y, w, h, cls)
        self.text(x + 10, y + 20, label, bold=True, size=14)
        if shape:
            self.text(x + 10, y + 38, shape, cls="fig-mono")
        if note:
            self.text(x + 10, y + (56 if shape else 38), note, cls="fig-text-small")

    def render(self) -> str:
        pre = f"{SLUG}-{self.name}"
        head = [
            f'<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {self.h}" '
            f'role="img" aria-labelledby="{pre}-title {pre}-desc">',
            f'<title id="{pre}-title">{escape(self.title)}</title>',
            f'<desc id="{pre}-desc">{escape(self.desc)}</desc>',
            f'<defs><marker id="{pre}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/>'
            f'</marker></defs>',
        ]
        return "\n".join(head + self.items + ["</svg>"]) + "\n"


def map_svg() -> str:
    s = Svg("map", 916, "Qwen3ForCausalLM forward pass with tensor shapes",
            "From input_ids of shape B by T: embed_tokens gives B, T, d. The rotary embedding computes "
            "cos and sin once (1 or B, T, head_dim) and the model builds one mask per layer type. L "
            "decoder layers follow, each pre-norm: input_layernorm, self attention, residual add, "
            "post_attention_layernorm, SwiGLU MLP from d to intermediate size and back, residual add. "
            "Then the final norm, slicing to the positions whose logits are kept, and lm_head, whose "
            "weight is the embedding matrix when tie_word_embeddings is true, giving B, T', V logits.")
    x, w = 20, 440
    s.text(x, 24, "Qwen3ForCausalLM.forward", bold=True, size=16)
    s.box(x, 36, w, 44, "input_ids", None, note=None)
    s.text(x + w - 10, 62, "(B, T)", cls="fig-mono", anchor="end")
    s.line(240, 80, 240, 96)
    s.box(x, 96, w, 48, "model.embed_tokens  Embedding(V, d)", "→ (B, T, d)")
    s.line(240, 144, 240, 160)
    s.box(x, 160, 214, 64, "model.rotary_emb", "cos, sin (·, T, h)", note="once, shared by all layers")
    s.box(246, 160, 214, 64, "masks by layer type", '"full_attention"', note='+ "sliding_attention" if any')
    s.line(240, 224, 240, 244)
    # the decoder layer
    top, lx, lw = 244, 40, 400
    s.rect(x, top, w, 430, "fig-box-accent")
    s.text(x + 10, top + 22, "model.layers: L × Qwen3DecoderLayer", bold=True, size=15)
    s.box(lx + 40, top + 36, lw - 40, 48, "input_layernorm  RMSNorm(d)", "(B, T, d)")
    s.line(260, top + 84, 260, top + 98)
    s.box(lx + 40, top + 98, lw - 40, 66, "self_attn  Qwen3Attention", "q,k,v → q_norm,k_norm → RoPE",
          cls="fig-box-primary", note="→ cache → attention → o_proj: (B, T, d)  [figure 2]")
    s.line(260, top + 164, 260, top + 186)
    s.text(260, top + 200, "⊕", anchor="middle", size=18, bold=True)
    s.line(260, top + 206, 260, top + 220)
    s.box(lx + 40, top + 220, lw - 40, 48, "post_attention_layernorm  RMSNorm(d)", "(B, T, d)")
    s.line(260, top + 268, 260, top + 282)
    s.box(lx + 40, top + 282, lw - 40, 66, "mlp  Qwen3MLP (SwiGLU)", "down(silu(gate(x)) · up(x))",
          cls="fig-box-primary", note="d → I (gate and up), I → d (down)")
    s.line(260, top + 348, 260, top + 372)
    s.text(260, top + 386, "⊕", anchor="middle", size=18, bold=True)
    s.line(260, top + 392, 260, top + 430)
    # residual paths on the left
    s.path(f"M 240 {top - 10} L {lx + 12} {top - 10} L {lx + 12} {top + 196} L 250 {top + 196}",
           cls="fig-line-dashed")
    s.path(f"M 260 {top + 212} L {lx + 22} {top + 212} L {lx + 22} {top + 382} L 250 {top + 382}",
           cls="fig-line-dashed")
    s.text(x + 10, top + 418, "layer i reads the mask for config.layer_types[i]", cls="fig-text-small")
    y = top + 430 + 16
    s.box(x, y, w, 48, "model.norm  RMSNorm(d)", "(B, T, d)")
    s.line(240, y + 48, 240, y + 62)
    s.box(x, y + 62, w, 48, "slice_logits_to_keep", "(B, T', d)   T' = T, or 1 in generate")
    s.line(240, y + 110, 240, y + 124)
    s.box(x, y + 124, w, 66, "lm_head  Linear(d, V, bias=False)", "→ logits (B, T', V)", cls="fig-box-ok",
          note="weight is embed_tokens.weight when tie_word_embeddings")
    s.text(x, y + 214, "Qwen3-8B: d 4096, L 36, H 32, K 8, h 128, I 12288, V 151936", cls="fig-text-small")
    return s.render()


def attention_svg() -> str:
    s = Svg("attention", 900, "Qwen3Attention: per-head q_norm and k_norm before RoPE, then grouped-query attention",
            "The hidden states (B, T, d) go through three projections: q_proj to H times h, k_proj and "
            "v_proj to K times h. Each is viewed as per-head (B, T, heads, h). Queries and keys are "
            "RMS-normalised over the head dimension by q_norm and k_norm, then transposed to (B, heads, "
            "T, h) and rotated by RoPE; values get neither. Keys and values go to the cache. The "
            "attention interface (eager, sdpa or flash) computes (B, H, T, S) scores, where each of the "
            "H query heads reads key/value head h divided by H over K, with the full or sliding mask. "
            "The result is reshaped to (B, T, H times h) and projected by o_proj back to (B, T, d). "
            "A lower panel shows 8 query heads sharing 2 key/value heads in groups of 4.")
    s.text(20, 24, "Qwen3Attention.forward", bold=True, size=16)
    s.box(20, 36, 440, 44, "hidden_states")
    s.text(450, 62, "(B, T, d)", cls="fig-mono", anchor="end")
    cols = [(20, "q"), (170, "k"), (320, "v")]
    cw = 140
    heads = {"q": "H", "k": "K", "v": "K"}
    for cx, _ in cols:
        s.line(cx + 70, 80, cx + 70, 100)
    y = 100
    for cx, n in cols:
        s.box(cx, y, cw, 48, f"{n}_proj", f"(B,T,{heads[n]}·h)")
    y += 48
    for cx, _ in cols:
        s.line(cx + 70, y, cx + 70, y + 14)
    y += 14
    for cx, n in cols:
        s.box(cx, y, cw, 48, ".view", f"(B,T,{heads[n]},h)")
    y += 48
    for cx, _ in cols:
        s.line(cx + 70, y, cx + 70, y + 14)
    y += 14
    s.box(20, y, cw, 66, "q_norm", "RMSNorm(h)", cls="fig-box-warn", note="per head, weight (h,)")
    s.box(170, y, cw, 66, "k_norm", "RMSNorm(h)", cls="fig-box-warn", note="per head, weight (h,)")
    s.box(320, y, cw, 66, "no norm", None, note="values untouched")
    y += 66
    for cx, _ in cols:
        s.line(cx + 70, y, cx + 70, y + 14)
    y += 14
    for cx, n in cols:
        s.box(cx, y, cw, 48, ".transpose(1, 2)", f"(B,{heads[n]},T,h)")
    y += 48
    for cx, _ in cols:
        s.line(cx + 70, y, cx + 70, y + 14)
    y += 14
    s.rect(20, y, 290, 66, "fig-box-primary")
    s.text(30, y + 20, "apply_rotary_pos_emb(q, k, cos, sin)", bold=True)
    s.text(30, y + 38, "x·cos + rotate_half(x)·sin", cls="fig-mono")
    s.text(30, y + 56, "pairs channel i with i + h/2", cls="fig-text-small")
    s.box(320, y, cw, 66, "no RoPE", None, note="values are not rotated")
    y += 66
    s.line(240, y, 240, y + 14)
    s.line(390, y, 390, y + 14)
    y += 14
    s.box(170, y, 290, 48, "cache.update(k, v, layer_idx)", "(B,K,S,h)  S = past + T")
    s.line(90, y - 14, 90, y + 62)
    y += 48
    s.line(315, y, 315, y + 14)
    y += 14
    s.rect(20, y, 440, 104, "fig-box-accent")
    s.text(30, y + 20, "attention_interface(self, q, k, v, mask, …)", bold=True)
    s.text(30, y + 40, "scores (B,H,T,S) · h^-0.5 + mask; softmax; · v", cls="fig-mono")
    s.text(30, y + 60, "eager: repeat_kv(K → H), softmax in fp32", cls="fig-text-small")
    s.text(30, y + 78, "sdpa: enable_gqa / pack_gqa / repeat_kv; flash: window arg", cls="fig-text-small")
    s.text(30, y + 96, "mask = full causal, or causal ∧ kv > q − sliding_window", cls="fig-text-small")
    y += 104
    s.line(240, y, 240, y + 14)
    y += 14
    s.box(20, y, 440, 48, "reshape → o_proj  Linear(H·h, d)", "(B,T,H,h) → (B,T,H·h) → (B,T,d)")
    y += 48 + 30
    # GQA grouping panel: H = 8 query heads, K = 2 kv heads
    s.text(20, y, "GQA grouping, H = 8, K = 2 (num_key_value_groups = 4)", bold=True)
    y += 16
    qw, gap = 46, 8
    for h in range(8):
        qx = 20 + h * (qw + gap)
        s.rect(qx, y, qw, 34, "fig-box-primary")
        s.text(qx + qw / 2, y + 22, f"q{h}", anchor="middle", cls="fig-mono")
    ky = y + 110
    for g in range(2):
        kx = 20 + g * 4 * (qw + gap) + (4 * (qw + gap) - gap) / 2 - 60
        s.rect(kx, ky, 120, 34, "fig-box-warn")
        s.text(kx + 60, ky + 22, f"k{g}, v{g}", anchor="middle", cls="fig-mono")
        for h in range(4 * g, 4 * g + 4):
            qx = 20 + h * (qw + gap) + qw / 2
            s.line(qx, y + 34, kx + 60, ky, arrow=True)
    s.text(20, ky + 60, "query head h reads key/value head h // 4 (repeat_kv order)", cls="fig-text-small")
    return s.render()


def render() -> dict[str, str]:
    return {"map.svg": map_svg(), "attention.svg": attention_svg()}


if __name__ == "__main__":
    for name, text in render().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print("wrote", OUT / name)
