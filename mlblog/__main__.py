"""The site's commands, from the command line (the Makefile's targets call them).

`python -m mlblog --help` lists them: check, schema, new and urls; only urls needs MkDocs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

from .checks import check_site, check_sources
from .posts import titles
from .posts.problems import format_problems
from .posts.scaffold import scaffold
from .posts.schema import CATEGORIES, POSTS_DIR, FrontMatter, nearest
from .publish import urls

SCHEMA_FILE = Path("schemas") / "post-front-matter.schema.json"


def json_schema() -> str:
    schema = FrontMatter.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def check(config_file: Path, site: Path | None) -> int:
    posts, problems = check_sources(config_file)
    site_problems = check_site(site, config_file) if site is not None else []
    reports = [format_problems(problems)] if problems else []
    if site_problems:
        reports.append(format_problems(site_problems, scope=f"the built site (paths relative to {site})"))
    if reports:
        print("\n".join(reports), file=sys.stderr)
        return 1
    print(f"{len(posts)} posts checked" + (f", and the site in {site}" if site else "") + ", no problems.")
    return 0


def new(args: argparse.Namespace, root: Path) -> int:
    title = os.environ.get(args.title_from_env, "") if args.title_from_env else (args.title or "")
    if not title.strip():
        print('A title is needed: make new-post TITLE="My title" CATEGORY="Kernel"', file=sys.stderr)
        return 2
    wrong_title = titles.problem(title.strip())
    if wrong_title is not None:  # the scaffold would not pass the checks
        print(f"TITLE: {wrong_title}", file=sys.stderr)
        return 2
    categories = args.category or ["Machine Learning Performance"]
    wrong = [c for c in categories if c not in CATEGORIES]
    if wrong:
        print(f"'{wrong[0]}' is not an allowed category.{nearest(wrong[0], CATEGORIES)} "
              f"Accepted: {', '.join(CATEGORIES)}", file=sys.stderr)
        return 2
    name, text = scaffold(title, categories, args.date, args.author, args.slug)
    target = Path(args.docs_dir or root / "docs") / POSTS_DIR / name
    if target.exists():
        print(f"{target} already exists: choose another title, or another slug with "
              f'make new-post TITLE="..." SLUG=another-slug', file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"created {target} (a draft: write the description and body, then remove 'draft: true')")
    return 0


def rewrite_urls(config_file: Path) -> int:
    """Build strictly into a temporary folder without comparing it with the manifest, then rewrite the
    manifest with every public URL of that build; a build that fails writes nothing."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logging.getLogger("mkdocs").addHandler(handler)
    manifest = config_file.resolve().parent / "urls.txt"
    with tempfile.TemporaryDirectory(prefix="urls-") as site_dir:
        try:
            config = load_config(config_file=str(config_file), site_dir=site_dir)
            plugin = config.plugins["mlblog"]
            plugin.config.check_urls = False
            manifest = config_file.resolve().parent / plugin.config.urls_manifest
            config.plugins.on_startup(command="build", dirty=False)
            try:
                build(config)
            finally:
                config.plugins.on_shutdown()
        except MkDocsException as exc:
            print(f"{exc}\nThe site did not build, so {manifest.name} is unchanged.", file=sys.stderr)
            return 1
        found = urls.served_urls(Path(site_dir))
    before = ({item.url for item in urls.read_manifest(manifest.read_text(encoding="utf-8"))}
              if manifest.exists() else set())
    manifest.write_text(urls.format_manifest(found), encoding="utf-8")
    added, dropped = sorted(found - before), sorted(before - found)
    print(f"wrote {manifest.name}: {len(found)} URLs, {len(added)} added, {len(dropped)} dropped")
    for url in added:
        print(f"  + {url}")
    for url in dropped:
        print(f"  - {url} (no longer published: links to it will break)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mlblog", description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True)
    check_cmd = sub.add_parser("check", help="the post rules, and with --site the output checks")
    check_cmd.add_argument("--site", type=Path, help="a built site to check as well")
    schema = sub.add_parser("schema", help="print (or --write) the front matter's JSON Schema")
    schema.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE}")
    new_cmd = sub.add_parser("new", help="scaffold a new draft post from a title")
    new_cmd.add_argument("title", nargs="?", help="the title (or --title-from-env)")
    # make passes the title through the environment, so no shell ever reads `backticks` or $VARS in it.
    new_cmd.add_argument("--title-from-env", metavar="VAR", help="read the title from this environment variable")
    new_cmd.add_argument("--category", action="append", default=[], help=f"one of: {', '.join(CATEGORIES)}")
    new_cmd.add_argument("--author", default="editors")
    new_cmd.add_argument("--date", type=dt.date.fromisoformat, default=dt.date.today())
    new_cmd.add_argument("--slug")
    new_cmd.add_argument("--docs-dir")
    sub.add_parser("urls", help="rewrite the URL manifest from a fresh strict build")
    args = parser.parse_args(argv)
    config_file = args.config_file.resolve()
    if args.command == "check":
        return check(config_file, args.site)
    if args.command == "new":
        return new(args, config_file.parent)
    if args.command == "urls":
        return rewrite_urls(config_file)
    if not args.write:
        sys.stdout.write(json_schema())
        return 0
    schema_file = config_file.parent / SCHEMA_FILE
    schema_file.parent.mkdir(exist_ok=True)
    schema_file.write_text(json_schema(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
