"""The site's checks as one command over the sources and a built site, with or without MkDocs.

The post rules read the sources; the output checks read any built site, whichever generator made it:
nothing a page or stylesheet loads from another host, every feed and the sitemap parse, and every
URL in the manifest is still served or redirected. mkdocs.yml is read as plain YAML (its ``!!python``
and ``!ENV`` tags become placeholders), so the checks need no MkDocs to run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from .pages.external import css_externals, externals, line_of
from .posts.bodies import EXTERNAL_ACCEPTED
from .posts.problems import Problem
from .posts.rules import check_all
from .posts.schema import Post
from .publish import feeds, urls


class _Tolerant(yaml.SafeLoader):
    """YAML that reads MkDocs' custom tags as plain values instead of refusing the file."""


_Tolerant.add_multi_constructor("", lambda loader, suffix, node: (
    loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None))


def site_settings(config_file: Path) -> dict[str, Any]:
    return yaml.load(config_file.read_text(encoding="utf-8"), Loader=_Tolerant) or {}  # noqa: S506


def options(settings: dict[str, Any], section: str, name: str) -> dict[str, Any]:
    """The options of one entry of mkdocs.yml's plugins or markdown_extensions (a name, or a name: options)."""
    for entry in settings.get(section) or []:
        if isinstance(entry, dict) and name in entry:
            return entry[name] or {}
        if entry == name:
            return {}
    return {}


def own_hosts(site_url: str | None) -> frozenset[str]:
    host = urlsplit(site_url or "").hostname
    return frozenset({host.lower()} if host else ())


def external_problems(site_dir: Path, own: frozenset[str], suffixes: tuple[str, ...] = (".html", ".css")
                      ) -> list[Problem]:
    """Every page or stylesheet of a built site that would load anything from another host."""
    problems = []
    for path in sorted(site_dir.rglob("*")):
        if path.suffix in suffixes and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found = externals(text, own) if path.suffix == ".html" else css_externals(text, 0, own)
            problems += [Problem(path.relative_to(site_dir).as_posix(), f"line {line_of(text, e.offset)}",
                                 f"{e.what} loads {e.url} from another host. {EXTERNAL_ACCEPTED}") for e in found]
    return problems


def check_sources(config_file: Path) -> tuple[list[Post], list[Problem]]:
    """Every post and page of the site's docs/ through the post rules, as the build checks them."""
    root = config_file.resolve().parent
    settings = site_settings(config_file)
    docs = root / settings.get("docs_dir", "docs")
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
                   if not p.relative_to(docs).as_posix().startswith("blog/posts/"))
    bases = options(settings, "markdown_extensions", "pymdownx.snippets").get("base_path") or [str(root)]
    bases = [root / b for b in ([bases] if isinstance(bases, str) else bases)]
    return check_all(docs, pages=pages, snippet_bases=bases, repository=root)


def check_site(site_dir: Path, config_file: Path) -> list[Problem]:
    """A built site: external resources in every page and stylesheet, feeds that parse, and the URL
    manifest kept (when the site has one)."""
    settings = site_settings(config_file)
    problems = external_problems(site_dir, own_hosts(settings.get("site_url"))) + feeds.feed_problems(site_dir)
    manifest = config_file.resolve().parent / options(settings, "plugins", "mlblog").get("urls_manifest", "urls.txt")
    if manifest.exists():
        redirects = urls.redirect_urls(options(settings, "plugins", "redirects").get("redirect_maps") or {})
        listed = urls.read_manifest(manifest.read_text(encoding="utf-8"))
        lost, new = urls.compare(listed, urls.served_urls(site_dir), redirects, {})
        problems += [Problem(*message.split(": ", 2)) for message in lost]  # "urls.txt: line N: ..."
        problems += [Problem(manifest.name, "manifest", urls.format_new(new))] if new else []
    return problems
