"""The site reads as a publication: masthead, bylines, index pages, footer, readable figures.

Built-HTML checks run in the fast loop; the browser tests (marked ``browser``) drive headless
Chromium at a desk width (1280 px) and a phone width (390 px), in both palettes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from browser import axe_violations, new_page, serve, switch_palette
from playwright.sync_api import Browser, Page, expect
from support import Site, head_links, listed_titles, make_site, post, post_urls, text_of

SITE_NAME = "ML Systems Deep Dives"
TWO = "blog/2025/09/01/compilers-two/"  # part 2 of 2, updated, with a wide figure (reader_fixtures)
ONE = "blog/2025/08/07/compilers-one/"
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


def section(html: str, pattern: str) -> str:
    match = re.search(pattern, html, re.DOTALL)
    assert match, pattern
    return match.group(0)


# --- the built HTML ------------------------------------------------------------------------------


def test_every_page_announces_both_feeds_to_browsers_and_feed_readers(reader_site: Site) -> None:
    """Feed discovery reads rel as a set of tokens; Material's lookup of other-language versions of
    the site matches link[rel=alternate] exactly and would fetch sitemap.xml for each feed link
    (tests/browser/test_page_budgets.py counts the fetches), so the value is "alternate " (overrides/main.html)."""
    for url in ("blog", ONE, "about"):
        feeds = {link["type"]: link for link in head_links(reader_site.html(url))
                 if "alternate" in link.get("rel", "").split()}
        assert sorted(feeds) == ["application/feed+json", "application/rss+xml"], (url, feeds)
        for kind, name in (("application/rss+xml", "feed_rss_created.xml"),
                           ("application/feed+json", "feed_json_created.json")):
            assert feeds[kind]["href"].endswith(name) and (reader_site.site_dir / name).is_file()
            assert feeds[kind]["rel"] != "alternate", "Material would fetch sitemap.xml for this link"
            assert feeds[kind]["title"].startswith(SITE_NAME)


def test_front_page_has_a_masthead_subscribe_links_and_browse_lists(reader_site: Site) -> None:
    html = reader_site.html("blog")
    masthead = section(html, r'<header class="md-typeset masthead">.*?</header>')
    assert re.search(rf"<h1[^>]*>{SITE_NAME}", masthead)
    assert "traced line by line" in text_of(masthead)  # the one-line promise from docs/blog/index.md
    assert 'href="../feed_rss_created.xml">RSS</a>' in masthead
    assert 'href="../feed_json_created.json">JSON Feed</a>' in masthead
    browse = text_of(section(html, r'<aside class="front__browse.*?</aside>'))
    # Counts from the fixture posts: 6 in Kernel (the default), 2 in torch.compile; 7 in 2025.
    assert "Kernel 5 posts" in browse and "torch.compile 2 posts" in browse
    assert "By year 2025 7 posts" in browse
    assert '<a href="category/torchcompile/">torch.compile</a>' in html
    assert '<a href="archive/2025/">2025</a>' in html
    # Newest first, each card with its byline and summary.
    assert listed_titles(html)[:2] == ["Compilers, part two", "Compilers, part one"]
    card = text_of(section(html, r'aria-labelledby="post-compilers-two">.*?</article>'))
    assert "By The Editors · " not in card  # separators are CSS, not text
    for part in ("By The Editors", "September 1, 2025", "Updated October 15, 2025", "1 min read",
                 "In torch.compile", "updated after it was first published"):
        assert part in card, part


def test_no_tab_title_repeats_the_site_name(reader_site: Site) -> None:
    titles = {}
    for page in reader_site.site_dir.rglob("*.html"):
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.DOTALL)
        if title:
            titles[page.relative_to(reader_site.site_dir).as_posix()] = title.group(1)
    assert all(t.count(SITE_NAME) == 1 for t in titles.values()), titles
    assert titles["blog/index.html"] == SITE_NAME
    assert titles["blog/category/index.html"] == f"Categories - {SITE_NAME}"
    assert titles[TWO + "index.html"] == f"Compilers, part two - {SITE_NAME}"


def test_category_index_lists_every_category_with_its_posts(reader_site: Site) -> None:
    html = reader_site.html("blog/category")
    sections = re.findall(r'<section class="browse-index".*?</section>', html, re.DOTALL)
    listed = {text_of(re.search(r"<h2.*?</h2>", s, re.DOTALL).group(0)): s for s in sections}
    assert list(listed) == ["Kernel 5 posts", "torch.compile 2 posts"]
    compile_section = listed["torch.compile 2 posts"]
    assert '<a href="torchcompile/">torch.compile</a>' in compile_section
    assert re.findall(r'<li>\s*<a href="[^"]*">([^<]*)</a>', compile_section) == [
        "Compilers, part two", "Compilers, part one"]


def test_category_and_year_pages_link_back_to_their_index(reader_site: Site) -> None:
    kernel = reader_site.html("blog/category/kernel")
    assert re.search(r'<p class="listing__intro">\s*Newest first.\s*<a href="../">All categories</a>', kernel)
    year = reader_site.html("blog/archive/2025")
    assert re.search(r'<p class="listing__intro">\s*Newest first.\s*<a href="../">All years</a>', year)
    assert "listing__intro" not in reader_site.html("blog")


def active_tab(html: str) -> list[str]:
    """The header's section links marked as the page's own (aria-current)."""
    sections = section(html, r'<nav class="site-header__sections".*?</nav>')
    return [text_of(m) for m in re.findall(r'<a [^>]*aria-current="(?:page|true)"[^>]*>.*?</a>', sections, re.DOTALL)]


def test_every_page_lights_its_own_tab(reader_site: Site) -> None:
    post_page = next(p for p in reader_site.site_dir.glob("blog/20*/*/*/*/index.html"))
    pages = {"blog": "Posts", "blog/category": "Categories", "blog/category/kernel": "Categories",
             "blog/archive": "Archive", "blog/archive/2025": "Archive", "about": "About",
             post_page.parent.relative_to(reader_site.site_dir).as_posix(): "Posts"}
    assert {path: active_tab(reader_site.html(path)) for path in pages} == {p: [t] for p, t in pages.items()}


def test_archive_index_lists_every_year_with_its_posts(tmp_path) -> None:
    site = make_site(tmp_path / "src")
    for slug, date in (("old-one", "2024-03-01"), ("new-one", "2025-06-01"), ("new-two", "2025-07-01")):
        site.write_post(f"{slug}.md", post(title=slug.replace("-", " ").title(), slug=slug, date=date,
                                           extra="draft: false\n"))
    site.write_post("draft.md", post(title="A Draft", slug="a-draft", date="2025-08-01", extra="draft: true\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    html = site.html("blog/archive")
    text = text_of(section(html, r'<article class="md-content__inner md-typeset">.*?</article>'))
    assert re.search(r"2025 2 posts New Two July 1, 2025 New One June 1, 2025 2024 1 post Old One", text), text
    assert "A Draft" not in html  # drafts are invisible here too
    assert '<a href="../archive/2024/">2024</a>' in html or '<a href="2024/">2024</a>' in html
    # The front page's browse list agrees, and a category index exists even with one category.
    assert "By year 2025 2 posts 2024 1 post" in text_of(site.html("blog"))
    assert "Kernel 3 posts" in text_of(site.html("blog/category"))


def test_post_byline_sits_under_the_title(reader_site: Site) -> None:
    html = reader_site.html(TWO)
    byline = section(html, r'<ul class="byline">.*?</ul>')
    text = text_of(byline)
    assert text == ("By The Editors Published September 1, 2025 Updated October 15, 2025 1 min read "
                    "In torch.compile Part 2 of 2 in “Compiler fixtures”")
    assert '<time datetime="2025-10-15T00:00:00+00:00">' in byline
    assert 'href="../../../../author/editors/" rel="author"' in byline
    assert html.index("<h1>Compilers, part two</h1>") < html.index('<ul class="byline">') \
        < html.index("The second part opens")
    # No "Updated" for a post that declares none.
    assert "Updated" not in text_of(section(reader_site.html(ONE), r'<ul class="byline">.*?</ul>'))


def test_a_series_with_one_published_part_announces_only_that_part(tmp_path) -> None:
    site = make_site(tmp_path / "src")
    site.write_post("only.md", post(extra="series: {name: Solo, part: 1}\n"))
    assert site.build().returncode == 0
    html = site.html("blog/2025/03/04/a-fixture-post")
    box = text_of(section(html, r'<aside class="series-box.*?</aside>'))
    assert box == "Part 1 of the series “Solo”"
    assert "later parts" not in html
    assert "Series “Solo”" in text_of(section(html, r'<ul class="byline">.*?</ul>'))


def test_every_page_has_a_footer_with_about_feeds_and_licence(reader_site: Site) -> None:
    for page in reader_site.site_dir.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in html:
            continue
        links = section(html, r'<ul class="site-footer__links".*?</ul>')
        for text in ("About", "RSS feed", "JSON Feed", "Licence: text CC BY 4.0, code MIT"):
            assert f">{text}</a>" in links, (page, text)
    assert 'id="licence"' in reader_site.html("about")


# --- in the browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_url(reader_site: Site) -> Iterator[str]:
    with serve(reader_site.site_dir) as url:
        yield url


def first_paragraph_top(page: Page) -> float:
    return page.evaluate("""() => {
        const p = document.querySelector('article.md-content__inner > p');
        return p.getBoundingClientRect().top + scrollY;
    }""")


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1280", "390"])
def test_byline_is_between_the_title_and_the_first_paragraph(browser: Browser, base_url: str,
                                                               viewport: dict[str, int]) -> None:
    page, rec = new_page(browser, base_url, viewport=viewport)
    page.goto(f"{base_url}/{TWO}")
    byline = page.locator("article ul.byline")
    expect(byline).to_be_visible()
    expect(byline).to_contain_text("Published September 1, 2025")
    expect(byline).to_contain_text("Updated October 15, 2025")
    title = page.locator("article h1").bounding_box()
    box = byline.bounding_box()
    assert title["y"] + title["height"] <= box["y"] + 1
    assert box["y"] + box["height"] <= first_paragraph_top(page)
    # On a phone it is on the first screen, before any of the post's text.
    assert box["y"] + box["height"] < viewport["height"]
    # The title is set heavy and at full contrast.
    weight = page.evaluate("getComputedStyle(document.querySelector('article h1')).fontWeight")
    assert int(weight) >= 700
    # The sidebar no longer repeats the metadata (on a phone it used to sit after the article).
    assert page.locator(".md-sidebar--post .md-post__meta:visible").count() == 0
    assert rec.external == [] and rec.errors == []


def test_post_prose_is_set_to_a_reading_measure(browser: Browser, base_url: str) -> None:
    page, _ = new_page(browser, base_url, viewport=DESK)
    page.goto(f"{base_url}/{TWO}")
    # Characters per line: the column's width over the mean width of lowercase text in its font.
    cpl = page.evaluate("""() => {
        const p = document.querySelector('article.md-content__inner > p');
        const ctx = document.createElement('canvas').getContext('2d');
        const s = getComputedStyle(p);
        ctx.font = `${s.fontSize} ${s.fontFamily}`;
        const sample = 'the quick brown fox jumps over the lazy dog while gradients are bucketed ';
        return p.clientWidth / (ctx.measureText(sample).width / sample.length);
    }""")
    assert 65 <= cpl <= 85, cpl


def test_contents_are_reachable_at_every_width(browser: Browser, base_url: str) -> None:
    page, _ = new_page(browser, base_url, viewport=DESK)
    page.goto(f"{base_url}/{ONE}")
    expect(page.locator(".md-sidebar--secondary").get_by_role("link", name="The update")).to_be_visible()
    expect(page.locator("details.post-toc")).to_be_hidden()
    page, rec = new_page(browser, base_url, viewport=PHONE)
    page.goto(f"{base_url}/{ONE}")
    toc = page.locator("details.post-toc")
    expect(toc).to_be_visible()
    toc.locator("summary").click()
    toc.get_by_role("link", name="The path").click()
    page.wait_for_url(re.compile(r"#the-path$"))
    assert rec.errors == []


@pytest.mark.parametrize("palette", ["default", "slate"], ids=["light", "dark"])
@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1280", "390"])
def test_the_header_and_footer_are_the_sites_own(browser: Browser, base_url: str, viewport: dict[str, int],
                                                 palette: str) -> None:
    page, rec = new_page(browser, base_url, viewport=viewport)
    page.goto(f"{base_url}/{TWO}")
    switch_palette(page, palette)
    # The bar is the page's own background in either palette, not an app bar's colour.
    header_colour, page_colour = page.evaluate("""() => [
        getComputedStyle(document.querySelector('header.site-header')).backgroundColor,
        getComputedStyle(document.body).backgroundColor]""")
    assert header_colour == page_colour
    header = page.locator("header.site-header")
    expect(header.get_by_role("link", name=SITE_NAME)).to_be_visible()
    sections = header.get_by_role("navigation", name="Sections").get_by_role("link")
    assert sections.all_inner_texts() == ["Posts", "Categories", "Archive", "About"]
    for i in range(4):  # all on screen at a phone's width too, none behind a menu
        box = sections.nth(i).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], i
    # None of Material's manual chrome: tabs, the drawer's menu button, the "Back to index" rail, its credit.
    assert page.locator(".md-tabs, .md-sidebar--primary, .md-sidebar--post").count() == 0
    assert page.locator("label[for='__drawer']:visible").count() == 0
    if viewport == DESK:  # opening search keeps the header on one row (the sections make way)
        height = header.bounding_box()["height"]
        page.keyboard.press("/")
        expect(page.locator("input.md-search__input")).to_be_focused()
        page.wait_for_timeout(500)  # Material widens the open box over 0.25 s
        assert header.bounding_box()["height"] == height
        assert page.evaluate("(r => r.scrollWidth <= r.clientWidth)(document.querySelector('.site-header__inner'))")
        page.keyboard.press("Escape")
    assert page.get_by_text("Back to index").count() == 0
    footer = page.locator("footer.site-footer")
    expect(footer).to_contain_text("Licence: text CC BY 4.0, code MIT")
    assert "Material for MkDocs" not in footer.inner_text()
    # Instant page changes keep the header: the new page's section is lit (javascripts/search.js).
    expect(sections.nth(0)).to_have_attribute("aria-current", "true")
    page.evaluate("window.__samePage = true")
    sections.nth(2).click()
    page.wait_for_url(re.compile(r"/blog/archive/$"))
    expect(page.locator("article h1")).to_contain_text("Archive")
    assert page.evaluate("window.__samePage") is True  # an instant page change, not a new page
    expect(sections.nth(2)).to_have_attribute("aria-current", "page")
    assert sections.nth(0).get_attribute("aria-current") is None
    assert rec.errors == []


@pytest.mark.parametrize("palette", ["default", "slate"], ids=["light", "dark"])
def test_the_contents_sit_left_of_a_centred_article_and_fold_on_a_phone(browser: Browser, base_url: str,
                                                                        palette: str) -> None:
    page, _ = new_page(browser, base_url, viewport=DESK)
    page.goto(f"{base_url}/{ONE}")
    switch_palette(page, palette)
    rail = page.locator(".post-rail").bounding_box()
    article = page.locator("article.md-content__inner").bounding_box()
    assert rail and article and rail["x"] + rail["width"] <= article["x"]
    assert abs(article["x"] + article["width"] / 2 - DESK["width"] / 2) < 24, article
    expect(page.locator(".post-rail .md-nav__title")).to_have_text("Contents")
    # Between a phone and a desk (Material shows its secondary sidebar from 960 px): one contents list.
    page, _ = new_page(browser, base_url, viewport={"width": 1100, "height": 900})
    page.goto(f"{base_url}/{ONE}")
    expect(page.locator(".post-rail")).to_be_hidden()
    expect(page.locator("details.post-toc > summary")).to_be_visible()
    page, _ = new_page(browser, base_url, viewport=PHONE)
    page.goto(f"{base_url}/{ONE}")
    switch_palette(page, palette)
    expect(page.locator(".post-rail")).to_be_hidden()
    summary = page.locator("details.post-toc > summary")
    expect(summary).to_be_visible()
    # Not an admonition: no icon before "Contents", no coloured box round it.
    assert page.evaluate("""() => {
        const d = document.querySelector('details.post-toc');
        const icon = getComputedStyle(d.querySelector('summary'), '::before').display;
        return [icon, getComputedStyle(d).borderLeftWidth, getComputedStyle(d).boxShadow];
    }""") == ["none", "0px", "none"]


def front_page_layout(page: Page) -> dict:
    return page.evaluate("""() => {
        const cards = [...document.querySelectorAll('.post-card')];
        const top = (el) => el.getBoundingClientRect().top + scrollY;
        return {
            featured: cards.map((c) => c.classList.contains('post-card--featured')),
            kicker: cards[0].querySelector('.post-card__kicker')?.textContent,
            titleSizes: cards.map((c) => parseFloat(getComputedStyle(c.querySelector('.post-card__title')).fontSize)),
            titleBottoms: cards.map((c) => { const r = c.querySelector('.post-card__title').getBoundingClientRect();
                                             return r.bottom + scrollY; }),
            datelineLefts: cards.map((c) => Math.round(
                c.querySelector('.post-card__dateline').getBoundingClientRect().left)),
            figures: cards.map((c) => { const svg = c.querySelector('.post-card__figure svg');
                if (!svg) return null;
                const r = svg.getBoundingClientRect(), box = svg.querySelector('.fig-box, rect');
                return {label: svg.getAttribute('aria-label'), role: svg.getAttribute('role'),
                        words: svg.querySelectorAll('text').length, width: r.width, height: r.height,
                        fill: box && getComputedStyle(box).fill, stroke: box && getComputedStyle(box).stroke,
                        bg: getComputedStyle(document.body).backgroundColor}; }),
        };
    }""")


@pytest.mark.parametrize("palette", ["default", "slate"], ids=["light", "dark"])
@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1280", "390"])
def test_the_front_page_leads_with_the_newest_post_and_every_posts_figure(
        real_site: Site, browser: Browser, viewport: dict[str, int], palette: str) -> None:
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=viewport)
        page.goto(f"{base}/blog/")
        switch_palette(page, palette)
        layout = front_page_layout(page)
        assert rec.external == [] and rec.errors == []
    n = len(layout["featured"])
    assert n == len(post_urls(real_site.site_dir)) and layout["featured"] == [True] + [False] * (n - 1)
    assert layout["kicker"] == "Newest"
    assert layout["titleSizes"][0] > max(layout["titleSizes"][1:])
    # Every real post has a map: each entry shows it, drawn small, named by the figure's title,
    # without its words, and coloured by the site's palette (an unstyled SVG box is filled black).
    for figure in layout["figures"]:
        assert figure and figure["role"] == "img" and figure["label"].startswith("Figure: ")
        assert len(figure["label"]) > len("Figure: ") + 4, figure
        assert figure["words"] == 0 and figure["width"] >= 70 and figure["height"] >= 70
        assert figure["fill"] not in ("rgb(0, 0, 0)", "none") and figure["stroke"] != "none", figure
    # Datelines start at one left edge in every entry after the newest (whose figure is at its left on a desk).
    assert len(set(layout["datelineLefts"][1:])) == 1, layout["datelineLefts"]
    # On a phone, the first screen shows at least two posts' titles in full.
    if viewport == PHONE:
        assert layout["titleBottoms"][1] <= PHONE["height"], layout["titleBottoms"][:2]


def zoom(page: Page):
    """The full-size figure dialog (Material's search is a dialog too)."""
    return page.get_by_role("dialog", name=re.compile(r"^Figure at full size"))


def open_state(page: Page) -> str:
    return page.locator("figure.fig").first.get_attribute("data-fig-zoom") or ""


def smallest_label_px(page: Page) -> float:
    """The rendered size (CSS px) of the smallest label of the first figure's drawing."""
    return page.evaluate("""() => {
        const svg = document.querySelector('svg[aria-labelledby="wide-title wide-desc"]');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Math.min(...[...svg.querySelectorAll('text')].map(
            (t) => parseFloat(getComputedStyle(t).fontSize))) * scale;
    }""")


def test_wide_figure_opens_full_size_by_click_and_by_keyboard_on_a_phone(browser: Browser, base_url: str) -> None:
    page, rec = new_page(browser, base_url, viewport=PHONE)
    page.goto(f"{base_url}/{TWO}")
    figure = page.locator("figure.fig").first
    button = figure.get_by_role("button", name="Open figure full size")
    expect(button).to_be_visible()  # the visible hint
    assert smallest_label_px(page) < 11
    assert open_state(page) == "available"

    # Click: a modal dialog holds the drawing at a size where every label is at least 11 px.
    button.click()
    dialog = zoom(page)
    expect(dialog).to_be_visible()
    assert dialog.locator("svg[aria-labelledby='wide-title wide-desc']").count() == 1
    assert smallest_label_px(page) >= 11
    assert open_state(page) == "open"
    scroller = dialog.locator(".fig-zoom__body")
    expect(scroller).to_be_focused()
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")  # it scrolls to show the rest
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('.fig-zoom__body').scrollLeft > 0")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    # The dialog leaves the accessibility tree when it closes; its "close" event, a task later, puts
    # the drawing back and resets the state: both are awaited, not read at once.
    expect(figure.locator("svg")).to_have_count(1)  # the drawing is back in its figure
    expect(figure).to_have_attribute("data-fig-zoom", "available")
    expect(button).to_be_focused()

    # Keyboard only: Enter opens, Tab reaches Close, Enter closes.
    page.keyboard.press("Enter")
    expect(zoom(page)).to_be_visible()
    close = zoom(page).get_by_role("button", name="Close")
    close.focus()
    page.keyboard.press("Enter")
    expect(zoom(page)).to_have_count(0)
    expect(figure).to_have_attribute("data-fig-zoom", "available")
    expect(figure.locator("svg")).to_have_count(1)
    expect(button).to_be_focused()
    assert rec.external == [] and rec.errors == []


def separators_at_line_starts(page: Page) -> list[str]:
    """Bylines whose "·" separator can be seen at the start of a line (so the line before ends in
    a dangling one). A separator clipped away is not hit by elementFromPoint."""
    return page.evaluate("""() => {
        const bad = [];
        document.querySelectorAll('ul.byline').forEach((ul, n) => {
            let lastTop = null;
            ul.querySelectorAll(':scope > li').forEach((li) => {
                const r = li.getBoundingClientRect();
                const sep = parseFloat(getComputedStyle(li, '::before').width);
                const startsLine = lastTop === null || r.top > lastTop + 2;
                lastTop = r.top;
                li.scrollIntoView({block: 'center'});
                const box = li.getBoundingClientRect();
                const hit = document.elementFromPoint(box.left + sep / 2, box.top + box.height / 2);
                const visible = hit !== null && li.contains(hit);
                if (startsLine === visible) bad.push(`byline ${n}: "${li.textContent.trim()}"`);
            });
        });
        return bad;
    }""")


@pytest.mark.parametrize("path", ["blog/", TWO], ids=["listing", "post"])
def test_no_dangling_separators_at_phone_width(browser: Browser, base_url: str, path: str) -> None:
    page, _ = new_page(browser, base_url, viewport=PHONE)
    page.goto(f"{base_url}/{path}")
    assert page.locator("ul.byline").count() >= 1
    # Every line of a wrapped byline starts with an item, and every other item is preceded by "·".
    assert separators_at_line_starts(page) == []


@pytest.mark.parametrize("palette", ["default", "slate"], ids=["light", "dark"])
@pytest.mark.parametrize("path", ["blog/", "blog/category/", "blog/archive/", TWO, "about/"])
def test_new_pages_have_no_accessibility_violations(browser: Browser, base_url: str, path: str,
                                                    palette: str) -> None:
    page, rec = new_page(browser, base_url, viewport=PHONE if path == TWO else DESK)
    page.goto(f"{base_url}/{path}")
    switch_palette(page, palette)
    violations = axe_violations(page)
    assert violations == [], json.dumps(violations, indent=1)
    if path == TWO:  # and with the figure open at full size
        page.get_by_role("button", name="Open figure full size").click()
        expect(zoom(page)).to_be_visible()
        violations = axe_violations(page)
        assert violations == [], json.dumps(violations, indent=1)
    assert rec.external == [] and rec.errors == []


def test_real_posts_show_the_byline_first_and_every_figure_can_be_read_on_a_phone(
        real_site: Site, browser: Browser) -> None:
    posts = post_urls(real_site.site_dir)
    assert posts
    unreadable = []
    with serve(real_site.site_dir) as base:
        page, rec = new_page(browser, base, viewport=PHONE)
        for path in posts:
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            box = page.locator("article ul.byline").bounding_box()
            assert box and box["y"] + box["height"] <= first_paragraph_top(page), path
            assert box["y"] + box["height"] < PHONE["height"], path
            # Every drawing either renders its smallest label at 11 px or more, or offers to open
            # it at full size with a visible control. It is measured once the reader scrolls near it.
            figures = page.locator("article figure.fig, article figure.ifig")
            for i in range(figures.count()):
                figures.nth(i).scroll_into_view_if_needed()
                page.wait_for_function("""(f) => f.dataset.figZoom  // or it has no drawing of its own
                    || ![...f.querySelectorAll('svg')].some((s) => !s.closest('.ifig-static'))""",
                                       arg=figures.nth(i).element_handle())
            for figure in page.evaluate("""() => [...document.querySelectorAll('article figure')]
                    .filter((f) => [...f.querySelectorAll('svg text')].some((t) => !t.closest('.ifig-static')))
                    .map((f) => [f.dataset.figZoom || 'none',
                                 !!f.querySelector('.fig-zoom__open:not([hidden])')])"""):
                if not (figure[0] == "fits" or (figure[0] == "available" and figure[1])):
                    unreadable.append((path, figure))
        assert rec.external == [] and rec.errors == []
    assert unreadable == []
