"""A trace as a timeline of turns: each model request, what the model said, and what followed.

The HTML report draws these side by side, and trace replay compares them turn by turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events

NOT_FORCED = ("auto", "absent")
RESPONSES = "responses"
"""The `api` of a run on the Responses API (`chat`, the default, is Chat Completions)."""


@dataclass
class Turn:
    """One model turn: the request (first attempt), its retries and response, then its consequences."""

    step: int
    request: events.ModelRequest
    errors: list[events.ModelRequest | events.ModelError] = field(default_factory=list)
    """`model_error` events (failed attempts), and `model_request` events of retries."""
    response: events.ModelResponse | None = None
    tool_calls: list[events.ToolCall] = field(default_factory=list)
    guardrails: list[events.GuardrailFired] = field(default_factory=list)
    retries: list[events.ToolRetry] = field(default_factory=list)
    reports: list[events.ReportChecked] = field(default_factory=list)
    """The harness's reading of the structured report this turn answered with."""

    @property
    def offer(self) -> str:
        """How tools were offered: "required", "offered" (not forced) or "none"."""
        return offer(self.request.offers_tools, self.request.tool_choice)

    @property
    def http_errors(self) -> list[events.ModelError]:
        """The attempts the endpoint answered with an HTTP error."""
        return [e for e in self.errors if isinstance(e, events.ModelError)]


@dataclass
class Timeline:
    """A whole run: its start, its turns, its end."""

    start: events.RunStart
    tools: events.ToolsListed | None
    turns: list[Turn]
    end: events.RunEnd | None

    @property
    def status(self) -> str:
        """ok, error, or unfinished (no run_end)."""
        return self.end.status.value if self.end else "unfinished"


def offer(offers_tools: bool, tool_choice: Any) -> str:
    """How a request offered tools: "required", "offered" (not forced), "none", or the named tool."""
    if not offers_tools:
        return "none"
    if isinstance(tool_choice, str) and tool_choice in NOT_FORCED:
        return "offered"
    return tool_choice if isinstance(tool_choice, str) else json.dumps(tool_choice, sort_keys=True)


def pieces(count: int, api: str) -> str:
    """`3 messages` (Chat Completions), `3 input items` (the Responses API)."""
    return plural(count, "input item" if api == RESPONSES else "message")


def timeline(trace: Iterable[events.Event]) -> Timeline:
    """Group a trace's events by model turn."""
    start: events.RunStart | None = None
    tools: events.ToolsListed | None = None
    end: events.RunEnd | None = None
    turns: list[Turn] = []
    for event in trace:
        current = turns[-1] if turns else None
        match event:
            case events.RunStart():
                start = event
            case events.ToolsListed():
                tools = event
            case events.RunEnd():
                end = event
            case events.ModelRequest() if event.attempt == 1:
                turns.append(Turn(step=event.step or len(turns) + 1, request=event))
            case _ if current is None:
                continue  # nothing to attach to (events before the first request)
            case events.ModelRequest() | events.ModelError():
                current.errors.append(event)
            case events.ModelResponse():
                current.response = event
            case events.ToolCall():
                current.tool_calls.append(event)
            case events.ToolRetry():
                current.retries.append(event)
            case events.GuardrailFired():
                current.guardrails.append(event)
            case events.ReportChecked():
                current.reports.append(event)
    return Timeline(start or events.RunStart(question="", started_at=""), tools, turns, end)


def turn_facts(turn: Turn, seen: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """What a turn did, as (label, value) pairs two runs can be compared on.

    The request is counted in the pieces of its wire (messages, or input items); with `seen`, the
    Chat Completions request it amounts to (`responses_api.chat_request` of the rebuilt body), it
    is counted in that request's messages and tool choice instead, so that runs on different wires
    compare on what the model saw.

    Left out on purpose: times, byte counts and token counts (costs, not behaviour), whether an
    unforced request says tool_choice "auto" or omits it (the accepted C1 difference), and the order
    in which a round's calls ran (see `proposal_order`).
    """
    request = turn.request
    wanted = f", response_format {request.response_format}" if request.response_format else ""
    if seen is None:
        asked = f"{pieces(request.message_count, request.api)}, tools {turn.offer}"
    else:
        offered = offer(request.offers_tools, seen.get("tool_choice", "absent"))
        asked = f"{plural(len(seen.get('messages') or []), 'message')}, tools {offered}"
    facts = [("request", asked + wanted)]
    facts += [("model error", f"attempt {e.attempt}: HTTP {e.status}") for e in turn.http_errors]
    facts.append(("response", response_fact(turn.response)))
    for call in proposal_order(turn):
        facts.append((f"tool call {call.request_id}", f"{call.tool} {call.outcome.value}: {call.result}"))
    for report in turn.reports:
        facts.append(("report", report_fact(report)))
    for guardrail in turn.guardrails:
        detail = guardrail.reason.value if guardrail.reason else ", ".join(guardrail.names)
        facts.append(("guardrail", f"{guardrail.guardrail.value}{': ' + detail if detail else ''}"))
    return facts


def proposal_order(turn: Turn) -> list[events.ToolCall]:
    """The turn's tool calls in the order the model proposed them.

    The trace records them as they ran, and the SDK runs a call to an unknown tool after the
    others (its tool_not_found handling comes after the function tools): same outcomes, same
    wire, another order in the trace.
    """
    proposed = [call.id for call in turn.response.tool_calls] if turn.response else []
    return sorted(
        turn.tool_calls,
        key=lambda call: proposed.index(call.request_id) if call.request_id in proposed else len(proposed),
    )


def response_fact(response: events.ModelResponse | None) -> str:
    """The model's answer in full: its text, or its tool calls with ids and argument strings."""
    if response is None:
        return "no response"
    if response.malformed:
        return f"malformed: {response.body}"
    if response.tool_calls:
        return "; ".join(f"{c.id} {c.name}({c.arguments})" for c in response.tool_calls)
    return f"text: {response.text or ''}"


def describe_response(response: events.ModelResponse | None) -> str:
    """What the model said, in a few words."""
    if response is None:
        return "no response"
    if response.malformed:
        return "malformed response"
    if response.tool_calls:
        return f"{plural(len(response.tool_calls), 'tool call')}: " + ", ".join(
            c.name for c in response.tool_calls
        )
    return f"text ({plural(len(response.text or ''), 'character')})"


def clip(text: Any, width: int) -> str:
    """One line of at most `width` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def report_fact(report: events.ReportChecked) -> str:
    """A report event in one line: the verdict, each finding with its marks, what is wrong."""
    verdict = "accepted" if report.accepted else "correction asked"
    if not report.parsed:
        return f"{verdict}; not parsed: {'; '.join(report.problems)}"
    findings = []
    for finding in (report.report or {}).get("findings") or []:
        marks = "".join("✓" if quote.get("verified") else "✗" for quote in finding.get("evidence") or [])
        name = finding.get("name") if finding.get("name_verified") else f"{finding.get('name')} (name ✗)"
        findings.append(f"{name} [{finding.get('cause')}] {marks}")
    problems = f"; problems: {'; '.join(report.problems)}" if report.problems else ""
    return f"{verdict}; findings: {', '.join(findings) or 'none'}{problems}"
