"""Keep compiled Jinja templates in the build cache, so a build loads them instead of compiling.

MkDocs makes a new Jinja environment for every build, and so for every rebuild under `mkdocs
serve`: each compiled Material's base.html, its partials and our overrides again from source
(about 60 templates, a second of a profiled serve rebuild at 100 posts), and Material's blog
plugin compiles its translation templates three more times in environments of its own. Jinja can
take compiled templates from a bytecode cache; this hook gives every environment the theme makes
(``theme.get_env``) one that keeps them in the build cache (hooks/build_cache.py, kind
``templates``).

An entry's key is everything that decides the compiled code: the template's source, name and file;
Jinja's, MarkupSafe's and Python's versions; the environment's syntax and compile options, its
extensions; and each filter's and test's name and how Jinja passes it arguments (the compiler
writes those into the code). An edited template has a new key, so it is compiled afresh and the
edit shows at once. The compiler also runs a filter or test whose arguments are all literals
(``{{ "x" | f }}``) and writes its result into the code; a template in which that happens to a
filter or test other than Jinja's own is never stored, since its result could depend on anything.
``finalize`` (which the compiler may also run) turns the cache off for that environment.

ML_BLOG_BUILD_CACHE=off compiles every template, as Jinja does without a cache.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import build_cache
import jinja2
from jinja2 import nodes
from jinja2.bccache import Bucket, BytecodeCache
from jinja2.filters import FILTERS
from jinja2.tests import TESTS
from jinja2.utils import _PassArg
from mkdocs.plugins import get_plugin_logger

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig

log = get_plugin_logger("cache_templates")

FORMAT = "1"  # bump when what the key covers changes
SETTINGS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
            "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
            "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
            "is_async", "sandboxed")
counts = {"loaded": 0, "compiled": 0, "not_kept": 0}


def _name(value: Any) -> str:
    """A callable or class by where it is defined (never by its address), anything else by repr."""
    if callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    return repr(value)


def environment_key(env: Environment) -> str:
    """Everything about the environment that the compiled code of a template depends on."""
    parts = [FORMAT, jinja2.__version__, version("markupsafe"), sys.implementation.cache_tag,
             _name(env.code_generator_class)]
    parts += [f"{setting}={getattr(env, setting)!r}" for setting in SETTINGS]
    parts += [f"extension {key} {_name(type(ext))} {ext.priority}" for key, ext in sorted(env.extensions.items())]
    parts += [f"policy {key}={_name(value)}" for key, value in sorted(env.policies.items())]
    for kind, table in (("filter", env.filters), ("test", env.tests)):
        parts += [f"{kind} {name} {_name(func)} {_PassArg.from_obj(func)}" for name, func in sorted(table.items())]
    return build_cache.key(*parts)


def _folds_own_function(env: Environment, source: str, name: str | None, filename: str | None) -> bool:
    """Whether compiling the template runs a filter or test that is not Jinja's own (on literals)."""
    context = nodes.EvalContext(env, name)
    for node in env.parse(source, name, filename).find_all((nodes.Filter, nodes.Test)):
        table, own = (env.filters, FILTERS) if isinstance(node, nodes.Filter) else (env.tests, TESTS)
        if table.get(node.name) is own.get(node.name, object()):
            continue
        try:
            node.as_const(context)
        except nodes.Impossible:
            continue
        return True
    return False


class TemplateCache(BytecodeCache):
    """Jinja's bytecode cache, stored in the build cache under a key of everything that decides it."""

    def __init__(self, config_dir: str | os.PathLike[str]) -> None:
        self.cache = build_cache.Cache("templates", config_dir)

    def get_bucket(self, environment: Environment, name: str, filename: str | None, source: str) -> Bucket:
        autoescape = environment.autoescape(name) if callable(environment.autoescape) else environment.autoescape
        bucket = Bucket(environment, build_cache.key(environment_key(environment), name, filename or "",
                                                     f"autoescape={bool(autoescape)}", source), "")
        bucket.source = (source, name, filename)  # type: ignore[attr-defined]
        if environment.finalize is None:
            self.load_bytecode(bucket)
        counts["loaded" if bucket.code is not None else "compiled"] += 1
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.cache.get(bucket.key, ".jinja")
        if data is not None:
            bucket.bytecode_from_string(data)  # checks Jinja's own header; a bad entry stays empty

    def dump_bytecode(self, bucket: Bucket) -> None:
        if not self.cache.on or bucket.environment.finalize is not None:
            return
        if _folds_own_function(bucket.environment, *bucket.source):  # type: ignore[attr-defined]
            counts["not_kept"] += 1
            return
        self.cache.put(bucket.key, bucket.bytecode_to_string(), ".jinja")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Every environment made from the theme gets the cache: the build's own, and those Material's
    blog plugin makes for its translations (three per build)."""
    counts.update(loaded=0, compiled=0, not_kept=0)
    theme = config.theme
    make_environment = theme.get_env
    if getattr(make_environment, "with_template_cache", False):
        return config
    folder = os.path.dirname(config.config_file_path)

    def get_env() -> Environment:
        env = make_environment()
        if env.bytecode_cache is None:
            env.bytecode_cache = TemplateCache(folder)
        return env

    get_env.with_template_cache = True  # type: ignore[attr-defined]
    theme.get_env = get_env  # type: ignore[method-assign]
    return config


def on_post_build(config: MkDocsConfig) -> None:
    log.debug("templates: %d loaded from the cache, %d compiled (%d of them not kept)",
              counts["loaded"], counts["compiled"], counts["not_kept"])
