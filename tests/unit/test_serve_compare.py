"""benchmarks/serve_compare.py measures the plugin of the commit it names: the package extracted
from that commit is the one `mkdocs serve` imports, not the editable install."""

from __future__ import annotations

import sys
from pathlib import Path

from support import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import serve_compare  # noqa: E402


def test_the_named_commits_plugin_is_the_one_imported(tmp_path: Path) -> None:
    serve_compare.extract("HEAD", tmp_path / "before")
    assert (tmp_path / "before" / "mlblog" / "plugin.py").is_file()
    assert serve_compare.imported_from(tmp_path / "before", tmp_path) == tmp_path / "before" / "mlblog" / "plugin.py"
    # From the repository's own folder the editable install would win: the script would refuse that.
    assert serve_compare.imported_from(tmp_path / "before", ROOT) == ROOT / "mlblog" / "plugin.py"
