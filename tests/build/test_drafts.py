"""A draft is invisible wherever a reader could see it: its page, listings, feeds, sitemap, series
box, related posts, cards, JSON-LD and search. ``mkdocs serve`` shows drafts to their author."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import Site, make_site, post, search_fragments

SECRET = "Zqxdraftword"


@pytest.fixture(scope="module")
def drafts_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    site = make_site(tmp_path_factory.mktemp("drafts") / "src")
    site.write_post("one.md", post(title="Visible part one", slug="visible-one", categories=("Kernel",),
                                   extra="series: {name: Drafted, part: 1}\nrelated: [hidden-draft]\n"))
    site.write_post("two.md", post(title=f"{SECRET} title", slug="hidden-draft", date="2025-04-01",
                                   categories=("Communication",),
                                   description=f"A draft whose words ({SECRET}) must appear in no published file.",
                                   extra="series: {name: Drafted, part: 2}\ndraft: true\n",
                                   body=f"{SECRET} opening.\n\n<!-- more -->\n\n## Body\n\n{SECRET}.\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    return site


def test_no_published_file_mentions_the_draft(drafts_site: Site) -> None:
    leaks = []
    for path in drafts_site.site_dir.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".xml", ".json", ".txt"}:
            text = path.read_text(encoding="utf-8")
            if SECRET in text or "hidden-draft" in text:
                leaks.append(path.relative_to(drafts_site.site_dir).as_posix())
    assert leaks == []


def test_the_draft_has_no_page_card_or_category(drafts_site: Site) -> None:
    site = drafts_site.site_dir
    assert not (site / "blog" / "2025" / "04" / "01" / "hidden-draft").exists()
    assert not (site / "assets" / "cards" / "hidden-draft.png").exists()
    assert (site / "assets" / "cards" / "visible-one.png").is_file()
    assert not (site / "blog" / "category" / "communication").exists()


def test_the_published_part_links_to_no_draft(drafts_site: Site) -> None:
    page = drafts_site.html("blog/2025/03/04/visible-one")
    assert "Part 1 of the series “Drafted”" in page
    assert "Part 1 of 2" not in page
    assert 'class="related-posts"' not in page  # its only related post is the draft


def test_search_never_indexes_a_draft_even_where_it_is_shown(tmp_path: Path) -> None:
    """`mkdocs serve` shows drafts to their author (the blog plugin's `draft: true` does the same in
    a build): the page is there, but the plugin leaves it out of the search index."""
    site = make_site(tmp_path / "src")
    config = site.root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("      blog_dir: blog\n", "      blog_dir: blog\n      draft: true\n", 1),
                      encoding="utf-8")
    site.write_post("one.md", post(title="Visible part one", slug="visible-one"))
    site.write_post("two.md", post(title=f"{SECRET} title", slug="hidden-draft", date="2025-04-01",
                                   extra="draft: true\n", body=f"{SECRET} opening.\n\n<!-- more -->\n\n{SECRET}.\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    assert SECRET in site.html("blog/2025/04/01/hidden-draft")  # shown, as `mkdocs serve` shows it
    assert "data-pagefind-body" not in site.html("blog/2025/04/01/hidden-draft")
    assert [f["url"] for f in search_fragments(site.site_dir)] == ["/blog/2025/03/04/visible-one/"]
    # The author sees it is a draft, and no "Last update" older than its date.
    draft, published = site.html("blog/2025/04/01/hidden-draft"), site.html("blog/2025/03/04/visible-one")
    assert '<li class="byline__item"><span class="md-draft">Draft</span></li>' in draft
    assert "md-draft" not in published
    assert "md-source-file" not in draft and "md-source-file" in published
