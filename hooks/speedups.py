"""One switch for the build's shortcuts (a helper module, not a hook).

The hooks that make the build faster without changing what it writes (hooks/defer_excerpts.py,
hooks/read_git_history.py, hooks/reuse_renders.py) all honour ML_BLOG_SPEEDUPS=off, which makes
the build take Material's and the plugins' own slow paths. The tests build the fixture site both
ways and compare the two byte for byte (tests/test_speed.py); the content-hash cache has its own
switch, ML_BLOG_BUILD_CACHE=off (hooks/build_cache.py).
"""

from __future__ import annotations

import os

ENVIRONMENT = "ML_BLOG_SPEEDUPS"


def enabled() -> bool:
    return os.environ.get(ENVIRONMENT, "").strip().lower() not in {"off", "0", "false", "no"}
