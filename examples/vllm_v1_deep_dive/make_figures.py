"""Write the scheduler stepper's data from the scheduler model (sched_model.py).

  scheduler-traces.json        : golden traces, one record per scheduler step of every scenario:
                                 the token budget split between requests (prefill, decode,
                                 recompute, prefix-cache hits), every KV block's state and
                                 owners, the waiting queue, preemptions and finished requests.
                                 docs/javascripts/ifig/scheduler-stepper.js only draws them.
  scheduler-stepper-static.txt : the figure without JavaScript, every scenario as a list.
  map-narrow.svg               : the phone's drawing of map.svg (the six layers and the
                                 processes), one column, labels at 11 units or more.

Both are pure functions of the model, so a test regenerates and compares them; another test runs
the same scenarios through vLLM's own Scheduler (real_vllm.py) and gets the same block tables.
Run from the repository root:  python examples/vllm_v1_deep_dive/make_figures.py
"""

from __future__ import annotations

import json
import sys
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sched_model as sm  # noqa: E402

OUT_DIR = HERE.parents[1] / "docs" / "blog" / "posts" / "vllm-v1-deep-dive"
SCENARIOS = {
    "packing": ("1: chunked prefill, continuous batching, prefix hit", sm.scenario_packing),
    "preemption": ("2: 6 KV blocks (5 usable) force a preemption", sm.scenario_preemption),
    "gate-on": ("3: full-prompt gate on (the default)",
                lambda: sm.scenario_admission_gate(reserve_full_isl=True)),
    "gate-off": ("3: full-prompt gate off",
                 lambda: sm.scenario_admission_gate(reserve_full_isl=False)),
    "nine-blocks": ("1 with 9 KV blocks (8 usable): B preempted, 4 tokens recomputed",
                    lambda: sm.scenario_packing(num_blocks=9)),
}


def _request_note(rid: str, rows: list[dict], resumed: bool, left: int) -> str:
    """One sentence part per request, from its rows (a resumed request can have two)."""
    hit = rows[0]["cached"]
    again = sum(r["tokens"] for r in rows if r["kind"] == "recompute")
    new = [r for r in rows if r["kind"] != "recompute"]
    if resumed:
        text = (f"{rid} is back: {hit} tokens from the prefix cache, "
                + (f"{again} computed again" if again else "nothing computed again"))
        if new and new[0]["kind"] == "decode":
            return text + ", then its next decode"
        if not new:
            return text
        n = new[0]["tokens"]
        text += f", then {n} new prompt token{'s' if n > 1 else ''}"
    elif rows[0]["kind"] == "decode":
        return f"{rid} decodes 1 token"
    else:
        n = rows[0]["tokens"]
        cached = f", {hit} more from the prefix cache" if hit else ""
        text = f"{rid} computes {n} prompt token{'s' if n > 1 else ''}{cached}"
    return text + (f", {left} left for later steps" if left > 0 else "")


def _events(s: sm.Scheduler, out, budget_left: int) -> list[str]:
    """Why nobody else got in: preemption, budget, seats or blocks (state right after schedule)."""
    parts = [f"{rid} gets no block: preempted, its blocks freed, nobody admitted"
             for rid in out.preempted_req_ids]
    if s.waiting and not out.preempted_req_ids:
        rid = s.waiting[0].request_id
        if budget_left == 0:
            parts.append(f"{rid} waits: no budget left")
        elif len(s.running) >= s.max_num_seqs:
            parts.append(f"{rid} waits: max_num_seqs requests are running")
        else:
            what = ("next chunk" if not s.scheduler_reserve_full_isl
                    else "prompt and outputs so far" if s.waiting[0].status == "PREEMPTED"
                    else "whole prompt")
            parts.append(f"{rid} waits: too few free blocks for its {what}")
    return parts


def _sentence(parts: list[str]) -> str:
    text = ". ".join(p[0].upper() + p[1:] for p in parts)
    return f"{text}." if text else "Nothing to schedule."


def trace(make) -> dict:
    s, arrivals = make()
    snaps: list[dict] = []

    def observe(step: int, out) -> None:
        blocks = []
        for b in s.kv.pool.blocks[1:]:  # block 0 is the null block, never handed out
            owners = [rid for rid, bl in s.kv.req_to_blocks.items() if b in bl]
            state = "held" if b.ref_cnt else "cached" if b.block_hash else "free"
            blocks.append({"id": b.block_id, "state": state, "owners": owners})
        used = out.total_num_scheduled_tokens
        left = {rid: len(s.requests[rid].prompt_token_ids) - s.requests[rid].num_computed_tokens
                for rid in out.num_scheduled_tokens}
        snaps.append({"step": step, "used": used, "blocks": blocks,
                      "waiting": [r.request_id for r in s.waiting],
                      "preempted": list(out.preempted_req_ids), "left": left,
                      "resumed": list(out.resumed_req_ids),
                      "events": _events(s, out, s.max_num_batched_tokens - used)})

    records = sm.run(s, arrivals, observe=observe)
    steps = []
    for snap, rec, kinds in zip(snaps, records, sm.token_kinds(records, s.requests), strict=True):
        rows = [{"rid": rid, "kind": kind, "tokens": n, "cached": hit} for rid, kind, n, hit in kinds]
        left, resumed = snap.pop("left"), snap.pop("resumed")
        notes = [_request_note(rid, [r for r in rows if r["rid"] == rid], rid in resumed, left[rid])
                 for rid in left]
        notes += snap.pop("events")
        notes += [f"{rid} finishes; its blocks are freed after this step" for rid in rec.finished]
        steps.append({"step": snap.pop("step"), "rows": rows, **snap,
                      "finished": rec.finished, "note": _sentence(notes)})
    return {"budget": s.max_num_batched_tokens, "block_size": s.kv.block_size,
            "num_blocks": len(s.kv.pool.blocks), "steps": steps}


def traces() -> dict:
    data = {}
    for name, (title, make) in SCENARIOS.items():
        data[name] = {"title": f"Scenario {title}", **trace(make)}
    return data


def traces_json() -> str:
    # One line, and no "<" that could end the <script> element it is embedded in.
    return json.dumps(traces(), ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c") + "\n"


def _row_text(row: dict) -> str:
    hit = f" (+{row['cached']} cached)" if row["cached"] else ""
    return f"{row['rid']}: {row['tokens']} {row['kind']}{hit}"


def block_text(block: dict) -> str:
    owners = "+".join(block["owners"])
    return f"{block['id']}" + (f" {owners}" if owners else "") + (
        "" if block["state"] == "held" else f" ({block['state']})")


def static_html() -> str:
    parts = ['<div class="ifig-static">',
             "<p>Each step: the tokens each request gets from the 16-token budget, then the KV "
             "blocks while the step runs (id, holders, and whether a free block still holds a "
             "cached prefix).</p>"]
    for scenario in traces().values():
        parts.append(f"<p><strong>{escape(scenario['title'])}</strong></p>\n<ol>")
        for st in scenario["steps"]:
            rows = ", ".join(_row_text(r) for r in st["rows"]) or "nothing"
            blocks = "; ".join(block_text(b) for b in st["blocks"])
            parts.append(f"<li>{escape(rows)} [{st['used']}/{scenario['budget']}]. "
                         f"{escape(st['note'])}<br>Blocks: {escape(blocks)}.</li>")
        parts.append("</ol>")
    parts.append("</div>")
    return "\n".join(parts) + "\n"


# (process heading, its note, box class, layers: (label, main line, small lines)), then the hop
# below it as (down label, up label, dashed).
MAP = [
    ("FRONT-END PROCESS", "your script, or the API server", "fig-box-primary", [
        ("1 entry point", "LLM.generate() | vllm serve", ["LLM; OpenAIServingChat (FastAPI)"]),
        ("2 engine front end", "LLMEngine | AsyncLLM", ["Renderer, InputProcessor, OutputProcessor"]),
        ("3 core client", "SyncMPClient | AsyncMPClient", ["ROUTER bind, PULL bind"]),
    ], ("EngineCoreRequest (msgpack), ipc://", "EngineCoreOutputs (msgpack), ipc://", False)),
    ("ENGINECORE PROCESS", "EngineCoreProc.run_engine_core", "fig-box-warn", [
        ("4 engine core", "input thread | busy loop | output thread",
         ["Scheduler + KVCacheManager (BlockPool)", "schedule, execute, sample, update"]),
        ("5 executor", "UniProcExecutor | MultiprocExecutor", ["MultiprocExecutor when TP x PP x PCP x DP > 1"]),
    ], ("SchedulerOutput, MessageQueue broadcast", "ModelRunnerOutput, one rank", True)),
    ("WORKER PROCESS(ES)", "or inside EngineCore (UniProcExecutor)", "fig-box-ok", [
        ("6 worker + runner", "Worker | GPUModelRunner",
         ["init_device, load_model, profile, capture", "inputs on GPU, forward, Sampler"]),
    ], None),
]


def map_narrow_svg() -> str:
    width, body, y = 348, [], 8
    fid = "vllm-v1-deep-dive-map-narrow"
    for heading, note, box, layers, hop in MAP:
        top = y
        y += 18
        body.append(f'<text class="fig-text-small" x="14" y="{y}" font-weight="bold">{heading}</text>')
        body.append(f'<text class="fig-text-small fig-text-muted" x="14" y="{y + 15}">{escape(note)}</text>')
        y += 25
        for label, main, small in layers:
            h = 38 + 15 * len(small)
            body.append(f'<rect class="{box}" x="12" y="{y}" width="324" height="{h}" rx="4"/>')
            body.append(f'<text class="fig-text-small" x="20" y="{y + 15}">{escape(label)}</text>')
            body.append(f'<text class="fig-text" x="174" y="{y + 32}" text-anchor="middle">{escape(main)}</text>')
            for k, line in enumerate(small):
                body.append(f'<text class="fig-text-small" x="174" y="{y + 48 + 15 * k}" '
                            f'text-anchor="middle">{escape(line)}</text>')
            y += h + 8
        body.insert(len(body) - sum(3 + len(sm) for _, _, sm in layers) - 2,
                    f'<rect class="fig-box" x="4" y="{top}" width="340" height="{y - top}" rx="8"/>')
        if hop is None:
            break
        down, up, dashed = hop
        line = "fig-line-dashed" if dashed else "fig-line"
        y += 6
        body.append(f'<line class="{line}" x1="24" y1="{y}" x2="24" y2="{y + 34}" '
                    f'marker-end="url(#{fid}-arrow)"/>')
        body.append(f'<line class="{line}" x1="40" y1="{y + 34}" x2="40" y2="{y}" '
                    f'marker-end="url(#{fid}-arrow)"/>')
        body.append(f'<text class="fig-text-small" x="52" y="{y + 14}">down: {escape(down)}</text>')
        body.append(f'<text class="fig-text-small" x="52" y="{y + 29}">up: {escape(up)}</text>')
        y += 42
    height = y + 4
    head = [
        f'<svg class="fig-svg fig-svg--narrow" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="{fid}-title {fid}-desc">',
        f'<title id="{fid}-title">vLLM v1 in v0.33.0: six layers in up to three kinds of process</title>',
        f'<desc id="{fid}-desc">The front-end process holds the entry point, the engine front end '
        "and the core client; ZMQ sockets over ipc:// carry requests to the EngineCore process and "
        "outputs back. The EngineCore process holds the engine core (input thread, busy loop, "
        "output thread, scheduler and KV-cache manager) and the executor, which broadcasts each "
        "SchedulerOutput to the worker processes (or runs the worker in-process); one rank "
        "returns the ModelRunnerOutput.</desc>",
        "<defs>",
        f'<marker id="{fid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/>'
        "</marker>",
        "</defs>",
    ]
    return "\n".join(head + body + ["</svg>"]) + "\n"


FIGURES = {"scheduler-traces.json": traces_json, "scheduler-stepper-static.txt": static_html,
           "map-narrow.svg": map_narrow_svg}


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, fn in FIGURES.items():
        (OUT_DIR / name).write_text(fn(), encoding="utf-8")
        print(f"wrote {(OUT_DIR / name).relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
