"""No published URL is lost: the rule (mlblog/publish/urls.py), in-process, with exact messages. The
wiring (real builds, `make urls`) is tests/build/test_published_urls.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlblog.publish import urls as published_urls
from mlblog.publish.urls import Listed, compare, read_manifest, served_urls

# ---------------------------------------------------------------------------------------------
# The rule, in-process
# ---------------------------------------------------------------------------------------------

GONE = "or `make urls` to accept that the URL is gone"


def listed(*urls: str) -> list[Listed]:
    return [Listed(n, url) for n, url in enumerate(urls, start=3)]


@pytest.mark.parametrize(("manifest", "built", "redirects", "pages", "problems", "new"), [
    pytest.param(  # a renamed slug: the one new page is suggested as the redirect target
        ("/", "/blog/2025/03/04/one/"), {"/", "/blog/2025/03/04/first/"}, {},
        {"/": "index.md", "/blog/2025/03/04/first/": "blog/posts/one.md"},
        ["urls.txt: line 4: /blog/2025/03/04/one/ was published, and this build neither builds nor redirects it. "
         "Accepted: a redirect in mkdocs.yml, plugins: redirects: redirect_maps: 'blog/2025/03/04/one/index.md': "
         f"'blog/posts/one.md', {GONE}"],
        ["/blog/2025/03/04/first/"], id="renamed-post"),
    pytest.param(  # a new page elsewhere is not taken for the successor
        ("/about/",), {"/blog/2026/01/02/other/"}, {}, {"/blog/2026/01/02/other/": "blog/posts/other.md"},
        ["urls.txt: line 3: /about/ was published, and this build neither builds nor redirects it. Accepted: a "
         f"redirect in mkdocs.yml, plugins: redirects: redirect_maps: 'about/index.md': "
         f"'<the page that replaces it>.md', {GONE}"],
        ["/blog/2026/01/02/other/"], id="no-successor-elsewhere"),
    pytest.param(  # two new pages: the one in the same folder is the likely successor
        ("/blog/2025/03/04/one/",), {"/blog/2025/03/04/first/", "/blog/2026/01/02/other/"}, {},
        {"/blog/2025/03/04/first/": "blog/posts/one.md", "/blog/2026/01/02/other/": "blog/posts/other.md"},
        ["urls.txt: line 3: /blog/2025/03/04/one/ was published, and this build neither builds nor redirects it. "
         "Accepted: a redirect in mkdocs.yml, plugins: redirects: redirect_maps: 'blog/2025/03/04/one/index.md': "
         f"'blog/posts/one.md', {GONE}"],
        ["/blog/2025/03/04/first/", "/blog/2026/01/02/other/"], id="successor-in-same-folder"),
    pytest.param(  # a renamed slug and a removed category: the new post replaces only the old post
        ("/blog/2025/03/04/one/", "/blog/category/llm-inference/"), {"/blog/2025/03/04/first/"}, {},
        {"/blog/2025/03/04/first/": "blog/posts/one.md"},
        ["urls.txt: line 3: /blog/2025/03/04/one/ was published, and this build neither builds nor redirects it. "
         "Accepted: a redirect in mkdocs.yml, plugins: redirects: redirect_maps: 'blog/2025/03/04/one/index.md': "
         f"'blog/posts/one.md', {GONE}",
         "urls.txt: line 4: /blog/category/llm-inference/ was published, and this build neither builds nor "
         "redirects it. Accepted: a redirect in mkdocs.yml, plugins: redirects: redirect_maps: "
         f"'blog/category/llm-inference/index.md': '<the page that replaces it>.md', {GONE}"],
        ["/blog/2025/03/04/first/"], id="two-lost-pages"),
    pytest.param(  # no likely successor: a placeholder names what the target is
        ("/blog/category/llm-inference/", "/blog/category/kernel/"), {"/blog/category/kernel/"}, {},
        {"/blog/category/kernel/": "blog/category/kernel.md"},
        ["urls.txt: line 3: /blog/category/llm-inference/ was published, and this build neither builds nor "
         "redirects it. Accepted: a redirect in mkdocs.yml, plugins: redirects: redirect_maps: "
         f"'blog/category/llm-inference/index.md': '<the page that replaces it>.md', {GONE}"],
        [], id="removed-category"),
    pytest.param(  # files are not pages: only building them again (or accepting the loss) helps
        ("/feed_rss_created.xml", "/404.html"), set(), {}, {},
        [f"urls.txt: line 3: /feed_rss_created.xml was published, and this build no longer writes it. Accepted: "
         f"build it again (only pages can be redirected), {GONE}",
         f"urls.txt: line 4: /404.html was published, and this build no longer writes it. Accepted: "
         f"build it again (only pages can be redirected), {GONE}"],
        [], id="lost-files"),
    pytest.param(  # a redirected post, and its card, which only the post's page named
        ("/blog/2025/03/04/one/", "/assets/cards/one.png"),
        {"/blog/2025/03/04/one/", "/blog/2025/03/04/first/", "/assets/cards/first.png"},
        {"/blog/2025/03/04/one/": "blog/posts/one.md"}, {"/blog/2025/03/04/first/": "blog/posts/one.md"},
        [], ["/assets/cards/first.png", "/blog/2025/03/04/first/"], id="redirected-post-and-card"),
    pytest.param(  # a card whose post is not redirected is lost with it
        ("/assets/cards/one.png",), {"/assets/cards/first.png"}, {}, {},
        [f"urls.txt: line 3: /assets/cards/one.png was published, and this build no longer writes it. Accepted: "
         f"build it again (only pages can be redirected), {GONE}"],
        ["/assets/cards/first.png"], id="lost-card"),
    pytest.param(  # a redirect to a page that does not exist writes no page (mkdocs-redirects warns)
        ("/old/",), set(), {"/old/": "gone.md"}, {},
        ["urls.txt: line 3: /old/ was published, and its redirect in mkdocs.yml points to 'gone.md', which is not "
         "a page of this build. Accepted: a redirect_maps target that is a page's source file relative to docs/ "
         f"(e.g. 'blog/posts/my-post.md') or a full https:// URL, {GONE}"],
        [], id="redirect-to-nothing"),
])
def test_compare(manifest: tuple[str, ...], built: set[str], redirects: dict[str, str], pages: dict[str, str],
                 problems: list[str], new: list[str]) -> None:
    assert compare(listed(*manifest), built, redirects, pages) == (problems, new)


def test_lost_and_new_urls_are_reported_in_one_message_each() -> None:
    problems, new = compare(listed("/a/", "/b.xml"), {"/c/", "/d.png"}, {}, {})
    assert published_urls.format_lost(problems).splitlines() == [
        "2 published URLs disappeared (urls.txt lists every URL the site has published):",
        f"  - {problems[0]}", f"  - {problems[1]}",
    ]
    assert published_urls.format_new(new) == (
        "urls.txt: 2 URLs are built but not listed: /c/, /d.png. Accepted: run `make urls` and commit urls.txt, "
        "so that the build keeps them from now on")


def test_served_urls_are_pages_and_the_public_files(tmp_path: Path) -> None:
    public = ["index.html", "404.html", "about/index.html", "blog/page/2/index.html",
              "blog/posts/p/explorer.html", "feed_rss_created.xml", "feed_json_updated.json", "sitemap.xml",
              "sitemap.xml.gz", "robots.txt", "CNAME", "assets/cards/one.png"]
    private = ["assets/javascripts/bundle.js", "assets/vendor/katex/x.html", "pagefind/pagefind-entry.json",
               "tags.json", "rss.xsl", "blog/p/map.svg", "blog/feed_rss_created.xml", "assets/cards/x/y.png"]
    for path in public + private:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x", encoding="utf-8")
    assert served_urls(tmp_path) == {
        "/", "/404.html", "/about/", "/blog/page/2/", "/blog/posts/p/explorer.html", "/feed_rss_created.xml",
        "/feed_json_updated.json", "/sitemap.xml", "/sitemap.xml.gz", "/robots.txt", "/CNAME",
        "/assets/cards/one.png"}


def test_manifest_is_sorted_paths_after_a_comment_and_reads_back_with_line_numbers() -> None:
    text = published_urls.format_manifest(["/b/", "/", "/a.xml", "/b/"])
    assert text.splitlines()[2:] == ["/", "/a.xml", "/b/"]
    assert all(line.startswith("# ") for line in text.splitlines()[:2])
    assert read_manifest(text) == [Listed(3, "/"), Listed(4, "/a.xml"), Listed(5, "/b/")]


def test_redirect_keys_map_to_the_urls_they_serve() -> None:
    assert published_urls.redirect_urls({"blog/2025/03/04/one/index.md": "blog/posts/one.md",
                                         "old.md": "https://example.org/", "index.md": "blog/index.md"}) == {
        "/blog/2025/03/04/one/": "blog/posts/one.md", "/old/": "https://example.org/", "/": "blog/index.md"}
    assert published_urls.redirect_key("/blog/2025/03/04/one/") == "blog/2025/03/04/one/index.md"
    assert published_urls.redirect_key("/") == "index.md"


