"""Qwen3RMSNorm against GemmaRMSNorm in bf16: the same scale, two multiply orders.

Qwen3 (like Llama) casts the normalised value back to the input dtype and then multiplies by
`weight`; Gemma stores `w - 1`, multiplies by `1 + w` in float32 and casts afterwards. With
weights whose `w - 1` is exact in bf16, the two modules compute the same real number and differ
only in where the rounding to bf16 happens; the script prints the share of outputs that differ.

Run: python examples/qwen3_architecture_layer_by_layer/rmsnorm_gemma.py  (CPU, no download)
"""

from __future__ import annotations

import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm


# --8<-- [start:orders]
def both(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    qwen3, gemma = Qwen3RMSNorm(w.numel(), eps=1e-6), GemmaRMSNorm(w.numel(), eps=1e-6)
    with torch.no_grad():
        qwen3.weight.copy_(w)            # cast-then-multiply: w * normed.to(bf16), a bf16 product
        gemma.weight.copy_(w - 1)        # multiply-then-cast: (normed * (1 + w')).to(bf16)
        return qwen3.to(w.dtype)(x), gemma.to(w.dtype)(x)
# --8<-- [end:orders]


def main() -> None:
    torch.manual_seed(0)
    d = 1024
    x = torch.randn(4096, d).to(torch.bfloat16)
    w = (1 + 0.25 * torch.randn(d)).clamp(0.5, 1.98).to(torch.bfloat16)   # trained-looking, near 1
    assert torch.equal((w - 1) + 1, w)                                     # w - 1 is exact: same scale
    q, g = both(x, w)
    assert q.dtype == g.dtype == torch.bfloat16
    differ = (q != g).float().mean().item()
    ulp = ((q.float() - g.float()).abs() / g.float().abs().clamp_min(1e-30)).max().item()
    print(f"bf16, {x.shape[0]} x {d}: {100 * differ:.1f} % of outputs differ between the two orders, "
          f"by at most {ulp:.1e} relative (one bf16 rounding step: 2^-8 to 2^-7 of the value)")
    assert 0.05 < differ < 0.5 and ulp <= 2 ** -7
    steps = (q.view(torch.int16).int() - g.view(torch.int16).int()).abs()   # same sign: bf16 steps apart
    assert ((q > 0) == (g > 0)).all() and steps.max() == 1
    # In float32 neither module rounds between the two steps: identical outputs.
    q32, g32 = both(x.float(), w.float())
    assert torch.equal(q32, g32)
    print("float32: the two orders agree exactly")
    print("all RMSNorm-order checks passed")


if __name__ == "__main__":
    main()
