"""Material's bundle asks V8 to compile all its functions while the file downloads, not on the page's
main thread at their first call.

V8 compiles a function only when it is first called (lazy compilation). Material's bundle calls
hundreds of them on load: while it sets up its observables, and again when it mounts its components
at DOMContentLoaded. On a long post those tasks run after the first paint, so every reader waits on
them before the page answers a tap, and Lighthouse counts them as blocking time. A file that starts
with the magic comment ``//# allFunctionsCalledOnLoad`` (V8's explicit compile hints, in Chromium
since 136; https://v8.dev/blog/explicit-compile-hints) is compiled whole on the background thread
that streams it in. Measured on every post and listing page, that leaves the main thread about 0.4x
the lazy compiling it had (benchmarks/eager_compile.py, report in benchmarks/eager-compile-report.md).
Browsers without the feature read a comment.

The bundle is rewritten from Material's own file each build (so a rebuild never adds the line
twice), and its source map is moved down one line to match: a map's ``mappings`` holds one
``;``-separated group per line of the generated file, so one leading ``;`` maps the new first line
to nothing and every other line as before. The file keeps Material's hashed name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

HINT = "//# allFunctionsCalledOnLoad\n"
BUNDLE_GLOB = "assets/javascripts/bundle.*.min.js"


def hinted(script: str) -> str:
    return HINT + script


def shifted_map(source_map: str) -> str:
    """The source map of a file with one line added at its top."""
    data = json.loads(source_map)
    data["mappings"] = ";" + data["mappings"]
    return json.dumps(data, separators=(",", ":"))


def on_post_build(config: MkDocsConfig) -> None:
    site = Path(config.site_dir)
    built = sorted(site.glob(BUNDLE_GLOB))
    if len(built) != 1:
        raise PluginError(f"hooks/hint_eager_compile.py: expected Material's one bundle at {site / BUNDLE_GLOB}, "
                          f"found {len(built)}; has the theme changed?")
    bundle = built[0]
    relative = bundle.relative_to(site)
    # The theme's own copy: the first theme folder that has it (overrides/ first, then Material).
    source = next((Path(d) / relative for d in config.theme.dirs if (Path(d) / relative).is_file()), None)
    if source is None:
        raise PluginError(f"hooks/hint_eager_compile.py: {relative} is in the site but in no theme folder "
                          f"({', '.join(config.theme.dirs)})")
    bundle.write_text(hinted(source.read_text(encoding="utf-8")), encoding="utf-8")
    source_map = source.with_name(source.name + ".map")
    if source_map.is_file():
        bundle.with_name(bundle.name + ".map").write_text(
            shifted_map(source_map.read_text(encoding="utf-8")), encoding="utf-8")
