"""The real site builds strictly under ProperDocs, the maintained fork of MkDocs, with the same pages.

README.md ("After Material 9") lists what differs: the generator named in each page's
``<meta name="generator">``, and nothing else once both builds share SOURCE_DATE_EPOCH.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support import MKDOCS_ENV, Site

GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">')
REVISION_DATE = re.compile(r'(<time class="last-update" datetime=")[^"]*(">)[^<]*(</time>)')


def files_of(site_dir: Path) -> list[str]:
    return sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_file())


def test_properdocs_builds_the_same_pages(real_site: Site, tmp_path: Path) -> None:
    out = tmp_path / "properdocs-site"
    result = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", str(real_site.root / "mkdocs.yml"),
         "-d", str(out)],
        cwd=tmp_path, env=MKDOCS_ENV, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr

    assert files_of(out) == files_of(real_site.site_dir)
    pages = [name for name in files_of(out) if name.endswith(".html")]
    assert len(pages) > 20
    generators = set()
    for name in pages:
        ours, theirs = ((d / name).read_text(encoding="utf-8") for d in (real_site.site_dir, out))
        generators.update(GENERATOR.findall(theirs))
        # Dates the clock gives (real_site is no git checkout) may differ if a day turns between builds.
        ours, theirs = (REVISION_DATE.sub(r"\1\2\3", GENERATOR.sub("", t)) for t in (ours, theirs))
        assert ours == theirs, f"{name} differs between MkDocs and ProperDocs beyond the generator tag"
    assert generators == {'<meta name="generator" content="mkdocs-ProperDocs 1.6.7, mkdocs-material">'}
