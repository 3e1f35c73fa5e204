"""The build's shortcuts change nothing but its speed (issue #20).

* hooks/read_git_history.py answers exactly as the git-revision-date plugin's own per-file git calls,
  renames, re-additions, tags and uncommitted files included, and a build runs one ``git log``;
* hooks/defer_excerpts.py: listings convert no excerpt (nor build its parser) unless a template
  prints one, and one that does gets Material's own output;
* hooks/post_checks.py reuses a body's checks and a front matter's parse only while their inputs
  are unchanged; speedups.PageMemo computes a page it has not seen;
* hooks/social_cards.py and hooks/compute_readtime.py read their results from the build cache;
* hooks/cache_templates.py loads compiled templates from the build cache, compiles an edited one
  afresh, and never keeps one whose compiled code holds the result of a filter other than Jinja's;
* hooks/repair_markup.py's repairs, run only around the attributes they remove, give the page that
  running each pattern over the whole page gives;
* the fixture site built with every shortcut (cold and warm cache) is byte-identical to the one
  built with ML_BLOG_BUILD_CACHE=off and ML_BLOG_SPEEDUPS=off, git dates included.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reader_fixtures import write_reader_posts
from support import MKDOCS_ENV, ROOT, Site, fetch_text, free_port, make_site, search_fragments

sys.path.insert(0, str(ROOT / "hooks"))
import build_cache  # noqa: E402
import cache_templates  # noqa: E402
import compute_readtime  # noqa: E402
import post_checks  # noqa: E402
import read_git_history  # noqa: E402
import repair_markup  # noqa: E402
import social_cards  # noqa: E402
import speedups  # noqa: E402
from mkdocs_git_revision_date_localized_plugin.util import Util  # noqa: E402

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = dict(GIT_ENV)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def commit(repo: Path, message: str, when: int) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, when=when)


def test_one_log_answers_as_the_plugin_asks_per_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "docs" / "sub").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    body = "".join(f"line {n} of a file long enough for git to see a rename\n" for n in range(30))
    for name in ("kept.md", "renamed.md", "moved-and-edited.md", "spaced.md", "gone.md", "sub/deep.md"):
        (repo / "docs" / name).write_text(f"# {name}\n{body}")
    commit(repo, "first", 1_000_000_000)
    (repo / "docs" / "kept.md").write_text(f"# kept, edited\n{body}")
    (repo / "docs" / "spaced.md").write_text(f"# spaced.md \n{body}\n\n")  # whitespace only
    commit(repo, "edit", 1_000_100_000)
    git(repo, "tag", "v1")
    git(repo, "tag", "-a", "annotated", "-m", "an annotated tag")
    git(repo, "mv", "docs/renamed.md", "docs/renamed-now.md")
    commit(repo, "rename", 1_000_200_000)
    git(repo, "mv", "docs/moved-and-edited.md", "docs/sub/moved.md")
    (repo / "docs" / "sub" / "moved.md").write_text(f"# moved\n{body}extra\n")
    commit(repo, "rename and edit", 1_000_300_000)
    (repo / "docs" / "gone.md").unlink()
    commit(repo, "delete", 1_000_400_000)
    (repo / "docs" / "gone.md").write_text("# back again\n")
    commit(repo, "re-add", 1_000_500_000)
    (repo / "docs" / "new.md").write_text("# never committed\n")

    history = read_git_history.History(read_git_history.git(
        str(repo), "log", "-M", "--name-status", "--no-show-signature", f"--format={read_git_history.COMMIT}%H %at"))
    util = Util({"enable_git_follow": True, "fallback_to_build_date": True}, str(repo))
    names = sorted(p.relative_to(repo).as_posix() for p in (repo / "docs").rglob("*.md"))
    assert len(names) == 7
    for name in names:
        if name == "docs/new.md":  # left to the plugin, whose fallback is the build date
            assert history.last_revision(name) is None and history.creation(name) is None
            continue
        assert history.last_revision(name) == util.get_git_commit_timestamp(str(repo / name)), name
        assert history.creation(name) == util.get_git_commit_timestamp(str(repo / name), is_first_commit=True), name
    tags = read_git_history.tags_by_commit(str(repo))
    for sha, _ in history.commits:
        assert tags.get(sha, "") == util._lookup_tag_name_for_commit(sha)
    assert set(tags.values()) == {"annotated"}  # the first name, as `git tag --points-at` lists them


def test_cards_come_from_the_cache_under_every_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = social_cards.card_key("Title", "Line", "Site")
    assert len({base, social_cards.card_key("Title!", "Line", "Site"), social_cards.card_key("Title", "Line!", "Site"),
                social_cards.card_key("Title", "Line", "Site!")}) == 4
    monkeypatch.setattr(social_cards, "DRAWING_VERSION", "changed")
    assert social_cards.card_key("Title", "Line", "Site") != base
    monkeypatch.setattr(social_cards.PIL, "__version__", "0.0")
    assert social_cards.card_key("Title", "Line", "Site") != base


def test_readtime_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build_cache.ENVIRONMENT, str(tmp_path / "cache"))
    monkeypatch.setattr(compute_readtime, "_cache", build_cache.Cache("readtime", tmp_path))
    html = "<p>" + "word " * 600 + "</p><pre><code>" + "code " * 5000 + "</code></pre>"
    assert compute_readtime.cached_minutes(html) == compute_readtime.minutes(html) == 3
    name = build_cache.key(html, compute_readtime.COUNTER_VERSION, str(compute_readtime.WORDS_PER_MINUTE))
    compute_readtime._cache.put(name, b"42")
    assert compute_readtime.cached_minutes(html) == 42


def template_environment(folder: Path, **filters: object) -> jinja2.Environment:
    """A fresh environment, as MkDocs makes one per build, with the hook's cache in it."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), auto_reload=False)
    env.filters.update(filters)
    env.bytecode_cache = cache_templates.TemplateCache(folder)
    return env


def test_templates_come_from_the_cache_until_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build_cache.ENVIRONMENT, str(tmp_path / "cache"))
    (tmp_path / "base.html").write_text("<p>{% block body %}{% endblock %}</p>")
    page = tmp_path / "page.html"
    page.write_text('{% extends "base.html" %}{% block body %}{{ title | upper }} one{% endblock %}')

    def render(**filters: object) -> tuple[str, dict[str, int]]:
        cache_templates.counts.update(loaded=0, compiled=0, not_kept=0)
        html = template_environment(tmp_path, **filters).get_template("page.html").render(title="t")
        return html, dict(cache_templates.counts)

    assert render() == ("<p>T one</p>", {"loaded": 0, "compiled": 2, "not_kept": 0})
    assert render() == ("<p>T one</p>", {"loaded": 2, "compiled": 0, "not_kept": 0})  # the next build
    page.write_text(page.read_text().replace("one", "two"))
    assert render() == ("<p>T two</p>", {"loaded": 1, "compiled": 1, "not_kept": 0})  # the edit shows
    # A filter that is not Jinja's, on a literal, runs when the template compiles: never kept.
    page.write_text('{% extends "base.html" %}{% block body %}{{ "x" | mark }}{% endblock %}')
    # (A new filter is a new environment key: base.html is compiled again once too.)
    assert render(mark=lambda v: v + "1") == ("<p>x1</p>", {"loaded": 0, "compiled": 2, "not_kept": 1})
    assert render(mark=lambda v: v + "2") == ("<p>x2</p>", {"loaded": 1, "compiled": 1, "not_kept": 1})
    # How a filter is passed its arguments is written into the code: a different filter, a new key.
    page.write_text('{% extends "base.html" %}{% block body %}{{ title | mark }}{% endblock %}')
    assert render(mark=lambda v: v + "!") == ("<p>t!</p>", {"loaded": 1, "compiled": 1, "not_kept": 0})
    assert render(mark=jinja2.pass_context(lambda c, v: v + "?")) == (
        "<p>t?</p>", {"loaded": 0, "compiled": 2, "not_kept": 0})
    monkeypatch.setenv(build_cache.ENVIRONMENT, "off")
    assert render(mark=lambda v: v + "!") == ("<p>t!</p>", {"loaded": 0, "compiled": 2, "not_kept": 0})


def test_environment_key_covers_compile_options() -> None:
    def key(**options: object) -> str:
        env = jinja2.Environment(**options)  # type: ignore[arg-type]
        return cache_templates.environment_key(env)

    base = key()
    assert key() == base
    assert len({base, key(trim_blocks=True), key(optimized=False), key(extensions=["jinja2.ext.i18n"]),
                key(variable_start_string="[[")}) == 5
    env = jinja2.Environment()
    env.filters["extra"] = str
    assert cache_templates.environment_key(env) != base


# Tags with the attributes repair_markup removes (and near misses), between stray text, in every
# arrangement: unclosed tags, stray brackets and quotes, several attributes to remove in one tag.
TAG = st.builds(lambda name, attributes, close: f"<{name}{''.join(attributes)}{close}",
                st.sampled_from(["input", "label", "figure", "div", "rect", "line", "path", "svg", "p"]),
                st.lists(st.sampled_from([
                    ' type="checkbox"', ' type="radio"', ' type="text"', ' autocomplete="off"', ' tabindex=""',
                    ' for="__toc"', ' id="__toc"', ' markdown="1"', ' markdown="span"', ' name="n"', ' x1="0"',
                    ' y1="1"', ' x2="2"', ' y2="4"', ' d="M0"', "\n", " ", '"']), max_size=6),
                st.sampled_from([">", "/>", "", " >"]))
MARKUP = st.lists(st.one_of(TAG, st.sampled_from(["a", " ", "<", ">", '"', "\n", "markdown=", 'markdown="x"',
                                                  'id="__toc"', "<svg>"])), max_size=12).map("".join)


def repaired_everywhere(html: str) -> str:
    """What repair_markup.repair did before it looked only around its attributes."""
    html = repair_markup.TOGGLE_FIRST_RE.sub(r"\1\2", repair_markup.TOGGLE_RE.sub(r"\1\2", html))
    html = repair_markup.EMPTY_TABINDEX_RE.sub(r"\1", html)
    if 'id="__toc"' not in html:
        html = repair_markup.TOC_LABEL_RE.sub(r"\1", html)
    if "<svg" in html:
        html = repair_markup.SVG_NAME_RE.sub(r"\1", html)
        for _ in range(4):
            html = repair_markup.SVG_PATH_COORD_RE.sub(r"\1", html)
    return repair_markup.MARKDOWN_ATTR_RE.sub(r"\1", html)


@settings(derandomize=True, database=None, deadline=None, max_examples=500)
@given(html=MARKUP)
def test_repairs_near_their_attributes_are_repairs_everywhere(html: str) -> None:
    assert repair_markup.repair(html) == repaired_everywhere(html)


def test_repairs_still_repair() -> None:
    page = ('<svg><path d="M0" x1="0" y1="1"/></svg><label class="l" tabindex="">x</label>'
            '<input type="checkbox" autocomplete="off" id="__drawer"><figure class="f" markdown="0">')
    assert repair_markup.repair(page) == ('<svg><path d="M0"/></svg><label class="l">x</label>'
                                          '<input type="checkbox" id="__drawer"><figure class="f">')


def test_page_memo_computes_only_pages_it_has_not_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """speedups.PageMemo, which repair_markup, label_landmarks and add_page_scripts run through."""
    calls = []
    memo = speedups.PageMemo(lambda html: calls.append(html) or html.upper(), limit=20)
    page = "<p>page</p>"
    assert memo(page) == "<P>PAGE</P>" and memo("".join(["<p>", "page</p>"])) == "<P>PAGE</P>"
    assert calls == [page] and memo.hits == 1  # an equal page (another string) is not computed again
    assert memo("<p>page!</p>") == "<P>PAGE!</P>" and len(calls) == 2  # one character more: computed
    assert memo(page) == "<P>PAGE</P>" and len(calls) == 3  # dropped: 11 + 12 characters > the limit
    monkeypatch.setenv(speedups.ENVIRONMENT, "off")
    assert memo(page) == "<P>PAGE</P>" and len(calls) == 4 and memo.hits == 1
    # The hooks' functions are the memos' functions.
    assert repair_markup._repaired.function is repair_markup.repair


def counting_git(folder: Path, log: Path) -> dict[str, str]:
    """An environment whose `git` records each call in log, then runs the real git."""
    folder.mkdir()
    real = shutil.which("git")
    (folder / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (folder / "git").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def build(site: Site, out: Path, **env: str) -> str:
    environment = {**MKDOCS_ENV, **env}
    environment.pop("SOURCE_DATE_EPOCH", None)  # the fixture's own last commit (pin_build_dates)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-v", "-f", str(site.root / "mkdocs.yml"),
           "-d", str(out)]
    result = subprocess.run(cmd, cwd=site.root.parent, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stderr


def differing(left: Path, right: Path) -> list[str]:
    found = []
    compared = filecmp.dircmp(left, right)
    found += [str(Path(left, name)) for name in compared.left_only + compared.right_only + compared.diff_files]
    for name in compared.common_files:  # dircmp compares by size and time first: compare bytes
        if Path(left, name).read_bytes() != Path(right, name).read_bytes():
            found.append(str(Path(left, name)))
    for sub in compared.common_dirs:
        found += differing(left / sub, right / sub)
    return sorted(set(found))


def committed_fixture(tmp_path: Path) -> Site:
    site = make_site(tmp_path / "src")
    write_reader_posts(site)
    git(site.root, "init", "-q", "-b", "main")
    (site.root / ".gitignore").write_text("/node_modules\n/site*/\n/.cache/\n__pycache__/\n")
    for number, path in enumerate(sorted(site.docs.rglob("*.md"))):
        git(site.root, "add", str(path))
        git(site.root, "commit", "-q", "-m", f"add {path.name}", when=1_700_000_000 + number * 86_400)
    commit(site.root, "the rest", 1_700_000_000 + 99 * 86_400)
    # One post that is not committed yet: the plugin's own fallback dates it.
    (site.docs / "blog" / "posts" / "compilers-one.md").write_text(
        (site.docs / "blog" / "posts" / "series-1.md").read_text()
        .replace("slug: compilers-one", "slug: compilers-uncommitted")
        .replace("Compilers, part one", "Compilers, uncommitted")
        .replace("series: {name: Compiler fixtures, part: 1}\n", ""))
    return site


def test_the_shortcuts_change_no_byte(tmp_path: Path) -> None:
    site = committed_fixture(tmp_path)
    cache = tmp_path / "cache"
    fast_log, slow_log = tmp_path / "git-fast.log", tmp_path / "git-slow.log"
    cold = build(site, tmp_path / "cold", ML_BLOG_BUILD_CACHE=str(cache), **counting_git(tmp_path / "g1", fast_log))
    warm = build(site, tmp_path / "warm", ML_BLOG_BUILD_CACHE=str(cache))
    build(site, tmp_path / "slow", ML_BLOG_BUILD_CACHE="off", ML_BLOG_SPEEDUPS="off",
          **counting_git(tmp_path / "g2", slow_log))
    assert (cache / "cards").is_dir() and (cache / "readtime").is_dir() and (cache / "templates").is_dir()
    assert differing(tmp_path / "cold", tmp_path / "slow") == []
    assert differing(tmp_path / "warm", tmp_path / "slow") == []
    # Dated from git (not only from the fallback): a commit's day is on a post's page.
    about = (tmp_path / "cold" / "about" / "index.html").read_text()
    assert re.search(r'git-revision-date-localized-plugin-date"[^>]*>[A-Z][a-z]+ \d+, 2023<', about)
    # One history walk, not two per page: `git log` runs once for the pages, once for the site's
    # revision (the plugin) and once for SOURCE_DATE_EPOCH (pin_build_dates).
    fast_logs = [line for line in fast_log.read_text().splitlines() if " log " in f" {line} "]
    slow_logs = [line for line in slow_log.read_text().splitlines() if " log " in f" {line} "]
    pages = len(list(site.docs.rglob("*.md")))
    assert len(fast_logs) <= 4, fast_logs
    assert len(slow_logs) >= pages, slow_logs
    # The listings converted no excerpt (none is printed), in either cache state, so no excerpt
    # parser was built either.
    assert re.search(r"listings converted 0 excerpts \(parsers: 0 of [1-9]\d* built\)", cold)
    assert re.search(r"listings converted 0 excerpts \(parsers: 0 of [1-9]\d* built\)", warm)
    # The cold build compiled each template once and kept it (the blog plugin's translation
    # environments load the ones it compiled); the warm one compiled none.
    assert re.search(r"templates: \d+ loaded from the cache, [1-9]\d* compiled \(0 of them not kept\)", cold)
    assert re.search(r"templates: [1-9]\d* loaded from the cache, 0 compiled", warm)


def test_a_template_that_prints_excerpts_gets_materials_own(tmp_path: Path) -> None:
    site = committed_fixture(tmp_path)  # dated from git, so two builds' dates agree
    listing = site.root / "overrides" / "blog.html"
    summary = '<p class="post-card__summary">'
    printed = '<div class="excerpt">{{ excerpt.content }}</div>'
    listing.write_text(listing.read_text().replace(summary, printed + summary))
    fast = build(site, tmp_path / "fast", ML_BLOG_BUILD_CACHE=str(tmp_path / "cache"))
    build(site, tmp_path / "slow", ML_BLOG_BUILD_CACHE="off", ML_BLOG_SPEEDUPS="off")
    assert differing(tmp_path / "fast", tmp_path / "slow") == []
    front = (tmp_path / "fast" / "blog" / "index.html").read_text()
    assert front.count('<div class="excerpt">') >= 3 and "Compilers, part one" in front
    converted, parsers, created = map(int, re.search(
        r"listings converted (\d+) excerpts \(parsers: (\d+) of (\d+) built\)", fast).groups())
    assert converted >= front.count('<div class="excerpt">')
    assert 3 <= parsers <= min(converted, created)  # built when its excerpt is first converted


def test_an_unchanged_body_is_not_checked_again_unless_a_file_it_reads_changed(tmp_path: Path) -> None:
    """hooks/post_checks.py keeps each body's problems with what it looked at (linked files, snippets)."""
    docs = tmp_path / "docs"
    (docs / "blog" / "posts").mkdir(parents=True)
    (docs / "figure.svg").write_text("<svg/>")
    snippet = tmp_path / "step.py"
    snippet.write_text("# --8<-- [start:step]\nx = 1\n# --8<-- [end:step]\n")
    body = 'Intro.\n\n<!-- more -->\n\nSee [the figure](../../figure.svg).\n\n--8<-- "step.py:step"\n'

    def check() -> list[str]:
        return [str(p) for p in post_checks.body_problems("blog/posts/a.md", body, 5, docs_dir=docs,
                                                          snippet_bases=[tmp_path])]

    assert check() == []
    before = post_checks.reused_bodies[0]
    assert check() == []
    assert post_checks.reused_bodies[0] == before + 1  # reused
    (docs / "figure.svg").unlink()
    assert check() == ["blog/posts/a.md: line 9: the link '../../figure.svg' points to figure.svg, which does not "
                       "exist. Accepted: a path relative to this file to a page or file under docs/"]
    (docs / "figure.svg").write_text("<svg/>")
    snippet.write_text("x = 1\n")
    assert check() == ["blog/posts/a.md: line 11: the snippet 'step.py' has no section 'step'. A section is marked "
                       "'--8<-- [start:step]' ... '--8<-- [end:step]' in that file. Accepted: a path relative to the "
                       "repository root (pymdownx.snippets base_path) to a text file inside the repository, e.g. "
                       "examples/<post>/<file>.py"]
    assert post_checks.reused_bodies[0] == before + 1


def test_front_matter_is_parsed_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """hooks/post_checks.py keeps each front matter's mapping and problems by its text."""
    text = post_checks.split_front_matter("---\ntitle: A\ntitle: B\ndate: 2025-02-30\ntags: [x]\n---\nBody.\n")
    first = post_checks.parse_front_matter("blog/posts/a.md", text)
    before = post_checks.reused_front_matters[0]
    first[0]["tags"].append("changed by a caller")
    again = post_checks.parse_front_matter("blog/posts/a.md", text)
    assert post_checks.reused_front_matters[0] == before + 1
    assert again[0] == {"title": "B", "date": "2025-02-30", "tags": ["x"]} and again[1] == first[1]
    assert [str(p) for p in again[1]] == ["blog/posts/a.md: field 'title': is given twice (lines 2 and 3); YAML "
                                         "would keep the last one silently. Accepted: each key once"]
    other = post_checks.parse_front_matter("blog/posts/b.md", text)  # problems name their file
    assert post_checks.reused_front_matters[0] == before + 1 and str(other[1][0]).startswith("blog/posts/b.md")
    changed = post_checks.split_front_matter("---\ntitle: C\n---\nBody.\n")
    assert post_checks.parse_front_matter("blog/posts/a.md", changed) == ({"title": "C"}, [])
    monkeypatch.setenv("ML_BLOG_SPEEDUPS", "off")
    post_checks.parse_front_matter("blog/posts/a.md", text)
    assert post_checks.reused_front_matters[0] == before + 1


@pytest.mark.slow
def test_serve_is_never_stale(tmp_path: Path) -> None:
    """A real `mkdocs serve` (as `make serve` runs it): every change reaches every page it touches."""
    import time

    site = make_site(tmp_path / "src")
    write_reader_posts(site)
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    served = tmp_path / "tmp"  # mkdocs serve builds into a temporary folder: the one mkdocs_* in here
    served.mkdir()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-v", "-f", str(site.root / "mkdocs.yml"),
         "--dev-addr", f"127.0.0.1:{port}", "--livereload"],
        cwd=tmp_path, env={**MKDOCS_ENV, "ML_BLOG_BUILD_CACHE": str(tmp_path / "cache"), "TMPDIR": str(served)},
        stdout=log, stderr=subprocess.STDOUT)

    def wait_for(path: str, check: object, what: str) -> str:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            page = fetch_text(base + path)
            if page is not None and check(page):  # type: ignore[operator]
                return page
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-4000:]
            time.sleep(0.2)
        raise AssertionError(f"{what}: not served within 120 s\n" + (tmp_path / "serve.log").read_text()[-3000:])

    def search_titles() -> list[object]:
        try:
            return [f["meta"]["title"] for f in search_fragments(next(served.glob("mkdocs_*")))]
        except (OSError, StopIteration, ValueError):  # the index is being swapped in
            return []

    posts = site.docs / "blog" / "posts"
    one, two = posts / "series-1.md", posts / "series-2.md"
    one_url, two_url = "blog/2025/08/07/compilers-one/", "blog/2025/09/01/compilers-two/"
    try:
        wait_for("blog/", lambda page: "Compilers, part one" in page, "first build")
        # An edit to a post's text is visible on its page; the other pages are reused, not reconverted.
        one.write_text(one.read_text().replace("<!-- more -->", "<!-- more -->\n\nA sentence added while serving."))
        wait_for(one_url, lambda page: "A sentence added while serving." in page, "edited text")
        time.sleep(1)
        assert re.search(r"reused ([1-9]\d*) conversions", (tmp_path / "serve.log").read_text())
        # The rebuild took its compiled templates from the cache; an edited template still shows at once.
        assert re.search(r"templates: [1-9]\d* loaded from the cache, 0 compiled", (tmp_path / "serve.log").read_text())
        template = site.root / "overrides" / "post.html"
        template.write_text(template.read_text().replace("{% block content %}",
                                                         '{% block content %}<p class="template-edit"></p>', 1))
        wait_for(one_url, lambda page: '<p class="template-edit"></p>' in page, "edited template")
        # A new title reaches the listings, both feeds and the other part's series box.
        one.write_text(one.read_text().replace('title: "Compilers, part one"', 'title: "Compilers, renamed"'))
        wait_for("blog/", lambda page: "Compilers, renamed" in page and "Compilers, part one" not in page,
                 "title in the front page")
        for path in ("feed_rss_created.xml", "feed_json_created.json", two_url, "blog/category/torchcompile/"):
            wait_for(path, lambda page: "Compilers, renamed" in page and "Compilers, part one" not in page,
                     f"title in {path}")
        # Search (indexed in the background after the rebuild, hooks/build_search_index.py) finds it too.
        deadline = time.monotonic() + 120
        while not ("Compilers, renamed" in search_titles() and "Compilers, part one" not in search_titles()):
            assert time.monotonic() < deadline, f"search titles after the rename: {search_titles()}"
            time.sleep(0.2)
        # A changed category moves the post from one category page to the other.
        two.write_text(two.read_text().replace("categories: [torch.compile]", "categories: [Kernel]"))
        wait_for("blog/category/kernel/", lambda page: "Compilers, part two" in page, "post in its new category")
        wait_for("blog/category/torchcompile/", lambda page: "Compilers, part two" not in page,
                 "post gone from its old category")
        # A deleted post disappears from every listing and feed.
        two.unlink()
        for path in ("blog/", "blog/category/kernel/", "blog/archive/2025/", "feed_rss_created.xml", one_url):
            wait_for(path, lambda page: "Compilers, part two" not in page, f"deleted post gone from {path}")
        assert fetch_text(base + two_url) is None
        deadline = time.monotonic() + 120
        while not ("Compilers, renamed" in search_titles() and "Compilers, part two" not in search_titles()):
            assert time.monotonic() < deadline, f"search titles after the deletion: {search_titles()}"
            time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
