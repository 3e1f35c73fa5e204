"""Diagrams rendered at build: every ```mermaid fence becomes inline SVG, one per palette.

pymdownx.superfences writes the fence as ``<pre class="mermaid-diagram"><code>`` (mkdocs.yml). Its
source is rendered by Mermaid from node_modules/ in headless Chromium (driven by Playwright), once
with Mermaid's ``default`` theme and once with ``dark``, into a ``<div class="mermaid-diagram">``;
figures.css shows the one that matches the palette. One browser per build, started for the first
diagram the cache does not hold. Every id in an SVG is renamed from the diagram's place on the page
and its theme, so no two share one. A diagram Mermaid cannot parse, or one that needs rendering when
Chromium is missing, is a problem at its fence's line.
"""

from __future__ import annotations

import html
import json
import re
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from ..posts.problems import Problem, Stop
from .cache import Cache, Rendered, Renderer

THEMES = {"light": "default", "dark": "dark"}  # palette -> Mermaid theme
TOKEN = "mmdIDx"  # the id Mermaid is given; replaced per page
DIAGRAM = re.compile(r'<pre class="mermaid-diagram"><code>(.*?)</code></pre>', re.DOTALL)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*mermaid\b")
ACCEPTED = "Accepted: a diagram in Mermaid's syntax (https://mermaid.js.org/intro/syntax-reference.html)"
RENDER = """async (job) => {
  try {
    mermaid.initialize({ startOnLoad: false, theme: job.theme, ...job.options });
    return { svg: (await mermaid.render(job.id, job.source)).svg };
  } catch (err) {
    return { error: String((err && err.message) || err) };
  }
}"""


class DiagramRenderer(Renderer):
    """One build's diagrams: the browser (started on first use), the cache and the problems."""

    OPTIONS = {"securityLevel": "strict"}
    SUFFIX = ".svg"
    SUMMARY = ("{count} diagrams: {rendered} SVGs rendered by Mermaid {version} in Chromium in {seconds:.1f} s, "
               "{hits} from the build cache")

    def __init__(self, node_modules: Path, cache: Cache, chromium: str) -> None:
        super().__init__(cache)
        self.package = node_modules / "mermaid"
        self.chromium = chromium
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None

    @cached_property  # type: ignore[override]
    def version(self) -> str:
        manifest = self.package / "package.json"
        if not manifest.is_file():
            raise Stop(f"Mermaid is missing from {self.package.parent}. The build renders diagrams with it: "
                       "run `make build` (or `npm ci`) to install it")
        return json.loads(manifest.read_text(encoding="utf-8"))["version"]

    def _mermaid(self, source: str, theme: str) -> Rendered:
        if not Path(self.chromium).exists():
            return None, "chromium"
        if self._page is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=self.chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            self._page = self._browser.new_page()
            self._page.add_script_tag(path=str(self.package / "dist" / "mermaid.min.js"))
        answer = self._page.evaluate(RENDER, {"id": TOKEN, "theme": theme, "source": source, "options": self.OPTIONS})
        if answer.get("svg") is None:
            return None, answer.get("error") or "Mermaid returned no SVG"
        return unique_ids(answer["svg"]), None

    def render(self, text: str, file: str, source: str) -> str:
        """``text`` with every diagram drawn; a diagram that cannot be is a problem at its fence's line."""
        if '<pre class="mermaid-diagram">' not in text:
            return text
        fences = [n for n, line in enumerate(source.splitlines(), 1) if FENCE.match(line)]
        number = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal number
            number += 1
            self.count += 1
            fence = fences[number - 1] if number <= len(fences) else None
            diagram = html.unescape(match.group(1))
            parts = []
            for palette, theme in THEMES.items():
                svg, error = self.cached(partial(self._mermaid, diagram, theme), diagram, theme)
                if svg is None:
                    self.problems.append(self._problem(file, fence, error or ""))
                    return match.group(0)
                parts.append(f'<div class="mermaid-diagram__{palette}">'
                             f'{svg.replace(TOKEN, f"diagram-{number}-{palette}")}</div>')
            return '<div class="mermaid-diagram">' + "".join(parts) + "</div>"

        return DIAGRAM.sub(replace, text)

    def _problem(self, file: str, fence: int | None, error: str) -> Problem:
        where = f"line {fence}" if fence is not None else "a mermaid diagram"
        if error == "chromium":
            return Problem(file, where, "this mermaid diagram is not in the build cache, and rendering it needs "
                                        f"Chromium, which is not at {self.chromium}. Accepted: run `make browser` "
                                        "(installs Debian's chromium), or point CHROMIUM=/path/to/chromium at one")
        # Mermaid's "Parse error on line N:" counts lines of the diagram; its excerpt and caret lines
        # would not survive being put on one line.
        lines = [line for line in map(str.strip, error.splitlines())
                 if line and not set(line) <= {"-", "^"} and not line.startswith("...")]
        message = " ".join(lines).replace("Parse error on line", "parse error on diagram line") \
            or "Mermaid gave no reason"
        return Problem(file, where, f"the mermaid diagram does not render: {message}. {ACCEPTED}")

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._playwright = self._browser = self._page = None


def unique_ids(svg: str) -> str:
    """Every id in the SVG made to hold TOKEN (Mermaid leaves some bare: actor1, root-1)."""
    for number, name in enumerate(dict.fromkeys(re.findall(r'\bid="([^"]+)"', svg))):
        if TOKEN in name:
            continue
        new = f"{TOKEN}-{number}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = re.sub(rf"#{re.escape(name)}(?![\w-])", f"#{new}", svg)
    return svg
