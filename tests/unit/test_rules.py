"""The post rules, in-process: every bad input gives exactly the lines an author reads.

These run against ``post_rules.check_all`` on a small docs folder in tmp_path, in milliseconds,
and compare whole message lines (as MkDocs' own build tests compare exact log blocks). The real
builds in test_validation.py check that the build hook prints the same lines and stops.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from support import ROOT, post

import mlblog.posts as post_rules

F = "blog/posts/bad.md: "
GOOD_DESC = "A fixture post that exists to check how the site lists, files and validates posts."
CATS = ", ".join(post_rules.CATEGORIES)
KEYS = ", ".join(post_rules.FrontMatter.model_fields)
ISO = "Accepted: an unquoted ISO date such as 2026-05-11 (or 2026-05-11 09:30:00 with a time)"
LINK_FIX = "Accepted: a link pinned to a tag or commit, e.g. .../blob/v2.13.0/..."
SNIPPET_FIX = ("Accepted: a path relative to the repository root (pymdownx.snippets base_path) to a text "
               "file inside the repository, e.g. examples/<post>/<file>.py")
BODY = "Opening.\n\n<!-- more -->\n\n"
CODE_FIX = ("Accepted: inline code between a pair of single backticks, as in 'How `Engine.generate()` Boots', "
            "or a title without backticks")
# The "billion laughs": l8 stands for 10**9 items, which a plain repr() in a message would print in full.
LAUGHS = "l0: &l0 [ha, ha, ha, ha, ha, ha, ha, ha, ha, ha]\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9))
ELIDED = ", ".join(["[[...], [...], [...], [...], ...]"] * 4)

# id: (post text, the exact problem lines)
BAD_POSTS: dict[str, tuple[str, list[str]]] = {
    "no front matter": ("Just text.\n\n<!-- more -->\n", [
        "front matter: no front matter found. Accepted: the file starts with a '---' line, YAML keys, "
        "and a closing '---' line"]),
    "front matter never closed": ("---\ntitle: x\nslug: x\n\nOpening.\n\n<!-- more -->\n", [
        "front matter: the front matter opened by the '---' on line 1 is never closed. Accepted: a "
        "closing '---' line after the last key"]),
    "malformed yaml": ("---\ntitle: [unclosed\nslug: x\n---\n\nx\n<!-- more -->\n", [
        "line 3: the front matter is not valid YAML (expected ',' or ']', but got ':'). Accepted: "
        "'key: value' lines; quote values that contain ': ' or start with a symbol"]),
    "no space after a colon": (post().replace("slug: a-fixture-post", "slug:a-fixture-post"), [
        "line 3: 'slug:a-fixture-post' has no space after the colon, so YAML does not read it as a key. "
        "Accepted: 'slug: a-fixture-post'"]),
    "tab indentation": (post(date="{created: 2025-03-04}").replace("date: {created: 2025-03-04}",
                                                                   "date:\n\tcreated: 2025-03-04"), [
        "line 5: a tab character is used for indentation; YAML indents with spaces only. Accepted: "
        "indent with spaces"]),
    "python tag": (post(extra="subtitle: !!python/object/apply:os.system [echo hi]\n"), [
        "line 9: the front matter uses a YAML tag ('tag:yaml.org,2002:python/object/apply:os.system') "
        "that is not allowed. Accepted: plain YAML values, no '!!' tags"]),
    # Found by tests/unit/test_fuzz.py: each raised a traceback or hung the build.
    "alias bomb in a typed field": (post().replace('title: "A fixture post"', "title: *l8").replace(
        "---\n", "---\n" + LAUGHS, 1), [
        *[f"field 'l{i}': 'l{i}' is not a known key. Accepted keys: {KEYS}" for i in range(9)],
        f"field 'title': expected text, got list [{ELIDED}, ...]. Accepted: a string"]),
    "nested too deeply": (post(extra="subtitle: " + "[" * 5000 + "]" * 5000 + "\n"), [
        "front matter: lists or mappings are nested too deeply for YAML to read. Accepted: values nested "
        "a few levels at most"]),
    "control character": (post(extra="subtitle: a\x00b\n"), [
        "line 9: the front matter contains the control character U+0000, which YAML does not allow. "
        "Accepted: printable text (delete the character)"]),
    "a key that is not text": (post(extra="1: x\n"), [
        f"field '1': a key that is a number, not text (1). Accepted keys: {KEYS}"]),
    "empty series name": (post(extra="series: {name: '', part: 1}\n"), [
        "field 'series.name': String should have at least 1 character (got ''). Accepted: see README.md"]),
    "front matter is a list": ("---\n- a\n- b\n---\n\nx\n<!-- more -->\n", [
        "front matter: the front matter is a list, not a mapping. Accepted: 'key: value' lines"]),
    "empty front matter": ("---\n---\n\nx\n<!-- more -->\n", [
        "front matter: the front matter is empty. Accepted: at least title, slug, date, description, "
        "categories, authors and upstream"]),
    "duplicate title": (post(extra='title: "Another title"\n'), [
        "field 'title': is given twice (lines 2 and 9); YAML would keep the last one silently. "
        "Accepted: each key once"]),
    "duplicate description": (post(extra=f"description: {GOOD_DESC} Again.\n"), [
        "field 'description': is given twice (lines 5 and 9); YAML would keep the last one silently. "
        "Accepted: each key once"]),
    "missing title": (post().replace('title: "A fixture post"\n', ""), [
        "field 'title': is required but missing. Accepted: The post's title (the body has no '# ' "
        "heading of its own); inline code between single backticks, as in Markdown: 'How "
        "`Engine.generate()` Boots'."]),
    "empty title": (post(title="   "), ["field 'title': the title is empty. Accepted: non-empty text"]),
    "unpaired backtick in the title": (post(title="How `Engine.generate() Boots"), [
        f"field 'title': the title has an unpaired backtick (character 5). {CODE_FIX}"]),
    "a third backtick in the title": (post(title="How `LLM(...)` and `serve Boot"), [
        f"field 'title': the title has an unpaired backtick (character 20). {CODE_FIX}"]),
    "empty backticks in the title": (post(title="Empty `` code"), [
        f"field 'title': the title has a pair of backticks with no code between them (characters 7 to 8). "
        f"{CODE_FIX}"]),
    "double backticks in the title": (post(title="Double ``x`` code"), [
        f"field 'title': the title has a pair of backticks with no code between them (characters 8 to 9). "
        f"{CODE_FIX}"]),
    "title not text": (post().replace('title: "A fixture post"', "title: 42"), [
        "field 'title': expected text, got int 42. Accepted: a string"]),
    "missing date": (post().replace("date: 2025-03-04\n", ""), [
        "field 'date': is required but missing. Accepted: ISO date (2026-05-11), or a mapping "
        "{created: ..., updated: ...}."]),
    "impossible date": (post(date="2025-02-30"), [
        "field 'date.created': '2025-02-30' is not a real calendar date (day is out of range for month). "
        "Accepted: a real date written YYYY-MM-DD, e.g. 2026-05-11"]),
    "impossible month": (post(date="{created: 2025-13-01}"), [
        "field 'date.created': '2025-13-01' is not a real calendar date (month must be in 1..12). "
        "Accepted: a real date written YYYY-MM-DD, e.g. 2026-05-11"]),
    "date as text": (post(date="March 4 2025"), [
        f"field 'date.created': 'March 4 2025' is not a calendar date. {ISO}"]),
    "quoted date": (post(date='"2025-03-04"'), [
        f"field 'date.created': '2025-03-04' is not a calendar date. {ISO}"]),
    "updated before created": (post(date="{created: 2025-03-04, updated: 2025-03-01}"), [
        "field 'date': updated (2025-03-01) is before created (2025-03-04). Accepted: an updated date "
        "on or after the created date"]),
    "unknown date key": (post(date="{created: 2025-03-04, upated: 2025-03-05}"), [
        "field 'date': unknown key 'upated' under date. Accepted: created, updated. Did you mean 'updated'?"]),
    "missing description": (post().replace(f'description: "{GOOD_DESC}"\n', ""), [
        "field 'description': is required but missing. Accepted: Plain text, 60-220 characters: the "
        "listing summary and link preview."]),
    "short description": (post(description="Too short."), [
        "field 'description': the description has 10 characters. Accepted: 60 to 220 characters (one or "
        "two sentences)"]),
    "long description": (post(description="word " * 60), [
        "field 'description': the description has 299 characters. Accepted: 60 to 220 characters (one "
        "or two sentences)"]),
    "html in description": (post(description="A description with <b>markup</b> inside it, which listings "
                                             "would render raw."), [
        "field 'description': the description contains Markdown or HTML. Accepted: plain text (it is "
        "shown as-is in listings, feeds and link previews)"]),
    "misspelt category": (post(categories=("Kernels",)), [
        f"field 'categories': 'Kernels' is not an allowed category. Did you mean 'Kernel'? Accepted: {CATS}"]),
    "unknown category": (post(categories=("Gardening",)), [
        f"field 'categories': 'Gardening' is not an allowed category. Accepted: {CATS}"]),
    "no categories": (post(categories=()), [f"field 'categories': is empty. Accepted: One or more of: {CATS}."]),
    "duplicate category": (post(categories=("Kernel", "Kernel")), [
        "field 'categories': 'Kernel' is listed twice. Accepted: each category once"]),
    "category not a list": (post().replace("categories: [Kernel]", "categories: Kernel"), [
        "field 'categories': expected a list, got str 'Kernel'. Accepted: a YAML list such as [a, b]"]),
    "missing slug": (post().replace("slug: a-fixture-post\n", ""), [
        "field 'slug': is required but missing. Accepted: Lowercase words joined by hyphens; the URL is "
        "/blog/YYYY/MM/DD/<slug>/."]),
    "bad slug": (post(slug="My_Post"), [
        "field 'slug': 'My_Post' is not a slug. Accepted: lowercase letters and digits in words joined by "
        "single hyphens, e.g. 'my-post'"]),
    "unknown author": (post(authors=("editor",)), [
        "field 'authors': 'editor' is not in blog/.authors.yml. Did you mean 'editors'? Accepted: editors"]),
    "no authors": (post(authors=()), ["field 'authors': is empty. Accepted: Ids from docs/blog/.authors.yml."]),
    "draft not boolean": (post(extra="draft: maybe\n"), [
        "field 'draft': 'maybe' is not a boolean. Accepted: true or false (unquoted)"]),
    "draft: yes is not a boolean": (post(extra="draft: yes\n"), [
        "field 'draft': 'yes' is not a boolean. Accepted: true or false (unquoted)"]),
    "pin: on is not a boolean": (post(extra="pin: on\n"), [
        "field 'pin': 'on' is not a boolean. Accepted: true or false (unquoted)"]),
    "unknown key with typo": (post(extra="categores: [Kernel]\n"), [
        f"field 'categores': 'categores' is not a known key. Did you mean 'categories'? Accepted keys: {KEYS}"]),
    "unknown key": (post(extra="colour: blue\n"), [
        f"field 'colour': 'colour' is not a known key. Accepted keys: {KEYS}"]),
    "tags not distinct": (post(extra="tags: [nccl, nccl]\n"), [
        "field 'tags': 'nccl' is listed twice. Accepted: each tag once"]),
    "markup in a tag": (post(extra='tags: ["<i>t</i>"]\n'), [
        "field 'tags': '<i>t</i>' contains <, > or &, which the RSS feed would print as markup. Accepted: "
        "plain labels without <, > or &"]),
    "upstream missing": (post().replace("upstream: {pytorch: v2.13.0}\n", ""), [
        "field 'upstream': is required but missing. Accepted: Upstream projects the post was written "
        "against: name -> pinned tag or commit."]),
    "upstream on a branch": (post(upstream="{pytorch: main}"), [
        "field 'upstream': 'pytorch: main' does not pin a version. Accepted: a tag or commit, e.g. "
        "'pytorch: v2.13.0'"]),
    "missing excerpt marker": (post(body="Only an opening.\n\n## Section\n\nText.\n"), [
        "excerpt: the excerpt marker is missing. Accepted: a line '<!-- more -->' after the opening paragraph"]),
    "heading as second title": (post(body="# Another title\n\nOpening.\n\n<!-- more -->\n"), [
        "line 11: a '# ' heading in the body. Accepted: the title comes from the front matter 'title' "
        "field only; start sections at '## '"]),
    "unpinned github link": (post(body=BODY + "See [reducer](https://github.com/pytorch/pytorch/"
                                               "blob/main/torch/csrc/distributed/c10d/reducer.cpp).\n"), [
        f"line 15: link to the moving branch 'main' (https://github.com/pytorch/pytorch/blob/main/...). {LINK_FIX}"]),
    "unpinned master tree link": (post(body=BODY + "https://github.com/NVIDIA/nccl/tree/master/src\n"), [
        f"line 15: link to the moving branch 'master' (https://github.com/NVIDIA/nccl/tree/master/...). {LINK_FIX}"]),
    "missing snippet": (post(body=BODY + '```python\n--8<-- "examples/no_such_post/missing.py"\n```\n'), [
        f"line 16: the snippet 'examples/no_such_post/missing.py' does not exist. {SNIPPET_FIX}"]),
    "missing snippet in a block": (post(body=BODY + "--8<--\nexamples/common/svgplot.py\nexamples/gone.py\n--8<--\n"), [
        f"line 17: the snippet 'examples/gone.py' does not exist. {SNIPPET_FIX}"]),
    "missing snippet section": (post(body=BODY + '--8<-- "examples/common/svgplot.py:no-such-part"\n'), [
        "line 15: the snippet 'examples/common/svgplot.py' has no section 'no-such-part'. A section is "
        "marked '--8<-- [start:no-such-part]' ... '--8<-- [end:no-such-part]' in that file. "
        f"{SNIPPET_FIX}"]),
    "broken internal link": (post(body=BODY + "See [the other post](other-post.md#part).\n"), [
        "line 15: the link 'other-post.md#part' points to blog/posts/other-post.md, which does not exist. "
        "Accepted: a path relative to this file to a page or file under docs/"]),
    "broken image": (post(body=BODY + "![A plot](bad/plot.svg)\n"), [
        "line 15: the link 'bad/plot.svg' points to blog/posts/bad/plot.svg, which does not exist. "
        "Accepted: a path relative to this file to a page or file under docs/"]),
    "series part zero": (post(extra="series: {name: torch.compile, part: 0}\n"), [
        "field 'series.part': 0 is too small. Accepted: 1 or more"]),
    "related to itself": (post(extra="related: [a-fixture-post]\n"), [
        "field 'related': 'a-fixture-post' is this post itself. Accepted: slugs of other posts"]),
    "related unknown": (post(extra="related: [no-such-post]\n"), [
        "field 'related': no post has the slug 'no-such-post'. Accepted: a-fixture-post"]),
    "link to missing file": (post(extra="links: [blog/posts/nowhere.md]\n"), [
        "field 'links': 'blog/posts/nowhere.md' does not exist under docs/. Accepted: a path relative to "
        "docs/, e.g. blog/posts/other-post.md"]),
    "todo left in published post": (post(description="TODO: replace with one or two plain sentences about "
                                                      "this post here."), [
        "field 'description': still holds the scaffold's TODO. Accepted: your own one or two sentences "
        "(or keep 'draft: true')"]),
    "dated in the future": (post(date="2999-01-01"), [
        "field 'date': 2999-01-01 is in the future, so the post would be published with a date readers "
        "have not reached. Accepted: today or earlier, or 'draft: true' until then"]),
}


def docs_with(tmp_path: Path, posts: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    (docs / "blog" / "posts").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "blog" / ".authors.yml", docs / "blog" / ".authors.yml")
    for name, text in posts.items():
        (docs / "blog" / "posts" / name).write_text(text, encoding="utf-8")
    return docs


def check(tmp_path: Path, posts: dict[str, str]) -> tuple[list[post_rules.Post], list[str]]:
    records, problems = post_rules.check_all(docs_with(tmp_path, posts), snippet_bases=[ROOT],
                                              today=dt.date(2026, 12, 1))
    return records, [str(p) for p in problems]


@pytest.mark.parametrize("case", list(BAD_POSTS), ids=list(BAD_POSTS))
def test_bad_post_gives_exactly_these_lines(tmp_path: Path, case: str) -> None:
    text, expected = BAD_POSTS[case]
    _, lines = check(tmp_path, {"bad.md": text})
    assert lines == [F + line for line in expected]


def test_a_good_post_gives_its_record(tmp_path: Path) -> None:
    records, lines = check(tmp_path, {"good.md": post(date="{created: 2025-03-04, updated: 2025-04-01}",
                                                      extra="draft: false\ntags: [nccl]\n")})
    assert lines == []
    (record,) = records
    assert record.file == "blog/posts/good.md"
    assert record.url == "blog/2025/03/04/a-fixture-post/"
    assert record.created == dt.datetime(2025, 3, 4, tzinfo=dt.UTC)
    assert record.modified == dt.datetime(2025, 4, 1, tzinfo=dt.UTC)
    assert [a.name for a in record.authors] == ["The Editors"]
    assert record.keywords == ["Kernel", "nccl"]
    assert record.draft is False


def test_a_draft_may_be_dated_in_the_future_and_keep_todos(tmp_path: Path) -> None:
    _, lines = check(tmp_path, {"d.md": post(date="2999-01-01", description="TODO: " + GOOD_DESC,
                                             extra="draft: true\n")})
    assert lines == []


def test_the_future_date_is_a_warning_and_the_rest_are_errors(tmp_path: Path) -> None:
    docs = docs_with(tmp_path, {"f.md": post(date="2999-01-01")})
    _, problems = post_rules.check_all(docs, today=dt.date(2026, 12, 1))
    assert [p.level for p in problems] == ["warning"]
    _, problems = post_rules.check_all(docs_with(tmp_path / "x", {"b.md": post(slug="B")}))
    assert [p.level for p in problems] == ["error"]


def test_a_published_part_after_a_draft_part_is_refused(tmp_path: Path) -> None:
    _, lines = check(tmp_path, {
        "p1.md": post(slug="part-one", extra="series: {name: S, part: 1}\ndraft: true\n"),
        "p2.md": post(slug="part-two", extra="series: {name: S, part: 2}\n"),
    })
    assert lines == ["blog/posts/p2.md: field 'series.part': part 2 of 'S' is published but part 1 "
                     "(blog/posts/p1.md) is a draft. Accepted: publish parts in order"]


def test_pages_that_are_not_posts_get_their_snippets_and_links_checked(tmp_path: Path) -> None:
    docs = docs_with(tmp_path, {})
    (docs / "about.md").write_text("# About\n\n[Posts](blog/index.md)\n\n--8<-- \"nope.txt\"\n", encoding="utf-8")
    _, problems = post_rules.check_all(docs, pages=["about.md"], snippet_bases=[ROOT])
    assert [str(p) for p in problems] == [
        "about.md: line 3: the link 'blog/index.md' points to blog/index.md, which does not exist. "
        "Accepted: a path relative to this file to a page or file under docs/",
        f"about.md: line 5: the snippet 'nope.txt' does not exist. {SNIPPET_FIX}",
    ]


def test_links_and_snippets_that_exist_and_code_that_looks_like_links_pass(tmp_path: Path) -> None:
    body = (BODY + "[About](../../about.md) and [home](../index.md#top), `x[](m)` and "
            "[ext](https://example.com/a.md); code spans come before links: [a]`x`(b.md).\n[c]`y`: d.md\n\n"
            "```cpp\nauto f = [](m) { return m; };\n```\n\n"
            '--8<-- "examples/common/svgplot.py"\n;--8<-- "escaped/not/included.py"\n')
    docs = docs_with(tmp_path, {"ok.md": post(body=body)})
    (docs / "about.md").write_text("# About\n", encoding="utf-8")
    (docs / "blog" / "index.md").write_text("# Blog\n", encoding="utf-8")
    _, problems = post_rules.check_all(docs, snippet_bases=[ROOT])
    assert problems == []


def test_no_input_executes_code_or_reaches_python_objects(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = post(extra=f"subtitle: !!python/object/apply:os.system ['touch {marker}']\n")
    _, lines = check(tmp_path, {"x.md": text})
    assert not marker.exists()
    assert len(lines) == 1 and "YAML tag" in lines[0]


def test_two_posts_with_the_same_url_name_both_files(tmp_path: Path) -> None:
    _, lines = check(tmp_path, {"first.md": post(slug="same"), "second.md": post(slug="same", title="Another")})
    assert lines == ["blog/posts/second.md: field 'slug': resolves to the same URL /blog/2025/03/04/same/ as "
                     "blog/posts/first.md. Accepted: a slug or date that no other post uses"]


def test_series_with_a_missing_part_is_reported(tmp_path: Path) -> None:
    _, lines = check(tmp_path, {"p1.md": post(slug="part-one", extra="series: {name: Compilers, part: 1}\n"),
                                "p3.md": post(slug="part-three", extra="series: {name: Compilers, part: 3}\n")})
    assert lines == ["blog/posts/p3.md: field 'series.part': series 'Compilers' has no part 2 before part 3. "
                     "Accepted: parts numbered 1, 2, 3... without gaps"]


def test_a_broken_part_is_reported_once_not_again_as_a_gap_or_unknown_slug(tmp_path: Path) -> None:
    """Part 1 breaks (a category not allowed); part 2, untouched, and a post relating to part 1 report
    nothing."""
    _, lines = check(tmp_path, {
        "p1.md": post(slug="part-one", categories=("Compilerz",), extra="series: {name: Compilers, part: 1}\n"),
        "p2.md": post(slug="part-two", extra="series: {name: Compilers, part: 2}\n"),
        "other.md": post(slug="other", extra="related: [part-one]\n")})
    assert len(lines) == 1 and lines[0].startswith("blog/posts/p1.md: field 'categories"), lines
    # Front matter that is not YAML at all may claim any series or slug: nothing is inferred from it.
    _, lines = check(tmp_path / "b", {"p1.md": "---\ntitle: [unclosed\n---\nBody.\n",
                                      "p2.md": post(slug="part-two", extra="series: {name: Compilers, part: 2}\n")})
    assert len(lines) == 1 and lines[0].startswith("blog/posts/p1.md"), lines


def test_external_avatar_is_rejected(tmp_path: Path) -> None:
    docs = docs_with(tmp_path, {"ok.md": post()})
    (docs / "blog" / ".authors.yml").write_text(
        "authors:\n  editors:\n    name: E\n    description: D\n    avatar: https://example.com/a.png\n",
        encoding="utf-8")
    _, problems = post_rules.check_all(docs)
    assert [str(p) for p in problems] == [
        "blog/.authors.yml: field 'authors.editors.avatar': 'https://example.com/a.png' is on another host; "
        "the site loads nothing from other hosts. Accepted: a path to an image under docs/"]
