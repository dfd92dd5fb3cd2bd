"""Replay a trace: its recorded model responses become a scripted model, run against either agent.

A saved incident becomes a regression fixture: replayed on the same implementation the run must
do the same thing; on the other implementation, or after a change, the first step where it does
not (tool outcomes or results, guardrails, what the model was asked, the number of requests, the
final answer) is reported.

A trace is data, never a command: replay starts the embedded mock cluster on this interpreter
(with the recorded fixture and fault plan, when the run was on the mock cluster), or the server
the user names with `--mcp-command`. The command a trace records is only compared, never run.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_agent.invariants import Check, check_run, requests_from_trace
from k8s_agent.scripted_run import CALL_LOG, run_scripted
from k8s_agent.timeline import clip, timeline, turn_facts
from k8s_agent_harness.cluster.servers import MOCK_CLUSTER_MODULE, mock_cluster_command
from k8s_agent_harness.config import BUDGET_SETTINGS
from k8s_agent_harness.config_load import checked_settings
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.model.provider_wire import unparsable_call
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.private import write_private
from k8s_agent_harness.traces.trace import Observer
from k8s_agent_harness.vocabulary import Impl, ReportFormat
from k8s_agent_mock_cluster import FixtureError, load_fixture
from k8s_agent_mock_cluster.faults import FaultPlan, FaultPlanError
from k8s_agent_scripted_llm import HttpError, Malformed, Reply, Step, ToolCall, hang
from k8s_agent_scripted_llm.responses_api import chat_request


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
class ReplayServer:
    """The MCP server a replay starts, and what the user should know about the choice."""

    command: tuple[str, ...]
    notes: tuple[str, ...] = ()
    logs_calls: bool = False
    """Whether the server writes the call log (the embedded mock cluster does)."""


@dataclass(frozen=True)
class Replay:
    """What a replay did and where it diverged (None: nowhere)."""

    impl: Impl
    recorded: events.Trace
    replayed: tuple[events.Event, ...]
    replay_trace: Path | None
    divergence: Divergence | None
    checks: list[Check]
    script_problems: str
    mcp_command: tuple[str, ...]
    settings: dict[str, Any]
    notes: tuple[str, ...] = field(default=())
    recorded_checks: list[Check] = field(default_factory=list)
    """The contract invariants of the recording itself, its requests rebuilt from the trace."""

    @property
    def api(self) -> str:
        """The wire the replay ran on."""
        return str(self.settings.get("api") or self.recorded.start.api)

    @property
    def across_wires(self) -> bool:
        """Whether the replay ran on another wire than the recording (requests then compared as Chat)."""
        return self.api != self.recorded.start.api


def script_from_trace(trace: Sequence[events.Event]) -> list[Step]:
    """The model's side of a recorded run, one step per request attempt, in order.

    A response becomes a reply (text and tool calls with their ids and argument strings, usage);
    an HTTP error becomes the same error; a request that got no answer (a timeout) hangs. A reply
    is scripted as a Chat completion, which the scripted model writes on either wire: a recorded
    Response's status becomes the finish reason it amounts to (`incomplete: max_output_tokens` is
    `length`).
    """
    steps: list[Step] = []
    waiting = False
    for event in trace:
        if isinstance(event, events.ModelRequest | events.RunEnd):
            if waiting:
                steps.append(hang())
            waiting = isinstance(event, events.ModelRequest)
        elif isinstance(event, events.ModelError) and waiting:
            steps.append(_http_error(event))
            waiting = False
        elif isinstance(event, events.ModelResponse) and waiting:
            steps.append(_reply(event))
            waiting = False
    return steps


def _reply(event: events.ModelResponse) -> Step:
    if event.malformed:
        return Malformed(event.body or "")
    usage = event.usage
    counted = usage.prompt_tokens is not None and usage.completion_tokens is not None
    return Reply(
        content=event.text,
        tool_calls=tuple(ToolCall(call.name, call.arguments or "", call.id) for call in event.tool_calls),
        finish_reason=_chat_finish_reason(event.finish_reason),
        usage={"prompt_tokens": usage.prompt_tokens or 0, "completion_tokens": usage.completion_tokens or 0}
        if counted
        else None,
    )


RESPONSE_STATUSES = {
    "completed": None,  # stop, or tool_calls: the scripted model says which
    "incomplete: max_output_tokens": "length",
    "incomplete: content_filter": "content_filter",
}
"""A recorded Response's `finish_reason` (its status, and why it is incomplete) as a Chat finish reason."""


def _chat_finish_reason(recorded: str | None) -> str | None:
    return RESPONSE_STATUSES.get(recorded, recorded) if recorded is not None else None


def _http_error(event: events.ModelError) -> HttpError | Malformed:
    try:
        body = json.loads(event.body)
    except ValueError:
        body = None
    if unparsable_call(event.status, body) is not None:
        return Malformed(event.body, event.status)  # the provider's own body: the loops read it again
    try:
        message = str(body["error"]["message"])
    except (KeyError, TypeError):
        message = event.body or "replayed error"
    headers = {"Retry-After": event.retry_after} if event.retry_after else {}
    return HttpError(event.status, message, headers)


def replay_server(
    start: events.RunStart, call_log: Path, *, cluster: Path | None = None, mcp_command: tuple[str, ...] = ()
) -> ReplayServer:
    """The MCP server to replay against, chosen by the user, never by the trace.

    `--mcp-command` runs as given. Otherwise the embedded mock cluster starts on this interpreter:
    with `--cluster`, or the fixture and fault plan a recorded mock cluster ran with (files the
    trace names, read as data); a trace of any other server says so in a note.
    """
    if mcp_command:
        return ReplayServer(mcp_command, ("MCP server: as given with --mcp-command",))
    recorded = start.mcp_command
    on_mock = _is_mock_cluster(recorded)
    options = _mock_options(recorded) if on_mock else {}
    notes: list[str] = []
    if not on_mock and recorded:
        notes.append(
            f"the trace ran against `{' '.join(recorded)}`; a trace is data, never a command, so that is "
            "not started: replaying against the embedded mock cluster (name a server with --mcp-command)"
        )
    elif start.mcp_url:
        notes.append(
            f"the trace ran against the deployed server {start.mcp_url}, which a replay never reaches: "
            "replaying against the embedded mock cluster (name a server with --mcp-command)"
        )
    fixture = cluster or options.get("--cluster")
    if fixture is not None:
        try:
            load_fixture(fixture)  # read as data: a cluster description, or an error here
        except FixtureError as error:
            if cluster:
                raise ConfigError(str(error)) from None
            raise ConfigError(
                f"the trace's mock cluster fixture cannot be used ({error}): pass --cluster FILE"
            ) from None
    faults = options.get("--faults")
    if faults is not None:
        faults = _copied_fault_plan(faults, call_log.parent, notes)
    command = mock_cluster_command(call_log=call_log, cluster=fixture, faults=faults)
    return ReplayServer(command, tuple(notes), logs_calls=True)


def _copied_fault_plan(recorded: Path, workdir: Path, notes: list[str]) -> Path | None:
    """The recorded fault plan, checked and copied into the replay's folder: the mock cluster keeps
    the plan's state in a file next to it, and a replay writes only into its own folder."""
    try:
        FaultPlan.load(recorded)
        copy = workdir / "faults.json"
        write_private(copy, recorded.read_text(encoding="utf-8"))
    except (FaultPlanError, OSError) as error:
        notes.append(f"the recorded fault plan {recorded} cannot be used ({error}); replaying without faults")
        return None
    return copy


def _is_mock_cluster(command: Sequence[str]) -> bool:
    return any(a == "-m" and b == MOCK_CLUSTER_MODULE for a, b in itertools.pairwise(command))


def _mock_options(command: Sequence[str]) -> dict[str, Path]:
    options: dict[str, Path] = {}
    for flag, value in itertools.pairwise(command):
        if flag in ("--cluster", "--faults"):
            options[flag] = Path(value)
    return options


def recorded_settings(
    start: events.RunStart, overrides: dict[str, Any] | None = None, *, api: str | None = None
) -> dict[str, Any]:
    """The run settings of a replay: the recorded budgets (checked as any setting is), wire and
    model, then the user's overrides (`api`: the other wire); raises ConfigError for a budget out of
    range or a wire this release does not speak."""
    settings: dict[str, Any] = {
        name: start.budgets[name] for name in BUDGET_SETTINGS if name in start.budgets
    }
    settings.update({k: v for k, v in (overrides or {}).items() if v is not None})
    try:
        settings = checked_settings(settings)
    except ConfigError as error:
        raise ConfigError(f"the trace's budgets cannot be used: {error}") from None
    try:
        settings.update(checked_settings({"api": api or start.api}))
    except ConfigError as error:
        raise ConfigError(f"the trace's wire cannot be replayed: {error}") from None
    settings["model"] = start.model or "scripted"
    settings.setdefault("report_format", (start.report_format or ReportFormat.PROSE).value)
    return settings


async def replay(
    trace: events.Trace,
    impl: Impl,
    workdir: Path,
    *,
    cluster: Path | None = None,
    mcp_command: tuple[str, ...] = (),
    budgets: dict[str, Any] | None = None,
    api: str | None = None,
    observer: Observer | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> Replay:
    """Replay `trace` on `impl` (call log and new trace in `workdir`) and find the first divergence;
    on the recorded wire, or on `api`. `observer` sees the replay's events as they happen; `say`
    gets a line for each stage."""
    start = trace.start
    settings = recorded_settings(start, budgets, api=api)  # before the server: a bad trace starts nothing
    server = replay_server(start, workdir / CALL_LOG, cluster=cluster, mcp_command=mcp_command)
    script = script_from_trace(trace.events)
    say(
        f"replaying {plural(len(script), 'recorded model answer')} on the {impl.value} agent "
        f"({settings['api']} API) against {_server_words(server)}"
    )
    done = await run_scripted(
        impl,
        workdir,
        script=script,
        question=start.question,
        mcp_command=server.command,
        settings=settings,
        observer=observer,
    )
    say("comparing the replay with the recording, turn by turn")
    return Replay(
        impl=impl,
        recorded=trace,
        replayed=done.events,
        replay_trace=done.trace_path,
        divergence=first_divergence(trace.events, done.events),
        checks=check_run(
            done.events, done.requests, done.calls if server.logs_calls else None, done.script_problems
        ),
        script_problems=done.script_problems,
        mcp_command=server.command,
        settings=settings,
        notes=server.notes,
        recorded_checks=check_run(trace.events),
    )


def _server_words(server: ReplayServer) -> str:
    return "the embedded mock cluster" if server.logs_calls else f"`{' '.join(server.command)}`"


def first_divergence(recorded: Sequence[events.Event], replayed: Sequence[events.Event]) -> Divergence | None:
    """The first turn whose facts differ, else the first difference in how the run ended.

    Runs on different wires (`run_start.api`) are compared on what the model saw: each request as
    the Chat Completions request it amounts to, rebuilt from the trace."""
    before, after = timeline(recorded), timeline(replayed)
    across = before.start.api != after.start.api
    seen = [
        [chat_request(body) for body in requests_from_trace(run)] if across else []
        for run in (recorded, replayed)
    ]
    offered = [", ".join(line.tools.allowed if line.tools else []) for line in (before, after)]
    if offered[0] != offered[1]:
        return Divergence(0, "tools the MCP server offers", offered[0], offered[1])
    for index in range(max(len(before.turns), len(after.turns))):
        step = index + 1
        if index >= len(before.turns):
            return Divergence(
                step, "request count", plural(len(before.turns), "request"), f"request {step} was made"
            )
        if index >= len(after.turns):
            return Divergence(
                step, "request count", f"request {step} was made", plural(len(after.turns), "request")
            )
        facts = (
            turn_facts(before.turns[index], _nth(seen[0], index)),
            turn_facts(after.turns[index], _nth(seen[1], index)),
        )
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


def _nth(bodies: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
    return bodies[index] if index < len(bodies) else None


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


def _ending(end: events.RunEnd | None) -> dict[str, Any]:
    if end is None:
        return {"status": "unfinished", "error_type": None, "answer": None}
    return {"status": end.status.value, "error_type": end.error_type, "answer": end.answer}


def _around_difference(first: str, second: str, width: int) -> tuple[str, str]:
    """Both texts clipped to `width`, starting a little before the first character where they differ."""
    at = next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
        min(len(first), len(second)),
    )
    begin = max(0, at - width // 3)
    prefix = "…" if begin else ""
    return (clip(prefix + first[begin:], width), clip(prefix + second[begin:], width))
