"""Every page asks for one stylesheet: Material's two (main, palette) and the site's extra_css, joined
at build in the order Material would link them, so the first paint waits for one request, not four.

Material's files arrive minified; the site's are minified here (rcssmin) and each file's
sourceMappingURL comment is dropped (it would point at a map of another file). The name carries a
hash of the content, so a changed sheet is fetched anew and an unchanged one stays cached.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import rcssmin

from ..posts.problems import Stop

SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")


def material_sheet(theme_dirs: list[Path], name: str) -> Path:
    """Material's built sheet ``name`` (main.<hash>.min.css), from the theme's own folder."""
    found = sorted({p for d in theme_dirs for p in d.glob(f"assets/stylesheets/{name}.*.min.css")})
    if len(found) != 1:
        raise Stop(f"expected one assets/stylesheets/{name}.*.min.css in the theme (Material), found "
                   f"{len(found)}: {[str(p) for p in found]}")
    return found[0]


def bundle(theme_dirs: list[Path], with_palette: bool, own: list[Path]) -> tuple[str, str]:
    """(site path, CSS) of the joined stylesheet: Material's sheets, then the site's, in order."""
    names = ("main", "palette") if with_palette else ("main",)
    parts = [material_sheet(theme_dirs, n).read_text(encoding="utf-8") for n in names]
    parts += [rcssmin.cssmin(p.read_text(encoding="utf-8")) for p in own]
    css = "\n".join(SOURCE_MAP.sub("", p).strip() for p in parts) + "\n"
    return f"assets/stylesheets/site.{hashlib.sha256(css.encode()).hexdigest()[:8]}.min.css", css
