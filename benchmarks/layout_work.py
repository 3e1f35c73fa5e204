"""How much of each post the browser styles and lays out while it loads (a benchmark, not CI).

Lighthouse's blocking time on this shared 2-core machine moves by hundreds of milliseconds from run
to run; the amount of work behind it does not. This opens every post of a built site at phone width
(412 x 823, as Lighthouse's mobile preset) in Debian's Chromium, records a trace from navigation to
two seconds after the load event, and adds up, over every style recalculation, the elements whose
style was computed (``UpdateLayoutTree`` ``elementCount``) and, over every layout, the objects laid
out (``Layout`` ``dirtyObjects``). Those counts depend on the page and the browser, not on the
machine's load.

    python benchmarks/layout_work.py --site-dir SITE [--before OLD_SITE] [--report PATH]

With --before, both sites are measured and the report shows the two side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser import CHROMIUM, chromium, serve  # noqa: E402
from support import post_urls  # noqa: E402

VIEWPORT = {"width": 412, "height": 823}
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]


def work(events: list[dict]) -> tuple[int, int]:
    styled = sum((e.get("args", {}).get("elementCount") or 0) for e in events
                 if e.get("name") == "UpdateLayoutTree" and e.get("ph") in ("X", "E"))
    laid_out = sum(((e.get("args", {}).get("beginData") or {}).get("dirtyObjects") or 0) for e in events
                   if e.get("name") == "Layout")
    return styled, laid_out


def measure(site_dir: Path) -> dict[str, tuple[int, int]]:
    found = {}
    with serve(site_dir, compress=True) as base, chromium() as browser, tempfile.TemporaryDirectory() as tmp:
        for path in post_urls(site_dir):
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            trace = Path(tmp) / "trace.json"
            browser.start_tracing(page=page, path=str(trace), categories=CATEGORIES)
            page.goto(base + path, wait_until="load")
            page.wait_for_timeout(2000)
            browser.stop_tracing()
            context.close()
            found[path] = work(json.loads(trace.read_text(encoding="utf-8"))["traceEvents"])
            print(path, found[path], flush=True)
    return found


def report(after: dict[str, tuple[int, int]], before: dict[str, tuple[int, int]] | None) -> str:
    lines = ["# Style and layout work while a post loads", "",
             "Written by `benchmarks/layout_work.py` (see its docstring for the method): Chromium "
             f"({CHROMIUM}), {VIEWPORT['width']} x {VIEWPORT['height']}, every post of the built site, "
             "from navigation to 2 s after load. *Styled*: elements whose style was computed, summed over "
             "every recalculation; *laid out*: layout objects, summed over every layout.", ""]
    if before:
        lines += ["| post | styled before | styled now | laid out before | laid out now |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for path, (styled, laid) in after.items():
            old = before.get(path, (0, 0))
            lines.append(f"| `{path}` | {old[0]:,} | {styled:,} | {old[1]:,} | {laid:,} |")
    else:
        lines += ["| post | styled | laid out |", "| --- | ---: | ---: |"]
        lines += [f"| `{path}` | {styled:,} | {laid:,} |" for path, (styled, laid) in after.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, required=True)
    parser.add_argument("--before", type=Path, help="an earlier build of the site to compare with")
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "layout-work-report.md")
    parser.add_argument("--note", default="", help="a line about the two builds, added to the report")
    args = parser.parse_args()
    before = measure(args.before) if args.before else None
    text = report(measure(args.site_dir), before)
    args.report.write_text(text + (f"\n{args.note}\n" if args.note else ""), encoding="utf-8")
    print(f"wrote {args.report}")


if __name__ == "__main__":
    main()
