"""What V8's compile hint on Material's bundle saves on the page's main thread (a benchmark, not a CI test).

mlblog/publish/scripts.py starts Material's bundle with ``//# allFunctionsCalledOnLoad``, so V8
compiles its functions on the thread that streams the file in instead of on the main thread at each
function's first call. This script builds the site (or takes --site-dir), makes a copy whose bundle
is Material's own file (no hint), serves both gzip-encoded on 127.0.0.1 and loads each page cold in
Debian's chromium at a phone's viewport with the CPU slowed 4x (as Lighthouse's mobile preset
assumes), the two copies interleaved, RUNS times. From each load's trace it reads:

- *compile*: main-thread time inside V8's compilation (V8.CompileCode, V8.ParseFunction,
  V8.PreParse, overlaps counted once), of every script on the page, top level and on demand;
- *tasks*: main-thread time in tasks, all of the load;
- *blocking*: for every main-thread task that began after the first contentful paint, its time
  beyond 50 ms, summed (Lighthouse's blocking time, on the observed trace rather than simulated);
- *FCP* and *DCL*: the first contentful paint and the end of DOMContentLoaded, observed (so work
  moved before the paint, or a later-running bundle, shows there and not as less blocking).

Only the page's renderer counts: the process whose main frame painted. The two copies alternate
which loads first in each run.

It writes benchmarks/eager-compile-report.md: per page, the medians with and without the hint, and
the ratio of their sums over all pages, both measured in the same run (the machine is noisy).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from browser import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402
from lighthouse import build_site, page_arguments, pages  # noqa: E402

from mlblog.publish.scripts import BUNDLE_GLOB  # noqa: E402

REPORT = ROOT / "benchmarks" / "eager-compile-report.md"
CATEGORIES = ["toplevel", "devtools.timeline", "v8", "disabled-by-default-v8.compile", "loading"]
COMPILE_EVENTS = {"V8.CompileCode", "V8.ParseFunction", "V8.PreParse"}
TASK_EVENTS = {"ThreadControllerImpl::RunTask", "RunTask"}
METRICS = ("compile", "tasks", "blocking", "fcp", "dcl")
PHONE = {"width": 412, "height": 823}
CPU_SLOWDOWN = 4
LONG_TASK_MS = 50


def unhinted_copy(site_dir: Path, dest: Path) -> Path:
    """A copy of the built site whose bundle and source map are Material's files as shipped."""
    import material

    shutil.copytree(site_dir, dest)
    [bundle] = dest.glob(BUNDLE_GLOB)
    shipped = Path(material.__file__).parent / "templates" / bundle.relative_to(dest)
    shutil.copyfile(shipped, bundle)
    shutil.copyfile(shipped.with_name(shipped.name + ".map"), bundle.with_name(bundle.name + ".map"))
    return dest


def covered_ms(intervals: list[tuple[float, float]]) -> float:
    """Time covered by (start, end) intervals in microseconds, overlaps counted once, in ms."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total / 1000


def summarise(events: list[dict]) -> dict[str, float]:
    """Compile, task and blocking time on the page's main thread, from one load's trace events."""
    paints = [e for e in events if e.get("name") == "firstContentfulPaint"]
    main_frame = [e for e in paints if (e.get("args", {}).get("data") or {}).get("isOutermostMainFrame")]
    if not paints:
        raise RuntimeError("the trace has no first contentful paint")
    paint = min(main_frame or paints, key=lambda e: e["ts"])
    threads = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
               and e["pid"] == paint["pid"] and e["args"].get("name") == "CrRendererMain"}
    main = [e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in threads]
    tasks = [e for e in main if e["name"] in TASK_EVENTS]
    return {
        "compile": covered_ms([(e["ts"], e["ts"] + e["dur"]) for e in main if e["name"] in COMPILE_EVENTS]),
        "tasks": covered_ms([(e["ts"], e["ts"] + e["dur"]) for e in tasks]),
        "blocking": sum(max(0.0, e["dur"] / 1000 - LONG_TASK_MS) for e in tasks if e["ts"] >= paint["ts"]),
    }


def trace_load(browser, url: str) -> dict[str, float]:
    """Load url cold in a new context (phone viewport, CPU slowed) and summarise its trace."""
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url, wait_until="load")
        page.wait_for_timeout(1500)  # the DOMContentLoaded mounts and what they schedule
        times = page.evaluate("""() => ({
            fcp: performance.getEntriesByName("first-contentful-paint")[0].startTime,
            dcl: performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd})""")
        return {**summarise(json.loads(browser.stop_tracing())["traceEvents"]), **times}
    finally:
        context.close()


def main() -> int:
    from playwright.sync_api import sync_playwright

    args = page_arguments(__doc__, runs=5)
    with tempfile.TemporaryDirectory() as tmp:
        hinted = args.site_dir or build_site(Path(tmp) / "site")
        plain = unhinted_copy(hinted, Path(tmp) / "unhinted")
        paths = [p for _, p in pages(hinted) if not args.only or args.only in p]
        results: dict[tuple[str, str], list[dict]] = {}
        with sync_playwright() as p, serve(hinted, compress=True) as with_hint, serve(plain, compress=True) as without:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for run in range(args.runs):
                for path in paths:
                    arms = (("without", without), ("with", with_hint))
                    for name, base in arms if run % 2 == 0 else arms[::-1]:
                        r = trace_load(browser, base + path)
                        results.setdefault((path, name), []).append(r)
                        print(f"{run} {path} {name} hint: " + ", ".join(f"{m} {r[m]:.0f} ms" for m in METRICS),
                              flush=True)
            browser.close()
    med = {k: {m: statistics.median(r[m] for r in rs) for m in METRICS} for k, rs in results.items()}
    spread = {k: (min(r["blocking"] for r in rs), max(r["blocking"] for r in rs)) for k, rs in results.items()}
    total = {(name, m): sum(med[(path, name)][m] for path in paths) for name in ("without", "with") for m in METRICS}
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Compile hint on Material's bundle: main-thread time with and without",
        "",
        f"Written by `make eager-compile` (benchmarks/eager_compile.py) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: "
        f"{chromium}, headless, {PHONE['width']}x{PHONE['height']} viewport, CPU slowed {CPU_SLOWDOWN}x, cold loads "
        "of the real site served gzip-encoded on 127.0.0.1, the copy with the hint and the copy with Material's own "
        f"bundle alternating, {args.runs} runs per page, medians (blocking: lowest and highest run too). "
        f"Machine: {platform.machine()}, {os.cpu_count()} cores. Observed times, not simulated. *Compile*: "
        "main-thread time in V8's compilation, every script, top level and on demand. *Tasks*: main-thread "
        f"time in tasks over the load. *Blocking*: time beyond {LONG_TASK_MS} ms of each main-thread task that "
        "began after the first contentful paint. *FCP*, *DCL*: first contentful paint, end of DOMContentLoaded.",
        "",
        "Each cell: without the hint → with it.",
        "",
        "| page | compile | tasks | blocking (spread) | FCP | DCL |",
        "|---|---|---|---|---|---|",
    ]
    for path in paths:
        a, b = med[(path, "without")], med[(path, "with")]
        sa, sb = spread[(path, "without")], spread[(path, "with")]
        blocking = (f"{a['blocking']:.0f} ({sa[0]:.0f}–{sa[1]:.0f}) → "
                    f"{b['blocking']:.0f} ({sb[0]:.0f}–{sb[1]:.0f}) ms")
        cells = [f"{a[m]:.0f} → {b[m]:.0f} ms" if m != "blocking" else blocking for m in METRICS]
        lines.append(f"| `{path}` | " + " | ".join(cells) + " |")
    ratio = {m: total[("with", m)] / total[("without", m)] if total[("without", m)] else float("nan") for m in METRICS}
    lines += ["", "Over all pages, with the hint against without (sums of the medians): "
              + ", ".join(f"{m} {ratio[m]:.2f}x" for m in METRICS) + "."]
    print(lines[-1])
    if not args.only:
        REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
