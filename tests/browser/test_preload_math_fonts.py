"""mlblog/pages/fonts.py: which KaTeX faces a post's formulas use at load, decided from
KaTeX's own stylesheet. (test_page_budgets.py checks the real posts against Chromium.)"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
from mlblog.pages import fonts  # noqa: E402

KATEX_CSS = ROOT / "node_modules" / "katex" / "dist" / "katex.min.css"


@pytest.fixture(scope="module")
def rules() -> list[fonts.Rule]:
    return fonts.font_rules(KATEX_CSS.read_text(encoding="utf-8"))


def formula(html: str) -> str:
    """A formula as KaTeX writes it: its MathML twin (never in KaTeX's fonts), then its HTML."""
    return (f'<span class="katex"><span class="katex-mathml"><math><mi>q</mi></math></span>'
            f'<span class="katex-html">{html}</span></span>')


X_EQUALS = formula('<span class="mord mathnormal">x</span><span class="mrel">=</span>')


def test_a_variable_is_math_italic_and_an_operator_main_regular(rules):
    assert fonts.faces_used(f"<p>{X_EQUALS}</p>", rules) == {"KaTeX_Math-Italic.woff2", "KaTeX_Main-Regular.woff2"}


def test_compound_and_child_selectors_and_specificity(rules):
    bold = formula('<span class="mord mathbf">W</span>')
    assert fonts.faces_used(f"<p>{bold}</p>", rules) == {"KaTeX_Main-Bold.woff2"}
    # ".katex .delimsizing.mult .delim-size1>span": only the span directly inside delim-size1.
    delimiter = formula('<span class="delimsizing mult"><span class="delim-size1"><span>(</span></span></span>')
    assert fonts.faces_used(f"<p>{delimiter}</p>", rules) == {"KaTeX_Size1-Regular.woff2"}
    # (<small>: an element between them whose UA style leaves the face alone.)
    deeper = formula('<span class="delimsizing mult"><span class="delim-size1">'
                     '<small><span>(</span></small></span></span>')
    assert fonts.faces_used(f"<p>{deeper}</p>", rules) == {"KaTeX_Main-Regular.woff2"}
    # ".katex .boldsymbol" sets family, style and weight: Math bold italic.
    symbol = formula('<span class="mord boldsymbol">x</span>')
    assert fonts.faces_used(f"<p>{symbol}</p>", rules) == {"KaTeX_Math-BoldItalic.woff2"}


def test_text_outside_formulas_and_the_mathml_twin_use_no_katex_face(rules):
    assert fonts.faces_used("<p>plain <em>text</em></p>", rules) == set()
    twin_only = '<span class="katex"><span class="katex-mathml"><math><mi>x</mi></math></span></span>'
    assert fonts.faces_used(f"<p>{twin_only}</p>", rules) == set()


@pytest.mark.parametrize("hidden", [
    f'<div class="offscreen-chunk" style="--chunk-lines:9"><p>{X_EQUALS}</p></div>',
    f"<details><summary>More</summary><p>{X_EQUALS}</p></details>",
    f'<div class="tabbed-set"><div class="tabbed-content"><div class="tabbed-block"><p>a</p></div>'
    f'<div class="tabbed-block"><p>{X_EQUALS}</p></div></div></div>',
    f"<p hidden>{X_EQUALS}</p>",
    # A stray end tag (browsers ignore it) or an unquoted value ending in "/" must not reopen the details.
    f"<details><summary>S</summary><div>a</span><p>{X_EQUALS}</p></div></details>",
    f"<details><summary><a href=/x/>S</a></summary><p>{X_EQUALS}</p></details>",
    f'<details title="click to open"><summary>S</summary><p>{X_EQUALS}</p></details>',
    # The checked tab is shown (Material's ===+ checks a later one), not the first.
    f'<div class="tabbed-set"><input type="radio"><input checked type="radio"><div class="tabbed-content">'
    f'<div class="tabbed-block"><p>{X_EQUALS}</p></div><div class="tabbed-block"><p>b</p></div></div></div>',
])
def test_formulas_the_browser_does_not_lay_out_at_load_preload_nothing(rules, hidden):
    assert fonts.faces_used(hidden, rules) == set()


@pytest.mark.parametrize("shown", [
    f"<details open><summary>More</summary><p>{X_EQUALS}</p></details>",
    f"<details><summary>{X_EQUALS}</summary><p>more</p></details>",
    f'<div class="tabbed-set"><div class="tabbed-content"><div class="tabbed-block"><p>{X_EQUALS}</p></div>'
    f'<div class="tabbed-block"><p>b</p></div></div></div>',
    f'<div class="tabbed-set"><input type="radio"><input checked="checked" type="radio"><div class="tabbed-content">'
    f'<div class="tabbed-block"><p>a</p></div><div class="tabbed-block"><p>{X_EQUALS}</p></div></div></div>',
    f'<p class="hidden-sm">{X_EQUALS}</p>',  # a class name is not the hidden attribute
])
def test_formulas_shown_at_load_preload_their_faces(rules, shown):
    assert fonts.faces_used(shown, rules) == {"KaTeX_Math-Italic.woff2", "KaTeX_Main-Regular.woff2"}


def test_a_font_keyword_the_hook_cannot_resolve_sets_nothing():
    assert fonts.font_shorthand("inherit") == {}
    assert fonts.font_shorthand("italic bold 1.2em KaTeX_Main,serif") == {
        "font-style": "italic", "font-weight": "bold", "font-family": "KaTeX_Main,serif"}


def test_face_file_names_follow_katex():
    assert fonts.face_file(("KaTeX_Main", "italic", "700")) == "KaTeX_Main-BoldItalic.woff2"
    assert fonts.face_file(("KaTeX_Main,math,serif", "normal", "normal")) == "KaTeX_Main-Regular.woff2"
    assert fonts.face_file(('"KaTeX_SansSerif"', "normal", "bold")) == "KaTeX_SansSerif-Bold.woff2"
