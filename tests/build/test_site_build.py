"""The real site and fixture sites build strictly and list posts where readers expect them."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from pathlib import Path

from conftest import FIXTURE_POSTS
from support import Site, listed_titles, make_site, post, text_of

from mlblog.posts import CATEGORIES


def test_real_site_builds_strictly(real_site: Site) -> None:
    # Built by conftest from a folder outside the site, strictly, with no warning.
    out = real_site.site_dir
    assert (out / "index.html").is_file()
    assert (out / "blog" / "index.html").is_file()
    assert (out / "404.html").is_file()
    assert (out / "about" / "index.html").is_file()


def test_site_with_zero_posts_builds_and_says_so(site: Site) -> None:
    result = site.build()
    assert result.returncode == 0, result.stderr
    front = text_of(site.html("blog"))
    assert "No posts have been published yet" in front
    assert listed_titles(site.html("blog")) == []


def test_home_page_forwards_to_the_post_list(built_fixture_site: Site) -> None:
    home = built_fixture_site.html("")
    assert re.search(r'<meta http-equiv="refresh" content="0; url=blog/">', home)
    assert 'href="blog/"' in home


def test_front_page_lists_posts_newest_first_with_summaries(built_fixture_site: Site) -> None:
    html = built_fixture_site.html("blog")
    by_date = sorted(FIXTURE_POSTS.values(), key=lambda p: p[2], reverse=True)
    assert listed_titles(html) == [p[0] for p in by_date]
    text = text_of(html)
    for _title, _slug, _date, cats, desc in by_date:
        assert desc in text
        for cat in cats:
            assert cat in text
    # Dates shown in long form, and machine-readable.
    assert "April 27, 2026" in text and 'datetime="2026-04-27T00:00:00+00:00"' in html


def test_post_urls_are_date_plus_slug(built_fixture_site: Site) -> None:
    for title, slug, date, _cats, _desc in FIXTURE_POSTS.values():
        y, m, d = date.split("-")
        page = built_fixture_site.html(f"blog/{y}/{m}/{d}/{slug}")
        assert f"<h1>{title}</h1>" in page


def test_archive_pages_list_exactly_the_posts_of_their_year(built_fixture_site: Site) -> None:
    for year in ("2025", "2026"):
        html = built_fixture_site.html(f"blog/archive/{year}")
        expected = sorted((p for p in FIXTURE_POSTS.values() if p[2].startswith(year)),
                          key=lambda p: p[2], reverse=True)
        assert listed_titles(html) == [p[0] for p in expected]
    assert not (built_fixture_site.site_dir / "blog" / "archive" / "2024").exists()


def test_category_pages_list_exactly_their_posts(built_fixture_site: Site) -> None:
    category_dir = built_fixture_site.site_dir / "blog" / "category"
    built = {p.name for p in category_dir.iterdir() if p.is_dir()}  # index.html lists them all
    used = {c for p in FIXTURE_POSTS.values() for c in p[3]}
    slugs = {c: re.sub(r"[^a-z0-9]+", "-", c.lower()).strip("-") for c in used}
    assert built == set(slugs.values())
    for cat, slug in slugs.items():
        html = built_fixture_site.html(f"blog/category/{slug}")
        expected = sorted((p for p in FIXTURE_POSTS.values() if cat in p[3]), key=lambda p: p[2], reverse=True)
        assert listed_titles(html) == [p[0] for p in expected], cat
    assert used <= set(CATEGORIES)


def test_author_profile_lists_their_posts(built_fixture_site: Site) -> None:
    html = built_fixture_site.html("blog/author/editors")
    assert len(listed_titles(html)) == len(FIXTURE_POSTS)


def test_pagination_splits_long_lists(site: Site) -> None:
    for i in range(12):
        site.write_post(f"p{i}.md", post(title=f"Numbered post {i:02d}", slug=f"numbered-post-{i}",
                                         date=f"2025-01-{i + 1:02d}"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    first = listed_titles(site.html("blog"))
    second = listed_titles(site.html("blog/page/2"))
    assert len(first) == 10 and len(second) == 2
    assert first[0] == "Numbered post 11" and second[-1] == "Numbered post 00"


def test_reading_time_ignores_code_blocks(site: Site) -> None:
    prose = " ".join(["word"] * 500)  # ~500 words at 265 wpm: 2 minutes (the code alone would be 30+)
    code = "\n".join(f"x_{i} = {i}  # a long listing that must not count" for i in range(800))
    body = f"Opening.\n\n<!-- more -->\n\n{prose}\n\n```python\n{code}\n```\n"
    site.write_post("long.md", post(body=body))
    result = site.build()
    assert result.returncode == 0, result.stderr
    page = text_of(site.html("blog/2025/03/04/a-fixture-post"))
    assert "2 min read" in page


def revision_date(html: str) -> str:
    """The date of the "Last update" line in the page's source-file footer, checked against its datetime."""
    match = re.search(r'<aside class="md-source-file">.*?<time class="last-update" datetime="([^"]+)">([^<]+)</time>',
                      html, re.S)
    assert match, "no revision date on the page"
    day = dt.date.fromisoformat(match.group(1))
    assert match.group(2) == f"{day:%B} {day.day}, {day.year}"
    return match.group(2)


def commit(repo: Path, message: str, when: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-qm", message], check=True, env=env)


def test_last_updated_date_comes_from_the_last_commit(tmp_path: Path) -> None:
    src = make_site(tmp_path / "origin")
    src.write_post("p.md", post())
    subprocess.run(["git", "init", "-q", str(src.root)], check=True)
    commit(src.root, "one", "2024-02-03T12:00:00+00:00")
    (src.docs / "about.md").write_text("---\ntitle: About\n---\n\n# About\n\nChanged.\n", encoding="utf-8")
    commit(src.root, "two", "2024-05-06T12:00:00+00:00")
    assert src.build().returncode == 0
    assert revision_date(src.html("blog/2025/03/04/a-fixture-post")) == "February 3, 2024"
    assert revision_date(src.html("about")) == "May 6, 2024"
    # The category index changes with every post, not with its text: the plugin's `no_last_update`
    # leaves it without a "Last update" line, which it has once the setting leaves it out.
    assert "last-update" not in src.html("blog/category")
    src.configure(no_last_update=[])
    assert src.build().returncode == 0
    assert revision_date(src.html("blog/category")) == "February 3, 2024"
    # A shallow clone (a CI checkout) has only the last commit: the build still succeeds, and the
    # page changed in that commit gets its true date.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{src.root}", str(clone)], check=True)
    result = Site(clone).build()
    assert result.returncode == 0, result.stderr
    assert revision_date(Site(clone).html("about")) == "May 6, 2024"


def test_last_updated_date_of_an_uncommitted_file_is_the_build_date(site: Site) -> None:
    # The fixture site is not even a git repository: the date falls back to the build date, which is
    # SOURCE_DATE_EPOCH when set (the Makefile sets the last commit's time), else the clock.
    site.write_post("p.md", post())
    result = site.build()
    assert result.returncode == 0, result.stderr
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    today = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else dt.datetime.now(dt.UTC)
    assert revision_date(site.html("blog/2025/03/04/a-fixture-post")) == f"{today:%B} {today.day}, {today.year}"


def test_built_pages_load_nothing_from_other_hosts(built_fixture_site: Site) -> None:
    offenders = []
    for page in built_fixture_site.site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for tag, attr, url in re.findall(r"<(script|link|img|iframe|source)\b[^>]*?\b(src|href)=\"([^\"]+)\"", html):
            if tag == "link" and re.search(r'rel="(canonical|alternate|prev|next|author)"',
                                           html[html.find(url) - 200: html.find(url) + 50]):
                continue
            if re.match(r"^(https?:)?//", url):
                offenders.append(f"{page.relative_to(built_fixture_site.site_dir)}: <{tag} {attr}={url}>")
    assert offenders == []
    css = "\n".join(p.read_text(encoding="utf-8") for p in built_fixture_site.site_dir.rglob("*.css"))
    assert "fonts.googleapis" not in css and "@import url(http" not in css


def test_about_and_404_pages(built_fixture_site: Site) -> None:
    assert "Pinned sources" in text_of(built_fixture_site.html("about"))
    not_found = text_of(built_fixture_site.html("404.html"))
    assert "Page not found" in not_found


def test_post_page_has_permalinks_and_toc(site: Site) -> None:
    body = ("Opening.\n\n<!-- more -->\n\n## First section\n\nText.\n\n"
            "```python\nprint('hi')\n```\n\n## Second\n\nMore.\n")
    site.write_post("p.md", post(body=body))
    assert site.build().returncode == 0
    page = site.html("blog/2025/03/04/a-fixture-post")
    assert '<a class="headerlink" href="#first-section" title="Permanent link">' in page
    toc_nav = r'<nav class="md-nav md-nav--secondary" aria-label="Contents">(.*?)</nav>'  # mkdocs.yml: toc title
    toc = re.search(toc_nav, page, re.DOTALL)
    assert toc and "First section" in toc.group(1) and "Second" in toc.group(1)
