"""How to cite a post: BibTeX, a plain citation and citation_* meta tags, from the post's record, with
every BibTeX special character escaped and inline code set in \\texttt."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from support import ROOT, post

from mlblog.posts import check_all
from mlblog.publish import citation

TITLE = "Inside `torch._dynamo`: 50% & {braces} #1 $x ~y ^z \\ done"
SITE = "https://example.org/"


def record(tmp_path: Path, **fields: str):
    docs = tmp_path / "docs"
    (docs / "blog" / "posts").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "blog" / ".authors.yml", docs / "blog" / ".authors.yml")
    (docs / "blog" / "posts" / "p.md").write_text(post(**fields), encoding="utf-8")
    posts, problems = check_all(docs, snippet_bases=[ROOT], today=dt.date(2026, 12, 1))
    assert problems == [] and len(posts) == 1, problems
    return posts[0]


def test_bibtex_escapes_every_special_character_and_sets_code_in_texttt(tmp_path: Path) -> None:
    p = record(tmp_path, title=TITLE, slug="inside-dynamo")
    assert p.title == TITLE
    entry = citation.bibtex(p, SITE, "Deep Dives & Co")
    assert entry.splitlines() == [
        "@misc{inside-dynamo-2025,",
        "  author = {{The Editors}},",
        r"  title = {{Inside \texttt{torch.\_dynamo}: 50\% \& \{braces\} \#1 \$x \textasciitilde{}y "
        r"\textasciicircum{}z \textbackslash{} done}},",
        r"  howpublished = {Deep Dives \& Co},",
        "  year = {2025},",
        "  month = mar,",
        "  url = {https://example.org/blog/2025/03/04/inside-dynamo/}",
        "}"]


def test_plain_citation_and_meta_tags_are_plain_text(tmp_path: Path) -> None:
    p = record(tmp_path, title="Reading `torch.compile`", slug="reading")
    assert citation.plain(p, SITE, "Deep Dives") == (
        "The Editors. “Reading torch.compile.” Deep Dives, March 4, 2025. "
        "https://example.org/blog/2025/03/04/reading/")
    assert citation.meta_tags(p, SITE, "Deep Dives") == [
        ("citation_title", "Reading torch.compile"), ("citation_author", "The Editors"),
        ("citation_publication_date", "2025/03/04"), ("citation_publisher", "Deep Dives"),
        ("citation_fulltext_html_url", "https://example.org/blog/2025/03/04/reading/")]


def test_an_updated_post_says_when(tmp_path: Path) -> None:
    p = record(tmp_path, slug="later", date="{created: 2025-03-04, updated: 2025-06-01}")
    assert citation.bibtex(p, SITE, "D").splitlines()[-2] == "  note = {Updated 2025-06-01}"
    assert citation.plain(p, SITE, "D").endswith("March 4, 2025 (updated June 1, 2025). "
                                                   "https://example.org/blog/2025/03/04/later/")
