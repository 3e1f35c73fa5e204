"""Does each speed mechanism earn its place? Every one measured with and without it, in one run.

    python benchmarks/ablation.py build [--size 100] [--repeats 3]     # build CPU and save-to-reload
    python benchmarks/ablation.py pages [--runs 3]                     # Lighthouse on every page

A variant is the site with one mechanism taken out (its switch under the plugin's ``speed`` options
turned off, or a line of mkdocs.yml changed), everything else as it is. ``build`` generates
the benchmark site (benchmarks/generate.py, N posts) and, per variant, measures the CPU of a warm
``mkdocs build`` (user + system of the process and its children; builds interleaved across variants,
each variant with its own warmed build cache) and the time from saving a post to ``mkdocs serve``
serving it; a bare Material build of the same posts is the reference for the CPU ratio. ``pages``
builds the real site once per variant and runs Lighthouse (the pinned one in benchmarks/lighthouse/)
on every post and listing page of each, interleaved (page by page, variant by variant, run by run),
with the default-Material reference page first and last. Each writes its table into
benchmarks/ablation-report.md (the two sections are rewritten separately) and its raw numbers into
benchmarks/ablation-<part>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
import generate  # noqa: E402
import lighthouse  # noqa: E402
from browser import serve  # noqa: E402
from run import build, serve_latency  # noqa: E402

REPORT = HERE / "ablation-report.md"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


@dataclass(frozen=True)
class Variant:
    """The site without one mechanism: plugin options set under ``- mlblog:`` in mkdocs.yml
    (mlblog/config.py), override files deleted, literal edits to files (path -> (old, new))."""

    name: str
    what: str
    options: dict[str, object] = field(default_factory=dict)
    delete: tuple[str, ...] = ()
    edits: dict[str, tuple[str, str]] = field(default_factory=dict)

    def apply(self, root: Path) -> dict[str, str]:
        """Make this variant out of a copy of the site at root; the environment it builds with."""
        config = root / "mkdocs.yml"
        text = config.read_text(encoding="utf-8")
        if self.options:
            entry = "  - mlblog:\n" + "".join(f"      {k}: {json.dumps(v)}\n" for k, v in self.options.items())
            assert PLUGIN_ENTRY.search(text), f"{self.name}: no `- mlblog` entry in mkdocs.yml"
            text = PLUGIN_ENTRY.sub(lambda _: entry, text, count=1)
        config.write_text(text, encoding="utf-8")
        for path in self.delete:
            (root / path).unlink()
        for path, (old, new) in self.edits.items():
            file = root / path
            content = file.read_text(encoding="utf-8")
            assert old in content, f"{self.name}: {old!r} is not in {path}"
            file.write_text(content.replace(old, new, 1), encoding="utf-8")
        return ENV


PLUGIN_ENTRY = re.compile(r"^  - mlblog(:\n(?:      .*\n)*|\n)", re.M)


def off(mechanism: str) -> dict[str, object]:
    return {"speed": {mechanism: False}}


BUILD_VARIANTS = [
    Variant("all", "every mechanism on"),
    Variant("defer_excerpts", "listings convert each excerpt only when a template reads it", off("defer_excerpts")),
    Variant("reuse_renders", "serve: an unchanged page's Markdown is not converted again", off("reuse_renders")),
    Variant("build_cache", "cards, reading times, math, diagrams, chunks kept by content hash", {"cache": False}),
    Variant("background_index", "serve: Pagefind indexes after the reload, not before", off("background_index")),
    Variant("reuse_scans", "serve: an unchanged page is not scanned for external loads again", off("reuse_scans")),
]
PAGE_VARIANTS = [
    Variant("all", "every mechanism on"),
    Variant("offscreen_chunks", "long posts: prose past the first screens in content-visibility chunks",
            off("offscreen_chunks")),
    Variant("compile_hint", "V8 compile hint at the top of Material's bundle", off("compile_hint")),
    Variant("minify_scripts", "the site's own scripts minified", off("minify_scripts")),
    Variant("search_defer", "search.js deferred", edits={"mkdocs.yml": ("    defer: true\n", "    defer: false\n")}),
    Variant("content_lazy", "Material mounts code blocks once on screen (content.lazy)",
            edits={"mkdocs.yml": ("    - content.lazy", "    # - content.lazy")}),
]


def copy_site(dest: Path) -> Path:
    """The repository's site sources (no posts' build output, no caches) in dest."""
    ignore = shutil.ignore_patterns(".git", ".venv", "node_modules", "site", ".cache", "__pycache__", "benchmarks",
                                    "tests", "screenshots")
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    return dest


# ---------------------------------------------------------------------------------------------
# Build CPU and save-to-reload
# ---------------------------------------------------------------------------------------------

def measure_builds(size: int, repeats: int, work: Path) -> dict:
    site = work / f"site-{size}"
    if not site.exists():
        generate.generate(site, size)
    base = (site / "mkdocs.yml").read_text(encoding="utf-8")
    for variant in BUILD_VARIANTS:
        (site / "mkdocs.yml").write_text(base, encoding="utf-8")
        variant.apply(site)
        (site / f"{variant.name}.yml").write_text((site / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (site / "mkdocs.yml").write_text(base, encoding="utf-8")
    results: dict[str, dict] = {v.name: {"cpu": [], "serve": []} for v in BUILD_VARIANTS}
    results["bare"] = {"cpu": [], "serve": []}

    def one(name: str) -> float:
        config = "bare.yml" if name == "bare" else f"{name}.yml"
        return build(site, config, work / "cache" / name)["cpu"]

    names = [v.name for v in BUILD_VARIANTS] + ["bare"]
    for name in names:  # warm every variant's cache (and the disk cache) once, unmeasured
        one(name)
    for round_ in range(repeats):
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            results[name]["cpu"].append(one(name))
            print(f"build {name}: {results[name]['cpu'][-1]:.1f} s", flush=True)
    for variant in BUILD_VARIANTS:
        (site / "mkdocs.yml").write_text((site / f"{variant.name}.yml").read_text(encoding="utf-8"), encoding="utf-8")
        results[variant.name]["serve"] = serve_latency(site, work / "cache" / variant.name)
        print(f"serve {variant.name}: {results[variant.name]['serve']}", flush=True)
    (site / "mkdocs.yml").write_text(base, encoding="utf-8")
    return {"size": size, "repeats": repeats, "results": results}


def build_table(data: dict) -> list[str]:
    res = data["results"]
    bare = statistics.median(res["bare"]["cpu"])
    base_cpu = statistics.median(res["all"]["cpu"])
    base_serve = statistics.median(res["all"]["serve"])
    noise_cpu = (max(res["all"]["cpu"]) - min(res["all"]["cpu"])) / 2
    noise_serve = (max(res["all"]["serve"]) - min(res["all"]["serve"])) / 2
    lines = [f"Warm `mkdocs build` CPU at N = {data['size']} (median of {data['repeats']} interleaved builds, "
             f"min-max) and `mkdocs serve` save-to-served (median of its edits). Bare Material on the same "
             f"posts: {bare:.1f} s CPU. Noise is half the spread of the all-on variant's runs: "
             f"{noise_cpu:.1f} s CPU, {noise_serve:.2f} s serve.", "",
             "| without | what it does | build CPU s | vs all on | ratio to bare | save-to-served s | vs all on |",
             "|---|---|---|---|---|---|---|"]
    for variant in BUILD_VARIANTS:
        cpu, served = res[variant.name]["cpu"], res[variant.name]["serve"]
        label = "(nothing: all on)" if variant.name == "all" else f"`{variant.name}`"
        lines.append(f"| {label} | {variant.what} | {statistics.median(cpu):.1f} ({min(cpu):.1f}-{max(cpu):.1f}) "
                     f"| {statistics.median(cpu) - base_cpu:+.1f} | {statistics.median(cpu) / bare:.2f} "
                     f"| {statistics.median(served):.2f} | {statistics.median(served) - base_serve:+.2f} |")
    return lines


# ---------------------------------------------------------------------------------------------
# Lighthouse on every page
# ---------------------------------------------------------------------------------------------

def measure_pages(runs: int, work: Path, only: str | None) -> dict:
    cli = lighthouse.install()
    sites = {}
    for variant in PAGE_VARIANTS:
        source = copy_site(work / "src" / variant.name)
        env = variant.apply(source)
        out = work / "built" / variant.name
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
                       cwd=source, env=env, check=True)
        sites[variant.name] = out
        print(f"built {variant.name}", flush=True)
    pages = [p for p in lighthouse.pages(sites["all"]) if not only or only in p[1]]
    reference = lighthouse.build_reference(work / "reference")
    results: dict = {"reference": [], **{v.name: {path: [] for _, path in pages} for v in PAGE_VARIANTS}}

    def ref() -> None:
        with serve(reference, compress=True) as base:
            for _ in range(runs):
                results["reference"].append(lighthouse.lighthouse(cli, base + "/", work / "run.json"))

    ref()
    for _kind, path in pages:
        for round_ in range(runs):
            order = PAGE_VARIANTS[round_ % len(PAGE_VARIANTS):] + PAGE_VARIANTS[:round_ % len(PAGE_VARIANTS)]
            for variant in order:
                with serve(sites[variant.name], compress=True) as base:
                    run = lighthouse.lighthouse(cli, base + path, work / "run.json")
                results[variant.name][path].append({k: run[k] for k in ("performance", "tbt", "lcp", "cls", "bytes")})
            print(f"{path} round {round_ + 1}: " + ", ".join(
                f"{v.name} {results[v.name][path][-1]['performance']}/{results[v.name][path][-1]['tbt']:.0f}"
                for v in PAGE_VARIANTS), flush=True)
    ref()
    return {"runs": runs, "pages": [{"kind": k, "path": p} for k, p in pages], "results": results}


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def pages_table(data: dict) -> list[str]:
    res = data["results"]
    paths = [p["path"] for p in data["pages"]]
    kinds = {p["path"]: p["kind"] for p in data["pages"]}
    ref = res["reference"]
    first, last = ref[: data["runs"]], ref[data["runs"]:]
    lines = [f"Lighthouse (mobile preset, simulated throttling), {data['runs']} runs per page and variant, "
             "interleaved; per page the median performance score and median TBT, then summed over pages as "
             f"the change against all-on. Reference page (default Material), first and last: performance "
             f"{median_of(first, 'performance'):.0f} / {median_of(last, 'performance'):.0f}, TBT "
             f"{median_of(first, 'tbt'):.0f} / {median_of(last, 'tbt'):.0f} ms.", ""]
    noise_tbt = statistics.median(
        (max(r["tbt"] for r in res["all"][p]) - min(r["tbt"] for r in res["all"][p])) / 2 for p in paths)
    noise_perf = statistics.median(
        (max(r["performance"] for r in res["all"][p]) - min(r["performance"] for r in res["all"][p])) / 2
        for p in paths)
    lines += [f"Noise (all on, median over pages of half the runs' spread): {noise_perf:.1f} points, "
              f"{noise_tbt:.0f} ms TBT.", "",
              "| without | what it does | listings perf (min) | posts perf (min) | posts TBT median (max) "
              "| Δ perf summed over pages | Δ TBT median over pages | bytes Δ median |",
              "|---|---|---|---|---|---|---|---|"]
    for variant in PAGE_VARIANTS:
        r = res[variant.name]
        listing = [median_of(r[p], "performance") for p in paths if kinds[p] == "listing"]
        post = [median_of(r[p], "performance") for p in paths if kinds[p] == "post"]
        tbt = [median_of(r[p], "tbt") for p in paths if kinds[p] == "post"]
        d_perf = sum(median_of(r[p], "performance") - median_of(res["all"][p], "performance") for p in paths)
        d_tbt = statistics.median(median_of(r[p], "tbt") - median_of(res["all"][p], "tbt") for p in paths)
        d_bytes = statistics.median(median_of(r[p], "bytes") - median_of(res["all"][p], "bytes") for p in paths)
        label = "(nothing: all on)" if variant.name == "all" else f"`{variant.name}`"
        lines.append(f"| {label} | {variant.what} | {statistics.median(listing) if listing else 0:.0f} "
                     f"({min(listing, default=0):.0f}) | {statistics.median(post) if post else 0:.0f} "
                     f"({min(post, default=0):.0f}) | {statistics.median(tbt) if tbt else 0:.0f} "
                     f"({max(tbt, default=0):.0f}) | {d_perf:+.0f} | {d_tbt:+.0f} ms | {d_bytes / 1024:+.1f} KB |")
    return lines


def write_section(part: str, lines: list[str]) -> None:
    start, end = f"<!-- {part}:start -->", f"<!-- {part}:end -->"
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else (
        "# Does each speed mechanism earn its place?\n\nWritten by benchmarks/ablation.py; the notes at the end "
        "are by hand.\n\n## Build\n\n<!-- build:start -->\n<!-- build:end -->\n\n## Pages\n\n"
        "<!-- pages:start -->\n<!-- pages:end -->\n\n## Notes\n")
    stamp = (f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end.")
    body = "\n".join([start, stamp, "", *lines, end])
    text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: body, text, flags=re.S)
    REPORT.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("build", "pages"))
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", help="pages: only URL paths containing this")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "ablation")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.part == "build":
        data = measure_builds(args.size, args.repeats, args.work)
        lines = build_table(data)
    else:
        with tempfile.TemporaryDirectory(dir=args.work) as tmp:
            data = measure_pages(args.runs, Path(tmp), args.only)
        lines = pages_table(data)
    (HERE / f"ablation-{args.part}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    write_section(args.part, lines)
    print("\n".join(lines))
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
