"""A link-preview image (Open Graph / Twitter card) for every post, drawn at build time.

Material's social plugin fetches its fonts from Google Fonts while building; this site builds
without a network. The cards are drawn with Pillow and the font Pillow itself ships (Aileron, from
the PyPI wheel), so nothing is downloaded. Each post gets assets/cards/<slug>.png, every other page
the site card; overrides/main.html points og:image and twitter:image at ``page.meta.card``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.plugins import event_priority
from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

SIZE = (1200, 630)
BACKGROUND, FOREGROUND, MUTED, ACCENT = "#1a237e", "#ffffff", "#c5cae9", "#8c9eff"
SITE_CARD = "assets/cards/site.png"

_cards: dict[str, dict[str, str]] = {}  # card path -> what to draw; reset per build


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    _cards.clear()
    _cards[SITE_CARD] = {"title": config.site_name, "line": "Code-level deep dives into ML systems performance"}
    return config


@event_priority(-100)
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    slug = page.meta.get("slug")
    if slug and page.file.src_uri.startswith("blog/posts/"):
        path = f"assets/cards/{slug}.png"
        created = page.meta["date"]["created"]
        categories = " · ".join(page.meta.get("categories", []))
        # Titles were escaped for HTML by escape_front_matter; the card draws the plain text.
        title = str(page.meta["title"].unescape()) if hasattr(page.meta["title"], "unescape") else page.meta["title"]
        _cards[path] = {"title": title, "line": f"{created:%B} {created.day}, {created.year}  ·  {categories}"}
    else:
        path = SITE_CARD
    page.meta["card"] = path
    return markdown


def draw(title: str, line: str, site_name: str) -> Image.Image:
    image = Image.new("RGB", SIZE, BACKGROUND)
    pen = ImageDraw.Draw(image)
    small = ImageFont.load_default(size=34)
    pen.rectangle((0, 0, 24, SIZE[1]), fill=ACCENT)
    pen.text((80, 60), site_name, font=small, fill=MUTED)
    # The largest type size at which the title fits in four lines.
    size, lines = 48, textwrap.wrap(title, width=44)[:4]
    for candidate, width in ((68, 30), (58, 36)):
        wrapped = textwrap.wrap(title, width=width)
        if len(wrapped) <= 4:
            size, lines = candidate, wrapped
            break
    big = ImageFont.load_default(size=size)
    y = 150
    for text in lines:
        pen.text((80, y), text, font=big, fill=FOREGROUND, stroke_width=1, stroke_fill=FOREGROUND)
        y += int(size * 1.25)
    pen.text((80, SIZE[1] - 100), line, font=small, fill=MUTED)
    return image


def on_post_build(config: MkDocsConfig) -> None:
    for path, what in _cards.items():
        target = Path(config.site_dir) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        draw(what["title"], what["line"], config.site_name).save(target, optimize=True)
