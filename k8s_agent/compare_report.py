"""The comparison's data (one record per run, two runs per row) and its markdown and JSON renderings.

A comparison has two sides, each an implementation on a wire (`Side`): by default the hand-written
loop and the SDK port, both on `--api`. Every metric comes from the run's trace (the `run_end`
counters and the event times), so a run against a scripted model, the offline model or a real
endpoint is measured the same way. What the model was sent is read as the Chat Completions request
it amounts to (`chat_request`), so two sides on different wires are compared on behaviour, not bytes.
"""

from __future__ import annotations

import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from k8s_agent.invariants import check_run, requests_from_trace
from k8s_agent.timeline import timeline, turn_facts
from k8s_agent_harness.config import APIS, did_you_mean
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.model import prompts
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl, Rejection, ReportFormat, RunStatus
from k8s_agent_mock_cluster.call_log import LoggedCall
from k8s_agent_scripted_llm.responses_api import chat_request

SHORT = {Impl.HANDWRITTEN: "hw", Impl.SDK: "sdk"}
"""Column labels of the implementations in the tables."""
CHAT = "chat"


@dataclass(frozen=True)
class Side:
    """One side of a comparison: an implementation on a wire, and how the reports name it.

    Made by `sides()`, which names the pair: on one wire a side goes by its implementation
    (`sdk`, the names reports have always used); on two wires by both (`sdk:responses`,
    titled `sdk (responses)`).
    """

    impl: Impl
    api: str = CHAT
    key: str = ""
    """Its key in the JSON report's runs and summary, and its folder of traces."""
    title: str = ""
    """Its name in headings: `sdk`, or `sdk (responses)` when the sides' wires differ."""
    short: str = ""
    """Its name in a table cell's order: `hw`, or `hw (chat)` when the sides' wires differ."""

    @property
    def label(self) -> str:
        """The implementation and its wire: `sdk (responses)`."""
        return f"{self.impl} ({self.api})"

    @property
    def folder(self) -> str:
        """The folder its runs' traces go in (its key, without the colon)."""
        return self.key.replace(":", "-")


def sides(pair: Sequence[tuple[Impl, str]] | None = None, api: str = CHAT) -> tuple[Side, Side]:
    """The two sides of a comparison, named; by default both implementations on `api`.

    Raises ConfigError unless there are exactly two different sides on known wires.
    """
    pair = list(pair) if pair is not None else [(impl, api) for impl in IMPLEMENTATIONS]
    if len(pair) != 2:
        raise ConfigError(
            f"compare takes two sides, got {len(pair)}: give --side twice "
            "(e.g. --side handwritten:chat --side sdk:responses)"
        )
    for _, wire in pair:
        if wire not in APIS:
            raise ConfigError(f"unknown API {wire!r}: choose one of {', '.join(APIS)}")
    (first_impl, first_api), (second_impl, second_api) = pair
    if (first_impl, first_api) == (second_impl, second_api):
        raise ConfigError(
            f"both sides are {first_impl} ({first_api}): nothing to compare; give two different sides"
        )
    one_wire = first_api == second_api

    def named(impl: Impl, wire: str) -> Side:
        if one_wire:
            return Side(impl, wire, key=str(impl), title=str(impl), short=SHORT[impl])
        return Side(
            impl, wire, key=f"{impl}:{wire}", title=f"{impl} ({wire})", short=f"{SHORT[impl]} ({wire})"
        )

    return named(first_impl, first_api), named(second_impl, second_api)


DEFAULT_SIDES = sides()
"""The hand-written loop and the SDK port, both on Chat Completions."""


def parse_side(text: str, api: str) -> tuple[Impl, str]:
    """`IMPL[:API]` (API defaults to `api`) as an implementation and a wire; ConfigError when not."""
    name, colon, wire = text.strip().partition(":")
    try:
        impl = Impl(name.strip().lower())
    except ValueError:
        raise ConfigError(
            f"unknown implementation {name.strip()!r} in --side {text}: choose one of "
            f"{', '.join(IMPLEMENTATIONS)} (IMPL[:API], e.g. sdk:responses){did_you_mean(name, IMPLEMENTATIONS)}"
        ) from None
    wire = wire.strip().lower() if colon else api
    if wire not in APIS:
        raise ConfigError(
            f"unknown API {wire!r} in --side {text}: choose one of {', '.join(APIS)} (IMPL[:API], "
            f"e.g. sdk:responses){did_you_mean(wire, APIS)}"
        )
    return impl, wire


def describe_sides(pair: Sequence[Side]) -> str:
    """The sides in a few words: `handwritten vs sdk, both on chat`, `sdk (chat) vs sdk (responses)`."""
    if len({side.api for side in pair}) == 1:
        return " vs ".join(side.title for side in pair) + f", both on {pair[0].api}"
    return " vs ".join(side.title for side in pair)


def noun(pair: Sequence[Side]) -> str:
    """What the sides are: `implementations` (one wire), else `sides`."""
    return "implementations" if len({side.api for side in pair}) == 1 else "sides"


# Numeric metrics summarised (median and range) over repeated runs, in table order.
NUMERIC = (
    "model_requests",
    "tool_calls_executed",
    "tool_calls_rejected",
    "pushbacks",
    "prompt_tokens",
    "completion_tokens",
    "bytes_sent",
    "wall_seconds",
    "loop_seconds",
)
FLAGS = ("report", "grounded", "invariants_held", "forced_summary")


@dataclass(frozen=True)
class RunRecord:
    """One side's run of one row: its metrics (JSON-ready) and its trace."""

    impl: Impl
    metrics: dict[str, Any]
    trace: Sequence[events.Event] = field(repr=False)
    api: str = CHAT
    """The wire the run was asked to speak."""

    @property
    def answer(self) -> str | None:
        """The final answer, or None if the run failed."""
        answer = self.metrics["answer"]
        return None if answer is None else str(answer)


@dataclass(frozen=True)
class Row:
    """One scenario (or one round of a repeated question): both sides' runs, by side key."""

    name: str
    summary: str
    question: str
    model: str
    deterministic: bool
    runs: dict[str, RunRecord]
    cluster: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def answers_identical(self) -> bool | None:
        """Whether every side gave the same final answer (None if a run gave none)."""
        answers = [run.answer for run in self.runs.values()]
        if any(answer is None for answer in answers):
            return None
        return len(set(answers)) == 1


@dataclass(frozen=True)
class Comparison:
    """A whole comparison: the scenario library, or one question asked `repeat` times."""

    rows: list[Row]
    wall_seconds: float
    jobs: int
    mode: str = "scenarios"
    question: str | None = None
    repeat: int | None = None
    trace_dir: Path | None = None
    sides: tuple[Side, ...] = DEFAULT_SIDES


def record_run(
    impl: Impl,
    trace: Sequence[events.Event],
    *,
    api: str = CHAT,
    requests: Sequence[dict[str, Any]] | None = None,
    wires: Sequence[str] | None = None,
    calls: Sequence[LoggedCall] | None = None,
    script_problems: str | None = None,
    trace_path: Path | None = None,
) -> RunRecord:
    """Measure one run from its trace, and check the contract invariants on it.

    `requests` (what the model server received, on `wires`) are read as the Chat requests they
    amount to; without them, on the Responses wire, they are rebuilt from the trace. A run that
    spoke another wire than `api` (its trace or the model server says so) breaks the comparison:
    a violation.
    """
    end = next((e for e in reversed(trace) if isinstance(e, events.RunEnd)), None)
    counts = end.counts if end is not None else events.RunCounts()
    answer = end.answer if end is not None and end.status == RunStatus.OK else None
    start = next((e for e in trace if isinstance(e, events.RunStart)), None)
    spoke = start.api if start is not None else None
    bodies = list(requests) if requests is not None else None  # the invariants read either wire
    checks = check_run(trace, bodies, calls, script_problems)
    violations = [f"{check.name}: {check.detail}" for check in checks if check.held is False]
    heard = sorted(
        {str(wire) for wire in wires or ()}
        | {e.api for e in trace if isinstance(e, events.ModelRequest)}
        | ({spoke} if spoke else set())
    )
    if heard and heard != [api]:
        violations.append(f"wire: asked for {api}, the run spoke {' and '.join(heard)}")
    reports = [e for e in trace if isinstance(e, events.ReportChecked)]
    report_format = start.report_format if start and start.report_format else None
    verified = None
    if report_format not in (None, ReportFormat.PROSE) and answer is not None:
        verified = bool(reports) and reports[-1].parsed and not reports[-1].problems
    times: dict[str, float] = {
        e.kind: e.ts for e in trace if isinstance(e, events.RunStart | events.ToolsListed | events.RunEnd)
    }
    metrics: dict[str, Any] = {
        "status": end.status.value if end is not None else "unfinished",
        "error": end.error if end is not None else None,
        "error_type": end.error_type if end is not None else None,
        "report": bool(answer and answer.strip() and not answer.startswith(prompts.NO_REPORT_PREFIX)),
        "grounded": answer is not None
        and end is not None
        and not end.ungrounded_names
        and verified is not False,
        "report_format": report_format.value if report_format else None,
        "report_verified": verified,
        "ungrounded_names": list(end.ungrounded_names) if end is not None else [],
        "invariants_held": not violations,
        "invariants": {check.name: check.held for check in checks},
        "violations": violations,
        "api": spoke,
        **counts.model_dump(mode="json"),
        "server_calls": None if calls is None else len(calls),
        "wall_seconds": end.wall_seconds if end is not None else None,
        "startup_seconds": _between(times, "run_start", "tools_listed"),
        "loop_seconds": _between(times, "tools_listed", "run_end"),
        "answer": answer,
        "trace": str(trace_path) if trace_path else None,
    }
    return RunRecord(impl, metrics, trace, api)


def conversation_requests(trace: Sequence[events.Event]) -> list[dict[str, Any]]:
    """Each model turn's request, rebuilt from the trace on its own wire and read as the Chat
    Completions request it amounts to."""
    return [chat_request(body) for body in requests_from_trace(trace)]


def conversation_facts(run: RunRecord) -> list[list[tuple[str, str]]]:
    """The facts of each of the run's turns, its request read as the Chat conversation it amounts to
    (a Responses request's input items as messages), so that turns on two wires compare on what the
    model was sent, not on how the wire shapes it."""
    turns = timeline(run.trace).turns
    seen = conversation_requests(run.trace)
    return [
        turn_facts(turn, seen[number] if number < len(seen) else None) for number, turn in enumerate(turns)
    ]


def behaviour_differences(row: Row, pair: Sequence[Side]) -> list[str]:
    """What differs in behaviour between the sides' runs of a row: the behaviour columns by name,
    then `turn N` for each turn whose facts differ (or that one side did not take). Costs (tokens,
    bytes, times) and the wire's shape are never a difference."""
    values = [cells(row.runs[side.key].metrics) for side in pair]
    differing = [
        name
        for name, column in zip(COLUMNS, zip(*values, strict=True), strict=True)
        if name in BEHAVIOUR_COLUMNS and len(set(column)) > 1
    ]
    if row.answers_identical is False:
        differing.append("answer")
    facts = [conversation_facts(row.runs[side.key]) for side in pair]
    longest = max((len(f) for f in facts), default=0)
    differing += [
        f"turn {number + 1}"
        for number in range(longest)
        if len({repr(f[number]) if number < len(f) else "" for f in facts}) > 1
    ]
    return differing


def _between(times: dict[str, float], first: str, last: str) -> float | None:
    if first not in times or last not in times:
        return None
    return round(times[last] - times[first], 3)


# -- JSON ------------------------------------------------------------------------------------------


def to_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as one JSON object (`compare --format json`)."""
    payload: dict[str, Any] = {
        "kind": "k8s-agent-compare",
        "mode": comparison.mode,
        "implementations": [side.impl.value for side in comparison.sides],
        "sides": [
            {"key": side.key, "implementation": side.impl.value, "api": side.api, "label": side.label}
            for side in comparison.sides
        ],
        "environment": environment(comparison.jobs),
        "wall_seconds": round(comparison.wall_seconds, 3),
        "trace_dir": str(comparison.trace_dir) if comparison.trace_dir else None,
        "rows": [
            {
                "name": row.name,
                "summary": row.summary,
                "question": row.question,
                "model": row.model,
                "deterministic": row.deterministic,
                "cluster": str(row.cluster) if row.cluster else None,
                "overrides": row.overrides,
                "answers_identical": row.answers_identical,
                "runs": {key: run.metrics for key, run in row.runs.items()},
            }
            for row in comparison.rows
        ],
        "behaviour_differences": {
            row.name: found
            for row in comparison.rows
            if (found := behaviour_differences(row, comparison.sides))
        },
    }
    if comparison.mode == "repeat":
        payload["question"] = comparison.question
        payload["repeat"] = comparison.repeat
        payload["summary"] = repeat_summary(comparison)
    return payload


def environment(jobs: int) -> dict[str, Any]:
    """Where the comparison ran: versions that explain its numbers."""

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    return {
        "python": platform.python_version(),
        "openai_agents": version("openai-agents"),
        "openai": version("openai"),
        "mcp": version("mcp"),
        "machine": f"{platform.system()} {platform.machine()}",
        "jobs": jobs,
    }


# -- repeated runs ---------------------------------------------------------------------------------


def repeat_summary(comparison: Comparison) -> dict[str, Any]:
    """Per side (by key): median, min and max of each numeric metric; counts of each flag."""
    summary: dict[str, Any] = {}
    for side in comparison.sides:
        runs = [row.runs[side.key].metrics for row in comparison.rows if side.key in row.runs]
        numbers: dict[str, Any] = {}
        for name in NUMERIC:
            values = [float(m[name]) for m in runs if m.get(name) is not None]
            numbers[name] = (
                {"median": statistics.median(values), "min": min(values), "max": max(values)}
                if values
                else None
            )
        flags = {name: sum(1 for m in runs if m.get(name)) for name in FLAGS}
        answers = {m["answer"] for m in runs if m.get("answer") is not None}
        summary[side.key] = {"runs": len(runs), **numbers, **flags, "distinct_answers": len(answers)}
    summary["rounds_with_identical_answers"] = sum(1 for row in comparison.rows if row.answers_identical)
    return summary


# -- markdown --------------------------------------------------------------------------------------

BEHAVIOUR_COLUMNS = (
    "report",
    "grounded",
    "contract",
    "requests",
    "executed",
    "rejected u·i·d",
    "pushbacks",
    "forced summary",
)
"""Columns whose difference between the sides matters: behaviour, guardrails, answers."""
COST_COLUMNS = ("prompt tok", "completion tok", "bytes sent", "wall s", "loop ms")
"""Costs: expected to differ between the sides (the SDK's extra bytes, each wire's shape, timing noise)."""
COLUMNS = BEHAVIOUR_COLUMNS + COST_COLUMNS


def cells(metrics: dict[str, Any]) -> list[str]:
    """One implementation's values, in COLUMNS order."""
    rejected = metrics["rejected"]
    unknown = rejected.get(Rejection.UNKNOWN, 0) + rejected.get(Rejection.REFUSED, 0)
    invalid = rejected.get(Rejection.INVALID_JSON, 0) + rejected.get(Rejection.INVALID_ARGS, 0)
    wall = metrics["wall_seconds"]
    loop = metrics["loop_seconds"]
    return [
        _mark(metrics["report"]),
        _mark(metrics["grounded"]),
        _mark(metrics["invariants_held"]),
        str(metrics["model_requests"]),
        str(metrics["tool_calls_executed"]),
        f"{unknown}·{invalid}·{rejected.get(Rejection.DUPLICATE, 0)}",
        str(metrics["pushbacks"]),
        _summary_reason(metrics),
        str(metrics["prompt_tokens"]),
        str(metrics["completion_tokens"]),
        str(metrics["bytes_sent"]),
        "-" if wall is None else f"{float(wall):.2f}",
        "-" if loop is None else f"{float(loop) * 1000:.0f}",
    ]


def _mark(value: Any) -> str:
    return "✓" if value else "✗"


def _summary_reason(metrics: dict[str, Any]) -> str:
    reason = metrics["forced_summary_reason"]
    return "-" if not reason else str(reason).replace("_", " ")


def markdown(comparison: Comparison) -> str:
    """The comparison table (and, for repeated runs, the medians first)."""
    pair = comparison.sides
    parts = []
    if comparison.mode == "repeat":
        parts.append(repeat_markdown(comparison))
        parts.append("Each round:")
    parts.append(rows_markdown(comparison.rows, "round" if comparison.mode == "repeat" else "scenario", pair))
    titles = {side.key: side.title for side in pair}
    failures = [
        f"- {row.name} · {titles.get(key, key)}: "
        f"{'; '.join(run.metrics['violations'] or [str(run.metrics['error'])])}"
        for row in comparison.rows
        for key, run in row.runs.items()
        if not run.metrics["invariants_held"] or run.metrics["status"] != "ok"
    ]
    if failures:
        parts.append("Runs that failed or broke an invariant:\n" + "\n".join(failures))
    differences = [
        f"- {row.name}: {', '.join(found)}"
        for row in comparison.rows
        if (found := behaviour_differences(row, pair))
    ]
    if differences:
        parts.append(f"Rows whose behaviour differs, {describe_sides(pair)}:\n" + "\n".join(differences))
    elif len({side.api for side in pair}) > 1:
        parts.append(
            "No row differs in behaviour. Bytes and tokens differ because each wire shapes the same "
            "conversation its own way: costs, not behaviour."
        )
    traces = f"; traces in {comparison.trace_dir}" if comparison.trace_dir else ""
    parts.append(
        f"{plural(len(comparison.rows), 'row')} x {len(pair)} {noun(pair)}: the runs took "
        f"{comparison.wall_seconds:.1f} s ({comparison.jobs} at a time){traces}."
    )
    return "\n\n".join(parts) + "\n"


def cell_order(pair: Sequence[Side]) -> str:
    """What a table cell holds, in order: `hw / sdk`, `sdk (chat) / sdk (responses)`."""
    return " / ".join(side.short for side in pair)


def rows_markdown(rows: Sequence[Row], first: str = "scenario", pair: Sequence[Side] = DEFAULT_SIDES) -> str:
    """Rows are scenarios (or rounds); each cell holds `first side / second side`."""
    wire = f" Both on the {pair[0].api} wire." if len({side.api for side in pair}) == 1 else ""
    header = [first, *COLUMNS, "same answer"]
    lines = [
        f"Each cell: {cell_order(pair)}.{wire}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---", *[":---:"] * (len(header) - 1)]) + "|",
    ]
    for row in rows:
        per_side = [cells(row.runs[side.key].metrics) for side in pair]
        merged = [" / ".join(values) for values in zip(*per_side, strict=True)]
        same = {True: "yes", False: "**no**", None: "-"}[row.answers_identical]
        lines.append("| " + " | ".join([row.name, *merged, same]) + " |")
    return "\n".join(lines)


def repeat_markdown(comparison: Comparison) -> str:
    """Medians and ranges of each metric over the repeated runs: rows are metrics."""
    pair = comparison.sides
    summary = repeat_summary(comparison)
    question = comparison.question or ""
    per = "implementation" if noun(pair) == "implementations" else "side"
    lines = [
        f"Question: {question}",
        f"Model: {comparison.rows[0].model if comparison.rows else '?'}; {plural(comparison.repeat or 0, 'run')} per {per}"
        + (f", both on {pair[0].api}." if per == "implementation" else "."),
        "",
        "| metric | " + " | ".join(f"{side.title} median [min-max]" for side in pair) + " |",
        "|:---|" + "|".join([":---:"] * len(pair)) + "|",
    ]
    for name in NUMERIC:
        values = []
        for side in pair:
            stats = summary[side.key][name]
            values.append(
                "-"
                if stats is None
                else f"{_num(stats['median'])} [{_num(stats['min'])}-{_num(stats['max'])}]"
            )
        lines.append(f"| {name.replace('_', ' ')} | " + " | ".join(values) + " |")
    for name in (*FLAGS, "distinct_answers"):
        values = [
            f"{summary[side.key][name]}"
            + ("" if name == "distinct_answers" else f"/{summary[side.key]['runs']}")
            for side in pair
        ]
        lines.append(f"| {name.replace('_', ' ')} | " + " | ".join(values) + " |")
    lines.append(
        f"\nRounds where both {noun(pair)} gave the same answer: "
        f"{summary['rounds_with_identical_answers']}/{len(comparison.rows)}."
    )
    return "\n".join(lines)


def _num(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"
