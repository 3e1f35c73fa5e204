"""Render the post's figures: the bootstrap map, the P2P data paths, and the ring-model plot.

Run:  python examples/nccl_deep_dive/figures.py

All three are pure functions of this file and ring_sim.py (no measurement feeds them), so a test
regenerates each SVG and compares it with the committed file byte for byte.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path
sys.path.insert(0, str(HERE))
from common.svgplot import Series, line_plot  # noqa: E402
from ring_sim import curve  # noqa: E402

ROOT = HERE.parents[1]
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "nccl-deep-dive"
SLUG = "nccl-deep-dive"
W = 520


def _svg(fig_id: str, height: int, title: str, desc: str, body: list[str], width: int = W) -> str:
    head = (f'<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'role="img" aria-labelledby="{fig_id}-title {fig_id}-desc">')
    marker = (f'<defs><marker id="{fig_id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
              'markerHeight="7" orient="auto-start-reverse"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/>'
              "</marker></defs>")
    return "\n".join([head, f'<title id="{fig_id}-title">{escape(title)}</title>',
                      f'<desc id="{fig_id}-desc">{escape(desc)}</desc>', marker, *body, "</svg>"]) + "\n"


def _text(x: float, y: float, s: str, size: int = 14, bold: bool = False, cls: str = "fig-text",
          anchor: str = "start") -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}"{weight}>'
            f"{escape(s)}</text>")


def _box(x: float, y: float, w: float, h: float, cls: str) -> str:
    return f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6"/>'


def _arrow(fig_id: str, x1: float, y1: float, x2: float, y2: float, cls: str = "fig-line") -> str:
    return (f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'marker-end="url(#{fig_id}-arrow)"/>')


# ---------------------------------------------------------------- the map: bootstrap sequence

MAP_STEPS = [
    ("agent", "fig-box", "torchrun: the elastic agent",
     ["c10d rendezvous backend: a TCPStore at", "--rdzv-endpoint, state under torch.rendezvous.<id>"]),
    ("agent", "fig-box", "rendezvous round 0",
     ["rdzv store keys: role_info, assigned_ranks, and", "MASTER_ADDR/PORT: rank 0's new TCPStore, free port"]),
    ("agent", "fig-box", "start_processes: one worker per local rank",
     ["env: RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,", "MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE=True"]),
    ("worker", "fig-box-primary", "init_process_group(\"nccl\"), env://",
     ["TCPStore client -> PrefixStore(\"default_pg\")", "-> ProcessGroupNCCL (no NCCL comm yet)"]),
    ("rank 0", "fig-box-accent", "first collective: ncclGetUniqueId",
     ["random magic + this host's address; starts the", "bootstrap root thread listening on that port"]),
    ("store", "fig-box-accent", "128 bytes through the store",
     ["rank 0: set(\"default_pg/0//cuda//0\")", "other ranks: get() blocks until it is there"]),
    ("NCCL", "fig-box-ok", "ncclCommInitRank -> bootstrapInit",
     ["each rank tells the root its listen address;", "the root wires a ring of sockets; AllGather"]),
    ("NCCL", "fig-box-ok", "initTransportsRank",
     ["peerInfo allgather, topology + paths, ring/tree", "search, AllGather3, proxy thread, buffers"]),
    ("NCCL", "fig-box-warn", "connect transports (P2P / SHM / NET)",
     ["at init, or at the first collective when every", "rank has cuMem (runtimeConn)"]),
    ("GPU", "fig-box-ok", "kernels: ring / tree all-reduce",
     ["one CUDA block per channel; SIMPLE, LL, LL128", "protocols; proxy thread drives the network"]),
]


def render_map() -> str:
    fig_id = f"{SLUG}-map"
    body: list[str] = []
    y, box_h, gap, left, tag_w = 14, 74, 18, 12, 70
    for i, (lane, cls, head, lines) in enumerate(MAP_STEPS):
        body.append(_box(left, y, tag_w, box_h, "fig-box"))
        body.append(_text(left + tag_w / 2, y + box_h / 2 + 5, lane, 13, True, "fig-text-muted", "middle"))
        body.append(_box(left + tag_w + 8, y, W - 2 * left - tag_w - 8, box_h, cls))
        x = left + tag_w + 18
        body.append(_text(x, y + 22, f"{i + 1}  {head}", 15, True))
        for j, ln in enumerate(lines):
            body.append(_text(x, y + 43 + 18 * j, ln, 13))
        if i < len(MAP_STEPS) - 1:
            body.append(_arrow(fig_id, W / 2 + 40, y + box_h, W / 2 + 40, y + box_h + gap - 1))
        y += box_h + gap
    height = y - gap + 14
    desc = ("Ten steps from torchrun to the first NCCL kernel. The agent runs the c10d rendezvous on "
            "a TCPStore, opens a second store for the workers and starts one worker per local rank "
            "with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT. Each worker creates the process "
            "group over a store client. At the first collective rank 0 calls ncclGetUniqueId, "
            "which starts a listening bootstrap root, and publishes the 128-byte id in the store; "
            "every rank then calls ncclCommInitRank, which connects to the root, builds a socket "
            "ring, exchanges peer information, detects the topology, searches rings and trees, "
            "starts the proxy thread and connects transports, at init or lazily with cuMem.")
    return _svg(fig_id, height, "From torchrun to the first NCCL kernel", desc, body)


# ---------------------------------------------------------------- P2P data paths

def render_p2p() -> str:
    fig_id = f"{SLUG}-p2p"
    w, col, cw = 560, 295, 245          # width, x of the right column, column width
    mid = w / 2
    b: list[str] = []
    b.append(_text(mid, 24, "Where the bytes go between two GPUs", 16, True, anchor="middle"))
    # hardware panel
    b.append(_box(20, 44, 150, 60, "fig-box-primary"))
    b.append(_text(95, 70, "GPU 0", 15, True, anchor="middle"))
    b.append(_text(95, 90, "sender", 13, cls="fig-text-muted", anchor="middle"))
    b.append(_box(w - 170, 44, 150, 60, "fig-box-primary"))
    b.append(_text(w - 95, 70, "GPU 1", 15, True, anchor="middle"))
    b.append(_text(w - 95, 90, "receiver", 13, cls="fig-text-muted", anchor="middle"))
    b.append(f'<line class="fig-line-accent" x1="170" y1="62" x2="{w - 170}" y2="62" stroke-width="4"/>')
    b.append(_text(mid, 55, "NVLink: PATH_NVL (1)", 13, True, anchor="middle"))
    b.append(_box(mid - 75, 130, 150, 40, "fig-box"))
    b.append(_text(mid, 155, "PCIe switch", 14, anchor="middle"))
    b.append(f'<line class="fig-line" x1="95" y1="104" x2="{mid - 60}" y2="130"/>')
    b.append(f'<line class="fig-line" x1="{w - 95}" y1="104" x2="{mid + 60}" y2="130"/>')
    b.append(_text(mid - 85, 150, "one switch: PIX (4)", 13, anchor="end"))
    b.append(_text(mid + 85, 150, "several: PXB (5)", 13))
    b.append(_box(mid - 75, 204, 150, 40, "fig-box-warn"))
    b.append(_text(mid, 229, "CPU root complex", 14, anchor="middle"))
    b.append(f'<line class="fig-line-dashed" x1="{mid}" y1="170" x2="{mid}" y2="204"/>')
    b.append(_text(mid, 266, "PHB (8), across sockets SYS (9): beyond the", 13, anchor="middle"))
    b.append(_text(mid, 284, "default P2P level PXB, so the pair uses SHM", 13, anchor="middle"))
    # write vs read
    y0 = 306
    panels = [(20, "P2P write (default)", ["sender's kernel stores into the", "receiver's FIFO buffer over the",
                                           "link; the receiver reads locally.", "SIMPLE buffer lives on GPU 1"]),
              (col, "P2P read (sm80 + NVLink)", ["SIMPLE buffer appended to the", "sender's ncclSendMem on GPU 0;",
                                                "the receiver's kernel loads it", "over the link. P2P_READ_ENABLE"])]
    for x, head, lines in panels:
        b.append(_text(x, y0 + 12, head, 15, True))
        b.append(_box(x, y0 + 22, cw, 92, "fig-box-ok"))
        for i, ln in enumerate(lines):
            b.append(_text(x + 10, y0 + 44 + 18 * i, ln, 13))
    # sharing the buffer between processes
    y1 = y0 + 140
    b.append(_text(mid, y1 + 6, "Sharing that buffer across processes", 15, True, anchor="middle"))
    cols = [(20, "legacy CUDA IPC (P2P/IPC)", "fig-box", [
        "cudaMalloc, cudaIpcGetMemHandle", "64-byte handle, sent as plain", "bytes in the connect info",
        "peer: cudaIpcOpenMemHandle", "(LazyEnablePeerAccess)", "maps the whole allocation"]),
        (col, "cuMem VMM (P2P/CUMEM)", "fig-box-accent", [
        "cuMemCreate, AddressReserve,", "Map, SetAccess (per granule)", "owner's proxy exports a POSIX fd",
        "fd over a UNIX socket (SCM_RIGHTS)", "peer: Import, Reserve, Map,", "SetAccess on its own device"])]
    for x, head, cls, lines in cols:
        b.append(_text(x, y1 + 34, head, 14, True))
        b.append(_box(x, y1 + 44, cw, 128, cls))
        for i, ln in enumerate(lines):
            b.append(_text(x + 10, y1 + 66 + 19 * i, ln, 13))
    b.append(_text(mid, y1 + 196, "NCCL_CUMEM_ENABLE (default -2: use cuMem when the", 13, anchor="middle"))
    b.append(_text(mid, y1 + 214, "driver is >= 12.0 and the device supports VMM)", 13, anchor="middle"))
    height = y1 + 232
    desc = ("Top: two GPUs joined by NVLink (path type NVL) or through a PCIe switch (PIX or PXB); "
            "paths through the CPU root complex (PHB) or across sockets (SYS) exceed the default "
            "P2P level PXB and fall back to shared memory. Middle: with P2P write, the default, "
            "the sender's kernel stores into a buffer on the receiving GPU; with P2P read, the "
            "default only between compute-capability 8.0 GPUs on NVLink, the buffer sits on the "
            "sender and the receiver loads it. Bottom: a buffer in another process is mapped "
            "either with legacy CUDA IPC handles or with the cuMem virtual memory API, whose "
            "allocation handle is exported as a file descriptor and passed over a UNIX socket.")
    return _svg(fig_id, height, "P2P data paths and buffer sharing in NCCL 2.30.7", desc, b, w)


# ---------------------------------------------------------------- ring model plot

RING_NS = [2, 3, 4, 6, 8, 12, 16, 24, 32]


def render_ring() -> str:
    size, bw = 256 * 2**20, 100e9
    closed = [n / (2 * (n - 1)) for n in RING_NS]
    series = [
        Series("closed form n / 2(n-1)", [float(n) for n in RING_NS], closed),
        Series("event simulation, equal links", [float(n) for n in RING_NS],
               curve(RING_NS, size, bw, None, 4)),
        Series("simulation, one link at B/2", [float(n) for n in RING_NS],
               curve(RING_NS, size, bw, 0.5, 4)),
    ]
    return line_plot(series, fig_id=f"{SLUG}-ring", title="Ring all-reduce: algorithm bandwidth / link bandwidth",
                     desc=("Model, not measurement: S / T / B for a ring all-reduce of 256 MiB over "
                           "links of 100 GB/s and no latency. The closed form n/(2(n-1)) falls from "
                           "1 at two ranks towards 0.5; the event simulation with equal links lies "
                           "on it; with one link at half bandwidth every point halves."),
                     x_label="ranks in the ring (n)", y_label="algbw / B")


def render_all() -> dict[str, str]:
    return {"map.svg": render_map(), "p2p.svg": render_p2p(), "ring.svg": render_ring()}


def main() -> None:
    FIG_DIR.mkdir(parents=True, exist_ok=True)
    for name, svg in render_all().items():
        (FIG_DIR / name).write_text(svg, encoding="utf-8")
        print(f"wrote {FIG_DIR / name}")


if __name__ == "__main__":
    main()
