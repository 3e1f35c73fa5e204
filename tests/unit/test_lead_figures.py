"""The listings' lead figures (mlblog/publish/lead_figures.py): a post's first figure, drawn small."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlblog.publish.lead_figures import lead_figure, small_drawing

DRAWING = """<svg class="fig-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 520 930" role="img" \
aria-labelledby="m-title m-desc">
<title id="m-title">From torchrun to the first &amp; only kernel</title>
<desc id="m-desc">Ten steps.</desc>
<defs><marker id="m-arrow" viewBox="0 0 10 10"><path class="fig-arrow" d="M0,0 L10,5 L0,10 z"/></marker></defs>
<rect class="fig-box" x="12.25" y="14.75" width="70.5" height="74.0" rx="6"/>
<text class="fig-text" x="47.0" y="56.0">agent</text>
<line class="fig-line" x1="-3.5" y1="88" x2="47" y2="120.9" stroke-width="0.75" opacity="0.6" \
marker-end="url(#m-arrow)"/>
</svg>
"""


def test_the_drawing_loses_its_words_and_keeps_its_shapes_and_colours() -> None:
    svg, alt = small_drawing(DRAWING)
    assert alt == "From torchrun to the first & only kernel"
    assert "<text" not in svg and "<title" not in svg and "<desc" not in svg and "agent" not in svg
    # The figure classes stay (the stylesheet colours them in both palettes), as do markers.
    assert 'class="fig-box"' in svg and 'class="fig-line"' in svg and 'marker-end="url(#m-arrow)"' in svg
    assert svg.startswith('<svg class="fig-svg lead-figure__svg" ') and 'viewBox="0 0 520 930"' in svg
    # Its accessible name is the figure's title, escaped; the labelledby ids it no longer has are gone.
    assert 'role="img" aria-label="Figure: From torchrun to the first &amp; only kernel"' in svg
    assert "aria-labelledby" not in svg
    # Coordinates in whole units; small numbers (widths, opacities) and ids and colours untouched.
    assert 'x="12" y="15" width="70" height="74"' in svg and 'y2="121"' in svg
    assert 'x1="-3.5"' in svg and 'stroke-width="0.75" opacity="0.6"' in svg


def test_the_first_figure_is_the_lead_included_or_inline(tmp_path: Path) -> None:
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "map.svg").write_text(DRAWING, encoding="utf-8")
    (tmp_path / "figs" / "other.svg").write_text(DRAWING.replace("torchrun", "elsewhere"), encoding="utf-8")
    markdown = ('Intro.\n\n<figure class="ifig" data-ifig="x">not a static figure</figure>\n\n'
                '<figure class="fig" markdown="0">\n--8<-- "figs/map.svg"\n--8<-- "figs/other.svg"\n'
                "<figcaption>The map.</figcaption>\n</figure>\n")
    lead = lead_figure(markdown, tmp_path)
    assert lead is not None and lead.source == "figs/map.svg" and "torchrun" in lead.alt
    inline = lead_figure('<figure class="fig" markdown="0">\n' + DRAWING + "</figure>\n", tmp_path)
    assert inline is not None and inline.source is None and inline.alt.startswith("From torchrun")
    assert lead_figure("No figure at all.\n", tmp_path) is None
    assert lead_figure('<figure class="fig">\n<img src="a.png" alt="">\n</figure>\n', tmp_path) is None


def test_a_lead_figure_outside_the_repository_or_without_a_viewbox_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.svg"
    outside.write_text(DRAWING, encoding="utf-8")
    (tmp_path / "repo").mkdir()
    with pytest.raises(ValueError, match="outside the repository"):
        lead_figure('<figure class="fig">\n--8<-- "../outside.svg"\n</figure>', tmp_path / "repo")
    with pytest.raises(ValueError, match="no viewBox"):
        small_drawing('<svg class="fig-svg"><rect/></svg>')
    with pytest.raises(ValueError, match="not an SVG"):
        small_drawing("<p>no drawing</p>")

