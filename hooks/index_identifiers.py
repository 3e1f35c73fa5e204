"""Make search rank a post first for the code identifiers it explains, and show its title as text.

Material's search splits text at the separator set in mkdocs.yml (so `bucket_cap_mb` is indexed as
bucket, cap, mb, and a query is split the same way), then ranks with field boosts where tags
outweigh everything (1e6). A deep dive's real keywords are the identifiers it puts in inline
code, so after the search plugin has written search/search_index.json this hook adds a `code`
field to every indexed section holding its inline-code identifiers, boosted just below titles,
and lowers tags below it. The search worker indexes every field listed in the index's config,
so no JavaScript changes.

The index's titles are HTML fragments (Material escapes heading text and renders results as
HTML), but a post's page-level entry takes its title raw from the front matter. This hook writes
that title escaped, from the post's record, so a title such as ``Part <b>one</b>`` shows as text.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import posts
from mkdocs.plugins import event_priority, get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

log = get_plugin_logger("index_identifiers")
FIELD_BOOSTS = {"title": 1000.0, "code": 500.0, "tags": 200.0, "text": 1.0}
CODE_RE = re.compile(r"<code>([^<]{2,100})</code>")
# An identifier-like span: letters, digits and the joints of qualified names, nothing else.
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][\w.:/\-]*$")


def identifiers(text: str) -> list[str]:
    found: dict[str, None] = {}
    for raw in CODE_RE.findall(text):
        value = html.unescape(raw).strip().rstrip("()")
        if IDENTIFIER_RE.match(value):
            found[value] = None
    return list(found)


@event_priority(-100)  # after the search plugin has written the index
def on_post_build(config: MkDocsConfig) -> None:
    path = Path(config.site_dir) / "search" / "search_index.json"
    if not path.is_file():
        log.warning(f"{path} was not written, so search cannot rank posts by the identifiers they "
                    "explain. Accepted: the search plugin enabled in mkdocs.yml")
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    index["config"]["fields"] = {name: {"boost": boost} for name, boost in FIELD_BOOSTS.items()}
    titles = {post.url: html.escape(post.title, quote=False) for post in posts.published()}
    for doc in index["docs"]:
        names = identifiers(doc.get("text", ""))
        if names:
            doc["code"] = " ".join(names)
        if doc.get("location") in titles:
            doc["title"] = titles[doc["location"]]
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
