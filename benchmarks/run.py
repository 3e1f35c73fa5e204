"""Build benchmark: the real configuration against a bare Material blog, same posts, one run.

    python benchmarks/run.py --sizes 10 100 1000 [--repeats 3] [--serve-size 100] [--report PATH]

(``make benchmark`` runs it.) For each size N it generates a site (benchmarks/generate.py), then
builds it with the real mkdocs.yml and with bare.yml, alternating (real, bare, real, bare, ...), each
build a fresh ``mkdocs build`` process. The first real build starts from an empty build cache
(cold); the later ones reuse it, as an author's next build does. Per build it records CPU time
(user + system of the process and its children, from ``os.wait4``), wall time and peak resident
memory. It reports medians, the spread (min-max) and the ratio real/bare of the median CPU times
(CPU, not wall: the machine is shared, so wall times carry other people's work).

Then, at N = --serve-size, it starts ``mkdocs serve`` on the real configuration as ``make serve``
does, edits one post (a new sentence in its body) and measures the time from the save to the first
response for that post's page that contains the new sentence; several edits, several posts.

The report (method and tables) is written to --report (default benchmarks/report.md), the raw
numbers beside it as results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

sys.path.insert(0, str(HERE.parent / "tests"))
from support import fetch_text, free_port  # noqa: E402

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
ENV.pop("SOURCE_DATE_EPOCH", None)  # each site's own last commit (the plugin reads it)


def use_cache(config: Path, cache: Path) -> None:
    """Point the site's plugin at a build cache folder of its own (its `cache_dir` option)."""
    text = config.read_text(encoding="utf-8")
    entry = re.compile(r"^  - mlblog(:\n(?:      .*\n)*|\n)", re.M)
    found = entry.search(text)
    if found:  # keep the entry's other options (benchmarks/ablation.py sets some)
        options = [line for line in found.group(1).splitlines()[1:] if not line.startswith("      cache_dir:")]
        block = "".join(f"{line}\n" for line in options)
        line = f"  - mlblog:\n{block}      cache_dir: {json.dumps(str(cache))}\n"
        config.write_text(entry.sub(lambda _: line, text, count=1), encoding="utf-8")


def build(site: Path, config: str, cache: Path) -> dict[str, float]:
    """One `mkdocs build` in its own process: CPU seconds, wall seconds, peak RSS in MiB."""
    use_cache(site / config, cache)
    env = ENV
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(site / config), "-d",
               str(site / f"site-{config.removesuffix('.yml')}")]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{config} failed on {site}:\n{stderr[-4000:]}")
    # ru_maxrss is in KiB on Linux; it is the largest of the process and its waited-for children.
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mib": usage.ru_maxrss / 1024}


def summary(runs: list[dict[str, float]], key: str) -> dict[str, float]:
    values = [run[key] for run in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def serve_latency(site: Path, cache: Path, edits: int = 3) -> list[float]:
    """Seconds from saving an edited post to `mkdocs serve` serving the edit, for several edits."""
    port = free_port()
    use_cache(site / "mkdocs.yml", cache)
    env = ENV
    log = tempfile.TemporaryFile()
    command = [sys.executable, "-m", "mkdocs", "serve", "-f", str(site / "mkdocs.yml"),
               "--dev-addr", f"127.0.0.1:{port}", "--livereload"]  # as `make serve` runs it
    server = subprocess.Popen(command, cwd=site, env=env, stdout=log, stderr=subprocess.STDOUT)
    latencies = []
    try:
        posts = sorted((site / "docs" / "blog" / "posts").glob("*.md"))
        first = f"http://127.0.0.1:{port}/blog/"
        deadline = time.monotonic() + 900
        while fetch_text(first) is None:
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise SystemExit("mkdocs serve did not start:\n" + log.read().decode()[-4000:])
            time.sleep(0.5)
        for edit in range(edits):
            path = posts[(len(posts) // 2 + edit * 7) % len(posts)]
            index = int(path.stem.rsplit("-", 1)[1])
            url = f"http://127.0.0.1:{port}/blog/{generate.post_day(index):%Y/%m/%d}/{path.stem}/"
            token = f"Benchmark edit {edit} at {time.time_ns()}."
            time.sleep(1.5)  # let the watcher settle after the previous build
            text = path.read_text(encoding="utf-8").replace("<!-- more -->", f"<!-- more -->\n\n{token}", 1)
            start = time.perf_counter()
            path.write_text(text, encoding="utf-8")
            while True:
                page = fetch_text(url)
                if page is not None and token in page:
                    break
                if time.perf_counter() - start > 300:
                    raise SystemExit(f"the edit of {path.name} was not served within 300 s")
                time.sleep(0.05)
            latencies.append(time.perf_counter() - start)
    finally:
        server.terminate()
        server.wait(timeout=60)
    return latencies


def run(sizes: list[int], repeats: int, big_repeats: int, serve_size: int | None, work: Path) -> dict:
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                 "load_before": os.getloadavg()}, "sizes": {}}
    for size in sizes:
        site = work / f"n{size}"
        cache = work / f"cache-{size}"
        generate.generate(site, size)
        subprocess.run(["rm", "-rf", str(cache)], check=True)
        count = repeats if size < 1000 else big_repeats
        real, bare, cold = [], [], None
        for round_ in range(count + (1 if count > 1 else 0)):
            # Alternate which goes first, so a change in the machine's load hits both alike.
            order = ("mkdocs.yml", "bare.yml") if round_ % 2 == 0 else ("bare.yml", "mkdocs.yml")
            if round_ == count:  # the extra round: one more real build, after the cold one
                order = ("mkdocs.yml",)
            for config in order:
                result = build(site, config, cache)
                if config == "bare.yml":
                    bare.append(result)
                elif cold is None:
                    cold = result  # the medians are of warm builds, unless there is only one
                else:
                    real.append(result)
                print(f"N={size} {config:10} cpu {result['cpu']:7.2f} s  wall {result['wall']:7.2f} s  "
                      f"rss {result['rss_mib']:6.0f} MiB", flush=True)
        if not real:
            real = [cold]
        entry = {"real": {k: summary(real, k) for k in ("cpu", "wall", "rss_mib")},
                 "bare": {k: summary(bare, k) for k in ("cpu", "wall", "rss_mib")},
                 "real_cold": cold, "runs": {"real": real, "bare": bare}}
        entry["ratio_cpu"] = entry["real"]["cpu"]["median"] / entry["bare"]["cpu"]["median"]
        entry["ratio_wall"] = entry["real"]["wall"]["median"] / entry["bare"]["wall"]["median"]
        entry["ratio_cold_cpu"] = cold["cpu"] / entry["bare"]["cpu"]["median"]
        results["sizes"][str(size)] = entry
        print(f"N={size}: ratio (CPU, medians) {entry['ratio_cpu']:.2f}, cold {entry['ratio_cold_cpu']:.2f}",
              flush=True)
        if size == serve_size:
            results["serve"] = {"size": size, "latencies": serve_latency(site, cache)}
            print(f"serve at N={size}: {results['serve']['latencies']}", flush=True)
        if size >= 1000:
            subprocess.run(["rm", "-rf", str(site)], check=True)
    results["machine"]["load_after"] = os.getloadavg()
    return results


def report(results: dict) -> str:
    lines = [
        "# Build benchmark: the real site against a bare Material blog",
        "",
        "Written by `make benchmark` (benchmarks/run.py); the raw numbers are in results.json.",
        "",
        "## Method",
        "",
        "- **Posts**: benchmarks/generate.py writes N synthetic long posts shaped like the real ones "
        f"(about 55 kB of Markdown each, {generate.SECTIONS} sections with code in Python, C++, Bash and YAML, "
        "tables, inline and display math, admonitions, collapsible blocks, tabs, a Mermaid diagram in every "
        "fourth post, a link to the previous post; front matter that passes mlblog/posts/schema.py) into a git "
        "repository with one commit per post.",
        "- **Real**: the repository's own mkdocs.yml, its plugin package, templates and plugins (strict, validation, "
        "feeds, "
        "git dates, cards, redirects, every check), which now includes math and diagrams rendered at build time "
        "(KaTeX in one Node process, Mermaid in Chromium, both cached) and Pagefind search (the pagefind "
        "binary indexing the built site), with the build cache in a folder of its own. "
        "The first real build of each N starts from an empty cache (*cold*); the others reuse it, as an "
        "author's next build does.",
        "- **Bare**: Material's blog as it comes over the same posts: the `search` and `blog` plugins "
        "(`post_url_format` as ours), the same `markdown_extensions` (copied from mkdocs.yml), not the site's plugin, "
        "no custom templates.",
        "- **Runs**: one `mkdocs build` process per build, real and bare alternating within one run "
        "(the order swaps each round). CPU time is user + system of the build process and its children "
        "(`os.wait4`); peak memory is its `ru_maxrss`. The ratio is real/bare of the median CPU times: the "
        "machine's 2 cores are shared with other work, so wall times carry noise that CPU times mostly do not.",
        "- **Preview**: `mkdocs serve --livereload` on the real configuration (what `make serve` runs) at "
        "N = the serve size; after its first build, one post gets a new sentence and the time is taken from "
        "the save to the first response for that post's page that contains it (a browser's reload adds "
        "its own fetch, a few milliseconds on localhost).",
        "",
        f"Machine: {results['machine']['cpus']} CPUs, Python {results['machine']['python']}, load average "
        f"{results['machine']['load_before'][0]:.1f} before and {results['machine']['load_after'][0]:.1f} after.",
        "",
        "## Results",
        "",
        "| N | real CPU s, median (min-max) | bare CPU s, median (min-max) | ratio (CPU) | ratio (wall) "
        "| real cold CPU s (ratio) | peak RSS real / bare MiB | runs each |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, entry in results["sizes"].items():
        real, bare = entry["real"], entry["bare"]
        lines.append(
            f"| {size} | {real['cpu']['median']:.1f} ({real['cpu']['min']:.1f}-{real['cpu']['max']:.1f}) "
            f"| {bare['cpu']['median']:.1f} ({bare['cpu']['min']:.1f}-{bare['cpu']['max']:.1f}) "
            f"| **{entry['ratio_cpu']:.2f}** | {entry['ratio_wall']:.2f} "
            f"| {entry['real_cold']['cpu']:.1f} ({entry['ratio_cold_cpu']:.2f}) "
            f"| {real['rss_mib']['max']:.0f} / {bare['rss_mib']['max']:.0f} "
            f"| {real['cpu']['n']} / {bare['cpu']['n']} |")
    sizes = [int(s) for s in results["sizes"]]
    if len(sizes) > 1:
        per_post = [results["sizes"][str(s)]["real"]["cpu"]["median"] / s for s in sizes]
        lines += ["", "Real CPU seconds per post: " + ", ".join(
            f"{p:.3f} at N = {s}" for s, p in zip(sizes, per_post, strict=True)) + "."]
    if "serve" in results:
        serve = results["serve"]
        lines += ["", f"Preview at N = {serve['size']}: save to served edit in "
                  + ", ".join(f"{x:.2f} s" for x in serve["latencies"])
                  + f" (median {statistics.median(serve['latencies']):.2f} s)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeats", type=int, default=3, help="builds of each configuration per size")
    parser.add_argument("--big-repeats", type=int, default=1, help="the same, for N of 1000 and more")
    parser.add_argument("--serve-size", type=int, default=100, help="N for the preview latency (0: skip)")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "benchmark")
    parser.add_argument("--report", type=Path, default=HERE / "report.md")
    parser.add_argument("--serve-only", action="store_true",
                        help="measure only the preview at --serve-size, into the existing results.json")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.serve_only:
        results = json.loads((args.report.parent / "results.json").read_text(encoding="utf-8"))
        site, cache = args.work.resolve() / f"serve-n{args.serve_size}", args.work.resolve() / "cache-serve"
        generate.generate(site, args.serve_size)
        subprocess.run(["rm", "-rf", str(cache)], check=True)
        results["serve"] = {"size": args.serve_size, "latencies": serve_latency(site, cache)}
        print(f"serve at N={args.serve_size}: {results['serve']['latencies']}", flush=True)
    else:
        results = run(args.sizes, args.repeats, args.big_repeats, args.serve_size or None, args.work.resolve())
    (args.report.parent / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    args.report.write_text(report(results), encoding="utf-8")
    print(f"wrote {args.report}")


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
