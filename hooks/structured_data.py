"""Machine-readable page data: JSON-LD ``BlogPosting`` for each post, and robots.txt.

The JSON-LD is serialised here (not in a template) so that every value is JSON-escaped, and ``<``
is written as ``\\u003c`` so that no title can close the surrounding <script> element.
overrides/main.html prints ``page.meta.jsonld`` inside <script type="application/ld+json">.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from markupsafe import Markup
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page


def _plain(value: object) -> str:
    return str(value.unescape()) if isinstance(value, Markup) else str(value)


def _authors(config: MkDocsConfig, ids: list[str]) -> list[dict[str, str]]:
    import yaml

    path = Path(config.docs_dir) / "blog" / ".authors.yml"
    known = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("authors", {})
    return [{"@type": "Person", "name": known.get(a, {}).get("name", a)} for a in ids]


@event_priority(-100)  # after normalize_post_dates and social_cards have filled page.meta
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.src_uri.startswith("blog/posts/") or "slug" not in page.meta:
        return markdown
    dates = page.meta["date"]
    site = config.site_url or ""
    data = {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "headline": _plain(page.meta["title"]),
        "description": _plain(page.meta["description"]),
        "datePublished": dates["created"].isoformat(),
        "dateModified": dates["updated"].isoformat(),
        "author": _authors(config, page.meta.get("authors", [])),
        "publisher": {"@type": "Organization", "name": config.site_name},
        "keywords": [*page.meta.get("categories", []), *map(_plain, page.meta.get("tags") or [])],
        "mainEntityOfPage": urljoin(site, page.url),
        "image": urljoin(site, page.meta.get("card", "")),
    }
    text = json.dumps(data, ensure_ascii=False, indent=None, sort_keys=True)
    page.meta["jsonld"] = Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    return markdown


def on_post_build(config: MkDocsConfig) -> None:
    sitemap = urljoin(config.site_url or "/", "sitemap.xml")
    robots = f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n"
    (Path(config.site_dir) / "robots.txt").write_text(robots, encoding="utf-8")
