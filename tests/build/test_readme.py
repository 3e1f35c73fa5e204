"""The README's example messages are what the rules really print, and its commands exist."""

from __future__ import annotations

import re
import subprocess
import sys

from support import ROOT, make_site

README = (ROOT / "README.md").read_text(encoding="utf-8")


def between(marker: str) -> str:
    block = re.search(rf"<!-- {marker}:start -->\n```\w+\n(.*?)\n```\n<!-- {marker}:end -->", README, re.DOTALL)
    assert block, marker
    return block.group(1)


def test_readme_example_messages_are_current(tmp_path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("example.md", between("example-post") + "\n")
    result = subprocess.run([sys.executable, "-m", "mlblog", "-f", str(site.root / "mkdocs.yml"), "check"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.rstrip("\n") == between("example-output")


def test_readme_commands_are_make_targets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in re.findall(r"`make ([a-z-]+)", README):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
