"""The function this post follows through torch.compile: RMSNorm, forward and backward.

Small on purpose: one reduction (the mean of squares) feeding pointwise ops, so every stage of
the pipeline has something to show (a reduction and a broadcast in the graphs, a
recompute-or-save decision in the partitioner, a fusion in Inductor's scheduler).
"""

from __future__ import annotations

import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    var = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(var + 1e-6) * weight


def make_inputs(
    rows: int = 64, cols: int = 256, *, requires_grad: bool = True, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Deterministic float32 inputs on the CPU; the weight is kept away from zero."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=gen)
    weight = torch.rand(cols, generator=gen) + 0.5
    return x.requires_grad_(requires_grad), weight.requires_grad_(requires_grad)
