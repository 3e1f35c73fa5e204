"""One switch for the build's shortcuts (a helper module, not a hook).

The hooks that make the build faster without changing what it writes (hooks/defer_excerpts.py,
hooks/read_git_history.py, hooks/reuse_renders.py) all honour ML_BLOG_SPEEDUPS=off, which makes
the build take Material's and the plugins' own slow paths. The tests build the fixture site both
ways and compare the two byte for byte (tests/test_speed.py); the content-hash cache has its own
switch, ML_BLOG_BUILD_CACHE=off (hooks/build_cache.py). ``PageMemo`` keeps, within one process,
what a pure function of a page's HTML returned (hooks/repair_markup.py, hooks/label_landmarks.py,
hooks/add_page_scripts.py), and honours the same switch.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

ENVIRONMENT = "ML_BLOG_SPEEDUPS"


def enabled(name: str = "") -> bool:
    """Whether the shortcuts are on; ``name`` also asks ML_BLOG_SPEEDUPS_OFF (a comma list of single
    mechanisms switched off, which benchmarks/ablation.py uses)."""
    if name and name in os.environ.get("ML_BLOG_SPEEDUPS_OFF", "").split(","):
        return False
    return os.environ.get(ENVIRONMENT, "").strip().lower() not in {"off", "0", "false", "no"}


class PageMemo:
    """Within one process (`mkdocs serve`), the results of a function of a page's HTML and nothing
    else, so a rebuild does not scan again the pages that came out as before.

    Keyed by a 128-bit BLAKE2 digest of the HTML, so a page that differs by one character is
    computed afresh. At most ``limit`` characters of results are kept, the least recently used
    dropped first. ML_BLOG_SPEEDUPS=off computes every time.
    """

    def __init__(self, function: Callable[[str], T], limit: int = 32_000_000) -> None:
        self.function = function
        self.limit = limit
        self.kept: OrderedDict[bytes, tuple[T, int]] = OrderedDict()
        self.size = 0
        self.hits = 0

    def __call__(self, html: str) -> T:
        if not enabled("page_memo"):
            return self.function(html)
        key = hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
            self.hits += 1
            return found[0]
        result = self.function(html)
        size = len(result) if isinstance(result, str) else 64
        self.kept[key] = (result, size)
        self.size += size
        while self.size > self.limit and self.kept:
            self.size -= self.kept.popitem(last=False)[1][1]
        return result
