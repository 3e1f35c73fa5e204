"""The smallest rendered text of every figure on a page, in CSS px, as a reader's browser draws it.

A figure's label is legible on a phone when it renders at 11 CSS px or more. For SVG text the size
on screen is the font size in the drawing's units times the drawing's scale (``getScreenCTM``);
for HTML inside a figure (an interactive figure's controls and readouts) it is the computed size.
Closed ``<details>`` are opened first, so a figure inside one is measured too; a drawing that is not
displayed (the wide twin of a figure on a phone) has no boxes and is not measured.

    python tests/figure_text.py site/            # every post of a built site, at 390 px
"""

from __future__ import annotations

import sys
from pathlib import Path

MIN_PX = 11.0
PHONE = {"width": 390, "height": 844}

MEASURE = """() => {
  document.querySelectorAll('article details:not([open])').forEach(d => { d.open = true; });
  const figures = [...document.querySelectorAll('article figure')];
  return figures.map((fig, index) => {
    let smallest = null, label = '';
    const consider = (px, text) => {
      if (smallest === null || px < smallest) { smallest = px; label = text.trim().slice(0, 40); }
    };
    for (const el of fig.querySelectorAll('text, tspan')) {
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length) continue;
      const svg = el.ownerSVGElement;
      const ctm = svg && svg.getScreenCTM();
      if (!ctm) continue;
      const scale = Math.hypot(ctm.a, ctm.b);
      consider(parseFloat(getComputedStyle(el).fontSize) * scale, el.textContent);
    }
    for (const el of fig.querySelectorAll('*')) {
      if (el.closest('svg') || el.closest('figcaption')) continue;
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden') continue;
      consider(parseFloat(style.fontSize), el.textContent);
    }
    const id = fig.id || (fig.querySelector('svg[id]') || {}).id || fig.dataset.ifig || `figure ${index + 1}`;
    return {index, id, smallest, label};
  });
}"""


def measure(page) -> list[dict]:
    """Per figure of the loaded page: its index, an id, the smallest text in CSS px and that text."""
    return page.evaluate(MEASURE)


def main(site: Path) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from browser import chromium, serve  # noqa: PLC0415 - only when run as a script

    bad = 0
    posts = sorted(p.parent for p in (site / "blog").glob("20*/*/*/*/index.html"))
    with serve(site) as base, chromium() as browser:
        page = browser.new_page(viewport=PHONE)
        for post in posts:
            url = f"{base}/{post.relative_to(site).as_posix()}/"
            page.goto(url)
            page.wait_for_load_state("load")
            for fig in measure(page):
                flag = "" if fig["smallest"] is None or fig["smallest"] >= MIN_PX else "  < 11 px"
                bad += bool(flag)
                size = "-" if fig["smallest"] is None else f"{fig['smallest']:.1f}"
                print(f"{post.name:40} {fig['id']:36} {size:>6} px  {fig['label']!r}{flag}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "site")))
