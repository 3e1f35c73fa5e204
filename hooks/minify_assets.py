"""The site's own scripts served minified.

docs/javascripts/ stays readable, with its comments; readers download the scripts without comments
and spacing (a third less after gzip), which keeps a post page with math and an interactive figure
inside its byte budget (tests/test_page_budgets.py). rjsmin (PyPI) only drops what the language
ignores; the browser tests run the minified files. The site's stylesheets are minified the same way
(rcssmin) into the one stylesheet hooks/bundle_stylesheets.py builds. Third-party files (Material's,
KaTeX's, Pagefind's) arrive minified already and are left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import rjsmin

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

OWN = (("javascripts", "*.js", rjsmin.jsmin),)


def on_post_build(config: MkDocsConfig) -> None:
    docs, site = Path(config.docs_dir), Path(config.site_dir)
    for folder, pattern, minify in OWN:
        for source in sorted((docs / folder).rglob(pattern)):
            built = site / source.relative_to(docs)
            if built.is_file():
                built.write_text(minify(source.read_text(encoding="utf-8")), encoding="utf-8")
