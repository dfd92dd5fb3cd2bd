"""The trace: typed events written as valid JSONL, redacted, never raising; one reader that checks
the schema version and every event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.events import SCHEMA_VERSION, TraceError, parse_trace, read_trace
from k8s_agent_harness.traces.trace import Recorder, TraceWriter
from k8s_agent_harness.vocabulary import (
    Guardrail,
    Impl,
    Outcome,
    Pushback,
    ReportFormat,
    RunStatus,
    StopReason,
)


def recorder(path: Path, **kwargs: Any) -> Recorder:
    return Recorder(
        TraceWriter(path),
        run_id="run1",
        impl=Impl.HANDWRITTEN,
        redactor=Redactor(["sk-live-abcdefgh"]),
        **kwargs,
    )


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_events_are_json_lines_with_the_common_header(tmp_path: Path) -> None:
    trace = recorder(tmp_path / "t.jsonl")
    trace.step = 2
    trace.pushback(Pushback.ZERO_TOOL, "Investigate first.")
    trace.writer.close()

    (event,) = lines(tmp_path / "t.jsonl")
    assert {k: event[k] for k in ("run_id", "impl", "step", "kind", "guardrail", "message")} == {
        "run_id": "run1",
        "impl": "handwritten",
        "step": 2,
        "kind": "guardrail",
        "guardrail": "zero_tool",
        "message": "Investigate first.",
    }
    assert isinstance(event["ts"], float)


def test_secrets_never_reach_the_file_or_the_observer(tmp_path: Path) -> None:
    seen: list[events.Event] = []
    trace = recorder(tmp_path / "t.jsonl", observer=seen.append)

    trace.emit(
        events.ModelResponse(
            text="key sk-live-abcdefgh",
            tool_calls=[events.ProposedCall(id="c1", name="x", arguments='{"password": "hunter22"}')],
            usage=events.Usage(prompt_tokens=12),
        )
    )
    trace.emit(
        events.ToolCall(
            request_id="c1",
            tool="x",
            arguments={"token": "tok-abcdef"},
            fingerprint="f",
            outcome=Outcome.EXECUTED,
            result="Bearer sk-live-abcdefgh",
        )
    )
    trace.writer.close()

    text = (tmp_path / "t.jsonl").read_text()
    shown = json.dumps([event.model_dump(mode="json") for event in seen])
    for secret in ("sk-live-abcdefgh", "hunter22", "tok-abcdef"):
        assert secret not in text and secret not in shown
    assert lines(tmp_path / "t.jsonl")[0]["usage"]["prompt_tokens"] == 12


def test_an_unwritable_trace_warns_once_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    trace = recorder(blocker / "sub" / "t.jsonl")

    trace.emit(events.RunStart(question="q", started_at="now"))
    trace.emit(events.RunEnd(status=RunStatus.OK, answer="a"))
    trace.writer.close()

    assert capsys.readouterr().err.count("warning: cannot write trace") == 1


def test_a_failing_observer_is_dropped_not_fatal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(event: events.Event) -> None:
        raise RuntimeError("terminal gone")

    trace = recorder(tmp_path / "t.jsonl", observer=broken)
    trace.warn("first")
    trace.warn("second")
    trace.writer.close()

    assert len(lines(tmp_path / "t.jsonl")) == 2
    assert "progress display failed: terminal gone" in capsys.readouterr().err


def test_the_forced_summary_is_recorded_once(tmp_path: Path) -> None:
    trace = recorder(tmp_path / "t.jsonl")
    trace.force_summary(StopReason.STEP_BUDGET)
    trace.force_summary(StopReason.TIME_BUDGET)
    trace.writer.close()

    (event,) = lines(tmp_path / "t.jsonl")
    assert (event["guardrail"], event["reason"]) == ("forced_summary", "step_budget")
    assert trace.stats.forced_summary == StopReason.STEP_BUDGET


# -- reading --------------------------------------------------------------------------------------


def written(tmp_path: Path) -> Path:
    """A small trace of every kind, as the recorder writes it."""
    path = tmp_path / "trace.jsonl"
    trace = recorder(path)
    for event in [
        events.RunStart(
            question="q", started_at="2026-12-01T00:00:00Z", mcp_command=["x"], budgets={"max_steps": 3}
        ),
        events.ToolsListed(
            tools=[events.ListedTool(name="list_pods", read_only=True)], allowed=["list_pods"]
        ),
        events.ModelRequest(
            message_count=2, tools_sent=True, tool_choice="required", messages_added=[{"role": "user"}]
        ),
        events.ModelError(status=503, body="busy"),
        events.ModelResponse(tool_calls=[events.ProposedCall(id="c1", name="list_pods", arguments="{}")]),
        events.ToolRetry(request_id="c1", tool="list_pods", fingerprint="f", attempt=1, reason="429"),
        events.ToolCall(
            request_id="c1", tool="list_pods", arguments={}, fingerprint="f", outcome=Outcome.EXECUTED
        ),
        events.ToolProgress(request_id="c2", tool="list_pods", progress=1, total=2),
        events.GuardrailFired(guardrail=Guardrail.FORCED_SUMMARY, reason=StopReason.STEP_BUDGET),
        events.ReportChecked(
            format=ReportFormat.JSON_SCHEMA, parsed=False, problems=["not JSON"], accepted=True
        ),
        events.McpConnected(url="http://127.0.0.1:1/sse", transport="sse", fallback="HTTP 405"),
        events.McpRestart(reason="died", ok=True),
        events.McpToolsChanged(detail="list_changed"),
        events.HarnessWarning(message="w"),
        events.RunEnd(status=RunStatus.OK, answer="done"),
    ]:
        trace.emit(event)
    trace.writer.close()
    return path


def test_the_reader_gives_back_every_kind_typed(tmp_path: Path) -> None:
    trace = read_trace(written(tmp_path))

    assert sorted(type(event).__name__ for event in trace) == sorted(t.__name__ for t in events.EVENT_TYPES)
    assert trace.start.schema_version == SCHEMA_VERSION and trace.start.budgets == {"max_steps": 3}
    assert trace.end is not None and trace.end.answer == "done"
    (call,) = trace.of(events.ToolCall)
    assert call.outcome is Outcome.EXECUTED


@pytest.mark.parametrize(
    ("version", "message"),
    [(99, "a trace of schema version 99"), (None, "a trace of no schema version")],
)
def test_a_trace_of_an_unknown_schema_version_is_refused_with_the_version(
    tmp_path: Path, version: int | None, message: str
) -> None:
    path = written(tmp_path)
    first, *rest = lines(path)
    if version is None:
        del first["schema_version"]
    else:
        first["schema_version"] = version
    path.write_text("".join(json.dumps(e) + "\n" for e in [first, *rest]))

    with pytest.raises(TraceError, match=message) as error:
        read_trace(path)
    assert f"this k8s-agent reads schema version 1, 2, 3, 4, 5, {SCHEMA_VERSION}" in str(error.value)


def test_a_version_1_trace_is_still_read(tmp_path: Path) -> None:
    path = written(tmp_path)
    first, *rest = lines(path)
    first["schema_version"] = 1
    del first["report_format"]
    path.write_text("".join(json.dumps(e) + "\n" for e in [first, *rest]))

    trace = read_trace(path)

    assert trace.start.schema_version == 1 and trace.start.report_format is None


def test_an_event_that_breaks_the_schema_is_named_by_line_and_field(tmp_path: Path) -> None:
    path = written(tmp_path)
    events_written = lines(path)
    events_written[6]["outcome"] = "teleported"
    path.write_text("".join(json.dumps(e) + "\n" for e in events_written))

    with pytest.raises(TraceError, match=r"trace\.jsonl:7: not a valid trace event \(tool_call\.outcome: "):
        read_trace(path)


def test_a_last_line_cut_off_by_a_killed_run_is_skipped_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    with path.open("a") as file:
        file.write('{"kind": "model_req')

    assert len(read_trace(path)) == len(events.EVENT_TYPES)
    assert f"trace.jsonl:{len(events.EVENT_TYPES) + 1} is not JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "holds no trace events"),
        ('{"kind": "model_request"}\n', "the first event is not run_start"),
        (
            '{"kind": "run_start", "schema_version": 1, "question": "q", "started_at": "t"}\nnot json\n{}\n',
            ":2: not JSON",
        ),
    ],
)
def test_files_that_are_not_traces_are_refused(text: str, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        parse_trace(text.splitlines(keepends=True), "t.jsonl")


def test_a_missing_trace_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match=r"cannot read trace .*nope.jsonl: no such file"):
        read_trace(tmp_path / "nope.jsonl")


def test_pruning_keeps_the_newest_written_traces_whatever_their_names(tmp_path: Path) -> None:
    """A trace copied in with a name from the future is not newer than the run written after it:
    the run's own trace is kept (and is `last`), the older ones go."""
    import os

    from k8s_agent_harness.traces.trace import prune_traces, run_traces

    future = tmp_path / "20991231T235959Z-sdk-aaaaaaaaaaaa.jsonl"
    old = tmp_path / "20261130T000000Z-handwritten-bbbbbbbbbbbb.jsonl"
    just_written = tmp_path / "20261201T120000Z-handwritten-cccccccccccc.jsonl"
    for age, path in enumerate((just_written, future, old)):
        path.write_text("{}\n", encoding="utf-8")
        stamp = 1_800_000_000 - age * 60
        os.utime(path, (stamp, stamp))
    (tmp_path / "notes.jsonl").write_text("mine\n", encoding="utf-8")
    assert run_traces(tmp_path)[-1] == just_written
    assert prune_traces(tmp_path, keep=2) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [future.name, just_written.name, "notes.jsonl"]
    )
