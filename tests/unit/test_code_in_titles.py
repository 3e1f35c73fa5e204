"""Inline code in a post's title, from the post's record: ``title_html`` (escaped, each code span in
<code>) for HTML, ``title_text`` (no backticks) for everything else; the refusals are in test_rules.py."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from markupsafe import Markup
from support import ROOT, post

from mlblog.posts import Post, check_all

# title -> (title_html, title_text)
TITLES: dict[str, tuple[str, str]] = {
    "How `Engine.generate()` Boots": ("How <code>Engine.generate()</code> Boots", "How Engine.generate() Boots"),
    "`LLM(...)` and `vllm serve`": ("<code>LLM(...)</code> and <code>vllm serve</code>", "LLM(...) and vllm serve"),
    'Fusing <b>tags</b> & "quotes" \'too\'': ("Fusing &lt;b&gt;tags&lt;/b&gt; &amp; &#34;quotes&#34; &#39;too&#39;",
                                              'Fusing <b>tags</b> & "quotes" \'too\''),
    "Masks: `a < b && c` </code><script>": ("Masks: <code>a &lt; b &amp;&amp; c</code> &lt;/code&gt;&lt;script&gt;",
                                            "Masks: a < b && c </code><script>"),
    "No code at all": ("No code at all", "No code at all"),
}


def record(tmp_path: Path, title: str) -> Post:
    docs = tmp_path / "docs"
    (docs / "blog" / "posts").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "blog" / ".authors.yml", docs / "blog" / ".authors.yml")
    (docs / "blog" / "posts" / "p.md").write_text(post(title=title), encoding="utf-8")
    posts, problems = check_all(docs, snippet_bases=[ROOT], today=dt.date(2026, 12, 1))
    assert problems == [] and len(posts) == 1, problems
    return posts[0]


@pytest.mark.parametrize("title", list(TITLES), ids=range(len(TITLES)))
def test_title_html_escapes_the_text_and_sets_code_in_code(tmp_path: Path, title: str) -> None:
    p = record(tmp_path, title)
    assert p.title == title  # the front matter's, backticks and all
    assert p.title_html == TITLES[title][0]
    assert isinstance(p.title_html, Markup)  # printed by templates as it is, never escaped twice


@pytest.mark.parametrize("title", list(TITLES), ids=range(len(TITLES)))
def test_title_text_keeps_the_code_and_drops_the_backticks(tmp_path: Path, title: str) -> None:
    p = record(tmp_path, title)
    assert p.title_text == TITLES[title][1]
    assert type(p.title_text) is str and "`" not in p.title_text
