"""The scripts as readers download them: the site's own minified, and Material's bundle with V8's
compile hint.

V8 compiles a function only when it is first called; Material's bundle calls hundreds on load, on
the main thread after the first paint. A file that starts with ``//# allFunctionsCalledOnLoad``
(V8's explicit compile hints, in Chromium since 136; https://v8.dev/blog/explicit-compile-hints) is
compiled eagerly on the thread that streams it in. The bundle is rewritten from the theme's own file
each build (never hinted twice), keeps Material's name, and its source map is moved down one line
(``shifted_map``). benchmarks/eager_compile.py measures it; browsers without the feature read a
comment.
"""

from __future__ import annotations

import json
from pathlib import Path

import rjsmin

from ..posts.problems import Stop

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


def hint_bundle(site: Path, theme_dirs: list[Path]) -> None:
    """Rewrite Material's built bundle with the hint as its first line, its source map one line down."""
    # The theme's bundle, by name: a stale one left by `mkdocs serve --dirty` after an upgrade is no theme's.
    found = [(bundle, source) for bundle in sorted(site.glob(BUNDLE_GLOB))
             if (source := theme_file(theme_dirs, bundle.relative_to(site)))]
    if len(found) != 1:
        raise Stop(f"expected Material's one bundle at {site / BUNDLE_GLOB} (a file of one of the theme folders "
                   f"{', '.join(map(str, theme_dirs))}), found {len(found)}; has the theme changed?")
    [(bundle, source)] = found
    bundle.write_bytes(HINT + source.read_bytes())
    source_map = source.with_name(source.name + ".map")
    if source_map.is_file():
        try:
            shifted = shifted_map(source_map.read_bytes())
        except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise Stop(f"cannot move {source_map} down one line: {error}") from error
        bundle.with_name(bundle.name + ".map").write_bytes(shifted)


def minify_own_scripts(docs: Path, site: Path) -> None:
    """The built copies of the site's own scripts (docs/javascripts/) without comments and spacing: a
    third less after gzip. Third-party files arrive minified and are left alone."""
    for source in sorted((docs / "javascripts").rglob("*.js")):
        built = site / source.relative_to(docs)
        if built.is_file():
            built.write_text(rjsmin.jsmin(source.read_text(encoding="utf-8")), encoding="utf-8")
