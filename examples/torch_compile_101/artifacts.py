"""Collect what TORCH_LOGS would print, as strings, and make it comparable across runs.

``record_artifacts("graph_code", "aot_graphs", ...)`` is the in-process equivalent of
``TORCH_LOGS="graph_code,aot_graphs"``: it enables the artifacts with ``torch._logging.set_logs``
and attaches a handler that keeps each message, grouped by artifact name, instead of printing it.
``normalise`` removes what differs between runs and machines (absolute paths, uuids in graph
names, object ids, temporary directories) so a test can compare a regenerated artifact with the
committed one.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import torch

REPO_ROOT = Path(__file__).resolve().parents[2]

# The registered torch loggers that artifact loggers propagate to (artifact loggers are named
# "<module>.__<artifact>", e.g. torch._dynamo.output_graph.__graph_code).
_PARENT_LOGGERS = (
    "torch._dynamo",
    "torch._functorch.aot_autograd",
    "torch._functorch._aot_autograd",
    "torch._inductor",
)


class ArtifactRecorder(logging.Handler):
    """A logging handler that files each artifact message under its artifact name."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: dict[str, list[str]] = defaultdict(list)

    def emit(self, record: logging.LogRecord) -> None:
        _, sep, artifact = record.name.rpartition(".__")
        if sep:
            self.records[artifact].append(record.getMessage())


@contextlib.contextmanager
def record_artifacts(*names: str) -> Iterator[ArtifactRecorder]:
    """Enable the named TORCH_LOGS artifacts and collect them instead of printing them."""
    torch._logging.set_logs(**{name: True for name in names})
    recorder = ArtifactRecorder()
    silenced: list[tuple[logging.Handler, int]] = []
    parents = [logging.getLogger(name) for name in _PARENT_LOGGERS]
    for logger in parents:
        for handler in logger.handlers:  # torch's own stderr handlers: keep them quiet
            silenced.append((handler, handler.level))
            handler.setLevel(logging.CRITICAL + 1)
        logger.addHandler(recorder)
    try:
        yield recorder
    finally:
        for logger in parents:
            logger.removeHandler(recorder)
        for handler, level in silenced:
            handler.setLevel(level)
        torch._logging.set_logs()  # back to the defaults (or TORCH_LOGS)


_UUID = re.compile(r"_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12}")


def normalise(text: str, *, temp_dirs: tuple[str, ...] = ()) -> str:
    """Replace run- and machine-specific parts of an artifact with stable placeholders."""
    for d in temp_dirs:
        text = text.replace(d, "<tmp>")
    text = re.sub(r"[^\s\"',]*/site-packages/torch/", "torch/", text)
    text = text.replace(str(REPO_ROOT) + "/", "")
    text = _UUID.sub("_<uuid>", text)
    text = re.sub(r"0x[0-9a-f]{6,}", "0x<addr>", text)
    text = re.sub(r"(___check_obj_id\([^,]+), \d+\)", r"\1, <id>)", text)
    text = re.sub(r"<eval_with_key>\.\d+", "<eval_with_key>.N", text)
    text = re.sub(r"Guard eval latency = [\d.]+ us", "Guard eval latency = <t> us", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"
