"""Large tool results are kept once, by sha256: the trace writes each text once, as a `result` record,
and every later call that returns it (or a request that resends it) names its hash; readers put it
back, and still read the traces of schema version 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k8s_agent.trace_tools import show
from k8s_agent_harness.traces.events import ToolCall, TraceError, read_trace, sha256_of
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_mock_cluster.synthetic import PLANTED, cluster
from k8s_agent_scripted_llm import calls, text, tool
from tests.conftest import read_jsonl, run_scenario

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
LINES = 300


def logs_cluster(path: Path) -> Path:
    """A pod whose logs are 300 lines of about 1 KB (300 KB), one of them with a bearer token."""
    data = cluster(5)
    pod = next(p for p in data["pods"] if p["name"] == PLANTED[0])
    pod["containers"][0]["logs"] = [f"{n:04d} " + "x" * 1000 + " needle" for n in range(LINES)]
    pod["containers"][0]["logs"][7] = f"retrying with Authorization: Bearer {JWT}"
    path.write_text(json.dumps(data))
    return path


def logs(tail: int) -> object:
    return tool("get_pod_logs", name=PLANTED[0], namespace="production", tail=tail)


@pytest.mark.parametrize("budget", [32_000, 0])
def test_one_result_returned_by_several_calls_is_written_once_and_read_back_whole(
    impl: Impl, tmp_path: Path, budget: int
) -> None:
    script = [calls(logs(1000), logs(999)), calls(logs(998)), calls(logs(1000)), text("The logs repeat.")]

    run = run_scenario(
        impl, script, tmp_path / "run", cluster=logs_cluster(tmp_path / "c.json"), context_budget=budget
    )

    assert run.error is None, run.error
    assert run.trace_path is not None
    written = read_jsonl(run.trace_path)
    (stored,) = [line for line in written if line["kind"] == "result"]
    assert stored["sha256"] == sha256_of(stored["text"]) and len(stored["text"]) > 300_000
    assert (
        JWT not in run.trace_path.read_text() and "needle" in stored["text"]
    )  # redacted before it is stored
    assert run.trace_path.stat().st_size < 1.5 * len(stored["text"])  # once, however often it came back
    file_calls = [line for line in written if line["kind"] == "tool_call"]
    assert [c["outcome"] for c in file_calls] == ["executed"] * 3 + ["cached"]
    named = "full_sha256" if budget else "result_sha256"
    assert {c[named] for c in file_calls[:3]} == {stored["sha256"]}
    assert all(c.get("full_result") is None and len(c["result"]) < 20_000 for c in file_calls)

    trace = read_trace(run.trace_path)
    read = trace.of(ToolCall)
    if budget:  # the model got excerpts of one stored result, r1, whichever call returned it
        assert [c.handle for c in read[:3]] == ["r1"] * 3
        assert all(c.full_result == stored["text"] for c in read[:3])
        assert "of get_pod_logs" in read[1].result and '"tail": 999' in read[1].result.splitlines()[0]
    else:  # the model got the whole text each time, the repeat with the duplicate notice before it
        assert all(c.result == stored["text"] for c in read[:3])
        assert read[3].result.endswith(stored["text"]) and read[3].result.startswith("[Duplicate call]")
        # the requests resend it: the trace names it, and gives it back as it went on the wire
        sent = [m for m in run.requests[-1]["messages"] if m["role"] == "tool"]
        rebuilt = [m for r in run.trace if r["kind"] == "model_request" for m in r["messages_added"] or []]
        assert [m["content"] for m in rebuilt if m["role"] == "tool"] == [m["content"] for m in sent]
    assert read[2].result.splitlines()[1][:200] in show(trace, full=True)  # `trace show` reads it back


def trace_lines(*events: dict[str, object], version: int) -> str:
    start = {
        "kind": "run_start",
        "schema_version": version,
        "question": "q",
        "started_at": "2026-12-01T00:00:00Z",
    }
    return "".join(json.dumps(event) + "\n" for event in [start, *events])


CALL = {
    "kind": "tool_call",
    "request_id": "c1",
    "tool": "get_pod_logs",
    "fingerprint": "f",
    "outcome": "executed",
}


def test_a_version_2_trace_with_its_results_inline_is_still_read_and_shown(tmp_path: Path) -> None:
    path = tmp_path / "v2.jsonl"
    whole = "line\n" * 9_999 + "last line"
    path.write_text(
        trace_lines({**CALL, "result": "[Result r1 ...]", "handle": "r1", "full_result": whole}, version=2)
    )

    (recorded,) = read_trace(path).of(ToolCall)

    assert recorded.full_result == whole and recorded.result == "[Result r1 ...]"
    assert "10,000 lines, too large: stored as r1" in show(read_trace(path))


def test_a_trace_naming_a_text_it_does_not_hold_or_a_damaged_text_is_refused_by_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    missing.write_text(trace_lines({**CALL, "result": "", "result_sha256": "ab" * 32}, version=3))
    damaged = tmp_path / "damaged.jsonl"
    record = {"kind": "result", "sha256": sha256_of("the text"), "text": "another text"}
    damaged.write_text(trace_lines(record, {**CALL, "result_sha256": record["sha256"]}, version=3))

    with pytest.raises(TraceError, match=r"missing.jsonl:2: names a stored text \(abab"):
        read_trace(missing)
    with pytest.raises(TraceError, match=r"damaged.jsonl:2: a stored text that does not match its sha256"):
        read_trace(damaged)
