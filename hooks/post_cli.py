"""The post rules from the command line, without building the site.

* ``python hooks/post_cli.py check [docs_dir]``: check every post (front matter and body) and the
  bodies of the other pages, as the build does; exit 1 on any problem.
* ``python hooks/post_cli.py schema [--write]``: the JSON Schema of post front matter, for editors.
* ``python hooks/post_cli.py new "Title" --category Kernel``: scaffold a valid draft post.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, from any cwd

from post_checks import check_all, format_problems  # noqa: E402
from post_schema import CATEGORIES, EXCERPT_MARKER, POSTS_DIR, FrontMatter  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "schemas" / "post-front-matter.schema.json"


def json_schema() -> str:
    schema = FrontMatter.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def slugify(title: str) -> str:
    """ASCII words of the title: 'Über-fast GEMMs' -> 'uber-fast-gemms', "What's new" -> 'whats-new'."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    ascii_title = re.sub(r"(?<=\w)['’](?=\w)", "", ascii_title.replace("’", "'"))
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    return "-".join(words)[:80].strip("-") or "post"


def scaffold(title: str, categories: list[str], date: dt.date, author: str, slug: str | None = None
             ) -> tuple[str, str]:
    """(file name, text) of a new post that passes every rule once its description is written."""
    slug = slug or slugify(title)
    cats = "\n".join(f"  - {c}" for c in categories)
    quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar
    text = f"""---
title: {quoted}
slug: {slug}
date: {date.isoformat()}
description: >-
  TODO: replace with one or two plain sentences that say what the reader will learn here.
categories:
{cats}
authors: [{author}]
upstream:
  TODO: TODO
draft: true
---

Say in one paragraph what question this post answers and what the reader can do afterwards.

{EXCERPT_MARKER}

## The map

## What surprises people

## Try it yourself

## Versions

## References
"""
    return f"{slug}.md", text


def check(docs: Path) -> int:
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
                   if not p.relative_to(docs).as_posix().startswith(POSTS_DIR + "/"))
    posts, problems = check_all(docs, pages=pages, snippet_bases=[docs.parent], repository=docs.parent)
    if problems:
        print(format_problems(problems), file=sys.stderr)
        return 1
    print(f"{len(posts)} posts checked, no problems.")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="post_cli", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check_cmd = sub.add_parser("check", help="check every post without building the site")
    check_cmd.add_argument("docs_dir", nargs="?", default=str(ROOT / "docs"))
    schema = sub.add_parser("schema", help="print (or --write) the front matter's JSON Schema")
    schema.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE.relative_to(ROOT)}")
    new = sub.add_parser("new", help="scaffold a new draft post from a title")
    new.add_argument("title", nargs="?", help="the title (or --title-from-env)")
    # make passes the title through the environment, so no shell ever reads `backticks` or $VARS in it.
    new.add_argument("--title-from-env", metavar="VAR", help="read the title from this environment variable")
    new.add_argument("--category", action="append", choices=CATEGORIES, required=True)
    new.add_argument("--author", default="editors")
    new.add_argument("--date", type=dt.date.fromisoformat, default=dt.date.today())
    new.add_argument("--slug")
    new.add_argument("--docs-dir", default=str(ROOT / "docs"))
    args = parser.parse_args(argv)

    if args.command == "check":
        return check(Path(args.docs_dir))
    if args.command == "schema":
        if args.write:
            SCHEMA_FILE.parent.mkdir(exist_ok=True)
            SCHEMA_FILE.write_text(json_schema(), encoding="utf-8")
            print(f"wrote {SCHEMA_FILE.relative_to(ROOT)}")
        else:
            sys.stdout.write(json_schema())
        return 0
    title = os.environ.get(args.title_from_env, "") if args.title_from_env else (args.title or "")
    if not title.strip():
        parser.error('a title is required: post_cli.py new "My title" --category Kernel')
    name, text = scaffold(title, args.category, args.date, args.author, args.slug)
    target = Path(args.docs_dir) / POSTS_DIR / name
    if target.exists():
        print(f"{target} already exists; pass --slug to choose another name", file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"created {target} (a draft: write the description and body, then remove 'draft: true')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
