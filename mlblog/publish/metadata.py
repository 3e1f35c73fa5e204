"""Machine-readable page data: JSON-LD ``BlogPosting`` for each post, and robots.txt.

The JSON-LD is built from the post's record (plain text, never HTML) and serialised here, so every
value is JSON-escaped, with ``<``, ``>`` and ``&`` written as ``\\u003c`` and friends: no title can
close the <script> element around it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin

from ..posts.schema import Post


def blog_posting(post: Post, site_url: str, site_name: str) -> dict[str, Any]:
    return {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "headline": post.title_text,
        "description": post.description,
        "datePublished": post.created.isoformat(),
        "dateModified": post.modified.isoformat(),
        "author": [{"@type": "Person", "name": a.name} for a in post.authors],
        "publisher": {"@type": "Organization", "name": site_name},
        "keywords": post.keywords,
        "mainEntityOfPage": urljoin(site_url, post.url),
        "image": urljoin(site_url, post.card),
    }


def script_safe_json(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def robots_txt(site_url: str) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {urljoin(site_url or '/', 'sitemap.xml')}\n"
