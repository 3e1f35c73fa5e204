"""Material's bundle asks V8 to compile all its functions while the file downloads, not on the page's
main thread at their first call.

V8 compiles a function only when it is first called (lazy compilation). Material's bundle calls
hundreds of them on load: while it sets up its observables, and again when it mounts its components
at DOMContentLoaded. On a long post those tasks run after the first paint, so every reader waits on
them before the page answers a tap, and Lighthouse counts them as blocking time. A file that starts
with the magic comment ``//# allFunctionsCalledOnLoad`` (V8's explicit compile hints, in Chromium
since 136; https://v8.dev/blog/explicit-compile-hints) has its functions compiled eagerly, on the
background thread that streams it in when Chromium streams it (as it does for this file, fetched
over the network). Measured on every post and listing page, the main thread's compile time about
halves, with the first paint unchanged (benchmarks/eager_compile.py; its report is
benchmarks/eager-compile-report.md).
Browsers without the feature read a comment.

The bundle is rewritten from the theme's own file each build (so a rebuild never adds the line
twice), and its source map is moved down one line to match (``shifted_map``). The file keeps
Material's hashed name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

HINT = b"//# allFunctionsCalledOnLoad\n"
BUNDLE_GLOB = "assets/javascripts/bundle.*.min.js"


def shifted_map(source_map: bytes) -> bytes:
    """The source map of a file with one line added at its top. Source maps v3: ``mappings`` holds one
    ``;``-separated group per generated line, and only the generated column restarts at each line, so
    an empty first group changes nothing that follows."""
    data = json.loads(source_map)
    if not isinstance(data, dict) or not isinstance(data.get("mappings"), str):
        raise ValueError("not a source map with a 'mappings' string (an index map with 'sections' is not handled)")
    data["mappings"] = ";" + data["mappings"]
    return json.dumps(data, separators=(",", ":")).encode()


def theme_file(dirs: list[Path], relative: Path) -> Path | None:
    """The theme's copy of a built file: the first theme folder that has it, or None."""
    return next((d / relative for d in dirs if (d / relative).is_file()), None)


def on_post_build(config: MkDocsConfig) -> None:
    site = Path(config.site_dir)
    dirs = [Path(d) for d in config.theme.dirs]  # overrides/ first, then Material's own
    # The theme's bundle, by name: a stale one left by `mkdocs serve --dirty` after an upgrade is no theme's.
    found = [(bundle, source) for bundle in sorted(site.glob(BUNDLE_GLOB))
             if (source := theme_file(dirs, bundle.relative_to(site)))]
    if len(found) != 1:
        raise PluginError(f"hooks/hint_eager_compile.py: expected Material's one bundle at {site / BUNDLE_GLOB} "
                          f"(a file of one of the theme folders {', '.join(map(str, dirs))}), found {len(found)}; "
                          "has the theme changed?")
    [(bundle, source)] = found
    bundle.write_bytes(HINT + source.read_bytes())
    source_map = source.with_name(source.name + ".map")
    if source_map.is_file():
        try:
            shifted = shifted_map(source_map.read_bytes())
        except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise PluginError(f"hooks/hint_eager_compile.py: cannot move {source_map} down one line: "
                              f"{error}") from error
        bundle.with_name(bundle.name + ".map").write_bytes(shifted)
