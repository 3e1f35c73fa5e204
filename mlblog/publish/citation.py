"""How to cite a post: a BibTeX entry, a plain citation, and the ``citation_*`` meta tags scholarly
indexers read (Highwire Press tags, as Google Scholar documents them), all from the post's record.

A title may hold inline code in backticks (``torch.compile``, read by posts/titles.py): BibTeX gets
``\\texttt{...}``, plain text gets the code's text. Every BibTeX special character is escaped
(``_ & % # $ { } ~ ^ \\``), the title is double-braced so BibTeX keeps its capitals, and a corporate
author is braced as one name. What reaches HTML is escaped there, by the template.
"""

from __future__ import annotations

from urllib.parse import urljoin

from ..posts.schema import Post
from ..posts.titles import CODE

BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&", "%": r"\%",
                  "#": r"\#", "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def bibtex_text(text: str) -> str:
    return "".join(BIBTEX_SPECIAL.get(ch, ch) for ch in text)


def bibtex_title(title: str) -> str:
    """The title for BibTeX: code in \\texttt, everything else escaped."""
    parts = CODE.split(title)  # text, code, text, ..., text
    return "".join(rf"\texttt{{{bibtex_text(p)}}}" if i % 2 else bibtex_text(p) for i, p in enumerate(parts))


def bibtex(post: Post, site_url: str, site_name: str) -> str:
    names = " and ".join("{" + bibtex_text(a.name) + "}" for a in post.authors) or "{" + bibtex_text(site_name) + "}"
    fields = [("author", names), ("title", "{" + bibtex_title(post.title) + "}"),
              ("howpublished", bibtex_text(site_name)), ("year", str(post.created.year))]
    lines = [f"@misc{{{post.slug}-{post.created.year},"] + [f"  {name} = {{{value}}}," for name, value in fields]
    lines.append(f"  month = {MONTHS[post.created.month - 1]},")
    lines.append(f"  url = {{{urljoin(site_url, post.url)}}},")
    if post.updated is not None and post.updated.date() != post.created.date():
        lines.append(f"  note = {{Updated {post.updated:%Y-%m-%d}}},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines + ["}"])


def _day(when: object) -> str:
    return f"{when:%B} {when.day}, {when.year}"  # type: ignore[attr-defined]


def plain(post: Post, site_url: str, site_name: str) -> str:
    authors = ", ".join(a.name for a in post.authors) or site_name
    updated = (f" (updated {_day(post.updated)})" if post.updated is not None
               and post.updated.date() != post.created.date() else "")
    return (f"{authors}. “{post.title_text}.” {site_name}, {_day(post.created)}{updated}. "
            f"{urljoin(site_url, post.url)}")


def meta_tags(post: Post, site_url: str, site_name: str) -> list[tuple[str, str]]:
    """(name, content) of each citation_* meta tag, plain text."""
    return [("citation_title", post.title_text), *(("citation_author", a.name) for a in post.authors),
            ("citation_publication_date", f"{post.created:%Y/%m/%d}"), ("citation_publisher", site_name),
            ("citation_fulltext_html_url", urljoin(site_url, post.url))]
