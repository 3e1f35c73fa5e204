"""One ``git log`` per build answers the git-revision-date plugin, which asks git about each page.

mkdocs-git-revision-date-localized runs ``git log --follow`` twice per page and ``git tag
--points-at`` per commit; each walks the history, so the cost grows with posts × commits. One
``git log -M --name-status`` and one ``git for-each-ref`` fill the plugin's own caches
(``last_revision_commits``, ``created_commits``, ``util.tag_cache``) with what its per-file commands
would answer. A file the log cannot answer for (uncommitted, outside the repository) is left to the
plugin and its fallbacks; when git fails, nothing is filled.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from ..contracts import GIT_DATES

COMMIT = "\x01"


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
        """As ``git log --follow --diff-filter=r -n 1 -- path``: a pure rename does not count."""
        return next((self.commits[index] for index, status in self._walk(path) if status != "R"), None)

    def creation(self, path: str) -> tuple[str, int] | None:
        """As the oldest line of ``git log --follow --diff-filter=Ar -- path``."""
        added = [index for index, status in self._walk(path) if status == "A"]
        return self.commits[added[-1]] if added else None


def git(folder: str, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=folder,
                                capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def tags_by_commit(folder: str) -> dict[str, str] | None:
    """The first tag (by name, as ``git tag --points-at`` lists them) pointing at each commit."""
    text = git(folder, "for-each-ref", "--sort=refname", "--format=%(objectname) %(*objectname) %(refname:short)",
                "refs/tags")
    if text is None:
        return None
    tags: dict[str, str] = {}
    for line in text.splitlines():
        target, peeled, name = line.split(" ", 2)
        tags.setdefault(peeled or target, name)
    return tags


def fill(files: Any, config: Any) -> int:
    """Fill the git-revision-date plugin's caches from one git log; how many pages were dated."""
    plugin = config.plugins.get(GIT_DATES)
    if (plugin is None or not plugin.config.get("enabled") or plugin.config.get("ignored_commits_file")
            or not plugin.config.get("enable_git_follow", True)):
        return 0
    docs = os.path.realpath(config.docs_dir)
    top = git(docs, "rev-parse", "--show-toplevel")
    text = git(docs, "log", "-M", "--name-status", "--no-show-signature", f"--format={COMMIT}%H %at")
    tags = tags_by_commit(docs)
    if top is None or text is None or tags is None:
        return 0  # not a repository, or git failed: the plugin asks per file, with its fallbacks
    top = os.path.realpath(top.strip())
    history = History(text)
    from mkdocs_git_revision_date_localized_plugin.plugin import exclude

    last, created = {}, {}
    for file in files.documentation_pages():
        if (getattr(file, "generated_by", None) or file.abs_src_path is None
                or exclude(file.src_path, plugin.config.get("exclude", []))):
            continue
        real = os.path.realpath(file.abs_src_path)
        if not real.startswith(top + os.sep):
            continue
        relative = Path(real).relative_to(top).as_posix()
        revision, creation = history.last_revision(relative), history.creation(relative)
        if revision is None or creation is None:
            continue  # uncommitted: the plugin's own call keeps its fallback
        key = str(Path(file.abs_src_path).absolute())
        last[key], created[key] = revision, creation
    if not last:
        return 0
    # The plugin's on_files computes only what it has not got; a rebuild under `mkdocs serve`
    # makes a new plugin instance, so this runs once per build.
    plugin.last_revision_commits.update(last)
    plugin.created_commits.update(created)
    for sha, _stamp in history.commits:
        plugin.util.tag_cache.setdefault(sha, tags.get(sha, ""))
    return len(last)
