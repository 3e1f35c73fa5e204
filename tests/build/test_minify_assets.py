"""mlblog/publish/scripts.py (minify_own_scripts): the site serves its own scripts minified, nothing
else (its stylesheets: in the bundle, tests/build/test_bundle_stylesheets.py)."""

from __future__ import annotations

from pathlib import Path

import material as material_package
import rjsmin
from support import ROOT, Site


def test_own_scripts_are_served_minified(reader_site: Site) -> None:
    checked = 0
    for folder, pattern, minify in (("javascripts", "*.js", rjsmin.jsmin),):
        for source in (ROOT / "docs" / folder).rglob(pattern):
            built = reader_site.site_dir / source.relative_to(ROOT / "docs")
            text = source.read_text(encoding="utf-8")
            assert built.read_text(encoding="utf-8") == minify(text), built
            assert len(built.read_bytes()) < len(text.encode()), built
            checked += 1
    assert checked >= 10
    # Material's bundle is not minified again: it is Material's file, after one comment line
    # (mlblog/publish/scripts.py, tests/build/test_hint_eager_compile.py).
    bundle = next((reader_site.site_dir / "assets" / "javascripts").glob("bundle.*.min.js"))
    material = Path(material_package.__file__).parent / "templates" / "assets" / "javascripts" / bundle.name
    assert bundle.read_bytes().endswith(material.read_bytes())
