"""Reading time from a post's prose alone: Material's blog plugin counts every word of the rendered
HTML, so a post with long listings would read as twice as long as it is. Words outside <pre>,
<code>, <svg>, <script> and <style> are counted at Material's 265 a minute."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

WORDS_PER_MINUTE = 265  # Material's default, so the numbers stay comparable
SKIPPED = {"pre", "code", "svg", "script", "style"}
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


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
        self.depth += tag in SKIPPED

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or tag not in self.stack:
            return
        while self.stack:
            open_tag = self.stack.pop()
            self.depth -= open_tag in SKIPPED
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
