"""A link-preview image (Open Graph / Twitter card) for every post, drawn at build time.

Material's social plugin fetches its fonts from Google Fonts while building; this site builds without
a network. Cards are drawn with Pillow and the font Pillow itself ships (Aileron, in the PyPI wheel).
Each post gets assets/cards/<slug>.png, every other page the site card. A card depends only on its
title, byline and the site's name, Pillow and the drawing code here (DRAWING_VERSION: raise it when
``draw`` changes), so each PNG is kept in the build cache under a key of exactly those.
"""

from __future__ import annotations

import io
import textwrap

import PIL
from PIL import Image, ImageDraw, ImageFont

from ..posts.schema import Post
from ..render.cache import Cache, key

SIZE = (1200, 630)
BACKGROUND, FOREGROUND, MUTED, ACCENT = "#1a237e", "#ffffff", "#c5cae9", "#8c9eff"
SITE_CARD = "assets/cards/site.png"
DRAWING_VERSION = "2"


def card_of(post: Post | None) -> str:
    """The card a page's link preview shows: the post's own, or the site's."""
    return post.card if post is not None else SITE_CARD


def draw(title: str, line: str, site_name: str) -> Image.Image:
    image = Image.new("RGB", SIZE, BACKGROUND)
    pen = ImageDraw.Draw(image)
    small = ImageFont.load_default(size=34)
    pen.rectangle((0, 0, 24, SIZE[1]), fill=ACCENT)
    pen.text((80, 60), site_name, font=small, fill=MUTED)
    # The largest type size (and its line width) at which the title fits in four lines; at the smallest
    # it is cut at four.
    size, width = next(((size, width) for size, width in ((68, 30), (58, 36))
                        if len(textwrap.wrap(title, width=width)) <= 4), (48, 44))
    big = ImageFont.load_default(size=size)
    for i, text in enumerate(textwrap.wrap(title, width=width)[:4]):
        pen.text((80, 150 + i * int(size * 1.25)), text, font=big, fill=FOREGROUND, stroke_width=1,
                 stroke_fill=FOREGROUND)
    pen.text((80, SIZE[1] - 100), line, font=small, fill=MUTED)
    return image


def cards_for(published: list[Post], site_name: str) -> dict[str, tuple[str, str]]:
    """Card path -> (title, byline) to draw, as plain text, for the site and each published post."""
    cards = {SITE_CARD: (site_name, "Code-level deep dives into ML systems performance")}
    for post in published:  # drafts get no card: their pages are not published
        day = post.created
        cards[post.card] = (post.title_text, f"{day:%B} {day.day}, {day.year}  ·  {' · '.join(post.meta.categories)}")
    return cards


def card_key(title: str, line: str, site_name: str) -> str:
    return key(title, line, site_name, PIL.__version__, DRAWING_VERSION, repr((SIZE, BACKGROUND, FOREGROUND, MUTED,
                                                                              ACCENT)))


def png(title: str, line: str, site_name: str, cache: Cache) -> bytes:
    name = card_key(title, line, site_name)
    data = cache.get(name, ".png")
    if data is None:
        out = io.BytesIO()
        # zlib's default level: optimize=True made each card about 5% smaller and 4-5 times slower to write.
        draw(title, line, site_name).save(out, format="PNG")
        data = out.getvalue()
        cache.put(name, data, ".png")
    return data
