"""What the two hooks that render at build (hooks/render_math.py: KaTeX in Node,
hooks/render_diagrams.py: Mermaid in Chromium) share: one state per build, made in on_config, whose
renderer is started on first use and stopped however the build ends (done, stopped by a problem,
failed, or ``mkdocs serve`` shutting down), and whose problems stop the build once, all listed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from mkdocs.exceptions import PluginError
from post_checks import Problem, format_problems

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files


class RenderState:
    """One build's renders of one kind. A subclass starts its renderer on first use."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def close(self) -> None:
        """Stop the renderer, if it was started."""
        raise NotImplementedError

    def summary(self) -> str | None:
        """The build log's line about this build's renders, or None when there were none."""
        raise NotImplementedError


State = TypeVar("State", bound=RenderState)


class BuildRenders(Generic[State]):
    """The lifecycle hooks of a rendering hook module, bound to its state: the module takes them
    as its own (``on_config, on_env, ... = renders.hooks()``) and reads ``renders.state``."""

    def __init__(self, make_state: Callable[[MkDocsConfig], State], problem: str,
                 log: logging.Logger | logging.LoggerAdapter) -> None:
        self._make_state = make_state
        self._problem = problem  # "math problem": how format_problems names one
        self._log = log
        self._state: State | None = None

    @property
    def state(self) -> State:
        if self._state is None:
            raise RuntimeError("a rendering hook ran before on_config")
        return self._state

    def stop_on_problems(self) -> None:
        """Stop the build with every problem found so far, if there is one."""
        if self._state is not None and self._state.problems:
            problems = sorted(set(self._state.problems))
            self.close()
            raise PluginError(format_problems(problems, self._problem))

    def close(self) -> None:
        if self._state is not None:
            self._state.close()

    def hooks(self) -> tuple[Callable[..., object], ...]:
        """on_config, on_env, on_post_build, on_build_error, on_shutdown, in that order."""
        return self.on_config, self.on_env, self.on_post_build, self.on_build_error, self.on_shutdown

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.close()  # the previous build's, under `mkdocs serve`
        self._state = self._make_state(config)
        return config

    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        """Every page's content is rendered by now: its problems stop the build before any page is written."""
        self.stop_on_problems()
        return env

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if (line := self.state.summary()) is not None:
            self._log.info(line)
        self.close()

    def on_build_error(self, *, error: Exception) -> None:
        self.close()

    def on_shutdown(self) -> None:
        self.close()
