"""mlblog/render/cache.py: keys decided by every input, entries written whole, off means off."""

from __future__ import annotations

from pathlib import Path

from mlblog.render.cache import Cache, key


def test_keys_separate_their_parts() -> None:
    assert key("ab", "c") != key("a", "bc")
    assert key("x", b"y") == key(b"x", "y")


def test_round_trip_and_counts(tmp_path: Path) -> None:
    cache = Cache(tmp_path / ".cache" / "build", "math")
    name = key("E = mc^2")
    assert cache.get(name, ".html") is None
    cache.put(name, b"<span>E</span>", ".html")
    assert cache.get(name, ".html") == b"<span>E</span>"
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.folder == tmp_path / ".cache" / "build" / "math"
    assert not [p for p in cache.folder.rglob(".tmp-*")]


def test_off_means_nothing_is_kept_or_read(tmp_path: Path) -> None:
    Cache(tmp_path, "cards").put("k", b"png")
    off = Cache(tmp_path, "cards", on=False)
    off.put("k2", b"png")
    assert off.get("k") is None and off.get("k2") is None
    assert not (tmp_path / "cards" / "k2"[:2]).exists()
