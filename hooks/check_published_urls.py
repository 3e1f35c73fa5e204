"""No published URL is ever lost: compare every build with the committed manifest, ``urls.txt``.

* ``on_startup``: remember whether this is ``mkdocs serve``.
* ``on_config``: when the site has a manifest, the redirects plugin must be configured, since a
  redirect is one of the two remedies the check offers.
* ``on_post_build`` (priority -200, after every other hook and plugin has written its files:
  redirect pages, feeds, cards, robots.txt): every URL ``urls.txt`` lists must still be served,
  as a page or as a redirect page from the ``redirects`` plugin's ``redirect_maps``. Every lost URL
  is named in one ``PluginError`` with the redirect that would keep it (the new page is suggested
  when the build has exactly one likely successor). URLs that are built but not listed are one
  warning asking for ``make urls``; ``--strict`` (the site's default) fails on it, so the committed
  manifest always matches what is published. ``mkdocs serve`` shows drafts, so it skips that warning.

The manifest sits next to ``mkdocs.yml``; a site without one (the fixture sites the tests build
from a copy of mkdocs.yml, which get their own only when a test writes one) is not checked, and the
build says so in one info line. ``make deploy`` refuses to publish without it. What the manifest
lists, and the rule itself, are in ``hooks/published_urls.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import published_urls
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

log = get_plugin_logger("check_published_urls")
_serving = False


def on_startup(*, command: str, dirty: bool) -> None:
    global _serving
    _serving = command == "serve"


def manifest_of(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent / published_urls.MANIFEST


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if manifest_of(config).exists() and "redirects" not in config.plugins:
        raise PluginError(
            f"mkdocs.yml: plugins: the redirects plugin is missing, and {published_urls.MANIFEST} "
            "needs it to keep moved pages' URLs. Accepted: '- redirects:' with 'redirect_maps:' under plugins")
    return config


@event_priority(-200)  # last: redirect pages, feeds, cards and robots.txt are written in on_post_build
def on_post_build(*, config: MkDocsConfig) -> None:
    manifest = manifest_of(config)
    if published_urls.is_recording():
        return
    if not manifest.exists():
        log.info(f"no {published_urls.MANIFEST} next to mkdocs.yml: published URLs are not checked "
                 "(`make urls` writes it)")
        return
    redirects_plugin = config.plugins["redirects"]
    redirects = published_urls.redirect_urls(redirects_plugin.config["redirect_maps"])
    # Pages a redirect may point to, by URL: the plugin accepts targets from its own list.
    pages = {published_urls.url_of(file.dest_uri): src
             for src, file in getattr(redirects_plugin, "doc_pages", {}).items()}
    built = published_urls.served_urls(Path(config.site_dir))
    listed = published_urls.read_manifest(manifest.read_text(encoding="utf-8"))
    problems, new = published_urls.compare(listed, built, redirects, pages)
    if problems:
        raise PluginError(published_urls.format_lost(problems))
    if new and not _serving:
        log.warning(published_urls.format_new(new))
