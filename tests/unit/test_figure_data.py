"""Interactive figures' data survives Material's instant navigation (mlblog/pages/markup.py)."""

from __future__ import annotations

import html as html_module
import re

from mlblog.pages.markup import inert_figure_data


def test_figure_data_leaves_script_elements_for_an_inert_element_with_the_same_text() -> None:
    """Material's instant navigation runs every <script> of the new page's content again as a
    script without its type; a figure's JSON data must not be one (mlblog/pages/markup.py)."""
    data = '{"steps": [{"label": "a <b> & \\"c\\""}], "n": 2}'
    page = (f'<figure class="ifig"><script type="application/json" class="rs-traces">\n{data}\n</script></figure>'
            '<script id="__config" type="application/json">{"base": ".."}</script>'
            '<script type="application/ld+json">{"@type": "BlogPosting"}</script>')
    out = inert_figure_data(page)
    element = re.search(r'<div class="rs-traces" hidden data-json="([^"]*)"></div>', out)
    assert element and html_module.unescape(element[1]) == data
    assert 'class="rs-traces">' not in out.replace('<div class="rs-traces" hidden', "")
    # Material's configuration and the JSON-LD are not figure data: left as they are.
    assert '<script id="__config" type="application/json">' in out and "application/ld+json" in out
