"""Reading time of a post from its prose alone.

Material's blog plugin counts every word of the rendered HTML, so a post with long listings reads
as twice as long as it is. This hook sets the post's ``readtime`` first (the plugin keeps a value
that is already set) from the text outside <pre>, <code>, <svg>, <script> and <style>. An author's
explicit ``readtime:`` in front matter still wins.

Counting parses the post's whole HTML, so the count is kept in the build cache
(hooks/build_cache.py, kind ``readtime``) under the HTML and COUNTER_VERSION (raise it when the
counting changes): an unchanged post is not parsed again by a later build or a `mkdocs serve`
rebuild.
"""

from __future__ import annotations

import math
import os
import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

import build_cache
import posts
from html_tags import VOID
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

COUNTER_VERSION = "1"
WORDS_PER_MINUTE = 265  # Material's default, so the numbers stay comparable
SKIPPED = {"pre", "code", "svg", "script", "style"}


class _ProseCounter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # how many skipped elements we are inside
        self.stack: list[str] = []
        self.words = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag in SKIPPED:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or tag not in self.stack:
            return
        while self.stack:
            open_tag = self.stack.pop()
            if open_tag in SKIPPED:
                self.depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.depth == 0:
            self.words += len(re.findall(r"\w+", data))


def prose_words(html: str) -> int:
    counter = _ProseCounter()
    counter.feed(html)
    counter.close()
    return counter.words


def minutes(html: str) -> int:
    return max(1, math.ceil(prose_words(html) / WORDS_PER_MINUTE))


_cache: build_cache.Cache | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _cache
    _cache = build_cache.Cache("readtime", os.path.dirname(config.config_file_path))
    return config


def cached_minutes(html: str) -> int:
    if _cache is None:
        return minutes(html)
    name = build_cache.key(html, COUNTER_VERSION, str(WORDS_PER_MINUTE))
    stored = _cache.get(name)
    if stored is not None and stored.isdigit():
        return int(stored)
    value = minutes(html)
    _cache.put(name, str(value).encode())
    return value


@event_priority(50)  # before the blog plugin's own on_page_content
def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    post = posts.record(page)
    if post is None or post.meta.readtime is not None:
        return html
    # The blog plugin keeps a readtime that is already set on its Post page's config.
    page.config.readtime = cached_minutes(html)  # type: ignore[attr-defined]
    return html
