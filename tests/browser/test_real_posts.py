"""The real posts, built from the repository as readers get them: structure, sources, accessibility."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import COLOUR_RULES, axe_violations, follow, new_page, searches_missed, serve
from playwright.sync_api import Browser, expect
from support import ROOT, Site

from mlblog.pages import readtime
from mlblog.posts import check_all

# Every test here reads the real site, built once per run (conftest's real_site).

POSTS = sorted(p for p in (ROOT / "docs" / "blog" / "posts").glob("*.md"))
SECTIONS = ("What surprises people", "Try it yourself", "Versions", "References")
_RECORDS, _PROBLEMS = check_all(ROOT / "docs")


def post_url(path: Path) -> str:
    assert not _PROBLEMS, _PROBLEMS
    return next(r.url for r in _RECORDS if r.file == f"blog/posts/{path.name}")


def main_content(html: str) -> str:
    start = re.search(r'<article class="md-content__inner md-typeset"[^>]*>', html).start()
    return html[start: html.index("</article>", start)]


@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_is_a_complete_deep_dive(real_site: Site, path: Path) -> None:
    html = main_content(real_site.html(post_url(path)))
    # At least 4,000 words of prose: code blocks, inline code, SVG and scripts do not count.
    words = readtime.prose_words(html)
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


@pytest.mark.parametrize(("palette", "width"), [("light", 1280), ("dark", 1280), ("light", 375)],
                         ids=["light", "dark", "phone"])
@pytest.mark.parametrize("path", POSTS, ids=[p.stem for p in POSTS])
def test_post_renders_cleanly_and_accessibly(real_site: Site, browser: Browser, path: Path, palette: str,
                                             width: int) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, color_scheme=palette, viewport={"width": width, "height": 900})
        page.goto(f"{base}/{post_url(path)}")
        # Math and diagrams, where the post has them, arrived rendered (no TeX or fence left).
        assert page.locator(".arithmatex:not(:has(.katex))").count() == 0
        assert page.locator("pre.mermaid-diagram").count() == 0
        # Interactive figures came alive (their scripts run after the load event). Requests still in
        # flight finish while axe runs: the recorder is read after it.
        page.wait_for_function("() => !document.querySelector('figure.ifig:not(.ifig--live)')", timeout=15_000)
        # In the dark palette a post is the same DOM in other colours, but for the dark one of each
        # diagram's two drawings (made alike): the rules that read colours and images' names. Material's
        # own chrome is checked in full in both palettes (test_browser_reader, test_search).
        dark = [*COLOUR_RULES, "svg-img-alt", "role-img-alt", "image-alt"]
        violations = axe_violations(page, dark if palette == "dark" else None)
        assert violations == [], json.dumps(violations, indent=1)
        assert rec.external == [] and rec.errors == []


def test_figures_are_live_after_instant_navigation_between_posts_with_different_figures(
        real_site: Site, browser: Browser) -> None:
    """Each post loads only its own figure's script; Material runs it again after an instant navigation."""
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base)
        scripts: list[str] = []
        page.on("request", lambda r: "/javascripts/" in r.url and scripts.append(r.url.rsplit("/javascripts/", 1)[1]))
        page.goto(f"{base}/blog/")
        assert not [s for s in scripts if s.startswith("ifig/")]
        flash = post_url(ROOT / "docs" / "blog" / "posts" / "flashattention-to-flashattention-2.md")
        assert follow(page, page.locator(f'a[href$="{flash.split("blog/", 1)[1]}"]').first, f"{base}/{flash}")
        expect(page.locator('figure.ifig[data-ifig="online-softmax"]')).to_have_class(re.compile(r"\bifig--live\b"))
        # To a post with a different figure, by a link on the page (instant navigation again).
        compile101 = post_url(ROOT / "docs" / "blog" / "posts" / "torch-compile-101.md")
        page.evaluate("(href) => { const a = document.createElement('a'); a.href = href; a.id = 'go';"
                      " a.textContent = 'next'; document.querySelector('article').append(a); }", f"{base}/{compile101}")
        assert follow(page, page.locator("#go"), f"{base}/{compile101}")
        figure = page.locator('figure.ifig[data-ifig="compile-stages"]')
        expect(figure).to_have_class(re.compile(r"\bifig--live\b"))
        figure.get_by_role("button", name="Next stage").click()
        expect(figure).to_have_attribute("data-stage-index", "1")
        assert "ifig/online-softmax.js" in scripts and "ifig/compile-stages.js" in scripts
        assert not [s for s in scripts if s in {"ifig/roofline.js", "ifig/cute-layout.js"}]
        assert rec.external == [] and rec.errors == []


# Each interactive figure of a real post: (post file, figure name, button to press, attribute, before, after)
FIGURE_STEPS = [
    ("flashattention-to-flashattention-2.md", "online-softmax", "Next step", "data-step", "0", "1"),
    ("torch-compile-101.md", "compile-stages", "Next stage", "data-stage-index", "0", "1"),
    ("torch-compile-deep-dive-inductor.md", "buffer-lifetimes", "Next line", "data-step", "0", "1"),
    ("cutlass-deep-dive.md", "cute-layout", "Next example", "data-example", "0", "1"),
    ("vllm-torch-compile-dynamic-batch-sizes.md", "capture-size-calculator", "Next batch size",
     "data-num-tokens", "13", "14"),
]


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


def test_capture_size_calculator_follows_the_dispatch_rule(real_site: Site, browser: Browser) -> None:
    """The vLLM torch.compile post's calculator: typed sizes and settings change the dispatch
    (its rule is checked against vLLM's own code in tests/examples/)."""
    path = ROOT / "docs" / "blog" / "posts" / "vllm-torch-compile-dynamic-batch-sizes.md"
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport={"width": 375, "height": 800})
        page.goto(f"{base}/{post_url(path)}")
        root = page.locator('figure.ifig[data-ifig="capture-size-calculator"]')
        root.wait_for()
        state = ("data-padded", "data-mode", "data-artifact", "data-num-sizes")
        assert [root.get_attribute(a) for a in state] == ["16", "PIECEWISE", "Range(1, 8192)", "51"]
        root.get_by_label("uniform decode (1 token per request)").check()
        assert root.get_attribute("data-mode") == "FULL"
        root.get_by_label("Tokens in this step").fill("600")
        assert [root.get_attribute(a) for a in state[:2]] == ["none", "NONE"]
        root.get_by_label("Tokens in this step").fill("5")
        root.get_by_label("compile_sizes (comma-separated)").fill("8")
        assert [root.get_attribute(a) for a in state[:3]] == ["8", "FULL", "Range(8, 8)"]
        root.get_by_label("cudagraph_mode").select_option("FULL_DECODE_ONLY")
        root.get_by_label("uniform decode (1 token per request)").uncheck()
        assert [root.get_attribute(a) for a in state[:3]] == ["none", "NONE", "Range(1, 8192)"]
        assert rec.external == [] and rec.errors == []

# Identifiers each post explains: typing one into the search box puts that post first.
POST_IDENTIFIERS = [
    # softmax_rescale_o and CudagraphDispatcher regressed under Material's search, which searched
    # every term as a prefix (o*, cudagraph*); Pagefind matches the identifier whole (issue #19).
    ("flashattention-to-flashattention-2.md", "softmax_rescale_o"),
    ("flashattention-to-flashattention-2.md", "Is_even_MN"),
    ("flashattention-to-flashattention-2.md", "num_splits_heuristic"),
    ("pytorch-ddp-deep-dive.md", "bucket_cap_mb"),
    ("pytorch-ddp-deep-dive.md", "Reducer::mark_variable_ready"),
    ("pytorch-ddp-deep-dive.md", "optimize_ddp"),
    ("vllm-v1-deep-dive.md", "EngineCoreProc"),
    ("vllm-v1-deep-dive.md", "max_num_batched_tokens"),
    ("torch-compile-101.md", "min_cut_rematerialization_partition"),
    ("torch-compile-101.md", "recompile_limit"),
    ("nccl-deep-dive.md", "ncclGetUniqueId"),
    ("nccl-deep-dive.md", "NCCL_CUMEM_ENABLE"),
    ("qwen3-architecture-layer-by-layer.md", "max_window_layers"),
    ("qwen3-architecture-layer-by-layer.md", "q_norm"),
    ("torch-compile-deep-dive-inductor.md", "FreeIfNotReusedLine"),
    ("torch-compile-deep-dive-inductor.md", "should_realize_on_reuse"),
    ("cutlass-deep-dive.md", "zipped_divide"),
    ("cutlass-deep-dive.md", "PipelineTmaAsync"),
    ("vllm-torch-compile-dynamic-batch-sizes.md", "cudagraph_capture_sizes"),
    ("vllm-torch-compile-dynamic-batch-sizes.md", "CudagraphDispatcher"),
    ("vllm-torch-compile-dynamic-batch-sizes.md", "PiecewiseBackend"),
    ("sglang-deep-dive.md", "event_loop_overlap"),
    ("sglang-deep-dive.md", "scheduler_input_ipc_name"),
]


def test_search_finds_each_post_by_its_identifiers(real_site: Site, browser: Browser) -> None:
    """Every query in one search box, one after another, as a reader looking things up does."""
    slug = {name: post_url(ROOT / "docs" / "blog" / "posts" / name).rstrip("/").rsplit("/", 1)[-1]
            for name, _ in POST_IDENTIFIERS}
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base)
        page.goto(f"{base}/blog/")
        assert searches_missed(page, [(query, slug[name]) for name, query in POST_IDENTIFIERS]) == []
        assert rec.errors == []
