"""When each page last changed, from one ``git log`` of the repository: the "Last update" line under a
post or a page.

A page's date is the author time of the last commit that changed its source file, following renames,
read for every file from one log instead of git calls per page. A pure rename is no change (as
``git log --follow --diff-filter=r`` sees it); a rename with edits is one (that filter would skip it
too, and date the page by the commit before). The plugin dates a file git does not know (uncommitted,
outside the repository, or no repository at all) by the build (SOURCE_DATE_EPOCH, else the clock).
Dates are printed in UTC, with English month names.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

COMMIT = "\x01"
LOG_ARGS = ("log", "-M", "--name-status", "--no-show-signature", f"--format={COMMIT}%H %at")


class History:
    """Per path: the commits that changed it, newest first, as (index, status, old path)."""

    def __init__(self, log_text: str) -> None:
        self.commits: list[tuple[str, int]] = []
        self.changes: dict[str, list[tuple[int, str, str | None]]] = {}
        for line in log_text.splitlines():
            if line.startswith(COMMIT):
                sha, stamp = line[1:].split(" ")
                self.commits.append((sha, int(stamp)))
            elif line and self.commits:
                status, *paths = line.split("\t")
                index = len(self.commits) - 1
                if status.startswith("R") and len(paths) == 2:
                    old, new = paths
                    # R100 is a pure rename; R097 a rename with edits, which counts as a change.
                    self.changes.setdefault(new, []).append((index, "R" if status == "R100" else "M", old))
                elif len(paths) == 1:
                    self.changes.setdefault(paths[0], []).append((index, status[0], None))

    def _walk(self, path: str) -> list[tuple[int, str]]:
        """(commit index, status) of every change to path, following renames, newest first."""
        seen: list[tuple[int, str]] = []
        name: str | None = path
        after = -1  # commits are listed newest first: older ones have larger indices
        while name is not None:
            follow = None
            for index, status, old in self.changes.get(name, ()):
                if index > after:
                    seen.append((index, status))
                    if old is not None:
                        follow, after = old, index
                        break
            name = follow
        return seen

    def last_revision(self, path: str) -> tuple[str, int] | None:
        """The newest commit that changed path, following renames; a pure rename does not count."""
        return next((self.commits[index] for index, status in self._walk(path) if status != "R"), None)


def git(folder: Path, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=folder,
                                capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def last_changes(folder: Path, files: Iterable[Path]) -> dict[Path, int]:
    """For each file git knows: the author time (seconds since the epoch) of the last commit that changed it."""
    top = git(folder, "rev-parse", "--show-toplevel")
    text = git(folder, *LOG_ARGS) if top is not None else None
    if top is None or text is None:
        return {}  # not a repository (or one without commits): every page takes the build's date
    top_dir, history, found = Path(os.path.realpath(top.strip())), History(text), {}
    for file in files:
        real = Path(os.path.realpath(file))
        if real.is_relative_to(top_dir):
            revision = history.last_revision(real.relative_to(top_dir).as_posix())
            if revision is not None:
                found[file] = revision[1]
    return found


def last_update_html(stamp: int) -> str:
    """What the page prints after Material's "Last update" icon: the date, readable and machine-readable."""
    day = dt.datetime.fromtimestamp(stamp, dt.UTC)
    return f'<time class="last-update" datetime="{day:%Y-%m-%d}">{day:%B} {day.day}, {day.year}</time>'
