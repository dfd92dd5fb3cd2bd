"""`k8s-agent trace replay`: a recorded run replays without divergence, and a changed one is caught."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.cli import main
from k8s_agent.replay import Divergence, first_divergence, recorded_settings, replay, script_from_trace
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.events import read_trace
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import Delay, HttpError, Reply, call, error, text
from tests.conftest import read_jsonl, run_scenario

Recorded = dict[tuple[str, str], Path]


def typed(*objects: dict[str, Any]) -> list[events.Event]:
    """Events from their JSON objects, with the fields a test does not care about filled in."""
    required = {"run_start": {"question": "q", "started_at": "t"}}
    return [events.parse_event({**required.get(o["kind"], {}), **o}) for o in objects]


def replay_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["trace", "replay", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
@pytest.mark.parametrize("scenario", ["c10-mixed-round", "c4-duplicates"])
def test_a_contract_scenario_replays_without_divergence_on_the_same_implementation(
    recorded: Recorded, scenario: str, impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded[scenario, impl]

    code, result = replay_json([str(trace), "--impl", impl, "--trace-dir", str(tmp_path)], capsys)

    assert (code, result["diverged"], result["divergence"]) == (0, False, None)
    assert result["recorded_impl"] == impl and result["impl"] == impl
    assert result["script_problems"] == ""  # every recorded response was asked for, and no more
    assert all(held is not False for held in result["invariants"].values()), result["invariants"]
    assert result["settings"]["max_repeats"] == 2 and result["settings"]["model"] == "scripted"
    replayed = read_jsonl(Path(result["replay_trace"]))
    assert replayed[-1]["answer"] == read_jsonl(trace)[-1]["answer"]


def test_a_trace_of_one_implementation_replays_on_the_other_without_divergence(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = replay_json(
        [str(recorded["c10-mixed-round", "handwritten"]), "--impl", "sdk", "--trace-dir", str(tmp_path)],
        capsys,
    )

    assert code == 0 and result["divergence"] is None


def test_a_tampered_trace_diverges_at_the_tool_call_it_changed(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = read_jsonl(recorded["c1-forced-first-step", "handwritten"])
    first = next(e for e in events if e["kind"] == "model_response")
    first["tool_calls"][0]["arguments"] = json.dumps({"namespace": "staging"})
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")

    code, result = replay_json([str(tampered), "--impl", "handwritten", "--trace-dir", str(tmp_path)], capsys)

    assert code == 5 and result["diverged"] is True
    divergence = result["divergence"]
    assert divergence["step"] == 1 and divergence["what"] == "tool call call_1"
    assert "production" in divergence["recorded"] and "staging" in divergence["replayed"]


def test_a_smaller_step_budget_diverges_where_the_summary_is_forced(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded["c7-step-budget", "sdk"]

    code = main(
        ["trace", "replay", str(trace), "--impl", "sdk", "--max-steps", "2", "--trace-dir", str(tmp_path)]
    )

    out = capsys.readouterr().out
    assert code == 5
    assert "DIVERGED at step 2, guardrail (only in the replay):" in out
    assert "replay:   forced_summary: step_budget" in out


def test_the_replay_report_says_what_ran_and_that_nothing_diverged(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded["c2-zero-tool-pushback", "handwritten"]

    code = main(["trace", "replay", str(trace), "--impl", "handwritten", "--trace-dir", str(tmp_path)])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == f"replay of {trace} (handwritten, 2 requests, ok) on handwritten: 2 requests, ok"
    assert "  contract invariants: held" in lines
    assert lines[-1] == "no divergence: same requests, tool outcomes and results, guardrails and answer"


def test_recorded_http_errors_are_replayed_as_errors(tmp_path: Path) -> None:
    run = run_scenario(
        "handwritten",
        [error(503, "overloaded"), call("list_nodes"), text("Nodes are fine.")],
        tmp_path / "recorded",
        max_retries=1,
    )

    assert run.trace_path is not None
    trace = read_trace(run.trace_path)
    script = script_from_trace(trace.events)
    replayed = asyncio.run(replay(trace, Impl.HANDWRITTEN, tmp_path / "replay"))

    assert isinstance(script[0], HttpError) and script[0].status == 503 and script[0].message == "overloaded"
    assert [type(step) for step in script[1:]] == [Reply, Reply]
    assert replayed.divergence is None and replayed.script_problems == ""
    assert [e.status for e in replayed.replayed if isinstance(e, events.ModelError)] == [503]


def test_a_request_that_got_no_answer_replays_as_a_hang() -> None:
    trace = typed(
        {"kind": "run_start", "mcp_command": ["x"]},
        {"kind": "model_request", "attempt": 1},
        {"kind": "model_request", "attempt": 2},
        {"kind": "model_response", "attempt": 2, "text": "late", "tool_calls": [], "usage": {}},
        {"kind": "run_end", "status": "ok"},
    )

    first, second = script_from_trace(trace)

    assert isinstance(first, Delay) and first.seconds >= 3600
    assert second == Reply(content="late", tool_calls=(), finish_reason=None, usage=None)


def test_runs_that_end_differently_diverge_at_the_end() -> None:
    start = {"kind": "run_start"}
    ok = typed(start, {"kind": "run_end", "status": "ok", "answer": "A"})
    other = typed(start, {"kind": "run_end", "status": "ok", "answer": "B"})
    failed = typed(start, {"kind": "run_end", "status": "error", "error_type": "ModelEndpointError"})

    fewer_tools = [*typed(start, {"kind": "tools_listed", "tools": [], "allowed": ["list_pods"]}), ok[1]]

    assert first_divergence(ok, ok) is None
    assert first_divergence(ok, fewer_tools) == Divergence(0, "tools the MCP server offers", "", "list_pods")
    assert first_divergence(ok, other) is not None and first_divergence(ok, other).what == "answer"  # type: ignore[union-attr]
    assert first_divergence(ok, failed) is not None and first_divergence(ok, failed).what == "status"  # type: ignore[union-attr]


def test_a_trace_without_a_run_start_cannot_be_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"kind": "model_request", "attempt": 1}\nnot json\n', encoding="utf-8")

    assert (
        main(["trace", "replay", str(broken), "--impl", "sdk", "--trace-dir", str(tmp_path / "traces")]) == 2
    )

    err = capsys.readouterr().err
    assert "broken.jsonl:2 is not JSON" in err and "not a k8s-agent trace" in err
    assert not (tmp_path / "traces").exists()


# -- the Responses API wire ---------------------------------------------------------------------


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
@pytest.mark.parametrize("scenario", ["c10-mixed-round", "c7-step-budget"])
def test_a_responses_trace_replays_on_its_own_wire_without_divergence(
    recorded_responses: Recorded, scenario: str, impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded_responses[scenario, impl]

    code, result = replay_json([str(trace), "--trace-dir", str(tmp_path)], capsys)

    assert (code, result["divergence"]) == (0, None)
    assert (result["recorded_api"], result["api"], result["impl"]) == ("responses", "responses", impl)
    assert result["script_problems"] == ""
    assert all(held is not False for held in result["invariants"].values()), result["invariants"]
    assert all(held is not False for held in result["recorded_invariants"].values())
    replayed = read_jsonl(Path(result["replay_trace"]))
    assert replayed[0]["api"] == "responses"
    assert {e["api"] for e in replayed if e["kind"] == "model_request"} == {"responses"}


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_a_responses_trace_replayed_on_chat_compares_what_the_model_saw(
    recorded_responses: Recorded, impl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The forced summary: the SDK sends `tools: []` on the Responses API and no tools on Chat, and
    # the instructions are a system message on Chat: neither is a divergence.
    trace = recorded_responses["c7-step-budget", impl]

    code = main(["trace", "replay", str(trace), "--api", "chat", "--trace-dir", str(tmp_path)])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0, lines
    assert lines[0] == f"replay of {trace} ({impl}, 4 requests, ok) on {impl}: 4 requests, ok"
    assert lines[1] == (
        "  api: chat, recorded on responses: each request compared as the Chat Completions request "
        "it amounts to"
    )
    assert "  contract invariants: held" in lines
    assert lines[-1] == "no divergence: same requests, tool outcomes and results, guardrails and answer"
    replay_trace = next(line.split(": ", 1)[1] for line in lines if line.startswith("  replay trace: "))
    assert {e.get("api") for e in read_jsonl(Path(replay_trace)) if e["kind"] == "model_request"} == {"chat"}


def test_a_chat_trace_replayed_on_the_responses_api_does_not_diverge(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = recorded["c10-mixed-round", "sdk"]

    code, result = replay_json([str(trace), "--api", "responses", "--trace-dir", str(tmp_path)], capsys)

    assert (code, result["divergence"]) == (0, None)
    assert (result["recorded_api"], result["api"]) == ("chat", "responses")
    assert all(held is not False for held in result["invariants"].values()), result["invariants"]


def test_on_the_other_wire_a_changed_request_still_diverges() -> None:
    """Normalised requests are still compared: one input item more is one message more."""
    start = {"kind": "run_start", "api": "responses"}
    question = {"role": "user", "content": "q"}
    request = {"kind": "model_request", "step": 1, "attempt": 1, "tools_sent": True, "tool_count": 7}
    on_responses = typed(
        start,
        {**request, "api": "responses", "instructions": "You are an SRE.", "messages_added": [question]},
    )
    on_chat = typed(
        {**start, "api": "chat"},
        {**request, "messages_added": [{"role": "system", "content": "You are an SRE."}, question]},
    )
    longer = typed(
        {**start, "api": "chat"},
        {**request, "messages_added": [{"role": "system", "content": "S"}, question, question]},
    )

    assert first_divergence(on_responses, on_chat) is None
    divergence = first_divergence(on_responses, longer)
    assert divergence is not None and (divergence.step, divergence.what) == (1, "request")
    assert (divergence.recorded, divergence.replayed) == (
        "2 messages, tools offered",
        "3 messages, tools offered",
    )


def test_a_responses_status_is_replayed_as_the_finish_reason_it_amounts_to() -> None:
    trace = typed(
        {"kind": "run_start", "api": "responses"},
        {"kind": "model_request", "api": "responses", "attempt": 1},
        {"kind": "model_response", "text": "a", "finish_reason": "completed"},
        {"kind": "model_request", "api": "responses", "attempt": 1},
        {"kind": "model_response", "text": "b", "finish_reason": "incomplete: max_output_tokens"},
        {"kind": "run_end", "status": "ok"},
    )

    first, second = script_from_trace(trace)

    assert isinstance(first, Reply) and isinstance(second, Reply)
    assert (first.finish_reason, second.finish_reason) == (None, "length")


def test_the_replay_takes_the_recorded_wire_or_the_one_asked_for_and_no_other() -> None:
    responses = events.RunStart(question="q", started_at="t", api="responses")
    unknown = events.RunStart(question="q", started_at="t", api="grpc")

    assert recorded_settings(responses)["api"] == "responses"
    assert recorded_settings(responses, api="chat")["api"] == "chat"
    with pytest.raises(ConfigError, match="the trace's wire cannot be replayed: unknown API 'grpc'"):
        recorded_settings(unknown)


def schema_3(trace: Path, to: Path) -> Path:
    """A chat trace as a release writing schema version 3 wrote it: no `api`, no `instructions`."""
    lines = read_jsonl(trace)
    lines[0]["schema_version"] = 3
    for line in lines:
        if line["kind"] in ("run_start", "model_request"):
            line.pop("api", None)
            line.pop("instructions", None)
    to.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return to


def test_a_schema_3_trace_replays_on_chat_as_before(
    recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = schema_3(recorded["c2-zero-tool-pushback", "handwritten"], tmp_path / "v3.jsonl")

    code = main(["trace", "replay", str(old), "--trace-dir", str(tmp_path)])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[0] == f"replay of {old} (handwritten, 2 requests, ok) on handwritten: 2 requests, ok"
    assert lines[1] == "  api: chat, as recorded"
    assert lines[-1] == "no divergence: same requests, tool outcomes and results, guardrails and answer"


def without_an_answer(trace: Path, to: Path) -> Path:
    """The trace with one function_call_output item taken out of the request that sent it."""
    lines = read_jsonl(trace)
    for line in lines:
        items = line.get("messages_added") or [] if line["kind"] == "model_request" else []
        answers = [i for i, item in enumerate(items) if item.get("type") == "function_call_output"]
        if answers:
            del items[answers[-1]]
            line["message_count"] -= 1
            break
    to.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return to


def test_a_responses_trace_that_leaves_a_call_unanswered_is_reported(
    recorded_responses: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = without_an_answer(recorded_responses["c10-mixed-round", "handwritten"], tmp_path / "bad.jsonl")

    code = main(["trace", "replay", str(bad), "--trace-dir", str(tmp_path)])

    lines = capsys.readouterr().out.splitlines()
    assert "  contract invariants: held" in lines  # the replay answers every call
    (recording,) = [line for line in lines if line.startswith("  contract invariants of the recording: ")]
    assert "BROKEN: calls_answered (request 2: calls [" in recording and "call_6" in recording
    assert code == 5 and "DIVERGED at step 2, request:" in lines  # and the replay asked otherwise
