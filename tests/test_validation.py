"""Bad posts stop the build with one clear message per problem: file, field or line, what is
accepted. No traceback ever reaches the author."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import MKDOCS_ENV, ROOT, Site, post, text_of

FILE = "blog/posts/bad.md"
GOOD_DESC = "A fixture post that exists to check how the site lists, files and validates posts."

# id: (post text, substrings the message must contain: the field or line, what is wrong, the fix)
BAD_POSTS: dict[str, tuple[str, list[str]]] = {
    "no front matter": ("Just text.\n\n<!-- more -->\n", ["front matter", "no front matter found", "'---' line"]),
    "malformed yaml": ("---\ntitle: [unclosed\nslug: x\n---\n\nx\n<!-- more -->\n",
                       ["line 3", "not valid YAML", "Accepted"]),
    "front matter is a list": ("---\n- a\n- b\n---\n\nx\n<!-- more -->\n", ["front matter", "list, not a mapping"]),
    "empty front matter": ("---\n---\n\nx\n<!-- more -->\n", ["front matter", "is empty", "title, slug, date"]),
    "missing title": (post().replace('title: "A fixture post"\n', ""), ["field 'title'", "required but missing"]),
    "empty title": (post(title="   "), ["field 'title'", "title is empty", "non-empty text"]),
    "title not text": (post().replace('title: "A fixture post"', "title: 42"), ["field 'title'", "expected text"]),
    "missing date": (post().replace("date: 2025-03-04\n", ""), ["field 'date'", "required but missing", "2026-05-11"]),
    "impossible date": (post(date="2025-02-30"), ["line 4", "not a real calendar date", "YYYY-MM-DD"]),
    "date as text": (post(date="March 4 2025"), ["field 'date", "'March 4 2025' is not a calendar date", "ISO date"]),
    "quoted date": (post(date='"2025-03-04"'), ["field 'date", "is not a calendar date", "unquoted ISO date"]),
    "updated before created": (post(date="{created: 2025-03-04, updated: 2025-03-01}"),
                               ["field 'date'", "is before created", "on or after"]),
    "unknown date key": (post(date="{created: 2025-03-04, upated: 2025-03-05}"),
                         ["field 'date'", "unknown key 'upated'", "Did you mean 'updated'"]),
    "missing description": (post().replace(f'description: "{GOOD_DESC}"\n', ""),
                            ["field 'description'", "required but missing", "characters"]),
    "short description": (post(description="Too short."), ["field 'description'", "has 10 characters", "60 to 220"]),
    "long description": (post(description="word " * 60), ["field 'description'", "Accepted: 60 to 220"]),
    "html in description": (post(description="A description with <b>markup</b> inside it, which listings would render raw."),
                            ["field 'description'", "Markdown or HTML", "plain text"]),
    "misspelt category": (post(categories=("Kernels",)), ["field 'categories'", "'Kernels' is not an allowed category",
                                                          "Did you mean 'Kernel'", "Machine Learning Performance"]),
    "unknown category": (post(categories=("Gardening",)), ["field 'categories'", "not an allowed category", "Accepted:"]),
    "no categories": (post(categories=()), ["field 'categories'", "is empty"]),
    "duplicate category": (post(categories=("Kernel", "Kernel")), ["field 'categories'", "listed twice", "once"]),
    "category not a list": (post().replace("categories: [Kernel]", "categories: Kernel"),
                            ["field 'categories'", "expected a list", "YAML list"]),
    "missing slug": (post().replace("slug: a-fixture-post\n", ""), ["field 'slug'", "required but missing", "hyphens"]),
    "bad slug": (post(slug="My_Post"), ["field 'slug'", "'My_Post' is not a slug", "e.g. 'my-post'"]),
    "unknown author": (post(authors=("editor",)), ["field 'authors'", "'editor' is not in", "Did you mean 'editors'"]),
    "no authors": (post(authors=()), ["field 'authors'", "is empty"]),
    "draft not boolean": (post(extra="draft: maybe\n"), ["field 'draft'", "not a boolean", "true or false"]),
    "unknown key with typo": (post(extra="categores: [Kernel]\n"),
                              ["field 'categores'", "not a known key", "Did you mean 'categories'"]),
    "unknown key": (post(extra="colour: blue\n"), ["field 'colour'", "not a known key", "Accepted keys: title"]),
    "tags not distinct": (post(extra="tags: [nccl, nccl]\n"), ["field 'tags'", "listed twice"]),
    "upstream missing": (post().replace("upstream: {pytorch: v2.13.0}\n", ""), ["field 'upstream'", "required"]),
    "upstream on a branch": (post(upstream="{pytorch: main}"), ["field 'upstream'", "does not pin a version", "v2.13.0"]),
    "missing excerpt marker": (post(body="Only an opening.\n\n## Section\n\nText.\n"),
                               ["excerpt", "marker is missing", "<!-- more -->"]),
    "heading as second title": (post(body="# Another title\n\nOpening.\n\n<!-- more -->\n"),
                                ["line 11", "'# ' heading", "front matter 'title'"]),
    "unpinned github link": (post(body="Opening.\n\n<!-- more -->\n\nSee [reducer](https://github.com/pytorch/pytorch/"
                                       "blob/main/torch/csrc/distributed/c10d/reducer.cpp).\n"),
                             ["line 15", "moving branch 'main'", "pinned to a tag or commit"]),
    "unpinned master tree link": (post(body="Opening.\n\n<!-- more -->\n\nhttps://github.com/NVIDIA/nccl/tree/master/src\n"),
                                  ["line 15", "moving branch 'master'"]),
    "series part zero": (post(extra="series: {name: torch.compile, part: 0}\n"), ["field 'series.part'", "Accepted: 1 or more"]),
    "related to itself": (post(extra="related: [a-fixture-post]\n"), ["field 'related'", "is this post itself"]),
    "related unknown": (post(extra="related: [no-such-post]\n"), ["field 'related'", "no post has the slug"]),
    "link to missing file": (post(extra="links: [blog/posts/nowhere.md]\n"), ["field 'links'", "does not exist"]),
    "todo left in published post": (post(description="TODO: replace with one or two plain sentences about this post here."),
                                    ["field 'description'", "TODO", "draft: true"]),
}


@pytest.mark.parametrize("case", list(BAD_POSTS), ids=list(BAD_POSTS))
def test_bad_post_fails_the_build_with_a_clear_message(site: Site, case: str) -> None:
    text, expected = BAD_POSTS[case]
    site.write_post("bad.md", text)
    result = site.build()
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Traceback" not in output
    assert "Aborted with a BuildError" in output
    assert FILE in output
    for fragment in expected:
        assert fragment in output, f"{fragment!r} missing from:\n{output}"
    assert "Accepted" in output


def test_keys_material_and_the_feed_plugin_understand_are_accepted(site: Site) -> None:
    site.write_post("ok.md", post(extra="icon: material/chip\nsubtitle: A subtitle\ncomments: false\n"
                                        "rss: {feed_description: Another summary for feed readers.}\n"
                                        "hide: [toc]\nsearch: {boost: 2}\npin: true\nreadtime: 7\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    assert "7 min read" in text_of(site.html("blog/2025/03/04/a-fixture-post"))


def test_bad_posts_fail_without_strict_too(site: Site) -> None:
    site.write_post("bad.md", post(categories=("Kernels",)))
    cmd = [sys.executable, "-m", "mkdocs", "build", "-f", str(site.root / "mkdocs.yml"), "-d", str(site.site_dir)]
    # mkdocs.yml sets strict: true; override it to prove the hook does not rely on --strict.
    config = (site.root / "mkdocs.yml").read_text(encoding="utf-8").replace("strict: true", "strict: false")
    (site.root / "mkdocs.yml").write_text(config, encoding="utf-8")
    result = subprocess.run(cmd, cwd=site.root.parent, env=MKDOCS_ENV, capture_output=True, text=True)
    assert result.returncode != 0
    assert "Did you mean 'Kernel'" in result.stderr
    assert not (site.site_dir / "blog" / "index.html").exists()


def test_all_problems_in_all_posts_are_reported_together(site: Site) -> None:
    site.write_post("one.md", post(slug="one", categories=("Kernels",), description="Short."))
    site.write_post("two.md", post(slug="Two Words", extra="categores: [x]\n"))
    site.write_post("three.md", "---\ntitle: [\n---\n")
    result = site.build()
    out = result.stderr
    assert result.returncode != 0 and "Traceback" not in out
    assert "5 problems in blog posts" in out
    for fragment in ("blog/posts/one.md: field 'categories'", "blog/posts/one.md: field 'description'",
                     "blog/posts/two.md: field 'slug'", "blog/posts/two.md: field 'categores'",
                     "blog/posts/three.md: line"):
        assert fragment in out


def test_two_posts_with_the_same_url_name_both_files(site: Site) -> None:
    site.write_post("first.md", post(slug="same"))
    site.write_post("second.md", post(slug="same", title="Another"))
    result = site.build()
    assert result.returncode != 0
    assert "blog/posts/second.md: field 'slug': resolves to the same URL /blog/2025/03/04/same/ as " \
           "blog/posts/first.md" in result.stderr


def test_series_with_a_missing_part_is_reported(site: Site) -> None:
    site.write_post("p1.md", post(slug="part-one", extra="series: {name: Compilers, part: 1}\n"))
    site.write_post("p3.md", post(slug="part-three", extra="series: {name: Compilers, part: 3}\n"))
    result = site.build()
    assert result.returncode != 0
    assert "blog/posts/p3.md: field 'series.part': series 'Compilers' has no part 2" in result.stderr


def test_external_avatar_is_rejected(site: Site) -> None:
    authors = site.docs / "blog" / ".authors.yml"
    authors.write_text("authors:\n  editors:\n    name: E\n    description: D\n    avatar: https://example.com/a.png\n", encoding="utf-8")
    site.write_post("ok.md", post())
    result = site.build()
    assert result.returncode != 0
    assert "blog/.authors.yml: field 'authors.editors.avatar'" in result.stderr


def test_markup_in_a_title_is_escaped_everywhere(site: Site) -> None:
    site.write_post("xss.md", post(title='Why <script>alert("x")</script> & <b>tags</b> matter',
                                   extra="tags: [\"<i>t</i>\"]\n"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    for page in site.site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html, page
        assert "<b>tags</b>" not in html, page
        assert "<i>t</i>" not in html, page
    post_page = site.html("blog/2025/03/04/a-fixture-post")
    assert "<h1>Why &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;tags&lt;/b&gt; matter</h1>" in post_page
    assert 'Why <script>alert("x")</script> & <b>tags</b> matter' in text_of(post_page).replace("&lt;", "<") \
        .replace("&gt;", ">").replace("&amp;", "&").replace("&#34;", '"')
    index = json.loads((site.site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert all("<script>" not in doc["title"] for doc in index["docs"])


# --- the standalone checker, the JSON Schema, the scaffold ------------------------------------

def run_rules(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "hooks" / "post_rules.py"), *args],
                          cwd=cwd or ROOT.parent, capture_output=True, text=True, timeout=60)


def test_standalone_checker_reports_problems_without_building(site: Site) -> None:
    site.write_post("bad.md", post(categories=("Kernels",)))
    site.write_post("good.md", post(slug="good"))
    result = run_rules("check", str(site.docs))
    assert result.returncode == 1
    assert "blog/posts/bad.md: field 'categories'" in result.stderr and "Traceback" not in result.stderr
    assert not site.site_dir.exists()
    (site.docs / "blog" / "posts" / "bad.md").unlink()
    ok = run_rules("check", str(site.docs))
    assert ok.returncode == 0 and "1 posts checked, no problems" in ok.stdout


def test_real_posts_pass_the_standalone_checker() -> None:
    result = run_rules("check")
    assert result.returncode == 0, result.stderr


def test_committed_json_schema_is_in_sync() -> None:
    result = run_rules("schema")
    committed = (ROOT / "schemas" / "post-front-matter.schema.json").read_text(encoding="utf-8")
    assert result.stdout == committed, "run `make schema` and commit the result"
    schema = json.loads(committed)
    assert {"title", "slug", "date", "description", "categories", "authors", "upstream"} <= set(schema["required"])
    assert schema["additionalProperties"] is False


def test_json_schema_agrees_with_the_rules_on_examples(site: Site) -> None:
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "schemas" / "post-front-matter.schema.json").read_text(encoding="utf-8"))
    good = yaml.safe_load(post().split("---")[1])
    good["date"] = "2025-03-04"  # JSON has no date type: editors see the ISO string form
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "categores": ["Kernel"]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "categories": ["Kernels"]}, schema)


def test_scaffolded_post_is_valid_and_builds(site: Site) -> None:
    result = run_rules("new", "How NCCL's ring all-reduce works", "--category", "Communication",
                       "--date", "2025-06-01", "--docs-dir", str(site.docs))
    assert result.returncode == 0, result.stderr
    path = site.docs / "blog" / "posts" / "how-nccl-s-ring-all-reduce-works.md"
    text = path.read_text(encoding="utf-8")
    assert "<!-- more -->" in text and "draft: true" in text
    assert run_rules("check", str(site.docs)).returncode == 0
    build = site.build()
    assert build.returncode == 0, build.stderr
    # Publishing it unchanged is refused: the scaffold's TODOs must be written first.
    path.write_text(text.replace("draft: true\n", ""), encoding="utf-8")
    refused = run_rules("check", str(site.docs))
    assert refused.returncode == 1 and "TODO" in refused.stderr
    again = run_rules("new", "How NCCL's ring all-reduce works", "--category", "Communication",
                      "--docs-dir", str(site.docs))
    assert again.returncode == 1 and "already exists" in again.stderr
