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

# The wiring: a few kinds of problem, each found before Markdown is rendered, stop the real build with
# the rules' own lines (test_rules.py holds the whole table of bad inputs, in-process).
BUILD_CASES: dict[str, tuple[str, str]] = {
    "front matter": (post(categories=("Kernels",)),
                     "blog/posts/bad.md: field 'categories': 'Kernels' is not an allowed category. "
                     "Did you mean 'Kernel'?"),
    "duplicate key": (post(extra='title: "Again"\n'),
                      "blog/posts/bad.md: field 'title': is given twice (lines 2 and 9)"),
    "missing snippet": (post(body="Opening.\n\n<!-- more -->\n\n--8<-- \"examples/nope.py\"\n"),
                        "blog/posts/bad.md: line 15: the snippet 'examples/nope.py' does not exist."),
    "broken internal link": (post(body="Opening.\n\n<!-- more -->\n\n[x](nowhere.md)\n"),
                             "blog/posts/bad.md: line 15: the link 'nowhere.md' points to "
                             "blog/posts/nowhere.md, which does not exist."),
}


@pytest.mark.parametrize("case", list(BUILD_CASES), ids=list(BUILD_CASES))
def test_bad_post_fails_the_build_with_the_rules_lines(site: Site, case: str) -> None:
    text, line = BUILD_CASES[case]
    site.write_post("bad.md", text)
    result = site.build()
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Traceback" not in output
    assert "Aborted with a BuildError" in output
    assert "1 problem in blog posts (paths relative to docs/):" in output
    assert f"  - {line}" in output


def test_a_post_dated_in_the_future_is_a_warning(site: Site) -> None:
    site.write_post("later.md", post(date="2999-01-01"))
    strict = site.build()
    assert strict.returncode != 0 and "Traceback" not in strict.stderr
    assert ("WARNING -  mlblog: blog/posts/later.md: field 'date': 2999-01-01 is in the future"
            in strict.stderr)
    config = (site.root / "mkdocs.yml").read_text(encoding="utf-8").replace("strict: true", "strict: false")
    (site.root / "mkdocs.yml").write_text(config, encoding="utf-8")
    cmd = [sys.executable, "-m", "mkdocs", "build", "-f", str(site.root / "mkdocs.yml"), "-d", str(site.site_dir)]
    relaxed = subprocess.run(cmd, cwd=site.root.parent, env=MKDOCS_ENV, capture_output=True, text=True)
    assert relaxed.returncode == 0, relaxed.stderr  # a warning: a plain build still publishes


def test_the_build_lists_the_drafts_it_left_out(site: Site) -> None:
    site.write_post("d.md", post(slug="unfinished", extra="draft: true\n"))
    site.write_post("p.md", post(slug="finished"))
    result = site.build()
    assert result.returncode == 0, result.stderr
    assert "INFO    -  mlblog: draft left out of this build: blog/posts/d.md" in result.stderr
    assert "blog/posts/p.md" not in result.stderr


def test_categories_come_from_the_rules_and_a_different_list_stops_the_build(site: Site) -> None:
    site.write_post("p.md", post(categories=("Communication",)))
    config = site.root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "categories_allowed:" not in text.replace("# categories_allowed", "")
    config.write_text(text.replace("      post_excerpt: required\n",
                                   "      post_excerpt: required\n      categories_allowed: [Kernel, Gardening]\n"),
                      encoding="utf-8")
    result = site.build()
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert ("mkdocs.yml: plugins.blog.categories_allowed: lists Kernel, Gardening, but the post rules allow "
            "Machine Learning Performance,") in result.stderr


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


# --- the standalone checker, the JSON Schema, the scaffold ------------------------------------

def run_rules(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlblog", *args],
                          cwd=cwd or ROOT.parent, capture_output=True, text=True, timeout=60)


def test_standalone_checker_reports_problems_without_building(site: Site) -> None:
    site.write_post("bad.md", post(categories=("Kernels",)))
    site.write_post("good.md", post(slug="good"))
    result = run_rules("-f", str(site.root / "mkdocs.yml"), "check")
    assert result.returncode == 1
    assert "blog/posts/bad.md: field 'categories'" in result.stderr and "Traceback" not in result.stderr
    assert not site.site_dir.exists()
    (site.docs / "blog" / "posts" / "bad.md").unlink()
    ok = run_rules("-f", str(site.root / "mkdocs.yml"), "check")
    assert ok.returncode == 0 and "1 posts checked, no problems" in ok.stdout, ok.stderr


def test_standalone_checker_reads_bodies_too(site: Site) -> None:
    site.write_post("p.md", post(body="Opening.\n\n<!-- more -->\n\n[x](gone.md)\n\n--8<-- \"examples/gone.py\"\n"))
    (site.docs / "about.md").write_text("# About\n\n--8<-- \"missing/about.txt\"\n", encoding="utf-8")
    result = run_rules("-f", str(site.root / "mkdocs.yml"), "check")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "3 problems in blog posts (paths relative to docs/):"
    assert lines[1].startswith("  - about.md: line 3: the snippet 'missing/about.txt' does not exist.")
    assert lines[2].startswith("  - blog/posts/p.md: line 15: the link 'gone.md' points to blog/posts/gone.md")
    assert lines[3].startswith("  - blog/posts/p.md: line 17: the snippet 'examples/gone.py' does not exist.")


def test_real_posts_pass_the_standalone_checker() -> None:
    result = run_rules("-f", str(ROOT / "mkdocs.yml"), "check")
    assert result.returncode == 0, result.stderr


def test_committed_json_schema_is_in_sync() -> None:
    result = run_rules("-f", str(ROOT / "mkdocs.yml"), "schema")
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
    path = site.docs / "blog" / "posts" / "how-nccls-ring-all-reduce-works.md"
    text = path.read_text(encoding="utf-8")
    assert "<!-- more -->" in text and "draft: true" in text
    assert run_rules("-f", str(site.root / "mkdocs.yml"), "check").returncode == 0
    build = site.build()
    assert build.returncode == 0, build.stderr
    # Publishing it unchanged is refused: the scaffold's TODOs must be written first.
    path.write_text(text.replace("draft: true\n", ""), encoding="utf-8")
    refused = run_rules("-f", str(site.root / "mkdocs.yml"), "check")
    assert refused.returncode == 1 and "TODO" in refused.stderr
    again = run_rules("new", "How NCCL's ring all-reduce works", "--category", "Communication",
                      "--docs-dir", str(site.docs))
    assert again.returncode == 1 and "already exists" in again.stderr


def test_scaffold_refuses_a_title_the_checks_would_refuse(site: Site) -> None:
    result = run_rules("new", "How `Engine.generate() Boots", "--category", "Kernel", "--docs-dir", str(site.docs))
    assert result.returncode == 2 and result.stderr == (
        "TITLE: the title has an unpaired backtick (character 5). Accepted: inline code between a pair of single "
        "backticks, as in 'How `Engine.generate()` Boots', or a title without backticks\n")
    assert not (site.docs / "blog" / "posts" / "how-engine-generate-boots.md").exists()
