"""Front matter read safely: split from the body, parsed with a YAML loader that refuses what would
otherwise pass silently, and pydantic's errors turned into the site's problem shape."""

from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass
from typing import Any

import yaml

from .problems import Problem
from .schema import CATEGORIES, FrontMatter, ImpossibleDate, nearest

MAX_NESTING = 50  # flow collections ([...] or {...}) inside one another


class TooDeep(yaml.YAMLError):
    """Flow collections nested past MAX_NESTING: PyYAML's scanner takes time quadratic in their depth."""


class Loader(yaml.SafeLoader):
    """SafeLoader where only ``true``/``false`` are booleans (YAML 1.1's ``draft: yes`` would silently
    hide a post), ``2025-02-30`` is an ``ImpossibleDate`` for the schema to report under its field (not
    a parse failure of the whole front matter), and a key given twice is recorded (the last would win)."""

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

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        if self.flow_level >= MAX_NESTING:
            raise TooDeep("lists or mappings are nested too deeply")
        super().fetch_flow_collection_start(token_class)

    def construct_yaml_timestamp(self, node: yaml.Node) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            bad = ImpossibleDate(node.value)
            bad.reason = str(exc)
            return bad


Loader.add_constructor("tag:yaml.org,2002:timestamp", Loader.construct_yaml_timestamp)
Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                             list("tTfF"))


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
    if lines[0].rstrip() != "---":
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


def parse_front_matter(rel: str, source: Source) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The front matter as a mapping (None when it cannot be read), and what is wrong with it."""
    if source.unclosed:
        return None, [Problem(rel, "front matter", "the front matter opened by the '---' on line 1 is "
                              "never closed. Accepted: a closing '---' line after the last key")]
    if source.front_matter is None:
        return None, [Problem(rel, "front matter", "no front matter found. Accepted: the file starts "
                              "with a '---' line, YAML keys, and a closing '---' line")]
    raw = source.front_matter
    too_deep = [Problem(rel, "front matter", "lists or mappings are nested too deeply for YAML to read. "
                        "Accepted: values nested a few levels at most")]
    # PyYAML's composer recurses once per level (a RecursionError past about 300 levels of indentation).
    indent = max((len(line) - len(line.lstrip(" -")) for line in raw.split("\n")), default=0)  # "- - x" nests too
    if indent > 2 * MAX_NESTING:
        return None, too_deep
    try:
        loader = Loader(raw)  # the reader refuses control characters here, before parsing
    except yaml.reader.ReaderError as exc:
        return None, [Problem(rel, f"line {raw[:exc.position].count(chr(10)) + 2}", f"the front matter contains "
                              f"the control character U+{exc.character:04X}, which YAML does not allow. "
                              "Accepted: printable text (delete the character)")]
    try:
        meta = loader.get_single_data()
    except (TooDeep, RecursionError):
        return None, too_deep
    except yaml.YAMLError as exc:
        return None, [_yaml_problem(rel, raw, exc)]
    finally:
        loader.dispose()
    if meta is None:
        return None, [Problem(rel, "front matter", "the front matter is empty. Accepted: at least "
                              "title, slug, date, description, categories, authors and upstream")]
    if not isinstance(meta, dict):
        return None, [Problem(rel, "front matter", f"the front matter is a {type(meta).__name__}, not a "
                              "mapping. Accepted: 'key: value' lines")]
    return meta, [Problem(rel, f"field '{key}'", f"is given twice (lines {first + 2} and {again + 2}); YAML would "
                          "keep the last one silently. Accepted: each key once")
                  for key, first, again in loader.duplicates]


# Values quoted back to the author are cut short: an alias can make one YAML value a structure
# of a billion items (the "billion laughs"), which a plain repr() would spend hours printing.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 2, 4, 4, 4, 4
_REPR.maxstring = _REPR.maxother = 80


def quoted(value: Any) -> str:
    """A value as the author wrote it, quoted (like repr) and at most about 80 characters."""
    return _REPR.repr(str(value) if isinstance(value, str) else value)


def plain_text(value: Any) -> str:
    """A value as plain text (a string unquoted), at most about 80 characters."""
    return str(value)[:80] if isinstance(value, str) else quoted(value)


def translate(error: dict[str, Any]) -> tuple[str, str]:
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
        return where, (f"a key that is {what}, not text ({quoted(value)}). Accepted keys: "
                       f"{', '.join(FrontMatter.model_fields)}")
    if kind == "extra_forbidden":
        known = list(FrontMatter.model_fields) if len(loc) == 1 else []
        return where, (f"'{loc[-1]}' is not a known key.{nearest(str(loc[-1]), known)} Accepted keys: "
                       f"{', '.join(known) or 'see README.md'}")
    if kind == "literal_error" and loc and loc[0] == "categories":
        shown = plain_text(value)
        return "categories", (f"'{shown}' is not an allowed category.{nearest(shown, CATEGORIES)} "
                              f"Accepted: {', '.join(CATEGORIES)}")
    if kind == "literal_error":
        return where, f"'{plain_text(value)}' is not accepted. Accepted: {error['ctx']['expected']}"
    if kind == "too_short" and loc and loc[0] in {"categories", "authors", "upstream"}:
        return where, f"is empty. Accepted: {accepted}"
    if kind in {"bool_type", "bool_parsing"}:
        return where, f"{quoted(value)} is not a boolean. Accepted: true or false (unquoted)"
    if kind == "list_type":
        return where, (f"expected a list, got {type(value).__name__} {quoted(value)}. Accepted: a YAML list "
                       "such as [a, b]")
    if kind == "string_type":
        return where, f"expected text, got {type(value).__name__} {quoted(value)}. Accepted: a string"
    if kind in {"dict_type", "model_type", "model_attributes_type"}:
        return where, f"expected a mapping, got {type(value).__name__}. Accepted: key: value pairs"
    if kind in {"int_type", "int_parsing"}:
        return where, f"{quoted(value)} is not an integer. Accepted: a whole number"
    if kind == "greater_than_equal":
        return where, f"{quoted(value)} is too small. Accepted: {error['ctx']['ge']} or more"
    return where, f"{error['msg']} (got {quoted(value)}). Accepted: {accepted}"
