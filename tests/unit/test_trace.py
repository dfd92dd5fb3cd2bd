"""The trace writer: valid JSONL, redacted, and it never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.redact import Redactor
from harness.trace import Recorder, TraceWriter


def recorder(path: Path, **kwargs: object) -> Recorder:
    return Recorder(
        TraceWriter(path),
        run_id="run1",
        impl="handwritten",
        redactor=Redactor(["sk-live-abcdefgh"]),
        **kwargs,
    )  # type: ignore[arg-type]


def test_events_are_json_lines_with_the_common_envelope(tmp_path: Path) -> None:
    trace = recorder(tmp_path / "t.jsonl")
    trace.step = 2
    trace.event("guardrail", guardrail="zero_tool")
    trace.writer.close()

    (event,) = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert {k: event[k] for k in ("run_id", "impl", "step", "kind", "guardrail")} == {
        "run_id": "run1",
        "impl": "handwritten",
        "step": 2,
        "kind": "guardrail",
        "guardrail": "zero_tool",
    }
    assert isinstance(event["ts"], float)


def test_secrets_never_reach_the_file_or_the_observer(tmp_path: Path) -> None:
    seen: list[dict[str, object]] = []
    trace = recorder(tmp_path / "t.jsonl", observer=seen.append)

    trace.event(
        "model_request",
        headers={"authorization": "Bearer sk-live-abcdefgh"},
        password="hunter22",
        note="key sk-live-abcdefgh",
        usage={"prompt_tokens": 12},
    )
    trace.writer.close()

    text = (tmp_path / "t.jsonl").read_text()
    assert "sk-live-abcdefgh" not in text and "hunter22" not in text and "sk-live" not in json.dumps(seen)
    assert json.loads(text)["usage"] == {"prompt_tokens": 12}


def test_an_unwritable_trace_warns_once_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    trace = recorder(blocker / "sub" / "t.jsonl")

    trace.event("run_start")
    trace.event("run_end")
    trace.writer.close()

    assert capsys.readouterr().err.count("warning: cannot write trace") == 1


def test_a_failing_observer_is_dropped_not_fatal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(event: dict[str, object]) -> None:
        raise RuntimeError("terminal gone")

    trace = recorder(tmp_path / "t.jsonl", observer=broken)
    trace.event("a")
    trace.event("b")
    trace.writer.close()

    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 2
    assert "progress display failed: terminal gone" in capsys.readouterr().err
