"""What V8's compile hint on Material's bundle saves on the page's main thread (a benchmark, not a CI test).

hooks/hint_eager_compile.py starts Material's bundle with ``//# allFunctionsCalledOnLoad``, so V8
compiles its functions on the thread that streams the file in instead of on the main thread at each
function's first call. This script builds the site (or takes --site-dir), makes a copy whose bundle
is Material's own file (no hint), serves both gzip-encoded on 127.0.0.1 and loads each page cold in
Debian's chromium at a phone's viewport with the CPU slowed 4x (as Lighthouse's mobile preset
assumes), the two copies interleaved, RUNS times. From each load's trace it reads:

- *lazy compile*: main-thread time inside V8's on-demand compilation of a function (V8.CompileCode,
  V8.ParseFunction, V8.PreParse, overlaps counted once);
- *blocking*: for every main-thread task that began after the first contentful paint, its time
  beyond 50 ms, summed (Lighthouse's blocking time, on the observed trace rather than simulated).

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

REPORT = ROOT / "benchmarks" / "eager-compile-report.md"
BUNDLE_GLOB = "assets/javascripts/bundle.*.min.js"
CATEGORIES = ["toplevel", "devtools.timeline", "v8", "disabled-by-default-v8.compile", "loading"]
COMPILE_EVENTS = {"V8.CompileCode", "V8.ParseFunction", "V8.PreParse"}
TASK_EVENTS = {"ThreadControllerImpl::RunTask", "RunTask"}
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
    """Lazy compile and blocking time on the page's main thread, from one load's trace events."""
    threads = {(e["pid"], e["tid"]) for e in events
               if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    paints = [e["ts"] for e in events if e.get("name") == "firstContentfulPaint"]
    if not paints:
        raise RuntimeError("the trace has no first contentful paint")
    main = [e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in threads]
    compile_ms = covered_ms([(e["ts"], e["ts"] + e["dur"]) for e in main if e["name"] in COMPILE_EVENTS])
    blocking = sum(max(0.0, e["dur"] / 1000 - LONG_TASK_MS) for e in main
                   if e["name"] in TASK_EVENTS and e["ts"] >= min(paints))
    return {"compile": compile_ms, "blocking": blocking}


def trace_load(browser, url: str) -> dict[str, float]:
    """Load url cold in a new context (phone viewport, CPU slowed) and summarise its trace."""
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url, wait_until="load")
        page.wait_for_timeout(1500)  # the DOMContentLoaded mounts and what they schedule
        return summarise(json.loads(browser.stop_tracing())["traceEvents"])
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
                    for name, base in (("without", without), ("with", with_hint)):
                        r = trace_load(browser, base + path)
                        results.setdefault((path, name), []).append(r)
                        print(f"{run} {path} {name} hint: compile {r['compile']:.0f} ms, "
                              f"blocking {r['blocking']:.0f} ms", flush=True)
            browser.close()
    med = {k: {m: statistics.median(r[m] for r in rs) for m in ("compile", "blocking")} for k, rs in results.items()}
    total = {(name, m): sum(med[(path, name)][m] for path in paths) for name in ("without", "with")
             for m in ("compile", "blocking")}
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Compile hint on Material's bundle: main-thread time with and without",
        "",
        f"Written by `python benchmarks/eager_compile.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {chromium}, "
        f"headless, {PHONE['width']}x{PHONE['height']} viewport, CPU slowed {CPU_SLOWDOWN}x, cold loads of the real "
        f"site served gzip-encoded on 127.0.0.1, the copy with the hint and the copy without interleaved, "
        f"{args.runs} runs per page, medians. Machine: {platform.machine()}, {os.cpu_count()} cores. "
        "*Lazy compile*: main-thread time in V8's on-demand compilation of functions. *Blocking*: main-thread "
        f"time beyond {LONG_TASK_MS} ms of each task that began after the first contentful paint (observed).",
        "",
        "| page | lazy compile without | with | blocking without | with |",
        "|---|---|---|---|---|",
    ]
    for path in paths:
        a, b = med[(path, "without")], med[(path, "with")]
        lines.append(f"| `{path}` | {a['compile']:.0f} ms | {b['compile']:.0f} ms | "
                     f"{a['blocking']:.0f} ms | {b['blocking']:.0f} ms |")
    ratios = {m: total[("with", m)] / total[("without", m)] if total[("without", m)] else float("nan")
              for m in ("compile", "blocking")}
    lines += ["", f"Over all pages, with the hint against without (sums of the medians): lazy compile "
              f"{ratios['compile']:.2f}x, blocking {ratios['blocking']:.2f}x."]
    print(lines[-1])
    if not args.only:
        REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
