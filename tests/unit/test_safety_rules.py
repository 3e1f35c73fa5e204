"""What an author or a contributor can publish, tried as an attacker would: the rules, in-process.

* No file from outside the repository: a snippet (``--8<--``) or a file under docs/ that leads outside
  it, through a link, an absolute path, ``../`` or a URL, is a problem naming the file, the line and
  where the path leads.
* Nothing loaded from another host: every way a page can make the browser fetch (``src``, ``srcset``,
  stylesheets, SVG ``<image>``, CSS ``url()``, ``<base>``, ``srcdoc``...), spelled as a browser would
  still read it, is found; links readers follow stay allowed.
* No text a feed cannot carry: control characters and what XML 1.0 refuses, in every front-matter text
  field and in ``.authors.yml``, are refused with the field and the code point.

tests/build/test_safety.py checks the same through real builds and the built output.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from support import post

import mlblog.posts as post_rules
from mlblog.pages import external as external_resources
from mlblog.publish import feeds

# --- what a browser would fetch from another host -----------------------------------------------

FETCHED = [
    '<img src="https://evil.example/x.png">',
    "<img src=//evil.example/x.png>",
    '<IMG SRC="HTTPS://evil.example/x">',
    '<img src="&#104;ttps://evil.example/x">',         # an entity spells the scheme
    '<img src="\\\\evil.example/x">',                    # backslashes are slashes to a browser
    '<img src=" https://evil.example/x">',              # leading blanks are stripped
    '<img src="ht\ntps://evil.example/x">',             # a newline inside a URL is dropped
    '<img src="ok.png" src="https://evil.example/x">',  # every copy of an attribute is read
    '<img src="https://evil.example/x" src="ok.png">',
    '<img/src="https://evil.example/x">',
    '<!--><img src="https://evil.example/x">-->',       # "<!-->" is a whole comment to a browser
    '<!-- a --!><img src="https://evil.example/x"> -->',
    '<script>1</script foo><img src="https://evil.example/x"></script>',
    '<a ping="https://tracker.example/p" href="/x">x</a>',
    '<link rel="stylesheet" href="https://cdn.example/x.css">',
    '<link rel="alternate stylesheet" href="https://cdn.example/x.css">',
    '<link rel="preconnect" href="https://fonts.googleapis.com">',
    '<img srcset="a.png 1x, https://evil.example/b.png 2x">',
    '<video poster="https://evil.example/p.jpg"></video>',
    '<div style="background:url(https://evil.example/x)"></div>',
    '<div style="background:u\\72l(https://evil.example/x)"></div>',  # a CSS escape spells url(
    '<style>@import "https://evil.example/x.css";</style>',
    '<iframe src="https://video.example/embed/x"></iframe>',
    '<object data="https://evil.example/x"></object>',
    '<embed src="https://evil.example/x">',
    '<svg><image href="https://evil.example/x.png"/></svg>',
    '<svg><use xlink:href="https://evil.example/s.svg#a"/></svg>',
    '<base href="https://evil.example/">',
    '<iframe srcdoc="&lt;img src=https://evil.example/x&gt;"></iframe>',
    '<meta http-equiv="refresh" content="0; url=https://evil.example/">',
]
NOT_FETCHED = [
    '<a href="https://github.com/pytorch/pytorch">a link</a>',
    '<link rel="canonical" href="https://elsewhere.example/x">',
    '<meta http-equiv="refresh" content="0; url=../moved/">',
    '<img src="data:image/png;base64,AAAA">',
    '<img src="/assets/x.png"><img src="../x/y.svg">',
    '<!-- <img src="https://evil.example/x"> -->',
    '<pre><code>&lt;img src="https://evil.example/x"&gt;</code></pre>',
    '<style>a { background: url("data:image/png;base64,AA") }</style>',
    '<img src="https://ml-systems-deep-dives.github.io/assets/x.png">',  # the site's own host
]


@pytest.mark.parametrize("html", FETCHED)
def test_every_way_to_fetch_from_another_host_is_found(html: str) -> None:
    found = external_resources.externals(html, frozenset({"ml-systems-deep-dives.github.io"}))
    assert len(found) == 1, found
    assert "example" in found[0].url or "googleapis" in found[0].url


@pytest.mark.parametrize("html", NOT_FETCHED)
def test_links_data_urls_own_files_and_code_are_not_fetches(html: str) -> None:
    assert external_resources.externals(html, frozenset({"ml-systems-deep-dives.github.io"})) == []


# --- the post rules, in-process ------------------------------------------------------------------

ACCEPTED_SNIPPET = post_rules.SNIPPET_ACCEPTED
ACCEPTED_EXTERNAL = post_rules.EXTERNAL_ACCEPTED


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository: docs/ with the authors file, examples/ with one good file, and a secret outside."""
    root = tmp_path / "repo"
    (root / "docs" / "blog" / "posts").mkdir(parents=True)
    (root / "docs" / "blog" / ".authors.yml").write_text(
        "authors:\n  editors:\n    name: The Editors\n    description: Editors\n", encoding="utf-8")
    (root / "examples").mkdir()
    (root / "examples" / "good.py").write_text("print('good')\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("the runner's token\n", encoding="utf-8")
    return root


def problems_of(repo: Path, body: str, extra: str = "") -> list[str]:
    (repo / "docs" / "blog" / "posts" / "p.md").write_text(post(body=body, extra=extra), encoding="utf-8")
    _, problems = post_rules.check_all(repo / "docs", snippet_bases=[repo], repository=repo,
                                        today=dt.date(2026, 12, 1))
    return [str(p) for p in problems]


def body_with(line: str) -> str:
    return f"Opening.\n\n<!-- more -->\n\n{line}\n"  # the line is line 15 of the file


def test_a_snippet_linked_outside_the_repository_is_refused(repo: Path) -> None:
    (repo / "examples" / "leak.txt").symlink_to(repo.parent / "secret.txt")
    assert problems_of(repo, body_with('--8<-- "examples/leak.txt"')) == [
        f"blog/posts/p.md: line 15: the snippet 'examples/leak.txt' is a link to {repo.parent / 'secret.txt'}, "
        f"outside the repository: the build would publish that file's contents. {ACCEPTED_SNIPPET}"]


def test_a_folder_linked_outside_carries_its_files_out_too(repo: Path) -> None:
    (repo / "examples" / "outside").symlink_to(repo.parent)
    [problem] = problems_of(repo, body_with('--8<-- "examples/outside/secret.txt"'))
    assert f"is a link to {repo.parent / 'secret.txt'}, outside the repository" in problem


@pytest.mark.parametrize(("written", "wrong"), [
    ("/etc/hostname", "the snippet '/etc/hostname' leads outside the repository (to /etc/hostname)"),
    ("../secret.txt", "the snippet '../secret.txt' leads outside the repository (to {outside}/secret.txt)"),
    ("examples/../../secret.txt", "the snippet 'examples/../../secret.txt' leads outside the repository "
                                  "(to {outside}/secret.txt)"),
    ("https://example.com/x.py", "the snippet 'https://example.com/x.py' is a URL; the build includes files "
                                 "from the repository only and fetches nothing"),
    ("examples", "the snippet 'examples' is a folder, not a file"),
    ("examples/missing.py", "the snippet 'examples/missing.py' does not exist"),
    ("examples/good.py:nosuch", "the snippet 'examples/good.py' has no section 'nosuch'. A section is marked "
                                "'--8<-- [start:nosuch]' ... '--8<-- [end:nosuch]' in that file"),
])
def test_every_snippet_path_outside_or_unreadable_is_named(repo: Path, written: str, wrong: str) -> None:
    wrong = wrong.format(outside=repo.parent)
    assert problems_of(repo, body_with(f'--8<-- "{written}"')) == [
        f"blog/posts/p.md: line 15: {wrong}. {ACCEPTED_SNIPPET}"]


def test_a_snippet_block_and_a_nested_include_are_followed(repo: Path) -> None:
    (repo / "examples" / "leak.txt").symlink_to(repo.parent / "secret.txt")
    (repo / "examples" / "wrapper.md").write_text('--8<-- "examples/leak.txt"\n', encoding="utf-8")
    (repo / "examples" / "binary.dat").write_bytes(b"\xff\xfe\x00")
    found = problems_of(repo, body_with('--8<--\nexamples/good.py\nexamples/wrapper.md\nexamples/binary.dat\n--8<--'))
    assert found == [
        f"blog/posts/p.md: line 17: the snippet 'examples/leak.txt' is a link to {repo.parent / 'secret.txt'}, "
        "outside the repository: the build would publish that file's contents (included through "
        f"examples/wrapper.md). {ACCEPTED_SNIPPET}",
        "blog/posts/p.md: line 18: the snippet 'examples/binary.dat' is not UTF-8 text (invalid start byte at "
        f"byte 0). {ACCEPTED_SNIPPET}",
    ]


def test_a_file_under_docs_linked_outside_is_refused(repo: Path) -> None:
    figures = repo / "docs" / "blog" / "posts" / "p"
    figures.mkdir()
    (figures / "data.json").symlink_to(repo.parent / "secret.txt")
    (repo / "docs" / "assets").symlink_to(repo.parent, target_is_directory=True)
    assert problems_of(repo, body_with("Text.")) == [
        f"assets: file: is a link to {repo.parent}, outside the repository: the build would publish that file. "
        "Accepted: a file inside the repository (copy it in, or link to a file inside)",
        f"blog/posts/p/data.json: file: is a link to {repo.parent / 'secret.txt'}, outside the repository: the "
        "build would publish that file. Accepted: a file inside the repository (copy it in, or link to a file "
        "inside)",
    ]


def test_links_inside_the_repository_are_fine(repo: Path) -> None:
    figures = repo / "docs" / "blog" / "posts" / "p"
    figures.mkdir()
    (figures / "good.py").symlink_to(repo / "examples" / "good.py")
    (repo / "examples" / "alias.py").symlink_to(repo / "examples" / "good.py")
    assert problems_of(repo, body_with('--8<-- "examples/alias.py"\n\n[code](p/good.py)')) == []


def test_a_relative_link_out_of_docs_is_named(repo: Path) -> None:
    assert problems_of(repo, body_with("![x](../../../../secret.txt)")) == [
        f"blog/posts/p.md: line 15: the link '../../../../secret.txt' leads outside docs/ (to "
        f"{repo.parent / 'secret.txt'}), which the site does not publish. Accepted: a path relative to this "
        "file to a page or file under docs/"]


@pytest.mark.parametrize(("markdown", "what", "url"), [
    ('<img src="https://evil.example/x.png" alt="x">', "<img src>", "https://evil.example/x.png"),
    ("![a chart](https://evil.example/chart.png)", "a Markdown image", "https://evil.example/chart.png"),
    ("![a chart][c]\n\n[c]: https://evil.example/c.png", "a Markdown image", "https://evil.example/c.png"),
    ('<iframe src="https://video.example/embed/1"></iframe>', "<iframe src>", "https://video.example/embed/1"),
    ('<p style="background: url(//evil.example/bg.png)">x</p>', "CSS url() in <p style>", "//evil.example/bg.png"),
    ('<script src="https://cdn.example/lib.js"></script>', "<script src>", "https://cdn.example/lib.js"),
])
def test_an_external_resource_in_markdown_is_named_with_its_line(repo: Path, markdown: str, what: str,
                                                                 url: str) -> None:
    assert problems_of(repo, body_with(markdown)) == [
        f"blog/posts/p.md: line 15: {what} loads {url} from another host; the site serves everything its "
        f"pages load itself. {ACCEPTED_EXTERNAL}"]


def test_an_included_figure_with_an_external_image_is_named_at_its_include(repo: Path) -> None:
    (repo / "examples" / "figure.svg").write_text(
        '<svg viewBox="0 0 10 10"><image href="https://evil.example/i.png"/></svg>\n', encoding="utf-8")
    assert problems_of(repo, body_with('<figure markdown="0">\n--8<-- "examples/figure.svg"\n</figure>')) == [
        "blog/posts/p.md: line 16: the included file examples/figure.svg: <image href> loads "
        f"https://evil.example/i.png from another host; the site serves everything its pages load itself. "
        f"{ACCEPTED_EXTERNAL}"]


def test_links_and_code_that_show_urls_are_allowed(repo: Path) -> None:
    body = body_with(
        "[NCCL](https://github.com/NVIDIA/nccl/blob/v2.30.7/src/init.cc) and <https://example.com/>.\n\n"
        '`<img src="https://evil.example/x">` is how not to do it:\n\n'
        '```html\n<script src="https://cdn.example/x.js"></script>\n```\n\n'
        '```python\n--8<-- "examples/good.py"\n```')
    assert problems_of(repo, body) == []


CONTROL = {"\x07": "U+0007 (bell)", "\x1b": "U+001B (escape)", "\x00": "U+0000 (null)",
           "\x85": "U+0085 (next line)", "\x9b": "U+009B (a control character)",
           "\ud800": "U+D800 (a surrogate)", "\uffff": "U+FFFF (a noncharacter)",
           "\u2028": "U+2028 (line separator)"}
WHERE = "which feeds and pages cannot carry. Accepted: printable text (tabs allowed; line breaks only in " \
        "description and rss.feed_description)"


@pytest.mark.parametrize("char", list(CONTROL))
@pytest.mark.parametrize(("field", "extra", "at"), [
    ("title", "", "contains"),
    ("tags", "tags: [fine, 'BAD']\n", "tags[1] contains"),
    ("series", "series: {name: 'BAD', part: 1}\n", "series.name contains"),
    ("upstream", "", "upstream.nccl contains"),
    ("subtitle", "subtitle: 'BAD'\n", "contains"),
])
def test_a_control_character_in_any_text_field_is_refused(repo: Path, char: str, field: str, extra: str,
                                                            at: str) -> None:
    escaped = json.dumps("x" + char)[1:-1]  # the YAML escape, as pasting from a terminal makes it
    text = post(title=f"A title{char}" if field == "title" else "A title",
                upstream=f'{{nccl: "v2.30.7{escaped}"}}' if field == "upstream" else "{pytorch: v2.13.0}",
                extra=extra.replace("'BAD'", f'"{escaped}"'), body=body_with("Text."))
    (repo / "docs" / "blog" / "posts" / "p.md").write_text(text, encoding="utf-8")
    _, problems = post_rules.check_all(repo / "docs", snippet_bases=[repo], repository=repo)
    column = {"title": 8, "upstream": 9}.get(field, 2)
    assert [str(p) for p in problems] == [
        f"blog/posts/p.md: field '{field}': {at} {CONTROL[char]} at character {column}, {WHERE}"]


def test_line_breaks_only_where_text_may_run_over_lines(repo: Path) -> None:
    description = "A description that runs over\ntwo lines, which is how folded YAML reads anyway, fine."
    text = post(title="Line\nbreak", description=description, body=body_with("Text."))
    (repo / "docs" / "blog" / "posts" / "p.md").write_text(text, encoding="utf-8")
    _, problems = post_rules.check_all(repo / "docs", snippet_bases=[repo], repository=repo)
    assert [str(p) for p in problems] == [
        f"blog/posts/p.md: field 'title': contains U+000A (line feed) at character 5, {WHERE}"]


def test_a_tab_is_fine(repo: Path) -> None:
    assert problems_of(repo, body_with("Text."), extra='tags: ["a\\tb"]\n') == []


def test_an_author_name_with_a_control_character_is_refused(repo: Path) -> None:
    (repo / "docs" / "blog" / ".authors.yml").write_text(
        'authors:\n  editors:\n    name: "The \\e[1mEditors"\n    description: Editors\n', encoding="utf-8")
    assert problems_of(repo, body_with("Text."))[:1] == [
        f"blog/.authors.yml: field 'authors.editors': authors.editors.name contains U+001B (escape) at "
        f"character 5, {WHERE}"]


def test_a_value_quoted_back_never_reaches_the_terminal_raw(repo: Path) -> None:
    [problem] = problems_of(repo, body_with("Text."), extra='"\\e[2Jkey": 1\n')
    assert "\x1b" not in problem and "\\u001b[2Jkey" in problem


def test_feed_problems_reads_every_feed_and_the_sitemap(tmp_path: Path) -> None:
    (tmp_path / "feed_rss_created.xml").write_text("<rss><channel><title>ok</title></channel></rss>")
    (tmp_path / "sitemap.xml").write_text("<urlset><url>\x07</url></urlset>")
    (tmp_path / "feed_json_created.json").write_text('{"items": []}')
    [problem] = feeds.feed_problems(tmp_path)
    assert str(problem).startswith("sitemap.xml: line 1, column 14: is not well-formed XML")
