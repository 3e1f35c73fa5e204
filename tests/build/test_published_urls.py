"""No published URL is lost, through real builds of a fixture site with its own manifest: a renamed
slug without and with a redirect, a removed category, and the manifest rewritten by `make urls`'s
command; the real site is compared with the committed urls.txt. The rule itself:
tests/unit/test_published_urls_rule.py.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import urljoin

import pytest
from support import ROOT, Site, make_site, post

from mlblog.publish.urls import Listed, read_manifest, served_urls

GONE = "or `make urls` to accept that the URL is gone"


# ---------------------------------------------------------------------------------------------
# The wiring: real builds of a fixture site with its own urls.txt
# ---------------------------------------------------------------------------------------------

ONE = dict(slug="one", title="The first post", date="2025-03-04", categories=("Kernel",))
TWO = dict(slug="two", title="The second post", date="2025-04-01", categories=("LLM Inference",))
REDIRECT = "      redirect_maps:\n        'blog/2025/03/04/one/index.md': 'blog/posts/one.md'\n"


def write_posts(site: Site, one: dict[str, object] = ONE, two: dict[str, object] = TWO) -> None:
    site.write_post("one.md", post(**one))  # type: ignore[arg-type]
    site.write_post("two.md", post(**two))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The urls.txt that `make urls`'s command writes for the two fixture posts."""
    site = make_site(tmp_path_factory.mktemp("urls") / "src")
    write_posts(site)
    result = site.write_url_manifest()
    assert result.returncode == 0, result.stderr
    assert "wrote urls.txt:" in result.stdout
    return (site.root / "urls.txt").read_text(encoding="utf-8")


def manifested(tmp_path: Path, manifest: str, **changes: dict[str, object]) -> Site:
    site = make_site(tmp_path / "src")
    write_posts(site, **changes)
    (site.root / "urls.txt").write_text(manifest, encoding="utf-8")
    return site


def line_of(manifest: str, url: str) -> int:
    return manifest.splitlines().index(url) + 1


def problem_lines(stderr: str) -> list[str]:
    return [line.strip() for line in stderr.splitlines() if line.strip().startswith("- urls.txt:")]


def test_fixture_manifest_lists_every_public_url(manifest: str) -> None:
    assert set(read_manifest(manifest)) >= {
        Listed(line_of(manifest, url), url) for url in (
            "/", "/404.html", "/about/", "/blog/", "/blog/2025/03/04/one/", "/blog/2025/04/01/two/",
            "/blog/archive/2025/", "/blog/author/editors/", "/blog/category/kernel/",
            "/blog/category/llm-inference/", "/assets/cards/one.png", "/assets/cards/site.png",
            "/feed_rss_created.xml", "/feed_json_created.json", "/sitemap.xml", "/robots.txt")}


def test_renamed_slug_without_a_redirect_fails_naming_the_old_url(tmp_path: Path, manifest: str) -> None:
    site = manifested(tmp_path, manifest, one={**ONE, "slug": "first"})
    result = site.build()
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "2 published URLs disappeared (urls.txt lists every URL the site has published):" in result.stderr
    assert problem_lines(result.stderr) == [
        f"- urls.txt: line {line_of(manifest, '/assets/cards/one.png')}: /assets/cards/one.png was published, and "
        f"this build no longer writes it. Accepted: build it again (only pages can be redirected), {GONE}",
        f"- urls.txt: line {line_of(manifest, '/blog/2025/03/04/one/')}: /blog/2025/03/04/one/ was published, and "
        "this build neither builds nor redirects it. Accepted: a redirect in mkdocs.yml, plugins: redirects: "
        f"redirect_maps: 'blog/2025/03/04/one/index.md': 'blog/posts/one.md', {GONE}",
    ]


def test_renamed_slug_with_a_redirect_keeps_the_old_url(tmp_path: Path, manifest: str) -> None:
    site = manifested(tmp_path, manifest, one={**ONE, "slug": "first"})
    config = site.root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("      redirect_maps: {}\n", REDIRECT),
                      encoding="utf-8")

    # Nothing is lost; the new URLs are what the strict build still asks about.
    before = site.build()
    assert "disappeared" not in before.stderr, before.stderr
    assert ("urls.txt: 2 URLs are built but not listed: /assets/cards/first.png, /blog/2025/03/04/first/. "
            "Accepted: run `make urls` and commit urls.txt") in before.stderr
    assert before.returncode != 0  # --strict counts that warning

    # `make urls` adds them; the old URL stays listed, now served by its redirect page.
    written = site.write_url_manifest()
    assert written.returncode == 0, written.stderr
    assert written.stdout.splitlines()[1:] == [
        "  + /assets/cards/first.png", "  + /blog/2025/03/04/first/",
        "  - /assets/cards/one.png (no longer published: links to it will break)"]
    urls = {item.url for item in read_manifest((site.root / "urls.txt").read_text(encoding="utf-8"))}
    assert {"/blog/2025/03/04/one/", "/blog/2025/03/04/first/"} <= urls

    after = site.build()
    assert after.returncode == 0, after.stderr
    page = site.html("blog/2025/03/04/one/")
    target = re.search(r'<meta http-equiv="refresh" content="0; url=([^"]+)">', page)
    assert target is not None, page
    assert urljoin("/blog/2025/03/04/one/", target.group(1)) == "/blog/2025/03/04/first/"
    assert "The first post" in site.html("blog/2025/03/04/first/")


def test_removed_category_names_its_page(tmp_path: Path, manifest: str) -> None:
    site = manifested(tmp_path, manifest, two={**TWO, "categories": ("Kernel",)})
    result = site.build()
    assert result.returncode != 0
    assert problem_lines(result.stderr) == [
        f"- urls.txt: line {line_of(manifest, '/blog/category/llm-inference/')}: /blog/category/llm-inference/ was "
        "published, and this build neither builds nor redirects it. Accepted: a redirect in mkdocs.yml, plugins: "
        "redirects: redirect_maps: 'blog/category/llm-inference/index.md': '<the page that replaces it>.md', "
        f"{GONE}",
    ]


def test_make_urls_writes_nothing_from_a_failed_build(tmp_path: Path, manifest: str) -> None:
    site = manifested(tmp_path, manifest, two={**TWO, "categories": ("Kernels",)})
    result = site.write_url_manifest()
    assert result.returncode == 1
    assert "Did you mean 'Kernel'?" in result.stderr
    assert "The site did not build, so urls.txt is unchanged." in result.stderr
    assert (site.root / "urls.txt").read_text(encoding="utf-8") == manifest


def test_make_urls_runs_the_manifest_command() -> None:
    dry = subprocess.run(["make", "-n", "urls"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "-m mlblog urls" in dry.stdout, dry.stdout + dry.stderr


# ---------------------------------------------------------------------------------------------
# The real site
# ---------------------------------------------------------------------------------------------


def test_real_site_serves_exactly_the_committed_manifest(real_site: Site) -> None:
    """The real build ran the check against the committed urls.txt (make_site copies it for the real
    site); this says precisely what differs. After merging posts, run `make urls` and commit urls.txt."""
    committed = {item.url for item in read_manifest((ROOT / "urls.txt").read_text(encoding="utf-8"))}
    built = served_urls(real_site.site_dir)
    assert (sorted(committed - built), sorted(built - committed)) == ([], []), \
        "urls.txt differs from the real site (lost, new): run `make urls` and commit urls.txt"
