"""A post's title may mark inline code with single backticks, as in Markdown: ``How `Engine.generate()` Boots``.
This module is the one place that reads them: ``problem`` for the post checks, ``html`` for HTML pages (a
``Markup`` that templates print as it is), ``plain`` for every other output (``<title>``, meta tags, JSON-LD,
feeds, cards, search). BibTeX sets code in ``\\texttt`` from the same ``CODE`` pattern (publish/citation.py).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

CODE = re.compile(r"`([^`]+)`")
ACCEPTED = ("Accepted: inline code between a pair of single backticks, as in 'How `Engine.generate()` Boots', "
            "or a title without backticks")


def problem(title: str) -> str | None:
    """What is wrong with the title's backticks, or None. Backticks pair up from the left."""
    ticks = [i for i, ch in enumerate(title) if ch == "`"]
    for opening, closing in zip(ticks[::2], ticks[1::2], strict=False):
        if not title[opening + 1:closing].strip():
            return (f"the title has a pair of backticks with no code between them (characters {opening + 1} "
                    f"to {closing + 1}). {ACCEPTED}")
    if len(ticks) % 2:
        return f"the title has an unpaired backtick (character {ticks[-1] + 1}). {ACCEPTED}"
    return None


def plain(title: str) -> str:
    return CODE.sub(lambda m: m[1], title)


def html(title: str) -> Markup:
    """The title as HTML: its text escaped, each code span in <code> (its text escaped too)."""
    parts, done = [], 0
    for match in CODE.finditer(title):
        parts += [escape(title[done:match.start()]), Markup("<code>{}</code>").format(match[1])]
        done = match.end()
    return Markup("").join([*parts, escape(title[done:])])
