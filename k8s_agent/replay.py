"""Replay a trace: its recorded model responses become a scripted model, run against either agent.

A saved incident becomes a regression fixture: replayed on the same implementation the run must
do the same thing; on the other implementation, or after a change, the first step where it does
not (tool outcomes or results, guardrails, what the model was asked, the number of requests, the
final answer) is reported.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.trace import Event
from k8s_agent.invariants import Check, check_run
from k8s_agent.scripted_run import CALL_LOG, is_mock_cluster, mock_cluster_command, run_scripted
from k8s_agent.timeline import clip, timeline, turn_facts
from scripted_llm import HttpError, Malformed, Reply, Step, ToolCall, hang

BUDGETS = ("max_steps", "max_repeats", "max_seconds", "tool_timeout", "request_timeout", "max_retries")


@dataclass(frozen=True)
class Divergence:
    """The first place where the replay did something the recording did not."""

    step: int | None
    """The model turn (1-based); 0 for the start (the tools listed), None for the end of the run."""
    what: str
    recorded: str
    replayed: str

    def describe(self, width: int = 300) -> str:
        """Where and what, with both sides clipped around their first difference."""
        where = {None: "end of run", 0: "start"}.get(self.step, f"step {self.step}")
        recorded, replayed = _around_difference(self.recorded, self.replayed, width)
        return f"{where}, {self.what}:\n  recorded: {recorded}\n  replay:   {replayed}"


@dataclass(frozen=True)
class Replay:
    """What a replay did and where it diverged (None: nowhere)."""

    impl: str
    recorded: list[Event]
    replayed: list[Event]
    replay_trace: Path | None
    divergence: Divergence | None
    checks: list[Check]
    script_problems: str
    mcp_command: tuple[str, ...]
    settings: dict[str, Any]


def script_from_trace(trace: Sequence[Event]) -> list[Step]:
    """The model's side of a recorded run, one step per request attempt, in order.

    A response becomes a reply (text and tool calls with their ids and argument strings, usage);
    an HTTP error becomes the same error; a request that got no answer (a timeout) hangs.
    """
    steps: list[Step] = []
    waiting = False
    for event in trace:
        kind = event["kind"]
        if kind == "model_request" or kind == "run_end":
            if waiting:
                steps.append(hang())
            waiting = kind == "model_request"
        elif kind == "model_error" and waiting:
            steps.append(_http_error(event))
            waiting = False
        elif kind == "model_response" and waiting:
            steps.append(_reply(event))
            waiting = False
    return steps


def _reply(event: Event) -> Step:
    if event.get("malformed"):
        return Malformed(str(event.get("body") or ""))
    usage = event.get("usage") or {}
    tokens = {key: usage.get(key) for key in ("prompt_tokens", "completion_tokens")}
    counted = {key: value for key, value in tokens.items() if isinstance(value, int)}
    return Reply(
        content=event.get("text"),
        tool_calls=tuple(
            ToolCall(str(call.get("name")), str(call.get("arguments") or ""), call.get("id"))
            for call in event.get("tool_calls") or []
        ),
        finish_reason=event.get("finish_reason"),
        usage=counted if len(counted) == len(tokens) else None,
    )


def _http_error(event: Event) -> HttpError:
    body = str(event.get("body") or "")
    try:
        message = str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = body or "replayed error"
    retry_after = event.get("retry_after")
    headers = {"Retry-After": str(retry_after)} if retry_after else {}
    return HttpError(int(event.get("status") or 500), message, headers)


def run_start(trace: Sequence[Event]) -> Event:
    """The trace's run_start event; a trace without one cannot be replayed."""
    start = next((e for e in trace if e["kind"] == "run_start"), None)
    if start is None or not start.get("mcp_command"):
        raise ConfigError("not a replayable trace: it has no run_start event with the MCP server command")
    return start


def replay_command(
    recorded: Sequence[str], call_log: Path, *, cluster: Path | None = None, mcp_command: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """The MCP server to replay against: the override, or the recorded one.

    A recorded mock cluster runs again on this interpreter with its fixture and fault plan (and
    a call log of its own); any other server command is reused as recorded.
    """
    if mcp_command:
        return mcp_command
    is_mock = is_mock_cluster(recorded)
    if cluster is not None or is_mock:
        options = _mock_options(recorded) if is_mock else {}
        fixture = cluster or options.get("--cluster")
        if fixture is not None and not fixture.is_file():
            raise ConfigError(f"the recorded cluster fixture {fixture} is gone: pass --cluster FILE")
        faults = options.get("--faults")
        if faults is not None and not faults.is_file():
            print(
                f"warning: the recorded fault plan {faults} is gone; replaying without faults",
                file=sys.stderr,
            )
            faults = None
        return mock_cluster_command(call_log, cluster=fixture, faults=faults)
    return tuple(recorded)


def _mock_options(command: Sequence[str]) -> dict[str, Path]:
    options: dict[str, Path] = {}
    for flag, value in itertools.pairwise(command):
        if flag in ("--cluster", "--faults"):
            options[flag] = Path(value)
    return options


async def replay(
    trace: list[Event],
    impl: str,
    workdir: Path,
    *,
    cluster: Path | None = None,
    mcp_command: tuple[str, ...] = (),
    budgets: dict[str, Any] | None = None,
) -> Replay:
    """Replay `trace` on `impl` (call log and new trace in `workdir`) and find the first divergence."""
    start = run_start(trace)
    command = replay_command(
        start["mcp_command"], workdir / CALL_LOG, cluster=cluster, mcp_command=mcp_command
    )
    recorded_budgets = start.get("budgets") or {}
    settings: dict[str, Any] = {
        k: recorded_budgets[k] for k in BUDGETS if recorded_budgets.get(k) is not None
    }
    settings.update({k: v for k, v in (budgets or {}).items() if v is not None})
    settings["model"] = str(start.get("model") or "scripted")
    run = await run_scripted(
        impl,
        workdir,
        script=script_from_trace(trace),
        question=str(start.get("question") or ""),
        mcp_command=command,
        settings=settings,
    )
    calls = run.calls if str(workdir / CALL_LOG) in command else None  # only our mock cluster logs calls
    return Replay(
        impl=impl,
        recorded=trace,
        replayed=run.trace,
        replay_trace=run.trace_path,
        divergence=first_divergence(trace, run.trace),
        checks=check_run(run.trace, run.requests, calls, run.script_problems),
        script_problems=run.script_problems,
        mcp_command=command,
        settings=settings,
    )


def first_divergence(recorded: Sequence[Event], replayed: Sequence[Event]) -> Divergence | None:
    """The first turn whose facts differ, else the first difference in how the run ended."""
    before, after = timeline(recorded), timeline(replayed)
    offered = [", ".join((line.tools or {}).get("allowed") or []) for line in (before, after)]
    if offered[0] != offered[1]:
        return Divergence(0, "tools the MCP server offers", offered[0], offered[1])
    for index in range(max(len(before.turns), len(after.turns))):
        step = index + 1
        if index >= len(before.turns):
            return Divergence(
                step, "request count", f"{len(before.turns)} requests", f"request {step} was made"
            )
        if index >= len(after.turns):
            return Divergence(
                step, "request count", f"request {step} was made", f"{len(after.turns)} requests"
            )
        facts = turn_facts(before.turns[index]), turn_facts(after.turns[index])
        for number in range(max(len(facts[0]), len(facts[1]))):
            old = facts[0][number] if number < len(facts[0]) else ("nothing", "")
            new = facts[1][number] if number < len(facts[1]) else ("nothing", "")
            if old != new:
                return Divergence(step, _what(old[0], new[0]), _fact(old), _fact(new))
    ends = [_ending(before.end), _ending(after.end)]
    for name in ("status", "error_type", "answer"):
        if ends[0][name] != ends[1][name]:
            return Divergence(None, name, str(ends[0][name]), str(ends[1][name]))
    return None


def _what(recorded: str, replayed: str) -> str:
    if recorded == replayed:
        return recorded
    if recorded == "nothing":
        return f"{replayed} (only in the replay)"
    if replayed == "nothing":
        return f"{recorded} (only in the recording)"
    return f"{recorded} (recorded) vs {replayed} (replay)"


def _fact(fact: tuple[str, str]) -> str:
    label, value = fact
    return value if label != "nothing" else "(nothing)"


def _ending(end: Event | None) -> dict[str, Any]:
    end = end or {}
    return {
        "status": end.get("status", "unfinished"),
        "error_type": end.get("error_type"),
        "answer": end.get("answer"),
    }


def _around_difference(first: str, second: str, width: int) -> tuple[str, str]:
    """Both texts clipped to `width`, starting a little before the first character where they differ."""
    at = next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
        min(len(first), len(second)),
    )
    begin = max(0, at - width // 3)
    prefix = "…" if begin else ""
    return (clip(prefix + first[begin:], width), clip(prefix + second[begin:], width))
