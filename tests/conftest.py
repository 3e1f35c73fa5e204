from __future__ import annotations

import fcntl
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import chromium
from hypothesis import settings
from playwright.sync_api import Browser
from reader_fixtures import write_reader_posts
from support import ROOT, Site, make_site, post

LAYERS = ("unit", "build", "browser", "examples")
# Generated inputs through whole builds (tests/build/test_safety.py): 200 in `make test`, 25 in `make
# test-fast`, which passes --hypothesis-profile=fast. A test that names its own max_examples keeps it.
settings.register_profile("full", max_examples=200)
settings.register_profile("fast", max_examples=25)
settings.load_profile("full")
# Example tests that download nothing: they need only the installed torch and the repository.
NO_DOWNLOADS = frozenset({"test_cutlass_deep_dive.py", "test_pytorch_ddp_deep_dive.py", "test_torch_compile_101.py",
                          "test_torch_compile_deep_dive_inductor.py"})


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups into the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test carries the marker of its layer, the folder it is in: unit (the rules and the core,
    in-process), build (real builds), browser (Chromium over built sites), examples (the posts'
    companion code). `make test-fast` runs `-m "unit and not slow"`.

    Under pytest-xdist (`make test` runs two processes with --dist loadgroup) the example tests that
    download upstream wheels and sources into shared caches (tests/upstream_sources.py, the posts'
    real_*.py) are one group, run by one process in order, since two processes must not fill a cache
    at once; the files in NO_DOWNLOADS (torch only) are shared out like the rest, except that a module
    whose tests read a module-scoped fixture is a group of its own (uses_module_fixture).

    A whole run (no paths given) must reach every test file: pytest's default norecursedirs holds
    "build", and once kept tests/build out of every `make test` without a word."""
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("lf"):
        collected = {Path(str(item.fspath)) for item in items}
        missed = [p.relative_to(ROOT).as_posix() for p in sorted(ROOT.glob("tests/*/test_*.py")) if p not in collected]
        if missed:
            raise pytest.UsageError(f"{len(missed)} test files were not collected: {', '.join(missed)}. "
                                    "Check norecursedirs in pytest.ini")
    for item in items:
        path = Path(str(item.fspath))
        layer = path.relative_to(ROOT / "tests").parts[0]
        if layer in LAYERS:
            item.add_marker(getattr(pytest.mark, layer))
        if layer == "examples" and path.name not in NO_DOWNLOADS:
            item.add_marker(pytest.mark.xdist_group("examples"))
        elif uses_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(path.stem))
    # Groups first, the largest first: a group runs whole in one process, and one handed out last
    # would leave the other process idle while it runs.
    sizes = Counter(group_of(item) for item in items)
    items.sort(key=lambda item: -sizes[group_of(item)] if group_of(item) else 0)


def group_of(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    return mark.args[0] if mark else None


UNGROUPED = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Under --dist loadgroup, pytest-xdist runs a group in one process only when it saw the group as it
    made the test ids; a group it missed is shared out silently (under pytest 9.2 every group was).
    Such tests fail, saying so (pytest_runtest_setup)."""
    if getattr(session.config.option, "loadgroup", False):  # set in each pytest-xdist process
        for item in session.items:
            item.stash[UNGROUPED] = bool(group_of(item)) and not item.nodeid.endswith(f"@{group_of(item)}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.stash.get(UNGROUPED, False):
        pytest.fail(f"pytest-xdist shares out this test of group '{group_of(item)}' instead of running the group in "
                    "one process (its id has no @group): see the pin of pytest in requirements-test.txt", pytrace=False)


def uses_module_fixture(item: pytest.Item) -> bool:
    """Whether the test reads a module-scoped fixture: its module then runs in one process, which sets the
    fixture up once (shared out, each process would build the same site or run the same capture again)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    """An empty copy of the real site in tmp_path, ready for fixture posts."""
    return make_site(tmp_path / "src")


FIXTURE_POSTS = {
    # name: (title, slug, date, categories, description)
    "ddp.md": ("Buckets and the reducer", "buckets-and-the-reducer", "2025-05-11",
               ("Machine Learning Performance", "Distributed Training"),
               "How gradient buckets are formed and reduced while backward is still running."),
    "flash.md": ("Tiles and the online softmax", "tiles-and-the-online-softmax", "2025-08-14",
                 ("Kernel",), "Why attention is memory-bound and how tiling with an online softmax fixes it."),
    "serving.md": ("A scheduler with a token budget", "a-scheduler-with-a-token-budget", "2026-04-27",
                   ("LLM Inference",), "How a serving engine packs prefill and decode tokens under one budget."),
}


def write_fixture_posts(s: Site) -> None:
    for name, (title, slug, date, cats, desc) in FIXTURE_POSTS.items():
        body = (
            f"The opening of {title.lower()}.\n\n<!-- more -->\n\n## Details\n\n"
            f"The word zanzibarquux appears only in {slug}.\n\n```python\nprint('tiles')\n```\n"
            if slug.startswith("tiles") else
            f"The opening of {title.lower()}.\n\n<!-- more -->\n\n## Details\n\nMore prose.\n"
        )
        s.write_post(name, post(title=title, slug=slug, date=date, categories=cats, description=desc, body=body))


def _built(tmp_path_factory: pytest.TempPathFactory, name: str, write: Callable[[Site], None] | None,
           *, keep_posts: bool = False) -> Site:
    """A site built strictly once per test run. Under pytest-xdist each process asks for it: the first
    builds it in the run's folder (above each process's own), the others wait for it and read it.
    Tests only read these sites."""
    worker_base = tmp_path_factory.getbasetemp()
    shared = os.environ.get("PYTEST_XDIST_WORKER") is not None
    folder = worker_base.parent / f"shared-{name}" if shared else tmp_path_factory.mktemp(name)
    site = Site(folder / "src")
    with open(worker_base.parent / f"shared-{name}.lock" if shared else folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (folder / "built").exists():
            return site
        shutil.rmtree(folder / "src", ignore_errors=True)  # a process before this one failed half-way
        make_site(folder / "src", keep_posts=keep_posts)
        if write is not None:
            write(site)
        result = site.build()
        assert result.returncode == 0, result.stderr
        assert not keep_posts or "WARNING" not in result.stderr, result.stderr  # the real site: not one warning
        (folder / "built").touch()
    return site


@pytest.fixture(scope="session")
def built_fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A site with three fixture posts."""
    return _built(tmp_path_factory, "fixture", write_fixture_posts)


@pytest.fixture(scope="session")
def reader_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A site with the reader-feature fixture posts (tests/reader_fixtures.py)."""
    return _built(tmp_path_factory, "reader", write_reader_posts)


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The real site with its real posts."""
    return _built(tmp_path_factory, "real", None, keep_posts=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the whole run; each test opens its own context."""
    with chromium() as b:
        yield b
