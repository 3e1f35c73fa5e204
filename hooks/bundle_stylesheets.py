"""Every page asks for one stylesheet: Material's two (main, palette) and the site's extra_css, joined
at build in the order Material would link them.

A page linked four sheets (main, palette, site.css, figures.css), and the browser paints nothing
until every one has arrived. On a phone each is a request of its own, with its own connection and
its own round trips, for a few KB (Lighthouse's simulated slow 4G put the front page's first paint
about 110 ms later with four than with one: benchmarks/lighthouse-report.md, its notes). Joined,
they are one request of about the same size, cached once for every page.

The sheets keep their order (main, palette, then extra_css as listed in mkdocs.yml), so the cascade
is what it was. Material's files arrive minified; the site's are minified here as
hooks/minify_assets.py minifies them, and each file's sourceMappingURL comment is dropped (it
would point the browser at a map of another file). The name carries a hash of the content, so a
changed sheet is fetched anew and an unchanged one stays cached. The site's extra_css files are
not published separately: nothing links them.

overrides/main.html links the bundle in Material's `styles` block; config.extra_css is emptied, so
Material's base.html does not link the site's sheets a second time. Only local sheets are accepted:
the site loads nothing from another host.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import rcssmin
from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

# Material's own sheets, as its base.html links them: main always, palette when a palette is set.
MATERIAL_SHEETS = ("main", "palette")
SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")
# The template global overrides/main.html links.
GLOBAL = "site_stylesheet"


@dataclass
class _State:
    sheets: list[str] = field(default_factory=list)  # extra_css, as mkdocs.yml lists them
    sources: list[Path] = field(default_factory=list)  # their files under docs/
    name: str = ""  # the bundle's path in the site
    css: str = ""


_state = _State()


def material_sheet(config: MkDocsConfig, name: str) -> Path:
    """Material's built sheet `name` (main.<hash>.min.css), from the theme's own folder."""
    found = sorted({p for d in config.theme.dirs for p in Path(d).glob(f"assets/stylesheets/{name}.*.min.css")})
    if len(found) != 1:
        raise PluginError(f"bundle_stylesheets: expected one assets/stylesheets/{name}.*.min.css in the theme "
                          f"(Material), found {len(found)}: {[str(p) for p in found]}")
    return found[0]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    sheets = [str(s) for s in config.extra_css]
    for sheet in sheets:
        if re.match(r"^(?:[a-z]+:)?//", sheet, re.I):
            raise PluginError(f"mkdocs.yml: extra_css: {sheet} is on another host; the site serves every "
                              "stylesheet itself. Accepted: paths of CSS files under docs/.")
    _state.sheets = sheets
    config.extra_css = []  # linked once, inside the bundle (overrides/main.html)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    sources = []
    for path in _state.sheets:
        file = files.get_file_from_path(path)
        # A theme's file has a path in the site too; only the site's own sheets are joined.
        if file is None or not file.abs_src_path or \
                not Path(file.abs_src_path).is_relative_to(Path(config.docs_dir).resolve()):
            raise PluginError(f"mkdocs.yml: extra_css: {path} is not a file under {config.docs_dir}. "
                              "Accepted: paths of CSS files under docs/.")
        sources.append(Path(file.abs_src_path))
        files.remove(file)  # published inside the bundle only
    _state.sources = sources
    return files


def bundle(config: MkDocsConfig) -> str:
    """The joined stylesheet: Material's sheets, then the site's extra_css, minified, in order."""
    names = MATERIAL_SHEETS if config.theme.get("palette") else MATERIAL_SHEETS[:1]
    parts = [material_sheet(config, n).read_text(encoding="utf-8") for n in names]
    parts += [rcssmin.cssmin(p.read_text(encoding="utf-8")) for p in _state.sources]
    return "\n".join(SOURCE_MAP.sub("", p).strip() for p in parts) + "\n"


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    _state.css = bundle(config)
    digest = hashlib.sha256(_state.css.encode()).hexdigest()[:8]
    _state.name = f"assets/stylesheets/site.{digest}.min.css"
    env.globals[GLOBAL] = _state.name
    return env


def on_post_build(config: MkDocsConfig) -> None:
    out = Path(config.site_dir) / _state.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_state.css, encoding="utf-8")
