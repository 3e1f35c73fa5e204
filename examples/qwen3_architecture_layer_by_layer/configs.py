"""The six dense Qwen3 sizes, as their published config.json files give them.

The values are taken from pytorch/torchtune's model builders, which transcribe each repository's
config.json (torchtune/models/qwen3/_model_builders.py at TORCHTUNE below; the *_instruct
builders, i.e. the post-trained Qwen/Qwen3-* repositories, max_seq_len 40960).
Values the builders share (vocab 151936, head_dim 128, rms_norm_eps 1e-6, rope_theta 1e6,
no attention bias) are filled in below. tie_word_embeddings is True for 0.6B, 1.7B and 4B only,
as in Qwen's own release table (QwenLM/qwenlm.github.io at QWENLM_BLOG, content/blog/qwen3/index.md
L67-L80), which also gives the layer and head counts. No torchtune release on PyPI contains these
builders, so the tests check the values against litgpt's transcription (LITGPT) instead. The pins
below are the post's front-matter pins; a test keeps the two equal.
"""

from __future__ import annotations

TRANSFORMERS = "v5.24.0"
TORCHTUNE = "bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1"
LITGPT = "v0.5.13"
QWENLM_BLOG = "1f89f8c81adb85e3808f9cc15180ab1fdacbb900"     # QwenLM/qwenlm.github.io
QWEN3_DOCS = "da3e64585a954e58a7e722c5299089dcf95b17de"      # QwenLM/Qwen3 (YaRN recipe)

COMMON = {
    "vocab_size": 151936,
    "head_dim": 128,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1_000_000.0,
    "max_position_embeddings": 40960,
    "attention_bias": False,
    "hidden_act": "silu",
}

# name: (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
#        num_key_value_heads, tie_word_embeddings)
DENSE = {
    "Qwen3-0.6B": (1024, 3072, 28, 16, 8, True),
    "Qwen3-1.7B": (2048, 6144, 28, 16, 8, True),
    "Qwen3-4B": (2560, 9728, 36, 32, 8, True),
    "Qwen3-8B": (4096, 12288, 36, 32, 8, False),
    "Qwen3-14B": (5120, 17408, 40, 40, 8, False),
    "Qwen3-32B": (5120, 25600, 64, 64, 8, False),
}


def config_kwargs(name: str) -> dict:
    hidden, inter, layers, heads, kv_heads, tie = DENSE[name]
    return {**COMMON, "hidden_size": hidden, "intermediate_size": inter, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": kv_heads, "tie_word_embeddings": tie}
