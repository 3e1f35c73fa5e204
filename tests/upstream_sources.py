"""Upstream sources that tests read at test time, fetched from the package registry, never committed.

The blog's posts cite upstream files at pinned tags. Where a released package ships those files,
the tests read them from the package itself: torch's Python sources from the installed torch
2.13.0, flash-attn's C++ sources from its 2.8.3 sdist, which ``pip download`` fetches once into a
cache folder outside the repository (``$BLOG_UPSTREAM_CACHE``, default
``~/.cache/ml-systems-blog/upstream``).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import torch

CACHE = Path(os.environ.get("BLOG_UPSTREAM_CACHE",
                            Path.home() / ".cache" / "ml-systems-blog" / "upstream"))
TORCH_DIR = Path(torch.__file__).resolve().parent
TORCH_VERSION = "2.13.0"
FLASH_ATTN_VERSION = "2.8.3"


def torch_file(path: str) -> str | None:
    """Text of ``path`` (repository-relative, e.g. ``torch/_dynamo/eval_frame.py``) in the wheel."""
    if not path.startswith("torch/") or torch.__version__.split("+")[0] != TORCH_VERSION:
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
def _flash_attn_texts() -> dict[str, str]:
    """Every text file of the sdist under its repository-relative path, read in one pass."""
    sdist = flash_attn_sdist()
    if sdist is None:
        return {}
    prefix = f"flash_attn-{FLASH_ATTN_VERSION}/"
    texts = {}
    with tarfile.open(sdist) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith((".py", ".h", ".cpp", ".cu", ".md")):
                data = tar.extractfile(member).read()
                texts[member.name.removeprefix(prefix)] = data.decode("utf-8", "replace")
    return texts


def flash_attn_file(path: str) -> str | None:
    """Text of ``path`` (repository-relative, e.g. ``csrc/flash_attn/flash_api.cpp``) at v2.8.3."""
    return _flash_attn_texts().get(path)
