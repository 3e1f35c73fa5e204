"""Every private detail of Material, MkDocs and the other plugins that the site relies on
(mlblog/contracts.py) still holds in the installed packages; and the core imports no MkDocs.

A failing check names the detail and the code that relies on it: read the upgrade's changelog for it,
mend that code, then update the detail (a copied template: compare the copy with the new original).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from mlblog.contracts import DETAILS, Detail


@pytest.mark.parametrize("detail", DETAILS, ids=[d.where for d in DETAILS])
def test_every_detail_the_site_relies_on_still_holds(detail: Detail) -> None:
    assert detail.holds(), f"no longer holds: {detail.what} (relied on by {detail.where})"


def test_a_changed_detail_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """What an upgrade looks like to the check: the copied search box's original has changed."""
    import mlblog.contracts as contracts

    header = next(d for d in DETAILS if d.where == "overrides/partials/search.html")
    original = contracts.material_file("partials/search.html").read_bytes()
    monkeypatch.setattr(contracts, "material_file", lambda relative: type(
        "Fake", (), {"read_bytes": lambda self: original + b"<!-- 9.8.2 -->"})())
    assert not header.holds()


CORE = ["mlblog.posts", "mlblog.posts.rules", "mlblog.render.math", "mlblog.render.diagrams", "mlblog.pages.external",
        "mlblog.pages.markup", "mlblog.pages.scripts", "mlblog.pages.search", "mlblog.pages.chunks",
        "mlblog.pages.readtime", "mlblog.publish.urls",
        "mlblog.publish.feeds", "mlblog.publish.cards", "mlblog.publish.lead_figures",
        "mlblog.publish.metadata", "mlblog.publish.stylesheets",
        "mlblog.publish.scripts", "mlblog.checks", "mlblog.__main__"]


def test_the_core_imports_no_mkdocs() -> None:
    """The rules, renderers, page passes, publishing and the checks' command run without MkDocs: each
    is imported in a fresh interpreter where importing mkdocs (or Material) fails."""
    program = ("import sys\n"
               "class Refuse:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] in ('mkdocs', 'material'):\n"
               "            raise ImportError('the core imported ' + name)\n"
               "sys.meta_path.insert(0, Refuse())\n"
               f"for module in {CORE!r}:\n"
               "    __import__(module)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
