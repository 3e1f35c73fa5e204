"""Compiled Jinja templates kept in the build cache, so a build loads them instead of compiling them.

MkDocs makes a new Jinja environment for every build (every `mkdocs serve` rebuild), which compiles
Material's templates and the overrides again, as do the blog plugin's environments. Every environment
the theme makes (``theme.get_env``) gets a bytecode cache keyed by everything that decides the
compiled code (``environment_key`` and the template's source, name, file and autoescaping). A template
in which the compiler would run a filter or test other than Jinja's own on literals is never stored
(its result could depend on anything), and ``finalize`` turns the cache off for that environment.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2 import nodes
from jinja2.bccache import Bucket, BytecodeCache
from jinja2.filters import FILTERS
from jinja2.tests import TESTS
from jinja2.utils import _PassArg

from ..render.cache import Cache, key

if TYPE_CHECKING:
    from jinja2 import Environment

FORMAT = "1"  # bump when what the key covers changes
SETTINGS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
            "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
            "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
            "is_async", "sandboxed")


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
    return key(*parts)


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

    def __init__(self, cache: Cache, counts: dict[str, int]) -> None:
        self.cache = cache
        self.counts = counts

    def get_bucket(self, environment: Environment, name: str, filename: str | None, source: str) -> Bucket:
        autoescape = environment.autoescape(name) if callable(environment.autoescape) else environment.autoescape
        bucket = Bucket(environment, key(environment_key(environment), name, filename or "",
                                         f"autoescape={bool(autoescape)}", source), "")
        bucket.source = (source, name, filename)  # type: ignore[attr-defined]
        if environment.finalize is None:
            self.load_bytecode(bucket)
        self.counts["loaded" if bucket.code is not None else "compiled"] += 1
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.cache.get(bucket.key, ".jinja")
        if data is not None:
            bucket.bytecode_from_string(data)  # checks Jinja's own header; a bad entry stays empty

    def dump_bytecode(self, bucket: Bucket) -> None:
        if not self.cache.on or bucket.environment.finalize is not None:
            return
        if _folds_own_function(bucket.environment, *bucket.source):  # type: ignore[attr-defined]
            self.counts["not_kept"] += 1
            return
        self.cache.put(bucket.key, bucket.bytecode_to_string(), ".jinja")


def install(theme: Any, cache: Cache, counts: dict[str, int]) -> None:
    """Every environment made from the theme gets the cache: the build's own and the blog plugin's."""
    make_environment = theme.get_env

    def get_env() -> Environment:
        env = make_environment()
        if env.bytecode_cache is None:
            env.bytecode_cache = TemplateCache(cache, counts)
        return env

    theme.get_env = get_env
