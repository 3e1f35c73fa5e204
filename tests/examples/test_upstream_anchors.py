"""Every line-anchored symbol link in a post points at lines that hold that symbol.

Posts link key functions as [`Symbol`](https://github.com/ORG/REPO/blob/TAG/path#Lx-Ly). Every
repository whose files a package registry ships at the pinned version is read from that package
(``upstream_sources``: the installed torch 2.13.0, the flash-attn 2.8.3 sdist, the vllm 0.33.0,
sglang 0.5.23 and transformers 5.24.0 wheels), and lines x..y must contain the symbol's last name
component (``Scheduler._init`` -> ``_init``, ``Allreduce<4>`` -> ``Allreduce``); a file the package
should hold but does not is an error too, and so is a package that cannot be downloaded. What no
registry ships at the pin (NCCL's sources, torch's C++, CUTLASS 4.7.0's headers, a commit between
releases) is not counted as checked: pytest's summary carries one short line per repository saying
how many anchors were left and why.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from upstream_sources import (
    flash_attn_file,
    flash_attn_sdist,
    flash_attn_ships,
    torch_file,
    torch_present,
    wheel_reader,
)

ROOT = Path(__file__).resolve().parents[2]
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


@dataclass(frozen=True)
class Source:
    """A local copy of one repository at one tag."""

    present: Callable[[], bool]  # is the copy on this machine (fetching it if this source can)?
    read: Callable[[str], str | None]  # text of a repository path in the copy, None if absent
    ships: Callable[[str], bool]  # should the copy hold this path? (if so, a miss is an error)


# (repository, tag) -> its local copy.
SOURCES: dict[tuple[str, str], Source] = {
    ("pytorch/pytorch", "v2.13.0"): Source(
        torch_present, torch_file, lambda p: p.startswith("torch/") and p.endswith((".py", ".pyi"))),
    ("Dao-AILab/flash-attention", "v2.8.3"): Source(
        lambda: flash_attn_sdist() is not None, flash_attn_file, flash_attn_ships),
    ("vllm-project/vllm", "v0.33.0"): Source(lambda: True, *wheel_reader("vllm==0.33.0", {"vllm/": "vllm/"})),
    ("sgl-project/sglang", "v0.5.23"): Source(
        lambda: True, *wheel_reader("sglang==0.5.23", {"python/sglang/": "sglang/"})),
    ("huggingface/transformers", "v5.24.0"): Source(
        lambda: True, *wheel_reader("transformers==5.24.0", {"src/transformers/": "transformers/"})),
}
# Why the anchors of a repository no package ships are not checked, one short line each.
NOT_SHIPPED = {
    "NVIDIA/nccl": "no package on a registry ships NCCL's sources (only its headers and library)",
    "pytorch/torchtune": "pinned at a commit between releases",
    "QwenLM/Qwen3": "its documentation and technical report, at a commit, are in no package",
    # nvidia-cutlass 4.2.0.0, the newest wheel with CUTLASS's headers, is not v4.7.0: the cutlass post's own
    # test checks the anchors into the files that are byte-equal in both and lists the rest as read by hand.
    "NVIDIA/cutlass": "no package ships v4.7.0's headers (the cutlass post's test checks what it can)",
}


@dataclass
class Result:
    bad: list[str]  # anchors that are off, or into a file the copy should hold and does not
    unshipped: list[Anchor]  # anchors into files the copy does not ship: not checked
    checked: int  # anchors whose lines were read and compared


def check(found: list[Anchor], source: Source) -> Result:
    """Check anchors into one present source."""
    result = Result([], [], 0)
    texts: dict[str, str | None] = {}
    for a in found:
        if a.path not in texts:
            texts[a.path] = source.read(a.path)
        text = texts[a.path]
        if text is None:
            if source.ships(a.path):
                result.bad.append(f"{a.where()}: no file {a.path} at {a.tag}")
            else:
                result.unshipped.append(a)
            continue
        result.checked += 1
        lines = text.splitlines()
        name = last_name(a.symbol)
        if a.end < a.start or a.end > len(lines):
            result.bad.append(f"{a.where()}: lines {a.start}-{a.end} outside the file "
                              f"({len(lines)} lines)")
        elif not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", ln)
                     for ln in lines[a.start - 1:a.end]):
            result.bad.append(f"{a.where()}: `{name}` is not in lines {a.start}-{a.end}")
    return result


def _posts() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in POSTS}


FOUND = anchors(_posts())
BY_SOURCE: dict[tuple[str, str], list[Anchor]] = defaultdict(list)
for _a in FOUND:
    BY_SOURCE[(_a.repo, _a.tag)].append(_a)
# Every source a registry ships gets a test; a download that fails fails that test.
PRESENT = {key: SOURCES[key] for key in sorted(BY_SOURCE) if key in SOURCES and SOURCES[key].present()}


@functools.cache
def result_of(key: tuple[str, str]) -> Result:
    return check(BY_SOURCE[key], PRESENT[key])


def not_checked_summary() -> list[str]:
    """One line per repository: how many of its anchors were not checked, and why."""
    lines = []
    for key, found in sorted(BY_SOURCE.items()):
        if key in PRESENT:
            left = len(result_of(key).unshipped)
            why = "in files its package does not ship (C++ sources, build files)"
        else:
            left = len(found)
            why = NOT_SHIPPED.get(key[0], "no package source is wired up for it in SOURCES")
        if left:
            lines.append(f"{key[0]}@{key[1]}: {left} of {len(found)} anchors not checked: {why}")
    return lines


def _name(key: tuple[str, str]) -> str:
    return f"{key[0]}@{key[1]}"


def test_posts_have_line_anchored_symbol_links():
    assert FOUND, "no [`Symbol`](https://github.com/.../blob/TAG/path#Lx-Ly) link in any post"


def test_every_repository_is_checked_or_has_a_reason():
    """A repository newly linked from a post either gets a package source or a stated reason."""
    assert set(BY_SOURCE) - set(PRESENT) <= {k for k in BY_SOURCE if k[0] in NOT_SHIPPED}, \
        sorted(set(BY_SOURCE) - set(PRESENT))
    lines = not_checked_summary()
    if lines:
        warnings.warn("line anchors not checked:\n" + "\n".join(lines), stacklevel=1)


@pytest.mark.parametrize("key", sorted(PRESENT), ids=_name)
def test_anchored_lines_hold_the_linked_symbol(key):
    result = result_of(key)
    assert result.bad == [], (f"{len(result.bad)} of {len(BY_SOURCE[key])} anchors into "
                              f"{_name(key)} are off:\n" + "\n".join(result.bad))
    assert result.checked + len(result.unshipped) == len(BY_SOURCE[key])


# A made-up source, so the checker's own test never depends on what is on the machine.
FAKE_FILE = "\n".join(["# header", "def alpha(x):", "    return x", "", "class Beta:",
                       "    def gamma(self):", "        pass", *["# filler"] * 20])
FAKE = Source(lambda: True, {"pkg/mod.py": FAKE_FILE}.get, lambda p: p.startswith("pkg/"))
FAKE_URL = "https://github.com/o/r/blob/v1/{path}#L{start}-L{end}"


@pytest.mark.parametrize(("symbol", "path", "start", "end", "problem"), [
    ("alpha", "pkg/mod.py", 2, 3, None),
    ("Beta.gamma", "pkg/mod.py", 5, 7, None),
    ("alpha", "pkg/mod.py", 5, 7, "`alpha` is not in lines 5-7"),  # shifted inside the file
    ("alpha", "pkg/mod.py", 2000, 2010, "lines 2000-2010 outside the file (27 lines)"),
    ("alpha", "pkg/mod.py", 3, 2, "lines 3-2 outside the file"),
    ("no_such_symbol", "pkg/mod.py", 1, 27, "`no_such_symbol` is not in lines 1-27"),
    ("alpha", "pkg/typo.py", 2, 3, "no file pkg/typo.py at v1"),  # the copy should hold it
    ("alpha", "other/mod.py", 2, 3, "unshipped"),  # the copy does not ship it: listed, not checked
])
def test_the_check_finds_every_kind_of_bad_anchor(symbol, path, start, end, problem):
    url = FAKE_URL.format(path=path, start=start, end=end)
    result = check(anchors({"post.md": f"text\n[`{symbol}`]({url})\n"}), FAKE)
    if problem is None:
        assert (result.bad, result.unshipped, result.checked) == ([], [], 1)
    elif problem == "unshipped":
        assert (result.bad, len(result.unshipped), result.checked) == ([], 1, 0)
    else:
        assert len(result.bad) == 1 and result.bad[0].startswith(f"post.md:2: [`{symbol}`]("), result
        assert problem in result.bad[0], result.bad[0]


@pytest.mark.parametrize("key", sorted(PRESENT), ids=_name)
def test_a_real_anchor_shifted_off_its_symbol_is_caught(key):
    # Move the first checked anchor of each present source to lines that do not hold its symbol.
    a = next(a for a in BY_SOURCE[key] if PRESENT[key].read(a.path) is not None)
    lines = PRESENT[key].read(a.path).splitlines()
    name = last_name(a.symbol)
    far = next(i for i in range(len(lines), 0, -1)
               if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lines[i - 1]))
    url = a.url.split("#")[0] + f"#L{far}-L{far}"
    result = check(anchors({"shifted.md": f"[`{a.symbol}`]({url})\n"}), PRESENT[key])
    assert result.checked == 1 and len(result.bad) == 1, result


@pytest.mark.parametrize(("symbol", "name"), [
    ("flash_attn_func", "flash_attn_func"), ("Scheduler._init", "_init"),
    ("Allreduce<4>", "Allreduce"), ("struct Softmax", "Softmax"),
    ("Need_masking = Has_alibi || Causal_mask", "Need_masking"),
    ("torch::autograd::Engine::execute", "execute"), ("CatchErrorsWrapper.__call__", "__call__"),
])
def test_last_name_component(symbol, name):
    assert last_name(symbol) == name
