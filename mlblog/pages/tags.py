"""A built page's HTML read tag by tag: the tokenizer of the passes that reason about its structure
(chunks.py finds the top-level blocks).

Regular expressions rather than an HTML parser: the markup is the build's own (Python-Markdown,
pymdownx, KaTeX, Mermaid), and each caller needs the exact offsets of every tag, which the standard
library's parser does not give. Comments, and script and style elements whole, are single tokens,
so a "<" inside them is never taken for a tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Part of the build-cache key of every pass that caches what it read with these rules, so an edit
# here decides every page anew.
SOURCE = Path(__file__).read_bytes()

VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())

# A comment, a raw-text element whole, or a start or end tag (quoted attribute values may hold ">").
TOKEN = re.compile(
    r"<!--.*?-->"
    r"|<(script|style)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?</\1\s*>"
    r"|<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S | re.I)


def self_closing(rest: str) -> bool:
    """``<path d="..."/>``, not ``<a href=/x/>`` (an unquoted value that ends in a slash)."""
    rest = rest.rstrip()
    return rest.endswith("/") and (len(rest) == 1 or rest[-2] in " \t\n\"'")


@dataclass(frozen=True, slots=True)
class Tag:
    """One token: ``kind`` is "start", "end", "raw" (a script or style element, whole) or "comment"."""

    kind: str
    name: str  # lower-case; "" for a comment
    rest: str  # a start tag's text after its name (its attributes)
    start: int
    end: int

    @property
    def opens(self) -> bool:
        """A start tag that leaves its element open: not void, not self-closing."""
        return self.kind == "start" and self.name not in VOID and not self_closing(self.rest)


def tags(fragment: str) -> Iterator[Tag]:
    for token in TOKEN.finditer(fragment):
        raw, closing, name, rest = token.groups()
        if raw:
            yield Tag("raw", raw.lower(), "", token.start(), token.end())
        elif name is None:
            yield Tag("comment", "", "", token.start(), token.end())
        else:
            yield Tag("end" if closing else "start", name.lower(), rest, token.start(), token.end())
