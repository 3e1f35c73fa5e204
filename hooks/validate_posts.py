"""Check every post once per build, keep the typed records, stop on any problem.

* ``on_config``: forget the last build's records; give Material's blog plugin the allowed
  categories from ``post_schema.CATEGORIES`` (its own guard then agrees with ours), and stop if
  mkdocs.yml sets a different list.
* ``on_files`` (priority 100, ahead of the blog plugin at -50, which parses posts itself and would
  stop at the first bad one with a less helpful message): run ``post_checks.check_all`` on every
  post and on the bodies of the other pages (snippets, internal links); errors stop the build as a
  ``PluginError`` listing every problem, with or without ``--strict`` and never as a traceback;
  warnings go to the plugin logger, so ``--strict`` fails on them. The records go to ``posts``.
* ``on_files`` (priority -60, once the blog plugin has decided what it publishes): say which drafts
  were left out, and stop if a published post's URL is not the one its record promises.
* ``on_env``: templates get ``post_record(page)``, the same record the hooks read, and
  ``blog_browse()``, the category and archive listings with their post counts (``posts.browse``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import posts
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority, get_plugin_logger
from post_checks import check_all, format_problems
from post_schema import CATEGORIES, POSTS_DIR

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

log = get_plugin_logger("validate_posts")


@event_priority(100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    posts.reset(config)
    blog = config.plugins.get("material/blog")
    if blog is None:
        raise PluginError("mkdocs.yml: plugins: the blog plugin is missing. Accepted: '- blog:' under plugins")
    configured = list(blog.config.categories_allowed or [])
    if configured and configured != list(CATEGORIES):
        raise PluginError(
            "mkdocs.yml: plugins.blog.categories_allowed: lists "
            f"{', '.join(configured)}, but the post rules allow {', '.join(CATEGORIES)}. "
            "Accepted: leave categories_allowed out (the build fills it from "
            "hooks/post_schema.py CATEGORIES), or list exactly those categories"
        )
    blog.config.categories_allowed = list(CATEGORIES)
    return config


def _snippet_bases(config: MkDocsConfig) -> list[Path]:
    bases = config.mdx_configs.get("pymdownx.snippets", {}).get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else bases
    root = Path(config.config_file_path).resolve().parent
    return [root / str(b) for b in bases]


@event_priority(100)
def _check_posts(files: Files, *, config: MkDocsConfig) -> Files:
    pages = sorted(f.src_uri for f in files.documentation_pages())
    post_uris = [uri for uri in pages if uri.startswith(POSTS_DIR + "/")]
    others = [uri for uri in pages if not uri.startswith(POSTS_DIR + "/")]
    records, problems = check_all(Path(config.docs_dir), post_uris, pages=others,
                                  snippet_bases=_snippet_bases(config),
                                  repository=Path(config.config_file_path).resolve().parent)
    if any(p.level == "error" for p in problems):
        raise PluginError(format_problems(problems))
    for problem in problems:
        log.warning(str(problem))
    posts.register(records)
    return files


@event_priority(-60)  # after the blog plugin (-50) has resolved its posts and their URLs
def _after_blog_resolved(files: Files, *, config: MkDocsConfig) -> Files:
    for draft in posts.drafts_left_out():
        log.info(f"draft left out of this build: {draft.file}")
    for post in posts.published():
        file = files.get_file_from_path(post.file)
        if file is not None and file.url != post.url:
            raise PluginError(
                f"{post.file}: field 'slug': the blog plugin publishes it at /{file.url}, but the post "
                f"rules expect /{post.url}. Accepted: post_url_format \"{{date}}/{{slug}}\" in mkdocs.yml"
            )
    return files


on_files = CombinedEvent(_check_posts, _after_blog_resolved)


def on_env(env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
    env.globals["post_record"] = posts.record
    env.globals["blog_browse"] = posts.browse
    return env
