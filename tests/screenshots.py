"""Screenshots of the pages a reader meets first, at a desk and on a phone, in both palettes.

    python tests/screenshots.py [--site DIR] [--out DIR]

Builds the real site strictly into a temporary folder (or takes an already built ``--site``),
serves it on 127.0.0.1 and photographs the front page, a post (its top and its first figure), the
category index, one category, the archive index and one archive year, at 1280 px and 390 px, light
and dark, with the system Chromium ($CHROMIUM, default /usr/bin/chromium). PNGs are written to
``--out`` (default: screenshots/ beside site/, ignored by git). Not a test: it is for looking.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from browser import chromium, new_page, serve  # noqa: E402
from support import make_site  # noqa: E402

ROOT = HERE.parent
WIDTHS = {"desk": (1280, 900), "phone": (390, 844)}
PALETTES = {"light": "light", "dark": "dark"}


def pages(site_dir: Path) -> dict[str, str]:
    """name -> URL path: the front page, the newest post in a series, and one of each index."""
    posts = sorted((site_dir / "blog").glob("[0-9][0-9][0-9][0-9]/*/*/*/index.html"))
    series = [p for p in posts if "series-box" in p.read_text(encoding="utf-8")]
    post = (series or posts)[-1].parent.relative_to(site_dir).as_posix()
    category = sorted(p.name for p in (site_dir / "blog" / "category").iterdir() if p.is_dir())[0]
    year = sorted(p.name for p in (site_dir / "blog" / "archive").iterdir() if p.is_dir())[-1]
    return {
        "front": "/blog/",
        "post": f"/{post}/",
        "categories": "/blog/category/",
        "category": f"/blog/category/{category}/",
        "archive": "/blog/archive/",
        "year": f"/blog/archive/{year}/",
    }


def shoot(site_dir: Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with serve(site_dir) as base, chromium() as browser:
        for name, path in pages(site_dir).items():
            for width_name, (width, height) in WIDTHS.items():
                for palette in PALETTES.values():
                    page, _ = new_page(browser, base, color_scheme=palette,
                                       viewport={"width": width, "height": height})
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    page.wait_for_timeout(1000)  # let Material's header and tabs finish fading in
                    stem = f"{name}-{width}-{palette}"
                    target = out / f"{stem}.png"
                    # Listings in full; a post is long, so its first screen and its first figure.
                    page.screenshot(path=str(target), full_page=name != "post")
                    written.append(target)
                    if name == "post":
                        figure = page.locator("figure.fig").first
                        if figure.count():
                            figure.scroll_into_view_if_needed()
                            target = out / f"{stem}-figure.png"
                            page.screenshot(path=str(target))
                            written.append(target)
                            button = figure.locator(".fig-zoom__open")
                            if width_name == "phone" and button.count() and button.is_visible():
                                button.click()
                                target = out / f"{stem}-figure-open.png"
                                page.screenshot(path=str(target))
                                written.append(target)
                    page.context.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build the real site)")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="where the PNGs go")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site
        if site_dir is None:
            site = make_site(Path(tmp) / "src", keep_posts=True)
            result = site.build()
            if result.returncode != 0:
                print(result.stderr, file=sys.stderr)
                return 1
            site_dir = site.site_dir
        for path in shoot(site_dir, args.out):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
