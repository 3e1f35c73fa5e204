"""The real posts, built from the repository as readers get them: structure, sources, accessibility."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from browser import new_page, serve
from playwright.sync_api import Browser, expect
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


@pytest.mark.browser
@pytest.mark.parametrize(("palette", "width"), [("light", 1280), ("dark", 1280), ("light", 375)],
                         ids=["light", "dark", "phone"])
@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_renders_cleanly_and_accessibly(real_site: Site, browser: Browser, path: Path, palette: str,
                                             width: int) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, color_scheme=palette, viewport={"width": width, "height": 900})
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


# Each interactive figure of a real post: (post file, figure name, button to press, attribute, before, after)
FIGURE_STEPS = [
    ("flashattention-to-flashattention-2.md", "online-softmax", "Next step", "data-step", "0", "1"),
    ("torch-compile-101.md", "compile-stages", "Next stage", "data-stage-index", "0", "1"),
]


@pytest.mark.browser
@pytest.mark.parametrize(("name", "figure", "button", "attr", "before", "after"), FIGURE_STEPS,
                         ids=[f[1] for f in FIGURE_STEPS])
def test_real_interactive_figures_respond(real_site: Site, browser: Browser, name: str, figure: str,
                                          button: str, attr: str, before: str, after: str) -> None:
    path = ROOT / "docs" / "blog" / "posts" / name
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": 375, "height": 800})
        page.goto(f"{base}/{post_url(path)}")
        root = page.locator(f'figure.ifig[data-ifig="{figure}"]')
        root.wait_for()
        assert root.get_attribute(attr) == before
        root.get_by_role("button", name=button, exact=True).click()
        assert root.get_attribute(attr) == after
        # The figure fits a phone screen without making the page scroll sideways.
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        assert rec.external == [] and rec.errors == []


# Identifiers each post explains: typing one into the search box puts that post first.
POST_IDENTIFIERS = [
    ("flashattention-to-flashattention-2.md", "softmax_rescale_o"),
    ("flashattention-to-flashattention-2.md", "num_splits_heuristic"),
    ("pytorch-ddp-deep-dive.md", "bucket_cap_mb"),
    ("pytorch-ddp-deep-dive.md", "Reducer::mark_variable_ready"),
    ("pytorch-ddp-deep-dive.md", "optimize_ddp"),
    ("vllm-v1-deep-dive.md", "EngineCoreProc"),
    ("vllm-v1-deep-dive.md", "max_num_batched_tokens"),
    ("torch-compile-101.md", "min_cut_rematerialization_partition"),
    ("torch-compile-101.md", "recompile_limit"),
    ("sglang-deep-dive.md", "event_loop_overlap"),
    ("sglang-deep-dive.md", "scheduler_input_ipc_name"),
]


@pytest.mark.browser
@pytest.mark.parametrize(("name", "query"), POST_IDENTIFIERS, ids=[q for _, q in POST_IDENTIFIERS])
def test_search_finds_each_post_by_its_identifiers(real_site: Site, browser: Browser, name: str, query: str) -> None:
    slug = post_url(ROOT / "docs" / "blog" / "posts" / name).rstrip("/").rsplit("/", 1)[-1]
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base)
        page.goto(f"{base}/blog/")
        page.keyboard.press("/")
        page.keyboard.type(query, delay=20)
        first = page.locator(".md-search-result__item > .md-search-result__link").first
        expect(first).to_have_attribute("href", re.compile(rf"/{re.escape(slug)}/(\?h=[^#]*)?(#.*)?$"), timeout=10_000)
        assert rec.errors == []
