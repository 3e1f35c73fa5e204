"""Render the post's figures: the bootstrap map and the P2P data paths, each also drawn 360 units
wide for phones (name-narrow.svg), and the all-reduce figure's static fallback and step traces.

Run:  python examples/nccl_deep_dive/figures.py

All are pure functions of this file and ring_sim.py (no measurement feeds them), so a test
regenerates each file and compares it with the committed one byte for byte.
"""

from __future__ import annotations

import sys
import textwrap
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # examples/ on the path
sys.path.insert(0, str(HERE))
from capture_log import KEEP_CUMEM0, excerpt, sections  # noqa: E402
from ring_sim import ring_steps, traces_json  # noqa: E402

ROOT = HERE.parents[1]
FIG_DIR = ROOT / "docs" / "blog" / "posts" / "nccl-deep-dive"
SLUG = "nccl-deep-dive"
W = 520


def _svg(fig_id: str, height: int, title: str, desc: str, body: list[str], width: int = W,
         cls: str = "fig-svg") -> str:
    head = (f'<svg class="{cls}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
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
    ("NCCL", "fig-box-ok", "ncclCommInitRankConfig -> bootstrapInit",
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
            "every rank then calls ncclCommInitRankConfig, which connects to the root, builds a socket "
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


# ---------------------------------------------------------------- narrow twins (360 units wide)

NW = 360


def _wrapped(x: float, y: float, text: str, width: int, size: int = 13, bold: bool = False,
             step: int = 18, cls: str = "fig-text", anchor: str = "start") -> tuple[list[str], float]:
    """Lines of `text` wrapped at `width` characters from (x, y); returns them and the next y."""
    out = []
    for line in textwrap.wrap(text, width):
        out.append(_text(x, y, line, size, bold, cls, anchor))
        y += step
    return out, y


def _desc_of(svg: str) -> str:
    start = svg.index("<desc")
    return svg[svg.index(">", start) + 1:svg.index("</desc>")]


def render_map_narrow() -> str:
    """The map as one column: who runs each step above its box, the box's lines re-wrapped."""
    fig_id = f"{SLUG}-map-narrow"
    body: list[str] = []
    y, left, gap = 12, 8, 14
    for i, (lane, cls, head, lines) in enumerate(MAP_STEPS):
        body.append(_text(left, y + 12, f"step {i + 1}, run by: {lane}", 13, True, "fig-text-muted"))
        text, _ = _wrapped(0, 0, " ".join(lines), 44)
        heads = textwrap.wrap(head, 38)
        box_h = 14 + 20 * len(heads) + 18 * len(text) + 4
        body.append(_box(left, y + 20, NW - 2 * left, box_h, cls))
        ty = y + 40
        for h in heads:
            body.append(_text(left + 10, ty, h, 15, True))
            ty += 20
        lines_out, _ = _wrapped(left + 10, ty, " ".join(lines), 44)
        body += lines_out
        y += 20 + box_h
        if i < len(MAP_STEPS) - 1:
            body.append(_arrow(fig_id, NW / 2, y, NW / 2, y + gap - 1))
        y += gap
    desc = _desc_of(render_map())
    return _svg(fig_id, int(y - gap + 10), "From torchrun to the first NCCL kernel", desc, body, NW,
                "fig-svg fig-svg--narrow")


def render_p2p_narrow() -> str:
    """The P2P figure in one column: hardware, then write and read, then IPC and cuMem, stacked."""
    fig_id = f"{SLUG}-p2p-narrow"
    mid, cw = NW / 2, NW - 24
    b: list[str] = []
    t, y = _wrapped(mid, 24, "Where the bytes go between two GPUs", 32, 15, True, 20, anchor="middle")
    b += t
    b.append(_box(12, y, 130, 56, "fig-box-primary"))
    b.append(_text(77, y + 24, "GPU 0", 15, True, anchor="middle"))
    b.append(_text(77, y + 44, "sender", 13, cls="fig-text-muted", anchor="middle"))
    b.append(_box(NW - 142, y, 130, 56, "fig-box-primary"))
    b.append(_text(NW - 77, y + 24, "GPU 1", 15, True, anchor="middle"))
    b.append(_text(NW - 77, y + 44, "receiver", 13, cls="fig-text-muted", anchor="middle"))
    b.append(f'<line class="fig-line-accent" x1="142" y1="{y + 28}" x2="{NW - 142}" y2="{y + 28}" stroke-width="4"/>')
    b.append(_text(mid, y + 20, "NVLink", 13, True, anchor="middle"))
    b.append(_text(mid, y + 48, "NVL (1)", 13, anchor="middle"))
    sw = y + 90
    b.append(f'<line class="fig-line" x1="77" y1="{y + 56}" x2="{mid - 50}" y2="{sw}"/>')
    b.append(f'<line class="fig-line" x1="{NW - 77}" y1="{y + 56}" x2="{mid + 50}" y2="{sw}"/>')
    b.append(_box(mid - 70, sw, 140, 40, "fig-box"))
    b.append(_text(mid, sw + 25, "PCIe switch", 14, anchor="middle"))
    b.append(_text(mid, sw + 60, "one switch: PIX (4); several: PXB (5)", 13, anchor="middle"))
    cpu = sw + 84
    b.append(f'<line class="fig-line-dashed" x1="{mid}" y1="{sw + 40}" x2="{mid}" y2="{sw + 46}"/>')
    b.append(f'<line class="fig-line-dashed" x1="{mid}" y1="{sw + 66}" x2="{mid}" y2="{cpu}"/>')
    b.append(_box(mid - 90, cpu, 180, 40, "fig-box-warn"))
    b.append(_text(mid, cpu + 25, "CPU root complex", 14, anchor="middle"))
    t, y = _wrapped(mid, cpu + 62, "PHB (8), across sockets SYS (9): beyond the default P2P level PXB, "
                    "so the pair uses SHM", 46, anchor="middle")
    b += t
    panels = [("P2P write (default)", "fig-box-ok", "The sender's kernel stores into the receiver's FIFO "
               "buffer over the link; the receiver reads locally. The SIMPLE buffer lives on GPU 1."),
              ("P2P read (sm80 + NVLink)", "fig-box-ok", "SIMPLE buffer appended to the sender's "
               "ncclSendMem on GPU 0; the receiver's kernel loads it over the link. NCCL_P2P_READ_ENABLE."),
              ("legacy CUDA IPC (P2P/IPC)", "fig-box", "cudaMalloc, cudaIpcGetMemHandle: a 64-byte handle, "
               "sent as plain bytes in the connect info. Peer: cudaIpcOpenMemHandle "
               "(LazyEnablePeerAccess) maps the whole allocation."),
              ("cuMem VMM (P2P/CUMEM)", "fig-box-accent", "cuMemCreate, AddressReserve, Map, SetAccess "
               "(per granule). The owner's proxy exports a POSIX fd, sent over a UNIX socket "
               "(SCM_RIGHTS). Peer: Import, Reserve, Map, SetAccess on its own device.")]
    y += 8
    for i, (head, cls, text) in enumerate(panels):
        if i == 2:
            t, y = _wrapped(mid, y + 10, "Sharing that buffer across processes", 36, 15, True, 20, anchor="middle")
            b += t
        b.append(_text(12, y + 12, head, 14, True))
        lines = textwrap.wrap(text, 46)
        b.append(_box(12, y + 20, cw, 14 + 18 * len(lines), cls))
        for j, ln in enumerate(lines):
            b.append(_text(22, y + 40 + 18 * j, ln, 13))
        y += 20 + 14 + 18 * len(lines) + 14
    t, y = _wrapped(mid, y + 10, "NCCL_CUMEM_ENABLE (default -2: use cuMem when the driver is >= 12.0 "
                    "and the device supports VMM)", 46, anchor="middle")
    b += t
    return _svg(fig_id, int(y), "P2P data paths and buffer sharing in NCCL 2.30.7", _desc_of(render_p2p()),
                b, NW, "fig-svg fig-svg--narrow")


# ---------------------------------------------------------------- the all-reduce figure's fallback

def render_allreduce_static(n: int = 4) -> str:
    """Without JavaScript: the ring over n GPUs as a table, the chunk each GPU sends per step.

    Written as allreduce-fallback.txt, HTML that the post includes: a .html file under docs/ would
    be built as a page of its own.
    """
    steps = ring_steps(n)
    head = "".join(f'<th scope="col">GPU {r} sends</th>' for r in range(n))
    rows = []
    for j, msgs in enumerate(steps, 1):
        cells = "".join(f"<td>c{m.unit} \u03a3{len(m.ranks)}{' (final)' if len(m.ranks) == n else ''}</td>"
                        for m in sorted(msgs))
        rows.append(f'<tr><th scope="row">{j}</th>{cells}</tr>')
    return ('<div class="ifig-static md-typeset__scrollwrap"><div class="md-typeset__table"><table>\n'
            f"<caption>Ring all-reduce over {n} GPUs: the chunk each GPU sends to the next, and how many "
            "GPUs' inputs it sums</caption>\n"
            f'<thead><tr><th scope="col">step</th>{head}</tr></thead>\n<tbody>\n' + "\n".join(rows) +
            "\n</tbody></table></div></div>\n")

def render_all() -> dict[str, str]:
    return {"map.svg": render_map(), "map-narrow.svg": render_map_narrow(),
            "p2p.svg": render_p2p(), "p2p-narrow.svg": render_p2p_narrow(),
            "allreduce-fallback.txt": render_allreduce_static(), "allreduce-steps.json": traces_json(),
            **render_log_excerpts()}


def render_log_excerpts() -> dict[str, str]:
    """The lines of the committed H200 log (NCCL 2.28.9) that the post walks through."""
    runs = sections((FIG_DIR / "nccl_init_one_gpu.txt").read_text(encoding="utf-8"))
    return {"log-default.txt": "\n".join(excerpt(runs["default"])) + "\n",
            "log-cumem0.txt": "\n".join(excerpt(runs["NCCL_CUMEM_ENABLE=0"], keep=KEEP_CUMEM0)) + "\n"}


def main() -> None:
    FIG_DIR.mkdir(parents=True, exist_ok=True)
    for name, svg in render_all().items():
        (FIG_DIR / name).write_text(svg, encoding="utf-8")  # an SVG, the fallback table or the traces
        print(f"wrote {FIG_DIR / name}")


if __name__ == "__main__":
    main()
