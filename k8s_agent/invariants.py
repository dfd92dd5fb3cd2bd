"""Contract invariants of one run, checked from what it left behind: its trace, wire and call log.

Each check holds (True), is broken (False), or could not be made (None, e.g. no call log for a
real MCP server). The request bodies can come from the scripted model server (the wire itself)
or be rebuilt from the trace's `messages_added` (runs against a real endpoint), on either wire: a
Responses API body is read as the Chat Completions request it amounts to (`chat_request`), so its
`function_call` / `function_call_output` items are paired by `call_id` as tool calls and tool
messages are.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from k8s_agent.timeline import RESPONSES
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Guardrail, ReportFormat
from k8s_agent_mock_cluster.call_log import LoggedCall
from k8s_agent_scripted_llm.responses_api import chat_request, is_responses_request

PUSHBACKS = (Guardrail.ZERO_TOOL, Guardrail.EVIDENCE, Guardrail.REPORT)

INVARIANTS = {
    "first_request_forced": "request 1 carries tools and tool_choice 'required' (C1)",
    "calls_answered": "every tool call id (Responses: call_id) is answered exactly once, right after the "
    "call, and no answer is without its call (C10)",
    "server_saw_only_accepted_calls": "nothing unknown, refused or invalid reached the MCP server (C3, C6, C8)",
    "request_budget": "model requests <= max_steps + pushbacks + 1 (C7)",
    "summary_without_tools": "a forced-summary request carries no tools (C4, C7)",
    "report_checked": "a structured report is asked for on every request (json_schema) and read by the "
    "harness, with at most one correction before it is accepted (C11, C12)",
    "script_played_exactly": "the scripted model's steps were all used, and no request came after them",
}


@dataclass(frozen=True)
class Check:
    """The verdict on one invariant."""

    name: str
    held: bool | None
    detail: str = ""


def check_run(
    trace: Sequence[events.Event],
    requests: Sequence[dict[str, Any]] | None = None,
    calls: Sequence[LoggedCall] | None = None,
    script_problems: str | None = None,
) -> list[Check]:
    """Every invariant of INVARIANTS, in order, for one run."""
    bodies = list(requests) if requests is not None else requests_from_trace(trace)
    return [
        first_request_forced(trace),
        calls_answered(bodies),
        server_saw_only_accepted_calls(trace, calls),
        request_budget(trace),
        summary_without_tools(trace),
        report_checked(trace),
        Check(
            "script_played_exactly",
            None if script_problems is None else not script_problems,
            script_problems or "",
        ),
    ]


def first_requests(trace: Sequence[events.Event]) -> list[events.ModelRequest]:
    """The `model_request` events of first attempts (one per model turn), in order."""
    return [e for e in trace if isinstance(e, events.ModelRequest) and e.attempt == 1]


def requests_from_trace(trace: Sequence[events.Event]) -> list[dict[str, Any]]:
    """The request bodies, rebuilt from the trace's deltas, each in the form of its wire: Chat
    Completions (`messages`) or the Responses API (`instructions`, `input` items); `tools` (empty)
    and `tool_choice` when they were sent. `chat_request` reads either as Chat."""
    bodies: list[dict[str, Any]] = []
    pieces: list[Any] = []
    instructions: str | None = None
    for event in first_requests(trace):
        added = list(event.messages_added or [])
        pieces = added if event.history_rewritten else [*pieces, *added]
        body: dict[str, Any]
        if event.api == RESPONSES:
            instructions = event.instructions if event.instructions is not None else instructions
            body = (
                {"input": pieces} if instructions is None else {"instructions": instructions, "input": pieces}
            )
        else:
            body = {"messages": pieces}
        if event.tools_sent:
            body["tools"] = []
        if event.tool_choice != "absent":
            body["tool_choice"] = event.tool_choice
        bodies.append(body)
    return bodies


def first_request_forced(trace: Sequence[events.Event]) -> Check:
    """C1: the first request forces a tool."""
    requests = first_requests(trace)
    if not requests:
        return Check("first_request_forced", None, "no model request")
    first = requests[0]
    held = first.offers_tools and first.tool_choice == "required"
    return Check("first_request_forced", held, "" if held else f"tool_choice {first.tool_choice!r}")


def calls_answered(requests: Sequence[dict[str, Any]]) -> Check:
    """C10: in every request, each assistant tool call id is answered by exactly one tool message
    before the next assistant or user message, every tool message answers a call just before it,
    and no two calls of the conversation share an id. A Responses body is checked as the Chat
    request it amounts to (its `function_call` items are the calls, its `function_call_output`
    items the answers); a call or answer without an id never counts as paired."""
    for number, body in enumerate(requests, start=1):
        problem = _unpaired(body)
        if problem:
            return Check("calls_answered", False, f"request {number}: {problem}")
    return Check("calls_answered", True)


def _unpaired(body: dict[str, Any]) -> str | None:
    """What in one request body leaves a call unanswered, answers one twice, or answers none."""
    if is_responses_request(body):
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind in ("function_call", "function_call_output") and not _is_id(item.get("call_id")):
                return f"a {kind} item without a call_id"
            if isinstance(item, dict) and ("tool_calls" in item or "tool_call_id" in item):
                return "a Chat Completions tool message among the input items (no call_id pairs it)"
    messages = [m for m in chat_request(body).get("messages") or [] if isinstance(m, dict)]
    ids = [
        call.get("id")
        for message in messages
        for call in message.get("tool_calls") or []
        if isinstance(call, dict) and _is_id(call.get("id"))
    ]
    repeated = sorted({str(call_id) for call_id in ids if ids.count(call_id) > 1})
    if repeated:
        return f"the call id {repeated[0]!r} is used by more than one call"
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message.get("role") == "tool":
            return f"the answer to {message.get('tool_call_id')!r} follows no call of that id"
        ids = [call.get("id") if isinstance(call, dict) else None for call in message.get("tool_calls") or []]
        if message.get("role") != "assistant" or not ids:
            continue
        answered = []
        while index < len(messages) and messages[index].get("role") == "tool":
            answered.append(messages[index].get("tool_call_id"))
            index += 1
        if not all(map(_is_id, [*ids, *answered])) or sorted(map(str, answered)) != sorted(map(str, ids)):
            return f"calls {ids} answered by {answered}"
    return None


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def server_saw_only_accepted_calls(
    trace: Sequence[events.Event], calls: Sequence[LoggedCall] | None
) -> Check:
    """C3, C6, C8: the MCP server received only calls the gateway passed (retries included)."""
    if calls is None:
        return Check("server_saw_only_accepted_calls", None, "no call log (not the mock cluster)")
    accepted: Counter[str] = Counter()
    for event in trace:
        if isinstance(event, events.ToolCall) and event.outcome.reached_server:
            accepted[_signature(event.server_tool or event.tool, event.arguments)] += max(1, event.attempts)
    received = Counter(_signature(call["tool"], call["arguments"]) for call in calls)
    unexpected = sorted(signature for signature, count in received.items() if count > accepted[signature])
    if unexpected:
        return Check("server_saw_only_accepted_calls", False, f"the server received {', '.join(unexpected)}")
    return Check("server_saw_only_accepted_calls", True)


def request_budget(trace: Sequence[events.Event]) -> Check:
    """C7: the number of model requests stays within the step budget, the pushbacks and the summary."""
    start = next((e for e in trace if isinstance(e, events.RunStart)), None)
    max_steps = start.budgets.get("max_steps") if start else None
    if max_steps is None:
        return Check("request_budget", None, "no budgets in the trace")
    pushbacks = sum(1 for e in trace if isinstance(e, events.GuardrailFired) and e.guardrail in PUSHBACKS)
    requests = len(first_requests(trace))
    limit = int(max_steps) + pushbacks + 1
    return Check("request_budget", requests <= limit, f"{plural(requests, 'request')}, limit {limit}")


def summary_without_tools(trace: Sequence[events.Event]) -> Check:
    """C4, C7: once a summary is forced, no request offers tools."""
    forced = False
    for event in trace:
        if isinstance(event, events.GuardrailFired) and event.guardrail == Guardrail.FORCED_SUMMARY:
            forced = True
        elif forced and isinstance(event, events.ModelRequest) and event.offers_tools:
            return Check(
                "summary_without_tools", False, f"step {event.step} sent tools after the summary was forced"
            )
    return Check("summary_without_tools", True, "" if forced else "no summary forced")


def report_checked(trace: Sequence[events.Event]) -> Check:
    """C11, C12: in the json modes every request asks for the schema (json_schema), every answer
    that ended the run was read as a report, and no more than one correction was asked."""
    start = next((e for e in trace if isinstance(e, events.RunStart)), None)
    mode = start.report_format if start else None
    if mode in (None, ReportFormat.PROSE):
        return Check("report_checked", True, "prose report: its names are checked (C5)")
    end = next((e for e in reversed(trace) if isinstance(e, events.RunEnd)), None)
    if end is None or end.status != "ok":
        return Check("report_checked", True, "the run ended without a report")
    wanted = "json_schema:final_output"
    if mode is ReportFormat.JSON_SCHEMA:
        for request in first_requests(trace):
            if request.response_format != wanted:
                return Check(
                    "report_checked",
                    False,
                    f"step {request.step}: response_format {request.response_format!r}",
                )
    reports = [e for e in trace if isinstance(e, events.ReportChecked)]
    corrections = [e for e in reports if not e.accepted]
    if not reports or not reports[-1].accepted:
        return Check("report_checked", False, "the answer that ended the run was not read as a report")
    if len(corrections) > 1:
        return Check("report_checked", False, f"{plural(len(corrections), 'correction')} asked")
    final = reports[-1]
    return Check(
        "report_checked", True, "verified" if final.parsed and not final.problems else "kept, unverified"
    )


def _signature(tool: str, arguments: Any) -> str:
    return f"{tool}:{json.dumps(arguments, sort_keys=True)}"
