"""The published-URL manifest from the command line (``make urls``).

* ``python hooks/urls_cli.py write [-f mkdocs.yml]``: build the site strictly into a temporary
  folder (``site/`` is left alone) without comparing it with the manifest, then rewrite ``urls.txt``
  next to mkdocs.yml with every public URL of that build, and say which URLs were added and which
  were dropped. A build that fails any other check writes nothing.

Run it when a change of URLs is intended: after adding a post (its new URLs), after a move that
has its redirect, or to accept that a URL is gone. Commit ``urls.txt`` with the change.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, from any cwd

import published_urls  # noqa: E402
from mkdocs.commands.build import build  # noqa: E402
from mkdocs.config import load_config  # noqa: E402
from mkdocs.exceptions import MkDocsException  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def write(config_file: Path) -> int:
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logging.getLogger("mkdocs").addHandler(handler)
    manifest = config_file.resolve().parent / published_urls.MANIFEST
    with tempfile.TemporaryDirectory(prefix="urls-") as site_dir:
        try:
            config = load_config(config_file=str(config_file), site_dir=site_dir)
            config.plugins.on_startup(command="build", dirty=False)
            try:
                with published_urls.recording():
                    build(config)
            finally:
                config.plugins.on_shutdown()
        except MkDocsException as exc:
            print(f"{exc}\nThe site did not build, so {manifest.name} is unchanged.", file=sys.stderr)
            return 1
        urls = published_urls.served_urls(Path(site_dir))
    before = ({item.url for item in published_urls.read_manifest(manifest.read_text(encoding="utf-8"))}
              if manifest.exists() else set())
    manifest.write_text(published_urls.format_manifest(urls), encoding="utf-8")
    added, dropped = sorted(urls - before), sorted(before - urls)
    print(f"wrote {manifest.name}: {len(urls)} URLs, {len(added)} added, {len(dropped)} dropped")
    for url in added:
        print(f"  + {url}")
    for url in dropped:
        print(f"  - {url} (no longer published: links to it will break)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="urls_cli", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    write_cmd = sub.add_parser("write", help=f"rewrite {published_urls.MANIFEST} from a fresh build")
    write_cmd.add_argument("-f", "--config-file", type=Path, default=ROOT / "mkdocs.yml")
    args = parser.parse_args(argv)
    return write(args.config_file)


if __name__ == "__main__":
    sys.exit(main())
