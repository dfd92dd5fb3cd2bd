"""The words runs are described in: implementations, tool-call outcomes, rejections, guardrails,
stop reasons, tool failure kinds, run statuses.

Each is a `StrEnum`: its values are what traces, `ask --json` and the comparison reports carry,
and a typo or a case nobody handles is a type error (mypy, `assert_never`) instead of a silent
miss.
"""

from __future__ import annotations

from enum import StrEnum


class Impl(StrEnum):
    """The loop that drives a run."""

    HANDWRITTEN = "handwritten"
    SDK = "sdk"


IMPLEMENTATIONS: tuple[Impl, ...] = tuple(Impl)


class Outcome(StrEnum):
    """What happened to one proposed tool call."""

    EXECUTED = "executed"
    """The server ran it and answered."""
    CACHED = "cached"
    """An identical call ran before: answered from the cache with a nudge."""
    UNKNOWN = "unknown"
    """No such tool in this run: answered with the whitelist."""
    REFUSED = "refused"
    """The tool is not read-only (or the operator refused the call)."""
    INVALID_JSON = "invalid_json"
    """The arguments are not JSON."""
    INVALID_ARGS = "invalid_args"
    """The arguments break the tool's schema."""
    FAILED = "failed"
    """The server received it and it failed (an error result, a timeout, a dead server)."""
    SKIPPED = "skipped"
    """Not run: the turn proposed more calls than the per-turn cap allows, or the run's time budget
    was spent before the call's turn came."""

    @property
    def reached_server(self) -> bool:
        """Whether the MCP server received the call."""
        return self in (Outcome.EXECUTED, Outcome.FAILED)

    @property
    def rejection(self) -> Rejection | None:
        """How the call is counted when the gateway answered it itself; None when it reached the server."""
        match self:
            case Outcome.EXECUTED | Outcome.FAILED:
                return None
            case Outcome.CACHED:
                return Rejection.DUPLICATE
            case Outcome.UNKNOWN:
                return Rejection.UNKNOWN
            case Outcome.REFUSED:
                return Rejection.REFUSED
            case Outcome.INVALID_JSON:
                return Rejection.INVALID_JSON
            case Outcome.INVALID_ARGS:
                return Rejection.INVALID_ARGS
            case Outcome.SKIPPED:
                return Rejection.SKIPPED


class Rejection(StrEnum):
    """Calls the gateway answered without the server, as counted per run."""

    UNKNOWN = "unknown"
    REFUSED = "refused"
    INVALID_JSON = "invalid_json"
    INVALID_ARGS = "invalid_args"
    DUPLICATE = "duplicate"
    SKIPPED = "skipped"
    """Over the per-turn call cap, or after the time budget was spent."""


class Pushback(StrEnum):
    """An answer the review policy sent back, once each per run."""

    ZERO_TOOL = "zero_tool"
    """The model answered before any tool ran (C2)."""
    EVIDENCE = "evidence"
    """The answer names pods, nodes or namespaces no tool returned (C5)."""
    REPORT = "report"
    """The structured report does not parse, validate or verify: one correction turn (C11, C12)."""


class Guardrail(StrEnum):
    """A guardrail that fired, as the trace's `guardrail` events name it."""

    ZERO_TOOL = "zero_tool"
    EVIDENCE = "evidence"
    REPORT = "report"
    FORCED_SUMMARY = "forced_summary"
    UNPARSABLE_CALL = "unparsable_call"
    """The provider could not parse a tool call the model produced: the model is told (like C8)."""


class StopReason(StrEnum):
    """Why the supervisor ended the investigation and asked for a tool-less summary."""

    STEP_BUDGET = "step_budget"
    REPEATED_CALLS = "repeated_calls"
    TIME_BUDGET = "time_budget"
    SERVER_GONE = "server_gone"


class FailureKind(StrEnum):
    """Why an MCP tool call failed."""

    TOOL_ERROR = "tool_error"
    """The server answered with an `isError` result."""
    PROTOCOL_ERROR = "protocol_error"
    """The server answered with a JSON-RPC error, or a result that is not valid."""
    TIMEOUT = "timeout"
    """The call took longer than the tool timeout; the server still answers other requests."""
    TIME_BUDGET = "time_budget"
    """The run's time budget (`--max-seconds`) ran out while the call ran: it was cancelled."""
    TRANSPORT = "transport"
    """The connection failed: the server died or stopped answering (restarted once)."""
    GONE = "gone"
    """The server is gone for good: every later call fails at once."""


class ReportFormat(StrEnum):
    """How the final report is asked for and read (evidence/report.py)."""

    AUTO = "auto"
    """json_schema for api.openai.com and the offline model, json_text for other endpoints."""
    JSON_SCHEMA = "json_schema"
    """`response_format` with the report's JSON Schema on every request."""
    JSON_TEXT = "json_text"
    """The schema described in the instructions; the JSON read from the answer's text."""
    PROSE = "prose"
    """Free text, checked by name grounding only."""


class RunStatus(StrEnum):
    """How a run ended."""

    OK = "ok"
    ERROR = "error"
