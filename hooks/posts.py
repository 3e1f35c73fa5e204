"""The one place hooks and templates ask about posts (a helper module, not a hook).

``validate_posts`` checks every post once per build and registers the typed records here; every
other hook reads them through these functions instead of re-parsing ``page.meta``:

* ``record(page)``: the post's typed record, or None when the page is not a post;
* ``published()``: the posts a reader can see, newest first. Drafts are left out exactly as
  Material's blog plugin leaves them out (shown by ``mkdocs serve``, absent from builds), because
  the answer comes from the plugin's own list of posts;
* ``series_parts(post)`` and ``related(post)``: the published posts a post's page links to;
* ``browse()``: the category and archive listings the blog plugin built, with their post counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from post_schema import Post

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page


@dataclass(frozen=True)
class Listing:
    """One category or archive-year listing page: its name, URL (site-relative) and its posts."""

    name: str
    url: str
    posts: tuple[Post, ...]

    @property
    def count(self) -> int:
        return len(self.posts)


@dataclass
class _Build:
    records: dict[str, Post] = field(default_factory=dict)  # src_uri -> record
    blog: Any = None  # Material's blog plugin instance, which knows which posts it publishes
    published: list[Post] | None = None


_build = _Build()


def reset(config: MkDocsConfig) -> None:
    """Forget the last build's posts (``mkdocs serve`` does not reload hook modules)."""
    global _build
    _build = _Build(blog=config.plugins.get("material/blog"))


def register(records: Iterable[Post]) -> None:
    _build.records = {r.file: r for r in records}
    _build.published = None


def record(page: Page | None) -> Post | None:
    """The typed record of a post page (None for every other page)."""
    if page is None or getattr(page, "file", None) is None:
        return None
    return _build.records.get(page.file.src_uri)


def published() -> list[Post]:
    """Posts readers can see, newest first (pinned ones first, as the blog plugin orders them)."""
    if _build.published is None:
        blog = _build.blog
        if blog is None or not hasattr(blog, "blog"):
            raise RuntimeError("posts.published() was called before the blog plugin resolved its posts")
        shown = [p.file.src_uri for p in blog.blog.posts]
        _build.published = [_build.records[uri] for uri in shown if uri in _build.records]
    return _build.published


def drafts_left_out() -> list[Post]:
    shown = {p.file for p in published()}
    return sorted((r for r in _build.records.values() if r.file not in shown), key=lambda r: r.file)


def by_slug() -> dict[str, Post]:
    return {p.slug: p for p in published()}


def series_parts(post: Post) -> list[Post]:
    """The published parts of the post's series, in part order (empty when it has none)."""
    if post.meta.series is None:
        return []
    name = post.meta.series.name
    members = [p for p in published() if p.meta.series is not None and p.meta.series.name == name]
    return sorted(members, key=lambda p: p.meta.series.part)  # type: ignore[union-attr]


def related(post: Post) -> list[Post]:
    """The published posts the post names in ``related``, in the author's order."""
    slugs = by_slug()
    return [slugs[s] for s in post.meta.related or [] if s in slugs]


def browse() -> dict[str, list[Listing]]:
    """The blog plugin's category and archive-year listings, which hold published posts only.

    ``categories`` in the order the plugin sorts them (by name), ``years`` newest first. Material's
    views are asked by type, so a category or year appears exactly when the plugin built its page.
    """
    from material.plugins.blog.structure import Archive, Category

    views = list(getattr(getattr(_build.blog, "blog", None), "views", None) or [])

    def listings(kind: type) -> list[Listing]:
        return [Listing(v.name, v.url, tuple(_build.records[p.file.src_uri] for p in v.posts
                                             if p.file.src_uri in _build.records))
                for v in views if isinstance(v, kind)]

    return {"categories": listings(Category), "years": listings(Archive)}
