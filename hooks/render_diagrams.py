"""Diagrams rendered at build: every ```mermaid fence becomes inline SVG, one per palette.

The fence is written by pymdownx.superfences as ``<pre class="mermaid-diagram"><code>``
(mkdocs.yml). This hook renders its source with Mermaid from node_modules/ in headless Chromium
(Debian's, at /usr/bin/chromium or $CHROMIUM, driven by Playwright), once with Mermaid's
``default`` theme and once with its ``dark`` theme, and writes both SVGs in a
``<div class="mermaid-diagram">``; docs/stylesheets/figures.css shows the one that matches
``[data-md-color-scheme]`` (light, dark, or the one the system preference chose). No page ships
Mermaid's script.

* One browser launch per build, for the first diagram the cache does not hold; closed when the
  build ends. SVGs are cached (hooks/build_cache.py, kind ``diagrams``) under the source, theme,
  Mermaid's version and the options, so a rebuild launches no browser.
* Every id in an SVG is renamed to one made from the diagram's place on the page and its theme
  (``diagram-2-dark-...``), so two diagrams, or one in two themes, never share an id.
* A diagram Mermaid cannot parse, or one that needs rendering when Chromium is missing, is a
  problem in the one shape (file, line, what is wrong, what is accepted); ``on_env`` stops the
  build once with every problem.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from build_cache import Cache, key
from build_renders import BuildRenders, RenderState
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from post_checks import Problem

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

log = get_plugin_logger("render_diagrams")

THEMES = {"light": "default", "dark": "dark"}  # palette -> Mermaid theme
OPTIONS = {"securityLevel": "strict"}  # part of every cache key
TOKEN = "mmdIDx"  # the id Mermaid is given; replaced per page
DIAGRAM = re.compile(r'<pre class="mermaid-diagram"><code>(.*?)</code></pre>', re.DOTALL)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*mermaid\b")
ACCEPTED_SYNTAX = "Accepted: a diagram in Mermaid's syntax (https://mermaid.js.org/intro/syntax-reference.html)"
RENDER = """async (jobs) => {
  const out = [];
  for (const job of jobs) {
    try {
      mermaid.initialize({ startOnLoad: false, theme: job.theme, ...job.options });
      out.push({ svg: (await mermaid.render(job.id, job.source)).svg });
    } catch (err) {
      out.push({ error: String((err && err.message) || err) });
    }
  }
  return out;
}"""


def chromium_path() -> str:
    return os.environ.get("CHROMIUM", "/usr/bin/chromium")


class _Browser:
    """The build's one headless Chromium with Mermaid loaded, started on first use."""

    def __init__(self, script: Path) -> None:
        self.script = script
        self.playwright: Any = None
        self.browser: Any = None
        self.page: Any = None
        self.rendered = 0
        self.seconds = 0.0

    def render(self, source: str, theme: str) -> tuple[str | None, str | None]:
        started = time.perf_counter()
        if self.page is None:
            from playwright.sync_api import sync_playwright

            self.playwright = sync_playwright().start()
            self.browser = self.playwright.chromium.launch(
                executable_path=chromium_path(), headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            self.page = self.browser.new_page()
            self.page.add_script_tag(path=str(self.script))
        [answer] = self.page.evaluate(RENDER, [{"id": TOKEN, "theme": theme, "source": source, "options": OPTIONS}])
        self.rendered += 1
        self.seconds += time.perf_counter() - started
        return answer.get("svg"), answer.get("error")

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()
        if self.playwright is not None:
            self.playwright.stop()
        self.playwright = self.browser = self.page = None


class _State(RenderState):
    def __init__(self, config: MkDocsConfig) -> None:
        super().__init__()
        root = Path(config.config_file_path).resolve().parent
        self.package = root / "node_modules" / "mermaid"
        self.cache = Cache("diagrams", root)
        self.browser = _Browser(self.package / "dist" / "mermaid.min.js")
        self.diagrams = 0
        self._version: str | None = None

    @property
    def version(self) -> str:
        if self._version is None:
            manifest = self.package / "package.json"
            if not manifest.is_file():
                raise PluginError(f"render_diagrams: Mermaid is missing from {self.package.parent}. The build "
                                  "renders diagrams with it: run `make build` (or `npm ci`) to install it")
            self._version = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        return self._version

    def close(self) -> None:
        self.browser.close()

    def summary(self) -> str | None:
        if not self.diagrams:
            return None
        return (f"{self.diagrams} diagrams: {self.browser.rendered} SVGs rendered by Mermaid {self.version} "
                f"in Chromium in {self.browser.seconds:.1f} s, {self.cache.hits} from the build cache")


renders = BuildRenders(_State, "diagram problem", log)
on_config, on_env, on_post_build, on_build_error, on_shutdown = renders.hooks()


def _unique_ids(svg: str) -> str:
    """Every id in the SVG made to hold TOKEN (Mermaid leaves some bare: actor1, root-1)."""
    for number, name in enumerate(dict.fromkeys(re.findall(r'\bid="([^"]+)"', svg))):
        if TOKEN in name:  # made unique per page with the rest
            continue
        new = f"{TOKEN}-{number}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = re.sub(rf"#{re.escape(name)}(?![\w-])", f"#{new}", svg)
    return svg


def _svg(source: str, theme: str) -> tuple[str | None, str | None]:
    state = renders.state
    name = key(source, theme, state.version, json.dumps(OPTIONS, sort_keys=True))
    cached = state.cache.get(name, ".svg")
    if cached is not None:
        return cached.decode("utf-8"), None
    if not Path(chromium_path()).exists():
        return None, "chromium"
    svg, error = state.browser.render(source, theme)
    if svg is None:
        return None, error or "Mermaid returned no SVG"
    svg = _unique_ids(svg)
    state.cache.put(name, svg.encode("utf-8"), ".svg")
    return svg, None


def _fence_lines(source: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if FENCE.match(line)]


def _problem(file: str, fence: int | None, error: str) -> Problem:
    where = f"line {fence}" if fence is not None else "a mermaid diagram"  # the fence's first line
    if error == "chromium":
        return Problem(file, where, "this mermaid diagram is not in the build cache, and rendering it needs "
                                    f"Chromium, which is not at {chromium_path()}. Accepted: run `make browser` "
                                    "(installs Debian's chromium), or point CHROMIUM=/path/to/chromium at one")
    # Mermaid's "Parse error on line N:" counts lines of the diagram; its excerpt and caret lines
    # would not survive being put on one line.
    lines = [line.strip() for line in error.splitlines() if line.strip() and not set(line.strip()) <= {"-", "^"}]
    lines = [line for line in lines if not line.startswith("...")]
    message = " ".join(lines).replace("Parse error on line", "parse error on diagram line") or "Mermaid gave no reason"
    return Problem(file, where, f"the mermaid diagram does not render: {message}. {ACCEPTED_SYNTAX}")


def _render(text: str, page: Page) -> str:
    state = renders.state
    fences = _fence_lines(page.file.content_string) if page.file.src_path else []
    number = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal number
        number += 1
        state.diagrams += 1
        source = html.unescape(match.group(1))
        fence = fences[number - 1] if number <= len(fences) else None
        parts = []
        for palette, theme in THEMES.items():
            svg, error = _svg(source, theme)
            if svg is None:
                state.problems.append(_problem(page.file.src_uri, fence, error or ""))
                return match.group(0)
            svg = svg.replace(TOKEN, f"diagram-{number}-{palette}")
            parts.append(f'<div class="mermaid-diagram__{palette}">{svg}</div>')
        return '<div class="mermaid-diagram">' + "".join(parts) + "</div>"

    return DIAGRAM.sub(replace, text)


@event_priority(0)
def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if 'class="mermaid-diagram"' not in html_text:
        return html_text
    return _render(html_text, page)


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """Diagrams that reach a page by another route: excerpts, which the blog plugin renders again."""
    if '<pre class="mermaid-diagram">' not in output:
        return output
    output = _render(output, page)
    renders.stop_on_problems()
    return output
