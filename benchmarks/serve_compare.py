"""Save-to-served of `mkdocs serve` with the plugin of two commits, interleaved on one generated site.

A change to the plugin that should make serve rebuilds faster is measured here against the commit
before it, in one run (this machine is noisy): both commits' ``mlblog/`` are extracted with
``git archive`` and put first on PYTHONPATH in turn, over rounds that alternate which goes first.

    .venv/bin/python benchmarks/serve_compare.py c01f064 c87c157 --size 100 --rounds 2 --edits 4
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
import generate  # noqa: E402
import run  # noqa: E402


def extract(commit: str, dest: Path) -> None:
    """The plugin package as it is at the commit, under dest/mlblog."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit, "mlblog"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def imported_from(folder: Path, cwd: Path) -> Path:
    """Where `mkdocs serve` would import the plugin from, with folder first on PYTHONPATH: it must be
    folder (from the repository's own folder, the editable install would win)."""
    env = {**run.ENV, "PYTHONPATH": str(folder)}
    done = subprocess.run([sys.executable, "-c", "import mlblog.plugin; print(mlblog.plugin.__file__)"], env=env,
                          cwd=cwd, capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--size", type=int, default=100, help="generated posts")
    parser.add_argument("--rounds", type=int, default=2, help="each round serves both, in alternating order")
    parser.add_argument("--edits", type=int, default=4, help="saved edits per serve")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work_dir = Path(work)
        commits = {"before": args.before, "after": args.after}
        for name, commit in commits.items():
            extract(commit, work_dir / name)
        site = work_dir / "site"
        generate.generate(site, args.size)
        for name in commits:
            found = imported_from(work_dir / name, site)
            if not found.is_relative_to(work_dir / name):
                raise SystemExit(f"serve would import the plugin from {found}, not from {work_dir / name}")
        latencies: dict[str, list[float]] = {name: [] for name in commits}
        for round_ in range(args.rounds):
            for name in (("before", "after") if round_ % 2 == 0 else ("after", "before")):
                run.ENV["PYTHONPATH"] = str(work_dir / name)  # ahead of the editable install's finder
                found = run.serve_latency(site, work_dir / f"cache-{name}", edits=args.edits)
                latencies[name] += found
                print(f"round {round_ + 1}, {name} ({commits[name]}): {', '.join(f'{s:.2f}' for s in found)} s",
                      flush=True)
    for name, found in latencies.items():
        print(f"{name} ({commits[name]}): median {statistics.median(found):.2f} s of {len(found)} edits, "
              f"{min(found):.2f}-{max(found):.2f}")
    ratio = statistics.median(latencies["after"]) / statistics.median(latencies["before"])
    print(f"after / before: {ratio:.2f}")


if __name__ == "__main__":
    main()
