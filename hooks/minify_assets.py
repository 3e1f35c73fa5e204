"""The site's own scripts and stylesheets served minified.

docs/javascripts/ and docs/stylesheets/ stay readable, with their comments; readers download them
without comments and spacing (a third less after gzip), which keeps a post page with math and an
interactive figure inside its byte budget (tests/test_page_budgets.py). rjsmin and rcssmin (PyPI)
only drop what the language ignores; the browser tests run the minified files. Third-party files
(Material's, KaTeX's, Pagefind's) arrive minified already and are left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import rcssmin
import rjsmin

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

OWN = (("javascripts", "*.js", rjsmin.jsmin), ("stylesheets", "*.css", rcssmin.cssmin))


def on_post_build(config: MkDocsConfig) -> None:
    docs, site = Path(config.docs_dir), Path(config.site_dir)
    for folder, pattern, minify in OWN:
        for source in sorted((docs / folder).rglob(pattern)):
            built = site / source.relative_to(docs)
            if built.is_file():
                built.write_text(minify(source.read_text(encoding="utf-8")), encoding="utf-8")
