"""Code blocks without the elements that change nothing on screen.

Pygments wraps every token of a highlighted block in a ``<span class="...">``. Two kinds look
exactly like the plain text around them: names (``n``), which Material colours with
``--md-code-hl-name-color``, defined in both palettes as the code's own colour, and whitespace
(``w``), which no rule styles. They are a quarter to a third of a long post's code spans, and every
element costs the reader's browser parsing, styling and layout; inside highlighted blocks, such a
span holding only text is replaced by its text.
"""

from __future__ import annotations

import re

BLOCK = re.compile(r'(<div class="language-[\w+-]+ highlight">.*?</pre></div>)', re.S)
PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')


def lighten(html_text: str) -> str:
    """`html_text` with name and whitespace token spans of highlighted blocks replaced by their text."""
    if "highlight" not in html_text:
        return html_text
    return BLOCK.sub(lambda block: PLAIN_TOKEN.sub(r"\1", block.group(1)), html_text)
