"""mlblog/speed/scans.py: a page is scanned again whenever its HTML or the site's own hosts differ from
a scan the memo holds, and a reused scan gives its findings, not an empty list."""

from __future__ import annotations

from mlblog.pages.external import External, externals
from mlblog.speed.scans import ScanMemo

PAGE = '<p>Text</p><img src="https://cdn.example.com/x.png">'


def test_a_reused_scan_keeps_its_findings_and_anything_else_is_scanned() -> None:
    scanned: list[tuple[str, frozenset[str]]] = []

    def scan(text: str, own: frozenset[str]) -> list[External]:
        scanned.append((text, own))
        return externals(text, own)

    memo = ScanMemo(scan)
    memo.start_build()
    found = memo(PAGE, frozenset())
    assert [e.url for e in found] == ["https://cdn.example.com/x.png"] and len(scanned) == 1
    memo.start_build()  # the next rebuild
    assert memo(PAGE, frozenset()) == found and len(scanned) == 1 and memo.reused == 1
    # The site's own host is part of the question: the same HTML under it loads nothing from elsewhere.
    assert memo(PAGE, frozenset({"cdn.example.com"})) == [] and len(scanned) == 2
    assert memo(PAGE.replace("x.png", "y.png"), frozenset())[0].url.endswith("y.png") and len(scanned) == 3


def test_a_rebuild_keeps_only_the_scans_it_used() -> None:
    memo = ScanMemo(externals)
    memo.start_build()
    memo(PAGE, frozenset())
    memo.start_build()
    memo("<p>another page</p>", frozenset())
    memo.start_build()  # PAGE was not built last time: it is scanned afresh
    memo(PAGE, frozenset())
    assert memo.reused == 0
