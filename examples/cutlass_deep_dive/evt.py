"""A CPU model of CUTLASS's epilogue visitor tree (EVT), checked against an independent reference.

Sm90TreeVisitor<NodeOp, ChildOps...> (sm90_visitor_tma_warpspecialized.hpp at v4.7.0) visits its
children with the accumulator fragment, then applies NodeOp to their results. Leaves fetch the
accumulator (Sm90AccFetch), the source C (Sm90SrcFetch) or a broadcast; broadcasts are stride-0
layouts over the tile. The epilogue calls visit() once per fragment of each epilogue subtile, so
the whole tree runs in registers before a single store of D. Here a fragment is a slice of a
float32 tensor; the trees are the shapes of Sm90LinCombPerColBias and Sm90LinCombPerRowBias
wrapped in an activation (the LinCombEltAct pattern), and the result is compared with the layer
computed in float64 from A and B, which shares no code or evaluation order with the tree.

Run it: python examples/cutlass_deep_dive/evt.py
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


# --8<-- [start:nodes]
@dataclass
class AccFetch:          # Sm90AccFetch: the accumulator fragment itself
    def visit(self, acc, tile):
        return acc


@dataclass
class SrcFetch:          # Sm90SrcFetch: the matching fragment of C (loaded by the producer warp)
    c: torch.Tensor

    def visit(self, acc, tile):
        return self.c[tile]


@dataclass
class ScalarBroadcast:   # Sm90ScalarBroadcast, stride (_0,_0): one value for every element
    value: float

    def visit(self, acc, tile):
        return torch.full_like(acc, self.value)


@dataclass
class RowBroadcast:      # Sm90RowBroadcast, stride (_0,_1): a length-N vector repeated down M
    vec: torch.Tensor

    def visit(self, acc, tile):
        return self.vec[tile[1]].expand_as(acc)


@dataclass
class ColBroadcast:      # Sm90ColBroadcast, stride (_1,_0): a length-M vector repeated across N
    vec: torch.Tensor

    def visit(self, acc, tile):
        return self.vec[tile[0]].unsqueeze(1).expand_as(acc)


@dataclass
class Compute:           # Sm90TreeVisitor<Sm90Compute<Fn>, children...>
    fn: Callable
    children: tuple

    def visit(self, acc, tile):
        return self.fn(*(child.visit(acc, tile) for child in self.children))


def multiply_add(a, b, c):  # homogeneous_multiply_add: a * b + c
    return a * b + c
# --8<-- [end:nodes]


# --8<-- [start:run]
def lincomb_bias_relu(alpha: float, beta: float, c: torch.Tensor, bias) -> Compute:
    """relu(beta * C + (alpha * acc + bias)): the tree of Sm90LinCombPerColBias (bias a RowBroadcast)
    or Sm90LinCombPerRowBias (a ColBroadcast) under an activation."""
    inner = Compute(multiply_add, (ScalarBroadcast(alpha), AccFetch(), bias))
    outer = Compute(multiply_add, (ScalarBroadcast(beta), SrcFetch(c), inner))
    return Compute(torch.relu, (outer,))


def epilogue(acc: torch.Tensor, tree, epi_tile: tuple[int, int]) -> torch.Tensor:
    """Visit the tree once per epilogue subtile (epi_m, epi_n) and store D once."""
    m, n = acc.shape
    d = torch.empty_like(acc)
    for i in range(0, m, epi_tile[0]):
        for j in range(0, n, epi_tile[1]):
            tile = (slice(i, i + epi_tile[0]), slice(j, j + epi_tile[1]))
            d[tile] = tree.visit(acc[tile], tile)
    return d


def reference(a, b, c, bias, alpha: float, beta: float, per: str) -> torch.Tensor:
    """The layer computed independently: float64, from A and B (not from the accumulator)."""
    a, b, c, bias = (t.double() for t in (a, b, c, bias))
    bias = bias.unsqueeze(0) if per == "column" else bias.unsqueeze(1)
    return torch.clamp(alpha * torch.mm(a, b) + beta * c + bias, min=0)


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    m, n, k = 256, 192, 64
    a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
    c = torch.randn(m, n, generator=g)
    alpha, beta = 0.5, 2.0
    acc = a @ b  # float32, as the MMA accumulates
    for per, bias in [("column", RowBroadcast(torch.randn(n, generator=g))),
                      ("row", ColBroadcast(torch.randn(m, generator=g)))]:
        fused = epilogue(acc, lincomb_bias_relu(alpha, beta, c, bias), epi_tile=(64, 32))
        err = (fused.double() - reference(a, b, c, bias.vec, alpha, beta, per)).abs().max().item()
        assert err < 1e-4, err
        print(f"EVT epilogue, per-{per} bias, vs a float64 reference: max |diff| < 1e-4 over {m}x{n}")
    # Bytes of global memory for D = relu(alpha*AB + beta*C + bias) in fp16, outside the GEMM's own
    # reads of A and B (arithmetic, not a measurement):
    M = N = 8192
    e = 2
    # unfused: the GEMM writes AB; an add kernel reads AB, C and bias and writes T; relu reads T, writes D
    unfused_bytes = M * N * e + (3 * M * N * e + N * e) + 2 * M * N * e
    fused_bytes = 2 * M * N * e + N * e  # the EVT epilogue reads C and bias and writes D once
    print(f"fp16 {M}x{N}: unfused epilogue traffic {unfused_bytes / 2**20:.0f} MiB, "
          f"fused {fused_bytes / 2**20:.0f} MiB")
# --8<-- [end:run]
