"""Read and check posts: front matter against ``post_schema``, bodies, and the rules across posts.

``check_all`` is the one entry point: the build hook ``validate_posts`` and the command line
``post_cli check`` both call it and get the typed ``Post`` records plus every ``Problem`` found.
Every problem has one shape: the file (relative to ``docs/``), the field or line, what is wrong,
and what is accepted. Nothing here imports MkDocs.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import os
import re
import reprlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import speedups
import yaml
from external_resources import externals, is_external, line_of
from post_schema import (
    AUTHORS_FILE,
    CATEGORIES,
    EXCERPT_MARKER,
    FORBIDDEN_CHARACTER,
    POSTS_DIR,
    Author,
    FrontMatter,
    ImpossibleDate,
    Post,
    character_problem,
    nearest,
    texts_of,
)
from pydantic import ValidationError


@dataclass(frozen=True, order=True)
class Problem:
    """One content mistake: where it is, what is wrong, what would be accepted."""

    file: str  # relative to docs/
    where: str  # "field 'categories'" or "line 12"
    message: str  # what is wrong and what is accepted
    # A warning does not stop a plain build, but fails a strict one (the site builds strictly).
    level: Literal["error", "warning"] = field(default="error", compare=False)

    def __str__(self) -> str:
        # A value quoted back may hold a control character (an ANSI escape would restyle the
        # author's terminal): shown as an escape, never as itself.
        text = f"{self.file}: {self.where}: {self.message}"
        return FORBIDDEN_CHARACTER.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def format_problems(problems: Sequence[Problem], what: str = "problem",
                    scope: str = "blog posts (paths relative to docs/)") -> str:
    noun = what if len(problems) == 1 else what + "s"
    lines = [f"{len(problems)} {noun} in {scope}:"]
    lines += [f"  - {p}" for p in problems]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# YAML: a safe loader that refuses what would otherwise pass silently
# ---------------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans, impossible dates kept for the schema, duplicate keys noted.

    * Only ``true``/``false`` are booleans: YAML 1.1 also reads ``yes``, ``no``, ``on`` and
      ``off`` as booleans, so ``draft: yes`` would silently hide a post.
    * ``2025-02-30`` becomes an ``ImpossibleDate`` (a string) so the schema reports it under the
      field it belongs to, instead of the whole front matter failing to parse.
    * A key given twice is recorded (the last one would otherwise win without a word).
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, int, int]] = []  # key, first line, repeated line (0-based)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    self.duplicates.append((str(key), seen[key], key_node.start_mark.line))
                else:
                    seen[key] = key_node.start_mark.line
            except TypeError:  # an unhashable key: SafeLoader reports it below
                pass
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_timestamp(self, node: yaml.Node) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            bad = ImpossibleDate(node.value)
            bad.reason = str(exc)
            return bad


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


@dataclass(frozen=True)
class Source:
    """A post file split into front matter and body."""

    front_matter: str | None  # None: there is none
    body: str
    body_line: int  # line number of the body's first line
    unclosed: bool = False  # opened with '---' but never closed


def split_front_matter(text: str) -> Source:
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return Source(None, text, 1)
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            return Source("\n".join(lines[1:i]) + "\n", "\n".join(lines[i + 1:]), i + 2)
    return Source(None, text, 1, unclosed=True)


_NO_SPACE_RE = re.compile(r"^([A-Za-z_][\w-]*):(?![\s/])(\S.*)$")


def _yaml_problem(rel: str, raw: str, exc: yaml.YAMLError) -> Problem:
    """The YAML error that an author can act on: where it really is, and what to write instead."""
    lines = raw.split("\n")
    for i, line in enumerate(lines):  # 'slug:value' confuses YAML one line later; name its own line
        m = _NO_SPACE_RE.match(line)
        if m and not line.startswith((" ", "\t", "-")):
            return Problem(rel, f"line {i + 2}", f"'{line.strip()}' has no space after the colon, so "
                           f"YAML does not read it as a key. Accepted: '{m.group(1)}: {m.group(2)}'")
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 2}" if mark is not None else "front matter"  # +1 for '---', +1 for 1-based
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if "'\\t'" in problem or (mark is not None and "\t" in (lines[mark.line] if mark.line < len(lines) else "")):
        return Problem(rel, where, "a tab character is used for indentation; YAML indents with spaces "
                       "only. Accepted: indent with spaces")
    if "could not determine a constructor" in problem:
        return Problem(rel, where, f"the front matter uses a YAML tag ({problem.split('tag ')[-1]}) that "
                       "is not allowed. Accepted: plain YAML values, no '!!' tags")
    return Problem(rel, where, f"the front matter is not valid YAML ({problem}). Accepted: 'key: value' "
                   "lines; quote values that contain ': ' or start with a symbol")


MAX_NESTING = 50  # flow collections ([...] or {...}) inside one another


def _flow_depth(raw: str) -> int:
    """How deeply [...] and {...} nest outside quoted scalars (an apostrophe inside a word is text)."""
    depth = deepest = 0
    quote, before, i = "", "", 0  # before: the last non-blank character outside quotes on this line
    while i < len(raw):
        ch = raw[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1  # an escaped character
            elif ch == quote and quote == "'" and raw[i + 1:i + 2] == "'":
                i += 1  # '' is a quote inside a single-quoted scalar
            elif ch == quote:
                quote = ""
        elif ch in "'\"" and before in ("", ":", "[", "{", ",", "-", "?"):
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
        if ch == "\n":
            before = ""
        elif not quote and ch not in " \t":
            before = ch
        i += 1
    return deepest


# Within one process (`mkdocs serve`), front matter is parsed once per text: the answer depends on
# nothing but the file's name and the front matter's text, and each caller gets its own copy of
# the mapping. ML_BLOG_SPEEDUPS=off turns this off.
_front_matters: dict[tuple[str, str], tuple[dict[str, Any] | None, tuple[Problem, ...]]] = {}
reused_front_matters = [0]


def parse_front_matter(rel: str, source: Source) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The front matter as a mapping (None when it cannot be read), and what is wrong with it."""
    if source.unclosed or source.front_matter is None or not speedups.enabled("check_memo"):
        return _parse_front_matter(rel, source)
    key = (rel, source.front_matter)
    kept = _front_matters.get(key)
    if kept is None:
        meta, problems = _parse_front_matter(rel, source)
        _front_matters[key] = (copy.deepcopy(meta), tuple(problems))
        return meta, problems
    reused_front_matters[0] += 1
    return copy.deepcopy(kept[0]), list(kept[1])


def _parse_front_matter(rel: str, source: Source) -> tuple[dict[str, Any] | None, list[Problem]]:
    if source.unclosed:
        return None, [Problem(rel, "front matter", "the front matter opened by the '---' on line 1 is "
                              "never closed. Accepted: a closing '---' line after the last key")]
    if source.front_matter is None:
        return None, [Problem(rel, "front matter", "no front matter found. Accepted: the file starts "
                              "with a '---' line, YAML keys, and a closing '---' line")]
    raw = source.front_matter
    too_deep = [Problem(rel, "front matter", "lists or mappings are nested too deeply for YAML to read. "
                        "Accepted: values nested a few levels at most")]
    # PyYAML's scanner takes time quadratic in the depth of [[[...]]] (2000 levels: 10 s), and its
    # composer recurses once per level (a RecursionError past about 300 levels of indentation).
    indent = max((len(line) - len(line.lstrip(" -")) for line in raw.split("\n")), default=0)  # "- - x" nests too
    if _flow_depth(raw) > MAX_NESTING or indent > 2 * MAX_NESTING:
        return None, too_deep
    try:
        loader = _Loader(raw)  # the reader refuses control characters here, before parsing
    except yaml.reader.ReaderError as exc:
        return None, [Problem(rel, f"line {raw[:exc.position].count(chr(10)) + 2}", f"the front matter contains "
                              f"the control character U+{exc.character:04X}, which YAML does not allow. "
                              "Accepted: printable text (delete the character)")]
    try:
        meta = loader.get_single_data()
    except yaml.YAMLError as exc:
        return None, [_yaml_problem(rel, raw, exc)]
    except RecursionError:  # nesting by indentation, too deep for the composer
        return None, too_deep
    finally:
        loader.dispose()
    if meta is None:
        return None, [Problem(rel, "front matter", "the front matter is empty. Accepted: at least "
                              "title, slug, date, description, categories, authors and upstream")]
    if not isinstance(meta, dict):
        return None, [Problem(rel, "front matter", f"the front matter is a {type(meta).__name__}, not a "
                              "mapping. Accepted: 'key: value' lines")]
    problems = [
        Problem(rel, f"field '{key}'", f"is given twice (lines {first + 2} and {again + 2}); YAML would "
                "keep the last one silently. Accepted: each key once")
        for key, first, again in loader.duplicates
    ]
    return meta, problems


# Values quoted back to the author are cut short: an alias can make one YAML value a structure
# of a billion items (the "billion laughs"), which a plain repr() would spend hours printing.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 2, 4, 4, 4, 4
_REPR.maxstring = _REPR.maxother = 80


def _shown(value: Any) -> str:
    """A value as the author wrote it, quoted (like repr) and at most about 80 characters."""
    return _REPR.repr(str(value) if isinstance(value, str) else value)


def _plain(value: Any) -> str:
    """A value as plain text (a string unquoted), at most about 80 characters."""
    return str(value)[:80] if isinstance(value, str) else _shown(value)


def _translate(error: dict[str, Any]) -> tuple[str, str]:
    """A pydantic error as (field, 'what is wrong. Accepted: ...')."""
    loc = tuple(error["loc"])
    where = ".".join(str(p) for p in loc) if loc else "front matter"
    kind = error["type"]
    value = error.get("input")
    top = FrontMatter.model_fields.get(str(loc[0])) if loc else None
    accepted = top.description if top and top.description else "see README.md"
    if kind == "post_rule":
        return where, error["msg"]
    if kind == "missing":
        return where, f"is required but missing. Accepted: {accepted}"
    if kind == "invalid_key":  # YAML keys may be numbers, booleans or null; front matter keys are text
        what = {"NoneType": "null", "bool": "a boolean", "int": "a number", "float": "a number"}.get(
            type(value).__name__, type(value).__name__)
        return where, (f"a key that is {what}, not text ({_shown(value)}). Accepted keys: "
                       f"{', '.join(FrontMatter.model_fields)}")
    if kind == "extra_forbidden":
        known = list(FrontMatter.model_fields) if len(loc) == 1 else []
        hint = nearest(str(loc[-1]), known) if known else ""
        return where, f"'{loc[-1]}' is not a known key.{hint} Accepted keys: {', '.join(known) or 'see README.md'}"
    if kind == "literal_error" and loc and loc[0] == "categories":
        shown = _plain(value)
        return "categories", (f"'{shown}' is not an allowed category.{nearest(shown, CATEGORIES)} "
                              f"Accepted: {', '.join(CATEGORIES)}")
    if kind == "literal_error":
        return where, f"'{_plain(value)}' is not accepted. Accepted: {error['ctx']['expected']}"
    if kind == "too_short" and loc and loc[0] in {"categories", "authors", "upstream"}:
        return where, f"is empty. Accepted: {accepted}"
    if kind in {"bool_type", "bool_parsing"}:
        return where, f"{_shown(value)} is not a boolean. Accepted: true or false (unquoted)"
    if kind == "list_type":
        return where, (f"expected a list, got {type(value).__name__} {_shown(value)}. Accepted: a YAML list "
                       "such as [a, b]")
    if kind == "string_type":
        return where, f"expected text, got {type(value).__name__} {_shown(value)}. Accepted: a string"
    if kind in {"dict_type", "model_type", "model_attributes_type"}:
        return where, f"expected a mapping, got {type(value).__name__}. Accepted: key: value pairs"
    if kind in {"int_type", "int_parsing"}:
        return where, f"{_shown(value)} is not an integer. Accepted: a whole number"
    if kind == "greater_than_equal":
        return where, f"{_shown(value)} is too small. Accepted: {error['ctx']['ge']} or more"
    return where, f"{error['msg']} (got {_shown(value)}). Accepted: {accepted}"


# ---------------------------------------------------------------------------------------------
# Bodies: the excerpt, headings, pinned links, snippets and internal links
# ---------------------------------------------------------------------------------------------

# A link into an upstream repository that follows a moving branch instead of a tag or commit.
UNPINNED_RE = re.compile(
    r"https://(?:github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw|blame)"
    r"|raw\.githubusercontent\.com/[\w.-]+/[\w.-]+)/(main|master|develop|HEAD)(?=/|\b)"
)
FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
# pymdownx.snippets: `--8<-- "path"` on one line, or a block of paths between two `--8<--` lines.
SNIPPET_LINE_RE = re.compile(r"""^\s*(;*)-+8<-+[ \t]+(["'])(.+?)\2\s*$""")
SNIPPET_BLOCK_RE = re.compile(r"^\s*(;*)-+8<-+\s*$")
SNIPPET_SPEC_RE = re.compile(r"^(.*?)(?::(-?\d*(?::-?\d*)?(?:,[-\d:]+)*)|:([a-z][-_0-9a-z]*))?$", re.IGNORECASE)
INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*)?\)")
REF_DEF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
REF_LABEL_RE = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
EXTERNAL_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#|/)", re.IGNORECASE)


# Within one process (`mkdocs serve`), a body whose text and every file it looked at are unchanged is
# not checked again: the key is the body and its arguments, and the answer is kept with each probe it
# made (whether a linked or included file exists, and the text of an included file's sections), all
# asked again, cheaply, before the answer is reused. ML_BLOG_SPEEDUPS=off turns this off.
_probes: list[tuple[str, Path, object]] | None = None
_bodies: dict[str, tuple[tuple[Problem, ...], tuple[tuple[str, Path, object], ...]]] = {}
reused_bodies = [0]


def _is_file(path: Path) -> bool:
    found = path.is_file()
    if _probes is not None:
        _probes.append(("file", path, found))
    return found


def _real(path: Path) -> str:
    """Where a path leads once every link is followed (recorded, so a memo is dropped when it moves)."""
    real = os.path.realpath(path)
    if _probes is not None:
        _probes.append(("real", path, real))
    return real


def _read_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if _probes is not None:
        _probes.append(("text", path, hashlib.sha256(text.encode()).hexdigest()))
    return text


def _probe_holds(kind: str, path: Path, seen: object) -> bool:
    if kind == "file":
        return path.is_file() == seen
    if kind == "real":
        return os.path.realpath(path) == seen
    try:
        return hashlib.sha256(path.read_text(encoding="utf-8", errors="replace").encode()).hexdigest() == seen
    except OSError:
        return False


def inside(real: str, folders: Iterable[Path | str]) -> bool:
    """Whether a resolved path lies in one of the folders (each resolved too)."""
    return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep)
               for top in (os.path.realpath(f) for f in folders))


SNIPPET_ACCEPTED = ("Accepted: a path relative to the repository root (pymdownx.snippets base_path) to a text "
                    "file inside the repository, e.g. examples/<post>/<file>.py")
MAX_SNIPPET_DEPTH = 10  # files that include files that include files...


@dataclass(frozen=True)
class Included:
    """A snippet that resolved to a file inside the repository: its path and its text."""

    path: Path
    text: str


def resolve_snippet(spec: str, bases: Sequence[Path]) -> tuple[Included | None, str | None]:
    """The file a ``--8<--`` path includes, as pymdownx.snippets finds it (the first base folder
    that holds it, never above that folder), then checked as pymdownx does not: after following
    links the file is still inside a base folder, it is a file, and it is UTF-8 text. Returns the
    file, or what is wrong with the path (without the 'Accepted' part)."""
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
        if os.path.lexists(candidate) and (_is_file(Path(candidate)) or os.path.isdir(candidate)
                                          or os.path.islink(candidate)):
            found = Path(candidate)
            break
    if found is None:
        if escapes is not None:
            return None, f"the snippet '{path}' leads outside the repository (to {escapes})"
        return None, f"the snippet '{path}' does not exist"
    real = _real(found)
    if not inside(real, bases):
        return None, (f"the snippet '{path}' is a link to {real}, outside the repository: the build would "
                      "publish that file's contents")
    if not os.path.exists(real):
        return None, f"the snippet '{path}' is a link to {real}, which does not exist"
    if not _is_file(found):
        return None, f"the snippet '{path}' is a folder, not a file"
    try:
        text = found.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"the snippet '{path}' is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if _probes is not None:
        _probes.append(("text", found, hashlib.sha256(text.encode()).hexdigest()))
    section = m.group(3) if m else None
    if section and not re.search(rf"-+8<-+\s+\[\s*start\s*:\s*{re.escape(section)}\s*\]", text):
        return None, (f"the snippet '{path}' has no section '{section}'. A section is marked "
                      f"'--8<-- [start:{section}]' ... '--8<-- [end:{section}]' in that file")
    return Included(found, text), None


def snippet_lines(text: str) -> Iterator[tuple[int, str]]:
    """(0-based line, path) of every file a text includes, as pymdownx.snippets reads it: a
    ``--8<-- "path"`` line, or the paths of a block between two ``--8<--`` lines (';' escapes)."""
    in_block = False
    for number, line in enumerate(text.splitlines()):
        block = SNIPPET_BLOCK_RE.match(line)
        if block and not block.group(1):
            in_block = not in_block
            continue
        if in_block:
            if line.strip() and not line.strip().startswith(";"):
                yield number, line.strip()
            continue
        snippet = SNIPPET_LINE_RE.match(line)
        if snippet and not snippet.group(1):
            yield number, snippet.group(3)


def snippet_problems(rel: str, lineno: int, spec: str, bases: Sequence[Path], *, via: tuple[str, ...] = ()
                     ) -> tuple[list[Problem], Included | None]:
    """What is wrong with one included path and, through it, with every file it includes in turn.
    Returns the problems (at the page's line) and the included file when it resolved."""
    included, wrong = resolve_snippet(spec, bases)
    through = "".join(f" (included through {name})" for name in via)
    if wrong is not None:
        return [Problem(rel, f"line {lineno}", f"{wrong}{through}. {SNIPPET_ACCEPTED}")], None
    problems: list[Problem] = []
    assert included is not None
    if len(via) < MAX_SNIPPET_DEPTH and ("8<" in included.text):
        name = spec.strip()
        for _, nested in snippet_lines(included.text):
            problems += snippet_problems(rel, lineno, nested, bases, via=(*via, name))[0]
    return problems, included


def external_problems(rel: str, text: str, first_line: int, what: str = "",
                      own_hosts: frozenset[str] = frozenset()) -> list[Problem]:
    """Problems for everything in a page's Markdown (code blanked out) or in a file it includes as
    raw HTML that the reader's browser would fetch from another host."""
    found = [(e.url, e.what, e.offset) for e in externals(text, own_hosts)]
    images = {label.lower(): url for label, url in REF_LABEL_RE.findall(text)} if "![" in text else {}
    for m in MD_IMAGE_RE.finditer(text):
        url = m.group(1) or images.get((m.group(2) or "").lower(), "")
        if url and is_external(url, own_hosts):
            found.append((url, "a Markdown image", m.start()))
    problems = []
    for url, kind, offset in sorted(set(found), key=lambda f: f[2]):
        where = f"line {first_line + line_of(text, offset) - 1}" if not what else f"line {first_line}"
        problems.append(Problem(rel, where, f"{what}{kind} loads {_plain(url)} from another host; the site "
                                f"serves everything its pages load itself. {EXTERNAL_ACCEPTED}"))
    return problems


EXTERNAL_ACCEPTED = ("Accepted: a file under docs/ (or a data: URL) referred to by a relative path; links that "
                     "a reader follows (<a href>, Markdown links) may go to any host")
# ![alt](url "title") or ![alt][ref] / ![ref][]; reference definitions are REF_DEF_RE.
MD_IMAGE_RE = re.compile(r"!\[(?:[^\]\\]|\\.)*\](?:\(\s*<?([^)\s>]+)>?[^)]*\)|\[([^\]]*)\])")


def blank_code(body: str) -> str:
    """The body with fenced code blocks and inline code spans blanked out (lines kept), so what is
    left is the Markdown and raw HTML a page is made of."""
    out, in_fence = [], None
    for line in body.split("\n"):
        fence = FENCE_RE.match(line)
        if fence and (in_fence is None or fence.group(1).startswith(in_fence)):
            in_fence = fence.group(1)[0] * len(fence.group(1)) if in_fence is None else None
            out.append("")
            continue
        out.append("" if in_fence is not None else INLINE_CODE_RE.sub(lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


def _link_target_problems(rel: str, lineno: int, line: str, docs_dir: Path) -> list[Problem]:
    problems = []
    text = INLINE_CODE_RE.sub("", line)
    targets = LINK_RE.findall(text) + REF_DEF_RE.findall(text)
    for target in targets:
        if EXTERNAL_RE.match(target):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if not path:
            continue
        resolved = (docs_dir / rel).parent / path
        if not inside(os.path.abspath(resolved), [docs_dir]):
            problems.append(Problem(rel, f"line {lineno}", f"the link '{target}' leads outside docs/ (to "
                                    f"{os.path.abspath(resolved)}), which the site does not publish. "
                                    "Accepted: a path relative to this file to a page or file under docs/"))
        elif not _is_file(resolved):
            problems.append(Problem(rel, f"line {lineno}", f"the link '{target}' points to "
                                    f"{Path(os.path.relpath(resolved, docs_dir)).as_posix()}, "
                                    "which does not exist. Accepted: a path relative to this file to a "
                                    "page or file under docs/"))
    return problems


def body_problems(rel: str, body: str, first_line: int, *, docs_dir: Path | None = None,
                  snippet_bases: Sequence[Path] = (), is_post: bool = True) -> list[Problem]:
    """Problems in a page's Markdown body; the excerpt and title rules apply to posts only."""
    global _probes
    if not speedups.enabled("check_memo"):
        return _body_problems(rel, body, first_line, docs_dir=docs_dir, snippet_bases=snippet_bases,
                              is_post=is_post)
    key = hashlib.sha256("\0".join((rel, str(first_line), str(docs_dir), repr([str(b) for b in snippet_bases]),
                                     str(is_post), body)).encode()).hexdigest()
    kept = _bodies.get(key)
    if kept is not None and all(_probe_holds(*probe) for probe in kept[1]):
        reused_bodies[0] += 1
        return list(kept[0])
    _probes = []
    try:
        problems = _body_problems(rel, body, first_line, docs_dir=docs_dir, snippet_bases=snippet_bases,
                                  is_post=is_post)
        _bodies[key] = (tuple(problems), tuple(_probes))
    finally:
        _probes = None
    return problems


def _body_problems(rel: str, body: str, first_line: int, *, docs_dir: Path | None,
                   snippet_bases: Sequence[Path], is_post: bool) -> list[Problem]:
    problems: list[Problem] = []
    in_fence = None
    in_snippet_block = False
    saw_marker = False
    for offset, line in enumerate(body.splitlines()):
        lineno = first_line + offset
        # Snippets are expanded before fences are parsed, so they count inside code blocks too; what
        # one includes outside a code block is part of the page's HTML, read for external resources.
        block = SNIPPET_BLOCK_RE.match(line)
        if block and not block.group(1):
            in_snippet_block = not in_snippet_block
            continue
        specs = [line.strip()] if in_snippet_block and line.strip() and not line.strip().startswith(";") else []
        snippet = SNIPPET_LINE_RE.match(line) if not in_snippet_block else None
        if snippet and not snippet.group(1):
            specs.append(snippet.group(3))
        for spec in specs:
            found, included = snippet_problems(rel, lineno, spec, snippet_bases)
            problems += found
            if included is not None and in_fence is None:
                problems += external_problems(rel, included.text, lineno, f"the included file {spec.strip()}: ")
        if in_snippet_block:
            continue
        fence = FENCE_RE.match(line)
        if fence:
            token = fence.group(1)
            if in_fence is None:
                in_fence = token[0] * len(token)
            elif token.startswith(in_fence):
                in_fence = None
                continue
        for m in UNPINNED_RE.finditer(line):
            problems.append(Problem(rel, f"line {lineno}", f"link to the moving branch '{m.group(1)}' "
                                    f"({m.group(0)}/...). Accepted: a link pinned to a tag or commit, "
                                    "e.g. .../blob/v2.13.0/..."))
        if in_fence is not None:
            continue
        if docs_dir is not None:
            problems += _link_target_problems(rel, lineno, line, docs_dir)
        if line.strip() == EXCERPT_MARKER:
            saw_marker = True
        if is_post and re.match(r"^#\s+\S", line):
            problems.append(Problem(rel, f"line {lineno}", "a '# ' heading in the body. Accepted: the title "
                                    "comes from the front matter 'title' field only; start sections at '## '"))
    problems += external_problems(rel, blank_code(body), first_line)
    if is_post and not saw_marker:
        problems.append(Problem(rel, "excerpt", f"the excerpt marker is missing. Accepted: a line "
                                f"'{EXCERPT_MARKER}' after the opening paragraph"))
    return problems


# ---------------------------------------------------------------------------------------------
# One post, then all of them
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What checking needs beyond the post itself."""

    docs_dir: Path
    authors: dict[str, Author]
    snippet_bases: tuple[Path, ...] = ()
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())


def check_post(rel: str, text: str, ctx: Context) -> tuple[Post | None, list[Problem]]:
    """Check one post's text. Returns its record (when its front matter is valid) and its problems."""
    source = split_front_matter(text)
    meta, problems = parse_front_matter(rel, source)
    if meta is None:
        return None, problems
    problems += body_problems(rel, source.body, source.body_line, docs_dir=ctx.docs_dir,
                              snippet_bases=ctx.snippet_bases)
    record = None
    try:
        front_matter = FrontMatter.model_validate(meta)
    except ValidationError as exc:
        for error in exc.errors():
            where, message = _translate(error)
            problems.append(Problem(rel, f"field '{where}'", message))
    else:
        known = [ctx.authors[a] for a in front_matter.authors if a in ctx.authors]
        record = Post(rel, front_matter, tuple(known))
    raw_authors = meta.get("authors")
    if isinstance(raw_authors, list):
        # Checked even when other fields are wrong, so one build reports every problem.
        for a in (a for a in raw_authors if isinstance(a, str) and a.strip() and a not in ctx.authors):
            accepted = ", ".join(sorted(ctx.authors)) or "(none defined)"
            problems.append(Problem(rel, "field 'authors'", f"'{a}' is not in {AUTHORS_FILE}."
                                    f"{nearest(a, ctx.authors)} Accepted: {accepted}"))
    if record is not None:
        problems += _published_problems(record, ctx)
    return record, problems


def _published_problems(post: Post, ctx: Context) -> list[Problem]:
    """Rules for posts that readers will see: no scaffold TODOs, no future dates, links that exist."""
    problems = []
    for link in post.meta.links or []:
        for target in [link] if isinstance(link, str) else list(link.values()):
            path = target.split("#")[0]
            if "://" not in path and not (ctx.docs_dir / path).is_file():
                problems.append(Problem(post.file, "field 'links'", f"'{target}' does not exist under "
                                        "docs/. Accepted: a path relative to docs/, e.g. blog/posts/other-post.md"))
    if post.draft:
        return problems
    if "TODO" in post.description:
        problems.append(Problem(post.file, "field 'description'", "still holds the scaffold's TODO. "
                                "Accepted: your own one or two sentences (or keep 'draft: true')"))
    if any("TODO" in f"{k} {v}" for k, v in post.meta.upstream.items()):
        problems.append(Problem(post.file, "field 'upstream'", "still holds the scaffold's TODO. "
                                "Accepted: 'project: pinned tag or commit' (or keep 'draft: true')"))
    if post.created.date() > ctx.today:
        problems.append(Problem(post.file, "field 'date'", f"{post.created.date()} is in the future, so "
                                "the post would be published with a date readers have not reached. "
                                "Accepted: today or earlier, or 'draft: true' until then", level="warning"))
    return problems


def cross_post_problems(posts: Sequence[Post]) -> list[Problem]:
    """Rules that need every post: unique URLs and slugs, related posts, series parts."""
    problems: list[Problem] = []
    by_url: dict[str, Post] = {}
    by_slug: dict[str, Post] = {}
    for post in sorted(posts, key=lambda p: p.file):
        other = by_url.get(post.url)
        if other:
            problems.append(Problem(post.file, "field 'slug'", f"resolves to the same URL /{post.url} as "
                                    f"{other.file}. Accepted: a slug or date that no other post uses"))
        by_url.setdefault(post.url, post)
        other = by_slug.get(post.slug)
        if other and other.url != post.url:
            problems.append(Problem(post.file, "field 'slug'", f"'{post.slug}' is already used by "
                                    f"{other.file}. Accepted: a slug no other post uses (related posts "
                                    "and series refer to posts by slug)"))
        by_slug.setdefault(post.slug, post)
    for post in posts:
        for slug in post.meta.related or []:
            if slug == post.slug:
                problems.append(Problem(post.file, "field 'related'", f"'{slug}' is this post itself. "
                                        "Accepted: slugs of other posts"))
            elif slug not in by_slug:
                problems.append(Problem(post.file, "field 'related'", f"no post has the slug '{slug}'."
                                        f"{nearest(slug, by_slug)} Accepted: {', '.join(sorted(by_slug))}"))
    series: dict[str, list[Post]] = {}
    for post in posts:
        if post.meta.series:
            series.setdefault(post.meta.series.name, []).append(post)
    for name, members in series.items():
        parts: dict[int, Post] = {}
        for post in sorted(members, key=lambda p: p.file):
            part = post.meta.series.part  # type: ignore[union-attr]
            if part in parts:
                problems.append(Problem(post.file, "field 'series.part'", f"part {part} of '{name}' is "
                                        f"also claimed by {parts[part].file}. Accepted: each part number "
                                        "once per series"))
            parts.setdefault(part, post)
        missing = sorted(set(range(1, max(parts) + 1)) - set(parts))
        if missing:
            problems.append(Problem(parts[max(parts)].file, "field 'series.part'", f"series '{name}' has "
                                    f"no part {missing[0]} before part {max(parts)}. Accepted: parts "
                                    "numbered 1, 2, 3... without gaps"))
        # Readers see only published parts: a published part may not follow a draft one.
        for part, post in sorted(parts.items()):
            earlier = [p for n, p in parts.items() if n < part and p.draft]
            if not post.draft and earlier:
                problems.append(Problem(post.file, "field 'series.part'", f"part {part} of '{name}' is "
                                        f"published but part {earlier[0].meta.series.part} "  # type: ignore[union-attr]
                                        f"({earlier[0].file}) is a draft. Accepted: publish parts in order"))
        for other_name in series:
            if other_name != name and other_name.lower() == name.lower():
                problems.append(Problem(members[0].file, "field 'series.name'", f"'{name}' and "
                                        f"'{other_name}' differ only in case. Accepted: one spelling per series"))
    return problems


def load_authors(docs_dir: Path) -> tuple[dict[str, Author], list[Problem]]:
    path = docs_dir / AUTHORS_FILE
    if not path.is_file():
        return {}, [Problem(AUTHORS_FILE, "file", "is missing. Accepted: a YAML file with an 'authors:' "
                            "mapping of id -> {name, description}")]
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}  # noqa: S506 (safe)
    except yaml.YAMLError as exc:
        return {}, [Problem(AUTHORS_FILE, "file", f"is not valid YAML ({exc}). Accepted: YAML 'key: value' lines")]
    authors = data.get("authors") if isinstance(data, dict) else None
    if not isinstance(authors, dict) or not authors:
        return {}, [Problem(AUTHORS_FILE, "field 'authors'", "expected a non-empty mapping of id -> "
                            "{name, description}")]
    found: dict[str, Author] = {}
    problems = []
    for aid, info in authors.items():
        wrong = next((w for where, text in texts_of(info, f"authors.{aid}")
                      if (w := character_problem(text, multiline=where.endswith(".description"), at=where))), None)
        if wrong is not None:
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}'", wrong))
            continue
        if not isinstance(info, dict) or not str(info.get("name", "")).strip():
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}'", "needs a 'name'. Accepted: "
                                    "{name: ..., description: ..., avatar: local path}"))
            continue
        avatar = str(info.get("avatar", ""))
        if "://" in avatar or avatar.startswith("//"):
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}.avatar'", f"'{avatar}' is on "
                                    "another host; the site loads nothing from other hosts. Accepted: a "
                                    "path to an image under docs/"))
        found[str(aid)] = Author(str(aid), str(info["name"]).strip())
    return found, problems


def linked_out_problem(rel: str, path: Path, repository: Path) -> Problem | None:
    """A file under docs/ that leads, through a link, outside the repository: the build would
    publish whatever it points to (a CI runner's secrets, /etc/passwd)."""
    real = os.path.realpath(path)
    if inside(real, [repository]):
        return None
    return Problem(rel, "file", f"is a link to {real}, outside the repository: the build would publish "
                   "that file. Accepted: a file inside the repository (copy it in, or link to a file inside)")


def docs_link_problems(docs_dir: Path, repository: Path) -> list[Problem]:
    """Every file (or folder) under docs/ that a link takes outside the repository, found as MkDocs
    walks docs/ (following links), each folder once."""
    problems, seen = [], set()
    for folder, dirs, files in os.walk(docs_dir, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a link back into a folder already walked: MkDocs would loop there
            dirs[:] = []
            continue
        seen.add(real)
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if os.path.islink(path):
                rel = path.relative_to(docs_dir).as_posix()
                problem = linked_out_problem(rel, path, repository)
                if problem is not None:
                    problems.append(problem)
                    if name in dirs:
                        dirs.remove(name)
    return problems


def post_files(docs_dir: Path) -> list[str]:
    return sorted(p.relative_to(docs_dir).as_posix() for p in (docs_dir / POSTS_DIR).rglob("*.md"))


def _read(docs_dir: Path, rel: str) -> tuple[str | None, Problem | None]:
    try:
        return (docs_dir / rel).read_text(encoding="utf-8"), None
    except UnicodeDecodeError as exc:
        return None, Problem(rel, "file", f"is not UTF-8 ({exc.reason} at byte {exc.start}). Accepted: UTF-8 text")


def check_all(docs_dir: Path, files: Iterable[str] | None = None, *, pages: Iterable[str] = (),
              snippet_bases: Sequence[Path] | None = None, today: dt.date | None = None,
              repository: Path | None = None) -> tuple[list[Post], list[Problem]]:
    """Check every post under docs/blog/posts (or the given posts), and the bodies of other pages.

    Snippet paths resolve against ``snippet_bases`` (mkdocs.yml's base_path), by default the folder
    holding docs/. With ``repository`` (the folder of mkdocs.yml), every file under docs/ must also
    stay inside it once links are followed. Returns the records of the valid posts and every
    problem, sorted.
    """
    snippet_bases = [docs_dir.parent] if snippet_bases is None else snippet_bases
    authors, problems = load_authors(docs_dir)
    if repository is not None:
        problems += docs_link_problems(docs_dir, repository)
    ctx = Context(docs_dir, authors, tuple(snippet_bases), today or dt.datetime.now(dt.UTC).date())
    posts = []
    for rel in post_files(docs_dir) if files is None else files:
        text, unreadable = _read(docs_dir, rel)
        if text is None:
            problems.append(unreadable)  # type: ignore[arg-type]
            continue
        post, found = check_post(rel, text, ctx)
        problems += found
        if post is not None:
            posts.append(post)
    for rel in pages:  # pages that are not posts: only what would break their build
        text, unreadable = _read(docs_dir, rel)
        if text is None:
            problems.append(unreadable)  # type: ignore[arg-type]
            continue
        source = split_front_matter(text)
        problems += body_problems(rel, source.body, source.body_line, docs_dir=docs_dir,
                                  snippet_bases=snippet_bases, is_post=False)
    problems += cross_post_problems(posts)
    return posts, sorted(set(problems))
