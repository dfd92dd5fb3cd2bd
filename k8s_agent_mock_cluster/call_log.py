"""The call log: one JSON line per `tools/call` the mock cluster received, before any validation;
and the result log: one line per call it answered, with what it answered.

Tests and `compare` read the call log to check what reached the server, independently of the
agent's own trace: a call the gateway should have kept back shows up here if it slipped through.
The contract's judge reads the result log to pair each call with the result the agent must give
the model for it.
"""

from __future__ import annotations

import json
import os
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
    session: str | None
    """The MCP session (`mcp-session-id`) it came on over HTTP; None over stdio."""
    client: str | None
    """The name its client gave in the URL (`/mcp/NAME`) over HTTP; None otherwise."""


class LoggedResult(TypedDict):
    """What the server answered one call: its text (or its error's), and whether it was an error."""

    ts: float
    pid: int
    tool: str
    arguments: dict[str, Any]
    text: str
    is_error: bool
    session: str | None
    client: str | None


def append(path: Path, entry: LoggedCall | LoggedResult) -> None:
    """Append one entry (the log is created 0600: it holds what the tools returned)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry, sort_keys=True) + "\n")


def entry(
    pid: int,
    tool: str,
    arguments: dict[str, Any],
    fault: dict[str, Any] | None,
    session: str | None = None,
    client: str | None = None,
) -> LoggedCall:
    """An entry stamped now."""
    return LoggedCall(
        ts=round(time.time(), 6),
        pid=pid,
        tool=tool,
        arguments=arguments,
        fault=fault,
        session=session,
        client=client,
    )


def result(
    pid: int,
    tool: str,
    arguments: dict[str, Any],
    text: str,
    is_error: bool,
    session: str | None = None,
    client: str | None = None,
) -> LoggedResult:
    """A result entry stamped now."""
    return LoggedResult(
        ts=round(time.time(), 6),
        pid=pid,
        tool=tool,
        arguments=arguments,
        text=text,
        is_error=is_error,
        session=session,
        client=client,
    )


def of_client(entries: list[Any], client: str | None) -> list[Any]:
    """The entries of the client that named itself `client` in its URL (all of them when `client`
    is None: a server of one client)."""
    if client is None:
        return list(entries)
    return [logged for logged in entries if logged.get("client") == client]


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
