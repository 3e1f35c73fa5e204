"""`python -m mlblog check --site DIR`: the output checks over a built site, run without MkDocs.

They are what must survive a change of generator (README, "After Material 9"), so the command runs here
with mkdocs and material made unimportable, over a copy of the real site's build, first as built and
then with one of each kind of fault planted in it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from support import MKDOCS_ENV, Site

# Any import of mkdocs or of Material's package fails in this process: what runs is the core alone.
WITHOUT_MKDOCS = ("import runpy, sys\n"
                  "sys.modules.update(mkdocs=None, material=None)\n"
                  "sys.argv[0] = 'mlblog'\n"
                  "runpy.run_module('mlblog', run_name='__main__', alter_sys=True)\n")


def check_site(site: Site, built: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", WITHOUT_MKDOCS, "-f", str(site.root / "mkdocs.yml"), "check", "--site", str(built)]
    return subprocess.run(cmd, cwd=site.root.parent, env=MKDOCS_ENV, capture_output=True, text=True, timeout=300)


def test_check_site_passes_the_real_build_and_names_each_planted_fault(real_site: Site, tmp_path: Path) -> None:
    built = tmp_path / "site"
    shutil.copytree(real_site.site_dir, built)

    ok = check_site(real_site, built)
    assert ok.returncode == 0, ok.stderr
    assert "posts checked, and the site in" in ok.stdout
    assert "ModuleNotFoundError" not in ok.stderr

    # One fault of each kind: a page and a stylesheet that load from another host, a feed cut short,
    # and a published post whose page is gone (its URL is in urls.txt and redirected nowhere).
    post_pages = sorted((built / "blog").glob("20*/*/*/*/index.html"))  # blog/YYYY/MM/DD/slug/
    assert len(post_pages) >= 2
    page, lost = post_pages[0], post_pages[-1]
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</head>", '<script src="https://cdn.example.com/x.js"></script></head>', 1), encoding="utf-8")
    sheet = next((built / "assets" / "stylesheets").glob("*.css"))
    sheet.write_text("@import url(https://fonts.example.com/face.css);\n" + sheet.read_text(encoding="utf-8"),
                     encoding="utf-8")
    feed = built / "feed_rss_created.xml"
    feed.write_bytes(feed.read_bytes()[:2000])
    lost.unlink()

    bad = check_site(real_site, built)
    assert bad.returncode == 1, bad.stdout
    errors = bad.stderr
    assert errors.startswith(f"4 problems in the built site (paths relative to {built}):"), errors
    assert f"{page.relative_to(built).as_posix()}: line" in errors
    assert "loads https://cdn.example.com/x.js from another host" in errors
    assert f"{sheet.relative_to(built).as_posix()}: line 1" in errors
    assert "loads https://fonts.example.com/face.css from another host" in errors
    assert "feed_rss_created.xml: line" in errors and "is not well-formed XML" in errors
    lost_url = lost.parent.relative_to(built).as_posix() + "/"
    assert "urls.txt: line" in errors and lost_url in errors
    assert "Traceback" not in errors
