"""The span builder on events of its own: failed attempts, a run killed before its end, retries,
contents only when asked for, and the same tree from a live run and from its file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from k8s_agent.scenarios import PAYMENT, REPORT
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.events import read_trace
from k8s_agent_harness.traces.spans import SpanBuilder, question_scope
from k8s_agent_harness.vocabulary import Impl, Outcome, RunStatus
from k8s_agent_scripted_llm import call, text
from tests.conftest import run_scenario
from tests.otel.conftest import Exported, roots, tree, walk


class Memory:
    """A SpanSink that keeps spans as dicts."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []

    def start(
        self, name: str, *, kind: str, start_ns: int, attributes: dict[str, Any], parent: object | None
    ) -> object:
        span = {
            "name": name,
            "kind": kind,
            "start": start_ns,
            "attributes": dict(attributes),
            "parent": parent,
        }
        span |= {"events": [], "end": None, "error": None}
        self.spans.append(span)
        return len(self.spans) - 1

    def event(self, span: object, name: str, time_ns: int, attributes: dict[str, Any]) -> None:
        self.spans[span]["events"].append((name, time_ns, attributes))  # type: ignore[index]

    def update(self, span: object, attributes: dict[str, Any]) -> None:
        self.spans[span]["attributes"].update(attributes)  # type: ignore[index]

    def end(self, span: object, end_ns: int, error: str | None) -> None:
        assert self.spans[span]["end"] is None, "a span ended twice"  # type: ignore[index]
        self.spans[span] |= {"end": end_ns, "error": error}  # type: ignore[index]


def started(ts: float = 100.0, question: str = "Is anything broken in staging?") -> events.RunStart:
    return events.RunStart(
        run_id="r1",
        ts=ts,
        question=question,
        started_at="2026-01-01T00:00:00Z",
        model="m",
        endpoint="https://h.example:8443/v1",
    )


def test_a_failed_attempt_a_retried_call_and_a_run_killed_midway_are_all_spans_that_end() -> None:
    sink = Memory()
    builder = SpanBuilder(sink)
    builder.feed_all(
        [
            started(),
            events.ModelRequest(ts=101.0, step=1, model="m"),
            events.ModelError(ts=101.5, step=1, status=503),
            events.ModelRequest(ts=102.0, step=1, attempt=2, model="m"),
            events.ModelResponse(ts=103.0, step=1, attempt=2, finish_reason="tool_calls", response_id="id-2"),
            events.ToolRetry(
                ts=103.2, request_id="c1", tool="list_pods", fingerprint="f", attempt=1, reason="503"
            ),
            events.ToolCall(
                ts=104.0,
                request_id="c1",
                tool="list_pods",
                fingerprint="f",
                outcome=Outcome.FAILED,
                attempts=2,
                duration_ms=900.0,
            ),
            events.ModelRequest(ts=105.0, step=2, model="m"),
        ]
    )
    run, failed, answered, tool, unanswered = sink.spans
    assert run["attributes"]["server.address"] == "h.example" and run["attributes"]["server.port"] == 8443
    assert failed["error"] == "HTTP 503" and failed["attributes"]["error.type"] == "503"
    assert answered["error"] is None and answered["attributes"]["gen_ai.response.id"] == "id-2"
    assert (
        tool["start"] == 103_100_000_000 and tool["end"] == 104_000_000_000
    )  # its duration, before its event
    assert tool["attributes"]["error.type"] == "tool_error" and tool["error"]
    assert [name for name, _, _ in tool["events"]] == ["k8s_agent.tool.retry"]
    # No run_end: what is open ends at the last event, marked failed.
    assert unanswered["end"] == run["end"] == 105_000_000_000
    assert unanswered["error"] and run["error"]
    assert all(span["parent"] == 0 for span in sink.spans[1:])


def test_a_failed_run_marks_its_span_with_the_error() -> None:
    sink = Memory()
    SpanBuilder(sink).feed_all(
        [
            started(),
            events.RunEnd(
                ts=101.0, status=RunStatus.ERROR, error="endpoint down", error_type="ModelEndpointError"
            ),
        ]
    )
    (run,) = sink.spans
    assert run["error"] == "endpoint down" and run["attributes"]["error.type"] == "ModelEndpointError"


def test_the_scope_is_each_namespace_the_question_is_scoped_to_else_the_cluster() -> None:
    assert question_scope("Why is checkout slow?") == "cluster"
    assert question_scope("Why?\n\nScope: namespace shop.") == "namespace/shop"
    assert question_scope("Why?\nScope: namespace a.\nScope: namespace b-2.") == "namespace/a,namespace/b-2"
    assert question_scope("Tell me about Scope: namespace prod. in one line") == "cluster"  # not a scope line


def test_contents_are_in_the_spans_only_when_asked_for_and_as_the_trace_has_them() -> None:
    run = [
        started(question="What about pod web-1?"),
        events.ModelRequest(
            ts=101.0, model="m", messages_added=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What about pod web-1?"}]
        ),
        events.ModelResponse(
            ts=102.0, tool_calls=[events.ProposedCall(id="c1", name="describe_pod", arguments='{"name": "web-1"}')]
        ),
        events.ToolCall(
            ts=103.0, request_id="c1", tool="describe_pod", arguments={"name": "web-1"}, fingerprint="f",
            outcome=Outcome.EXECUTED, attempts=1, result="password: [REDACTED]",
        ),
        events.RunEnd(ts=104.0, status=RunStatus.OK, answer="web-1 is fine."),
    ]  # fmt: skip
    plain, captured = Memory(), Memory()
    SpanBuilder(plain).feed_all(run)
    SpanBuilder(captured, capture_content=True).feed_all(run)

    written = json.dumps([span["attributes"] for span in plain.spans])
    assert "web-1" not in written and "Be brief" not in written
    root, chat, tool = captured.spans
    assert (
        json.loads(root["attributes"]["gen_ai.output.messages"])[0]["parts"][0]["content"] == "web-1 is fine."
    )
    assert json.loads(chat["attributes"]["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert json.loads(chat["attributes"]["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "What about pod web-1?"}]}
    ]
    assert json.loads(chat["attributes"]["gen_ai.output.messages"])[0]["parts"][0]["name"] == "describe_pod"
    assert tool["attributes"]["gen_ai.tool.call.result"] == "password: [REDACTED]"
    assert json.loads(tool["attributes"]["gen_ai.tool.call.arguments"]) == {"name": "web-1"}


def test_a_run_read_back_from_its_trace_file_gives_the_tree_the_live_run_gave(
    exported: Exported, tmp_path: Path
) -> None:
    script = [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(REPORT),
    ]
    run = run_scenario(Impl.SDK, script, tmp_path)
    assert run.result is not None and run.trace_path is not None
    spans = exported.spans()
    (live_root,) = roots(spans)
    live = tree(spans, live_root)

    replayed = Memory()
    SpanBuilder(replayed).feed_all(read_trace(run.trace_path))

    def flat(nodes: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        """Names and attributes, lists as the SDK keeps them (tuples)."""
        return [
            (node["name"], {k: tuple(v) if isinstance(v, list) else v for k, v in node["attributes"].items()})
            for node in nodes
        ]

    live_nodes = list(walk(live))
    assert flat(replayed.spans) == flat(live_nodes)
    live_events = [
        name for node in live_nodes for name, _ in node["events"] if not name.startswith("openai_agents.")
    ]
    assert [name for span in replayed.spans for name, _, _ in span["events"]] == live_events
    assert [span["start"] for span in replayed.spans] == [
        node["start"] for node in sorted_by_tree(spans, live_root)
    ]


def sorted_by_tree(spans: list[Any], root: Any) -> list[dict[str, int]]:
    """The live spans' start times in the order `walk(tree(...))` visits them."""
    by_id = {span.context.span_id: span for span in spans}
    order: list[dict[str, int]] = []

    def visit(span: Any) -> None:
        order.append({"start": span.start_time})
        children = sorted(
            (
                child
                for child in spans
                if child.parent is not None and child.parent.span_id == span.context.span_id
            ),
            key=lambda child: (child.start_time, child.name),
        )
        for child in children:
            visit(by_id[child.context.span_id])

    visit(root)
    return order
