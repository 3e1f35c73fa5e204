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
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..posts.problems import Problem

Rendered = tuple[str | None, str | None]  # the output, or None and why


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


class Renderer:
    """One build's renders by one tool (math, diagrams): its cache, its counts and its problems."""

    OPTIONS: dict[str, Any] = {}  # the tool's options, part of every cache key
    SUFFIX = ""
    SUMMARY = ""  # formatted with count, rendered, version, seconds and hits
    version: str

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.problems: list[Problem] = []
        self.count = self.rendered = 0
        self.seconds = 0.0

    def cached(self, render: Callable[[], Rendered], *inputs: str) -> Rendered:
        """The output for ``inputs`` from the cache, else what ``render()`` makes (kept when it is one)."""
        name = key(*inputs, self.version, json.dumps(self.OPTIONS, sort_keys=True))
        data = self.cache.get(name, self.SUFFIX)
        if data is not None:
            return data.decode("utf-8"), None
        started = time.perf_counter()
        output, error = render()
        self.rendered += 1
        self.seconds += time.perf_counter() - started
        if output is not None:
            self.cache.put(name, output.encode("utf-8"), self.SUFFIX)
        return output, error

    def summary(self) -> str | None:
        if not self.count:
            return None
        return self.SUMMARY.format(count=self.count, rendered=self.rendered, version=self.version,
                                   seconds=self.seconds, hits=self.cache.hits)
