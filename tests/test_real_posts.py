"""The real posts, built from the repository as readers get them: structure, sources, accessibility."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium, new_page, serve
from playwright.sync_api import Browser
from support import ROOT, Site, make_site

sys.path.insert(0, str(ROOT / "hooks"))
import compute_readtime  # noqa: E402
import post_rules  # noqa: E402

POSTS = sorted(p for p in (ROOT / "docs" / "blog" / "posts").glob("*.md"))
SECTIONS = ("What surprises people", "Try it yourself", "Versions", "References")
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    site = make_site(tmp_path_factory.mktemp("real") / "src", keep_posts=True)
    result = site.build()
    assert result.returncode == 0, result.stderr
    return site


def post_url(path: Path) -> str:
    _, problems = post_rules.check_all(ROOT / "docs", [f"blog/posts/{path.name}"])
    assert not problems, problems
    post, _ = post_rules.check_post(f"blog/posts/{path.name}", path.read_text(encoding="utf-8"), {"editors"})
    return post.url


def main_content(html: str) -> str:
    start = html.index('<article class="md-content__inner md-typeset">')
    return html[start: html.index("</article>", start)]


@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_is_a_complete_deep_dive(real_site: Site, path: Path) -> None:
    html = main_content(real_site.html(post_url(path)))
    # At least 4,000 words of prose: code blocks, inline code, SVG and scripts do not count.
    words = compute_readtime.prose_words(html)
    assert words >= 4000, f"{path.name}: {words} words of prose"
    headings = re.findall(r"<h2[^>]*>(.*?)<a class=\"headerlink\"", html)
    for section in SECTIONS:
        assert any(section.lower() in h.lower() for h in headings), f"{path.name}: no '{section}' section"
    assert len(re.findall(r'<figure class="(?:fig|ifig)"', html)) >= 2, f"{path.name}: fewer than two figures"
    # Every figure has a caption and every inline SVG a title for screen readers.
    for figure in re.findall(r"<figure class=\"(?:fig|ifig)\".*?</figure>", html, re.DOTALL):
        assert "<figcaption" in figure
    for svg in re.findall(r"<svg\b[^>]*class=\"fig-svg[^>]*>.*?</svg>", html, re.DOTALL):
        assert "<title" in svg and 'role="img"' in svg


@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_links_are_pinned_and_code_is_included_from_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    upstream = re.findall(r"https://github\.com/[\w.-]+/[\w.-]+/(?:blob|tree)/([^/\s)]+)/", text)
    assert upstream, f"{path.name}: links no upstream source"
    assert not {ref for ref in upstream if ref in {"main", "master", "HEAD"}}
    includes = re.findall(r'--8<-- "([^"]+)"', text)
    assert any(i.startswith("examples/") for i in includes), f"{path.name}: includes no companion code"
    for include in includes:
        assert (ROOT / include.split(":")[0]).is_file(), include


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.mark.browser
@pytest.mark.parametrize("palette", ["light", "dark"])
@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_renders_cleanly_and_accessibly(real_site: Site, browser: Browser, path: Path, palette: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, color_scheme=palette)
        page.goto(f"{base}/{post_url(path)}")
        page.wait_for_load_state("networkidle")
        # Math and diagrams, where the post has them, have been rendered.
        assert page.locator(".arithmatex:not([data-math-done])").count() == 0
        assert page.locator(".mermaid-diagram:not([data-diagram-done])").count() == 0
        # Interactive figures came alive.
        assert page.locator("figure.ifig:not(.ifig--live)").count() == 0
        page.add_script_tag(path=str(AXE))
        results = json.loads(page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)"))
        violations = [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:5]} for v in results]
        assert violations == [], json.dumps(violations, indent=1)
        assert rec.external == [] and rec.errors == []
