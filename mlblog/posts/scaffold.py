"""A new post that passes every rule as a draft: its file name and text, from a title."""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata

from .schema import EXCERPT_MARKER


def slugify(title: str) -> str:
    """ASCII words of the title: 'Über-fast GEMMs' -> 'uber-fast-gemms', "What's new" -> 'whats-new'."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    ascii_title = re.sub(r"(?<=\w)['’](?=\w)", "", ascii_title.replace("’", "'"))
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    return "-".join(words)[:80].strip("-") or "post"


def scaffold(title: str, categories: list[str], date: dt.date, author: str, slug: str | None = None
             ) -> tuple[str, str]:
    """(file name, text) of a new draft post that passes every rule once its description is written."""
    slug = slug or slugify(title)
    cats = "\n".join(f"  - {c}" for c in categories)
    quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar
    text = f"""---
title: {quoted}
slug: {slug}
date: {date.isoformat()}
description: >-
  TODO: replace with one or two plain sentences that say what the reader will learn here.
categories:
{cats}
authors: [{author}]
upstream:
  TODO: TODO
draft: true
---

Say in one paragraph what question this post answers and what the reader can do afterwards.

{EXCERPT_MARKER}

## The map

## What surprises people

## Try it yourself

## Versions

## References
"""
    return f"{slug}.md", text
