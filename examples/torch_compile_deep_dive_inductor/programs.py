"""The two functions the post compiles, and the inputs it compiles them with.

Both run under torch.no_grad(), so AOTAutograd hands Inductor one inference graph and the
wrapper frees every intermediate it can (a training forward returns its saved tensors instead).
"""

from __future__ import annotations

import torch


# --8<-- [start:mlp]
def mlp(x, w1, w2, w3):
    h = torch.relu(x @ w1)        # mm (extern kernel), then relu
    h = torch.relu(h @ w2) * 2    # mm, then relu and mul
    h = h @ w3                    # mm
    return h.softmax(-1)          # amax, sub, exp, sum, div
# --8<-- [end:mlp]


# --8<-- [start:realize_demo]
def realize_demo(x):
    s = torch.sin(x)        # cheap, two users: inlined into both
    g = torch.sigmoid(x)    # "heavy" on the CPU, two users: realized
    return s + s.cos(), g * (1 - g)
# --8<-- [end:realize_demo]


def mlp_inputs() -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(32, 64, generator=gen)] + [
        torch.randn(64, 64, generator=gen) / 8 for _ in range(3)]


def realize_inputs() -> list[torch.Tensor]:
    return [torch.randn(64, 128, generator=torch.Generator().manual_seed(1))]
