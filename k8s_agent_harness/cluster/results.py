"""What an MCP tool call gives back: its result, or its failure as data (retryable or not, after how
long the server asked; why a result could not be read), and the server's tool list as last read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.vocabulary import FailureKind

_RETRYABLE = re.compile(
    r"(?i)(\b(?:408|429|502|503|504)\b|too many requests|rate.?limit|throttl|service unavailable|bad gateway"
    r"|gateway time-?out|temporarily unavailable|try again later)"
)
_RETRY_AFTER = re.compile(r"(?i)retry[-_ ]?after\D{0,6}?(\d+(?:\.\d+)?)\s*(ms|milliseconds)?")


@dataclass(frozen=True)
class ToolFailure:
    """Why a tool call failed, kept as data until the gateway decides what to do."""

    reason: str
    kind: FailureKind
    retryable: bool = False
    retry_after: float | None = None


@dataclass(frozen=True)
class ToolResult:
    """What one MCP call produced: the result as the model reads it, or a failure."""

    text: str
    failure: ToolFailure | None = None
    structured: Any = None
    """The server's `structuredContent` (JSON), when it sent one: kept next to the text, never
    instead of it."""
    for_user: tuple[str, ...] = ()
    """The content the server addressed to the user only (`audience: ["user"]`): shown to them,
    never sent to the model."""

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.failure is None


ProgressListener = Callable[[float, float | None, str | None], None]
"""Told each progress notification of a call: progress, total (when known), message."""


@dataclass(frozen=True)
class ToolListing:
    """The server's tool list as the client last read it: `generation` grows with every new reading."""

    generation: int
    tools: tuple[ToolSpec, ...]
    why: str = ""
    """Why it was read again (the server's notification, a restart); empty for the first reading."""
    problems: tuple[str, ...] = ()
    """What went wrong while reading it (paging stopped early, a tool listed twice)."""


def classify_failure(reason: str, kind: FailureKind, structured: Any = None) -> ToolFailure:
    """Decide whether a failure is worth retrying, and after how long the server asked for."""
    retryable = bool(_RETRYABLE.search(reason))
    retry_after: float | None = None
    if isinstance(structured, Mapping):
        if isinstance(structured.get("retryable"), bool):
            retryable = structured["retryable"]
        if isinstance(structured.get("retry_after"), int | float):
            retry_after = float(structured["retry_after"])
    if retry_after is None and (match := _RETRY_AFTER.search(reason)):
        retry_after = float(match[1]) / (1000 if match[2] else 1)
        retryable = True
    if retry_after is not None and not (math.isfinite(retry_after) and retry_after >= 0):
        retry_after = None
    return ToolFailure(reason=reason, kind=kind, retryable=retryable, retry_after=retry_after)


def unreadable_result(error: Exception) -> str:
    """Why the MCP client library could not use a result, in a line the model can act on: a result
    that breaks the tool's declared output schema names the problem."""
    cause = error.__cause__
    message = str(error)
    if "has an output schema but did not return structured content" in message:
        return "the tool declares an output schema but its result has no structured content"
    if message.startswith("Invalid structured content returned by tool") and cause is not None:
        where = getattr(cause, "json_path", None) or "$"
        problem = getattr(cause, "message", None) or str(cause).splitlines()[0]
        return f"the result does not match the tool's declared output schema: {where}: {problem}"
    if message.startswith("Invalid schema for tool"):
        first = message.split(": ", 1)[-1].splitlines()[0]
        return f"the tool's declared output schema cannot be checked: {first}"
    first_line = message.splitlines()[0] if message else type(error).__name__
    return f"the MCP client could not read the result ({type(error).__name__}: {first_line})"
