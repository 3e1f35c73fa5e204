"""The feeds as readers' feed readers receive them: every one parsed before it is published, and the
JSON feeds without the ``null`` fields JSON Feed 1.1 does not allow (``"image": null``: a URL string,
to be omitted when there is none)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ..posts.problems import Problem

XML_FEEDS = ("feed_*.xml", "sitemap.xml")


def feed_problems(site_dir: Path) -> list[Problem]:
    """Every feed and the sitemap that does not parse, at the line and column the parser stopped."""
    problems = []
    for path in sorted(p for pattern in XML_FEEDS for p in site_dir.glob(pattern)):
        try:
            ElementTree.fromstring(path.read_bytes())
        except ElementTree.ParseError as exc:
            line, column = exc.position
            problems.append(Problem(path.name, f"line {line}, column {column + 1}", (
                f"is not well-formed XML ({str(exc).split(':')[0]}), so feed readers would reject it. It is "
                "written from the posts' front matter (titles, descriptions, tags, authors): look there for "
                "markup or a character XML cannot carry. Accepted: text XML 1.0 can carry")))
    for path in sorted(site_dir.glob("feed_*.json")):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            where = f"line {exc.lineno}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else "file"
            problems.append(Problem(path.name, where, (
                f"is not valid JSON ({getattr(exc, 'msg', exc)}), so feed readers would reject it. It is written "
                "from the posts' front matter: look there for a character JSON cannot carry. Accepted: UTF-8 text")))
    return problems


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def drop_json_nulls(site_dir: Path) -> None:
    for feed in sorted(site_dir.glob("feed_json_*.json")):
        data = json.loads(feed.read_text(encoding="utf-8"))
        feed.write_text(json.dumps(_without_nulls(data)), encoding="utf-8")
