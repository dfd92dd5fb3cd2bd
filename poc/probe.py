"""The shape of a probe, and the one boundary where a probe's failure becomes an observation.

A probe runs the SDK against a scripted model and returns observations: a JSON-serialisable dict
of strings, numbers, bools and short lists. A feature missing from the installed SDK is the
observation "absent", never an exception. A verdict says whether what was observed is what the
project's SDK port relies on.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from poc.words import one_line

if TYPE_CHECKING:
    from poc.scripted import ScriptedModels

Observations = dict[str, Any]
Verdict = Literal["ok", "differs", "absent", "error"]


PROBE_TIMEOUT_SECONDS = 30.0
SDK_LOGGER = "openai.agents"


@dataclass(frozen=True)
class Judgement:
    """A probe's verdict and the short value that shows it (one table cell)."""

    verdict: Verdict
    headline: str


@dataclass(frozen=True)
class Probe:
    """One question asked of the SDK."""

    name: str
    question: str
    observe: Callable[[ScriptedModels], Awaitable[Observations]]
    judge: Callable[[Observations], Judgement]


def run_probe(probe: Probe, models: ScriptedModels) -> Observations:
    """Run one probe to completion; its failure is an observation ({"error": "Type: text"})."""
    with _captured_sdk_output() as captured:
        try:
            observations = asyncio.run(asyncio.wait_for(probe.observe(models), PROBE_TIMEOUT_SECONDS))
        except Exception as error:  # boundary: a broken probe is reported, never crashes the run
            observations = {"error": one_line(f"{type(error).__name__}: {error}")}
    if captured:
        observations["sdk_said"] = captured[:5]
    return observations


def judge(probe: Probe, observations: Observations) -> Judgement:
    """The probe's verdict; a probe that failed (or a judge that cannot read it) is an "error"."""
    if "error" in observations:
        return Judgement("error", str(observations["error"])[:120])
    try:
        return probe.judge(observations)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        return Judgement("error", f"cannot judge: {type(error).__name__}: {error}")


@contextmanager
def _captured_sdk_output() -> Iterator[list[str]]:
    """Collect the SDK's log records and Python warnings instead of letting them escape.

    Warnings are errors under pytest, and the SDK logs expected tool failures at ERROR level:
    both are kept as data ("sdk_said") rather than printed or raised.
    """
    lines: list[str] = []
    handler = _ListHandler(lines)
    logger = logging.getLogger(SDK_LOGGER)
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield lines
        lines.extend(f"{w.category.__name__}: {w.message}"[:160] for w in caught)
    finally:
        logger.removeHandler(handler)


class _ListHandler(logging.Handler):
    """A logging handler that appends the first line of each record to a list."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(level=logging.WARNING)
        self._lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        first_line = record.getMessage().splitlines()[0] if record.getMessage() else ""
        self._lines.append(f"{record.levelname}: {first_line}"[:160])
