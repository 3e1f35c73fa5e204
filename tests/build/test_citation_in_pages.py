"""Every post ends with "Cite this post" (plain text and BibTeX) and carries the citation_* meta tags
scholarly indexers read; what the title holds reaches the page escaped, in each of them."""

from __future__ import annotations

from html.parser import HTMLParser

from support import Site, post

TITLE = 'Fusing `a_b` <b>tags</b> & "quotes"'


class Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("name") or "").startswith("citation_"):
            self.tags.append((a["name"] or "", a.get("content") or ""))


def test_a_post_says_how_to_cite_it_escaped_everywhere(site: Site) -> None:
    site.write_post("p.md", post(title=TITLE, slug="fusing"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    page = site.html("blog/2025/03/04/fusing")
    meta = Meta()
    meta.feed(page)
    plain_title = 'Fusing a_b <b>tags</b> & "quotes"'
    assert ("citation_title", plain_title) in meta.tags
    assert [name for name, _ in meta.tags] == ["citation_title", "citation_author", "citation_publication_date",
                                               "citation_publisher", "citation_fulltext_html_url"]
    assert '<h2 id="cite-title">Cite this post</h2>' in page
    assert "The Editors. “Fusing a_b &lt;b&gt;tags&lt;/b&gt; &amp; &#34;quotes&#34;.”" in page
    assert r"title = {{Fusing \texttt{a\_b} &lt;b&gt;tags&lt;/b&gt; \&amp; &#34;quotes&#34;}}" in page
    assert "<b>tags</b>" not in page  # never as markup
    # Listings do not cite, and the section is not indexed for search (mlblog/pages/search.py).
    assert "cite-title" not in site.html("blog")
