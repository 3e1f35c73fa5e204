"""Every post checked: front matter, body, the rules for published posts, the rules across posts,
the authors file, and files under docs/ that links take outside the repository. ``check_all`` is the
one entry point, for the build and the command line alike."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .bodies import body_problems, inside
from .frontmatter import Loader, parse_front_matter, split_front_matter, translate
from .problems import Problem
from .schema import AUTHORS_FILE, POSTS_DIR, Author, FrontMatter, Post, character_problem, nearest, texts_of


@dataclass(frozen=True)
class Context:
    """What checking needs beyond the post itself."""

    docs_dir: Path
    authors: dict[str, Author]
    snippet_bases: tuple[Path, ...]
    today: dt.date


def check_post(rel: str, text: str, ctx: Context) -> tuple[Post | None, list[Problem]]:
    """Check one post's text. Returns its record (when its front matter is valid) and its problems."""
    record, problems, _ = _check_post(rel, text, ctx)
    return record, problems


def _check_post(rel: str, text: str, ctx: Context) -> tuple[Post | None, list[Problem], dict[str, Any] | None]:
    """check_post, and the front matter as read (None: it could not be read)."""
    source = split_front_matter(text)
    meta, problems = parse_front_matter(rel, source)
    if meta is None:
        return None, problems, None
    problems += body_problems(rel, source.body, source.body_line, docs_dir=ctx.docs_dir,
                              snippet_bases=ctx.snippet_bases)
    record = None
    try:
        front_matter = FrontMatter.model_validate(meta)
    except ValidationError as exc:
        problems += [Problem(rel, f"field '{where}'", message) for where, message in map(translate, exc.errors())]
    else:
        record = Post(rel, front_matter, tuple(ctx.authors[a] for a in front_matter.authors if a in ctx.authors))
    # Unknown authors are named even when other fields are wrong, so one build reports every problem.
    raw_authors = meta["authors"] if isinstance(meta.get("authors"), list) else []
    for a in (a for a in raw_authors if isinstance(a, str) and a.strip() and a not in ctx.authors):
        problems.append(Problem(rel, "field 'authors'", f"'{a}' is not in {AUTHORS_FILE}.{nearest(a, ctx.authors)} "
                                f"Accepted: {', '.join(sorted(ctx.authors)) or '(none defined)'}"))
    if record is not None:
        problems += _published_problems(record, ctx)
    return record, problems, meta


def _published_problems(post: Post, ctx: Context) -> list[Problem]:
    """Rules for posts that readers will see: no scaffold TODOs, no future dates, links that exist."""
    problems = []
    for link in post.meta.links or []:
        for target in [link] if isinstance(link, str) else link.values():
            path = target.split("#")[0]
            if "://" not in path and not (ctx.docs_dir / path).is_file():
                problems.append(Problem(post.file, "field 'links'", f"'{target}' does not exist under "
                                        "docs/. Accepted: a path relative to docs/, e.g. blog/posts/other-post.md"))
    if post.draft:
        return problems
    if "TODO" in post.description:
        problems.append(Problem(post.file, "field 'description'", "still holds the scaffold's TODO. "
                                "Accepted: your own one or two sentences (or keep 'draft: true')"))
    if any("TODO" in f"{k} {v}" for k, v in post.meta.upstream.items()):
        problems.append(Problem(post.file, "field 'upstream'", "still holds the scaffold's TODO. "
                                "Accepted: 'project: pinned tag or commit' (or keep 'draft: true')"))
    if post.created.date() > ctx.today:
        problems.append(Problem(post.file, "field 'date'", f"{post.created.date()} is in the future, so "
                                "the post would be published with a date readers have not reached. "
                                "Accepted: today or earlier, or 'draft: true' until then", level="warning"))
    return problems


def cross_post_problems(posts: Sequence[Post], failed: Sequence[dict[str, Any] | None] = ()) -> list[Problem]:
    """Rules that need every post: unique URLs and slugs, related posts, series parts. ``failed``: the front
    matter (None: unreadable) of the posts that failed their own checks, so that their failure is reported
    once, not again as a gap in a series or an unknown related slug."""
    readable = [m for m in failed if m is not None]
    claimed_slugs = {m["slug"] for m in readable if isinstance(m.get("slug"), str)}
    claimed_series = [m["series"].get("name") if isinstance(m["series"], dict) else None
                      for m in readable if "series" in m]
    # A failed post whose front matter (or series) could not be read may claim anything.
    unsure = len(readable) < len(failed) or not all(isinstance(name, str) for name in claimed_series)
    problems: list[Problem] = []
    by_url: dict[str, Post] = {}
    by_slug: dict[str, Post] = {}
    for post in sorted(posts, key=lambda p: p.file):
        if (other := by_url.setdefault(post.url, post)) is not post:
            problems.append(Problem(post.file, "field 'slug'", f"resolves to the same URL /{post.url} as "
                                    f"{other.file}. Accepted: a slug or date that no other post uses"))
        if (other := by_slug.setdefault(post.slug, post)) is not post and other.url != post.url:
            problems.append(Problem(post.file, "field 'slug'", f"'{post.slug}' is already used by "
                                    f"{other.file}. Accepted: a slug no other post uses (related posts "
                                    "and series refer to posts by slug)"))
    for post in posts:
        for slug in post.meta.related or []:
            if slug == post.slug:
                problems.append(Problem(post.file, "field 'related'", f"'{slug}' is this post itself. "
                                        "Accepted: slugs of other posts"))
            elif slug not in by_slug and slug not in claimed_slugs and not unsure:
                problems.append(Problem(post.file, "field 'related'", f"no post has the slug '{slug}'."
                                        f"{nearest(slug, by_slug)} Accepted: {', '.join(sorted(by_slug))}"))
    series: dict[str, list[Post]] = {}
    for post in posts:
        if post.meta.series:
            series.setdefault(post.meta.series.name, []).append(post)
    for name, members in series.items():
        parts: dict[int, Post] = {}
        for post in sorted(members, key=lambda p: p.file):
            part = post.meta.series.part  # type: ignore[union-attr]
            if (other := parts.setdefault(part, post)) is not post:
                problems.append(Problem(post.file, "field 'series.part'", f"part {part} of '{name}' is "
                                        f"also claimed by {other.file}. Accepted: each part number once per series"))
        missing = sorted(set(range(1, max(parts) + 1)) - set(parts))
        if missing and name not in claimed_series and not unsure:
            problems.append(Problem(parts[max(parts)].file, "field 'series.part'", f"series '{name}' has "
                                    f"no part {missing[0]} before part {max(parts)}. Accepted: parts "
                                    "numbered 1, 2, 3... without gaps"))
        # Readers see only published parts: a published part may not follow a draft one.
        for part, post in sorted(parts.items()):
            earlier = [p for n, p in parts.items() if n < part and p.draft]
            if not post.draft and earlier:
                problems.append(Problem(post.file, "field 'series.part'", f"part {part} of '{name}' is "
                                        f"published but part {earlier[0].meta.series.part} "  # type: ignore[union-attr]
                                        f"({earlier[0].file}) is a draft. Accepted: publish parts in order"))
        for other_name in series:
            if other_name != name and other_name.lower() == name.lower():
                problems.append(Problem(members[0].file, "field 'series.name'", f"'{name}' and "
                                        f"'{other_name}' differ only in case. Accepted: one spelling per series"))
    return problems


def load_authors(docs_dir: Path) -> tuple[dict[str, Author], list[Problem]]:
    path = docs_dir / AUTHORS_FILE
    if not path.is_file():
        return {}, [Problem(AUTHORS_FILE, "file", "is missing. Accepted: a YAML file with an 'authors:' "
                            "mapping of id -> {name, description}")]
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}  # noqa: S506 (safe)
    except yaml.YAMLError as exc:
        return {}, [Problem(AUTHORS_FILE, "file", f"is not valid YAML ({exc}). Accepted: YAML 'key: value' lines")]
    authors = data.get("authors") if isinstance(data, dict) else None
    if not isinstance(authors, dict) or not authors:
        return {}, [Problem(AUTHORS_FILE, "field 'authors'", "expected a non-empty mapping of id -> "
                            "{name, description}")]
    found: dict[str, Author] = {}
    problems = []
    for aid, info in authors.items():
        wrong = next((w for where, text in texts_of(info, f"authors.{aid}")
                      if (w := character_problem(text, multiline=where.endswith(".description"), at=where))), None)
        if wrong is None and (not isinstance(info, dict) or not str(info.get("name", "")).strip()):
            wrong = "needs a 'name'. Accepted: {name: ..., description: ..., avatar: local path}"
        if wrong is not None:
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}'", wrong))
            continue
        avatar = str(info.get("avatar", ""))
        if "://" in avatar or avatar.startswith("//"):
            problems.append(Problem(AUTHORS_FILE, f"field 'authors.{aid}.avatar'", f"'{avatar}' is on "
                                    "another host; the site loads nothing from other hosts. Accepted: a "
                                    "path to an image under docs/"))
        found[str(aid)] = Author(str(aid), str(info["name"]).strip())
    return found, problems


def docs_link_problems(docs_dir: Path, repository: Path) -> list[Problem]:
    """Every file (or folder) under docs/ that a link takes outside the repository, where the build would
    publish whatever it points to (a CI runner's secrets, /etc/passwd); found as MkDocs walks docs/
    (following links), each folder once."""
    problems, seen = [], set()
    for folder, dirs, files in os.walk(docs_dir, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a link back into a folder already walked: MkDocs would loop there
            dirs[:] = []
            continue
        seen.add(real)
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if os.path.islink(path) and not inside(real := os.path.realpath(path), [repository]):
                problems.append(Problem(path.relative_to(docs_dir).as_posix(), "file", f"is a link to {real}, "
                                        "outside the repository: the build would publish that file. Accepted: a "
                                        "file inside the repository (copy it in, or link to a file inside)"))
                if name in dirs:
                    dirs.remove(name)
    return problems


def check_all(docs_dir: Path, files: Iterable[str] | None = None, *, pages: Iterable[str] = (),
              snippet_bases: Sequence[Path] | None = None, today: dt.date | None = None,
              repository: Path | None = None) -> tuple[list[Post], list[Problem]]:
    """Check every post under docs/blog/posts (or the given posts), and the bodies of other pages.

    Snippet paths resolve against ``snippet_bases`` (mkdocs.yml's base_path), by default the folder
    holding docs/. With ``repository`` (the folder of mkdocs.yml), every file under docs/ must also
    stay inside it once links are followed. Returns the records of the valid posts and every
    problem, sorted.
    """
    authors, problems = load_authors(docs_dir)
    if repository is not None:
        problems += docs_link_problems(docs_dir, repository)
    ctx = Context(docs_dir, authors, tuple([docs_dir.parent] if snippet_bases is None else snippet_bases),
                  today or dt.datetime.now(dt.UTC).date())
    if files is None:
        files = sorted(p.relative_to(docs_dir).as_posix() for p in (docs_dir / POSTS_DIR).rglob("*.md"))
    posts, failed = [], []
    for rel, is_post in [*((rel, True) for rel in files), *((rel, False) for rel in pages)]:
        try:
            text = (docs_dir / rel).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(rel, "file", f"is not UTF-8 ({exc.reason} at byte {exc.start}). "
                                    "Accepted: UTF-8 text"))
            continue
        if not is_post:  # pages that are not posts: only what would break their build
            source = split_front_matter(text)
            problems += body_problems(rel, source.body, source.body_line, docs_dir=docs_dir,
                                      snippet_bases=ctx.snippet_bases, is_post=False)
            continue
        post, found, meta = _check_post(rel, text, ctx)
        problems += found
        if post is not None:
            posts.append(post)
        else:
            failed.append(meta)
    problems += cross_post_problems(posts, failed)
    return posts, sorted(set(problems))
