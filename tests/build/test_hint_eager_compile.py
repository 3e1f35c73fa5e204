"""mlblog/publish/scripts.py (hint_bundle): Material's bundle starts with V8's compile hint, its source map still
points every line where Material's did, and a rebuild never adds the line twice. (What the hint
saves on the main thread is a benchmark: benchmarks/eager_compile.py.)"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import material as material_package
import pytest
from mkdocs.config import load_config
from support import ROOT, Site

from mlblog.posts import Stop  # noqa: E402
from mlblog.publish.scripts import hint_bundle  # noqa: E402

MATERIAL_JS = Path(material_package.__file__).parent / "templates" / "assets" / "javascripts"


def built_bundle(site_dir: Path) -> Path:
    [bundle] = (site_dir / "assets" / "javascripts").glob("bundle.*.min.js")
    return bundle


def test_bundle_starts_with_the_hint_and_is_otherwise_materials(reader_site: Site) -> None:
    bundle = built_bundle(reader_site.site_dir)
    data = bundle.read_bytes()
    # At the top: V8 applies the comment to the functions after it, here all of them.
    assert data.split(b"\n", 1)[0] == b"//# allFunctionsCalledOnLoad"
    assert data == b"//# allFunctionsCalledOnLoad\n" + (MATERIAL_JS / bundle.name).read_bytes()
    assert data.count(b"allFunctionsCalledOnLoad") == 1


def test_source_map_is_moved_down_one_line(reader_site: Site) -> None:
    bundle = built_bundle(reader_site.site_dir)
    ours = json.loads(bundle.with_name(bundle.name + ".map").read_text(encoding="utf-8"))
    material = json.loads((MATERIAL_JS / (bundle.name + ".map")).read_text(encoding="utf-8"))
    # One group per generated line: the hint's line maps to nothing, Material's lines as before.
    assert ours["mappings"].split(";") == ["", *material["mappings"].split(";")]
    assert {k: v for k, v in ours.items() if k != "mappings"} == {k: v for k, v in material.items() if k != "mappings"}
    # The bundle still names its map on its last line, so tools find it.
    assert bundle.read_text(encoding="utf-8").rstrip().endswith(f"//# sourceMappingURL={bundle.name}.map")


def theme_dirs(site: Site) -> list[Path]:
    return [Path(d) for d in load_config(str(site.root / "mkdocs.yml")).theme.dirs]


def test_running_again_on_a_built_site_adds_nothing(reader_site: Site, tmp_path: Path) -> None:
    # `mkdocs serve --dirty` keeps files it did not copy again: the hook must start from Material's.
    site_dir = tmp_path / "site"
    shutil.copytree(reader_site.site_dir / "assets", site_dir / "assets")
    bundle = built_bundle(site_dir)
    source_map = bundle.with_name(bundle.name + ".map")
    before = bundle.read_bytes(), source_map.read_bytes()
    dirs = theme_dirs(reader_site)
    hint_bundle(site_dir, dirs)
    hint_bundle(site_dir, dirs)
    assert (bundle.read_bytes(), source_map.read_bytes()) == before


def test_a_stale_bundle_no_theme_ships_is_left_alone(reader_site: Site, tmp_path: Path) -> None:
    # `mkdocs serve --dirty` after a Material upgrade leaves the old bundle in the site.
    site_dir = tmp_path / "site"
    shutil.copytree(reader_site.site_dir / "assets", site_dir / "assets")
    stale = site_dir / "assets" / "javascripts" / "bundle.00000000.min.js"
    stale.write_bytes(b"old();")
    hint_bundle(site_dir, theme_dirs(reader_site))
    assert stale.read_bytes() == b"old();"


def test_a_broken_source_map_in_the_theme_is_a_clear_error(reader_site: Site, tmp_path: Path) -> None:
    site_dir = tmp_path / "site"
    shutil.copytree(reader_site.site_dir / "assets", site_dir / "assets")
    name = built_bundle(site_dir).name
    override = tmp_path / "overrides"  # a theme folder ahead of Material's, shipping its own bundle
    (override / "assets" / "javascripts").mkdir(parents=True)
    (override / "assets" / "javascripts" / name).write_bytes(b"ours();")
    (override / "assets" / "javascripts" / (name + ".map")).write_bytes(b'{"version": 3, "sources": [')
    with pytest.raises(Stop, match=rf"cannot move .*{name}\.map down one line"):
        hint_bundle(site_dir, [override, *theme_dirs(reader_site)])
    assert built_bundle(site_dir).read_bytes() == b"//# allFunctionsCalledOnLoad\nours();"


def test_a_site_without_materials_bundle_is_a_clear_error(reader_site: Site, tmp_path: Path) -> None:
    site_dir = tmp_path / "site"
    (site_dir / "assets" / "javascripts").mkdir(parents=True)
    with pytest.raises(Stop, match=r"expected Material's one bundle at .*bundle\.\*\.min\.js .*found 0"):
        hint_bundle(site_dir, theme_dirs(reader_site))


# The benchmark's reading of a trace (benchmarks/eager_compile.py): what its report's numbers mean.
sys.path.insert(0, str(ROOT / "benchmarks"))
import eager_compile  # noqa: E402


def test_benchmark_compares_against_materials_own_bundle(reader_site: Site, tmp_path: Path) -> None:
    plain = eager_compile.unhinted_copy(reader_site.site_dir, tmp_path / "plain")
    bundle = built_bundle(plain)
    assert bundle.read_bytes() == (MATERIAL_JS / bundle.name).read_bytes()
    assert bundle.with_name(bundle.name + ".map").read_bytes() == (MATERIAL_JS / (bundle.name + ".map")).read_bytes()
    assert built_bundle(reader_site.site_dir).read_text(encoding="utf-8").startswith("//# allFunctionsCalledOnLoad")


def test_benchmark_reads_the_painting_renderer_counts_nested_compiles_once_and_blocking_after_the_paint() -> None:
    main, other, spare = {"pid": 1, "tid": 1}, {"pid": 1, "tid": 2}, {"pid": 2, "tid": 1}
    events = [
        {**main, "name": "thread_name", "ph": "M", "args": {"name": "CrRendererMain"}},
        {**other, "name": "thread_name", "ph": "M", "args": {"name": "ThreadPoolForegroundWorker"}},
        {**spare, "name": "thread_name", "ph": "M", "args": {"name": "CrRendererMain"}},
        {**main, "name": "firstContentfulPaint", "ph": "R", "ts": 100_000,
         "args": {"data": {"isOutermostMainFrame": True}}},
        # An iframe's earlier paint in another renderer: not the page's.
        {**spare, "name": "firstContentfulPaint", "ph": "R", "ts": 50_000,
         "args": {"data": {"isOutermostMainFrame": False}}},
        # A task before the paint: not blocking, though long.
        {**main, "name": "ThreadControllerImpl::RunTask", "ph": "X", "ts": 0, "dur": 90_000},
        # After it: 120 ms (70 blocking) and 40 ms (none).
        {**main, "name": "ThreadControllerImpl::RunTask", "ph": "X", "ts": 200_000, "dur": 120_000},
        {**main, "name": "ThreadControllerImpl::RunTask", "ph": "X", "ts": 400_000, "dur": 40_000},
        # A 10 ms compile with a parse nested in it, and a 5 ms one: 15 ms; the worker's does not count.
        {**main, "name": "V8.CompileCode", "ph": "X", "ts": 210_000, "dur": 10_000},
        {**main, "name": "V8.ParseFunction", "ph": "X", "ts": 212_000, "dur": 4_000},
        {**main, "name": "V8.PreParse", "ph": "X", "ts": 300_000, "dur": 5_000},
        {**other, "name": "V8.CompileCode", "ph": "X", "ts": 210_000, "dur": 50_000},
        # The other renderer's main thread: none of it counts.
        {**spare, "name": "ThreadControllerImpl::RunTask", "ph": "X", "ts": 200_000, "dur": 300_000},
        {**spare, "name": "V8.CompileCode", "ph": "X", "ts": 210_000, "dur": 80_000},
    ]
    assert eager_compile.summarise(events) == {"compile": 15.0, "tasks": 250.0, "blocking": 70.0}
