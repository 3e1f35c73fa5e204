"""The 32K -> 128K extension: YaRN through rope_parameters, against transformers 5.24.0.

A from-scratch YaRN frequency table is compared with the one Qwen3RotaryEmbedding builds for the
8B's configuration with Qwen's recipe (factor 4 over 32,768 pre-training positions); the script
counts which of the 64 frequencies are kept, blended and interpolated, shows that the table is
built when the module is constructed (and again by _init_weights), never in a forward, and what
happens when max_position_embeddings stays at the released 40,960.

Run: python examples/qwen3_architecture_layer_by_layer/yarn.py  (CPU, no download)
"""

from __future__ import annotations

import logging
import math
import sys
from pathlib import Path

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding

sys.path.insert(0, str(Path(__file__).resolve().parent))
from configs import config_kwargs  # noqa: E402
from tiny_model import TINY  # noqa: E402

# --8<-- [start:recipe]
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}


def qwen3_8b_yarn(max_position_embeddings: int = 131072, **rope) -> Qwen3Config:
    kw = {k: v for k, v in config_kwargs("Qwen3-8B").items()
          if k not in ("rope_theta", "max_position_embeddings")}
    return Qwen3Config(**kw, max_position_embeddings=max_position_embeddings,
                       rope_parameters={"rope_theta": 1e6, **YARN, **rope})
# --8<-- [end:recipe]


# --8<-- [start:sketch]
def yarn_bounds(theta: float, dim: int, original: int,
                beta_fast: float = 32, beta_slow: float = 1) -> tuple[int, int]:
    """The frequency indices that turn beta_fast and beta_slow times over `original` tokens, rounded outwards."""
    def index_of(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(theta))
    return max(math.floor(index_of(beta_fast)), 0), min(math.ceil(index_of(beta_slow)), dim - 1)


def yarn_inv_freq(theta: float, dim: int, factor: float, original: int,
                  beta_fast: float = 32, beta_slow: float = 1) -> tuple[torch.Tensor, float]:
    """YaRN from the paper's recipe: keep fast frequencies, divide slow ones by factor, ramp between."""
    low, high = yarn_bounds(theta, dim, original, beta_fast, beta_slow)
    base = 1.0 / theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    ramp = ((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
    inv_freq = base / factor * ramp + base * (1 - ramp)   # ramp 0: kept, ramp 1: interpolated
    return inv_freq, 0.1 * math.log(factor) + 1.0          # cos and sin are scaled by this
# --8<-- [end:sketch]


def split(inv_freq: torch.Tensor, base: torch.Tensor, factor: float) -> tuple[int, int, int]:
    ratio = inv_freq / base
    kept = int(torch.isclose(ratio, torch.tensor(1.0)).sum())
    interpolated = int(torch.isclose(ratio, torch.tensor(1 / factor)).sum())
    return kept, len(ratio) - kept - interpolated, interpolated


def main() -> None:
    config = qwen3_8b_yarn()
    assert config.rope_parameters == {"rope_theta": 1e6, **YARN}
    legacy = Qwen3Config(**{**config_kwargs("Qwen3-8B"), "max_position_embeddings": 131072},
                         rope_scaling=dict(YARN))            # a config.json's old field, folded in
    assert legacy.rope_parameters == config.rope_parameters
    rotary = Qwen3RotaryEmbedding(config)
    ours, scaling = yarn_inv_freq(1e6, 128, 4.0, 32768)
    assert rotary.rope_type == "yarn" and torch.allclose(rotary.inv_freq, ours, rtol=1e-6, atol=0)
    assert rotary.attention_scaling == scaling
    base = 1.0 / 1e6 ** (torch.arange(0, 128, 2, dtype=torch.float32) / 128)
    kept, blended, interpolated = split(rotary.inv_freq, base, 4.0)
    low, high = yarn_bounds(1e6, 128, 32768)
    assert (low, high) == (23, 40)
    assert (kept, blended, interpolated) == (low + 1, high - low - 1, 64 - high)   # index 23: ramp 0, 40: ramp 1
    assert (kept, blended, interpolated) == (24, 16, 24)
    print(f"ramp from frequency index {low} (kept) to {high} (divided by 4)")
    print(f"Qwen3-8B with YaRN factor 4 over 32768: of 64 frequencies {kept} kept, {blended} blended, "
          f"{interpolated} divided by 4; cos/sin scaled by {scaling:.4f}")

    # Built at construction and by _init_weights, never in a forward.
    calls = []
    real = ROPE_INIT_FUNCTIONS["yarn"]
    ROPE_INIT_FUNCTIONS["yarn"] = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        tiny = Qwen3ForCausalLM(Qwen3Config(**{**TINY, "rope_theta": 1e6},
                                            rope_parameters={"rope_type": "yarn", "factor": 4.0,
                                                             "original_max_position_embeddings": 64}))
        built = len(calls)
        with torch.no_grad():
            tiny(input_ids=torch.randint(0, 1000, (1, 200)))
    finally:
        ROPE_INIT_FUNCTIONS["yarn"] = real
    assert built == 2 and len(calls) == built   # __init__ + _init_weights; the forward adds none
    print(f"yarn table built {built} times while constructing the model, 0 times in a forward")

    # Left at the released 40,960, the explicit factor wins, with a warning about the ratio.
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("transformers.modeling_rope_utils").addHandler(handler)
    try:
        kept_at_40960 = qwen3_8b_yarn(max_position_embeddings=40960)
        warned = [r.getMessage() for r in records if "implicit factor" in r.getMessage()]
        records.clear()
        # Without original_max_position_embeddings, it defaults to max_position_embeddings: another
        # table, and no warning, because the implied ratio is then 40,960 / 40,960 = 1.
        silent = Qwen3Config(**{k: v for k, v in config_kwargs("Qwen3-8B").items() if k != "rope_theta"},
                             rope_parameters={"rope_theta": 1e6, "rope_type": "yarn", "factor": 4.0})
    finally:
        logging.getLogger("transformers.modeling_rope_utils").removeHandler(handler)
    assert warned and torch.equal(Qwen3RotaryEmbedding(kept_at_40960).inv_freq, rotary.inv_freq)
    print("max_position_embeddings 40960 + factor 4: warns 'implicit factor = 1.25', uses 4")
    assert silent.max_position_embeddings == 40960 and not records
    assert silent.rope_parameters["original_max_position_embeddings"] == 40960
    silent_table = Qwen3RotaryEmbedding(silent).inv_freq
    assert torch.allclose(silent_table, yarn_inv_freq(1e6, 128, 4.0, 40960)[0], rtol=1e-6, atol=0)
    assert split(silent_table, base, 4.0) != (kept, blended, interpolated)
    print(f"original_max_position_embeddings left out: split at {yarn_bounds(1e6, 128, 40960)} "
          "instead of (23, 40), no warning")
    print("all YaRN checks passed")


if __name__ == "__main__":
    main()
