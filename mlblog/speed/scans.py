"""Under `mkdocs serve`, a built page identical to the last rebuild's is not scanned again for what it
would load from another host (pages/external.py; at N = 100, half of a rebuild). The scan's result
depends on the page's HTML and the site's own hosts only; entries a rebuild does not use are dropped
at the next, so the memo holds one site's pages.
"""

from __future__ import annotations

from collections.abc import Callable

from ..pages.external import External
from ..render.cache import key

Scan = Callable[[str, frozenset[str]], list[External]]


class ScanMemo:
    def __init__(self, scan: Scan) -> None:
        self.scan = scan
        self.last: dict[tuple[str, frozenset[str]], list[External]] = {}
        self.now: dict[tuple[str, frozenset[str]], list[External]] = {}
        self.reused = 0

    def start_build(self) -> None:
        # A build that stopped before any page keeps the older memo.
        self.last, self.now, self.reused = (self.now or self.last), {}, 0

    def __call__(self, text: str, own_hosts: frozenset[str]) -> list[External]:
        digest = (key(text), own_hosts)  # the build cache's content key
        found = self.now.get(digest)
        if found is None:
            found = self.last.get(digest)
            if found is None:
                found = self.scan(text, own_hosts)
            else:
                self.reused += 1
            self.now[digest] = found
        return list(found)
