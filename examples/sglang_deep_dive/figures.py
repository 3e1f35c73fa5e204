"""Write the radix-cache stepper's data: golden traces from radix.py's model, and its static figure.

    python examples/sglang_deep_dive/figures.py        # rewrites both files below

- docs/blog/posts/sglang-deep-dive/radix-traces.json: every scenario of radix.SCENARIOS played
  through radix.RadixTree by radix.run_events, one record per step (the tree with lock counts and
  eviction order, evictable and protected sizes, the KV pool's slots, the live requests, a note).
  The post embeds it for docs/javascripts/ifig/radix-stepper.js to show; the tests check that it
  is what the model produces now, that SGLang's own RadixCache produces the same traces
  (real_compare.py), and that the page shows them (tests/browser/test_ifig_radix_stepper.py).
- docs/blog/posts/sglang-deep-dive/radix-stepper-static.txt: the figure without JavaScript, the first
  scenario as a list of steps (an HTML fragment the post includes; not .html, which the site would
  publish as a page of its own).
"""

from __future__ import annotations

import json
import os
import sys
from html import escape
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import radix  # noqa: E402

FIG_DIR = Path(__file__).resolve().parents[2] / "docs" / "blog" / "posts" / "sglang-deep-dive"


def slot_states(step: dict, size: int) -> list[str]:
    """Per KV-pool slot: "tree" (a tree node holds it), "req" (only a request's row), "free"."""
    in_tree: set[int] = set()
    stack = list(step["tree"])
    while stack:
        node = stack.pop()
        in_tree.update(node["slots"])
        stack.extend(node["children"])
    free = set(step["free"])
    return ["tree" if s in in_tree else "free" if s in free else "req" for s in range(size)]


def keyed(nodes: list[dict]) -> list[dict]:
    """Token ids as text, for the page: the scenarios' tokens are characters."""
    return [{**n, "key": radix.text(n["key"]), "children": keyed(n["children"])} for n in nodes]


def traces() -> dict:
    out = {}
    for name, spec in radix.SCENARIOS.items():
        steps = radix.run_events(radix.RadixTree(), spec["events"], spec["pool"])
        out[name] = {"title": spec["title"], "pool": spec["pool"], "steps": [
            {"event": s["event"], "rids": s["rids"], "note": s["note"], "tree": keyed(s["tree"]),
             "evictable": s["evictable"], "protected": s["protected"],
             "slots": slot_states(s, spec["pool"]), "requests": s["requests"]}
            for s in steps]}
    return out


def traces_json(data: dict) -> str:
    # One line, and no "<" that could end the <script> element it is embedded in.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c") + "\n"


def static_html(data: dict) -> str:
    name, scenario = next(iter(data.items()))
    rows = []
    for step in scenario["steps"]:
        tree = radix.show(_ids(step["tree"]))
        rows.append(f"<li>{escape(step['note'])}<br>Tree: <code>{escape(tree)}</code>. Evictable "
                    f"{step['evictable']}, protected {step['protected']}.</li>")
    return ('<div class="ifig-static">\n'
            f"<p>{escape(scenario['title'])}, step by step. In the tree, “key”[slots] is a node, "
            "L<i>n</i> its lock count and #<i>n</i> its place in the eviction order.</p>\n"
            "<ol>\n" + "\n".join(rows) + "\n</ol>\n</div>\n")


def _ids(nodes: list[dict]) -> list[dict]:
    """The inverse of keyed()."""
    return [{**n, "key": [ord(c) for c in n["key"]], "children": _ids(n["children"])} for n in nodes]


def write(fig_dir: Path = FIG_DIR) -> list[Path]:
    data = traces()
    paths = [fig_dir / "radix-traces.json", fig_dir / "radix-stepper-static.txt"]
    paths[0].write_text(traces_json(data), encoding="utf-8")
    paths[1].write_text(static_html(data), encoding="utf-8")
    return paths


if __name__ == "__main__":
    for path in write():
        print(path)
