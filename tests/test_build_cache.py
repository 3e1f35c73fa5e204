"""hooks/build_cache.py: keys decided by every input, entries written whole, off means off."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hooks"))
import build_cache  # noqa: E402


def test_keys_separate_their_parts() -> None:
    assert build_cache.key("ab", "c") != build_cache.key("a", "bc")
    assert build_cache.key("x", b"y") == build_cache.key(b"x", "y")


def test_round_trip_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(build_cache.ENVIRONMENT, raising=False)
    cache = build_cache.Cache("math", tmp_path)
    name = build_cache.key("E = mc^2")
    assert cache.get(name, ".html") is None
    cache.put(name, b"<span>E</span>", ".html")
    assert cache.get(name, ".html") == b"<span>E</span>"
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.folder == tmp_path.resolve() / ".cache" / "build" / "math"
    assert not [p for p in cache.folder.rglob(".tmp-*")]


def test_environment_names_the_folder_or_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build_cache.ENVIRONMENT, str(tmp_path / "elsewhere"))
    cache = build_cache.Cache("cards", tmp_path / "repo")
    cache.put("k", b"png")
    assert (tmp_path / "elsewhere" / "cards").is_dir()
    monkeypatch.setenv(build_cache.ENVIRONMENT, "off")
    off = build_cache.Cache("cards", tmp_path / "repo")
    off.put("k2", b"png")
    assert off.get("k") is None and off.get("k2") is None
    assert not (tmp_path / "repo" / ".cache").exists()
