"""What an author or a contributor can publish, tried as an attacker would.

* No file from outside the repository: a snippet (``--8<--``) or a file under docs/ that leads
  outside it, through a link, an absolute path, ``../`` or a URL, is a problem naming the file, the
  line and where the path leads, in the post checks and in the build, never a traceback.
* Nothing loaded from another host: every way a page can make the browser fetch (``src``,
  ``srcset``, stylesheets, SVG ``<image>``, CSS ``url()``, ``<base>``, ``srcdoc``...), spelled as a
  browser would still read it, is refused in the Markdown and in the built page alike; links
  readers follow stay allowed.
* No text a feed cannot carry: control characters and what XML 1.0 refuses, in every front-matter
  text field and in ``.authors.yml``, are refused with the field and the code point; and every feed
  the build writes is parsed before it is published.

The rules run in-process (milliseconds); real builds check the wiring.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import external_resources
import post_checks
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import Site, make_site, post

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

ACCEPTED_SNIPPET = post_checks.SNIPPET_ACCEPTED
ACCEPTED_EXTERNAL = post_checks.EXTERNAL_ACCEPTED


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
    _, problems = post_checks.check_all(repo / "docs", snippet_bases=[repo], repository=repo,
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
    _, problems = post_checks.check_all(repo / "docs", snippet_bases=[repo], repository=repo)
    column = {"title": 8, "upstream": 9}.get(field, 2)
    assert [str(p) for p in problems] == [
        f"blog/posts/p.md: field '{field}': {at} {CONTROL[char]} at character {column}, {WHERE}"]


def test_line_breaks_only_where_text_may_run_over_lines(repo: Path) -> None:
    description = "A description that runs over\ntwo lines, which is how folded YAML reads anyway, fine."
    text = post(title="Line\nbreak", description=description, body=body_with("Text."))
    (repo / "docs" / "blog" / "posts" / "p.md").write_text(text, encoding="utf-8")
    _, problems = post_checks.check_all(repo / "docs", snippet_bases=[repo], repository=repo)
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


# --- the wiring: check-posts, the build, the built output ---------------------------------------

def leaky_site(tmp_path: Path) -> Site:
    site = make_site(tmp_path / "src")
    (tmp_path / "secret.txt").write_text("the runner's token\n", encoding="utf-8")
    (site.root / "examples" / "leak.txt").symlink_to(tmp_path / "secret.txt")
    site.write_post("p.md", post(body=body_with('```text\n--8<-- "examples/leak.txt"\n```')))
    return site


@pytest.mark.slow
def test_the_build_and_check_posts_refuse_a_leaking_snippet_without_a_traceback(tmp_path: Path) -> None:
    site = leaky_site(tmp_path)
    result = site.build()
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "runner's token" not in result.stderr
    message = (f"blog/posts/p.md: line 16: the snippet 'examples/leak.txt' is a link to {tmp_path / 'secret.txt'}, "
               "outside the repository")
    assert message in result.stderr
    assert not (site.site_dir / "blog" / "2025" / "03" / "04" / "a-fixture-post").exists()
    checked = subprocess.run(
        [sys.executable, str(site.root / "hooks" / "post_cli.py"), "check", str(site.docs)],
        capture_output=True, text=True, timeout=120)
    assert checked.returncode == 1 and message in checked.stderr and "Traceback" not in checked.stderr


@pytest.mark.slow
def test_an_absolute_snippet_path_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("p.md", post(body=body_with('--8<-- "/etc/hostname"')))
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert "blog/posts/p.md: line 15: the snippet '/etc/hostname' leads outside the repository" in result.stderr


@pytest.mark.slow
def test_a_template_that_loads_from_another_host_stops_the_build(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("p.md", post(body=body_with("Text.")))
    main = site.root / "overrides" / "main.html"
    main.write_text(main.read_text(encoding="utf-8").replace(
        "{% block extrahead %}",
        '{% block extrahead %}<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">', 1),
        encoding="utf-8")
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert "in the built site (pages by their source under docs/, other files by their path in the site):" \
        in result.stderr
    assert re.search(r"blog/posts/p\.md: built page blog/2025/03/04/a-fixture-post/index\.html: <link href> loads "
                     r"https://fonts\.googleapis\.com/css\?family=Roboto from another host: it comes from a "
                     r"template, a plugin or an included file", result.stderr), result.stderr
    assert "404.html: built page 404.html: <link href> loads https://fonts.googleapis.com" in result.stderr


FEED_BREAKER = '''\
from pathlib import Path
from mkdocs.plugins import event_priority

@event_priority(-50)  # after the feed plugin has written its feeds, before they are checked
def on_post_build(config):
    feed = Path(config.site_dir) / "feed_rss_created.xml"
    feed.write_text(feed.read_text(encoding="utf-8").replace("<channel>", "<channel><title>a & b</title>", 1),
                    encoding="utf-8")
    json_feed = Path(config.site_dir) / "feed_json_updated.json"
    json_feed.write_text(json_feed.read_text(encoding="utf-8")[:-2], encoding="utf-8")
'''


@pytest.mark.slow
def test_a_feed_that_does_not_parse_stops_the_build(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("p.md", post(body=body_with("Text.")))
    (site.root / "hooks" / "break_feed.py").write_text(FEED_BREAKER, encoding="utf-8")
    config = (site.root / "mkdocs.yml").read_text(encoding="utf-8")
    (site.root / "mkdocs.yml").write_text(config.replace("\nhooks:\n", "\nhooks:\n  - hooks/break_feed.py\n", 1),
                                          encoding="utf-8")
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert re.search(r"feed_rss_created\.xml: line \d+, column \d+: is not well-formed XML \(not well-formed "
                     r"\(invalid token\)\), so feed readers would reject it", result.stderr), result.stderr
    assert re.search(r"feed_json_updated\.json: line \d+, column \d+: is not valid JSON", result.stderr), result.stderr


def test_feed_problems_reads_every_feed_and_the_sitemap(tmp_path: Path) -> None:
    import check_output
    (tmp_path / "feed_rss_created.xml").write_text("<rss><channel><title>ok</title></channel></rss>")
    (tmp_path / "sitemap.xml").write_text("<urlset><url>\x07</url></urlset>")
    (tmp_path / "feed_json_created.json").write_text('{"items": []}')
    [problem] = check_output.feed_problems(tmp_path)
    assert str(problem).startswith("sitemap.xml: line 1, column 14: is not well-formed XML")


# --- generated titles, descriptions, tags and snippet paths through real builds ------------------

# Text drawn from the classes an attacker or a terminal brings: markup, quotes, braces, TeX and
# BibTeX specials, every kind of line break, C0 and C1 controls, what XML cannot carry, accents.
HOSTILE = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.sampled_from(["<", ">", "&", '"', "'", "`", "{", "}", "#", "%", "_", "\\", "$", "<script>", "&amp;",
                     "]]>", "\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9b", "\u2028", "\ufffe", "\uffff",
                     "\ud800", "\t", "\n", "\r", "é", "→", "\u200b", "\U0001f600"]))
PATHS = ["examples/good.py", "examples/leak.txt", "examples/wrapper.md", "examples/binary.dat", "examples",
         "/etc/hostname", "../secret.txt", "examples/../../secret.txt", "https://example.com/x.py",
         "examples/missing.py", "examples/good.py:nosuch", "examples/good.py:1:1"]
PATH_TEXT = st.one_of(st.sampled_from(PATHS), st.lists(
    st.sampled_from(list("ab./~:\\ -_") + ["..", "examples/"]), min_size=1, max_size=10).map("".join))


@st.composite
def one_hostile_field(draw: st.DrawFn) -> tuple[str, str]:
    """(which field, the post's text) with one field drawn from the hostile classes."""
    field = draw(st.sampled_from(["title", "description", "tags", "series", "snippet"]))
    value = draw(st.lists(HOSTILE, min_size=1, max_size=12).map("".join))
    description = "A generated post that checks what the build publishes for text it did not expect."
    extra, body = "", body_with("Text.")
    title = f"Post {value}" if field == "title" else "A generated post"
    if field == "description":
        description = f"{description} {value}"
    elif field == "tags":
        extra = f"tags: [{json.dumps(value)}]\n"
    elif field == "series":
        extra = f"series: {{name: {json.dumps(value)}, part: 1}}\n"
    elif field == "snippet":
        path = draw(PATH_TEXT)
        body = body_with(f"```text\n--8<-- {json.dumps(path)}\n```")
    return field, post(title=title, slug="generated", description=description, extra=extra, body=body)


def build_in_process(site: Site) -> str | None:
    """Build the site strictly in this process: None, or the message that stopped it (any other
    exception is a traceback an author would see, and fails the test)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, PluginError

    # MkDocs keeps one instance of each plugin per process, as `mkdocs serve` does between rebuilds:
    # so, as there, they start up for each build and shut down once, with the fixture.
    logged: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logged.append(record.getMessage())

    collect = Collect(logging.WARNING)
    logging.getLogger("mkdocs").addHandler(collect)
    config = load_config(str(site.root / "mkdocs.yml"), site_dir=str(site.site_dir))
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    except (PluginError, Abort) as exc:  # MkDocs logs a PluginError's message, then aborts
        return "\n".join(logged) or str(exc)
    finally:
        logging.getLogger("mkdocs").removeHandler(collect)
    return None


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("hostile")
    site = make_site(root / "src")
    (root / "secret.txt").write_text("the runner's token\n", encoding="utf-8")
    examples = site.root / "examples"
    (examples / "good.py").write_text("print('good')\n", encoding="utf-8")
    (examples / "leak.txt").symlink_to(root / "secret.txt")
    (examples / "wrapper.md").write_text('--8<-- "examples/leak.txt"\n', encoding="utf-8")
    (examples / "binary.dat").write_bytes(b"\xff\xfe\x00")
    yield site
    from mkdocs.config import load_config
    load_config(str(site.root / "mkdocs.yml")).plugins.on_shutdown()


def well_formed_and_plain(site: Site, text: str) -> None:
    """Every feed and the sitemap parse; the post's title and description reach its page as text."""
    for feed in [*site.site_dir.glob("feed_*.xml"), site.site_dir / "sitemap.xml"]:
        ElementTree.fromstring(feed.read_bytes())
    for feed in site.site_dir.glob("feed_*.json"):
        json.loads(feed.read_text(encoding="utf-8"))
    meta = yaml.safe_load(text.split("---\n")[1])
    page = (site.site_dir / "blog/2025/03/04/generated/index.html").read_text(encoding="utf-8")
    [h1] = re.findall(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    assert html.unescape(re.sub(r"<[^>]+>", "", h1)).strip() == " ".join(meta["title"].split()) or \
        "`" in meta["title"], (h1, meta["title"])
    [jsonld] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    assert json.loads(jsonld)["headline"] == meta["title"].strip()
    [described] = re.findall(r'<meta name="description" content="([^"]*)"', page)
    assert html.unescape(described) == " ".join(meta["description"].split())


def a_build_publishes_well_formed_output_or_stops_with_one_clear_problem(site: Site, case: tuple[str, str]) -> None:
    field, text = case
    for old in site.docs.glob("blog/posts/*.md"):
        old.unlink()
    site.write_post("generated.md", text)
    stopped = build_in_process(site)
    if stopped is None:
        well_formed_and_plain(site, text)
        return
    assert "Traceback" not in stopped
    listed = re.findall(r"^  - (.+)$", stopped, re.MULTILINE)
    assert len(listed) == 1 and stopped.startswith("1 problem in "), stopped
    where = "field 'title'" if field == "title" else f"field '{field}'" if field != "snippet" else "line 16"
    assert listed[0].startswith(f"blog/posts/generated.md: {where}: "), (field, stopped)
    assert "Accepted: " in listed[0] and "runner's token" not in stopped


@settings(derandomize=True, database=None, deadline=None, max_examples=25,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=one_hostile_field())
def test_generated_fields_build_well_formed_or_stop_with_one_problem(hostile_site: Site,
                                                                    case: tuple[str, str]) -> None:
    a_build_publishes_well_formed_output_or_stops_with_one_clear_problem(hostile_site, case)


@pytest.mark.slow
@settings(derandomize=True, database=None, deadline=None, max_examples=200,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=one_hostile_field())
def test_many_generated_fields_build_well_formed_or_stop_with_one_problem(hostile_site: Site,
                                                                         case: tuple[str, str]) -> None:
    a_build_publishes_well_formed_output_or_stops_with_one_clear_problem(hostile_site, case)
