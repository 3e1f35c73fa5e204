"""Generate the post's scheduler figures from the scheduler model (sched_model.py).

  scheduler-steps.svg  : how each step's token budget is packed (hand-rolled SVG)
  tokens-per-step.svg  : tokens per step by kind (examples/common/svgplot.py)

Both are pure functions of the model, so a test can regenerate and compare them.
Run from the repository root:  python examples/vllm_v1_deep_dive/make_figures.py
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from common.svgplot import Series, bar_chart  # noqa: E402
from sched_model import run, scenario_packing, scenario_preemption  # noqa: E402

OUT_DIR = HERE.parents[1] / "docs" / "blog" / "posts" / "vllm-v1-deep-dive"
SLUG = "vllm-v1-deep-dive"
KIND_CLASS = {"decode": "fig-box-ok", "prefill": "fig-box-primary",
              "recompute": "fig-box-warn"}


def _records():
    out = []
    for title, make in (("Scenario 1: chunked prefill, continuous batching, prefix hit",
                         scenario_packing),
                        ("Scenario 2: 6 KV blocks (5 usable) force a preemption",
                         scenario_preemption)):
        sched, arrivals = make()
        out.append((title, run(sched, arrivals)))
    return out


def _kind(out, rid: str) -> str:
    if rid in out.resumed_req_ids:
        return "recompute"
    return "prefill" if rid in out.prefill_req_ids else "decode"


def scheduler_steps_svg() -> str:
    cell, x0, row_h, width = 28, 70, 30, 760
    lines: list[str] = []
    y = 20
    for title, records in _records():
        y += 18
        lines.append(f'<text class="fig-text" x="10" y="{y}" font-weight="bold">'
                     f"{escape(title)}</text>")
        y += 10
        for r in records:
            budget = r.out.token_budget
            lines.append(f'<text class="fig-text-small" x="10" y="{y + 19}">step {r.step}</text>')
            used = r.out.total_num_scheduled_tokens
            for k in range(used, budget):  # the unused budget, one cell per token
                lines.append(f'<rect class="fig-box" x="{x0 + k * cell}" y="{y + 4}" '
                             f'width="{cell}" height="{row_h - 8}"/>')
            x = x0
            for rid, n in r.out.num_scheduled_tokens.items():
                kind = _kind(r.out, rid)
                w = n * cell
                lines.append(f'<rect class="{KIND_CLASS[kind]}" x="{x}" y="{y + 2}" width="{w}" '
                             f'height="{row_h - 4}"><title>{rid}: {n} {kind} token(s)</title>'
                             "</rect>")
                label = f"{rid} {n}" if w >= 2 * cell else rid
                lines.append(f'<text class="fig-text-small fig-mono" x="{x + w / 2:.0f}" '
                             f'y="{y + 19}" text-anchor="middle">{label}</text>')
                x += w
            notes = [f"{rid} +{h} cached" for rid, h in r.out.num_prefix_hit_tokens.items() if h]
            notes += [f"{rid} preempted" for rid in r.out.preempted_req_ids]
            notes += [f"{rid} done" for rid in r.finished]
            lines.append(f'<text class="fig-text-small" x="{x0 + budget * cell + 10}" '
                         f'y="{y + 19}">{used}/{budget}  {escape("; ".join(notes))}</text>')
            y += row_h + 4
    y += 14
    lx = x0
    for kind, cls in KIND_CLASS.items():
        lines.append(f'<rect class="{cls}" x="{lx}" y="{y - 11}" width="14" height="14"/>')
        lines.append(f'<text class="fig-text-small" x="{lx + 20}" y="{y}">{kind} tokens</text>')
        lx += 150
    lines.append(f'<text class="fig-text-muted fig-text-small" x="{lx}" y="{y}">'
                 "1 cell = 1 token of the budget (16)</text>")
    height = y + 14
    fid = f"{SLUG}-steps"
    head = [
        f'<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="{fid}-title {fid}-desc">',
        f'<title id="{fid}-title">Token-budget packing of eight scheduler steps</title>',
        f'<desc id="{fid}-desc">Each row is one call of the scheduler model with a budget of 16 '
        "tokens. Running requests are packed first, then waiting ones; long prompts are chunked "
        "to the remaining budget; prefix-cache hits and preemptions are noted on the right."
        "</desc>",
    ]
    return "\n".join(head + lines + ["</svg>"]) + "\n"


def tokens_per_step_svg() -> str:
    cats, prefill, decode, cached = [], [], [], []
    for s, (_, records) in enumerate(_records(), start=1):
        for r in records:
            cats.append(f"{s}.{r.step}")
            per_kind = {"prefill": 0, "decode": 0, "recompute": 0}
            for rid, n in r.out.num_scheduled_tokens.items():
                per_kind[_kind(r.out, rid)] += n
            prefill.append(per_kind["prefill"] + per_kind["recompute"])
            decode.append(per_kind["decode"])
            cached.append(sum(r.out.num_prefix_hit_tokens.values()))
    return bar_chart(
        cats,
        [Series("prompt tokens computed", [], prefill), Series("decode tokens", [], decode),
         Series("prompt tokens from prefix cache", [], cached)],
        fig_id=f"{SLUG}-tokens",
        title="Tokens per scheduler step (scenario.step), budget 16",
        desc="Grouped bars per step of the scheduler model: prompt tokens computed, decode "
             "tokens, and prompt tokens skipped because their KV blocks were found in the "
             "prefix cache (these do not consume the token budget).",
        y_label="tokens",
    )


FIGURES = {"scheduler-steps.svg": scheduler_steps_svg, "tokens-per-step.svg": tokens_per_step_svg}


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, fn in FIGURES.items():
        (OUT_DIR / name).write_text(fn())
        print(f"wrote {(OUT_DIR / name).relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
