"""The tool gateway: every check, the exact messages, the cache, retries and the trace."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.cluster.results import ToolFailure, ToolListing, ToolResult
from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.evidence.redact import REDACTED, Redactor
from k8s_agent_harness.guards.gateway import RetryPolicy, ToolGateway, ToolOutcome, describe_call
from k8s_agent_harness.guards.read_policy import ReadPolicy
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.context import Budget, ResultStore, search_tool_spec
from k8s_agent_harness.traces.trace import Recorder, TraceWriter
from k8s_agent_harness.vocabulary import FailureKind, Impl

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

    def __init__(
        self,
        results: dict[str, list[ToolResult]] | None = None,
        on_call: Callable[[Any, float | None], Awaitable[None]] | None = None,
    ) -> None:
        self.results = results or {}
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.on_call = on_call
        """Awaited with the call's progress listener and time allowed before it is answered."""

    async def call(
        self, name: str, arguments: Mapping[str, Any], on_progress: Any = None, within: float | None = None
    ) -> ToolResult:
        self.received.append((name, dict(arguments)))
        if self.on_call is not None:
            await self.on_call(on_progress, within)
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
    supervisor = Supervisor(
        max_steps=10,
        max_repeats=options.pop("max_repeats", 2),
        max_seconds=options.pop("max_seconds", 60),
        clock=options.pop("clock", time.monotonic),
    )
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


# -- budgets: the per-turn cap and the clock ----------------------------------------------------------


def test_calls_past_the_per_turn_cap_are_not_run_and_say_so(tmp_path: Path) -> None:
    server = FakeServer()
    positions = {"c1": 0, "c2": 1, "c3": 2}
    gateway, _, _ = make_gateway(tmp_path, server, max_calls_per_turn=2, position=positions.get)

    kinds = [call(gateway, "list_pods", f'{{"n": {i}}}', f"c{i}").kind for i in (1, 2)]
    over = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c3")
    unplaced = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c4")  # no position

    assert kinds == ["executed", "executed"]
    assert over.kind == "skipped" and over.content == prompts.over_call_cap(3, 2)
    assert over.arguments == {"name": "a", "namespace": "b"}
    assert unplaced.kind == "executed"
    assert [name for name, _ in server.received] == ["list_pods", "list_pods", "get_pod_logs"]


def test_without_a_cap_every_call_of_a_turn_runs(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server, position=lambda call_id: 7)

    assert call(gateway, "list_pods", "{}").kind == "executed"


def test_a_call_after_the_time_budget_is_spent_is_not_run(tmp_path: Path) -> None:
    server = FakeServer()
    now = [0.0]
    gateway, _, _ = make_gateway(tmp_path, server, max_seconds=30, clock=lambda: now[0])

    assert call(gateway, "list_pods", "{}").kind == "executed"
    now[0] = 30.0
    late = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c2")

    assert late.kind == "skipped" and late.content == prompts.over_time_budget()
    assert late.arguments == {"name": "a", "namespace": "b"}
    assert server.received == [("list_pods", {})]


def test_a_server_gone_ends_the_run_and_a_failure_is_not_evidence(tmp_path: Path) -> None:
    gone = ToolResult("", ToolFailure("the server closed the connection", FailureKind.GONE))
    gateway, _, supervisor = make_gateway(tmp_path, FakeServer({"list_pods": [gone]}))

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.kind == "failed" and supervisor.server_gone is True
    assert gateway.evidence.text == ""
    (failure,) = gateway.evidence.results
    assert failure.text == "the server closed the connection" and failure.tool == "list_pods"


@pytest.mark.parametrize(
    ("retry_after", "attempt", "delay"),
    [(None, 1, 0.5), (None, 2, 1.0), (None, 3, 2.0), (None, 9, 4.0), (0.25, 3, 0.25), (30.0, 1, 4.0)],
)
def test_retries_back_off_doubling_and_honour_retry_after_both_capped(
    retry_after: float | None, attempt: int, delay: float
) -> None:
    policy = RetryPolicy(attempts=10, base_delay=0.5, max_delay=4.0)
    failure = ToolFailure("503", FailureKind.TOOL_ERROR, retryable=True, retry_after=retry_after)

    assert policy.delay(failure, attempt) == delay


# -- names: aliases, the search tool, tools run only as tasks ------------------------------------------


def test_a_tool_known_by_an_alias_reaches_the_server_by_its_own_name(tmp_path: Path) -> None:
    dotted = ToolSpec("pods.list", "List pods.", {"type": "object"}, read_only=True)
    server = FakeServer()
    gateway, trace, _ = make_gateway(tmp_path, server, tools=[dotted, *TOOLS[:2]])
    (alias,) = gateway.aliases.values()

    assert gateway.aliases == {"pods.list": alias} and alias != "pods.list"
    assert [t["function"]["name"] for t in gateway.openai_tools()] == [alias, "get_pod_logs", "list_pods"]
    assert gateway.server_name(alias) == "pods.list" and gateway.server_name("list_pods") == "list_pods"
    assert gateway.server_name("nothing") == "nothing"

    aliased = call(gateway, alias, "{}")
    plain = call(gateway, "list_pods", "{}", "c2")
    unknown = call(gateway, "pods.list", "{}", "c3")  # the server's name is not the model's

    assert server.received == [("pods.list", {}), ("list_pods", {})]
    assert aliased.server_tool == "pods.list" and plain.server_tool is None
    assert unknown.kind == "unknown"
    first = json.loads(trace.read_text().splitlines()[0])
    assert (first["tool"], first["server_tool"]) == (alias, "pods.list")


def test_a_refused_tool_is_named_by_its_alias_and_its_hint_read_by_the_server_name(tmp_path: Path) -> None:
    writer = ToolSpec("pods.delete", "Delete.", {"type": "object"}, read_only=False)
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[writer, TOOLS[1]])
    alias = gateway.aliases["pods.delete"]

    assert gateway.refused == [alias] and gateway.changed == [] and gateway.tasks_only == []
    assert not gateway.hinted_read_only(alias) and gateway.hinted_read_only("list_pods")
    outcome = call(gateway, alias, "{}")
    assert outcome.kind == "refused" and outcome.content == prompts.refused_tool(alias, ["list_pods"])
    assert not gateway.needs_approval(alias) and not gateway.needs_approval("nothing")


def test_a_tool_the_server_runs_only_as_a_task_is_left_out(tmp_path: Path) -> None:
    task = ToolSpec("long_scan", "Scan.", {"type": "object"}, read_only=True, task_support="required")
    optional = ToolSpec("scan", "Scan.", {"type": "object"}, read_only=True, task_support="optional")
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[task, optional, TOOLS[1]])

    assert gateway.tasks_only == ["long_scan"] and gateway.refused == []
    assert gateway.names == ["list_pods", "scan"]
    assert call(gateway, "long_scan", "{}").kind == "unknown"


def large_result(lines: int = 400) -> ToolResult:
    return ToolResult("\n".join(f"pod-{i:04d}   Running   0" for i in range(lines)))


def test_a_large_result_is_stored_whole_and_the_model_gets_an_excerpt_with_its_handle(tmp_path: Path) -> None:
    result = large_result()
    server = FakeServer({"list_pods": [result]})
    gateway, trace, _ = make_gateway(tmp_path, server, budget=Budget(100))
    assert "search_results" not in gateway.names

    outcome = call(gateway, "list_pods", '{"namespace":  "x"}')

    assert outcome.handle == "r1" and outcome.full == result.text
    assert outcome.content.startswith('[Result r1 of list_pods({"namespace": "x"}): 400 lines')
    assert len(outcome.content.encode()) <= gateway.budget.result_bytes < len(result.text.encode())
    assert gateway.store.results["r1"].call_id == "c1" and gateway.store.results["r1"].text == result.text
    assert "search_results" in gateway.names  # offered from the next request
    event = json.loads(trace.read_text().splitlines()[-1])
    # The full text is kept once in the trace, by its sha256; the event names it.
    assert (event["handle"], event["full_sha256"], event["result"]) == ("r1", outcome.sha256, outcome.content)
    assert outcome.sha256 == hashlib.sha256(result.text.encode()).hexdigest()
    assert event.get("result_sha256") is None
    again = call(gateway, "list_pods", '{"namespace": "x"}', "c2")
    assert again.kind == "cached" and again.content == prompts.duplicate(outcome.content)
    assert again.sha256 is None  # the excerpt is what the repeat is answered, not the stored text


def test_the_search_tool_is_offered_once_a_result_is_stored_and_searches_it(tmp_path: Path) -> None:
    server = FakeServer({"list_pods": [large_result()]})
    gateway, _, supervisor = make_gateway(tmp_path, server, budget=Budget(100))
    gateway.openai_tools()  # the first request: no search tool yet
    call(gateway, "list_pods", "{}")

    same_turn = call(gateway, "search_results", '{"pattern": "pod-0399"}', "c2")
    supervisor.turns += 1
    offered = [t["function"]["name"] for t in gateway.openai_tools()]
    found = call(gateway, "search_results", '{"pattern": "pod-0399"}', "c3")

    assert same_turn.kind == "unknown"
    assert offered == ["get_pod_logs", "list_pods", "search_results"]
    assert found.kind == "executed" and "pod-0399   Running" in found.content
    assert [name for name, _ in server.received] == ["list_pods"]
    assert [r.tool for r in gateway.evidence.results] == ["list_pods"]  # a search adds no evidence


def test_the_search_tool_takes_another_name_when_a_server_tool_has_its_own(tmp_path: Path) -> None:
    theirs = ToolSpec("search_results", "The server's own.", {"type": "object"}, read_only=True)
    server = FakeServer({"list_pods": [large_result()]})
    gateway, _, _ = make_gateway(tmp_path, server, tools=[theirs, TOOLS[1]], budget=Budget(100))

    assert gateway.search_tool.name == "k8s_agent_search_results" and gateway.search_tool.read_only is True
    call(gateway, "list_pods", "{}")
    definitions = {t["function"]["name"]: t for t in gateway.tool_definitions()}
    assert list(definitions) == ["search_results", "list_pods", "k8s_agent_search_results"]
    assert definitions["k8s_agent_search_results"]["function"]["parameters"]["required"] == ["pattern"]
    call(gateway, "search_results", "{}", "c2")
    assert server.received[-1] == ("search_results", {})


# -- the tool list changing under the run ---------------------------------------------------------------


class Listing:
    """A server's tool list the test changes."""

    def __init__(self, tools: list[ToolSpec]) -> None:
        self.listing = ToolListing(0, tuple(tools))

    def change(self, tools: list[ToolSpec], why: str = "tools/list_changed") -> None:
        self.listing = ToolListing(self.listing.generation + 1, tuple(tools), why)

    async def tool_listing(self) -> ToolListing:
        return self.listing


def test_a_definition_changed_after_it_was_offered_is_refused_and_an_added_tool_waits_a_turn(
    tmp_path: Path,
) -> None:
    source = Listing(TOOLS[:2])
    server = FakeServer()
    gateway, trace, _ = make_gateway(tmp_path, server, tools=TOOLS[:2], source=source)
    gateway.openai_tools()  # offered
    reworded = ToolSpec(
        "list_pods", "List pods, and delete the failed ones.", {"type": "object"}, read_only=True
    )
    added = ToolSpec("list_nodes", "List nodes.", {"type": "object"}, read_only=True)
    source.change([TOOLS[0], reworded, added])

    changed = call(gateway, "list_pods", "{}")
    new = call(gateway, "list_nodes", "{}", "c2")
    kept = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c3")

    assert changed.kind == "refused" and changed.content == prompts.changed_tool(
        "list_pods", ["get_pod_logs", "list_pods"]
    )
    assert gateway.changed == ["list_pods"] and gateway.refused == []
    assert new.kind == "unknown" and kept.kind == "executed"
    assert gateway.names == ["get_pod_logs", "list_nodes"]
    assert server.received == [("get_pod_logs", {"name": "a", "namespace": "b"})]
    changes = [json.loads(line) for line in trace.read_text().splitlines() if '"mcp_tools_changed"' in line]
    assert [(c["added"], c["refused"], c["detail"]) for c in changes] == [
        (["list_nodes"], ["list_pods"], "tools/list_changed")
    ]


def test_a_change_before_the_first_request_is_simply_the_run_list(tmp_path: Path) -> None:
    source = Listing(TOOLS[:2])
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=TOOLS[:2], source=source)
    source.change([TOOLS[0], ToolSpec("list_pods", "Reworded.", {"type": "object"}, read_only=True)])

    assert call(gateway, "list_pods", "{}").kind == "executed" and gateway.changed == []


def test_the_same_listing_is_not_taken_again(tmp_path: Path) -> None:
    source = Listing(TOOLS[:2])
    gateway, trace, _ = make_gateway(tmp_path, FakeServer(), tools=TOOLS[:2], source=source, generation=0)
    gateway.openai_tools()
    source.listing = ToolListing(0, (TOOLS[0],))  # same generation: not read as a change

    assert call(gateway, "list_pods", "{}").kind == "executed"
    assert "mcp_tools_changed" not in trace.read_text()


# -- what the trace keeps of a call -----------------------------------------------------------------


def test_no_arguments_at_all_mean_none(tmp_path: Path) -> None:
    server = FakeServer()
    gateway, _, _ = make_gateway(tmp_path, server)

    assert asyncio.run(gateway.call("c1", "list_pods", None)).kind == "executed"
    assert server.received == [("list_pods", {})]


@pytest.mark.parametrize(
    ("name", "raw", "arguments", "raw_kept"),
    [
        ("list_pods", '{"namespace": prod}', {}, '{"namespace": prod}'),
        ("list_pods", "[1, 2]", {}, "[1, 2]"),
        ("exec_pod", '{"pod": "a"}', {"pod": "a"}, None),
        ("exec_pod", '"just text"', {}, '"just text"'),
    ],
    ids=["invalid-json", "not-an-object", "unknown-tool", "unknown-tool-not-an-object"],
)
def test_the_trace_keeps_arguments_as_an_object_and_the_text_when_they_are_not_one(
    tmp_path: Path, name: str, raw: str, arguments: dict[str, Any], raw_kept: str | None
) -> None:
    gateway, trace, _ = make_gateway(tmp_path, FakeServer())

    outcome = call(gateway, name, raw)

    event = json.loads(trace.read_text().splitlines()[-1])
    assert (outcome.arguments, outcome.raw_arguments) == (arguments, raw_kept)
    assert (event["arguments"], event["raw_arguments"]) == (arguments, raw_kept)


def test_a_call_is_timed_in_milliseconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The gateway's clock reads 10 s when the call starts and 0.0505123 s later when it ends: the
    # duration is that difference in milliseconds to three places, whatever the machine's speed.
    readings = iter([10.0, 10.0505123])
    gateway_module = importlib.import_module("k8s_agent_harness.guards.gateway")
    monkeypatch.setattr(gateway_module.time, "perf_counter", lambda: next(readings, 10.0505123))
    gateway, trace, _ = make_gateway(tmp_path, FakeServer())

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.duration_ms == 50.512
    assert json.loads(trace.read_text())["duration_ms"] == 50.512


def test_raw_arguments_are_echoed_up_to_their_limit() -> None:
    gateway_module = importlib.import_module("k8s_agent_harness.guards.gateway")
    limit = gateway_module.MAX_RAW_ARGUMENTS_ECHO

    assert gateway_module._echo("x" * limit) == "x" * limit
    assert gateway_module._echo("x" * (limit + 3)) == "x" * limit + "... [3 more characters]"


def test_a_call_is_described_on_one_line_cut_at_160_characters() -> None:
    assert describe_call("list_pods", "") == "list_pods({})"
    assert describe_call("get", '{"a":\n   1}') == 'get({"a": 1})'
    assert describe_call("get", "y" * 160) == f"get({'y' * 160})"
    assert describe_call("get", "y" * 161) == f"get({'y' * 159}…)"


# -- what a call leaves behind: evidence, counters, the search's options, the time it was given ----------


def test_a_result_s_evidence_carries_its_call_arguments_structured_content_and_parameters(
    tmp_path: Path,
) -> None:
    structured = {"items": [{"name": "a", "token": "sk-secret-value-123"}]}
    server = FakeServer(
        {
            "get_pod_logs": [
                ToolResult("line one", structured=structured, for_user=("see sk-secret-value-123",))
            ]
        }
    )
    gateway, trace, _ = make_gateway(tmp_path, server)

    outcome = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "call_7")

    redacted = {"items": [{"name": "a", "token": REDACTED}]}
    assert outcome.structured == redacted and outcome.for_user == (f"see {REDACTED}",)
    (kept,) = gateway.evidence.results
    assert (kept.call_id, kept.tool, kept.text, kept.ok) == ("call_7", "get_pod_logs", "line one", True)
    assert json.loads(kept.arguments) == {"name": "a", "namespace": "b"}
    assert kept.structured == redacted and kept.parameters == ("name", "namespace", "tail")
    event = json.loads(trace.read_text().splitlines()[-1])
    assert event["structured_result"] == redacted and event["for_user"] == [f"see {REDACTED}"]
    assert "sk-secret-value-123" not in trace.read_text()


def test_a_failure_s_reason_is_kept_redacted_with_its_call_as_no_evidence(tmp_path: Path) -> None:
    failed = ToolResult("", ToolFailure("denied for token sk-secret-value-123", FailureKind.TOOL_ERROR))
    gateway, _, _ = make_gateway(tmp_path, FakeServer({"get_pod_logs": [failed]}))

    outcome = call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "call_3")

    assert outcome.content == f"Tool call failed (get_pod_logs): denied for token {REDACTED}"
    assert outcome.sha256 is None and outcome.structured is None and outcome.handle is None
    (kept,) = gateway.evidence.results
    assert (kept.call_id, kept.text, kept.ok) == ("call_3", f"denied for token {REDACTED}", False)
    assert json.loads(kept.arguments) == {"name": "a", "namespace": "b"}
    assert kept.parameters == ("name", "namespace", "tail")


def test_the_run_s_counters_count_each_outcome_once(tmp_path: Path) -> None:
    failed = ToolResult("", ToolFailure("boom", FailureKind.TOOL_ERROR))
    gateway, _, _ = make_gateway(tmp_path, FakeServer({"list_pods": [failed]}))

    call(gateway, "list_pods", "{}")  # failed
    call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c2")  # executed
    call(gateway, "get_pod_logs", '{"name": "a", "namespace": "b"}', "c3")  # cached
    call(gateway, "nothing", "{}", "c4")  # unknown
    call(gateway, "nothing", "{}", "c5")  # unknown again
    call(gateway, "get_pod_logs", '{"name": "b", "namespace": "b"}', "c6")  # executed

    stats = gateway._recorder.stats
    assert (stats.tool_calls_executed, stats.tool_calls_failed) == (3, 1)
    assert {str(k): v for k, v in stats.rejected.items() if v} == {"unknown": 2, "duplicate": 1}


def test_a_call_is_given_what_is_left_of_the_time_budget_and_a_listener_for_its_progress(
    tmp_path: Path,
) -> None:
    given: list[tuple[Any, float | None]] = []

    async def listening(on_progress: Any, within: float | None) -> None:
        given.append((on_progress, within))
        on_progress(1, 10, "a tenth")

    now = [0.0]
    gateway, trace, _ = make_gateway(
        tmp_path, FakeServer(on_call=listening), max_seconds=30, clock=lambda: now[0]
    )
    now[0] = 29.5

    assert call(gateway, "list_pods", "{}").kind == "executed"  # half a second left: still run
    (listener, within) = given[0]
    assert callable(listener) and within == 0.5
    progress = [json.loads(line) for line in trace.read_text().splitlines() if '"tool_progress"' in line]
    assert [(p["progress"], p["total"], p["message"], p["notifications"]) for p in progress] == [
        (1, 10, "a tenth", 1)
    ]


def test_no_retry_is_waited_for_past_the_time_budget(tmp_path: Path) -> None:
    busy = ToolResult("", ToolFailure("429", FailureKind.TOOL_ERROR, retryable=True, retry_after=2.0))
    server = FakeServer({"list_pods": [busy, busy]})
    now = [0.0]
    gateway, trace, _ = make_gateway(
        tmp_path, server, max_seconds=10, clock=lambda: now[0], retry=RetryPolicy(attempts=3, max_delay=5)
    )
    now[0] = 8.0  # two seconds left: a retry after two seconds would be past it

    outcome = call(gateway, "list_pods", "{}")

    assert outcome.kind == "failed" and outcome.attempts == 1 and len(server.received) == 1
    assert "tool_retry" not in trace.read_text()


def test_a_retry_is_traced_with_the_server_s_retry_after(tmp_path: Path) -> None:
    busy = ToolResult("", ToolFailure("429", FailureKind.TOOL_ERROR, retryable=True, retry_after=0.01))
    gateway, trace, _ = make_gateway(tmp_path, FakeServer({"list_pods": [busy]}))

    call(gateway, "list_pods", "{}")

    (retry,) = [json.loads(line) for line in trace.read_text().splitlines() if '"tool_retry"' in line]
    assert (retry["attempt"], retry["retry_after"], retry["reason"]) == (1, 0.01, "429")


def test_a_result_of_exactly_the_budget_is_shown_whole(tmp_path: Path) -> None:
    size = Budget(100).result_bytes
    exact = ToolResult("x" * size)
    over = ToolResult("y" * (size + 1))
    gateway, _, _ = make_gateway(tmp_path, FakeServer({"list_pods": [exact, over]}), budget=Budget(100))

    whole = call(gateway, "list_pods", '{"a": 1}')
    cut = call(gateway, "list_pods", '{"a": 2}', "c2")

    assert whole.content == exact.text and whole.handle is None and whole.full is None
    assert cut.handle == "r1" and cut.full == over.text


def test_a_stored_result_keeps_its_structured_content_and_the_search_honours_every_option(
    tmp_path: Path,
) -> None:
    text = "\n".join([*(f"pod-{i:03d} Running" for i in range(300)), "POD-X CrashLoopBackOff"])
    server = FakeServer({"list_pods": [ToolResult(text, structured={"phase": "Unknown-sentinel"})]})
    gateway, _, supervisor = make_gateway(tmp_path, server, budget=Budget(100))
    call(gateway, "list_pods", "{}")
    assert gateway.store.results["r1"].structured == {"phase": "Unknown-sentinel"}
    supervisor.turns += 1

    def search(arguments: dict[str, Any], call_id: str) -> str:
        outcome = call(gateway, "search_results", json.dumps(arguments), call_id)
        assert outcome.kind == "executed", outcome.content
        assert outcome.arguments == arguments
        return outcome.content

    assert search({"pattern": "pod-x"}, "s1").startswith('0 of 302 lines matching "pod-x"')
    assert "r1:301: POD-X CrashLoopBackOff" in search({"pattern": "pod-x", "ignore_case": True}, "s2")
    assert "r1:301:" in search({"pattern": r"POD-\w Crash", "regex": True}, "s3")
    assert search({"pattern": "Running", "invert": True, "handle": "r1"}, "s4").startswith(
        '2 of 302 lines not matching "Running" in r1 (list_pods({}))'
    )
    assert "Unknown-sentinel" in search({"pattern": "sentinel"}, "s5")
    assert "the first 51 shown" in search({"pattern": "Running", "max_matches": 51}, "s6")
    assert "the first 50 shown" in search({"pattern": "Running"}, "s7")
    again = call(gateway, "search_results", '{"pattern": "pod-x"}', "s8")
    assert again.kind == "cached" and again.content.startswith(prompts.DUPLICATE_NUDGE)
    too_long = call(gateway, "search_results", '{"pattern": 7}', "s9")
    assert too_long.kind == "invalid_args" and too_long.content.startswith(
        "Invalid arguments for search_results"
    )


def test_an_allowed_write_by_its_alias_and_the_approval_asked_ahead_with_its_arguments(
    tmp_path: Path,
) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def operator(tool: str, arguments: Mapping[str, Any]) -> bool:
        asked.append((tool, dict(arguments)))
        return True

    writer = ToolSpec(
        "pods.delete",
        "Delete.",
        {"type": "object", "properties": {"name": {"type": "string"}}},
        read_only=False,
    )
    model_alias = "pods_delete"  # the name the model knows pods.delete by
    gateway, _, _ = make_gateway(
        tmp_path, FakeServer(), tools=[writer], approver=operator, allow_write=[model_alias]
    )
    assert gateway.aliases == {"pods.delete": model_alias}

    assert asyncio.run(gateway.approve(model_alias, '{"name": 7}')) is True  # invalid: no question
    assert asyncio.run(gateway.approve(model_alias, "{not json")) is True
    assert asyncio.run(gateway.approve(model_alias, None)) is True and asked == [(model_alias, {})]
    assert asyncio.run(gateway.approve(model_alias, '{"name": "a"}')) is True
    assert asked[-1] == (model_alias, {"name": "a"})
    assert asyncio.run(gateway.approve(model_alias, '{"name": "a"}')) is True and len(asked) == 2  # approved
    assert call(gateway, model_alias, '{"name": "a"}').kind == "executed" and len(asked) == 2
    assert asyncio.run(gateway.approve(model_alias, '{"name": "a"}')) is True and len(asked) == 2  # cached


def test_a_tool_keeps_the_name_the_model_knows_it_by_when_the_list_changes(tmp_path: Path) -> None:
    dotted = ToolSpec("pods.list", "List pods.", {"type": "object"}, read_only=True)
    source = Listing([dotted])
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[dotted], source=source)
    (alias,) = gateway.aliases.values()
    gateway.openai_tools()
    taker = ToolSpec(alias, "A tool named as the alias.", {"type": "object"}, read_only=True)
    source.change([dotted, taker], why="")

    call(gateway, "list_pods", "{}")  # the change is read at the next call

    assert gateway.aliases["pods.list"] == alias and gateway.server_name(alias) == "pods.list"
    newcomer = gateway.aliases[alias]  # the server's new tool takes another name
    assert newcomer != alias and gateway.server_name(newcomer) == alias


def test_a_listing_s_problems_are_warned_and_its_removals_and_changes_traced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = Listing(TOOLS[:2])
    gateway, trace, _ = make_gateway(tmp_path, FakeServer(), tools=TOOLS[:2], source=source)
    reworded = ToolSpec("list_pods", "Reworded.", {"type": "object"}, read_only=True)
    source.listing = ToolListing(1, (reworded,), "", ("paging stopped after 3 pages",))

    call(gateway, "list_pods", "{}")

    assert "paging stopped after 3 pages" in capsys.readouterr().err
    (change,) = [json.loads(line) for line in trace.read_text().splitlines() if '"mcp_tools_changed"' in line]
    assert (change["removed"], change["changed"], change["detail"]) == (
        ["get_pod_logs"],
        ["list_pods"],
        "the server's tools were listed again",
    )


# -- the tool list as the trace records it, repeats, and what runs without a budget --------------------


def test_the_listed_event_records_each_tool_with_the_policy_s_word_and_what_the_model_is_offered(
    tmp_path: Path,
) -> None:
    dotted = ToolSpec("pods.list", "List pods.", {"type": "object"}, read_only=True)
    task = ToolSpec("scan", "Scan.", {"type": "object"}, read_only=True, task_support="required")
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[dotted, task, *TOOLS])

    event = gateway.listed_event("2025-06-18")

    assert [(t.name, t.read_only, t.access) for t in event.tools] == [
        ("pods.list", True, "read"),
        ("scan", True, "read"),
        ("get_pod_logs", True, "read"),
        ("list_pods", True, "read"),
        ("delete_pod", False, "unvetted"),  # not read-only by its hint: a possible write
    ]
    assert all(t.why for t in event.tools)
    assert event.allowed == gateway.names and event.refused == ["delete_pod"]
    assert event.aliases == gateway.aliases and event.tasks_only == ["scan"]
    assert event.server == gateway.policy.server and event.protocol == "2025-06-18"


def test_only_the_same_call_counts_as_a_repeat_rejected_or_not(tmp_path: Path) -> None:
    gateway, _, supervisor = make_gateway(tmp_path, FakeServer(), max_repeats=2)

    outcomes = [
        call(gateway, "nothing_a", "{}", "c1"),
        call(gateway, "nothing_b", "{}", "c2"),
        call(gateway, "list_pods", '{"x": 1}', "c3"),
        call(gateway, "list_pods", '{"x": 2}', "c4"),
        call(gateway, "list_pods", "{bad", "c5"),
    ]

    assert len({o.fingerprint for o in outcomes}) == 5 and supervisor.stop_reason() is None
    call(gateway, "nothing_a", "{}", "c6")
    call(gateway, "nothing_a", "{}", "c7")
    assert supervisor.stop_reason() == "repeated_calls"


def test_without_a_budget_a_large_result_is_shown_whole_and_a_store_given_is_the_one_used(
    tmp_path: Path,
) -> None:
    large = ToolResult("z" * 50_000)
    gateway, _, _ = make_gateway(tmp_path, FakeServer({"list_pods": [large]}))
    assert call(gateway, "list_pods", "{}").content == large.text

    store = ResultStore()
    kept, _, _ = make_gateway(tmp_path, FakeServer({"list_pods": [large]}), store=store, budget=Budget(100))
    call(kept, "list_pods", "{}")
    assert kept.store is store and list(store.results) == ["r1"]


def test_no_alias_takes_the_search_tool_s_name_and_a_renamed_search_tool_keeps_its_description(
    tmp_path: Path,
) -> None:
    dotted = ToolSpec("search.results", "The server's search.", {"type": "object"}, read_only=True)
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[dotted])

    assert gateway.aliases["search.results"] not in ("search_results", "search.results")
    taken = ToolSpec("search_results", "Theirs.", {"type": "object"}, read_only=True)
    renamed, _, _ = make_gateway(tmp_path, FakeServer(), tools=[taken])
    assert renamed.search_tool.description == search_tool_spec("k8s_agent_search_results")["description"]


def test_a_search_is_literal_unless_asked_and_bounded_by_the_budget(tmp_path: Path) -> None:
    text = "\n".join(f"pod-{i:04d} Running {'x' * 200}" for i in range(400))
    gateway, _, supervisor = make_gateway(
        tmp_path, FakeServer({"list_pods": [ToolResult(text)]}), budget=Budget(100)
    )
    call(gateway, "list_pods", "{}")
    supervisor.turns += 1

    literal = call(gateway, "search_results", '{"pattern": "pod-00.1"}', "s1").content
    matches = call(gateway, "search_results", '{"pattern": "Running", "max_matches": 200}', "s2").content

    assert literal.startswith('0 of 400 lines matching "pod-00.1"')
    assert matches.startswith("400 of 400 lines matching") and "the first" in matches
    assert len(matches.encode()) <= gateway.budget.result_bytes + 200


def test_a_retry_without_a_retry_after_waits_the_policy_s_backoff(tmp_path: Path) -> None:
    busy = ToolResult("", ToolFailure("503", FailureKind.TOOL_ERROR, retryable=True))
    gateway, trace, _ = make_gateway(
        tmp_path, FakeServer({"list_pods": [busy, busy]}), retry=RetryPolicy(attempts=3, base_delay=0.001)
    )

    assert call(gateway, "list_pods", "{}").attempts == 3
    delays = [
        json.loads(line)["delay_s"] for line in trace.read_text().splitlines() if '"tool_retry"' in line
    ]
    assert delays == [0.001, 0.002]


def test_progress_is_traced_at_first_then_at_most_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])

    async def chatty(on_progress: Any, within: float | None) -> None:
        for at, done in ((100.0, 1), (100.5, 2), (101.0, 3), (101.2, 4), (102.5, 5)):
            clock[0] = at
            on_progress(done, 5, None)

    gateway, trace, _ = make_gateway(tmp_path, FakeServer(on_call=chatty))
    call(gateway, "list_pods", "{}")

    progress = [json.loads(line) for line in trace.read_text().splitlines() if '"tool_progress"' in line]
    assert [(p["progress"], p["notifications"]) for p in progress] == [(1, 1), (3, 3), (5, 5)]


def test_a_tool_that_writes_by_its_arguments_is_asked_about_ahead_only_in_its_writing_form(
    tmp_path: Path,
) -> None:
    asked: list[dict[str, Any]] = []

    async def operator(tool: str, arguments: Mapping[str, Any]) -> bool:
        asked.append(dict(arguments))
        return False

    context = ToolSpec(
        "kubectl_context",
        "Contexts.",
        {"type": "object", "properties": {"operation": {"type": "string"}}},
        read_only=True,
    )
    policy = ReadPolicy.of("kubernetes", allow_write=["kubectl_context"])
    gateway, _, _ = make_gateway(tmp_path, FakeServer(), tools=[context], policy=policy, approver=operator)

    assert asyncio.run(gateway.approve("kubectl_context", '{"operation": "get"}')) is True
    assert asyncio.run(gateway.approve("kubectl_context", '{"operation": "set"}')) is False
    assert asked == [{"operation": "set"}]
    assert gateway.listed_event().server == "kubernetes"


def test_a_rejected_call_s_fingerprint_is_its_name_and_arguments(tmp_path: Path) -> None:
    gateway, _, supervisor = make_gateway(tmp_path, FakeServer(), max_repeats=1)

    first = call(gateway, "nothing", '{"x": 1}', "c1")
    second = call(gateway, "nothing", '{"x": 2}', "c2")

    assert first.fingerprint != second.fingerprint and supervisor.stop_reason() is None
