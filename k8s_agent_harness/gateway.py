"""The tool gateway: the one path every tool call takes, whichever agent drives the loop.

    allowlist -> parse JSON arguments -> validate against the tool's JSON Schema
      -> duplicate cache -> MCP call (timeout, bounded retries) -> redact -> trace -> outcome

Every rejection is a message for the model, never an exception.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from k8s_agent_harness import events, prompts
from k8s_agent_harness.approval import Approver, deny_all
from k8s_agent_harness.grounding import Evidence
from k8s_agent_harness.mcp_client import ToolFailure, ToolResult
from k8s_agent_harness.schemas import ArgumentValidator
from k8s_agent_harness.supervisor import Supervisor, call_signature, fingerprint_of
from k8s_agent_harness.tools import ToolSpec
from k8s_agent_harness.trace import Recorder
from k8s_agent_harness.vocabulary import FailureKind, Outcome

MAX_RAW_ARGUMENTS_ECHO = 500
RETRY_BASE_DELAY = 0.25
RETRY_MAX_DELAY = 5.0


class ToolCaller(Protocol):
    """What the gateway needs from an MCP client."""

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call a tool; failures come back as data."""
        ...


@dataclass(frozen=True)
class ToolOutcome:
    """What happened to one proposed tool call, and the text the model receives for it."""

    call_id: str
    tool: str
    kind: Outcome
    content: str
    fingerprint: str
    arguments: Any
    attempts: int = 0
    duration_ms: float = 0.0

    @property
    def reached_server(self) -> bool:
        """Whether the MCP server received this call."""
        return self.kind.reached_server


@dataclass(frozen=True)
class RetryPolicy:
    """How the harness retries retryable tool failures; the model only sees the final outcome."""

    attempts: int = 3
    base_delay: float = RETRY_BASE_DELAY
    max_delay: float = RETRY_MAX_DELAY

    def delay(self, failure: ToolFailure, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1`: the server's retry-after if given, capped."""
        if failure.retry_after is not None:
            return min(failure.retry_after, self.max_delay)
        return min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)


class ToolGateway:
    """Checks, executes, caches and records tool calls for one run."""

    def __init__(
        self,
        tools: Sequence[ToolSpec],
        caller: ToolCaller,
        recorder: Recorder,
        supervisor: Supervisor,
        evidence: Evidence,
        *,
        allow_write: Iterable[str] = (),
        approver: Approver = deny_all,
        retry: RetryPolicy | None = None,
    ) -> None:
        allowed = set(allow_write)
        self.tools = [t for t in tools if t.read_only is True or t.name in allowed]
        self.refused = sorted(t.name for t in tools if t not in self.tools)
        self._by_name = {tool.name: tool for tool in self.tools}
        self._caller = caller
        self._recorder = recorder
        self._supervisor = supervisor
        self.evidence = evidence
        self._retry = retry or RetryPolicy()
        self._cache: dict[str, str] = {}
        self._approver = approver
        self._approved: set[str] = set()
        self._denied: set[str] = set()
        self._validators = {
            tool.name: ArgumentValidator(tool.name, tool.input_schema, self._warn) for tool in self.tools
        }

    @property
    def names(self) -> list[str]:
        """The tools the model may call, sorted."""
        return sorted(self._by_name)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The allowed tools in OpenAI Chat Completions form."""
        return [tool.openai_tool() for tool in self.tools]

    def needs_approval(self, name: str) -> bool:
        """Whether calls of this tool ask the operator first (a write tool allowed by --allow-write)."""
        tool = self._by_name.get(name)
        return tool is not None and tool.read_only is not True

    async def approve(self, name: str, raw_arguments: str | None) -> bool:
        """Ask the operator about a call before it is made (for loops that ask first, like the SDK's).

        A call that will be rejected anyway, or answered from cache, needs no approval. A refusal
        is remembered: the call itself then produces and records the refusal message.
        """
        if not self.needs_approval(name):
            return True
        arguments, problem = _parse_arguments(raw_arguments or "")
        if problem is not None or self._schema_errors(name, arguments):
            return True
        signature = call_signature(name, arguments)
        if signature in self._cache or signature in self._approved:
            return True
        if await self._approver(name, arguments):
            self._approved.add(signature)
            return True
        self._denied.add(signature)
        return False

    async def call(self, call_id: str, name: str, raw_arguments: str | None) -> ToolOutcome:
        """Take one proposed call through every check; always returns the model-visible outcome."""
        started = time.perf_counter()
        outcome = await self._decide(call_id, name, raw_arguments or "")
        outcome = dataclasses.replace(outcome, duration_ms=round((time.perf_counter() - started) * 1e3, 3))
        self._record(outcome)
        return outcome

    async def _decide(self, call_id: str, name: str, raw: str) -> ToolOutcome:
        if name not in self._by_name:
            message = (prompts.refused_tool if name in self.refused else prompts.unknown_tool)(
                name, self.names
            )
            kind = Outcome.REFUSED if name in self.refused else Outcome.UNKNOWN
            return self._rejected(call_id, name, kind, message, raw)
        arguments, problem = _parse_arguments(raw)
        if problem is not None:
            return self._rejected(
                call_id, name, Outcome.INVALID_JSON, prompts.invalid_json(problem, _echo(raw)), raw
            )
        errors = self._schema_errors(name, arguments)
        if errors:
            return self._rejected(
                call_id, name, Outcome.INVALID_ARGS, prompts.invalid_arguments(name, errors), arguments
            )

        signature = call_signature(name, arguments)
        fingerprint = fingerprint_of(signature)
        self._supervisor.call_seen(fingerprint)
        if signature in self._cache:
            return ToolOutcome(
                call_id,
                name,
                Outcome.CACHED,
                prompts.duplicate(self._cache[signature]),
                fingerprint,
                arguments,
            )

        if self.needs_approval(name) and signature not in self._approved:
            if signature in self._denied or not await self._approver(name, arguments):
                self._cache[signature] = prompts.not_approved(name)
                return ToolOutcome(
                    call_id, name, Outcome.REFUSED, self._cache[signature], fingerprint, arguments
                )

        result, attempts = await self._execute(call_id, name, arguments, fingerprint)
        if result.failure is None:
            content = self._recorder.redactor.text(result.text)
            self.evidence.add(content)
            kind = Outcome.EXECUTED
        else:
            content = prompts.tool_failed(name, self._recorder.redactor.text(result.failure.reason))
            kind = Outcome.FAILED
            if result.failure.kind == FailureKind.GONE:
                self._supervisor.server_gone = True
        self._cache[signature] = content
        return ToolOutcome(call_id, name, kind, content, fingerprint, arguments, attempts)

    async def _execute(
        self, call_id: str, name: str, arguments: dict[str, Any], fingerprint: str
    ) -> tuple[ToolResult, int]:
        """Call the server, retrying retryable failures with bounded backoff."""
        attempt = 1
        while True:
            result = await self._caller.call(name, arguments)
            failure = result.failure
            if failure is None or not failure.retryable or attempt >= self._retry.attempts:
                return result, attempt
            delay = self._retry.delay(failure, attempt)
            if delay >= self._supervisor.seconds_left():
                return result, attempt
            self._recorder.emit(
                events.ToolRetry(
                    request_id=call_id,
                    tool=name,
                    fingerprint=fingerprint,
                    attempt=attempt,
                    reason=failure.reason,
                    retry_after=failure.retry_after,
                    delay_s=delay,
                )
            )
            await anyio.sleep(delay)
            attempt += 1

    def _rejected(self, call_id: str, name: str, kind: Outcome, message: str, arguments: Any) -> ToolOutcome:
        fingerprint = fingerprint_of(call_signature(name, arguments))
        self._supervisor.call_seen(fingerprint)
        return ToolOutcome(call_id, name, kind, message, fingerprint, arguments)

    def _record(self, outcome: ToolOutcome) -> None:
        stats = self._recorder.stats
        rejection = outcome.kind.rejection
        if rejection is None:
            stats.tool_calls_executed += 1
            stats.tool_calls_failed += outcome.kind == Outcome.FAILED
        else:
            stats.rejected[rejection] += 1
        self._recorder.emit(
            events.ToolCall(
                request_id=outcome.call_id,
                tool=outcome.tool,
                arguments=outcome.arguments,
                fingerprint=outcome.fingerprint,
                outcome=outcome.kind,
                attempts=outcome.attempts,
                duration_ms=outcome.duration_ms,
                result=outcome.content,
            )
        )

    def _schema_errors(self, name: str, arguments: Any) -> list[str]:
        return self._validators[name].errors(arguments)

    def _warn(self, message: str) -> None:
        self._recorder.warn(message)


def _parse_arguments(raw: str) -> tuple[Any, str | None]:
    """Parse the model's argument string; an empty string means no arguments."""
    if not raw.strip():
        return {}, None
    try:
        return json.loads(raw), None
    except json.JSONDecodeError as error:
        return None, str(error)


def _echo(raw: str) -> str:
    if len(raw) <= MAX_RAW_ARGUMENTS_ECHO:
        return raw
    return raw[:MAX_RAW_ARGUMENTS_ECHO] + f"... [{len(raw) - MAX_RAW_ARGUMENTS_ECHO} more characters]"
