"""mlblog/pages/code.py: name and whitespace token spans leave code blocks, and nothing changes
on screen."""

from __future__ import annotations

import re

from browser import new_page, scheme, serve
from playwright.sync_api import Browser
from support import Site

from mlblog.pages.code import lighten

BLOCK = ('<div class="language-python highlight"><pre><span></span><code><span class="n">x</span>'
         '<span class="w"> </span><span class="o">=</span><span class="w"> </span><span class="n">f</span>'
         '<span class="p">(</span><span class="mi">1</span><span class="p">)</span>\n</code></pre></div>')


def text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_only_plain_looking_token_spans_of_highlighted_blocks_go() -> None:
    inline = '<p>Call <code><span class="n">x</span></code> now.</p>'
    out = lighten(inline + BLOCK)
    assert out.startswith(inline)  # inline code is not a highlighted block
    assert text(out) == text(inline + BLOCK)
    assert '<span class="n">' not in out[len(inline):] and '<span class="w">' not in out
    assert out.count("<span") == (inline + BLOCK).count("<span") - 4
    for kept in ('<span class="o">=</span>', '<span class="p">(</span>', '<span class="mi">1</span>'):
        assert kept in out


# Each property a token span could change, for a bare span and for spans of the classes unwrapped.
SAME_LOOK = """() => {
  const code = document.querySelector('article .highlight code');
  const probe = cls => { const s = document.createElement('span'); if (cls) s.className = cls;
                         s.textContent = 'x'; code.appendChild(s); return getComputedStyle(s); };
  const props = ['color', 'fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'textDecorationLine',
                 'backgroundColor', 'letterSpacing', 'verticalAlign'];
  const plain = probe(''), looks = {};
  for (const cls of ['n', 'w', 'p']) { const s = probe(cls); looks[cls] = props.filter(p => s[p] !== plain[p]); }
  return looks;
}"""


def test_unwrapped_tokens_look_as_they_did_in_both_palettes(browser: Browser, real_site: Site) -> None:
    post = "blog/2025/08/07/torch-compile-101/index.html"
    built = (real_site.site_dir / post).read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="language-[\w+-]+ highlight">.*?</pre></div>', built, re.S)
    assert len(blocks) > 10
    assert not any(re.search(r'<span class="[nw]">', b) for b in blocks)
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, color_scheme="light")
        url = f"{base}/{post.removesuffix('index.html')}"
        page.goto(url)
        # Each palette chosen, then the page loaded in it: right after a switch, code blocks drawn
        # later (site.css skips them off screen) are still in their colour transition.
        for index, palette in ((1, "default"), (2, "slate")):
            page.evaluate(f"__md_set('site.palette', {index})")
            page.goto(url, wait_until="load")
            assert scheme(page) == palette
            looks = page.evaluate(SAME_LOOK)
            assert looks["n"] == [] and looks["w"] == [], (palette, looks)
            assert "color" in looks["p"], looks  # the probe can tell a styled token apart
        assert rec.errors == []
        page.context.close()
