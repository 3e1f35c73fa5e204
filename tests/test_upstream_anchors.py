"""Every line-anchored symbol link in a post points at lines that hold that symbol.

Posts link key functions as [`Symbol`](https://github.com/ORG/REPO/blob/TAG/path#Lx-Ly). Where the
file at that tag is on the machine at test time (see ``upstream_sources``), lines x..y must contain
the symbol's last name component (``Scheduler._init`` -> ``_init``, ``Allreduce<4>`` ->
``Allreduce``). Anchors into sources that are not on the machine are not passed silently: each
such source is a skipped test whose reason counts and lists them.
"""

from __future__ import annotations

import re
import zipfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from upstream_sources import CACHE, flash_attn_file, torch_file

ROOT = Path(__file__).resolve().parents[1]
POSTS = sorted((ROOT / "docs" / "blog" / "posts").glob("*.md"))

LINK = re.compile(
    r"\[`(?P<symbol>[^`\]]+)`\]\((?P<url>https://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/blob/"
    r"(?P<tag>[^/\s)]+)/(?P<path>[^#\s)]+)#L(?P<start>\d+)(?:-L(?P<end>\d+))?)\)")


@dataclass(frozen=True)
class Anchor:
    post: str
    line: int
    symbol: str
    url: str
    repo: str
    tag: str
    path: str
    start: int
    end: int

    def where(self) -> str:
        return f"{self.post}:{self.line}: [`{self.symbol}`]({self.url})"


def anchors(texts: dict[str, str]) -> list[Anchor]:
    """Every [`Symbol`](...blob/TAG/path#Lx[-Ly]) link in the given posts."""
    found = []
    for post, text in texts.items():
        for m in LINK.finditer(text):
            start = int(m["start"])
            found.append(Anchor(post, text.count("\n", 0, m.start()) + 1, m["symbol"], m["url"],
                                m["repo"], m["tag"], m["path"], start, int(m["end"] or start)))
    return found


def last_name(symbol: str) -> str:
    """The name the anchored lines must contain: `a::b.c<T>(x)` -> `c`, `struct S` -> `S`."""
    symbol = re.sub(r"^(struct|class|def|inline)\s+", "", symbol.strip())
    head = re.match(r"[\w.:]+", symbol)
    assert head, f"no name in link text {symbol!r}"
    return re.split(r"\.|::", head.group(0).strip(".:"))[-1]


def _wheel_file(name: str, version: str) -> Callable[[str], str | None]:
    """A file from a wheel some test already downloaded into the upstream cache, if there is one."""
    def read(path: str) -> str | None:
        for wheel in sorted(CACHE.glob(f"**/{name}-{version}-*.whl")):
            with zipfile.ZipFile(wheel) as zf:
                if path in zf.namelist():
                    return zf.read(path).decode("utf-8")
        return None
    return read


# (repository, tag) -> reader of a repository-relative path at that tag, or None if not here.
SOURCES: dict[tuple[str, str], Callable[[str], str | None]] = {
    ("pytorch/pytorch", "v2.13.0"): torch_file,
    ("Dao-AILab/flash-attention", "v2.8.3"): flash_attn_file,
    ("vllm-project/vllm", "v0.33.0"): _wheel_file("vllm", "0.33.0"),
}


def check(found: list[Anchor]) -> tuple[list[str], dict[str, list[Anchor]], int]:
    """(bad anchors, anchors whose source is not on the machine by source, anchors checked)."""
    bad, missing, checked = [], defaultdict(list), 0
    cache: dict[tuple[str, str, str], str | None] = {}
    for a in found:
        reader = SOURCES.get((a.repo, a.tag))
        key = (a.repo, a.tag, a.path)
        if key not in cache:
            cache[key] = reader(a.path) if reader else None
        text = cache[key]
        if text is None:
            missing[f"{a.repo}@{a.tag}"].append(a)
            continue
        checked += 1
        lines = text.splitlines()
        name = last_name(a.symbol)
        if a.end < a.start or a.end > len(lines):
            bad.append(f"{a.where()}: lines {a.start}-{a.end} outside the file ({len(lines)} lines)")
        elif not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", ln)
                     for ln in lines[a.start - 1:a.end]):
            bad.append(f"{a.where()}: `{name}` is not in lines {a.start}-{a.end}")
    return bad, dict(missing), checked


def _posts() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in POSTS}


FOUND = anchors(_posts())
BY_SOURCE: dict[str, list[Anchor]] = defaultdict(list)
for _a in FOUND:
    BY_SOURCE[f"{_a.repo}@{_a.tag}"].append(_a)


def test_posts_have_line_anchored_symbol_links():
    assert FOUND, "no [`Symbol`](https://github.com/.../blob/TAG/path#Lx-Ly) link in any post"


@pytest.mark.parametrize("source", sorted(BY_SOURCE))
def test_anchored_lines_hold_the_linked_symbol(source):
    bad, missing, checked = check(BY_SOURCE[source])
    assert bad == [], f"{len(bad)} of {checked} anchors into {source} are off:\n" + "\n".join(bad)
    if missing:
        listed = "; ".join(a.where() for a in missing[source])
        pytest.skip(f"{len(missing[source])} anchors into {source} not checked, source not on "
                    f"this machine: {listed}")


def test_the_check_finds_an_anchor_that_is_off():
    # Shift a real anchor of each checkable source by 2,000 lines, and rename one symbol.
    real = [a for a in FOUND if SOURCES.get((a.repo, a.tag)) and check([a])[2]]
    if not real:
        pytest.skip("no anchored source on this machine")
    a = real[0]
    url = a.url.replace(f"#L{a.start}", f"#L{a.start + 2000}", 1)
    if a.end != a.start:
        url = url.replace(f"-L{a.end}", f"-L{a.end + 2000}")
    shifted = f"x\n[`{a.symbol}`]({url})\n"
    renamed = f"[`no_such_symbol_here`]({a.url})\n"
    bad, _, checked = check(anchors({"shifted.md": shifted, "renamed.md": renamed}))
    assert checked == 2 and len(bad) == 2, bad
    assert bad[0].startswith("shifted.md:2: ") and "renamed.md:1: " in bad[1]


@pytest.mark.parametrize(("symbol", "name"), [
    ("flash_attn_func", "flash_attn_func"), ("Scheduler._init", "_init"),
    ("Allreduce<4>", "Allreduce"), ("struct Softmax", "Softmax"),
    ("Need_masking = Has_alibi || Causal_mask", "Need_masking"),
    ("torch::autograd::Engine::execute", "execute"), ("CatchErrorsWrapper.__call__", "__call__"),
])
def test_last_name_component(symbol, name):
    assert last_name(symbol) == name
