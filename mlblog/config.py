"""The plugin's settings, under ``plugins: - mlblog:`` in mkdocs.yml: every one has a default.

The speed layer's switches (``speed``) exist so that each mechanism can be measured with and without
it (benchmarks/ablation.py) and checked to change nothing a reader sees (tests build with each off).
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class SpeedConfig(base.Config):
    """Shortcuts for the build and for the reader's browser: each changes nothing a reader sees, and each
    is kept only while benchmarks/ablation-report.md shows it pays."""

    defer_excerpts = c.Type(bool, default=True)  # listings convert an excerpt only if a template reads it
    reuse_renders = c.Type(bool, default=True)  # serve: unchanged pages are not converted again
    background_index = c.Type(bool, default=True)  # serve: Pagefind indexes after the reload
    reuse_scans = c.Type(bool, default=True)  # serve: an unchanged page is not scanned for external loads again
    # What a reader's browser is spared:
    offscreen_chunks = c.Type(bool, default=True)  # long posts: prose past the first screens skipped in layout
    compile_hint = c.Type(bool, default=True)  # V8 compiles Material's bundle while it downloads
    minify_scripts = c.Type(bool, default=True)  # the site's own scripts minified


class SiteConfig(base.Config):
    # The content-hash cache of rendered math, diagrams, cards and reading times (render/cache.py).
    cache = c.Type(bool, default=True)
    cache_dir = c.Optional(c.Type(str))  # default: .cache/build beside mkdocs.yml
    # Chromium renders Mermaid diagrams at build; default: $CHROMIUM, else Debian's /usr/bin/chromium.
    chromium = c.Optional(c.Type(str))
    # The committed list of published URLs, beside mkdocs.yml; a site without one is not checked.
    urls_manifest = c.Type(str, default="urls.txt")
    check_urls = c.Type(bool, default=True)  # off only while `python -m mlblog urls` rewrites the manifest
    # Pages (globs of their paths under docs/) printed without a "Last update" line: the index pages,
    # which change with every post, not with their own text.
    no_last_update = c.ListOfItems(c.Type(str), default=["index.md", "blog/category/index.md", "blog/archive/index.md"])
    speed = c.SubConfig(SpeedConfig)
