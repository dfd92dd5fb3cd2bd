"""The comparison's data (one record per run, two runs per row) and its markdown and JSON renderings.

Every metric comes from the run's trace (the `run_end` counters and the event times), so a run
against a scripted model, the offline model or a real endpoint is measured the same way.
"""

from __future__ import annotations

import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from k8s_agent.invariants import check_run
from k8s_agent_harness import events, prompts
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl, Rejection, ReportFormat, RunStatus
from k8s_agent_mock_cluster.call_log import LoggedCall

SHORT = {Impl.HANDWRITTEN: "hw", Impl.SDK: "sdk"}
"""Column labels of the implementations in the tables."""

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
    """One implementation's run of one row: its metrics (JSON-ready) and its trace."""

    impl: Impl
    metrics: dict[str, Any]
    trace: Sequence[events.Event] = field(repr=False)

    @property
    def answer(self) -> str | None:
        """The final answer, or None if the run failed."""
        answer = self.metrics["answer"]
        return None if answer is None else str(answer)


@dataclass(frozen=True)
class Row:
    """One scenario (or one round of a repeated question): both implementations' runs."""

    name: str
    summary: str
    question: str
    model: str
    deterministic: bool
    runs: dict[Impl, RunRecord]
    cluster: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def answers_identical(self) -> bool | None:
        """Whether every implementation gave the same final answer (None if a run gave none)."""
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


def record_run(
    impl: Impl,
    trace: Sequence[events.Event],
    *,
    requests: Sequence[dict[str, Any]] | None = None,
    calls: Sequence[LoggedCall] | None = None,
    script_problems: str | None = None,
    trace_path: Path | None = None,
) -> RunRecord:
    """Measure one run from its trace, and check the contract invariants on it."""
    end = next((e for e in reversed(trace) if isinstance(e, events.RunEnd)), None)
    counts = end.counts if end is not None else events.RunCounts()
    answer = end.answer if end is not None and end.status == RunStatus.OK else None
    checks = check_run(trace, requests, calls, script_problems)
    reports = [e for e in trace if isinstance(e, events.ReportChecked)]
    start = next((e for e in trace if isinstance(e, events.RunStart)), None)
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
        "invariants_held": all(check.held is not False for check in checks),
        "invariants": {check.name: check.held for check in checks},
        "violations": [f"{check.name}: {check.detail}" for check in checks if check.held is False],
        **counts.model_dump(mode="json"),
        "server_calls": None if calls is None else len(calls),
        "wall_seconds": end.wall_seconds if end is not None else None,
        "startup_seconds": _between(times, "run_start", "tools_listed"),
        "loop_seconds": _between(times, "tools_listed", "run_end"),
        "answer": answer,
        "trace": str(trace_path) if trace_path else None,
    }
    return RunRecord(impl, metrics, trace)


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
        "implementations": list(IMPLEMENTATIONS),
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
                "runs": {impl: run.metrics for impl, run in row.runs.items()},
            }
            for row in comparison.rows
        ],
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
    """Per implementation: median, min and max of each numeric metric; counts of each flag."""
    summary: dict[str, Any] = {}
    for impl in IMPLEMENTATIONS:
        runs = [row.runs[impl].metrics for row in comparison.rows if impl in row.runs]
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
        summary[impl] = {"runs": len(runs), **numbers, **flags, "distinct_answers": len(answers)}
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
"""Columns whose difference between the implementations matters: behaviour, guardrails, answers."""
COST_COLUMNS = ("prompt tok", "completion tok", "bytes sent", "wall s", "loop ms")
"""Costs: expected to differ between the implementations (the SDK's extra bytes, timing noise)."""
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
    parts = []
    if comparison.mode == "repeat":
        parts.append(repeat_markdown(comparison))
        parts.append("Each round:")
    parts.append(rows_markdown(comparison.rows, "round" if comparison.mode == "repeat" else "scenario"))
    failures = [
        f"- {row.name} · {impl}: {'; '.join(run.metrics['violations'] or [str(run.metrics['error'])])}"
        for row in comparison.rows
        for impl, run in row.runs.items()
        if not run.metrics["invariants_held"] or run.metrics["status"] != "ok"
    ]
    if failures:
        parts.append("Runs that failed or broke an invariant:\n" + "\n".join(failures))
    traces = f"; traces in {comparison.trace_dir}" if comparison.trace_dir else ""
    parts.append(
        f"{len(comparison.rows)} rows x {len(IMPLEMENTATIONS)} implementations in "
        f"{comparison.wall_seconds:.1f} s ({comparison.jobs} at a time){traces}."
    )
    return "\n\n".join(parts) + "\n"


def rows_markdown(rows: Sequence[Row], first: str = "scenario") -> str:
    """Rows are scenarios (or rounds); each cell holds `handwritten / sdk`."""
    order = " / ".join(SHORT[impl] for impl in IMPLEMENTATIONS)
    header = [first, *COLUMNS, "same answer"]
    lines = [
        f"Each cell: {order}.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---", *[":---:"] * (len(header) - 1)]) + "|",
    ]
    for row in rows:
        per_impl = [cells(row.runs[impl].metrics) for impl in IMPLEMENTATIONS]
        merged = [" / ".join(values) for values in zip(*per_impl, strict=True)]
        same = {True: "yes", False: "**no**", None: "-"}[row.answers_identical]
        lines.append("| " + " | ".join([row.name, *merged, same]) + " |")
    return "\n".join(lines)


def repeat_markdown(comparison: Comparison) -> str:
    """Medians and ranges of each metric over the repeated runs: rows are metrics."""
    summary = repeat_summary(comparison)
    question = comparison.question or ""
    lines = [
        f"Question: {question}",
        f"Model: {comparison.rows[0].model if comparison.rows else '?'}; {comparison.repeat} runs per implementation.",
        "",
        "| metric | " + " | ".join(f"{impl} median [min-max]" for impl in IMPLEMENTATIONS) + " |",
        "|:---|" + "|".join([":---:"] * len(IMPLEMENTATIONS)) + "|",
    ]
    for name in NUMERIC:
        values = []
        for impl in IMPLEMENTATIONS:
            stats = summary[impl][name]
            values.append(
                "-"
                if stats is None
                else f"{_num(stats['median'])} [{_num(stats['min'])}-{_num(stats['max'])}]"
            )
        lines.append(f"| {name.replace('_', ' ')} | " + " | ".join(values) + " |")
    for name in (*FLAGS, "distinct_answers"):
        values = [
            f"{summary[impl][name]}" + ("" if name == "distinct_answers" else f"/{summary[impl]['runs']}")
            for impl in IMPLEMENTATIONS
        ]
        lines.append(f"| {name.replace('_', ' ')} | " + " | ".join(values) + " |")
    lines.append(
        f"\nRounds where both implementations gave the same answer: "
        f"{summary['rounds_with_identical_answers']}/{len(comparison.rows)}."
    )
    return "\n".join(lines)


def _num(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"
