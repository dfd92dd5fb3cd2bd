"""The tool gateway: every check, the exact messages, the cache, retries and the trace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.cluster.results import ToolFailure, ToolResult
from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.guards.gateway import RetryPolicy, ToolGateway, ToolOutcome
from k8s_agent_harness.guards.read_policy import ReadPolicy
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.model import prompts
from k8s_agent_harness.traces.trace import Recorder, TraceWriter
from k8s_agent_harness.vocabulary import Impl

LOGS_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}, "tail": {"type": "integer"}},
    "required": ["name", "namespace"],
}
TOOLS = [
    ToolSpec("get_pod_logs", "Read logs.", LOGS_SCHEMA, read_only=True),
    ToolSpec("list_pods", "List pods.", {"type": "object", "properties": {}}, read_only=True),
    ToolSpec("delete_pod", "Delete a pod.", {"type": "object"}, read_only=False),
]


class FakeServer:
    """Answers calls from a queue of results per tool, and records what it received."""

    def __init__(self, results: dict[str, list[ToolResult]] | None = None) -> None:
        self.results = results or {}
        self.received: list[tuple[str, dict[str, Any]]] = []

    async def call(
        self, name: str, arguments: Mapping[str, Any], on_progress: Any = None, within: float | None = None
    ) -> ToolResult:
        self.received.append((name, dict(arguments)))
        queue = self.results.get(name)
        return queue.pop(0) if queue else ToolResult(f"{name} ok")


OPEN: list[Recorder] = []


@pytest.fixture(autouse=True)
def _close_traces() -> Iterator[None]:
    yield
    while OPEN:
        OPEN.pop().writer.close()


def make_gateway(tmp_path: Path, server: FakeServer, **options: Any) -> tuple[ToolGateway, Path, Supervisor]:
    trace = tmp_path / "trace.jsonl"
    recorder = Recorder(
        TraceWriter(trace), run_id="r", impl=Impl.HANDWRITTEN, redactor=Redactor(["sk-secret-value-123"])
    )
    OPEN.append(recorder)
    supervisor = Supervisor(max_steps=10, max_repeats=options.pop("max_repeats", 2), max_seconds=60)
    tools = options.pop("tools", TOOLS)
    # These tools are the test's own: their read-only hints are taken as the truth (the policy itself
    # is tested in test_read_policy.py).
    options.setdefault(
        "policy", ReadPolicy.of(None, trust_hints=True, allow_write=options.pop("allow_write", ()))
    )
    return ToolGateway(tools, server, recorder, supervisor, Evidence(), **options), trace, supervisor


def call(gateway: ToolGateway, name: str, raw: str, call_id: str = "c1") -> ToolOutcome:
    return asyncio.run(gateway.call(call_id, name, raw))


def test_unknown_tools_get_the_sorted_whitelist_and_never_reach_the_server(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server)

    outcome = call(gateway, "exec_pod", "{}")

    assert outcome.kind == "unknown"
    assert outcome.content == "Unknown tool 'exec_pod'. Available tools: get_pod_logs, list_pods"
    assert server.received == []


def test_tools_not_annotated_read_only_are_refused_unless_allowed(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server)

    refused = call(gateway, "delete_pod", "{}")

    assert refused.kind == "refused" and refused.content.startswith("Tool 'delete_pod' is refused")
    assert "delete_pod" not in [t["function"]["name"] for t in gateway.openai_tools()]
    assert server.received == []


@pytest.mark.parametrize("answer", [True, False])
def test_an_allowed_write_tool_asks_the_operator_once_per_call(tmp_path: Path, answer: bool) -> None:
    server = FakeServer()
    asked: list[tuple[str, dict[str, Any]]] = []

    async def operator(tool: str, arguments: Mapping[str, Any]) -> bool:
        asked.append((tool, dict(arguments)))
        return answer

    gateway, _, _ = make_gateway(tmp_path, server, allow_write=["delete_pod"], approver=operator)

    first = call(gateway, "delete_pod", '{"name": "x"}')
    again = call(gateway, "delete_pod", '{"name": "x"}', "c2")

    assert "delete_pod" in [t["function"]["name"] for t in gateway.openai_tools()]
    assert asked == [("delete_pod", {"name": "x"})]
    if answer:
        assert first.kind == "executed" and server.received == [("delete_pod", {"name": "x"})]
    else:
        assert first.kind == "refused" and first.content == prompts.not_approved("delete_pod")
        assert server.received == []
    assert again.kind == "cached"


def test_approval_asked_ahead_is_not_asked_again_and_a_refusal_is_recorded_by_the_call(
    tmp_path: Path,
) -> None:
    answers = iter([True, False])

    async def operator(tool: str, arguments: Mapping[str, Any]) -> bool:
        return next(answers)

    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server, allow_write=["delete_pod"], approver=operator)

    assert asyncio.run(gateway.approve("delete_pod", '{"name": "a"}')) is True
    assert asyncio.run(gateway.approve("delete_pod", '{"name": "b"}')) is False
    assert asyncio.run(gateway.approve("list_pods", "{}")) is True  # read-only: nothing to ask

    assert call(gateway, "delete_pod", '{"name": "a"}').kind == "executed"
    assert call(gateway, "delete_pod", '{"name": "b"}', "c2").kind == "refused"
    assert server.received == [("delete_pod", {"name": "a"})]


def test_invalid_json_gets_the_decoder_message_and_the_raw_arguments(tmp_path: Path) -> None:
    gateway, _, _ = make_gateway(tmp_path, FakeServer())

    outcome = call(gateway, "list_pods", '{"namespace": prod}')

    assert outcome.kind == "invalid_json"
    assert outcome.content == (
        "Tool arguments are not valid JSON: Expecting value: line 1 column 15 (char 14); "
        'raw arguments: {"namespace": prod}'
    )


def test_schema_errors_are_all_listed_sorted_by_path(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server)

    outcome = call(gateway, "get_pod_logs", '{"tail": "fifty", "name": 7}')

    assert outcome.content == (
        "Invalid arguments for get_pod_logs: <root>: 'namespace' is a required property; "
        "name: 7 is not of type 'string'; tail: 'fifty' is not of type 'integer'"
    )
    assert server.received == []


def test_arguments_must_be_an_object_and_empty_means_none(tmp_path: Path) -> None:
    gateway, _, _ = make_gateway(tmp_path, FakeServer())

    assert call(gateway, "list_pods", "[1, 2]").content == (
        "Invalid arguments for list_pods: <root>: arguments must be a JSON object, got list"
    )
    assert call(gateway, "list_pods", "  ", "c2").kind == "executed"


def test_a_repeat_is_answered_from_cache_with_the_nudge_and_counted(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, supervisor = make_gateway(tmp_path, server)
    raw = '{"name": "a", "namespace": "b"}'

    first = call(gateway, "get_pod_logs", raw)
    again = call(
        gateway, "get_pod_logs", '{"namespace": "b", "name": "a"}', "c2"
    )  # same call, keys reordered

    assert again.kind == "cached"
    assert again.content == f"{prompts.DUPLICATE_NUDGE}\n\n{first.content}"
    assert again.fingerprint == first.fingerprint and len(first.fingerprint) == 12
    assert len(server.received) == 1
    assert supervisor.stop_reason() is None
    call(gateway, "get_pod_logs", raw, "c3")
    assert supervisor.stop_reason() == "repeated_calls"


def test_failures_become_results_and_non_retryable_ones_are_tried_once(tmp_path: Path) -> None:
    server = FakeServer(
        {"list_pods": [ToolResult("", ToolFailure("forbidden: cannot list pods", "tool_error"))]}
    )
    gateway, _, _ = make_gateway(tmp_path, server)

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.kind == "failed"
    assert outcome.content == "Tool call failed (list_pods): forbidden: cannot list pods"
    assert len(server.received) == 1


def test_retryable_failures_are_retried_by_the_harness_honouring_retry_after(tmp_path: Path) -> None:
    busy = ToolResult(
        "", ToolFailure("429 Too Many Requests", "tool_error", retryable=True, retry_after=0.01)
    )
    server = FakeServer({"list_pods": [busy, busy]})
    gateway, trace, _ = make_gateway(tmp_path, server, retry=RetryPolicy(attempts=3, max_delay=0.05))

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.kind == "executed" and outcome.content == "list_pods ok" and outcome.attempts == 3
    assert len(server.received) == 3
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e["kind"] for e in events] == ["tool_retry", "tool_retry", "tool_call"]
    assert [e["delay_s"] for e in events[:2]] == [0.01, 0.01]


def test_retries_are_bounded(tmp_path: Path) -> None:
    busy = ToolResult(
        "", ToolFailure("503 Service Unavailable", "tool_error", retryable=True, retry_after=0.0)
    )
    server = FakeServer({"list_pods": [busy] * 10})
    gateway, _, _ = make_gateway(tmp_path, server, retry=RetryPolicy(attempts=3))

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.kind == "failed" and outcome.attempts == 3 and len(server.received) == 3


def test_results_are_redacted_before_the_model_and_the_trace_see_them(tmp_path: Path) -> None:
    leaky = ToolResult("API_TOKEN=sk-secret-value-123\nAuthorization: Bearer abcdefghijklmnop")
    gateway, trace, _ = make_gateway(tmp_path, FakeServer({"list_pods": [leaky]}))

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.content == "API_TOKEN=[REDACTED]\nAuthorization: Bearer [REDACTED]"
    assert "sk-secret-value-123" not in trace.read_text() and "abcdefghijklmnop" not in trace.read_text()
    assert "abcdefghijklmnop" not in gateway.evidence.text


def test_a_tool_with_a_broken_schema_is_warned_about_and_not_validated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = ToolSpec(
        "odd", "Odd.", {"type": "object", "properties": {"x": {"type": "not-a-type"}}}, read_only=True
    )
    gateway, trace, _ = make_gateway(tmp_path, FakeServer(), tools=[broken])

    assert call(gateway, "odd", '{"x": 1}').kind == "executed"
    assert "tool odd has an invalid input schema" in capsys.readouterr().err
    assert any(json.loads(line)["kind"] == "warning" for line in trace.read_text().splitlines())


def test_every_outcome_is_traced_with_fingerprint_and_request_id(tmp_path: Path) -> None:
    gateway, trace, _ = make_gateway(tmp_path, FakeServer())

    call(gateway, "list_pods", "{}", "call_9")

    (event,) = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {k: event[k] for k in ("kind", "request_id", "tool", "outcome", "attempts")} == {
        "kind": "tool_call",
        "request_id": "call_9",
        "tool": "list_pods",
        "outcome": "executed",
        "attempts": 1,
    }
    assert len(event["fingerprint"]) == 12
