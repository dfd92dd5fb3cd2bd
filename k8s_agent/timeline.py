"""A trace as a timeline of turns: each model request, what the model said, and what followed.

The HTML report draws these side by side, and trace replay compares them turn by turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.trace import Event

NOT_FORCED = ("auto", "absent", None)


@dataclass
class Turn:
    """One model turn: the request (first attempt), its retries and response, then its consequences."""

    step: int
    request: Event
    errors: list[Event] = field(default_factory=list)
    """`model_error` events (failed attempts), and `model_request` events of retries."""
    response: Event | None = None
    tool_calls: list[Event] = field(default_factory=list)
    guardrails: list[Event] = field(default_factory=list)
    retries: list[Event] = field(default_factory=list)
    """`tool_retry` events."""

    @property
    def offer(self) -> str:
        """How tools were offered: "required", "offered" (not forced) or "none"."""
        if not self.request.get("tools_sent"):
            return "none"
        return (
            "offered"
            if self.request.get("tool_choice") in NOT_FORCED
            else str(self.request.get("tool_choice"))
        )


@dataclass
class Timeline:
    """A whole run: its start, its turns, its end."""

    start: Event
    tools: Event | None
    turns: list[Turn]
    end: Event | None

    @property
    def status(self) -> str:
        """ok, error, or unfinished (no run_end)."""
        return str(self.end.get("status")) if self.end else "unfinished"


def timeline(trace: Sequence[Event]) -> Timeline:
    """Group a trace's events by model turn."""
    start: Event = {}
    tools: Event | None = None
    end: Event | None = None
    turns: list[Turn] = []
    for event in trace:
        kind = event["kind"]
        current = turns[-1] if turns else None
        if kind == "run_start":
            start = event
        elif kind == "tools_listed":
            tools = event
        elif kind == "run_end":
            end = event
        elif kind == "model_request" and event.get("attempt", 1) == 1:
            turns.append(Turn(step=int(event.get("step", len(turns) + 1)), request=event))
        elif current is None:
            continue  # nothing to attach to: a damaged trace
        elif kind == "model_request" or kind == "model_error":
            current.errors.append(event)
        elif kind == "model_response":
            current.response = event
        elif kind == "tool_call":
            current.tool_calls.append(event)
        elif kind == "tool_retry":
            current.retries.append(event)
        elif kind == "guardrail":
            current.guardrails.append(event)
    return Timeline(start, tools, turns, end)


def turn_facts(turn: Turn) -> list[tuple[str, str]]:
    """What a turn did, as (label, value) pairs two runs can be compared on.

    Left out on purpose: times, byte counts and token counts (costs, not behaviour), whether an
    unforced request says tool_choice "auto" or omits it (the accepted C1 difference), and the order
    in which a round's calls ran (see `proposal_order`).
    """
    request = turn.request
    facts = [("request", f"{request.get('message_count')} messages, tools {turn.offer}")]
    facts += [
        ("model error", f"attempt {e.get('attempt')}: HTTP {e.get('status')}")
        for e in turn.errors
        if e["kind"] == "model_error"
    ]
    facts.append(("response", response_fact(turn.response)))
    for call in proposal_order(turn):
        facts.append(
            (
                f"tool call {call.get('request_id')}",
                f"{call.get('tool')} {call.get('outcome')}: {call.get('result')}",
            )
        )
    for guardrail in turn.guardrails:
        detail = guardrail.get("reason") or ", ".join(guardrail.get("names") or [])
        facts.append(("guardrail", f"{guardrail.get('guardrail')}{': ' + str(detail) if detail else ''}"))
    return facts


def proposal_order(turn: Turn) -> list[Event]:
    """The turn's tool calls in the order the model proposed them.

    The trace records them as they ran, and the SDK runs a call to an unknown tool after the
    others (its tool_not_found handling comes after the function tools): same outcomes, same
    wire, another order in the trace.
    """
    proposed = [c.get("id") for c in (turn.response or {}).get("tool_calls") or []]
    return sorted(
        turn.tool_calls,
        key=lambda call: (
            proposed.index(call.get("request_id")) if call.get("request_id") in proposed else len(proposed)
        ),
    )


def response_fact(response: Event | None) -> str:
    """The model's answer in full: its text, or its tool calls with ids and argument strings."""
    if response is None:
        return "no response"
    if response.get("malformed"):
        return f"malformed: {response.get('body')}"
    calls = response.get("tool_calls") or []
    if calls:
        return "; ".join(f"{c.get('id')} {c.get('name')}({c.get('arguments')})" for c in calls)
    return f"text: {response.get('text') or ''}"


def describe_response(response: Event | None) -> str:
    """What the model said, in a few words."""
    if response is None:
        return "no response"
    if response.get("malformed"):
        return "malformed response"
    calls = response.get("tool_calls") or []
    if calls:
        return f"{len(calls)} tool call{'s' if len(calls) != 1 else ''}: " + ", ".join(
            str(c.get("name")) for c in calls
        )
    return f"text ({len(response.get('text') or '')} characters)"


def clip(text: Any, width: int) -> str:
    """One line of at most `width` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"
