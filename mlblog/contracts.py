"""Every private detail of Material, MkDocs and the other plugins that the site relies on, in one place.

Material for MkDocs reaches end of life on 2027-05-05 and MkDocs 1.x is unmaintained: an upgrade, or
the move to another generator, will change some of these. Each detail the code uses is read through a
function here, and ``DETAILS`` lists them all with a check; tests/unit/test_contracts.py runs every
check against the installed packages and names the detail that no longer holds. A copied template
is listed with the hash of the upstream file it was copied from, so an upgrade that changes the
original shows which copy to look at again.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from .pages.markup import LANDMARKS
from .posts.collection import Listing, Posts

RSS_PAGE_LIST = "pages_to_filter"  # mkdocs-rss-plugin's page list, kept across serve rebuilds


# --- Material's blog plugin ------------------------------------------------------------------------

def blog_posts(blog: Any) -> list[Any]:
    """The posts the blog plugin publishes, in its order (newest first, pinned first)."""
    return list(blog.blog.posts)


def blog_listings(blog: Any, posts: Posts) -> dict[str, list[Listing]]:
    """The blog plugin's category and archive-year listings, with their published posts."""
    from material.plugins.blog.structure import Archive, Category

    views = list(getattr(getattr(blog, "blog", None), "views", None) or [])
    return {kind: [posts.listing(v.name, v.url, (p.file.src_uri for p in v.posts)) for v in views
                   if isinstance(v, cls)] for kind, cls in (("categories", Category), ("years", Archive))}


def set_readtime(page: Any, minutes: int) -> None:
    """The blog plugin keeps a reading time already set on a post page's config."""
    page.config.readtime = minutes


# --- MkDocs -------------------------------------------------------------------------------------------

def tab_of(page_url: str, nav: Any) -> str | None:
    """The top-level tab whose URL is the longest prefix of the page's (Material lights a tab only for
    pages in the nav; category and year pages are not)."""
    urls = []
    for item in nav.items:
        while getattr(item, "children", None):
            item = item.children[0]
        if getattr(item, "url", None) is not None:
            urls.append(item.url)
    matches = [url for url in urls if page_url.startswith(url)]
    return max(matches, key=len) if matches else None


# --- the redirects plugin -------------------------------------------------------------------------------

def redirect_pages(plugin: Any) -> dict[str, Any]:
    """Source file -> File of every page a redirect may point to."""
    return getattr(plugin, "doc_pages", {})


# --- the registry ---------------------------------------------------------------------------------------

class Detail:
    def __init__(self, what: str, where: str, *checks: Callable[[], bool]) -> None:
        self.what = what  # the detail, as a reader of an upgrade's changelog would look for it
        self.where = where  # the code that relies on it
        self.checks = checks

    def holds(self) -> bool:
        return all(check() for check in self.checks)


def _has(module: str, *paths: str) -> Callable[[], bool]:
    """A check that module.path (attributes separated by dots) exists, for every path."""
    def check() -> bool:
        for path in paths:
            obj: Any = importlib.import_module(module)
            for part in path.split("."):
                if not hasattr(obj, part):
                    return False
                obj = getattr(obj, part)
        return True
    return check


def _source_has(module: str, name: str, *needles: str) -> Callable[[], bool]:
    def check() -> bool:
        source = inspect.getsource(getattr(importlib.import_module(module), name))
        return all(needle in source for needle in needles)
    return check


def material_file(relative: str) -> Path:
    import material

    return Path(material.__file__).parent / "templates" / relative


def _copied(relative: str, sha256: str) -> Callable[[], bool]:
    """The upstream file a template of overrides/ was copied from is still the one it was copied from."""
    return lambda: hashlib.sha256(material_file(relative).read_bytes()).hexdigest().startswith(sha256)


def _theme_file(*patterns: str) -> Callable[[], bool]:
    """Each pattern matches exactly one file of the theme."""
    return lambda: all(len(list(material_file("").glob(pattern))) == 1 for pattern in patterns)


def _theme_text(pattern: str, *needles: str) -> Callable[[], bool]:
    """The theme's files that match the pattern hold every needle between them."""
    def check() -> bool:
        text = "".join(p.read_text(encoding="utf-8") for p in material_file("").glob(pattern))
        return all(needle in text for needle in needles)
    return check


BLOG = "material.plugins.blog"
DETAILS: list[Detail] = [
    Detail("Material's blog plugin keeps its published posts in .blog.posts and its listing views "
           "(structure.Category, structure.Archive with .name, .url, .posts) in .blog.views",
           "contracts.blog_posts, contracts.blog_listings", _has(f"{BLOG}.structure", "Category", "Archive"),
           _source_has(f"{BLOG}.plugin", "BlogPlugin", "self.blog.posts", "views")),
    Detail("the blog plugin keeps a reading time already set on post.config.readtime",
           "contracts.set_readtime", _source_has(f"{BLOG}.plugin", "BlogPlugin", "if not page.config.readtime")),
    Detail("mkdocs-rss-plugin keeps its page list in .pages_to_filter across serve rebuilds",
           "plugin.on_pre_build", _source_has("mkdocs_rss_plugin.plugin", "GitRssPlugin", RSS_PAGE_LIST)),
    Detail("the redirects plugin keeps the pages a redirect may point to in .doc_pages",
           "contracts.redirect_pages", _source_has("mkdocs_redirects.plugin", "RedirectPlugin", "self.doc_pages")),
    Detail("MkDocs' LiveReloadServer: builder, serve_request, set_app, RequestHandlerClass, _epoch_cond, "
           "_visible_epoch, _inject_js_into_html", "serve.report_failed_rebuilds",
           _source_has("mkdocs.livereload", "LiveReloadServer", "self.builder", "def serve_request", "_epoch_cond",
                       "_visible_epoch", "def _inject_js_into_html"),
           _has("mkdocs.livereload", "LiveReloadServer.set_app")),
    Detail("Material's built stylesheets are assets/stylesheets/main.*.min.css and palette.*.min.css",
           "publish/stylesheets.py",
           _theme_file("assets/stylesheets/main.*.min.css", "assets/stylesheets/palette.*.min.css")),
    Detail("Material's article element is <article class=\"md-content__inner md-typeset\"> (search marks it)",
           "pages/search.mark_indexed", _theme_text("base.html", 'class="md-content__inner md-typeset"')),
    Detail("Material's partials/source-file.html prints page.meta.revision_date as the \"Last update\" line",
           "plugin._pin_page_date", _theme_text("partials/source-file.html", "page.meta.revision_date")),
    Detail("Material's landmarks carry the classes pages/markup.LANDMARKS names", "pages/markup.label_landmarks",
           _theme_text("**/*.html", *(f'class="{cls}"' for _, cls in LANDMARKS))),
    Detail("Material 9.8.1's partials/search.html, copied to overrides/partials/search.html",
           "overrides/partials/search.html", _copied("partials/search.html", "bfd556535abcddb9")),
    Detail("Material 9.8.1's partials/palette.html, copied to overrides/partials/palette.html",
           "overrides/partials/palette.html", _copied("partials/palette.html", "fb935107ae7d3d74")),
    # The speed layer (speed/, publish/scripts.py, pages/chunks.py):
    Detail("the blog plugin makes each excerpt with its module's Excerpt(page, config, files), whose __init__ "
           "builds a parser from structure.Markdown into .md and whose render() converts with it, reading "
           "post._title_from_render", "speed/excerpts.py",
           _source_has(f"{BLOG}.plugin", "BlogPlugin", "Excerpt(page, config, files)"),
           _source_has(f"{BLOG}.structure", "Excerpt", "self.md = Markdown(",
                       "def render(self, page: Page, separator: str)", "self.post._title_from_render")),
    Detail("MkDocs' Page.render(config, files) sets .content, .toc and ._title_from_render", "speed/renders.py",
           _source_has("mkdocs.structure.pages", "Page", "def render(self, config: MkDocsConfig, files: Files)",
                       "self.content = md.convert(", "self.toc = get_toc(", "self._title_from_render =")),
    Detail("Material's script bundle is the one assets/javascripts/bundle.*.min.js, with a .map beside it",
           "publish/scripts.py",
           _theme_file("assets/javascripts/bundle.*.min.js", "assets/javascripts/bundle.*.min.js.map")),
    Detail("Material's bundle knows the undocumented content.lazy feature (code blocks mounted on screen)",
           "mkdocs.yml features, pages/chunks.py", _theme_text("assets/javascripts/bundle.*.min.js", "content.lazy")),
    Detail("Material's partials/javascripts/base.html defines __md_get and __md_set (the palette script "
           "stores the choice with them)", "overrides/partials/javascripts/palette.html",
           _theme_text("partials/javascripts/base.html", "__md_get=", "__md_set=")),
    Detail("Material's version is 9.8.1 (the copies above and the checks below were made against it)",
           "requirements.txt", lambda: version("mkdocs-material") == "9.8.1"),
]
