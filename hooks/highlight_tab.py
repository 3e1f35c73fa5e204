"""Which navigation tab a page belongs to, so the tab bar highlights it on every page.

Material highlights a tab only when the page is in the nav. The blog plugin's category and year
pages are not (the tabs hold the two index pages), so on /blog/category/kernel/ no tab was lit.
The tab is the one whose URL is the longest prefix of the page's URL: posts and the front page
fall under Posts (blog/), category pages under Categories (blog/category/), year pages under
Archive. overrides/partials/tabs-item.html reads ``tab_url``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page


def tab_urls(nav: Navigation) -> list[str]:
    """The URL each top-level tab links to (a section's first page, as Material's tabs do)."""
    urls = []
    for item in nav.items:
        while getattr(item, "children", None):
            item = item.children[0]
        if getattr(item, "url", None) is not None:
            urls.append(item.url)
    return urls


def tab_of(page_url: str, urls: list[str]) -> str | None:
    matches = [url for url in urls if page_url.startswith(url)]
    return max(matches, key=len) if matches else None


def on_page_context(context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation
                    ) -> dict[str, Any]:
    context["tab_url"] = tab_of(page.url, tab_urls(nav))
    return context
