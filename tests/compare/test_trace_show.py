"""`k8s-agent trace show`: a trace as a readable timeline in the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_agent.cli import main

Recorded = dict[tuple[str, str], Path]


def test_trace_show_prints_each_turn_tool_call_and_guardrail_with_times(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", "show", str(recorded["c10-mixed-round", "sdk"])]) == 0

    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("+  0.000s k8s-agent · sdk agent · model scripted · question: Which pods")
    assert any("budgets: max_steps 10, max_repeats 2" in line for line in lines)
    assert sum("asking the model" in line for line in lines) == 2
    assert "✗ delete_pod(" in out and "unknown tool, rejected" in out
    assert "arguments are not JSON, rejected" in out and "arguments break the schema, rejected" in out
    assert "↺ list_nodes(): duplicate, answered from cache" in out
    assert "✗ get_pod_logs(" in out and "Tool call failed (get_pod_logs)" in out
    assert "run ended ok after" in out and "2 requests, 2 tool calls executed, 4 rejected" in out
    assert lines[-2:] == ["answer:", "  Done."]


def test_trace_show_full_adds_the_results_and_what_the_model_was_told(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded["c2-zero-tool-pushback", "handwritten"]

    assert main(["trace", "show", str(trace), "--full"]) == 0

    out = capsys.readouterr().out
    assert "! pushback: the model answered without investigating" in out
    assert "You have not called any tool yet." in out  # the pushback message itself
    assert "Everything looks healthy." in out  # the model's first text


def test_trace_show_of_a_missing_file_fails_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", "show", str(tmp_path / "nope.jsonl")]) == 2

    err = capsys.readouterr().err
    assert err.startswith("error: cannot read trace") and len(err.splitlines()) == 1


def test_trace_show_names_the_wire_and_counts_input_items_on_the_responses_api(
    recorded_responses: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", "show", str(recorded_responses["c7-step-budget", "sdk"])]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[1].strip().endswith(" · api responses")
    asked = [line.split("s ", 1)[1] for line in lines if "asking the model" in line]
    assert asked == [
        "step 1: asking the model (1 input item, tools required)",
        "step 2: asking the model (3 input items, tools offered)",
        "step 3: asking the model (5 input items, tools offered)",
        "step 4: asking the model (8 input items, summary, no tools)",  # the SDK sent `tools: []`
    ]


def test_trace_show_of_a_schema_3_trace_reads_it_as_chat(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.compare.test_replay import schema_3

    old = schema_3(recorded["c10-mixed-round", "sdk"], tmp_path / "v3.jsonl")

    assert main(["trace", "show", str(old)]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[1].strip().endswith(" · api chat")
    assert [line.split("s ", 1)[1] for line in lines if "asking the model" in line] == [
        "step 1: asking the model (2 messages, tools required)",
        "step 2: asking the model (9 messages, tools offered)",
    ]
