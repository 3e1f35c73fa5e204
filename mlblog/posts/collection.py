"""The posts of one build: every valid record, and the ones a reader can see, in the blog's order.
The published list is the blog plugin's own (the adapter hands it over), so drafts are left out exactly
as the plugin leaves them out; series boxes, related posts, cards, feeds and search read only these."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .schema import Post


@dataclass(frozen=True)
class Listing:
    """One category or archive-year listing page: its name, URL (site-relative) and its posts."""

    name: str
    url: str
    posts: tuple[Post, ...]

    @property
    def count(self) -> int:
        return len(self.posts)


class Posts:
    def __init__(self, records: Iterable[Post]) -> None:
        self.records = {r.file: r for r in records}  # by source path relative to docs/
        self.published: list[Post] = []

    def publish(self, files: Iterable[str]) -> None:
        """The blog plugin's published posts, newest first (pinned ones first), by source path."""
        self.published = [self.records[f] for f in files if f in self.records]

    def record(self, file: str | None) -> Post | None:
        return self.records.get(file) if file else None

    def is_published(self, post: Post) -> bool:
        return any(p.file == post.file for p in self.published)

    def drafts_left_out(self) -> list[Post]:
        shown = {p.file for p in self.published}
        return sorted((r for r in self.records.values() if r.file not in shown), key=lambda r: r.file)

    def series_parts(self, post: Post) -> list[Post]:
        """The published parts of the post's series, in part order (empty when it has none)."""
        if post.meta.series is None:
            return []
        name = post.meta.series.name
        members = [p for p in self.published if p.meta.series is not None and p.meta.series.name == name]
        return sorted(members, key=lambda p: p.meta.series.part)  # type: ignore[union-attr]

    def related(self, post: Post) -> list[Post]:
        """The published posts the post names in ``related``, in the author's order."""
        slugs = {p.slug: p for p in self.published}
        return [slugs[s] for s in post.meta.related or [] if s in slugs]

    def listing(self, name: str, url: str, files: Iterable[str]) -> Listing:
        return Listing(name, url, tuple(self.records[f] for f in files if f in self.records))
