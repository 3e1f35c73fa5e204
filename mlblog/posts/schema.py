"""What a post's front matter may contain (``FrontMatter``), and the typed record of one post (``Post``)
that every part of the build reads. ``CATEGORIES`` lives here only: the build gives it to the blog plugin
as its ``categories_allowed`` and stops if mkdocs.yml sets a different list."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from markupsafe import Markup
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from . import titles

POSTS_DIR = "blog/posts"  # relative to docs/
AUTHORS_FILE = "blog/.authors.yml"
EXCERPT_MARKER = "<!-- more -->"

CATEGORIES: tuple[str, ...] = ("Machine Learning Performance", "Distributed Training", "torch.compile",
                               "LLM Architecture", "LLM Inference", "Kernel", "Communication")
DESCRIPTION_MIN, DESCRIPTION_MAX = 60, 220
TITLE_MAX = 140
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
HIDE_VALUES = ("navigation", "toc", "footer", "feedback", "path", "tags")


def nearest(value: str, choices: Iterable[str]) -> str:
    """' Did you mean X?' for the closest accepted spelling, or ''."""
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return f" Did you mean '{lowered[match[0]]}'?" if match else ""


# Characters no text field may hold: C0 and C1 controls other than tab and newline (a bell or an
# ANSI colour code pasted from a terminal), and what XML 1.0 cannot carry at all (lone surrogates,
# U+FFFE, U+FFFF), which would stop every reader's feed from parsing. U+2028/U+2029 are line breaks.
FORBIDDEN_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u2028\u2029]")
_CONTROL_NAMES = {0x00: "null", 0x07: "bell", 0x08: "backspace", 0x0A: "line feed", 0x0D: "carriage return",
                  0x1B: "escape", 0x7F: "delete", 0x85: "next line", 0x2028: "line separator",
                  0x2029: "paragraph separator"}


def character_problem(value: str, *, multiline: bool, at: str = "") -> str | None:
    """What is wrong with a text field's characters (``at``: which part of the field), or None."""
    bad = FORBIDDEN_CHARACTER.search(value) or (None if multiline else re.search("[\n\r]", value))
    if bad is None:
        return None
    code = ord(bad.group(0))
    name = _CONTROL_NAMES.get(code) or ("a surrogate" if 0xD800 <= code < 0xE000 else
                                        "a noncharacter" if code >= 0xFFFE else "a control character")
    lines = "; line breaks only in description and rss.feed_description" if not multiline else ""
    return (f"{at + ' ' if at else ''}contains U+{code:04X} ({name}) at character {bad.start() + 1}, "
            f"which feeds and pages cannot carry. Accepted: printable text (tabs allowed{lines})")


def texts_of(value: Any, path: str = "", seen: set[int] | None = None) -> Iterator[tuple[str, str]]:
    """(where, text) of every string in a YAML value: mapping keys, values and list items. A list
    or mapping reached twice (a YAML alias, as in a "billion laughs" bomb) is read once."""
    seen = set() if seen is None else seen
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict | list | tuple) and id(value) not in seen:
        seen.add(id(value))
        for key, child in value.items() if isinstance(value, dict) else enumerate(value):
            name = (f"{path}.{key}" if path else str(key)) if isinstance(value, dict) else f"{path}[{key}]"
            if isinstance(key, str) and isinstance(value, dict):
                yield f"{name} (a key)", key
            yield from texts_of(child, name, seen)


def rule_error(message: str) -> PydanticCustomError:
    # Custom errors keep our wording intact (no "Value error, " prefix).
    return PydanticCustomError("post_rule", message)


class ImpossibleDate(str):
    """A date-shaped YAML scalar that is no real day (2025-02-30); the loader keeps why."""

    reason: str = ""


def _to_datetime(value: Any) -> Any:
    """A bare YAML date becomes midnight UTC; a naive datetime is taken as UTC."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, ImpossibleDate):
        raise rule_error(f"'{value}' is not a real calendar date ({value.reason}). Accepted: a real date "
                         "written YYYY-MM-DD, e.g. 2026-05-11")
    if isinstance(value, str):
        raise rule_error(f"'{value}' is not a calendar date. Accepted: an unquoted ISO date such as "
                         "2026-05-11 (or 2026-05-11 09:30:00 with a time)")
    raise rule_error(f"expected a date, got {type(value).__name__}. Accepted: an unquoted ISO date such as 2026-05-11")


def to_dates(value: Any) -> Any:
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"created", "updated"}, key=str)
        if unknown:
            raise rule_error(f"unknown key '{unknown[0]}' under date. Accepted: created, updated."
                             + nearest(str(unknown[0]), ["created", "updated"]))
        return value
    return {"created": value}


# YAML has dates, JSON does not: editors see the ISO string forms and the mapping form.
_ISO = {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
DATE_JSON_SCHEMA = {"anyOf": [*_ISO["anyOf"], {"type": "object", "properties": {"created": _ISO, "updated": _ISO},
                                               "required": ["created"], "additionalProperties": False}]}

PostDateTime = Annotated[dt.datetime, BeforeValidator(_to_datetime)]


class PostDates(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    created: PostDateTime
    updated: PostDateTime | None = None

    @model_validator(mode="after")
    def _updated_after_created(self) -> PostDates:
        if self.updated is not None and self.updated < self.created:
            raise rule_error(f"updated ({self.updated.date()}) is before created ({self.created.date()}). "
                             "Accepted: an updated date on or after the created date")
        return self


class Series(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, description="The series' display name, shared by all parts")
    part: StrictInt = Field(ge=1, description="1 for the first part, 2 for the second...")


class FrontMatter(BaseModel):
    """Front matter of a post in docs/blog/posts/."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Post front matter", json_schema_extra={
        "$comment": "Generated by python -m mlblog schema; do not edit by hand."})

    title: str = Field(description="The post's title (the body has no '# ' heading of its own); inline code "
                       "between single backticks, as in Markdown: 'How `Engine.generate()` Boots'.")
    slug: str = Field(description="Lowercase words joined by hyphens; the URL is /blog/YYYY/MM/DD/<slug>/.")
    date: Annotated[PostDates, BeforeValidator(to_dates), WithJsonSchema(DATE_JSON_SCHEMA)] = Field(
        description="ISO date (2026-05-11), or a mapping {created: ..., updated: ...}.")
    description: str = Field(description=f"Plain text, {DESCRIPTION_MIN}-{DESCRIPTION_MAX} characters: the "
                             "listing summary and link preview.")
    categories: list[Literal[CATEGORIES]] = Field(  # type: ignore[valid-type]
        min_length=1, description=f"One or more of: {', '.join(CATEGORIES)}.")
    authors: list[str] = Field(min_length=1, description="Ids from docs/blog/.authors.yml.")
    upstream: dict[str, str] = Field(min_length=1, description="Upstream projects the post was written against: "
                                     "name -> pinned tag or commit.")
    tags: list[str] | None = None
    series: Series | None = None
    related: list[str] | None = Field(None, description="Slugs of related posts.")
    links: list[str | dict[str, str]] | None = Field(
        None, description="Material's related links: paths relative to docs/ (or {title: path}).")
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
        None, description="Per-post feed overrides: {feed_description: text}.")

    @field_validator("*", mode="before")
    @classmethod
    def _printable(cls, v: Any, info: Any) -> Any:
        for where, text in texts_of(v):
            at = f"{info.field_name}{'' if where.startswith('[') else '.'}{where}" if where else ""
            wrong = character_problem(text, multiline=info.field_name in ("description", "rss"), at=at)
            if wrong is not None:
                raise rule_error(wrong)
        return v

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise rule_error("the title is empty. Accepted: non-empty text")
        if len(v) > TITLE_MAX:
            raise rule_error(f"the title has {len(v)} characters. Accepted: at most {TITLE_MAX}")
        if (wrong := titles.problem(v)) is not None:
            raise rule_error(wrong)
        return v

    @field_validator("slug")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG_RE.match(v):
            suggestion = re.sub(r"[^a-z0-9]+", "-", v.lower()).strip("-")
            raise rule_error(f"'{v}' is not a slug. Accepted: lowercase letters and digits in words joined by "
                             f"single hyphens, e.g. '{suggestion or 'my-post'}'")
        return v

    @field_validator("description")
    @classmethod
    def _description(cls, v: str) -> str:
        v = " ".join(v.split())
        if not DESCRIPTION_MIN <= len(v) <= DESCRIPTION_MAX:
            raise rule_error(f"the description has {len(v)} characters. Accepted: {DESCRIPTION_MIN} to "
                             f"{DESCRIPTION_MAX} characters (one or two sentences)")
        if re.search(r"[<>`]|\*\*|\]\(", v):
            raise rule_error("the description contains Markdown or HTML. Accepted: plain text (it is shown "
                             "as-is in listings, feeds and link previews)")
        return v

    @field_validator("categories", "authors", "tags", "related")
    @classmethod
    def _distinct(cls, v: list[str] | None, info: Any) -> list[str] | None:
        if v is None:
            return v
        if not all(item.strip() for item in v):
            raise rule_error(f"an empty entry in {info.field_name}. Accepted: non-empty text")
        seen: set[str] = set()
        for item in v:
            if item in seen:
                what = {"categories": "category"}.get(info.field_name, info.field_name.rstrip("s"))
                raise rule_error(f"'{item}' is listed twice. Accepted: each {what} once")
            seen.add(item)
        return v

    @field_validator("tags")
    @classmethod
    def _plain_tags(cls, v: list[str] | None) -> list[str] | None:
        for tag in v or []:
            if re.search(r"[<>&]", tag):
                # mkdocs-rss-plugin 1.19 prints tags into the RSS <category> without escaping.
                raise rule_error(f"'{tag}' contains <, > or &, which the RSS feed would print as "
                                 "markup. Accepted: plain labels without <, > or &")
        return v

    @field_validator("upstream")
    @classmethod
    def _upstream(cls, v: dict[str, str]) -> dict[str, str]:
        for name, ref in v.items():
            if ref.strip() in {"", "main", "master", "HEAD", "latest"}:
                raise rule_error(f"'{name}: {ref}' does not pin a version. Accepted: a tag or commit, "
                                 "e.g. 'pytorch: v2.13.0'")
        return v


@dataclass(frozen=True)
class Author:
    id: str
    name: str


@dataclass(frozen=True)
class Post:
    """One valid post: its file, its checked front matter, and the authors it names."""

    file: str  # relative to docs/
    meta: FrontMatter
    authors: tuple[Author, ...] = ()

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        """As the front matter writes it, inline code in backticks. Print title_html (HTML, escaped, code in
        <code>; templates print it as it is) or title_text (plain text, code without its backticks)."""
        return self.meta.title

    @property
    def title_html(self) -> Markup:
        return titles.html(self.meta.title)

    @property
    def title_text(self) -> str:
        return titles.plain(self.meta.title)

    @property
    def description(self) -> str:
        return self.meta.description

    @property
    def created(self) -> dt.datetime:
        return self.meta.date.created

    @property
    def updated(self) -> dt.datetime | None:
        return self.meta.date.updated

    @property
    def modified(self) -> dt.datetime:
        return self.meta.date.updated or self.meta.date.created

    @property
    def draft(self) -> bool:
        return bool(self.meta.draft)

    @property
    def url(self) -> str:
        """The page's URL relative to the site root (mkdocs.yml: post_url_format "{date}/{slug}")."""
        return f"blog/{self.created:%Y/%m/%d}/{self.slug}/"

    @property
    def card(self) -> str:
        """The link-preview image drawn at build (publish/cards.py), relative to the site root."""
        return f"assets/cards/{self.slug}.png"

    @property
    def keywords(self) -> list[str]:
        return [*self.meta.categories, *(self.meta.tags or [])]
