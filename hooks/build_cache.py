"""A content-hash cache for build outputs that do not change between builds.

Rendered math, diagrams, link-preview cards and excerpts depend only on their input (and the
version of the tool that made them), so each is stored once under a key made from both and reused
by later builds and by every rebuild under `mkdocs serve`. The cache lives outside docs/ (MkDocs
would otherwise watch it and copy it into the site): <repo>/.cache/build/<kind>/, or the folder
named by ML_BLOG_BUILD_CACHE. ML_BLOG_BUILD_CACHE=off turns it off: every output is made afresh,
which is how the tests prove that a cached build and an uncached one are byte-identical.

Not a hook: modules that cache import it (hooks/ is on sys.path while MkDocs loads hooks).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

ENVIRONMENT = "ML_BLOG_BUILD_CACHE"


def key(*parts: str | bytes) -> str:
    """A key from every input that decides the output: content, options, tool version."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        # Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def enabled() -> bool:
    return os.environ.get(ENVIRONMENT, "").strip().lower() not in {"off", "0", "false", "no"}


def root(config_dir: str | Path) -> Path:
    named = os.environ.get(ENVIRONMENT, "").strip()
    if named and enabled():
        return Path(named).expanduser().resolve()
    return Path(config_dir).resolve() / ".cache" / "build"


class Cache:
    """One kind of output (``math``, ``diagrams``, ``cards``...), one file per key."""

    def __init__(self, kind: str, config_dir: str | Path) -> None:
        self.folder = root(config_dir) / kind
        self.on = enabled()
        self.hits = 0
        self.misses = 0

    def _path(self, name: str, suffix: str) -> Path:
        return self.folder / name[:2] / f"{name}{suffix}"

    def get(self, name: str, suffix: str = "") -> bytes | None:
        if not self.on:
            self.misses += 1
            return None
        try:
            data = self._path(name, suffix).read_bytes()
        except OSError:
            self.misses += 1
            return None
        self.hits += 1
        return data

    def put(self, name: str, data: bytes, suffix: str = "") -> None:
        if not self.on:
            return
        path = self._path(name, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole, then renamed: a build stopped half-way never leaves a torn entry that a
        # later build would trust.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
