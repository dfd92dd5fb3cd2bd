"""`k8s-agent compare` across wires: sides are IMPL:API, and a wire's shape is a cost, never a
difference in behaviour.

Every run here is a real run of an agent against the scripted model or the offline model and the
mock cluster, on a few scenarios chosen for what the wires shape differently: a round of parallel
calls with every gateway outcome (c10), a forced summary (c4), a pushback and a structured report
(c2, c11), the offline model's eight calls. Then the comparison is fooled: a model that behaves
differently on the Responses wire, and hand-made changes to one side's trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.cli import main
from k8s_agent.compare import render
from k8s_agent.compare_report import (
    Comparison,
    Row,
    RunRecord,
    behaviour_differences,
    record_run,
    sides,
)
from k8s_agent.compare_runs import run_comparison, select_cases
from k8s_agent.scenarios import QUESTION
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import Reply, ScriptedModelServer, offline_model, tool
from k8s_agent_scripted_llm.responses_api import is_responses_request
from k8s_agent_scripted_llm.script import Step

HW_CHAT_SDK_RESPONSES = sides([(Impl.HANDWRITTEN, "chat"), (Impl.SDK, "responses")])
CROSS_SCENARIOS = ["c4-parallel-duplicates", "c10-mixed-round"]


@pytest.fixture(scope="module")
def cross(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """The hand-written loop on Chat Completions vs the SDK on the Responses API."""
    root = tmp_path_factory.mktemp("cross") / "runs"
    return run_comparison(select_cases(None, CROSS_SCENARIOS), root, jobs=2, sides=HW_CHAT_SDK_RESPONSES)


def trace_lines(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def wires_in_trace(path: str | Path) -> set[str]:
    """The wire run_start and every model_request of a trace say the run spoke."""
    return {e["api"] for e in trace_lines(path) if e["kind"] in ("run_start", "model_request")}


def empty_env_file(folder: Path) -> Path:
    path = folder / "empty.env"
    path.write_text("")
    return path


# -- the sides ---------------------------------------------------------------------------------------


def test_the_sides_are_named_by_what_tells_them_apart() -> None:
    default = sides()
    assert [(s.key, s.title, s.short, s.label) for s in default] == [
        ("handwritten", "handwritten", "hw", "handwritten (chat)"),
        ("sdk", "sdk", "sdk", "sdk (chat)"),
    ]
    assert [s.key for s in sides(api="responses")] == ["handwritten", "sdk"]
    assert [s.api for s in sides(api="responses")] == ["responses", "responses"]
    same_impl = sides([(Impl.SDK, "chat"), (Impl.SDK, "responses")])
    assert [(s.key, s.title, s.short, s.folder) for s in same_impl] == [
        ("sdk:chat", "sdk (chat)", "sdk (chat)", "sdk-chat"),
        ("sdk:responses", "sdk (responses)", "sdk (responses)", "sdk-responses"),
    ]
    assert [s.key for s in HW_CHAT_SDK_RESPONSES] == ["handwritten:chat", "sdk:responses"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--side", "sdk"], "compare takes two sides, got 1: give --side twice"),
        (
            ["--side", "sdk", "--side", "handwritten", "--side", "sdk:responses"],
            "compare takes two sides, got 3",
        ),
        (["--side", "sdk:responses", "--side", "SDK:responses"], "both sides are sdk (responses)"),
        (["--side", "sdk", "--side", "sdk:chat"], "both sides are sdk (chat)"),
        (["--api", "responses", "--side", "sdk", "--side", "sdk"], "both sides are sdk (responses)"),
        (["--side", "langchain", "--side", "sdk"], "unknown implementation 'langchain' in --side langchain"),
        (["--side", "sdk:grpc", "--side", "sdk"], "unknown API 'grpc' in --side sdk:grpc"),
        (["--api", "grpc"], "unknown API 'grpc'"),
        (["--api", "grpc", "--question", "Q", "--model", "offline"], "unknown API 'grpc'"),
        (["--impl", "sdk"], "compare always runs two sides"),
        (["list", "--side", "sdk"], "compare takes two sides"),
    ],
)
def test_bad_sides_are_one_line_and_exit_2_before_any_run(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "compare",
            *argv,
            "--trace-dir",
            str(tmp_path / "traces"),
            "--env-file",
            str(empty_env_file(tmp_path)),
        ]
    )

    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "traces").exists()  # no run started


def test_compare_help_explains_the_sides(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["compare", "--help"])

    shown = " ".join(capsys.readouterr().out.split())
    assert "--side IMPL[:API]" in shown
    assert "--side handwritten:chat --side sdk:responses" in shown
    assert "--side sdk:chat --side sdk:responses" in shown
    assert "k8s-agent compare --api responses handwritten vs sdk, both on the Responses API" in shown


# -- hand-written on Chat vs the SDK on Responses ----------------------------------------------------


def test_hand_written_on_chat_and_the_sdk_on_responses_agree_in_behaviour(cross: Comparison) -> None:
    assert [row.name for row in cross.rows] == CROSS_SCENARIOS
    for row in cross.rows:
        assert list(row.runs) == ["handwritten:chat", "sdk:responses"]
        for key, run in row.runs.items():
            assert run.metrics["status"] == "ok" and run.metrics["invariants_held"], (row.name, key)
            assert run.metrics["invariants"]["calls_answered"] is True
            assert run.metrics["api"] == key.split(":")[1]
            assert wires_in_trace(run.metrics["trace"]) == {key.split(":")[1]}  # run_start and each request
        assert row.answers_identical is True
        assert behaviour_differences(row, cross.sides) == []
        hw, sdk = (row.runs[side.key].metrics for side in cross.sides)
        assert hw["bytes_sent"] != sdk["bytes_sent"]  # the wire's shape: a cost, not behaviour


def test_the_reports_label_each_side_with_its_wire(cross: Comparison) -> None:
    table = render(cross, "md")
    report = json.loads(render(cross, "json"))
    page = render(cross, "html")

    assert "Each cell: hw (chat) / sdk (responses)." in table
    assert "No row differs in behaviour." in table and "failed or broke" not in table
    assert "2 rows x 2 sides" in table
    assert report["sides"] == [
        {
            "key": "handwritten:chat",
            "implementation": "handwritten",
            "api": "chat",
            "label": "handwritten (chat)",
        },
        {"key": "sdk:responses", "implementation": "sdk", "api": "responses", "label": "sdk (responses)"},
    ]
    assert report["implementations"] == ["handwritten", "sdk"]
    assert report["behaviour_differences"] == {}
    assert "<title>k8s-agent compare: handwritten (chat) vs sdk (responses)</title>" in page
    assert "no rows differ in behaviour" in page and 'class="step differs"' not in page
    assert 'data-impl="sdk:responses" data-api="responses"' in page
    assert "sdk (responses) · 2 requests" in page  # each timeline's heading
    assert "<dt>hw (chat) / sdk (responses)</dt>" in page
    assert "input item" in page  # a Responses request counts its input items, on its own side


# -- fooling it --------------------------------------------------------------------------------------


def tampered(run: RunRecord, change: Any) -> RunRecord:
    """The run measured again from its trace, each event passed through `change` first."""
    trace = [change(event) for event in run.trace]
    return record_run(run.impl, trace, api=run.api, trace_path=Path(run.metrics["trace"]))


def test_a_tool_result_changed_on_one_side_is_a_difference_in_that_turn(cross: Comparison) -> None:
    row = next(r for r in cross.rows if r.name == "c10-mixed-round")
    hw, sdk = (side.key for side in cross.sides)

    def other_result(event: events.Event) -> events.Event:
        if isinstance(event, events.ToolCall) and event.outcome == "executed":
            return event.model_copy(update={"result": event.result + "\nworker-node-4   NotReady"})
        return event

    changed = Row(**{**row.__dict__, "runs": {hw: row.runs[hw], sdk: tampered(row.runs[sdk], other_result)}})
    fooled = Comparison([changed], 1.0, 2, sides=cross.sides)

    assert behaviour_differences(changed, cross.sides) == ["turn 1"]  # every count is the same
    assert (
        "Rows whose behaviour differs, handwritten (chat) vs sdk (responses):\n- c10-mixed-round: turn 1"
        in render(fooled, "md")
    )
    assert json.loads(render(fooled, "json"))["behaviour_differences"] == {"c10-mixed-round": ["turn 1"]}
    page = render(fooled, "html")
    assert "1 row differs in behaviour" in page
    assert page.count('class="step differs" data-step="1"') == 2 and 'data-step="2"' in page


def test_an_unanswered_call_on_the_responses_side_breaks_the_contract(cross: Comparison) -> None:
    row = next(r for r in cross.rows if r.name == "c10-mixed-round")
    sdk = cross.sides[1].key

    def drop_an_answer(event: events.Event) -> events.Event:
        if isinstance(event, events.ModelRequest) and event.step == 2 and event.messages_added:
            items = list(event.messages_added)
            first_output = next(
                i for i, item in enumerate(items) if item.get("type") == "function_call_output"
            )
            return event.model_copy(
                update={"messages_added": items[:first_output] + items[first_output + 1 :]}
            )
        return event

    broken = tampered(row.runs[sdk], drop_an_answer)  # rebuilt from the trace, read as Chat messages

    assert broken.metrics["invariants"]["calls_answered"] is False
    assert any(v.startswith("calls_answered: request 2") for v in broken.metrics["violations"])
    changed = Row(**{**row.__dict__, "runs": {**row.runs, sdk: broken}})
    assert behaviour_differences(changed, cross.sides) == ["contract", "turn 2"]


def test_a_run_that_spoke_another_wire_than_its_side_asked_is_a_violation(cross: Comparison) -> None:
    run = cross.rows[0].runs["handwritten:chat"]

    misread = record_run(run.impl, run.trace, api="responses")

    assert misread.metrics["invariants_held"] is False
    assert "wire: asked for responses, the run spoke chat" in misread.metrics["violations"]
    assert record_run(run.impl, run.trace, api="chat", wires=["chat", "responses"]).metrics["violations"] == [
        "wire: asked for chat, the run spoke chat and responses"
    ]


class CarefulOnResponses:
    """An endpoint whose model behaves differently on the Responses wire: there it lists the nodes
    before anything else (and twice: the gateway answers the second call from its cache). On Chat
    Completions it is the offline model."""

    def __call__(self, body: dict[str, Any]) -> Step:
        if is_responses_request(body) and not any(
            item.get("type") == "function_call_output" for item in body.get("input") or []
        ):
            return Reply(tool_calls=(tool("list_nodes"), tool("list_nodes")))
        return offline_model(body)


def test_a_model_that_behaves_differently_on_one_wire_is_reported_as_a_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fooled.json"
    with ScriptedModelServer(responder=CarefulOnResponses(), model="playbook") as endpoint:
        code = main(
            [
                "compare", "--question", QUESTION, "--repeat", "1", "--side", "sdk:chat", "--side", "sdk:responses",
                "--base-url", endpoint.url, "--model", "playbook", "--api-key", "sk-test-compare-000",
                "--env-file", str(empty_env_file(tmp_path)), "--trace-dir", str(tmp_path / "traces"),
                "--out", str(out), "--quiet",
            ]
        )  # fmt: skip
        wires = list(endpoint.wires)

    captured = capsys.readouterr()
    assert code == 0, captured.err  # both runs kept the contract: the difference is the model's
    assert wires.count("chat") == 4 and wires.count("responses") == 5  # warm-up runs are scripted, not here
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [side["key"] for side in report["sides"]] == ["sdk:chat", "sdk:responses"]
    chat, responses = (report["rows"][0]["runs"][key] for key in ("sdk:chat", "sdk:responses"))
    assert (chat["model_requests"], responses["model_requests"]) == (4, 5)
    assert (chat["rejected"]["duplicate"], responses["rejected"]["duplicate"]) == (0, 1)
    assert chat["api"] == "chat" and responses["api"] == "responses"
    assert (chat["tool_calls_executed"], responses["tool_calls_executed"]) == (19, 20)
    assert report["rows"][0]["answers_identical"] is True  # the same answer, reached another way
    assert report["behaviour_differences"] == {
        "round 1": [
            "requests",
            "executed",
            "rejected u·i·d",
            "turn 1",
            "turn 2",
            "turn 3",
            "turn 4",
            "turn 5",
        ]
    }
    assert "Rows whose behaviour differs, sdk (chat) vs sdk (responses):\n- round 1: requests" in captured.out
    assert "| sdk (chat) median [min-max] | sdk (responses) median [min-max] |" in captured.out
    assert "| model requests | 4 [4-4] | 5 [5-5] |" in captured.out


# -- the CLI, on the scenario library ----------------------------------------------------------------


def test_the_sdk_on_chat_and_on_responses_agree_on_the_scenario_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sdk.json"
    code = main(
        [
            "compare", "--side", "sdk:chat", "--side", "sdk:responses", "--scenario", "c2-zero-tool-pushback",
            "--scenario", "c11-report-schema", "--out", str(out),
            "--trace-dir", str(tmp_path / "traces"),
        ]
    )  # fmt: skip

    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "compare sdk (chat) vs sdk (responses): 2 scenarios" in captured.err
    assert "[4/4]" in captured.err and "sdk (responses)" in captured.err
    assert "Each cell: sdk (chat) / sdk (responses)." in captured.out
    assert "| c2-zero-tool-pushback | ✓ / ✓ | ✓ / ✓ | ✓ / ✓ | 2 / 2 |" in captured.out
    assert "No row differs in behaviour." in captured.out
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["implementations"] == ["sdk", "sdk"] and report["behaviour_differences"] == {}
    for row in report["rows"]:
        assert list(row["runs"]) == ["sdk:chat", "sdk:responses"] and row["answers_identical"] is True
        for key, metrics in row["runs"].items():
            assert metrics["invariants_held"] is True, (row["name"], key, metrics["violations"])
            assert wires_in_trace(metrics["trace"]) == {key.split(":")[1]}
            assert f"/{row['name']}/{key.replace(':', '-')}/" in metrics["trace"]


def test_api_applies_to_the_scenario_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "responses.json"
    code = main(
        [
            "compare", "--api", "responses", "--scenario", "offline-default",
            "--out", str(out), "--trace-dir", str(tmp_path / "traces"),
        ]
    )  # fmt: skip

    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "compare handwritten vs sdk, both on responses: 1 scenario," in captured.err
    assert "Each cell: hw / sdk. Both on the responses wire." in captured.out
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [side["api"] for side in report["sides"]] == ["responses", "responses"]
    (row,) = report["rows"]
    assert list(row["runs"]) == ["handwritten", "sdk"] and row["answers_identical"] is True
    for metrics in row["runs"].values():
        assert metrics["invariants_held"] is True and metrics["tool_calls_executed"] == 19
        assert metrics["api"] == "responses" and wires_in_trace(metrics["trace"]) == {"responses"}
