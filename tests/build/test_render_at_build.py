"""Math and diagrams rendered at build (mlblog/render/math.py and diagrams.py): the cache,
and the exact problem lines for a formula or diagram that cannot be rendered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import Site, make_site, post

DIAGRAM = "```mermaid\nflowchart LR\n  A[Scheduler] --> B[Worker]\n```\n"
ACCEPTED_MATH = ("Accepted: LaTeX math that KaTeX supports (https://katex.org/docs/supported), "
                 "as $...$ inline or $$...$$ on lines of its own")
ACCEPTED_DIAGRAM = "Accepted: a diagram in Mermaid's syntax (https://mermaid.js.org/intro/syntax-reference.html)"


def body(formula: str = r"e^{m_i - m}", diagram: str = DIAGRAM) -> str:
    return (f"Opening with $x_i$ inline.\n\n<!-- more -->\n\n## Math\n\nA sum $\\sum_j {formula}$ here.\n\n"
            f"$$\n\\ell = {formula}\n$$\n\n## Diagram\n\n{diagram}")


def counts(stderr: str) -> tuple[str, str]:
    math = re.search(r"mlblog: (\d+ formulas: \d+ rendered by KaTeX [\d.]+) in [\d.]+ s, "
                     r"(\d+ from the build cache)", stderr)
    diagrams = re.search(r"mlblog: (\d+ diagrams: \d+ SVGs rendered by Mermaid [\d.]+ in Chromium) "
                         r"in [\d.]+ s, (\d+ from the build cache)", stderr)
    assert math and diagrams, stderr
    return " / ".join(math.groups()), " / ".join(diagrams.groups())


def test_renders_are_cached_and_a_changed_formula_is_rendered_again(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("math.md", post(body=body()))
    first = site.build()
    assert first.returncode == 0, first.stderr
    assert counts(first.stderr) == (
        "3 formulas: 3 rendered by KaTeX 0.19.1 / 0 from the build cache",
        "1 diagrams: 2 SVGs rendered by Mermaid 12.3.0 in Chromium / 0 from the build cache")
    html = site.html("blog/2025/03/04/a-fixture-post")
    site.write_post("math.md", post(body=body(formula=r"e^{m_i - m_{\text{new}}}")))
    second = site.build()
    assert second.returncode == 0, second.stderr
    # x_i is cached; the sum and the display formula changed: two renders, in one Node process.
    assert counts(second.stderr) == (
        "3 formulas: 2 rendered by KaTeX 0.19.1 / 1 from the build cache",
        "1 diagrams: 0 SVGs rendered by Mermaid 12.3.0 in Chromium / 2 from the build cache")
    again = site.html("blog/2025/03/04/a-fixture-post")
    assert "m_{\\text{new}}" in again and "m_{\\text{new}}" not in html
    assert re.findall(r'<div class="mermaid-diagram">.*?</div></div>', again, re.DOTALL) == \
        re.findall(r'<div class="mermaid-diagram">.*?</div></div>', html, re.DOTALL)


def _failing_build(site: Site, text: str, env: dict[str, str] | None = None) -> list[str]:
    site.write_post("bad.md", post(body=text))
    result = site.build(env=env)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    return [line for line in result.stderr.splitlines() if "problem" in line or line.startswith("  - ")]


def test_a_formula_katex_cannot_parse_names_its_line_and_katex_message(site: Site) -> None:
    lines = _failing_build(site, body(formula=r"\frac{1}{") + "\nAnd $\\badmacro$ too.\n")
    # post() puts nine lines of front matter and a blank line before the body (line 11)
    assert lines == [
        "ERROR   -  3 math problems in blog posts (paths relative to docs/):",
        "  - blog/posts/bad.md: line 17: the formula $\\sum_j \\frac{1}{$ does not render: KaTeX parse error: "
        "Unexpected end of input in a macro argument, expected '}' at end of input: …sum_j \\frac{1}{. "
        + ACCEPTED_MATH,
        "  - blog/posts/bad.md: line 20: the formula $$\\ell = \\frac{1}{$$ does not render: KaTeX parse error: "
        "Unexpected end of input in a macro argument, expected '}' at end of input: …ell = \\frac{1}{. "
        + ACCEPTED_MATH,
        "  - blog/posts/bad.md: line 30: the formula $\\badmacro$ does not render: KaTeX parse error: "
        "Undefined control sequence: \\badmacro at position 1: \\̲b̲a̲d̲m̲a̲c̲r̲o̲. " + ACCEPTED_MATH,
    ]


@pytest.mark.parametrize(("diagram", "env", "message"), [
    ("```mermaid\nflowchart LR\n  A[x] --> B{\n```\n", None,
     "the mermaid diagram does not render: parse error on diagram line 3: Expecting 'SQE', 'DOUBLECIRCLEEND', "
     "'PE', '-)', 'STADIUMEND', 'SUBROUTINEEND', 'PIPE', 'CYLINDEREND', 'DIAMOND_STOP', 'TAGEND', 'TRAPEND', "
     "'INVTRAPEND', 'UNICODE_TEXT', 'TEXT', 'TAGSTART', got '1'. " + ACCEPTED_DIAGRAM),
    (DIAGRAM, {"CHROMIUM": "/nonexistent/chromium"},
     "this mermaid diagram is not in the build cache, and rendering it needs Chromium, which is not at "
     "/nonexistent/chromium. Accepted: run `make browser` (installs Debian's chromium), or point "
     "CHROMIUM=/path/to/chromium at one"),
], ids=["syntax", "no-chromium"])
def test_a_diagram_that_cannot_be_rendered_names_its_line(site: Site, diagram: str, env: dict[str, str] | None,
                                                          message: str) -> None:
    lines = _failing_build(site, body(diagram=diagram), env)
    assert lines == ["ERROR   -  1 diagram problem in blog posts (paths relative to docs/):",
                     f"  - blog/posts/bad.md: line 25: {message}"]
