"""Code blocks without the elements that change nothing on screen.

Pygments wraps every token of a highlighted block in a ``<span class="...">``. Two kinds look
exactly like the plain text around them: names (``n``), which Material colours with
``--md-code-hl-name-color``, defined in both palettes as the code's own colour
(``--md-code-fg-color``), and whitespace (``w``), which no rule styles. They are a quarter to a
third of a long post's code spans (torch.compile 101: 3,300 of 11,900), and every element costs the
reader's browser parsing, styling and layout. So, inside highlighted blocks only, a span of either
class holding only text is replaced by its text. tests/test_lighten_code_blocks.py checks in
Chromium, in both palettes, that such text has the colour and font it had in its span.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

BLOCK = re.compile(r'(<div class="language-[\w+-]+ highlight">.*?</pre></div>)', re.S)
PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')


def lighten(html_text: str) -> str:
    """`html_text` with name and whitespace token spans of highlighted blocks replaced by their text."""
    return BLOCK.sub(lambda block: PLAIN_TOKEN.sub(r"\1", block.group(1)), html_text)


@event_priority(-40)  # after hooks that read the rendered content (reading time at 50, math at 0)
def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if "highlight" not in html_text:
        return html_text
    return lighten(html_text)
