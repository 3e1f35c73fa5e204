"""Serve math and diagram renderers from the site itself.

KaTeX and Mermaid come from the npm registry (package.json, installed by `make`), never from a
CDN, and are not committed. This hook adds the few files pages need from node_modules/ to the
build as generated files under assets/vendor/, so `mkdocs serve` and `mkdocs build` both serve
them. docs/javascripts/math-and-diagrams.js loads them only on pages that have math or diagrams.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

# (package, path inside the package, glob) -> served at assets/vendor/<package>/<path>
ASSETS = (
    ("katex", "dist", "katex.min.js"),
    ("katex", "dist", "katex.min.css"),
    ("katex", "dist", "fonts/*.woff2"),
    ("mermaid", "dist", "mermaid.min.js"),
)


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    modules = Path(config.config_file_path).resolve().parent / "node_modules"
    for package, base, pattern in ASSETS:
        root = modules / package / base
        matches = sorted(root.glob(pattern))
        if not matches:
            raise PluginError(
                f"vendor_assets: {package}/{base}/{pattern} is missing from {modules}. The site serves "
                "KaTeX and Mermaid itself: run `make build` (or `npm ci`) to install them from package.json."
            )
        for path in matches:
            rel = path.relative_to(root).as_posix()
            files.append(File.generated(config, f"assets/vendor/{package}/{rel}", abs_src_path=str(path)))
    return files
