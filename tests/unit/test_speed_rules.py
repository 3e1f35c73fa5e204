"""In-process: the one git log dates each page as git's own per-file query would; the cards' cache key
holds every input; the markup repairs, run only near their
attributes, equal running them everywhere.
(Whole builds with and without the shortcuts: tests/build/test_speed.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import commit, git

from mlblog.pages import markup as repair_markup
from mlblog.publish import cards as social_cards
from mlblog.publish import revisions
from mlblog.render.cache import Cache


def test_one_log_dates_each_file_as_git_log_follow_does(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "docs" / "sub").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    body = "".join(f"line {n} of a file long enough for git to see a rename\n" for n in range(30))
    for name in ("kept.md", "renamed.md", "moved-and-edited.md", "spaced.md", "gone.md", "sub/deep.md"):
        # Each file its own text, so that git finds no other file a renamed one could be a copy of.
        (repo / "docs" / name).write_text(f"# {name}\n{body.replace('line', name)}")
    commit(repo, "first", 1_000_000_000)
    (repo / "docs" / "kept.md").write_text(f"# kept, edited\n{body.replace('line', 'kept.md')}")
    (repo / "docs" / "spaced.md").write_text(f"# spaced.md \n{body.replace('line', 'spaced.md')}\n\n")  # whitespace
    commit(repo, "edit", 1_000_100_000)
    git(repo, "mv", "docs/renamed.md", "docs/renamed-now.md")
    commit(repo, "rename", 1_000_200_000)
    git(repo, "mv", "docs/moved-and-edited.md", "docs/sub/moved.md")
    (repo / "docs" / "sub" / "moved.md").write_text(f"# moved\n{body.replace('line', 'moved-and-edited.md')}extra\n")
    commit(repo, "rename and edit", 1_000_300_000)
    (repo / "docs" / "gone.md").unlink()
    commit(repo, "delete", 1_000_400_000)
    (repo / "docs" / "gone.md").write_text("# back again\n")
    commit(repo, "re-add", 1_000_500_000)
    (repo / "docs" / "new.md").write_text("# never committed\n")

    files = sorted((repo / "docs").rglob("*.md"))
    assert len(files) == 7
    dated = revisions.last_changes(repo / "docs", files)
    moved = repo / "docs" / "sub" / "moved.md"
    for file in files:
        # What git answers for one file: its last commit that was not a rename.
        alone = git(repo, "log", "--follow", "--diff-filter=r", "-n", "1", "--format=%at", "--", str(file)).strip()
        assert dated.get(file) == (int(alone) if alone else None) or file == moved, file.name
    # A rename with edits is a change here, where git's filter skips every rename, edited or not.
    assert git(repo, "log", "--follow", "-n", "1", "--format=%at", "--name-status", "--", str(moved)).startswith(
        "1000300000\n\nR0")
    assert dated[moved] == 1_000_300_000
    assert repo / "docs" / "new.md" not in dated  # never committed: the build dates it
    assert dated[repo / "docs" / "renamed-now.md"] == 1_000_000_000  # a pure rename is no change
    assert dated[repo / "docs" / "gone.md"] == 1_000_500_000
    assert revisions.last_changes(tmp_path, files) == {}  # not a repository: the build dates every page
    assert revisions.last_update_html(1_000_300_000) == \
        '<time class="last-update" datetime="2001-09-12">September 12, 2001</time>'


def test_cards_come_from_the_cache_under_every_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = social_cards.card_key("Title", "Line", "Site")
    assert len({base, social_cards.card_key("Title!", "Line", "Site"), social_cards.card_key("Title", "Line!", "Site"),
                social_cards.card_key("Title", "Line", "Site!")}) == 4
    monkeypatch.setattr(social_cards, "DRAWING_VERSION", "changed")
    assert social_cards.card_key("Title", "Line", "Site") != base
    monkeypatch.setattr(social_cards.PIL, "__version__", "0.0")
    assert social_cards.card_key("Title", "Line", "Site") != base
    cache = Cache(tmp_path, "cards")
    cache.put(social_cards.card_key("Title", "Line", "Site"), b"kept", ".png")
    assert social_cards.png("Title", "Line", "Site", cache) == b"kept"  # drawn once, then read


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


