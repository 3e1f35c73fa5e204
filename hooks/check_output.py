"""What the build writes is checked before it is published: no page loads anything from another host,
and every feed parses.

The post checks (hooks/validate_posts.py) already refuse an external resource written in a page's
Markdown, with its line. This hook reads the finished output, so that a template, a plugin or an
included file cannot bring one in either:

* ``on_post_page`` and ``on_post_template`` (404.html): every page's HTML through
  ``external_resources.externals``; a URL of the site's own host (``site_url``) is its own.
* ``on_post_build`` (priority -90: after mkdocs-rss-plugin has written the feeds at 0, before
  hooks/repair_markup.py rewrites the JSON ones at -100): every stylesheet in the site read the same
  way, and every feed (``feed_*.xml``, ``feed_*.json``) and ``sitemap.xml`` parsed as XML or JSON. A
  title with a character XML cannot carry is refused by the post schema; this catches whatever
  else would stop a feed reader, whatever made it.

Every problem is collected and the build stops once, listing all of them (``mkdocs serve`` shows
the list in the browser).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit
from xml.etree import ElementTree

from external_resources import External, css_externals, externals
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from post_checks import EXTERNAL_ACCEPTED, Problem, format_problems

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

SCOPE = "the built site (pages by their source under docs/, other files by their path in the site)"
FEEDS = ("feed_*.xml", "sitemap.xml")
JSON_FEEDS = ("feed_*.json",)


class _State:
    def __init__(self) -> None:
        self.own: frozenset[str] = frozenset()
        self.problems: list[Problem] = []


_state = _State()


def own_hosts(config: MkDocsConfig) -> frozenset[str]:
    host = urlsplit(config.site_url or "").hostname
    return frozenset({host.lower()}) if host else frozenset()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    _state.own = own_hosts(config)
    _state.problems = []
    return config


def _problem(file: str, where: str, found: External, source: bool) -> Problem:
    origin = "" if source else (": it comes from a template, a plugin or an included file, not from the "
                                "page's Markdown")
    return Problem(file, where, f"{found.what} loads {found.url} from another host{origin}. {EXTERNAL_ACCEPTED}")


def page_problems(output: str, file: str, dest: str, markdown: str, own: frozenset[str]) -> list[Problem]:
    """A built page's external resources, each at the line of the page's Markdown that holds the
    URL when there is one."""
    problems = []
    for found in dict.fromkeys(externals(output, own)):
        at = markdown.find(found.url) if found.url else -1
        where = f"line {markdown.count(chr(10), 0, at) + 1}" if at >= 0 else f"built page {dest}"
        problems.append(_problem(file, where, found, at >= 0))
    return problems


@event_priority(-110)  # after every other hook has finished the page
def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    markdown = page.file.content_string if page.file.abs_src_path else ""
    _state.problems += page_problems(output, page.file.src_uri, page.file.dest_uri, markdown, _state.own)
    return output


@event_priority(-110)
def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    if template_name.endswith(".html"):
        _state.problems += page_problems(output_content, template_name, template_name, "", _state.own)
    return output_content


def feed_problems(site_dir: Path) -> list[Problem]:
    """Every feed and the sitemap that does not parse, at the line and column the parser stopped."""
    problems = []
    for pattern in FEEDS:
        for path in sorted(site_dir.glob(pattern)):
            try:
                ElementTree.fromstring(path.read_bytes())
            except ElementTree.ParseError as exc:
                line, column = exc.position
                problems.append(Problem(path.name, f"line {line}, column {column + 1}", (
                    f"is not well-formed XML ({str(exc).split(':')[0]}), so feed readers would reject it. "
                    "It is written from the posts' front matter (titles, descriptions, tags, authors): "
                    "look there for markup or a character XML cannot carry. Accepted: text XML 1.0 can carry")))
    for pattern in JSON_FEEDS:
        for path in sorted(site_dir.glob(pattern)):
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                where = f"line {exc.lineno}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else "file"
                problems.append(Problem(path.name, where, (
                    f"is not valid JSON ({getattr(exc, 'msg', exc)}), so feed readers would reject it. It is "
                    "written from the posts' front matter: look there for a character JSON cannot carry. "
                    "Accepted: UTF-8 text")))
    return problems


def stylesheet_problems(site_dir: Path, own: frozenset[str]) -> list[Problem]:
    problems = []
    for path in sorted(site_dir.rglob("*.css")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "//" not in text and "\\" not in text:
            continue
        rel = path.relative_to(site_dir).as_posix()
        problems += [Problem(rel, f"line {text.count(chr(10), 0, found.offset) + 1}", (
            f"{found.what} loads {found.url} from another host. {EXTERNAL_ACCEPTED}"))
            for found in css_externals(text, 0, own)]
    return problems


@event_priority(-90)
def on_post_build(*, config: MkDocsConfig) -> None:
    site_dir = Path(config.site_dir)
    problems = [*_state.problems, *stylesheet_problems(site_dir, _state.own), *feed_problems(site_dir)]
    _state.problems = []
    if problems:
        raise PluginError(format_problems(sorted(set(problems)), scope=SCOPE))

