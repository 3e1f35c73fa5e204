"""Fuzzed posts: generated front matters and bodies, valid and invalid, through the post rules.

Hypothesis generates posts in-process and sends each through ``post_rules.check_post`` (as
test_rules.py does, in milliseconds): valid posts of every shape the schema allows, unicode
included, and invalid ones made from them by one mistake each (a missing key, a wrong type, a huge
value, an unknown key or category, a duplicate key, a YAML tag, an alias bomb, deep nesting, a NUL
byte), with BOMs and CRLF line ends mixed in. Every example must finish within a time bound, never
raise, give a valid post its record and no problem, give an invalid one at least one problem in
the standard shape, and run no code. Example counts are fixed and the generation derandomized, so
every run (and CI) checks the same inputs. A few generated posts then go through real builds.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support import ROOT, Site, make_site

import mlblog.posts as post_rules
from mlblog.posts import schema

TODAY = dt.date(2026, 12, 1)
SECONDS_PER_EXAMPLE = 5.0  # checking one post takes about 5 ms
FUZZ = settings(derandomize=True, database=None, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
WHERE_RE = re.compile(r"^(front matter|file|excerpt|line \d+|field '.+')$", re.DOTALL)
FIELDS = post_rules.FrontMatter.model_fields
REQUIRED = ("title", "slug", "date", "description", "categories", "authors", "upstream")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> post_rules.Context:
    docs = tmp_path_factory.mktemp("fuzz") / "docs"
    (docs / "blog" / "posts").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "blog" / ".authors.yml", docs / "blog" / ".authors.yml")
    authors, problems = post_rules.load_authors(docs)
    assert problems == []
    return post_rules.Context(docs, authors, (ROOT,), TODAY)


@pytest.fixture(scope="module")
def marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file that only executed YAML could create."""
    return tmp_path_factory.mktemp("pwned") / "marker"


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt a hang (a real one, which a hypothesis deadline would wait for forever)."""
    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"checking one post took over {seconds} s")  # a hang, not a slow machine
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def checked(text: str, ctx: post_rules.Context) -> tuple[post_rules.Post | None, list[post_rules.Problem]]:
    with time_limit(SECONDS_PER_EXAMPLE):
        return post_rules.check_post("blog/posts/fuzz.md", text, ctx)


def assert_standard_shape(problems: list[post_rules.Problem]) -> None:
    for p in problems:
        assert isinstance(p, post_rules.Problem)
        assert p.file == "blog/posts/fuzz.md"
        assert WHERE_RE.match(p.where), p
        assert "Accepted" in p.message, p
        assert len(str(p)) < 3000, str(p)[:300]  # quoted values are cut short


# ---------------------------------------------------------------------------------------------
# Strategies: valid front matter and bodies, then one mistake each
# ---------------------------------------------------------------------------------------------

# Printable text from many scripts (a fixed alphabet keeps generation fast): ASCII, Latin accents,
# Greek, Cyrillic, Hebrew and Arabic (right to left), CJK, Hangul, Devanagari, emoji (astral plane),
# a combining accent, no-break and ideographic spaces, quotes and YAML's own indicators.
LETTERS = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
           "éüßøçñÅαβΩдЖשלוםمرحبا中文字日本語한국어हिन्दी🚀😀\u0301")
SYMBOLS = " .,;:!?'\"-_/()[]{}&*#%@|~^=+$€—…«»\u00a0\u3000"
TEXT = st.sampled_from(LETTERS + SYMBOLS)
WORD = st.text(st.sampled_from(LETTERS), min_size=1, max_size=12)
DATES = st.dates(min_value=dt.date(1970, 1, 1), max_value=TODAY)
SLUG_WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789"), min_size=1, max_size=10)


def _description(text: str) -> str:
    return " ".join(text.split())


def _valid_description(d: str) -> bool:
    return (post_rules.DESCRIPTION_MIN <= len(d) <= post_rules.DESCRIPTION_MAX and "TODO" not in d
            and not re.search(r"\*\*|\]\(", d))


@st.composite
def dates(draw: st.DrawFn) -> Any:
    created = draw(DATES)
    if draw(st.booleans()):
        return created
    updated = draw(st.dates(min_value=created, max_value=TODAY))
    return {"created": created, "updated": updated}


@st.composite
def valid_meta(draw: st.DrawFn) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "title": draw(st.text(TEXT, min_size=1, max_size=post_rules.TITLE_MAX).filter(str.strip)),
        "slug": "-".join(draw(st.lists(SLUG_WORD, min_size=1, max_size=5))),
        "date": draw(dates()),
        "description": draw(st.text(st.sampled_from(LETTERS + SYMBOLS.replace("*", "")),
                                     min_size=post_rules.DESCRIPTION_MIN, max_size=post_rules.DESCRIPTION_MAX)
                            .map(_description).filter(_valid_description)),
        "categories": draw(st.lists(st.sampled_from(post_rules.CATEGORIES), min_size=1, max_size=3, unique=True)),
        "authors": ["editors"],
        "upstream": draw(st.dictionaries(SLUG_WORD, st.one_of(
            st.tuples(st.integers(0, 99), st.integers(0, 999)).map(lambda v: f"v{v[0]}.{v[1]}"),
            st.text(st.sampled_from("0123456789abcdef"), min_size=7, max_size=40)), min_size=1, max_size=3)),
    }
    optional = {
        "tags": st.lists(WORD.filter(lambda t: "TODO" not in t), min_size=1, max_size=4, unique=True),
        "draft": st.booleans(),
        "pin": st.booleans(),
        "readtime": st.integers(min_value=1, max_value=10**30),
        "subtitle": st.text(TEXT, max_size=80),
        "hide": st.lists(st.sampled_from(schema.HIDE_VALUES), max_size=2, unique=True),
        "comments": st.booleans(),
    }
    for key in draw(st.lists(st.sampled_from(sorted(optional)), max_size=4, unique=True)):
        meta[key] = draw(optional[key])
    return meta


@st.composite
def bodies(draw: st.DrawFn, marker_line: bool = True) -> str:
    para = st.text(st.sampled_from(LETTERS + " .,;:'\"?"), min_size=1, max_size=200)
    before = draw(st.lists(para, min_size=1, max_size=3))
    after = draw(st.lists(para, max_size=3))
    section = ["## " + draw(WORD)] if draw(st.booleans()) else []
    lines = [*before, *([post_rules.EXCERPT_MARKER] if marker_line else []), *section, *after]
    return "\n\n".join(lines) + "\n"


def dump(meta: dict[str, Any]) -> str:
    return yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10**6)


def assemble(front_matter: str, body: str, *, bom: bool = False, crlf: bool = False) -> str:
    text = f"---\n{front_matter}---\n\n{body}"
    if crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if bom else "") + text


def wrapping(draw: st.DrawFn) -> dict[str, bool]:
    return {"bom": draw(st.booleans()), "crlf": draw(st.booleans())}


@st.composite
def valid_posts(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    meta = draw(valid_meta())
    return meta, assemble(dump(meta), draw(bodies()), **wrapping(draw))


WRONG_TYPE = st.one_of(st.integers(), st.floats(), st.booleans(), st.lists(st.integers(), min_size=1, max_size=3))
TAGS = ("!!python/object/apply:os.system ['touch {m}']", "!!python/object/new:os.system ['touch {m}']",
        "!!python/object/apply:builtins.open ['{m}', 'w']", "!!python/name:os.system", "!!python/module:os",
        "!custom 'x'", "!!set {{a, b}}")


def laughs(levels: int) -> tuple[str, str]:
    """YAML whose last alias stands for 10**levels items (the 'billion laughs'): anchors and its name."""
    lines = ["l0: &l0 [ha, ha, ha, ha, ha, ha, ha, ha, ha, ha]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n", f"*l{levels - 1}"


@st.composite
def invalid_posts(draw: st.DrawFn, marker: Path) -> str:
    """A valid post with one mistake that the rules must name."""
    meta = draw(valid_meta())
    body = draw(bodies())
    field = draw(st.sampled_from(REQUIRED))
    kind = draw(st.sampled_from([
        "missing", "wrong type", "unknown key", "huge title", "huge description", "bad slug",
        "unknown category", "no excerpt", "duplicate key", "yaml tag", "laughs", "deep list", "deep map",
        "deep block",
        "nul byte", "not a mapping", "unclosed", "no front matter", "tab", "impossible date",
    ]))
    if kind == "missing":
        del meta[field]
    elif kind == "wrong type":
        meta[field] = draw(WRONG_TYPE)
    elif kind == "unknown key":
        key = draw(st.text(TEXT, min_size=1, max_size=30).filter(lambda k: k not in FIELDS))
        meta[key] = draw(st.one_of(st.text(TEXT, max_size=20), WRONG_TYPE))
    elif kind == "huge title":
        meta["title"] = draw(WORD) * draw(st.integers(min_value=200, max_value=20_000))
    elif kind == "huge description":
        meta["description"] = "word " * draw(st.integers(min_value=50, max_value=20_000))
    elif kind == "bad slug":
        meta["slug"] = draw(st.text(TEXT, min_size=1, max_size=200).filter(lambda s: not schema.SLUG_RE.match(s)))
    elif kind == "unknown category":
        meta["categories"] = [draw(st.text(TEXT, min_size=1, max_size=60).filter(
            lambda c: c not in post_rules.CATEGORIES))]
    elif kind == "no excerpt":
        body = draw(bodies(marker_line=False))
    fm = dump(meta)
    if kind == "duplicate key":
        fm += f"{field}: {draw(WORD)}\n"
    elif kind == "yaml tag":
        fm += f"{draw(st.sampled_from(['subtitle', field]))}: {draw(st.sampled_from(TAGS)).format(m=marker)}\n"
    elif kind == "laughs":
        anchors, alias = laughs(draw(st.integers(min_value=3, max_value=9)))
        key = draw(st.sampled_from([*REQUIRED, "tags", "hide", "search", "series", "related", "links", "colour"]))
        fm = anchors + re.sub(rf"(?m)^{key}:.*\n(?:  .*\n|- .*\n)*", "", fm) + f"{key}: {alias}\n"
    elif kind in ("deep list", "deep map"):
        depth = draw(st.integers(min_value=2, max_value=5000))
        value = "[" * depth + "x" + "]" * depth if kind == "deep list" else "{a: " * depth + "x" + "}" * depth
        fm += f"{draw(st.sampled_from(['subtitle', 'series', 'colour', field]))}: {value}\n"
    elif kind == "deep block":
        depth = draw(st.integers(min_value=2, max_value=1500))
        fm += "subtitle:\n" + "".join(draw(st.sampled_from(["  ", "- "])) * i + "- x\n" for i in range(1, depth))
    elif kind == "nul byte":
        at = draw(st.integers(min_value=0, max_value=len(fm)))
        fm = fm[:at] + draw(st.sampled_from(["\x00", "\x07", "\x1b", "\ufffe"])) + fm[at:]
    elif kind == "not a mapping":
        fm = draw(st.sampled_from(["- a\n- b\n", "just text\n", "42\n", "[1, 2]\n", "~\n", ""]))
    elif kind == "tab":
        fm += "date:\n\tcreated: 2025-03-04\n"
    elif kind == "impossible date":
        fm = re.sub(r"(?m)^date:.*\n(?:  .*\n)*", "", fm)
        fm += f"date: {draw(st.sampled_from(['2025-02-30', '2025-13-01', '2025-00-10', '2024-02-30 10:00:00']))}\n"
    text = assemble(fm, body, **wrapping(draw))
    if kind == "unclosed":
        text = text.replace("\n---\n", "\n", 1).replace("\r\n---\r\n", "\r\n", 1)
    elif kind == "no front matter":
        text = body
    return text


# ---------------------------------------------------------------------------------------------
# In-process: thousands of examples in a few seconds
# ---------------------------------------------------------------------------------------------


def every_valid_post_gives_its_record_and_no_problem(ctx: post_rules.Context,
                                                     case: tuple[dict[str, Any], str]) -> None:
    meta, text = case
    record, problems = checked(text, ctx)
    assert [str(p) for p in problems] == []
    assert record is not None
    assert record.title == meta["title"].strip()
    assert record.slug == meta["slug"]
    assert record.description == meta["description"]
    assert list(record.meta.categories) == meta["categories"]


def every_invalid_post_is_named_in_the_standard_shape(ctx: post_rules.Context, marker: Path,
                                                      data: st.DataObject) -> None:
    text = data.draw(invalid_posts(marker))
    _, problems = checked(text, ctx)
    assert problems, "an invalid post passed"
    assert_standard_shape(problems)
    assert not marker.exists(), "a YAML tag ran code"


ARBITRARY = st.one_of(
    st.text(max_size=400).map(lambda t: "---\n" + t + "\n---\n\nx\n\n<!-- more -->\n"),
    st.text(max_size=400),
    st.binary(max_size=300).map(lambda b: "---\n" + b.decode("utf-8", "replace") + "\n---\n"),
)


def arbitrary_text_never_raises(ctx: post_rules.Context, text: str) -> None:
    record, problems = checked(text, ctx)
    assert record is not None or problems
    assert_standard_shape(problems)


# Two tiers of the same properties: a quick one for the fast loop (a few seconds), and thousands of
# examples in the full run (marked slow, so CI runs them). Generation is derandomized: fixed inputs.
def _tier(prop: Any, examples: int, slow: bool = False, **strategies: Any) -> Any:
    test = settings(FUZZ, max_examples=examples)(given(**strategies)(prop))
    return pytest.mark.slow(test) if slow else test


test_every_valid_post_gives_its_record_and_no_problem = _tier(
    every_valid_post_gives_its_record_and_no_problem, 40, case=valid_posts())
test_every_invalid_post_is_named_in_the_standard_shape = _tier(
    every_invalid_post_is_named_in_the_standard_shape, 60, data=st.data())
test_arbitrary_text_never_raises = _tier(arbitrary_text_never_raises, 100, text=ARBITRARY)
test_thousands_of_valid_posts = _tier(
    every_valid_post_gives_its_record_and_no_problem, 500, slow=True, case=valid_posts())
test_thousands_of_invalid_posts = _tier(
    every_invalid_post_is_named_in_the_standard_shape, 1500, slow=True, data=st.data())
test_thousands_of_arbitrary_texts = _tier(arbitrary_text_never_raises, 1000, slow=True, text=ARBITRARY)


# ---------------------------------------------------------------------------------------------
# A sample through real builds: the wiring never shows a traceback either
# ---------------------------------------------------------------------------------------------

REAL_BUILD = settings(FUZZ, max_examples=1, phases=[Phase.explicit, Phase.generate])


@pytest.mark.slow
@REAL_BUILD
@given(cases=st.lists(valid_posts(), min_size=5, max_size=5,
                      unique_by=lambda c: c[0]["slug"]))
def test_generated_valid_posts_build(tmp_path_factory: pytest.TempPathFactory,
                                     cases: list[tuple[dict[str, Any], str]]) -> None:
    site = make_site(tmp_path_factory.mktemp("fuzzbuild") / "src")
    for i, (_, text) in enumerate(cases):
        (site.docs / "blog" / "posts" / f"fuzz-{i}.md").write_bytes(text.encode("utf-8"))
    result = site.build()
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    for meta, _ in cases:
        created = meta["date"]["created"] if isinstance(meta["date"], dict) else meta["date"]
        if not meta.get("draft"):
            page = site.site_dir / f"blog/{created:%Y/%m/%d}/{meta['slug']}/index.html"
            assert page.is_file(), meta


@pytest.mark.slow
@REAL_BUILD
@given(data=st.data())
def test_generated_invalid_posts_stop_the_build_with_the_problem_list(
        tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    marker = tmp_path_factory.mktemp("pwned-build") / "marker"
    site: Site = make_site(tmp_path_factory.mktemp("fuzzbad") / "src")
    for i in range(5):
        text = data.draw(invalid_posts(marker))
        (site.docs / "blog" / "posts" / f"bad-{i}.md").write_bytes(text.encode("utf-8"))
    result = site.build()
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 0
    assert "in blog posts (paths relative to docs/):" in result.stderr, result.stderr
    listed = re.findall(r"^\s+- (blog/posts/bad-\d\.md): ", result.stderr, re.MULTILINE)
    assert set(listed) == {f"blog/posts/bad-{i}.md" for i in range(5)}, result.stderr
    assert not marker.exists()
