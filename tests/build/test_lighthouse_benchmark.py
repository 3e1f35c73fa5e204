"""The parts of benchmarks/lighthouse.py that its report's reading depends on (the Lighthouse runs
themselves are a benchmark, not a CI test): the reference page really is a default Material page,
and a run counts as held only when Chromium painted well after the page had loaded."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import lighthouse  # noqa: E402


def test_paint_held_only_when_the_first_paint_comes_well_after_load():
    def held(fcp: float, load: float) -> bool:
        return lighthouse.paint_held({"observedFirstContentfulPaint": fcp, "observedLoad": load})

    assert not held(176, 275)  # painted before the load event
    assert not held(420, 275)  # shortly after it: the page's own work
    assert held(1220, 263)  # a bare page whose first paint waited a second
    assert held(2274, 808)


def test_reference_is_a_default_material_page_with_none_of_the_sites_additions(tmp_path):
    site = lighthouse.build_reference(tmp_path / "reference")
    html = (site / "index.html").read_text(encoding="utf-8")
    assert html.count("<p>") == 12
    assert not (site / "search").exists()  # no plugin: Material's search would fetch its index at load
    assert "assets/javascripts/bundle." in html  # Material's own script and CSS
    assert "assets/stylesheets/main." in html
    # None of the site's hooks, stylesheets or scripts; and no font host (font: false).
    for ours in ("offscreen-chunk", "stylesheets/site.css", "javascripts/a11y.js", "data-site-palette",
                 "fonts.googleapis.com", "fonts.gstatic.com"):
        assert ours not in html, ours
