"""The site's MkDocs plugin: the adapter between MkDocs (with Material's blog plugin) and the core.

The core (posts/, render/, pages/, publish/) imports no MkDocs. ``on_config`` makes one ``Build`` (the
state of one build, closed however the build ends); each event calls the passes one per line, in the
order they must run. Priorities only interleave with other plugins: Material's blog plugin (-50 for
files and page Markdown), mkdocs-rss-plugin (page content at -75, feeds written at 0) and the
redirects plugin (post-build).
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File
from mkdocs.utils import get_build_datetime, get_relative_url

from . import contracts
from .checks import external_problems, own_hosts
from .config import SiteConfig
from .pages import chunks, markup, readtime, scripts, search
from .pages.external import externals, line_of
from .posts.bodies import EXTERNAL_ACCEPTED
from .posts.collection import Posts
from .posts.problems import Problem, Stop, format_problems
from .posts.rules import check_all
from .posts.schema import CATEGORIES, POSTS_DIR, Post
from .publish import cards, citation, feeds, lead_figures, metadata, revisions, stylesheets, urls
from .publish import scripts as published_scripts
from .render.cache import Cache, key
from .render.diagrams import DiagramRenderer
from .render.math import STYLESHEET, MathRenderer
from .serve import report_failed_rebuilds
from .speed import excerpts, renders
from .speed.scans import ScanMemo

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

log = get_plugin_logger("mlblog")
OUTPUT_SCOPE = "the built site (pages by their source under docs/, other files by their path in the site)"
ACCEPTED_CSS = "Accepted: paths of CSS files under docs/."


class Build:
    """One build's state: the posts, the renderers, the caches and what the output checks found."""

    def __init__(self, config: MkDocsConfig, options: SiteConfig) -> None:
        self.root = Path(config.config_file_path).resolve().parent
        self.docs_dir = Path(config.docs_dir)
        folder = self.root / (options.cache_dir or ".cache/build")  # an absolute cache_dir stays as it is
        self.cache = lambda kind: Cache(folder, kind, options.cache)  # noqa: E731 - one folder, one switch
        self.math = MathRenderer(self.root / "node_modules", self.cache("math"))
        self.diagrams = DiagramRenderer(self.root / "node_modules", self.cache("diagrams"),
                                        options.chromium or os.environ.get("CHROMIUM", "/usr/bin/chromium"))
        self.readtimes = self.cache("readtime")
        self.chunks = self.cache("offscreen-chunks")
        self.posts = Posts([])
        self.own_hosts = own_hosts(config.site_url)
        self.output_problems: list[Problem] = []
        self.extra_css = [str(sheet) for sheet in config.extra_css]  # joined into the one stylesheet
        self.own_sheets: list[Path] = []
        self.stylesheet = ("", "")  # its path in the site, its CSS
        self.excerpt_counts = excerpts.Counts()
        self.lead_figures: dict[str, lead_figures.LeadFigure | None] = {}  # by post file
        self.last_changes: dict[str, int | None] = {}  # by page file: its last commit's author time, or None

    def close(self) -> None:
        self.math.close()
        self.diagrams.close()


class SitePlugin(BasePlugin[SiteConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.serving = False
        self.indexer: search.BackgroundIndexer | None = None
        self.renders = renders.RenderMemo()  # kept across `mkdocs serve` rebuilds
        self.scans = ScanMemo(externals)  # likewise
        self._build: Build | None = None
        self.source_date_epoch_set = False  # set by this plugin (then it follows new commits)

    @property
    def build(self) -> Build:
        if self._build is None:
            raise PluginError("mlblog: an event ran before on_config")
        return self._build

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    # --- configuration -------------------------------------------------------------------------

    @event_priority(100)  # before the other plugins read the settings this fills in
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self._build is not None:  # the previous build's, under `mkdocs serve`
            self._build.close()
        try:
            self._build = Build(config, self.config)
        except Stop as stop:
            raise PluginError(str(stop)) from stop
        self._pin_source_date()
        self._configure_blog(config)
        # Companion code is included from paths relative to the repository, whatever the working folder.
        config.mdx_configs.setdefault("pymdownx.snippets", {}).setdefault("base_path", [str(self.build.root)])
        self._take_extra_css(config)
        self._require_redirects(config)
        self._start_speed_layer(config)
        return config

    def _configure_blog(self, config: MkDocsConfig) -> None:
        """The blog plugin allows exactly the categories of the post rules."""
        blog = config.plugins.get("material/blog")
        if blog is None:
            raise PluginError("mkdocs.yml: plugins: the blog plugin is missing. Accepted: '- blog:' under plugins")
        configured = list(blog.config.categories_allowed or [])
        if configured and configured != list(CATEGORIES):
            raise PluginError(f"mkdocs.yml: plugins.blog.categories_allowed: lists {', '.join(configured)}, but the "
                              f"post rules allow {', '.join(CATEGORIES)}. Accepted: leave categories_allowed out "
                              "(the build fills it from mlblog/posts/schema.py CATEGORIES), or list exactly those")
        blog.config.categories_allowed = list(CATEGORIES)

    def _take_extra_css(self, config: MkDocsConfig) -> None:
        """extra_css is linked once, inside the one stylesheet (overrides/main.html); only the site's own
        files, since the site loads nothing from another host."""
        for sheet in self.build.extra_css:
            if re.match(r"^(?:[a-z]+:)?//", sheet, re.I):
                raise PluginError(f"mkdocs.yml: extra_css: {sheet} is on another host; the site serves every "
                                  f"stylesheet itself. {ACCEPTED_CSS}")
        config.extra_css = []

    def _require_redirects(self, config: MkDocsConfig) -> None:
        manifest = self.build.root / self.config.urls_manifest
        if manifest.exists() and "redirects" not in config.plugins:
            raise PluginError(f"mkdocs.yml: plugins: the redirects plugin is missing, and {manifest.name} needs it to "
                              "keep moved pages' URLs. Accepted: '- redirects:' with 'redirect_maps:' under plugins")

    def _start_speed_layer(self, config: MkDocsConfig) -> None:
        excerpts.install(self.config.speed.defer_excerpts, self.build.excerpt_counts)
        self.renders.start_build()
        self.scans.start_build()

    def _pin_source_date(self) -> None:
        """Every date the build writes comes from the last commit (SOURCE_DATE_EPOCH, reproducible builds)
        when the caller (the Makefile) has not set it; outside git, the clock."""
        if "SOURCE_DATE_EPOCH" in os.environ and not self.source_date_epoch_set:
            return
        stamp = (revisions.git(self.build.root, "log", "-1", "--format=%ct") or "").strip()
        self.source_date_epoch_set = stamp.isdigit()
        if self.source_date_epoch_set:
            os.environ["SOURCE_DATE_EPOCH"] = stamp
        else:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
            log.info("not a git checkout: dates that are not in front matter come from the clock")

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        # mkdocs-rss-plugin keeps its page list across `mkdocs serve` rebuilds: a renamed or deleted
        # post would stay in the feeds (contracts.RSS_PAGE_LIST).
        for name, plugin in config.plugins.items():
            if name.split(" #")[0] == "rss" and isinstance(getattr(plugin, contracts.RSS_PAGE_LIST, None), list):
                setattr(plugin, contracts.RSS_PAGE_LIST, [])
        if self.indexer is not None:
            self.indexer.stop()  # before MkDocs cleans the site directory

    # --- files: the posts, checked once; the blog's published list ------------------------------

    @event_priority(100)  # before the blog plugin (-50), which would stop at the first bad post
    def _check_posts(self, files: Files, *, config: MkDocsConfig) -> Files:
        pages = sorted(f.src_uri for f in files.documentation_pages())
        posts = [uri for uri in pages if uri.startswith(POSTS_DIR + "/")]
        others = [uri for uri in pages if not uri.startswith(POSTS_DIR + "/")]
        bases = config.mdx_configs["pymdownx.snippets"]["base_path"]  # one path or a list; on_config sets it
        bases = [self.build.root / str(base) for base in ([bases] if isinstance(bases, str) else bases)]
        records, problems = check_all(self.build.docs_dir, posts, pages=others, snippet_bases=bases,
                                      repository=self.build.root)
        if any(p.level == "error" for p in problems):
            raise PluginError(format_problems(problems))
        for problem in problems:
            log.warning(str(problem))
        self.build.posts = Posts(records)
        self._date_pages(files)
        return files

    @event_priority(-60)  # after the blog plugin (-50) has resolved its posts and their URLs
    def _after_blog(self, files: Files, *, config: MkDocsConfig) -> Files:
        self._publish_posts(files, config)
        files.append(File.generated(config, STYLESHEET, content=self.build.math.stylesheet()))
        for font in self.build.math.fonts():
            files.append(File.generated(config, f"assets/katex/fonts/{font.name}", abs_src_path=str(font)))
        self._take_own_sheets(files, config)
        return files

    def _publish_posts(self, files: Files, config: MkDocsConfig) -> None:
        """The records learn which posts the blog plugin publishes; their pages get the records' dates,
        plain titles and the site's post template."""
        posts = self.build.posts
        posts.publish(p.file.src_uri for p in contracts.blog_posts(config.plugins["material/blog"]))
        for draft in posts.drafts_left_out():
            log.info(f"draft left out of this build: {draft.file}")
        for post in posts.published:
            file = files.get_file_from_path(post.file)
            if file is not None and file.url != post.url:
                raise PluginError(f"{post.file}: field 'slug': the blog plugin publishes it at /{file.url}, but the "
                                  f"post rules expect /{post.url}. Accepted: post_url_format \"{{date}}/{{slug}}\"")
            if file is not None and file.page is not None:
                # mkdocs-rss-plugin reads date.created and date.updated (mkdocs.yml): the record's
                # dates, an absent update equal to the creation, never the build time.
                file.page.meta["date"] = {"created": post.created, "updated": post.modified}
                # page.title is what mkdocs-rss-plugin, Material's header and its excerpts print: the
                # plain text, no backticks (the site's templates print the record's title_html).
                file.page.meta["title"] = post.title_text
                if post.meta.template is None:  # the site's post.html, not Material's blog-post.html
                    file.page.meta["template"] = "post.html"

    def _date_pages(self, files: Files) -> None:
        """Each page written in docs/ (the blog plugin has not added its listings yet), but those the
        settings leave out, is dated by its source file's last commit, from one git log."""
        dated = {file.src_uri: Path(file.abs_src_path) for file in files.documentation_pages() if file.abs_src_path
                 and not any(fnmatch.fnmatchcase(file.src_uri, glob) for glob in self.config.no_last_update)}
        found = revisions.last_changes(self.build.docs_dir, dated.values())
        if dated and not found:
            log.info("git dates no page here: every page's \"Last update\" is the build's date")
        self.build.last_changes = {uri: found.get(path) for uri, path in dated.items()}

    def _take_own_sheets(self, files: Files, config: MkDocsConfig) -> None:
        """extra_css files leave the site's files: they are published inside the one stylesheet only."""
        for path in self.build.extra_css:
            file = files.get_file_from_path(path)
            # A theme's file has a path in the site too; only the site's own sheets are joined.
            if file is None or not file.abs_src_path or \
                    not Path(file.abs_src_path).is_relative_to(self.build.docs_dir.resolve()):
                raise PluginError(f"mkdocs.yml: extra_css: {path} is not a file under {config.docs_dir}. "
                                  f"{ACCEPTED_CSS}")
            self.build.own_sheets.append(Path(file.abs_src_path))
            files.remove(file)

    on_files = CombinedEvent(_check_posts, _after_blog)

    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        # Every page's content is rendered by now: a formula or diagram that failed stops the build
        # before any page is written.
        self._stop_on_render_problems()
        posts = self.build.posts
        env.globals["post_record"] = lambda page: posts.record(getattr(getattr(page, "file", None), "src_uri", None))
        env.globals["blog_browse"] = lambda: contracts.blog_listings(config.plugins["material/blog"], posts)
        env.globals["lead_figure"] = self._lead_figure
        try:
            self.build.stylesheet = stylesheets.bundle([Path(d) for d in config.theme.dirs],
                                                       bool(config.theme.get("palette")), self.build.own_sheets)
        except Stop as stop:
            raise PluginError(str(stop)) from stop
        env.globals["site_stylesheet"] = self.build.stylesheet[0]
        return env

    def _lead_figure(self, post: Post | None) -> lead_figures.LeadFigure | None:
        """The post's first figure, drawn small for the listings (made once a build)."""
        if post is None:
            return None
        found = self.build.lead_figures
        if post.file not in found:
            markdown = (self.build.docs_dir / post.file).read_text(encoding="utf-8")
            try:
                found[post.file] = lead_figures.lead_figure(markdown, self.build.root)
            except (OSError, ValueError) as error:  # the snippet check names a missing file too
                raise PluginError(f"{post.file}: its first figure cannot be drawn small for the "
                                  f"listings: {error}") from error
        return found[post.file]

    def _stop_on_render_problems(self) -> None:
        for problems, what in ((self.build.math.problems, "math problem"),
                               (self.build.diagrams.problems, "diagram problem")):
            if problems:
                self.build.close()
                raise PluginError(format_problems(sorted(set(problems)), what))

    # --- pages ------------------------------------------------------------------------------------

    def _pin_page_date(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        post = self.build.posts.record(page.file.src_uri)
        if post is not None:  # never after the build: a post dated in the future is only a warning
            page.update_date = min(post.modified.date(), get_build_datetime().date()).isoformat()
        if page.file.src_uri in self.build.last_changes:  # Material prints it as the "Last update" line
            stamp = self.build.last_changes[page.file.src_uri]
            stamp = int(get_build_datetime().timestamp()) if stamp is None else stamp
            page.meta["revision_date"] = revisions.last_update_html(stamp)
        return markdown

    @event_priority(-1000)  # last: the reuse key is the page's final Markdown
    def _reuse_render(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if self.serving and self.config.speed.reuse_renders:
            self.renders.wrap(page)
        return markdown

    on_page_markdown = CombinedEvent(_pin_page_date, _reuse_render)

    @event_priority(50)  # before the blog plugin reads the reading time (it keeps one already set)
    def _reading_time(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        post = self.build.posts.record(page.file.src_uri)
        if post is not None and post.meta.readtime is None:
            name = key(html, str(readtime.WORDS_PER_MINUTE), "1")
            stored = self.build.readtimes.get(name)
            minutes = int(stored) if stored is not None and stored.isdigit() else readtime.minutes(html)
            if stored is None:
                self.build.readtimes.put(name, str(minutes).encode())
            contracts.set_readtime(page, minutes)
        return html

    @event_priority(0)  # before mkdocs-rss-plugin reads the content (-75)
    def _render_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        source = page.file.content_string if page.file.abs_src_path else ""
        html = self.build.math.render(html, page.file.src_uri, source)
        html = self.build.diagrams.render(html, page.file.src_uri, source)
        if self.config.speed.offscreen_chunks and self.build.posts.record(page.file.src_uri) is not None:
            html = chunks.cached_wrap_chunks(html, self.build.chunks)
        return search.weight_identifiers(html) if self._indexed(page) else html

    on_page_content = CombinedEvent(_reading_time, _render_content)

    def _indexed(self, page: Page) -> bool:
        """Search indexes published posts only, unless a post says ``search: {exclude: true}``."""
        post = self.build.posts.record(page.file.src_uri)
        return post is not None and not post.draft and (post.meta.search or {}).get("exclude") is not True \
            and self.build.posts.is_published(post)

    def on_page_context(self, context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation
                        ) -> dict[str, Any]:
        post = self.build.posts.record(page.file.src_uri)
        context.update(card=cards.card_of(post), jsonld=None, tab_url=contracts.tab_of(page.url, nav), citation=None)
        if post is not None:
            site_url, name = config.site_url or "", config.site_name
            context["citation"] = {"bibtex": citation.bibtex(post, site_url, name),
                                   "plain": citation.plain(post, site_url, name),
                                   "meta": citation.meta_tags(post, site_url, name)}
            context["jsonld"] = metadata.script_safe_json(metadata.blog_posting(post, site_url, name))
            parts = self.build.posts.series_parts(post)
            context["series"] = {"name": post.meta.series.name, "part": post.meta.series.part, "parts": parts} \
                if post.meta.series is not None and parts else None
            context["related_posts"] = self.build.posts.related(post)
        return context

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        source = page.file.content_string if page.file.abs_src_path else ""
        # Excerpts on listings reach the page by another route: the blog plugin renders them again.
        output = self.build.math.render(output, page.file.src_uri, source)
        output = self.build.diagrams.render(output, page.file.src_uri, source)
        self._stop_on_render_problems()
        if 'class="katex' in output:
            href = get_relative_url(STYLESHEET, page.url)
            output = output.replace("</head>", f'<link rel="stylesheet" href="{href}">\n</head>', 1)
        output = scripts.with_scripts(output, self._scripts(output, page, config))
        output = markup.label_landmarks(output)
        output = markup.inert_figure_data(output)
        output = markup.repair(output)
        if self._indexed(page):
            output = search.mark_indexed(output)
        self._check_output(output, page.file.src_uri, page.file.dest_uri, source)
        return output

    def _scripts(self, output: str, page: Page, config: MkDocsConfig) -> list[str]:
        docs = Path(config.docs_dir)
        wanted = scripts.scripts_for(output)
        for path in wanted + scripts.figure_scripts(output):
            if not (docs / path).is_file():
                log.warning(f"{page.file.src_uri}: an interactive figure needs docs/{path}, which does not exist. "
                            "Accepted: data-ifig=\"NAME\" naming a script docs/javascripts/ifig/NAME.js")
        return [get_relative_url(path, page.url) for path in wanted if (docs / path).is_file()]

    def on_post_template(self, output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
        if not template_name.endswith(".html"):
            return output_content
        output = markup.repair(output_content)  # 404.html
        self._check_output(output, template_name, template_name, "")
        return output

    def _check_output(self, output: str, file: str, dest: str, markdown: str) -> None:
        """A built page that would load anything from another host: at the Markdown line holding the
        URL, else named as coming from a template, a plugin or an included file."""
        scan = self.scans if self.serving and self.config.speed.reuse_scans else externals
        for found in dict.fromkeys(scan(output, self.build.own_hosts)):
            at = markdown.find(found.url) if found.url else -1
            where = f"line {line_of(markdown, at)}" if at >= 0 else f"built page {dest}"
            origin = "" if at >= 0 else (": it comes from a template, a plugin or an included file, not from the "
                                         "page's Markdown")
            self.build.output_problems.append(
                Problem(file, where, f"{found.what} loads {found.url} from another host{origin}. {EXTERNAL_ACCEPTED}"))

    # --- after the build -------------------------------------------------------------------------

    def _write_site_files(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        card_cache = self.build.cache("cards")
        for path, (title, line) in cards.cards_for(self.build.posts.published, config.site_name).items():
            (site / path).parent.mkdir(parents=True, exist_ok=True)
            (site / path).write_bytes(cards.png(title, line, config.site_name, card_cache))
        (site / "robots.txt").write_text(metadata.robots_txt(config.site_url or ""), encoding="utf-8")
        if self.config.speed.minify_scripts:
            published_scripts.minify_own_scripts(self.build.docs_dir, site)
        if self.config.speed.compile_hint:
            try:
                published_scripts.hint_bundle(site, [Path(d) for d in config.theme.dirs])
            except Stop as stop:
                raise PluginError(str(stop)) from stop
        path, css = self.build.stylesheet
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(css, encoding="utf-8")
        for line in (self.build.math.summary(), self.build.diagrams.summary()):
            if line:
                log.info(line)
        log.debug(self.build.excerpt_counts.summary())
        log.debug(f"reused {self.renders.reused} conversions and {self.scans.reused} scans")
        self.build.close()

    @event_priority(-90)  # after mkdocs-rss-plugin has written the feeds (0)
    def _check_site(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        problems = [*self.build.output_problems, *external_problems(site, self.build.own_hosts, (".css",)),
                    *feeds.feed_problems(site)]
        self.build.output_problems = []
        if problems:
            raise PluginError(format_problems(sorted(set(problems)), scope=OUTPUT_SCOPE))
        feeds.drop_json_nulls(site)

    @event_priority(-200)  # last: redirect pages, feeds, cards and robots.txt are written
    def _index_and_keep_urls(self, *, config: MkDocsConfig) -> None:
        site = Path(config.site_dir)
        if self.serving and self.config.speed.background_index:
            if self.indexer is None:
                self.indexer = search.BackgroundIndexer(log.warning)
            self.indexer.start(site)
        else:
            try:
                for warning in search.index(site):
                    log.warning(f"Pagefind: {warning}")
            except Stop as stop:
                raise PluginError(str(stop)) from stop
        manifest = self.build.root / self.config.urls_manifest
        if not self.config.check_urls:  # `python -m mlblog urls` is rewriting the manifest
            return
        if not manifest.exists():
            log.info(f"no {manifest.name} next to mkdocs.yml: published URLs are not checked (`make urls` writes it)")
            return
        redirects_plugin = config.plugins["redirects"]
        redirects = urls.redirect_urls(redirects_plugin.config["redirect_maps"])
        pages = {urls.url_of(file.dest_uri): src for src, file in contracts.redirect_pages(redirects_plugin).items()}
        problems, new = urls.compare(urls.read_manifest(manifest.read_text(encoding="utf-8")),
                                     urls.served_urls(site), redirects, pages)
        if problems:
            raise PluginError(urls.format_lost(problems))
        if new and not self.serving:  # serve shows drafts
            log.warning(urls.format_new(new))

    on_post_build = CombinedEvent(_write_site_files, _check_site, _index_and_keep_urls)

    def on_build_error(self, *, error: Exception) -> None:
        if self._build is not None:
            self._build.close()

    def on_shutdown(self) -> None:
        if self._build is not None:
            self._build.close()
        if self.indexer is not None:
            self.indexer.close()

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Any) -> LiveReloadServer:
        return report_failed_rebuilds(server)
