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
    def __init__(self, name: str, height: int, title: str, desc: str, width: int = W):
        self.name, self.h, self.w = name, height, width
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
            f'<svg class="fig-svg{" fig-svg--narrow" if self.w < W else ""}" '
            f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.w} {self.h}" '
            f'role="img" aria-labelledby="{pre}-title {pre}-desc">',
            f'<title id="{pre}-title">{escape(self.title)}</title>',
            f'<desc id="{pre}-desc">{escape(self.desc)}</desc>',
            f'<defs><marker id="{pre}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/>'
            f'</marker></defs>',
        ]
        return "\n".join(head + self.items + ["</svg>"]) + "\n"


NARROW = 340  # the phone twins: every label at 11 units or more, drawn at about one unit per CSS px

# Labels that differ between the wide drawing and its narrow twin: (wide, narrow).
MAP_LABELS = {
    "embed": (("model.embed_tokens  Embedding(V, d)", "→ (B, T, d)"),
              ("model.embed_tokens", "Embedding(V, d) → (B, T, d)")),
    "rotary": (("model.rotary_emb", "cos, sin (·, T, h)", "once, shared by all layers"),
               ("rotary_emb", "cos, sin (·,T,h)", "once, for all layers")),
    "masks": (("masks by layer type", '"full_attention"', '+ "sliding_attention" if any'),
              ("masks per type", '"full_attention"', '+ "sliding_attention"')),
    "layers": ("model.layers: L × Qwen3DecoderLayer", "L × Qwen3DecoderLayer"),
    "in_norm": (("input_layernorm  RMSNorm(d)", "(B, T, d)"), ("input_layernorm", "RMSNorm(d): (B, T, d)")),
    "attn_note": ("→ cache → attention → o_proj: (B, T, d)  [figure 2]", "→ cache → attention → o_proj (fig. 2)"),
    "post_norm": (("post_attention_layernorm  RMSNorm(d)", "(B, T, d)"),
                  ("post_attention_layernorm", "RMSNorm(d): (B, T, d)")),
    "mlp_note": ("d → I (gate and up), I → d (down)", "d → I (gate, up), I → d (down)"),
    "mask_note": ("layer i reads the mask for config.layer_types[i]", "layer i: mask of layer_types[i]"),
    "norm": (("model.norm  RMSNorm(d)", "(B, T, d)"), ("model.norm", "RMSNorm(d): (B, T, d)")),
    "slice": ("(B, T', d)   T' = T, or 1 in generate", "(B,T',d): T' = T, or 1 in generate"),
    "head": (("lm_head  Linear(d, V, bias=False)", "→ logits (B, T', V)",
              "weight is embed_tokens.weight when tie_word_embeddings"),
             ("lm_head", "Linear(d, V), no bias → (B,T',V)", "weight = embed_tokens.weight if tied")),
    "sizes": (["Qwen3-8B: d 4096, L 36, H 32, K 8, h 128, I 12288, V 151936"],
              ["Qwen3-8B: d 4096, L 36, H 32, K 8,", "h 128, I 12288, V 151936"]),
}


def map_svg(narrow: bool = False) -> str:
    lab = {k: v[narrow] for k, v in MAP_LABELS.items()}
    desc = ("From input_ids of shape B by T: embed_tokens gives B, T, d. The rotary embedding computes "
            "cos and sin once (1 or B, T, head_dim) and the model builds one mask per layer type. L "
            "decoder layers follow, each pre-norm: input_layernorm, self attention, residual add, "
            "post_attention_layernorm, SwiGLU MLP from d to intermediate size and back, residual add. "
            "Then the final norm, slicing to the positions whose logits are kept, and lm_head, whose "
            "weight is the embedding matrix when tie_word_embeddings is true, giving B, T', V logits.")
    s = Svg("map-narrow" if narrow else "map", 930 if narrow else 916,
            "Qwen3ForCausalLM forward pass with tensor shapes", desc, width=NARROW if narrow else W)
    # x geometry: outer column, its centre, the layer's inner boxes and their centre
    x, w, c, ix, iw, ic, half = (10, 320, 170, 50, 270, 190, 155) if narrow else (20, 440, 240, 80, 360, 260, 214)
    s.text(x, 24, "Qwen3ForCausalLM.forward", bold=True, size=16)
    s.box(x, 36, w, 44, "input_ids", None, note=None)
    s.text(x + w - 10, 62, "(B, T)", cls="fig-mono", anchor="end")
    s.line(c, 80, c, 96)
    s.box(x, 96, w, 48, *lab["embed"])
    s.line(c, 144, c, 160)
    s.box(x, 160, half, 64, lab["rotary"][0], lab["rotary"][1], note=lab["rotary"][2])
    s.box(x + w - half, 160, half, 64, lab["masks"][0], lab["masks"][1], note=lab["masks"][2])
    s.line(c, 224, c, 244)
    # the decoder layer
    top = 244
    s.rect(x, top, w, 430, "fig-box-accent")
    s.text(x + 10, top + 22, lab["layers"], bold=True, size=15)
    # two pre-norm sublayers, each: norm, sublayer, residual add
    sublayers = [(lab["in_norm"], ("self_attn  Qwen3Attention", "q,k,v → q_norm,k_norm → RoPE"), lab["attn_note"]),
                 (lab["post_norm"], ("mlp  Qwen3MLP (SwiGLU)", "down(silu(gate(x)) · up(x))"), lab["mlp_note"])]
    for i, (norm, (name, shape), note) in enumerate(sublayers):
        y0 = top + 36 + 184 * i
        s.box(ix, y0, iw, 48, *norm)
        s.line(ic, y0 + 48, ic, y0 + 62)
        s.box(ix, y0 + 62, iw, 66, name, shape, cls="fig-box-primary", note=note)
        s.line(ic, y0 + 128, ic, y0 + 150 + 2 * i)
        s.text(ic, y0 + 164 + 2 * i, "⊕", anchor="middle", size=18, bold=True)
        s.line(ic, y0 + 170 + 2 * i, ic, top + (220, 430)[i])
    # residual paths on the left
    s.path(f"M {c} {top - 10} L {x + 32} {top - 10} L {x + 32} {top + 196} L {ic - 10} {top + 196}",
           cls="fig-line-dashed")
    s.path(f"M {ic} {top + 212} L {x + 42} {top + 212} L {x + 42} {top + 382} L {ic - 10} {top + 382}",
           cls="fig-line-dashed")
    s.text(x + 10, top + 418, lab["mask_note"], cls="fig-text-small")
    y = top + 430 + 16
    s.box(x, y, w, 48, *lab["norm"])
    s.line(c, y + 48, c, y + 62)
    s.box(x, y + 62, w, 48, "slice_logits_to_keep", lab["slice"])
    s.line(c, y + 110, c, y + 124)
    s.box(x, y + 124, w, 66, lab["head"][0], lab["head"][1], cls="fig-box-ok", note=lab["head"][2])
    for i, line in enumerate(lab["sizes"]):
        s.text(x, y + 214 + 16 * i, line, cls="fig-text-small")
    return s.render()


def attention_svg(narrow: bool = False) -> str:
    desc = ("The hidden states (B, T, d) go through three projections: q_proj to H times h, k_proj and "
            "v_proj to K times h. Each is viewed as per-head (B, T, heads, h). Queries and keys are "
            "RMS-normalised over the head dimension by q_norm and k_norm, then transposed to (B, heads, "
            "T, h) and rotated by RoPE; values get neither. Keys and values go to the cache. The "
            "attention interface (eager, sdpa or flash) computes (B, H, T, S) scores, where each of the "
            "H query heads reads key/value head h divided by H over K, with the full or sliding mask. "
            "The result is reshaped to (B, T, H times h) and projected by o_proj back to (B, T, d). "
            "A lower panel shows 8 query heads sharing 2 key/value heads in groups of 4.")
    s = Svg("attention-narrow" if narrow else "attention", 900,
            "Qwen3Attention: per-head q_norm and k_norm before RoPE, then grouped-query attention", desc,
            width=NARROW if narrow else W)
    # x geometry: left edge, full width, the three columns' width and gap
    x0, full, cw, gap = (10, 320, 100, 10) if narrow else (20, 440, 140, 10)
    xs = [x0 + i * (cw + gap) for i in range(3)]
    mid = [cx + cw // 2 for cx in xs]
    wide2 = 2 * cw + gap                                        # two columns: RoPE on q and k, the cache
    s.text(x0, 24, "Qwen3Attention.forward", bold=True, size=16)
    s.box(x0, 36, full, 44, "hidden_states")
    s.text(x0 + full - 10, 62, "(B, T, d)", cls="fig-mono", anchor="end")
    heads = "HKK"

    def arrows(y0, length=14):
        for m in mid:
            s.line(m, y0, m, y0 + length)
        return y0 + length

    y = arrows(80, 20)
    for cx, n, k in zip(xs, "qkv", heads, strict=True):
        s.box(cx, y, cw, 48, f"{n}_proj", f"(B,T,{k}·h)")
    y = arrows(y + 48)
    for cx, k in zip(xs, heads, strict=True):
        s.box(cx, y, cw, 48, ".view", f"(B,T,{k},h)")
    y = arrows(y + 48)
    per_head = "per head" if narrow else "per head, weight (h,)"
    s.box(xs[0], y, cw, 66, "q_norm", "RMSNorm(h)", cls="fig-box-warn", note=per_head)
    s.box(xs[1], y, cw, 66, "k_norm", "RMSNorm(h)", cls="fig-box-warn", note=per_head)
    s.box(xs[2], y, cw, 66, "no norm", None, note="values as-is" if narrow else "values untouched")
    y = arrows(y + 66)
    for cx, k in zip(xs, heads, strict=True):
        s.box(cx, y, cw, 48, ".transpose" if narrow else ".transpose(1, 2)", f"(B,{k},T,h)")
    y = arrows(y + 48)
    s.rect(x0, y, wide2, 66, "fig-box-primary")
    s.text(x0 + 10, y + 20, "apply_rotary_pos_emb" + ("" if narrow else "(q, k, cos, sin)"), bold=True)
    s.text(x0 + 10, y + 38, "x·cos + rotate_half(x)·sin", cls="fig-mono")
    s.text(x0 + 10, y + 56, "channel i with i + h/2" if narrow else "pairs channel i with i + h/2",
           cls="fig-text-small")
    s.box(xs[2], y, cw, 66, "no RoPE", None, note="not rotated" if narrow else "values are not rotated")
    y += 66
    s.line(mid[1], y, mid[1], y + 14)
    s.line(mid[2], y, mid[2], y + 14)
    y += 14
    s.box(xs[1], y, wide2, 48, "cache.update(k, v, i)" if narrow else "cache.update(k, v, layer_idx)",
          "(B,K,S,h) S = past+T" if narrow else "(B,K,S,h)  S = past + T")
    s.line(mid[0], y - 14, mid[0], y + 62)
    y += 48
    s.line(xs[1] + wide2 // 2, y, xs[1] + wide2 // 2, y + 14)
    y += 14
    lines = ([("(B,H,T,S)·h^-0.5 + mask", "fig-mono"), ("softmax; · v", "fig-mono"),
              ("eager: repeat_kv, softmax in fp32", "fig-text-small"),
              ("sdpa: enable_gqa / pack_gqa / repeat_kv", "fig-text-small"),
              ("mask: causal, or causal ∧ kv > q − W", "fig-text-small")] if narrow else
             [("scores (B,H,T,S) · h^-0.5 + mask; softmax; · v", "fig-mono"),
              ("eager: repeat_kv(K → H), softmax in fp32", "fig-text-small"),
              ("sdpa: enable_gqa / pack_gqa / repeat_kv; flash: window arg", "fig-text-small"),
              ("mask = full causal, or causal ∧ kv > q − sliding_window", "fig-text-small")])
    s.rect(x0, y, full, 32 + 18 * len(lines), "fig-box-accent")
    s.text(x0 + 10, y + 20, "attention_interface(…)" if narrow else "attention_interface(self, q, k, v, mask, …)",
           bold=True)
    for i, (text, cls) in enumerate(lines):
        s.text(x0 + 10, y + 40 + 18 * i, text, cls=cls)
    y += 32 + 18 * len(lines)
    s.line(x0 + full // 2, y, x0 + full // 2, y + 14)
    y += 14
    s.box(x0, y, full, 48, "reshape → o_proj" + ("" if narrow else "  Linear(H·h, d)"),
          "(B,T,H,h) → (B,T,H·h) → (B,T,d)")
    y += 48 + 30
    # GQA grouping panel: H = 8 query heads, K = 2 kv heads
    s.text(x0, y, "GQA, H = 8, K = 2 (groups of 4)" if narrow else
           "GQA grouping, H = 8, K = 2 (num_key_value_groups = 4)", bold=True)
    y += 16
    qw, qgap, kw = (34, 6, 90) if narrow else (46, 8, 120)
    for h in range(8):
        qx = x0 + h * (qw + qgap)
        s.rect(qx, y, qw, 34, "fig-box-primary")
        s.text(qx + qw / 2, y + 22, f"q{h}", anchor="middle", cls="fig-mono")
    ky = y + 110
    for g in range(2):
        kx = x0 + g * 4 * (qw + qgap) + (4 * (qw + qgap) - qgap) / 2 - kw / 2
        s.rect(kx, ky, kw, 34, "fig-box-warn")
        s.text(kx + kw / 2, ky + 22, f"k{g}, v{g}", anchor="middle", cls="fig-mono")
        for h in range(4 * g, 4 * g + 4):
            s.line(x0 + h * (qw + qgap) + qw / 2, y + 34, kx + kw / 2, ky, arrow=True)
    s.text(x0, ky + 60, "query head h reads KV head h // 4" if narrow else
           "query head h reads key/value head h // 4 (repeat_kv order)", cls="fig-text-small")
    return s.render()


def render() -> dict[str, str]:
    return {"map.svg": map_svg(), "attention.svg": attention_svg(),
            "map-narrow.svg": map_svg(narrow=True), "attention-narrow.svg": attention_svg(narrow=True)}


if __name__ == "__main__":
    for name, text in render().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print("wrote", OUT / name)
