"""`k8s-agent compare` over the whole scenario library: every field of its JSON, for both implementations.

The expected numbers come from the scenario scripts (k8s_agent/scenarios.py) and docs/contract.md's
contract, not from a previous run; the costs (bytes, tokens, times) are checked against the traces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.compare import render
from k8s_agent.compare_report import Comparison
from k8s_agent.invariants import INVARIANTS
from k8s_agent.scenarios import REPORT, SCENARIOS
from k8s_agent_harness.config import IMPLEMENTATIONS

RUN_FIELDS: dict[str, type | tuple[type, ...]] = {
    "status": str,
    "error": type(None),
    "error_type": type(None),
    "report": bool,
    "grounded": bool,
    "report_format": str,
    "report_verified": (bool, type(None)),
    "ungrounded_names": list,
    "invariants_held": bool,
    "invariants": dict,
    "violations": list,
    "api": str,
    "model_requests": int,
    "model_attempts": int,
    "tool_calls_executed": int,
    "tool_calls_failed": int,
    "tool_calls_rejected": int,
    "rejected": dict,
    "pushbacks": int,
    "pushback_kinds": dict,
    "forced_summary": bool,
    "forced_summary_reason": (str, type(None)),
    "prompt_tokens": int,
    "completion_tokens": int,
    "bytes_sent": int,
    "largest_request": int,
    "server_calls": int,
    "wall_seconds": float,
    "startup_seconds": float,
    "loop_seconds": float,
    "answer": str,
    "trace": str,
}
ROW_FIELDS = {
    "name",
    "summary",
    "question",
    "model",
    "deterministic",
    "cluster",
    "overrides",
    "answers_identical",
    "runs",
}

# scenario -> requests, reached the server (executed, of which failed), rejections, pushbacks,
# forced summary reason, grounded. Rejections and pushbacks list only the non-zero kinds.
EXPECTED: dict[str, tuple[int, int, int, dict[str, int], dict[str, int], str | None, bool]] = {
    "c1-forced-first-step": (3, 2, 0, {}, {}, None, True),
    "c2-zero-tool-pushback": (2, 0, 0, {}, {"zero_tool": 1}, None, True),
    "c3-schema-rejection": (3, 1, 0, {"invalid_args": 1}, {}, None, True),
    "c4-duplicates": (4, 1, 0, {"duplicate": 2}, {}, "repeated_calls", True),
    "c4-parallel-duplicates": (2, 2, 0, {"duplicate": 2}, {}, "repeated_calls", True),
    "c5-invented-pods": (3, 1, 0, {}, {"evidence": 1}, None, False),
    "c6-unknown-tool": (3, 1, 0, {"unknown": 1}, {}, None, True),
    "c7-step-budget": (4, 3, 0, {}, {}, "step_budget", True),
    "c8-invalid-json": (3, 1, 0, {"invalid_json": 1}, {}, None, True),
    "c9-tool-failure": (2, 1, 1, {}, {}, None, True),
    "c10-mixed-round": (
        2,
        2,
        1,
        {"unknown": 1, "invalid_json": 1, "invalid_args": 1, "duplicate": 1},
        {},
        None,
        True,
    ),
    "c11-report-schema": (4, 2, 0, {}, {"report": 1}, None, True),
    "c11-report-json-text": (4, 2, 0, {}, {"report": 1}, None, True),
    "c12-fabricated-evidence": (4, 2, 0, {}, {"report": 1}, None, True),
    "c12-unverified-kept": (3, 1, 0, {}, {"report": 1}, None, False),
    "offline-default": (4, 19, 0, {}, {}, None, True),
    "offline-prose": (4, 19, 0, {}, {}, None, True),
}


def trace_of(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    lines = Path(metrics["trace"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def runs(report: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(row["name"], impl, metrics) for row in report["rows"] for impl, metrics in row["runs"].items()]


def test_every_builtin_scenario_runs_on_both_implementations(report: dict[str, Any]) -> None:
    assert report["kind"] == "k8s-agent-compare"
    assert report["mode"] == "scenarios"
    assert report["implementations"] == list(IMPLEMENTATIONS)
    assert [(side["key"], side["api"]) for side in report["sides"]] == [(i, "chat") for i in IMPLEMENTATIONS]
    assert report["behaviour_differences"] == {}
    assert [row["name"] for row in report["rows"]] == list(SCENARIOS)
    assert all(list(row["runs"]) == list(IMPLEMENTATIONS) for row in report["rows"])
    assert set(EXPECTED) == set(SCENARIOS)


def test_the_report_says_where_and_how_it_ran(report: dict[str, Any]) -> None:
    environment = report["environment"]

    assert set(environment) == {"python", "openai_agents", "openai", "mcp", "machine", "jobs"}
    assert environment["openai_agents"] == "0.24.0"
    assert environment["jobs"] == 2
    assert report["wall_seconds"] > 0
    assert Path(report["trace_dir"]).is_dir()


def test_every_row_has_every_field(report: dict[str, Any]) -> None:
    for row in report["rows"]:
        scenario = SCENARIOS[row["name"]]
        assert set(row) == ROW_FIELDS
        assert row["summary"] == scenario.summary
        assert row["question"] == scenario.question
        assert row["model"] == ("offline" if scenario.offline else "scripted")
        assert row["deterministic"] is True
        assert row["cluster"] is None
        assert row["overrides"] == scenario.overrides


def test_every_run_has_every_field_with_its_type(report: dict[str, Any]) -> None:
    for name, impl, metrics in runs(report):
        assert set(metrics) == set(RUN_FIELDS), (name, impl)
        for field, kind in RUN_FIELDS.items():
            assert isinstance(metrics[field], kind), (name, impl, field, metrics[field])
        assert set(metrics["invariants"]) == set(INVARIANTS)
        assert set(metrics["rejected"]) == {
            "unknown",
            "refused",
            "invalid_json",
            "invalid_args",
            "duplicate",
            "skipped",
        }
        assert set(metrics["pushback_kinds"]) == {"zero_tool", "evidence", "report"}


@pytest.mark.parametrize("name", EXPECTED)
def test_each_scenario_counts_what_its_script_does_on_both_implementations(
    report: dict[str, Any], name: str
) -> None:
    requests, executed, failed, rejected, pushbacks, summary, grounded = EXPECTED[name]
    row = next(row for row in report["rows"] if row["name"] == name)

    for impl, metrics in row["runs"].items():
        assert metrics["status"] == "ok" and metrics["error"] is None, impl
        assert metrics["report"] is True
        assert metrics["grounded"] is grounded
        unverified = bool(metrics["ungrounded_names"]) or metrics["report_verified"] is False
        assert unverified is not grounded
        report_format = SCENARIOS[name].overrides.get("report_format", "prose")
        assert metrics["report_format"] == report_format
        assert (metrics["report_verified"] is None) is (report_format == "prose")
        assert metrics["model_requests"] == metrics["model_attempts"] == requests
        assert metrics["tool_calls_executed"] == executed
        assert metrics["tool_calls_failed"] == failed
        assert metrics["server_calls"] == executed  # the call log: what reached the MCP server
        assert {k: v for k, v in metrics["rejected"].items() if v} == rejected
        assert metrics["tool_calls_rejected"] == sum(rejected.values())
        assert {k: v for k, v in metrics["pushback_kinds"].items() if v} == pushbacks
        assert metrics["pushbacks"] == sum(pushbacks.values())
        assert metrics["forced_summary"] is (summary is not None)
        assert metrics["forced_summary_reason"] == summary


def test_every_run_keeps_every_contract_invariant(report: dict[str, Any]) -> None:
    for name, impl, metrics in runs(report):
        assert metrics["invariants_held"] is True, (name, impl, metrics["violations"])
        assert metrics["violations"] == []
        assert all(held is True for held in metrics["invariants"].values()), (name, impl)


def test_costs_match_the_trace_of_each_run(report: dict[str, Any]) -> None:
    for name, impl, metrics in runs(report):
        trace = trace_of(metrics)
        requests = [e for e in trace if e["kind"] == "model_request"]
        responses = [e for e in trace if e["kind"] == "model_response"]

        assert metrics["bytes_sent"] == sum(e["bytes"] for e in requests) > 0, (name, impl)
        assert metrics["prompt_tokens"] == sum(e["usage"]["prompt_tokens"] for e in responses) > 0
        assert metrics["completion_tokens"] == sum(e["usage"]["completion_tokens"] for e in responses) > 0
        assert metrics["startup_seconds"] > 0 and metrics["loop_seconds"] > 0 and metrics["wall_seconds"] > 0
        # start-up and loop split the run's span in the trace (its own timestamps, whatever the load)
        (start,) = [e for e in trace if e["kind"] == "run_start"]
        (end,) = [e for e in trace if e["kind"] == "run_end"]
        assert metrics["startup_seconds"] + metrics["loop_seconds"] == pytest.approx(
            end["ts"] - start["ts"],
            abs=2e-3,  # each of the two rounded to the millisecond
        )


def test_the_two_implementations_give_identical_answers_on_every_scenario(report: dict[str, Any]) -> None:
    for row in report["rows"]:
        answers = {impl: metrics["answer"] for impl, metrics in row["runs"].items()}
        assert row["answers_identical"] is True, answers
        assert len(set(answers.values())) == 1
    first = next(row for row in report["rows"] if row["name"] == "c1-forced-first-step")
    assert first["runs"]["sdk"]["answer"] == REPORT


def test_the_markdown_table_has_one_row_per_scenario_with_both_values(comparison: Comparison) -> None:
    table = render(comparison, "md")
    rows = [line for line in table.splitlines() if line.startswith("| c") or line.startswith("| offline")]

    assert "Each cell: hw / sdk." in table
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == list(SCENARIOS)
    c4 = next(row for row in rows if row.startswith("| c4-duplicates "))
    assert "| 4 / 4 |" in c4 and "| 0·0·2 / 0·0·2 |" in c4 and "repeated calls / repeated calls" in c4
    assert all(row.endswith("| yes |") for row in rows)
    assert "failed or broke" not in table
