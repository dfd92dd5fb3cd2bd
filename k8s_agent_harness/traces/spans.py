"""A run as a tree of OpenTelemetry GenAI spans, built from its trace events.

Both agents write the same events through the same recorder, so one builder gives both one tree:

    invoke_agent k8s-agent              the run (implementation, wire, model, scope, counts)
      chat MODEL                        one per model request attempt (usage, finish reasons, ids)
      execute_tool TOOL                 one per proposed tool call (call id, outcome, MCP method)

Guardrails are span events where they act: a rejected call and a cache hit on the tool call's
span; a pushback, a correction turn, an unparsable call, a spent budget and the forced summary on
the run's span. The builder reads events as they come (a live run) or from a file (`trace
export`): each span takes its times from the events, so both give the same tree.

The builder knows no OpenTelemetry: it drives a `SpanSink` (otel.py writes spans with the
OpenTelemetry SDK; the tests keep them in memory). Message and result contents are added only when
`capture_content` is set; they are the trace's own texts, redacted as the trace is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Outcome, RunStatus, StopReason

AGENT_NAME = "k8s-agent"
"""`gen_ai.agent.name` of both implementations: which one ran is `k8s_agent.impl`."""
PROVIDER = "openai"
"""`gen_ai.provider.name`: both wires are OpenAI's APIs, whoever serves them."""
API_TYPES = {"chat": "chat_completions", "responses": "responses"}
"""`openai.api.type` of each wire."""
REJECTED = frozenset(
    {Outcome.UNKNOWN, Outcome.REFUSED, Outcome.INVALID_JSON, Outcome.INVALID_ARGS, Outcome.SKIPPED}
)
"""Outcomes of a call the gateway answered itself, refusing it."""
BUDGETS = {
    StopReason.STEP_BUDGET: "steps",
    StopReason.REPEATED_CALLS: "repeats",
    StopReason.TIME_BUDGET: "time",
}
"""The budget each stop reason spends (a server gone for good spends none)."""
_SCOPE = re.compile(r"^Scope: namespace ([a-z0-9-]+)\.$", re.MULTILINE)

Attributes = dict[str, Any]
"""Span or event attributes: text, numbers, booleans, or lists of one of them."""


class SpanSink(Protocol):
    """Where spans go: start one (under a parent), add events and attributes, end it."""

    def start(
        self, name: str, *, kind: str, start_ns: int, attributes: Attributes, parent: object | None
    ) -> object:
        """Start a span (`kind`: `internal` or `client`); returns its handle."""

    def event(self, span: object, name: str, time_ns: int, attributes: Attributes) -> None:
        """Add an event to an open span."""

    def update(self, span: object, attributes: Attributes) -> None:
        """Set attributes of an open span."""

    def end(self, span: object, end_ns: int, error: str | None) -> None:
        """End a span; `error` (the error's description) marks it failed."""


def _ns(seconds: float) -> int:
    return round(seconds * 1e9)


def _clean(attributes: Mapping[str, Any]) -> Attributes:
    """The attributes a span can hold: None dropped, enums as their values, lists kept homogeneous."""
    kept: Attributes = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str | bool | int | float):
            kept[key] = value.value if hasattr(value, "value") else value
        elif isinstance(value, list | tuple):
            kept[key] = [str(item) for item in value]
        else:
            kept[key] = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return kept


def question_scope(question: str) -> str:
    """What the question is scoped to: the namespaces its scope lines name (`-n`), else `cluster`."""
    namespaces = _SCOPE.findall(question)
    return ",".join(f"namespace/{name}" for name in namespaces) if namespaces else "cluster"


def server_attributes(url: str | None) -> Attributes:
    """`server.address` and `server.port` of an endpoint URL (never its user info or query)."""
    if not url:
        return {}
    parts = urlsplit(url)
    if not parts.hostname:
        return {}
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return _clean({"server.address": parts.hostname, "server.port": port})


@dataclass
class _OpenRequest:
    span: object
    model: str | None


@dataclass
class SpanBuilder:
    """Turns one run's events, in order, into spans on a sink."""

    sink: SpanSink
    capture_content: bool = False
    _run: object | None = None
    _start: events.RunStart | None = None
    _mcp: Attributes = field(default_factory=dict)
    _request: _OpenRequest | None = None
    _pending: dict[str, list[tuple[str, int, Attributes]]] = field(default_factory=dict)
    """Events of a tool call still in flight (retries, progress), by call id: the call's span is
    written when it ends."""
    _messages: list[dict[str, Any]] = field(default_factory=list)
    """The conversation so far, as the requests sent it (only kept when contents are captured)."""
    _instructions: str | None = None
    _last_ts: float = 0.0
    finished: bool = False

    def feed_all(self, run: Iterable[events.Event]) -> None:
        """Every event of a run, in order, then close what is still open."""
        for event in run:
            self.feed(event)
        self.close()

    def feed(self, event: events.Event) -> None:
        """One event, as it was recorded."""
        if self.finished:
            return
        self._last_ts = max(self._last_ts, event.ts)
        if isinstance(event, events.RunStart):
            self._run_started(event)
            return
        if self._run is None:
            return  # a run's events begin with run_start; anything before it has no place
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def close(self) -> None:
        """End whatever is still open (a run killed before its `run_end`), at the last event's time."""
        if self.finished or self._run is None:
            return
        end = _ns(self._last_ts)
        if self._request is not None:
            self.sink.end(self._request.span, end, "the run ended before the answer")
            self._request = None
        self.sink.end(self._run, end, "the run ended without run_end (killed?)")
        self.finished = True

    def sdk_run(self, started: float, attributes: Mapping[str, Any]) -> None:
        """A run of the Agents SDK's `Runner` inside this run, as the SDK's own tracing saw it: an
        event on the run's span (the SDK port re-runs `Runner` after a pushback and for the summary)."""
        if self._run is not None and not self.finished:
            self.sink.event(self._run, "openai_agents.run", _ns(started), _clean(attributes))

    # -- the run ------------------------------------------------------------------------------

    def _run_started(self, start: events.RunStart) -> None:
        if self._run is not None:
            return
        self._start = start
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.request.model": start.model,
            "gen_ai.conversation.id": start.run_id,
            "gen_ai.output.type": "text" if start.report_format in (None, "prose") else "json",
            "openai.api.type": API_TYPES.get(start.api, start.api),
            "k8s_agent.run_id": start.run_id,
            "k8s_agent.impl": start.impl.value,
            "k8s_agent.api": start.api,
            "k8s_agent.stream": start.stream,
            "k8s_agent.report_format": start.report_format.value if start.report_format else "prose",
            "k8s_agent.scope": question_scope(start.question),
            "k8s_agent.mcp.server": start.mcp_server,
            "k8s_agent.mcp.transport": start.mcp_transport or ("stdio" if start.mcp_command else None),
            "k8s_agent.trace_schema": start.schema_version,
            **{f"k8s_agent.budget.{name}": value for name, value in sorted(start.budgets.items())},
            **server_attributes(start.endpoint),
        }
        if self.capture_content:
            attributes["gen_ai.input.messages"] = json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": start.question}]}], ensure_ascii=False
            )
        self._run = self.sink.start(
            f"invoke_agent {AGENT_NAME}",
            kind="internal",
            start_ns=_ns(start.ts),
            attributes=_clean(attributes),
            parent=None,
        )
        transport = start.mcp_transport or ("stdio" if start.mcp_command else None)
        self._mcp = _clean(
            {
                "network.transport": "pipe" if transport == "stdio" else ("tcp" if transport else None),
                **server_attributes(start.mcp_url),
            }
        )

    def _run_event(self, name: str, ts: float, attributes: Mapping[str, Any]) -> None:
        assert self._run is not None
        self.sink.event(self._run, name, _ns(ts), _clean(attributes))

    def _tools_listed(self, event: events.ToolsListed) -> None:
        assert self._run is not None
        self.sink.update(
            self._run,
            _clean(
                {
                    "k8s_agent.tools.offered": len(event.allowed),
                    "k8s_agent.tools.refused": sorted(event.refused) or None,
                }
            ),
        )

    def _mcp_connected(self, event: events.McpConnected) -> None:
        self._mcp.update(_clean({"mcp.session.id": event.session_id, **server_attributes(event.url)}))
        self._mcp["network.transport"] = "tcp"
        assert self._run is not None
        self.sink.update(self._run, _clean({"k8s_agent.mcp.transport": event.transport}))

    def _mcp_restart(self, event: events.McpRestart) -> None:
        self._run_event(
            "k8s_agent.mcp.restart",
            event.ts,
            {
                "k8s_agent.reason": event.reason,
                "k8s_agent.ok": event.ok,
                "k8s_agent.reconnect": event.reconnect,
            },
        )

    def _tools_changed(self, event: events.McpToolsChanged) -> None:
        self._run_event(
            "k8s_agent.mcp.tools_changed",
            event.ts,
            {
                "k8s_agent.added": event.added or None,
                "k8s_agent.removed": event.removed or None,
                "k8s_agent.refused": event.refused or None,
            },
        )

    def _warning(self, event: events.HarnessWarning) -> None:
        self._run_event("k8s_agent.warning", event.ts, {"k8s_agent.message": event.message})

    def _guardrail(self, event: events.GuardrailFired) -> None:
        kind = event.guardrail.value
        if kind == "forced_summary":
            reason = event.reason
            if reason in BUDGETS:
                self._run_event(
                    "k8s_agent.guardrail.budget_spent", event.ts, {"k8s_agent.budget": BUDGETS[reason]}
                )
            self._run_event(
                "k8s_agent.guardrail.forced_summary",
                event.ts,
                {"k8s_agent.stop_reason": reason.value if reason else None},
            )
        elif kind == "unparsable_call":
            self._run_event("k8s_agent.guardrail.unparsable_call", event.ts, {})
        else:
            self._run_event(
                "k8s_agent.guardrail.pushback",
                event.ts,
                {"k8s_agent.pushback": kind, "k8s_agent.names": event.names or None},
            )

    def _report(self, event: events.ReportChecked) -> None:
        attributes = {
            "k8s_agent.report.attempt": event.attempt,
            "k8s_agent.report.parsed": event.parsed,
            "k8s_agent.report.problems": len(event.problems),
        }
        if event.accepted:
            self._run_event("k8s_agent.report.accepted", event.ts, attributes)
        else:
            self._run_event("k8s_agent.guardrail.correction_turn", event.ts, attributes)

    def _run_ended(self, end: events.RunEnd) -> None:
        assert self._run is not None
        if self._request is not None:
            self.sink.end(self._request.span, _ns(end.ts), end.error or "the run ended before the answer")
            self._request = None
        counts = end.counts
        attributes: Attributes = {
            "gen_ai.usage.input_tokens": counts.prompt_tokens,
            "gen_ai.usage.output_tokens": counts.completion_tokens,
            "k8s_agent.status": end.status.value,
            "k8s_agent.model_requests": counts.model_requests,
            "k8s_agent.tool_calls.executed": counts.tool_calls_executed,
            "k8s_agent.tool_calls.failed": counts.tool_calls_failed,
            "k8s_agent.tool_calls.rejected": counts.tool_calls_rejected,
            "k8s_agent.pushbacks": counts.pushbacks,
            "k8s_agent.forced_summary": counts.forced_summary_reason.value
            if counts.forced_summary_reason
            else None,
            "k8s_agent.ungrounded_names": len(end.ungrounded_names),
            "k8s_agent.wall_seconds": end.wall_seconds,
            "error.type": end.error_type if end.status is RunStatus.ERROR else None,
        }
        if self.capture_content and end.answer is not None:
            attributes["gen_ai.output.messages"] = json.dumps(
                [_output_message(end.answer, [], "stop")], ensure_ascii=False
            )
        self.sink.update(self._run, _clean(attributes))
        error = (end.error or "the run failed") if end.status is RunStatus.ERROR else None
        self.sink.end(self._run, _ns(end.ts), error)
        self.finished = True

    # -- model requests -----------------------------------------------------------------------

    def _model_request(self, request: events.ModelRequest) -> None:
        assert self._run is not None and self._start is not None
        if self._request is not None:  # an attempt no answer ended (should not happen): end it here
            self.sink.end(self._request.span, _ns(request.ts), "no answer was recorded")
        model = request.model or self._start.model
        attributes: Attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.request.model": model,
            "gen_ai.output.type": "json" if request.response_format else "text",
            "openai.api.type": API_TYPES.get(request.api, request.api),
            "k8s_agent.step": request.step,
            "k8s_agent.attempt": request.attempt,
            "k8s_agent.request.bytes": request.bytes,
            "k8s_agent.request.messages": request.message_count,
            "k8s_agent.request.tools": request.tool_count if request.tools_sent else 0,
            "k8s_agent.request.tool_choice": request.tool_choice
            if isinstance(request.tool_choice, str)
            else "named",
            **server_attributes(self._start.endpoint),
        }
        if self.capture_content:
            attributes.update(self._input_contents(request))
        span = self.sink.start(
            f"chat {model}" if model else "chat",
            kind="client",
            start_ns=_ns(request.ts),
            attributes=_clean(attributes),
            parent=self._run,
        )
        self._request = _OpenRequest(span, model)

    def _input_contents(self, request: events.ModelRequest) -> Attributes:
        """The request's messages in the conventions' form (the conversation the requests built)."""
        if request.messages_added is not None:
            if request.history_rewritten:
                self._messages = []
            self._messages.extend(request.messages_added)
        if request.instructions is not None:
            self._instructions = request.instructions
        inputs = [message for item in self._messages if (message := _input_message(item)) is not None]
        system = [m for m in inputs if m["role"] == "system"]
        attributes: Attributes = {
            "gen_ai.input.messages": json.dumps(
                [m for m in inputs if m["role"] != "system"], ensure_ascii=False
            )
        }
        instructions = self._instructions or "".join(
            part.get("content", "") for message in system for part in message["parts"]
        )
        if instructions:
            attributes["gen_ai.system_instructions"] = json.dumps(
                [{"type": "text", "content": instructions}], ensure_ascii=False
            )
        return attributes

    def _model_response(self, response: events.ModelResponse) -> None:
        if self._request is None:
            return
        attributes: Attributes = {
            "gen_ai.response.id": response.response_id,
            "gen_ai.response.model": response.response_model,
            "gen_ai.response.finish_reasons": [response.finish_reason] if response.finish_reason else None,
            "gen_ai.usage.input_tokens": response.usage.prompt_tokens,
            "gen_ai.usage.output_tokens": response.usage.completion_tokens,
            "k8s_agent.request.id": response.request_id,
            "k8s_agent.response.tool_calls": len(response.tool_calls),
            "k8s_agent.response.repaired": response.repaired or None,
            "error.type": "malformed_response" if response.malformed else None,
        }
        if self.capture_content and response.malformed is None:
            attributes["gen_ai.output.messages"] = json.dumps(
                [_output_message(response.text, response.tool_calls, response.finish_reason)],
                ensure_ascii=False,
            )
        self.sink.update(self._request.span, _clean(attributes))
        self.sink.end(self._request.span, _ns(response.ts), response.malformed)
        self._request = None

    def _model_error(self, error: events.ModelError) -> None:
        if self._request is None:
            return
        self.sink.update(
            self._request.span,
            _clean({"error.type": str(error.status), "k8s_agent.request.id": error.request_id}),
        )
        self.sink.end(self._request.span, _ns(error.ts), f"HTTP {error.status}")
        self._request = None

    # -- tool calls ---------------------------------------------------------------------------

    def _tool_retry(self, retry: events.ToolRetry) -> None:
        self._pending.setdefault(retry.request_id, []).append(
            (
                "k8s_agent.tool.retry",
                _ns(retry.ts),
                _clean({"k8s_agent.attempt": retry.attempt, "k8s_agent.reason": retry.reason}),
            )
        )

    def _tool_progress(self, progress: events.ToolProgress) -> None:
        self._pending.setdefault(progress.request_id, []).append(
            (
                "k8s_agent.tool.progress",
                _ns(progress.ts),
                _clean({"k8s_agent.progress": progress.progress, "k8s_agent.total": progress.total}),
            )
        )

    def _tool_call(self, call: events.ToolCall) -> None:
        assert self._run is not None
        end = _ns(call.ts)
        start = end - round(call.duration_ms * 1e6)
        reached_server = call.attempts > 0
        attributes: Attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.tool,
            "gen_ai.tool.call.id": call.request_id,
            "gen_ai.tool.type": "function",
            "k8s_agent.tool.outcome": call.outcome.value,
            "k8s_agent.tool.attempts": call.attempts,
            "k8s_agent.tool.server_name": call.server_tool,
            "k8s_agent.step": call.step,
            "error.type": "tool_error" if call.outcome is Outcome.FAILED else None,
        }
        if reached_server:
            attributes.update({"mcp.method.name": "tools/call", **self._mcp})
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = json.dumps(call.arguments, ensure_ascii=False)
            attributes["gen_ai.tool.call.result"] = call.result
        span = self.sink.start(
            f"execute_tool {call.tool}",
            kind="internal",
            start_ns=start,
            attributes=_clean(attributes),
            parent=self._run,
        )
        for name, time_ns, event_attributes in self._pending.pop(call.request_id, []):
            self.sink.event(span, name, max(start, time_ns), event_attributes)
        if call.outcome is Outcome.CACHED:
            self.sink.event(span, "k8s_agent.guardrail.cache_hit", end, {})
        elif call.outcome in REJECTED:
            self.sink.event(
                span, "k8s_agent.guardrail.rejected_call", end, {"k8s_agent.rejection": call.outcome.value}
            )
        self.sink.end(span, end, "the tool call failed" if call.outcome is Outcome.FAILED else None)


_HANDLERS: dict[type, Any] = {
    events.ToolsListed: SpanBuilder._tools_listed,
    events.McpConnected: SpanBuilder._mcp_connected,
    events.McpRestart: SpanBuilder._mcp_restart,
    events.McpToolsChanged: SpanBuilder._tools_changed,
    events.HarnessWarning: SpanBuilder._warning,
    events.GuardrailFired: SpanBuilder._guardrail,
    events.ReportChecked: SpanBuilder._report,
    events.RunEnd: SpanBuilder._run_ended,
    events.ModelRequest: SpanBuilder._model_request,
    events.ModelResponse: SpanBuilder._model_response,
    events.ModelError: SpanBuilder._model_error,
    events.ToolRetry: SpanBuilder._tool_retry,
    events.ToolProgress: SpanBuilder._tool_progress,
    events.ToolCall: SpanBuilder._tool_call,
}


# -- contents in the conventions' form ---------------------------------------------------------


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or part.get("content") or "") for part in content if isinstance(part, dict)
        )
    return ""


def _input_message(item: Any) -> dict[str, Any] | None:
    """A Chat message or a Responses input item as `{role, parts}` (reasoning items are left out)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "function_call":
        return {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": item.get("call_id"),
                    "name": item.get("name"),
                    "arguments": item.get("arguments"),
                }
            ],
        }
    if kind == "function_call_output":
        return {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": item.get("call_id"),
                    "response": _text_of(item.get("output")),
                }
            ],
        }
    role = item.get("role")
    if role is None or kind not in (None, "message"):
        return None
    if role == "tool":
        return {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": item.get("tool_call_id"),
                    "response": _text_of(item.get("content")),
                }
            ],
        }
    parts: list[dict[str, Any]] = []
    text = _text_of(item.get("content"))
    if text:
        parts.append({"type": "text", "content": text})
    for call in item.get("tool_calls") or []:
        function = call.get("function") or {}
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments"),
            }
        )
    return {"role": "system" if role == "developer" else role, "parts": parts}


def _output_message(
    text: str | None, calls: Sequence[events.ProposedCall], finish_reason: str | None
) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    parts += [
        {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments} for call in calls
    ]
    return {"role": "assistant", "parts": parts, "finish_reason": finish_reason or "stop"}
