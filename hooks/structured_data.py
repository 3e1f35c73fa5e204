"""Machine-readable page data: JSON-LD ``BlogPosting`` for each post, and robots.txt.

The JSON-LD is built from the post's record (plain text, never HTML) and serialised here, not in a
template, so every value is JSON-escaped; ``<``, ``>`` and ``&`` are written as ``\\u003c`` and
friends so that no title can close the surrounding <script> element. overrides/main.html prints
the context's ``jsonld`` inside <script type="application/ld+json">.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import posts
from markupsafe import Markup

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page
    from post_schema import Post


def blog_posting(post: Post, config: MkDocsConfig) -> dict[str, Any]:
    site = config.site_url or ""
    return {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "headline": post.title,
        "description": post.description,
        "datePublished": post.created.isoformat(),
        "dateModified": post.modified.isoformat(),
        "author": [{"@type": "Person", "name": a.name} for a in post.authors],
        "publisher": {"@type": "Organization", "name": config.site_name},
        "keywords": post.keywords,
        "mainEntityOfPage": urljoin(site, post.url),
        "image": urljoin(site, post.card),
    }


def script_safe_json(data: dict[str, Any]) -> Markup:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def on_page_context(context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation
                    ) -> dict[str, Any]:
    post = posts.record(page)
    context["jsonld"] = script_safe_json(blog_posting(post, config)) if post is not None else None
    return context


def on_post_build(config: MkDocsConfig) -> None:
    sitemap = urljoin(config.site_url or "/", "sitemap.xml")
    robots = f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n"
    (Path(config.site_dir) / "robots.txt").write_text(robots, encoding="utf-8")
