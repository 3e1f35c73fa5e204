"""A content-hash cache for build outputs that depend only on their inputs.

Rendered math, diagrams, link-preview cards and reading times are stored once under a key made of
every input that decides them (and the version of the tool that made them), and reused by later
builds and every `mkdocs serve` rebuild. The folder is outside docs/ (MkDocs would watch it and
publish it): ``.cache/build/<kind>/`` beside mkdocs.yml unless the plugin's ``cache_dir`` says
otherwise. A disabled cache makes everything afresh, which is how the tests show that a cached
build and an uncached one are byte-identical.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def key(*parts: str | bytes) -> str:
    """A key from every input that decides the output: content, options, tool version."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))  # length-prefixed: ("ab", "c") != ("a", "bc")
        digest.update(data)
    return digest.hexdigest()


class Cache:
    """One kind of output (``math``, ``diagrams``, ``cards``...), one file per key."""

    def __init__(self, folder: Path, kind: str, on: bool = True) -> None:
        self.folder = folder / kind
        self.on = on
        self.hits = self.misses = 0

    def _path(self, name: str, suffix: str) -> Path:
        return self.folder / name[:2] / f"{name}{suffix}"

    def get(self, name: str, suffix: str = "") -> bytes | None:
        try:
            data = self._path(name, suffix).read_bytes() if self.on else None
        except OSError:
            data = None
        if data is None:
            self.misses += 1
        else:
            self.hits += 1
        return data

    def put(self, name: str, data: bytes, suffix: str = "") -> None:
        if not self.on:
            return
        path = self._path(name, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole, then renamed: a build stopped half-way never leaves a torn entry.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
