"""Stop the build when any post breaks the rules in hooks/post_rules.py, listing every problem.

Runs in ``on_files`` ahead of Material's blog plugin (priority -50), which parses posts itself and
would otherwise stop at the first bad one with a less helpful message. Raised as ``PluginError``
so MkDocs prints the list and aborts, with or without ``--strict``, and no traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import post_rules
from blog_pages import is_post
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files


@event_priority(100)
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    posts = sorted(f.src_uri for f in files if is_post(f.src_uri))
    _, problems = post_rules.check_all(Path(config.docs_dir), posts)
    if problems:
        raise PluginError(post_rules.format_problems(problems))
    return files
