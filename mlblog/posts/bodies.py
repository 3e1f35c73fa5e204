"""A page's Markdown body: the excerpt and heading rules, pinned upstream links, snippets (which
must stay inside the repository), relative links (inside docs/) and anything a reader's browser
would fetch from another host."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ..pages.external import externals, is_external, line_of
from .frontmatter import plain_text
from .problems import Problem
from .schema import EXCERPT_MARKER

# A link into an upstream repository that follows a moving branch instead of a tag or commit.
UNPINNED_RE = re.compile(r"https://(?:github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw|blame)"
                         r"|raw\.githubusercontent\.com/[\w.-]+/[\w.-]+)/(main|master|develop|HEAD)(?=/|\b)")
FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
# pymdownx.snippets: `--8<-- "path"` on one line, or a block of paths between two `--8<--` lines.
SNIPPET_LINE_RE = re.compile(r"""^\s*(;*)-+8<-+[ \t]+(["'])(.+?)\2\s*$""")
SNIPPET_BLOCK_RE = re.compile(r"^\s*(;*)-+8<-+\s*$")
SNIPPET_SPEC_RE = re.compile(r"^(.*?)(?::(-?\d*(?::-?\d*)?(?:,[-\d:]+)*)|:([a-z][-_0-9a-z]*))?$", re.IGNORECASE)
HEADING_RE = re.compile(r"#\s+\S")  # a level-1 ATX heading
INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*)?\)")
REF_DEF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
REF_LABEL_RE = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
EXTERNAL_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#|/)", re.IGNORECASE)
# ![alt](url "title") or ![alt][ref] / ![ref][]; reference definitions are REF_DEF_RE.
MD_IMAGE_RE = re.compile(r"!\[(?:[^\]\\]|\\.)*\](?:\(\s*<?([^)\s>]+)>?[^)]*\)|\[([^\]]*)\])")

SNIPPET_ACCEPTED = ("Accepted: a path relative to the repository root (pymdownx.snippets base_path) to a text "
                    "file inside the repository, e.g. examples/<post>/<file>.py")
EXTERNAL_ACCEPTED = ("Accepted: a file under docs/ (or a data: URL) referred to by a relative path; links that "
                     "a reader follows (<a href>, Markdown links) may go to any host")
MAX_SNIPPET_DEPTH = 10  # files that include files that include files...


def inside(real: str, folders: Iterable[Path | str]) -> bool:
    """Whether a resolved path lies in one of the folders (each resolved too)."""
    return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep)
               for top in (os.path.realpath(f) for f in folders))


def resolve_snippet(spec: str, bases: Sequence[Path]) -> tuple[str | None, str | None]:
    """The file a ``--8<--`` path includes, as pymdownx.snippets finds it (the first base folder
    that holds it, never above that folder), then checked as pymdownx does not: after following
    links the file is still inside a base folder, it is a file, and it is UTF-8 text. Returns the
    file's text, or what is wrong with the path (without the 'Accepted' part)."""
    m = SNIPPET_SPEC_RE.match(spec.strip())
    path = (m.group(1) if m else spec).strip()
    if not path:
        return None, f"the snippet '{spec}' names no file"
    if re.match(r"^[a-z][a-z0-9+.-]*://", path, re.IGNORECASE):
        return None, (f"the snippet '{path}' is a URL; the build includes files from the repository only "
                      "and fetches nothing")
    found, escapes = None, None
    for base in bases:
        top = os.path.abspath(base)
        candidate = os.path.abspath(os.path.join(top, path))
        if not candidate.startswith(top.rstrip(os.sep) + os.sep):
            escapes = candidate  # pymdownx refuses it (restrict_base_path), then reports it missing
            continue
        if os.path.isfile(candidate) or os.path.isdir(candidate) or os.path.islink(candidate):
            found = Path(candidate)
            break
    if found is None:
        if escapes is not None:
            return None, f"the snippet '{path}' leads outside the repository (to {escapes})"
        return None, f"the snippet '{path}' does not exist"
    real = os.path.realpath(found)
    if not inside(real, bases):
        return None, (f"the snippet '{path}' is a link to {real}, outside the repository: the build would "
                      "publish that file's contents")
    if not os.path.exists(real):
        return None, f"the snippet '{path}' is a link to {real}, which does not exist"
    if not found.is_file():
        return None, f"the snippet '{path}' is a folder, not a file"
    try:
        text = found.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"the snippet '{path}' is not UTF-8 text ({exc.reason} at byte {exc.start})"
    section = m.group(3) if m else None
    if section and not re.search(rf"-+8<-+\s+\[\s*start\s*:\s*{re.escape(section)}\s*\]", text):
        return None, (f"the snippet '{path}' has no section '{section}'. A section is marked "
                      f"'--8<-- [start:{section}]' ... '--8<-- [end:{section}]' in that file")
    return text, None


def snippet_lines(text: str) -> Iterator[tuple[int, str, list[str], bool]]:
    """(0-based number, line, the paths it includes, whether it belongs to a block of paths) of each line
    of a text, as pymdownx.snippets reads it: a ``--8<-- "path"`` line, or the paths of a block between
    two ``--8<--`` lines (';' escapes)."""
    in_block = False
    for number, line in enumerate(text.splitlines()):
        if not in_block and "8<" not in line:  # most lines: neither regex below can match
            yield number, line, [], False
            continue
        block = SNIPPET_BLOCK_RE.match(line)
        if block and not block.group(1):
            in_block = not in_block
            yield number, line, [], True
        elif in_block:
            yield number, line, [line.strip()] if line.strip() and not line.strip().startswith(";") else [], True
        else:
            snippet = SNIPPET_LINE_RE.match(line)
            yield number, line, [snippet.group(3)] if snippet and not snippet.group(1) else [], False


def snippet_problems(rel: str, lineno: int, spec: str, bases: Sequence[Path], *, via: tuple[str, ...] = ()
                     ) -> tuple[list[Problem], str | None]:
    """What is wrong with one included path and, through it, with every file it includes in turn.
    Returns the problems (at the page's line) and the included file's text when it resolved."""
    included, wrong = resolve_snippet(spec, bases)
    if included is None:
        through = "".join(f" (included through {name})" for name in via)
        return [Problem(rel, f"line {lineno}", f"{wrong}{through}. {SNIPPET_ACCEPTED}")], None
    problems: list[Problem] = []
    if len(via) < MAX_SNIPPET_DEPTH and "8<" in included:
        for _, _, nested, _ in snippet_lines(included):
            for path in nested:
                problems += snippet_problems(rel, lineno, path, bases, via=(*via, spec.strip()))[0]
    return problems, included


def external_problems(rel: str, text: str, first_line: int, what: str = "") -> list[Problem]:
    """Problems for everything in a page's Markdown (code blanked out) or in a file it includes as
    raw HTML that the reader's browser would fetch from another host."""
    found = [(e.url, e.what, e.offset) for e in externals(text)]
    images = {label.lower(): url for label, url in REF_LABEL_RE.findall(text)} if "![" in text else {}
    for m in MD_IMAGE_RE.finditer(text):
        url = m.group(1) or images.get((m.group(2) or "").lower(), "")
        if url and is_external(url):
            found.append((url, "a Markdown image", m.start()))
    problems = []
    for url, kind, offset in sorted(set(found), key=lambda f: f[2]):
        where = f"line {first_line + line_of(text, offset) - 1}" if not what else f"line {first_line}"
        problems.append(Problem(rel, where, f"{what}{kind} loads {plain_text(url)} from another host; the site "
                                f"serves everything its pages load itself. {EXTERNAL_ACCEPTED}"))
    return problems


def blank_code_spans(line: str) -> str:
    """The line with each inline code span replaced by as many spaces (columns and offsets kept)."""
    return INLINE_CODE_RE.sub(lambda m: " " * len(m.group(0)), line) if "`" in line else line


def blank_code(body: str) -> str:
    """The body with fenced code blocks and inline code spans blanked out (lines kept), so what is
    left is the Markdown and raw HTML a page is made of."""
    out, in_fence = [], None
    for line in body.split("\n"):
        fence = FENCE_RE.match(line)
        if fence and (in_fence is None or fence.group(1).startswith(in_fence)):
            in_fence = fence.group(1) if in_fence is None else None
            out.append("")
            continue
        out.append("" if in_fence is not None else blank_code_spans(line))
    return "\n".join(out)


def _link_target_problems(rel: str, lineno: int, line: str, docs_dir: Path) -> list[Problem]:
    if "](" not in line and "]:" not in line:  # neither a link nor a reference definition
        return []
    problems = []
    # Code spans are blanked, not cut out: Markdown reads them before links, so "[a]`x`(b)" is no link.
    text = blank_code_spans(line)
    for target in LINK_RE.findall(text) + REF_DEF_RE.findall(text):
        path = target.split("#", 1)[0].split("?", 1)[0]
        if EXTERNAL_RE.match(target) or not path:
            continue
        resolved = (docs_dir / rel).parent / path
        if not inside(os.path.abspath(resolved), [docs_dir]):
            wrong = f"leads outside docs/ (to {os.path.abspath(resolved)}), which the site does not publish"
        elif not resolved.is_file():
            wrong = f"points to {Path(os.path.relpath(resolved, docs_dir)).as_posix()}, which does not exist"
        else:
            continue
        problems.append(Problem(rel, f"line {lineno}", f"the link '{target}' {wrong}. Accepted: a path relative "
                                "to this file to a page or file under docs/"))
    return problems


def body_problems(rel: str, body: str, first_line: int, *, docs_dir: Path, snippet_bases: Sequence[Path],
                  is_post: bool = True) -> list[Problem]:
    """Problems in a page's Markdown body; the excerpt and title rules apply to posts only."""
    problems: list[Problem] = []
    in_fence = None
    saw_marker = False
    for offset, line, specs, in_snippet_block in snippet_lines(body):
        lineno = first_line + offset
        # Snippets are expanded before fences are parsed, so they count inside code blocks too; what
        # one includes outside a code block is part of the page's HTML, read for external resources.
        for spec in specs:
            found, included = snippet_problems(rel, lineno, spec, snippet_bases)
            problems += found
            if included is not None and in_fence is None:
                problems += external_problems(rel, included, lineno, f"the included file {spec.strip()}: ")
        if in_snippet_block:
            continue
        fence = FENCE_RE.match(line)
        if fence and in_fence is None:
            in_fence = fence.group(1)
        elif fence and fence.group(1).startswith(in_fence):
            in_fence = None
            continue
        for m in UNPINNED_RE.finditer(line):
            problems.append(Problem(rel, f"line {lineno}", f"link to the moving branch '{m.group(1)}' "
                                    f"({m.group(0)}/...). Accepted: a link pinned to a tag or commit, "
                                    "e.g. .../blob/v2.13.0/..."))
        if in_fence is not None:
            continue
        problems += _link_target_problems(rel, lineno, line, docs_dir)
        if line.strip() == EXCERPT_MARKER:
            saw_marker = True
        if is_post and HEADING_RE.match(line):
            problems.append(Problem(rel, f"line {lineno}", "a '# ' heading in the body. Accepted: the title "
                                    "comes from the front matter 'title' field only; start sections at '## '"))
    problems += external_problems(rel, blank_code(body), first_line)
    if is_post and not saw_marker:
        problems.append(Problem(rel, "excerpt", f"the excerpt marker is missing. Accepted: a line "
                                f"'{EXCERPT_MARKER}' after the opening paragraph"))
    return problems
