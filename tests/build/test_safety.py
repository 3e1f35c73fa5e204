"""What an author or a contributor can publish, through real builds: a leaking snippet, an absolute
snippet path, a template that loads from another host and a feed that does not parse each stop the
build with the problem named and no traceback; hostile titles, descriptions, tags and snippet paths,
generated, either build into well-formed output or stop with one clear problem (the rules themselves:
tests/unit/test_safety_rules.py).
"""

from __future__ import annotations

import html
import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import Site, make_site, post


def body_with(line: str) -> str:
    return f"Opening.\n\n<!-- more -->\n\n{line}\n"  # the line is line 15 of the file


# --- the wiring: check-posts, the build, the built output ---------------------------------------

def leaky_site(tmp_path: Path) -> Site:
    site = make_site(tmp_path / "src")
    (tmp_path / "secret.txt").write_text("the runner's token\n", encoding="utf-8")
    (site.root / "examples" / "leak.txt").symlink_to(tmp_path / "secret.txt")
    site.write_post("p.md", post(body=body_with('```text\n--8<-- "examples/leak.txt"\n```')))
    return site


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
        [sys.executable, "-m", "mlblog", "-f", str(site.root / "mkdocs.yml"), "check"],
        capture_output=True, text=True, timeout=120)
    assert checked.returncode == 1 and message in checked.stderr and "Traceback" not in checked.stderr


def test_an_absolute_snippet_path_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("p.md", post(body=body_with('--8<-- "/etc/hostname"')))
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert "blog/posts/p.md: line 15: the snippet '/etc/hostname' leads outside the repository" in result.stderr


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


def test_a_feed_that_does_not_parse_stops_the_build(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("p.md", post(body=body_with("Text.")))
    (site.root / "break_feed.py").write_text(FEED_BREAKER, encoding="utf-8")
    with (site.root / "mkdocs.yml").open("a", encoding="utf-8") as config:
        config.write("hooks:\n  - break_feed.py\n")
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert re.search(r"feed_rss_created\.xml: line \d+, column \d+: is not well-formed XML \(not well-formed "
                     r"\(invalid token\)\), so feed readers would reject it", result.stderr), result.stderr
    assert re.search(r"feed_json_updated\.json: line \d+, column \d+: is not valid JSON", result.stderr), result.stderr


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


@pytest.mark.fast  # 200 fields in `make test`, 25 in `make test-fast` (the profiles in tests/conftest.py)
@settings(derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=one_hostile_field())
def test_generated_fields_build_well_formed_or_stop_with_one_problem(hostile_site: Site,
                                                                    case: tuple[str, str]) -> None:
    field, text = case
    for old in hostile_site.docs.glob("blog/posts/*.md"):
        old.unlink()
    hostile_site.write_post("generated.md", text)
    stopped = build_in_process(hostile_site)
    if stopped is None:
        well_formed_and_plain(hostile_site, text)
        return
    assert "Traceback" not in stopped
    listed = re.findall(r"^  - (.+)$", stopped, re.MULTILINE)
    assert len(listed) == 1 and stopped.startswith("1 problem in "), stopped
    where = "field 'title'" if field == "title" else f"field '{field}'" if field != "snippet" else "line 16"
    assert listed[0].startswith(f"blog/posts/generated.md: {where}: "), (field, stopped)
    assert "Accepted: " in listed[0] and "runner's token" not in stopped
