"""A measured roofline of one H200: cuBLAS through torch.mm, not CUTLASS's own kernels.

Reads docs/blog/posts/cutlass-deep-dive/gemm-h200.json (what capture_gemm.py writes: square GEMM
times in bf16, fp16 and fp8, and a device-to-device copy), places each GEMM at its arithmetic
intensity (FLOPs per byte of the minimum HBM traffic: read A and B once, write C once) and draws it
under the roof min(peak, bandwidth x intensity). The bandwidth is the measured copy; the peaks are
NVIDIA's dense figures for the H200 SXM (half its with-sparsity numbers; the NVL's are lower), cited,
not measured; the measured GPU reports itself as "NVIDIA H200", 132 SMs.
It also prices the epilogue of the post's fusion example (fp16, 8192 x 8192) at the rates measured
for the fp16 8192^3 GEMM and the copy.

Run it: python examples/cutlass_deep_dive/roofline.py [--write]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path
from common.svgplot import Series, line_plot  # noqa: E402

FIG_DIR = HERE.parents[1] / "docs" / "blog" / "posts" / "cutlass-deep-dive"
DATA = FIG_DIR / "gemm-h200.json"
OUT, OUT_NARROW = FIG_DIR / "roofline.svg", FIG_DIR / "roofline-narrow.svg"

# Dense tensor-core peaks of the H200 SXM, TFLOP/s: NVIDIA's product page lists 1,979 (BF16/FP16)
# and 3,958 (FP8) "with sparsity"; dense is half.
PEAK_TFLOPS = {"bfloat16": 989.5, "float16": 989.5, "float8_e4m3fn": 1979.0}
BYTES = {"bfloat16": (2, 2), "float16": (2, 2), "float8_e4m3fn": (1, 2)}  # (inputs, output)


# --8<-- [start:roofline]
def load(path: Path = DATA) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    for row in data["gemm"]:
        assert row["dtype"] in PEAK_TFLOPS and row["n"] > 0 and row["ms"] > 0, row
    return data


def intensity(m: int, n: int, k: int, in_bytes: int, out_bytes: int) -> float:
    """FLOPs per byte of the least traffic a GEMM can have: A and B read once, C written once."""
    return 2 * m * n * k / ((m * k + n * k) * in_bytes + m * n * out_bytes)


def roof(ai: float, peak_tflops: float, bandwidth_tbs: float) -> float:
    return min(peak_tflops, bandwidth_tbs * ai)


def points(data: dict) -> list[tuple[str, float, float]]:
    """(dtype, arithmetic intensity, measured TFLOP/s) for every square GEMM."""
    return [(r["dtype"], intensity(r["n"], r["n"], r["n"], *BYTES[r["dtype"]]), r["tflops"]) for r in data["gemm"]]


def epilogue_share(data: dict, k: int, m: int = 8192, n: int = 8192) -> tuple[float, float]:
    """(GEMM time at the rate measured for the fp16 n x n x n GEMM, time of the unfused epilogue's
    extra 512 MiB at the measured copy rate), in µs, for D = relu(alpha*AB + beta*C + bias) in fp16."""
    (rate,) = [r["tflops"] for r in data["gemm"] if r["dtype"] == "float16" and r["n"] == n]
    gemm_us = 2 * m * n * k / (rate * 1e12) * 1e6
    extra_bytes = 4 * m * n * 2  # unfused 768 MiB minus fused 256 MiB (evt.py's arithmetic)
    return gemm_us, extra_bytes / (data["copy_GBps_read_plus_write"] * 1e9) * 1e6
# --8<-- [end:roofline]


def svg(data: dict, narrow: bool = False) -> str:
    bw = data["copy_GBps_read_plus_write"] / 1000  # TB/s
    lo, hi = 10.0, 10_000.0

    def roof_series(name: str, dtype: str) -> Series:
        peak = PEAK_TFLOPS[dtype]
        ridge = peak / bw
        return Series(name, [lo, ridge, hi], [roof(lo, peak, bw), peak, peak])

    pts = points(data)
    bf = [(x, y) for d, x, y in pts if d == "bfloat16"]
    f8 = [(x, y) for d, x, y in pts if d == "float8_e4m3fn"]
    series = [
        roof_series("bf16 roof", "bfloat16"),
        roof_series("fp8 roof", "float8_e4m3fn"),
        Series("bf16 torch.mm", [x for x, _ in bf], [y for _, y in bf]),
        Series("fp8 _scaled_mm", [x for x, _ in f8], [y for _, y in f8]),
    ]
    v = data["versions"]
    return line_plot(
        series,
        fig_id="cutlass-deep-dive-roofline",
        title=f"Roofline of one H200: cuBLAS via torch {v['torch'].split('+')[0]}",
        desc=("Log-log plot of TFLOP/s against arithmetic intensity. Two roofs: the measured copy bandwidth of "
              f"{bw:.2f} TB/s times intensity, capped at the dense H200 SXM peaks of 989 (bf16) and 1,979 (fp8) "
              "TFLOP/s, "
              "which it meets at 233 and 465 FLOP per byte. Measured square GEMMs through torch.mm in bf16 at n = "
              "2048, 4096, 8192, 16384 sit at 683 to 5461 FLOP per byte and reach 623, 756, 744 and 691 TFLOP/s; "
              "one fp8 GEMM at n = 8192 reaches 1,311 TFLOP/s. Torch "
              f"{v['torch']}, CUDA {v['cuda']}."),
        x_label="FLOP per byte of HBM traffic",
        y_label="TFLOP/s",
        log_x=True,
        log_y=True,
        narrow=narrow,
    )


FIGURES = {OUT: lambda: svg(load()), OUT_NARROW: lambda: svg(load(), narrow=True)}

if __name__ == "__main__":
    data = load()
    bw = data["copy_GBps_read_plus_write"] / 1000
    print(f"copy bandwidth {bw:.2f} TB/s; ridge points: bf16 {PEAK_TFLOPS['bfloat16'] / bw:.0f},"
          f" fp8 {PEAK_TFLOPS['float8_e4m3fn'] / bw:.0f} FLOP/B")
    for dtype, ai, tflops in points(data):
        print(f"  {dtype:14} AI {ai:7.0f} FLOP/B  {tflops:6.0f} TFLOP/s  {tflops / PEAK_TFLOPS[dtype]:4.0%} of peak")
    for k in (8192, 1024, 256):
        gemm, epi = epilogue_share(data, k)
        print(f"  8192x8192x{k}: GEMM {gemm:6.0f} us at the measured rate, unfused epilogue +{epi:4.0f} us")
    if "--write" in sys.argv:
        for path, render in FIGURES.items():
            path.write_text(render(), encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parents[1])}")
