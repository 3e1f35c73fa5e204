"""One shape for every content mistake: the file (relative to docs/), the field or line, what is
wrong, what is accepted; all of a run's problems are reported together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .schema import FORBIDDEN_CHARACTER


@dataclass(frozen=True, order=True)
class Problem:
    file: str  # relative to docs/
    where: str  # "field 'categories'" or "line 12"
    message: str  # what is wrong and what is accepted
    # A warning does not stop a plain build, but fails a strict one (the site builds strictly).
    level: Literal["error", "warning"] = field(default="error", compare=False)

    def __str__(self) -> str:
        # A value quoted back may hold a control character (an ANSI escape would restyle the
        # author's terminal): shown as an escape, never as itself.
        text = f"{self.file}: {self.where}: {self.message}"
        return FORBIDDEN_CHARACTER.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def format_problems(problems: Sequence[Problem], what: str = "problem",
                    scope: str = "blog posts (paths relative to docs/)") -> str:
    noun = what if len(problems) == 1 else what + "s"
    return "\n".join([f"{len(problems)} {noun} in {scope}:", *(f"  - {p}" for p in problems)])


class Stop(Exception):
    """What stops a build or a check, its message written for the author (the plugin turns it into
    MkDocs' PluginError; the command line prints it)."""
