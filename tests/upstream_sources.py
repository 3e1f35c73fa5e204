"""Upstream sources that tests read at test time, fetched from the package registry, never committed.

The blog's posts cite upstream files at pinned tags. Where a released package ships those files,
the tests read them from the package itself: torch's Python sources from the installed torch
2.13.0, flash-attn's sources from its 2.8.3 sdist, which ``pip download`` fetches once and which is
unpacked once into a cache folder outside the repository (``$BLOG_UPSTREAM_CACHE``, default
``~/.cache/ml-systems-blog/upstream``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import torch

CACHE = Path(os.environ.get("BLOG_UPSTREAM_CACHE",
                            Path.home() / ".cache" / "ml-systems-blog" / "upstream"))
TORCH_DIR = Path(torch.__file__).resolve().parent
TORCH_VERSION = "2.13.0"
FLASH_ATTN_VERSION = "2.8.3"


def torch_present() -> bool:
    """Whether the installed torch is the pinned release (its Python files are then the tag's)."""
    return torch.__version__.split("+")[0] == TORCH_VERSION


def torch_file(path: str) -> str | None:
    """Text of ``path`` (repository-relative, e.g. ``torch/_dynamo/eval_frame.py``) in the wheel."""
    if not path.startswith("torch/") or not torch_present():
        return None
    file = TORCH_DIR.parent / path
    return file.read_text(encoding="utf-8") if file.is_file() else None


@functools.cache
def flash_attn_sdist() -> Path | None:
    """The flash-attn 2.8.3 sdist, downloaded once with pip; None if the registry is unreachable."""
    CACHE.mkdir(parents=True, exist_ok=True)
    target = CACHE / f"flash_attn-{FLASH_ATTN_VERSION}.tar.gz"
    if target.is_file():
        return target
    # --no-build-isolation: pip prepares the sdist's metadata with the installed torch (its
    # setup.py imports torch); FLASH_ATTENTION_SKIP_CUDA_BUILD keeps that step from needing CUDA.
    env = {**os.environ, "FLASH_ATTENTION_SKIP_CUDA_BUILD": "TRUE"}
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-binary", ":all:", f"flash-attn=={FLASH_ATTN_VERSION}", "-d", str(CACHE)],
        capture_output=True, text=True, timeout=900, env=env, check=False)
    return target if proc.returncode == 0 and target.is_file() else None


@functools.cache
def flash_attn_tree() -> Path | None:
    """The sdist unpacked once next to it (its top folder, holding ``csrc/``, ``flash_attn/``...)."""
    sdist = flash_attn_sdist()
    if sdist is None:
        return None
    tree = CACHE / f"flash_attn-{FLASH_ATTN_VERSION}"
    if not (tree / "PKG-INFO").is_file():
        # Unpack into a temporary folder and move it into place, so that an interrupted run never
        # leaves a half-unpacked tree that looks complete.
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            with tarfile.open(sdist) as tar:
                tar.extractall(tmp, filter="data")
            shutil.rmtree(tree, ignore_errors=True)
            (Path(tmp) / tree.name).rename(tree)
    return tree


def flash_attn_file(path: str) -> str | None:
    """Text of ``path`` (repository-relative, e.g. ``csrc/flash_attn/flash_api.cpp``) at v2.8.3."""
    tree = flash_attn_tree()
    if tree is None:
        return None
    file = tree / path
    return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None


def flash_attn_ships(path: str) -> bool:
    """Whether the sdist should hold ``path``: its folder is in the sdist (so a miss is a wrong path)."""
    tree = flash_attn_tree()
    return tree is not None and (tree / path).parent.is_dir()


BLOG_CACHE = Path(os.environ.get("ML_DEEP_DIVES_CACHE", Path.home() / ".cache" / "ml-systems-blog"))


@functools.cache
def registry_wheel(requirement: str) -> Path:
    """The wheel of ``name==version`` from the package index, downloaded once into
    ``~/.cache/ml-systems-blog/<name>-<version>/`` (where the posts' companion code looks for it too).
    A wheel that cannot be had is an error naming it: nothing is skipped."""
    name, version = requirement.split("==")
    folder = BLOG_CACHE / f"{name}-{version}"
    stem = f"{name.replace('-', '_')}-{version}-"
    found = sorted(folder.glob(f"{stem}*.whl"))
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                               requirement, "-d", str(folder)], capture_output=True, text=True, timeout=1800)
        found = sorted(folder.glob(f"{stem}*.whl"))
        if not found:
            raise RuntimeError(f"could not download the {requirement} wheel from the package index:\n"
                               f"{proc.stderr[-1500:]}")
    return found[0]


def wheel_reader(requirement: str, prefixes: dict[str, str]) -> tuple:
    """(read, ships) over a repository's paths for a wheel that holds some of its files: ``prefixes`` maps
    a repository folder to its folder in the wheel (``src/transformers/`` -> ``transformers/``)."""
    def in_wheel(path: str) -> str | None:
        return next((inner + path[len(outer):] for outer, inner in prefixes.items() if path.startswith(outer)), None)

    @functools.cache
    def names() -> frozenset[str]:
        with zipfile.ZipFile(registry_wheel(requirement)) as zf:
            return frozenset(zf.namelist())

    def read(path: str) -> str | None:
        inner = in_wheel(path)
        if inner is None or inner not in names():
            return None
        with zipfile.ZipFile(registry_wheel(requirement)) as zf:
            return zf.read(inner).decode("utf-8", errors="replace")

    def ships(path: str) -> bool:  # a Python file under a shipped folder must be there
        return in_wheel(path) is not None and path.endswith(".py")

    return read, ships
