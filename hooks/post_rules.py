"""The rules every post's front matter and body must follow, in one place.

Used three ways:

* by the build hook ``hooks/validate_posts.py`` (every build, served or deployed);
* on its own, without building: ``python hooks/post_rules.py check [docs_dir]`` (exit 1 on problems);
* to emit the JSON Schema that editors use for completion: ``python hooks/post_rules.py schema``;
* to scaffold a valid post: ``python hooks/post_rules.py new "Title" --category Kernel``.

Nothing here imports MkDocs, so the rules outlive a move to another site generator. Every problem
is a ``Problem`` with one shape: the file (relative to ``docs/``), the field or line, what is
wrong, and what is accepted. All problems are collected; callers decide how to stop.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

ROOT = Path(__file__).resolve().parents[1]
POSTS_DIR = "blog/posts"  # relative to docs/
AUTHORS_FILE = "blog/.authors.yml"
SCHEMA_FILE = ROOT / "schemas" / "post-front-matter.schema.json"
EXCERPT_MARKER = "<!-- more -->"

CATEGORIES: tuple[str, ...] = (
    "Machine Learning Performance",
    "Distributed Training",
    "torch.compile",
    "LLM Architecture",
    "LLM Inference",
    "Kernel",
    "Communication",
)
DESCRIPTION_MIN, DESCRIPTION_MAX = 60, 220
TITLE_MAX = 140
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
HIDE_VALUES = ("navigation", "toc", "footer", "feedback", "path", "tags")
# A link into an upstream repository that follows a moving branch instead of a tag or commit.
UNPINNED_RE = re.compile(
    r"https://(?:github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw|blame)"
    r"|raw\.githubusercontent\.com/[\w.-]+/[\w.-]+)/(main|master|develop|HEAD)(?=/|\b)"
)
FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True, order=True)
class Problem:
    """One content mistake: where it is, what is wrong, what would be accepted."""

    file: str  # relative to docs/
    where: str  # "field 'categories'" or "line 12"
    message: str  # what is wrong and what is accepted

    def __str__(self) -> str:
        return f"{self.file}: {self.where}: {self.message}"


def _nearest(value: str, choices: Iterable[str]) -> str:
    """' Did you mean X?' for the closest accepted spelling, or ''."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return f" Did you mean '{lowered[match[0]]}'?" if match else ""


def _err(message: str) -> PydanticCustomError:
    # Custom errors keep our wording intact (no "Value error, " prefix).
    return PydanticCustomError("post_rule", message)


# ---------------------------------------------------------------------------------------------
# Normalisers: turn what YAML gives us into one form before the schema checks it
# ---------------------------------------------------------------------------------------------


def _to_datetime(value: Any) -> Any:
    """A bare YAML date becomes midnight UTC; a naive datetime is taken as UTC."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, str):
        raise _err(
            f"'{value}' is not a calendar date. Accepted: an unquoted ISO date such as "
            "2026-05-11 (or 2026-05-11 09:30:00 with a time)"
        )
    raise _err(
        f"expected a date, got {type(value).__name__}. Accepted: an unquoted ISO date such as 2026-05-11"
    )


def to_dates(value: Any) -> Any:
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"created", "updated"})
        if unknown:
            raise _err(
                f"unknown key '{unknown[0]}' under date. Accepted: created, updated."
                + _nearest(str(unknown[0]), ["created", "updated"])
            )
        return value
    return {"created": value}


_ISO = {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
# YAML has dates, JSON does not: editors see the ISO string forms and the mapping form.
DATE_JSON_SCHEMA = {
    "anyOf": [
        *_ISO["anyOf"],
        {
            "type": "object",
            "properties": {"created": _ISO, "updated": _ISO},
            "required": ["created"],
            "additionalProperties": False,
        },
    ]
}

PostDateTime = Annotated[dt.datetime, BeforeValidator(_to_datetime)]


class PostDates(BaseModel):
    model_config = ConfigDict(extra="forbid")
    created: PostDateTime
    updated: PostDateTime | None = None

    @model_validator(mode="after")
    def _updated_after_created(self) -> PostDates:
        if self.updated is not None and self.updated < self.created:
            raise _err(
                f"updated ({self.updated.date()}) is before created ({self.created.date()}). "
                "Accepted: an updated date on or after the created date"
            )
        return self


class Series(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, description="The series' display name, shared by all parts")
    part: StrictInt = Field(ge=1, description="1 for the first part, 2 for the second...")


def _unique(values: list[str], what: str) -> list[str]:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            raise _err(f"'{v}' is listed twice. Accepted: each {what} once")
        seen.add(v)
    return values


class FrontMatter(BaseModel):
    """Front matter of a post in docs/blog/posts/."""

    model_config = ConfigDict(
        extra="forbid",
        title="Post front matter",
        json_schema_extra={"$comment": "Generated by hooks/post_rules.py; do not edit by hand."},
    )

    title: str = Field(description="The post's title (the body has no '# ' heading of its own).")
    slug: str = Field(description="Lowercase words joined by hyphens; the URL is /blog/YYYY/MM/DD/<slug>/.")
    date: Annotated[PostDates, BeforeValidator(to_dates), WithJsonSchema(DATE_JSON_SCHEMA)] = Field(
        description="ISO date (2026-05-11), or a mapping {created: ..., updated: ...}."
    )
    description: str = Field(
        description=f"Plain text, {DESCRIPTION_MIN}-{DESCRIPTION_MAX} characters: the listing "
        "summary and link preview."
    )
    categories: list[Literal[CATEGORIES]] = Field(min_length=1)  # type: ignore[valid-type]
    authors: list[str] = Field(min_length=1, description="Ids from docs/blog/.authors.yml.")
    upstream: dict[str, str] = Field(
        min_length=1,
        description="Upstream projects the post was written against: name -> pinned tag or commit.",
    )
    tags: list[str] | None = None
    series: Series | None = None
    related: list[str] | None = Field(None, description="Slugs of related posts.")
    links: list[str | dict[str, str]] | None = Field(
        None, description="Material's related links: paths relative to docs/ (or {title: path})."
    )
    draft: StrictBool | None = None
    pin: StrictBool | None = None
    readtime: StrictInt | None = Field(None, ge=1, description="Minutes; computed when omitted.")
    hide: list[Literal[HIDE_VALUES]] | None = None  # type: ignore[valid-type]
    search: dict[Literal["boost", "exclude"], float | bool] | None = None
    # Understood by Material and the feed plugin; accepted so authors can use them.
    template: str | None = Field(None, description="A template in overrides/ that extends post.html.")
    icon: str | None = Field(None, description="Material icon shortcode, e.g. material/chip.")
    subtitle: str | None = None
    status: str | None = None
    comments: StrictBool | None = None
    rss: dict[Literal["feed_description"], str] | None = Field(
        None, description="Per-post feed overrides: {feed_description: text}."
    )

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise _err("the title is empty. Accepted: non-empty text")
        if len(v) > TITLE_MAX:
            raise _err(f"the title has {len(v)} characters. Accepted: at most {TITLE_MAX}")
        return v

    @field_validator("slug")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG_RE.match(v):
            suggestion = re.sub(r"[^a-z0-9]+", "-", v.lower()).strip("-")
            raise _err(
                f"'{v}' is not a slug. Accepted: lowercase letters and digits in words joined by "
                f"single hyphens, e.g. '{suggestion or 'my-post'}'"
            )
        return v

    @field_validator("description")
    @classmethod
    def _description(cls, v: str) -> str:
        v = " ".join(v.split())
        if not DESCRIPTION_MIN <= len(v) <= DESCRIPTION_MAX:
            raise _err(
                f"the description has {len(v)} characters. Accepted: {DESCRIPTION_MIN} to "
                f"{DESCRIPTION_MAX} characters (one or two sentences)"
            )
        if re.search(r"[<>`]|\*\*|\]\(", v):
            raise _err(
                "the description contains Markdown or HTML. Accepted: plain text (it is shown "
                "as-is in listings, feeds and link previews)"
            )
        return v

    @field_validator("categories", "authors", "tags", "related")
    @classmethod
    def _distinct(cls, v: list[str] | None, info: Any) -> list[str] | None:
        if v is None:
            return v
        for item in v:
            if not item.strip():
                raise _err(f"an empty entry in {info.field_name}. Accepted: non-empty text")
        return _unique(v, info.field_name.rstrip("s"))

    @field_validator("upstream")
    @classmethod
    def _upstream(cls, v: dict[str, str]) -> dict[str, str]:
        for name, ref in v.items():
            if not ref.strip() or ref.strip() in {"main", "master", "HEAD", "latest"}:
                raise _err(
                    f"'{name}: {ref}' does not pin a version. Accepted: a tag or commit, "
                    "e.g. 'pytorch: v2.13.0'"
                )
        return v


# ---------------------------------------------------------------------------------------------
# Checking one post, then all of them
# ---------------------------------------------------------------------------------------------


@dataclass
class Post:
    file: str  # relative to docs/
    meta: FrontMatter

    @property
    def url(self) -> str:
        return f"blog/{self.meta.date.created:%Y/%m/%d}/{self.meta.slug}/"


def _field_name(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) if loc else "front matter"


def _translate(error: dict[str, Any], meta: dict[str, Any]) -> tuple[str, str]:
    """A pydantic error as (field, 'what is wrong. Accepted: ...')."""
    loc = tuple(error["loc"])
    field = _field_name(loc)
    kind = error["type"]
    value = error.get("input")
    top = FrontMatter.model_fields.get(str(loc[0])) if loc else None
    if kind == "post_rule":
        return field, error["msg"]
    if kind == "missing":
        desc = top.description if top and top.description else "see README.md"
        return field, f"is required but missing. Accepted: {desc}"
    if kind == "extra_forbidden":
        known = list(FrontMatter.model_fields) if len(loc) == 1 else []
        hint = _nearest(str(loc[-1]), known) if known else ""
        accepted = ", ".join(known) if known else "see README.md"
        return field, f"'{loc[-1]}' is not a known key.{hint} Accepted keys: {accepted}"
    if kind == "literal_error" and loc and loc[0] == "categories":
        return (
            "categories",
            f"'{value}' is not an allowed category.{_nearest(str(value), CATEGORIES)} "
            f"Accepted: {', '.join(CATEGORIES)}",
        )
    if kind == "literal_error":
        return field, f"'{value}' is not accepted. Accepted: {error['ctx']['expected']}"
    if kind == "too_short" and loc and loc[0] in {"categories", "authors", "upstream"}:
        return field, f"is empty. Accepted: {top.description if top and top.description else 'at least one entry'}"
    if kind in {"bool_type", "bool_parsing"}:
        return field, f"{value!r} is not a boolean. Accepted: true or false (unquoted)"
    if kind in {"list_type"}:
        return field, f"expected a list, got {type(value).__name__} {value!r}. Accepted: a YAML list such as [a, b]"
    if kind in {"string_type"}:
        return field, f"expected text, got {type(value).__name__} {value!r}. Accepted: a string"
    if kind in {"dict_type", "model_type", "model_attributes_type"}:
        return field, f"expected a mapping, got {type(value).__name__}. Accepted: key: value pairs"
    if kind in {"int_type", "int_parsing"}:
        return field, f"{value!r} is not an integer. Accepted: a whole number"
    if kind == "greater_than_equal":
        return field, f"{value!r} is too small. Accepted: {error['ctx']['ge']} or more"
    return field, f"{error['msg']} (got {value!r})"


class _Loader(yaml.SafeLoader):
    """SafeLoader whose impossible dates (2025-13-01) are YAML errors with a line, not ValueErrors."""

    def construct_yaml_timestamp(self, node: yaml.Node) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"'{node.value}' is not a real calendar date ({exc})", node.start_mark
            ) from None


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter YAML or None, body, line number where the body starts)."""
    text = text.lstrip("\ufeff")
    match = FRONT_MATTER_RE.match(text)
    if not match:
        return None, text, 1
    return match.group(1) or "", text[match.end() :], match.group(0).count("\n") + 1


def _body_problems(rel: str, body: str, first_line: int) -> list[Problem]:
    problems: list[Problem] = []
    in_fence = None
    saw_marker = False
    for offset, line in enumerate(body.splitlines()):
        lineno = first_line + offset
        fence = FENCE_RE.match(line)
        if fence:
            token = fence.group(1)
            if in_fence is None:
                in_fence = token[0] * len(token)
            elif token.startswith(in_fence):
                in_fence = None
        for m in UNPINNED_RE.finditer(line):
            problems.append(
                Problem(
                    rel,
                    f"line {lineno}",
                    f"link to the moving branch '{m.group(1)}' ({m.group(0)}/...). Accepted: a "
                    "link pinned to a tag or commit, e.g. .../blob/v2.13.0/...",
                )
            )
        if in_fence is not None:
            continue
        if line.strip() == EXCERPT_MARKER:
            saw_marker = True
        if re.match(r"^#\s+\S", line):
            problems.append(
                Problem(
                    rel,
                    f"line {lineno}",
                    "a '# ' heading in the body. Accepted: the title comes from the front matter "
                    "'title' field only; start sections at '## '",
                )
            )
    if not saw_marker:
        problems.append(
            Problem(
                rel,
                "excerpt",
                f"the excerpt marker is missing. Accepted: a line '{EXCERPT_MARKER}' after the "
                "opening paragraph",
            )
        )
    return problems


def check_post(
    rel: str, text: str, authors: set[str], docs_dir: Path | None = None
) -> tuple[Post | None, list[Problem]]:
    """Check one post's text. Returns the parsed post (when its front matter is valid) and problems."""
    raw, body, body_line = split_front_matter(text)
    if raw is None:
        return None, [
            Problem(
                rel,
                "front matter",
                "no front matter found. Accepted: the file starts with a '---' line, YAML keys, "
                "and a closing '---' line",
            )
        ]
    try:
        meta = yaml.load(raw, Loader=_Loader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 2}" if mark is not None else "front matter"  # +1 for '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "calendar date" in problem:
            accepted = "a real date written YYYY-MM-DD, e.g. 2026-05-11"
        else:
            accepted = "'key: value' lines; quote values that contain ': ' or start with a symbol"
        return None, [
            Problem(rel, line, f"the front matter is not valid YAML ({problem}). Accepted: {accepted}")
        ]
    if meta is None:
        return None, [Problem(rel, "front matter", "the front matter is empty. Accepted: at least "
                              "title, slug, date, description, categories, authors and upstream")]
    if not isinstance(meta, dict):
        return None, [
            Problem(rel, "front matter", f"the front matter is a {type(meta).__name__}, not a "
                    "mapping. Accepted: 'key: value' lines")
        ]
    problems = _body_problems(rel, body, body_line)
    post = None
    try:
        post = Post(rel, FrontMatter.model_validate(meta))
    except ValidationError as exc:
        for error in exc.errors():
            field, message = _translate(error, meta)
            problems.append(Problem(rel, f"field '{field}'", message))
    raw_authors = meta.get("authors")
    if isinstance(raw_authors, list):
        # Checked even when other fields are wrong, so one build reports every problem.
        for a in (a for a in raw_authors if isinstance(a, str) and a.strip() and a not in authors):
            accepted = ", ".join(sorted(authors)) or "(none defined)"
            problems.append(Problem(rel, "field 'authors'", f"'{a}' is not in {AUTHORS_FILE}."
                                    f"{_nearest(a, authors)} Accepted: {accepted}"))
    if post is not None:
        problems += _placeholder_problems(post)
        if docs_dir is not None:
            problems += _link_problems(post, docs_dir)
    return post, problems


def _placeholder_problems(post: Post) -> list[Problem]:
    """The scaffold leaves TODOs in a draft; a published post may not keep them."""
    if post.meta.draft:
        return []
    problems = []
    if "TODO" in post.meta.description:
        problems.append(Problem(post.file, "field 'description'", "still holds the scaffold's TODO. "
                                "Accepted: your own one or two sentences (or keep 'draft: true')"))
    if any("TODO" in f"{k} {v}" for k, v in post.meta.upstream.items()):
        problems.append(Problem(post.file, "field 'upstream'", "still holds the scaffold's TODO. "
                                "Accepted: 'project: pinned tag or commit' (or keep 'draft: true')"))
    return problems


def _link_problems(post: Post, docs_dir: Path) -> list[Problem]:
    problems = []
    for link in post.meta.links or []:
        targets = [link] if isinstance(link, str) else list(link.values())
        for target in targets:
            path = target.split("#")[0]
            if "://" in path:
                continue
            if not (docs_dir / path).is_file():
                problems.append(Problem(post.file, "field 'links'", f"'{target}' does not exist "
                                        "under docs/. Accepted: a path relative to docs/, e.g. "
                                        "blog/posts/other-post.md"))
    return problems


def cross_post_problems(posts: list[Post]) -> list[Problem]:
    """Rules that need every post: unique URLs and slugs, related posts, series parts."""
    problems: list[Problem] = []
    by_url: dict[str, Post] = {}
    by_slug: dict[str, Post] = {}
    for post in sorted(posts, key=lambda p: p.file):
        other = by_url.get(post.url)
        if other:
            problems.append(Problem(post.file, "field 'slug'", f"resolves to the same URL "
                                    f"/{post.url} as {other.file}. Accepted: a slug or date "
                                    "that no other post uses"))
        by_url.setdefault(post.url, post)
        other = by_slug.get(post.meta.slug)
        if other and other.url != post.url:
            problems.append(Problem(post.file, "field 'slug'", f"'{post.meta.slug}' is already "
                                    f"used by {other.file}. Accepted: a slug no other post uses "
                                    "(related posts and series refer to posts by slug)"))
        by_slug.setdefault(post.meta.slug, post)
    for post in posts:
        for slug in post.meta.related or []:
            if slug == post.meta.slug:
                problems.append(Problem(post.file, "field 'related'", f"'{slug}' is this post "
                                        "itself. Accepted: slugs of other posts"))
            elif slug not in by_slug:
                problems.append(Problem(post.file, "field 'related'", f"no post has the slug "
                                        f"'{slug}'.{_nearest(slug, by_slug)} Accepted: "
                                        f"{', '.join(sorted(by_slug))}"))
    series: dict[str, list[Post]] = {}
    for post in posts:
        if post.meta.series:
            series.setdefault(post.meta.series.name, []).append(post)
    for name, members in series.items():
        parts: dict[int, Post] = {}
        for post in sorted(members, key=lambda p: p.file):
            part = post.meta.series.part  # type: ignore[union-attr]
            if part in parts:
                problems.append(Problem(post.file, "field 'series.part'", f"part {part} of "
                                        f"'{name}' is also claimed by {parts[part].file}. "
                                        "Accepted: each part number once per series"))
            parts.setdefault(part, post)
        missing = sorted(set(range(1, max(parts) + 1)) - set(parts))
        if missing:
            last = parts[max(parts)]
            problems.append(Problem(last.file, "field 'series.part'", f"series '{name}' has no "
                                    f"part {missing[0]} before part {max(parts)}. Accepted: "
                                    "parts numbered 1, 2, 3... without gaps"))
        for other_name in series:
            if other_name != name and other_name.lower() == name.lower():
                problems.append(Problem(members[0].file, "field 'series.name'", f"'{name}' and "
                                        f"'{other_name}' differ only in case. Accepted: one "
                                        "spelling per series"))
    return problems


def load_authors(docs_dir: Path) -> tuple[set[str], list[Problem]]:
    path = docs_dir / AUTHORS_FILE
    if not path.is_file():
        return set(), [Problem(AUTHORS_FILE, "file", "is missing. Accepted: a YAML file with an "
                               "'authors:' mapping of id -> {name, description}")]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        return set(), [Problem(AUTHORS_FILE, "file", f"is not valid YAML ({exc}).")]
    authors = data.get("authors") if isinstance(data, dict) else None
    if not isinstance(authors, dict) or not authors:
        return set(), [Problem(AUTHORS_FILE, "field 'authors'", "expected a non-empty mapping "
                               "of id -> {name, description}")]
    problems = []
    for aid, info in authors.items():
        if not isinstance(info, dict) or not str(info.get("name", "")).strip():
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}'", "needs a 'name'. "
                                    "Accepted: {name: ..., description: ..., avatar: local path}"))
            continue
        avatar = str(info.get("avatar", ""))
        if "://" in avatar or avatar.startswith("//"):
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}.avatar'", f"'{avatar}' "
                                    "is on another host; the site loads nothing from other hosts. "
                                    "Accepted: a path to an image under docs/"))
    return set(authors), problems


def check_all(docs_dir: Path, files: Iterable[str] | None = None) -> tuple[list[Post], list[Problem]]:
    """Check every post under docs/blog/posts (or the given paths relative to docs/)."""
    authors, problems = load_authors(docs_dir)
    if files is None:
        files = sorted(
            p.relative_to(docs_dir).as_posix() for p in (docs_dir / POSTS_DIR).rglob("*.md")
        )
    posts = []
    for rel in files:
        try:
            text = (docs_dir / rel).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(rel, "file", f"is not UTF-8 ({exc.reason} at byte "
                                    f"{exc.start}). Accepted: UTF-8 text"))
            continue
        post, found = check_post(rel, text, authors, docs_dir)
        problems += found
        if post is not None:
            posts.append(post)
    problems += cross_post_problems(posts)
    return posts, sorted(set(problems))


def format_problems(problems: list[Problem]) -> str:
    noun = "problem" if len(problems) == 1 else "problems"
    lines = [f"{len(problems)} {noun} in blog posts (paths relative to docs/):"]
    lines += [f"  - {p}" for p in problems]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# JSON Schema and scaffolding
# ---------------------------------------------------------------------------------------------


def json_schema() -> str:
    schema = FrontMatter.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def slugify(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)[:80].strip("-") or "post"


def scaffold(title: str, categories: list[str], date: dt.date, author: str, slug: str | None = None) -> tuple[str, str]:
    """(file name, text) of a new post that passes every rule once its description is written."""
    slug = slug or slugify(title)
    cats = "\n".join(f"  - {c}" for c in categories)
    quoted = json.dumps(title, ensure_ascii=False)
    text = f"""---
title: {quoted}
slug: {slug}
date: {date.isoformat()}
description: >-
  TODO: replace with one or two plain sentences that say what the reader will learn here.
categories:
{cats}
authors: [{author}]
upstream:
  TODO: TODO
draft: true
---

Say in one paragraph what question this post answers and what the reader can do afterwards.

{EXCERPT_MARKER}

## The map

## What surprises people

## Try it yourself

## Versions

## References
"""
    return f"{slug}.md", text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="post_rules", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check every post without building the site")
    check.add_argument("docs_dir", nargs="?", default=str(ROOT / "docs"))
    schema = sub.add_parser("schema", help="print (or --write) the front matter's JSON Schema")
    schema.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE.relative_to(ROOT)}")
    new = sub.add_parser("new", help="scaffold a new draft post from a title")
    new.add_argument("title")
    new.add_argument("--category", action="append", choices=CATEGORIES, required=True)
    new.add_argument("--author", default="editors")
    new.add_argument("--date", type=dt.date.fromisoformat, default=dt.date.today())
    new.add_argument("--slug")
    new.add_argument("--docs-dir", default=str(ROOT / "docs"))
    args = parser.parse_args(argv)

    if args.command == "check":
        docs = Path(args.docs_dir)
        posts, problems = check_all(docs)
        if problems:
            print(format_problems(problems), file=sys.stderr)
            return 1
        print(f"{len(posts)} posts checked, no problems.")
        return 0
    if args.command == "schema":
        if args.write:
            SCHEMA_FILE.parent.mkdir(exist_ok=True)
            SCHEMA_FILE.write_text(json_schema(), encoding="utf-8")
            print(f"wrote {SCHEMA_FILE.relative_to(ROOT)}")
        else:
            sys.stdout.write(json_schema())
        return 0
    name, text = scaffold(args.title, args.category, args.date, args.author, args.slug)
    target = Path(args.docs_dir) / POSTS_DIR / name
    if target.exists():
        print(f"{target} already exists; pass --slug to choose another name", file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"created {target} (a draft: write the description and body, then remove 'draft: true')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
