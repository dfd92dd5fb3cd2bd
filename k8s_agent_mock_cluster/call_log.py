"""The call log: one JSON line per `tools/call` the mock cluster received, before any validation;
and the result log: one line per call it answered, with what it answered.

Tests and `compare` read the call log to check what reached the server, independently of the
agent's own trace: a call the gateway should have kept back shows up here if it slipped through.
The contract's judge reads the result log to pair each call with the result the agent must give
the model for it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, TypedDict


class LoggedCall(TypedDict):
    """One call the server received."""

    ts: float
    pid: int
    tool: str
    arguments: dict[str, Any]
    fault: dict[str, Any] | None
    """The planned fault applied to it (`action`, `shape`), or None."""


class LoggedResult(TypedDict):
    """What the server answered one call: its text (or its error's), and whether it was an error."""

    ts: float
    pid: int
    tool: str
    arguments: dict[str, Any]
    text: str
    is_error: bool


def append(path: Path, entry: LoggedCall | LoggedResult) -> None:
    """Append one entry."""
    with path.open("a", encoding="utf-8") as log:
        log.write(json.dumps(entry, sort_keys=True) + "\n")


def entry(pid: int, tool: str, arguments: dict[str, Any], fault: dict[str, Any] | None) -> LoggedCall:
    """An entry stamped now."""
    return LoggedCall(ts=round(time.time(), 6), pid=pid, tool=tool, arguments=arguments, fault=fault)


def result(pid: int, tool: str, arguments: dict[str, Any], text: str, is_error: bool) -> LoggedResult:
    """A result entry stamped now."""
    return LoggedResult(
        ts=round(time.time(), 6), pid=pid, tool=tool, arguments=arguments, text=text, is_error=is_error
    )


def read_result_log(path: Path) -> list[LoggedResult]:
    """Every result in a log, in the order the server answered ([] when there is none)."""
    return read_call_log(path)  # type: ignore[return-value]  # the same JSON lines, other fields


def read_call_log(path: Path) -> list[LoggedCall]:
    """Every call in a log, in order ([] when the file does not exist: no call was received)."""
    if not path.exists():
        return []
    calls: list[LoggedCall] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                calls.append(json.loads(line))
    return calls
