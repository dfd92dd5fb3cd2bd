"""Rendering both wires: the probe table, the differences between wires and the version matrix,
on canned reports (no SDK runs here)."""

from __future__ import annotations

import copy
from typing import Any

from poc.matrix import render
from poc.render import probe_table, wire_differences, wire_matrix, wire_sections, wire_view
from poc.report import pinned_wires


def _result(verdict: str, headline: str, **observations: Any) -> dict[str, Any]:
    return {"question": "?", "verdict": verdict, "headline": headline, "observations": observations}


def _card(verdict: str, reason: str) -> list[dict[str, str]]:
    return [{"id": "R2", "guardrail": "endpoint failure is an error", "verdict": verdict, "reason": reason}]


CHAT: dict[str, Any] = {
    "probes": {
        "tool_choice": _result("ok", "#1 required, #2 absent", default_request_2="absent", sdk_said=["a"]),
        "empty_choices": _result("ok", "ModelBehaviorError", outcome="ModelBehaviorError: no choices"),
        "output_type": _result("ok", "response_format", format_field_on_wire=["response_format"]),
    },
    "scorecard": _card("moves cleanly", "raises"),
}
RESPONSES: dict[str, Any] = {
    "probes": {
        "tool_choice": _result("ok", "#1 required, #2 absent", default_request_2="absent", sdk_said=["b"]),
        "empty_choices": _result("differs", "final_output: ''", outcome="final_output: ''"),
        "output_type": _result("ok", "text.format", format_field_on_wire=["text.format"]),
    },
    "scorecard": _card("moves with a redesign", "ends quietly"),
}
REPORT: dict[str, Any] = {
    "versions": {"openai-agents": "0.24.0"},
    "wires": {"chat": CHAT, "responses": RESPONSES},
}


def test_only_behaviour_differs_between_wires_not_logs_or_field_names() -> None:
    assert wire_differences(REPORT) == [
        ("empty_choices", "outcome", "ModelBehaviorError: no choices", "final_output: ''")
    ]


def test_the_probe_table_marks_the_probe_and_the_guardrail_that_differ() -> None:
    text = probe_table(REPORT)

    rows = {line.split()[0]: line for line in text.splitlines() if line and line.split()[0] in CHAT["probes"]}
    assert rows["empty_choices"].endswith("DIFFERS")
    assert rows["tool_choice"].endswith("same") and rows["output_type"].endswith("same")
    assert "    responses  final_output: ''" in text
    assert (
        '(by design: output_type.format_field_on_wire chat ["response_format"], responses ["text.format"])'
        in text
    )
    card = next(line for line in text.splitlines() if line.startswith("R2"))
    assert card.split()[6:9] == ["cleanly", "redesign", "<<"]
    assert "chat: raises / responses: ends quietly" in card


def test_a_single_wire_report_reads_as_its_chat_wire() -> None:
    older = {
        "versions": {"openai-agents": "0.23.1"},
        "probes": CHAT["probes"],
        "scorecard": CHAT["scorecard"],
    }

    assert wire_sections(older) == {"chat": {"probes": CHAT["probes"], "scorecard": CHAT["scorecard"]}}
    assert wire_differences(older) == []
    assert probe_table(older).splitlines()[0].endswith("wire chat")


def test_the_version_matrix_reports_each_wire_and_the_differences_per_version() -> None:
    same = copy.deepcopy(REPORT)
    same["wires"]["responses"] = copy.deepcopy(CHAT)
    columns: list[dict[str, Any]] = [
        _column("0.23.1", {"versions": {}, "probes": CHAT["probes"], "scorecard": CHAT["scorecard"]}),
        _column("0.23.9", same),
        _column("0.24.0", REPORT),
        {**_column("0.0.999", None), "status": "install failed", "reason": "no such version"},
    ]

    assert [column["report"] for column in wire_view(columns, "responses")] == [None, CHAT, RESPONSES, None]
    assert wire_matrix(columns).splitlines() == [
        "0.23.1: responses wire not probed",
        "0.23.9: the same on both wires",
        "0.24.0:",
        "    empty_choices.outcome: chat ModelBehaviorError: no choices | responses final_output: ''",
    ]
    text = render(columns)
    assert "probe verdicts per openai-agents version: chat wire (Chat Completions model)" in text
    assert "probe verdicts per openai-agents version: responses wire (Responses model)" in text
    responses_matrix = text.split("responses wire (Responses model)\n\n")[1].split("\n\n")[0]
    empty_row = next(line for line in responses_matrix.splitlines() if line.startswith("empty_choices"))
    assert empty_row.split()[1:] == ["-", "ok", "differs", "-"]
    assert "migration scorecard per version: responses wire" in text
    assert "0.0.999" in text.split("environments")[-1]


def test_pinned_files_read_per_wire() -> None:
    pinned = {"wires": {"chat": {"probes": {"a": {"x": 1}}}, "responses": {"probes": {"a": {"x": 2}}}}}

    assert pinned_wires(pinned) == {"chat": {"a": {"x": 1}}, "responses": {"a": {"x": 2}}}


def _column(label: str, report: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "label": label,
        "openai": "3.57.0",
        "status": "ok",
        "reason": "",
        "found_by": "pip's choice",
        "attempts": 1,
        "cached": True,
        "build_seconds": 1.0,
        "run_seconds": 1.0,
        "report": report,
    }
