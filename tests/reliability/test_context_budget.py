"""The context budget on the wire: large results excerpted and searchable, the per-turn cap, the
history compacted oldest first, every request within the budget, both agents byte for byte alike
in what the model sees."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import OFFLINE, PAYMENT
from k8s_agent_harness.config import APIS
from k8s_agent_harness.model.context import BYTES_PER_TOKEN, SEARCH_TOOL
from k8s_agent_harness.traces.events import STORED_TEXT_MAX
from k8s_agent_mock_cluster.synthetic import PLANTED, cluster
from k8s_agent_scripted_llm import Step, calls, raw_tool, text, tool
from tests.conftest import AgentRun, RunAgent, assert_every_call_answered, run_scenario
from tests.wire import said, wire_view

QUESTION = "Which pods in the production namespace are unhealthy, and why?"


@pytest.fixture(scope="module")
def big_cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clusters") / "pods-5000.json"
    path.write_text(json.dumps(cluster(5000)))
    return path


def request_sizes(run: AgentRun) -> list[int]:
    """The size of each request body as the model server received it (compact JSON), on either wire."""
    return [len(json.dumps(body, separators=(",", ":")).encode()) for body in run.sent]


def tools_offered(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def test_the_offline_model_on_5000_pods_finds_every_failure_within_the_budget(
    big_cluster: Path, tmp_path: Path
) -> None:
    runs = {
        impl: run_scenario(impl, OFFLINE, tmp_path / impl, cluster=big_cluster)
        for impl in ("handwritten", "sdk")
    }

    for impl, run in runs.items():
        assert max(request_sizes(run)) <= 32_000 * BYTES_PER_TOKEN, impl
        assert sum(request_sizes(run)) <= 512 * 1024, impl
        assert all(pod in run.answer for pod in PLANTED), impl
        assert len(run.answer.encode()) <= 16 * 1024
        assert "5 unhealthy, 4,995 healthy." in run.answer and "Healthy: 4,995, for example" in run.answer
        assert run.result is not None and run.result.verified is True  # every quote found in a full result
        assert {f.name for f in run.result.report.findings} == set(PLANTED)  # type: ignore[union-attr]
        listing = next(e for e in run.trace if e["kind"] == "tool_call" and e["tool"] == "list_pods")
        assert listing["handle"] == "r1" and len(listing["full_result"]) > 400_000  # kept whole in the trace
        assert listing["result"].startswith(
            '[Result r1 of list_pods({"namespace": "production"}): 5,003 lines'
        )
        assert SEARCH_TOOL not in tools_offered(run.requests[0])  # offered once a result is stored
        assert tools_offered(run.requests[1])[-1] == SEARCH_TOOL
    assert wire_view(runs["sdk"].requests) == wire_view(runs["handwritten"].requests)


def test_a_reply_with_500_calls_runs_the_cap_and_the_rest_stay_out_of_the_conversation(
    run_agent: RunAgent,
) -> None:
    """A model that proposes more than a turn may hold is not bad input: the calls beyond the cap
    are not run and never enter the conversation (no "not run" answers filling the context), one
    message says so, and the run goes on to its report."""
    flood = calls(*[tool("get_events", namespace=f"ns-{n}") for n in range(500)])

    run = run_agent([flood, text("Enough.")])

    assert run.answer == "Enough."
    assert len(run.calls) == 24  # the server received the first 24 only
    second = run.requests[1]["messages"]
    (turn,) = [m for m in second if m["role"] == "assistant"]
    assert [c["function"]["arguments"] for c in turn["tool_calls"]] == [
        json.dumps({"namespace": f"ns-{n}"}) for n in range(24)
    ]
    assert len(run.tool_messages(1)) == 24  # C10: every id on the wire answered, in order
    note = second[-1]
    assert note["role"] == "user"
    assert note["content"].startswith("476 of the tool calls of your last answer are left out")
    assert "your answer proposed 500: the first 24 ran" in note["content"]
    assert run.result is not None and run.result.stats.rejected["skipped"] == 476


def test_the_cap_follows_the_order_the_model_proposed_the_calls_in(run_agent: RunAgent) -> None:
    mixed = calls(tool("delete_pod", name=PAYMENT), tool("list_nodes"), tool("list_pods"), tool("get_events"))

    run = run_agent([mixed, text("Done.")], max_calls_per_turn=2)

    contents = [m["content"] for m in run.tool_messages(1)]
    assert contents[0].startswith("Unknown tool 'delete_pod'")  # call 1: within the cap, rejected
    assert contents[1].startswith("NAME ")  # call 2: run
    assert len(contents) == 2  # calls 3 and 4: not run, left out
    assert run.called_tools == ["list_nodes"]


def test_a_call_whose_name_no_tool_can_have_is_answered_once_and_then_left_out(run_agent: RunAgent) -> None:
    long_name = "list_pods_" + "x" * 100_000
    answer = calls(tool("list_pods", namespace="production"), tool(long_name))

    run = run_agent([answer, text("Done.")])

    assert run.answer == "Done."
    assert run.called_tools == ["list_pods"]
    second = json.dumps(run.sent[1])
    assert "x" * 1000 not in second  # neither the call nor an answer that repeats its name
    assert len(second) < 64_000
    note = run.requests[1]["messages"][-1]["content"]
    assert "1 named no tool (a tool's name is at most 128 characters; one had 100,010)" in note
    (unknown,) = [e for e in run.events("tool_call") if e["outcome"] == "unknown"]
    assert (
        unknown["result"].startswith("Unknown tool 'list_pods_xxx")
        and "(100,010 characters)" in unknown["result"]
    )


def huge_log_cluster(path: Path, line: str, lines: int = 1) -> Path:
    data = cluster(5)
    pod = next(p for p in data["pods"] if p["name"] == PLANTED[0])
    pod["containers"][0]["logs"] = [line] * lines
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("shape", "line", "lines"),
    [
        ("5 MB of lines", "x" * 5000 + " needle", 1000),
        ("one 20 MB line", "y" * 20_000_000 + " needle", 1),
        ("one JSON document", json.dumps({"items": [{"id": n, "ok": True} for n in range(200_000)]}), 1),
    ],
)
def test_a_huge_result_is_excerpted_searchable_and_kept_in_the_trace(
    impl: str, tmp_path: Path, shape: str, line: str, lines: int
) -> None:
    fixture = huge_log_cluster(tmp_path / "huge.json", line, lines)
    search = raw_tool(SEARCH_TOOL, json.dumps({"pattern": "needle", "handle": "r1"}))
    script = [
        calls(tool("get_pod_logs", name=PLANTED[0], namespace="production", tail=1000)),
        calls(search),
        text("The logs are long."),
    ]

    run = run_scenario(impl, script, tmp_path / "run", QUESTION, cluster=fixture)

    sizes = request_sizes(run)
    assert sizes[1] < 256 * 1024 and max(sizes) <= 32_000 * BYTES_PER_TOKEN, shape
    excerpt = run.tool_messages(1)[0]["content"]
    assert excerpt.startswith("[Result r1 of get_pod_logs(") and "too large to show whole" in excerpt
    found = run.tool_messages(2)[0]["content"]
    expected = f'{lines if "needle" in line else 0} of {lines} lines matching "needle" in r1'
    assert found.startswith(expected), found[:300]
    assert len(found.encode()) <= 32_000 * BYTES_PER_TOKEN // 8 + 1024  # the search answer is bounded too
    (logs,) = [e for e in run.trace if e["kind"] == "tool_call" and e["tool"] == "get_pod_logs"]
    # the trace keeps the whole result, up to what a trace keeps of one text (it says when it cut)
    assert logs["handle"] == "r1" and len(logs["full_result"]) >= min(len(line), STORED_TEXT_MAX)


def chatty_cluster(path: Path, log_lines: int) -> tuple[Path, list[str]]:
    """Sixty pods whose logs are `log_lines` lines of about 50 bytes."""
    data = cluster(60)
    for pod in data["pods"]:
        pod["containers"][0]["logs"] = [f"{pod['name']} log line {n:03d} all fine" for n in range(log_lines)]
    path.write_text(json.dumps(data))
    return path, [pod["name"] for pod in data["pods"]]


def compaction_runs(
    tmp_path: Path, log_lines: int, api: str, first: Sequence[Step] = (), pods_read: int = 20
) -> dict[str, AgentRun]:
    """Both agents reading the logs of `pods_read` chatty pods one turn each (after the `first` steps),
    on a budget of 4,000 tokens."""
    fixture, pods = chatty_cluster(tmp_path / "chatty.json", log_lines)
    script = [
        *first,
        *[
            calls(tool("get_pod_logs", name=pod, namespace="production", tail=100))
            for pod in pods[:pods_read]
        ],
        text("Read them all."),
    ]
    runs = {
        impl: run_scenario(
            impl,
            script,
            tmp_path / impl,
            QUESTION,
            cluster=fixture,
            context_budget=4_000,
            max_steps=30,
            api=api,
        )
        for impl in ("handwritten", "sdk")
    }
    if api == "responses":  # the compacted input items as sent are the same JSON for both agents
        assert [said(body) for body in runs["sdk"].sent] == [said(body) for body in runs["handwritten"].sent]
    return runs


@pytest.mark.parametrize("api", APIS)
def test_compaction_makes_the_oldest_large_results_stubs_first(tmp_path: Path, api: str) -> None:
    runs = compaction_runs(tmp_path, log_lines=30, api=api)  # 1.5 KB results: worth a stub

    for impl, run in runs.items():
        assert max(request_sizes(run)) <= 4_000 * BYTES_PER_TOKEN, impl
        for body in run.requests:
            results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
            stubs = [
                content.startswith("[Result r") and "taken out of the conversation" in content
                for content in results
            ]
            assert stubs == sorted(stubs, reverse=True), impl  # every stub before every whole result
            assert not stubs or not stubs[-1]  # the latest result is never a stub while older ones can be
        assert any("taken out of the conversation" in json.dumps(body) for body in run.requests)
    assert wire_view(runs["sdk"].requests) == wire_view(runs["handwritten"].requests)


@pytest.mark.parametrize("api", APIS)
def test_when_stubs_are_not_enough_the_oldest_turns_leave_for_one_note(tmp_path: Path, api: str) -> None:
    runs = compaction_runs(tmp_path, log_lines=8, api=api)  # small results: they leave with their turns

    for impl, run in runs.items():
        assert max(request_sizes(run)) <= 4_000 * BYTES_PER_TOKEN, impl
        last = run.requests[-1]["messages"]
        notes = [m["content"] for m in last if m["role"] == "user" and "earlier model turns" in m["content"]]
        assert len(notes) == 1 and "their results are stored as r1, r2" in notes[0]
        kept = [m["tool_call_id"] for m in last if m["role"] == "tool"]
        every = [m["tool_call_id"] for body in run.requests for m in body["messages"] if m["role"] == "tool"]
        ordered = list(dict.fromkeys(every))
        assert kept == ordered[-len(kept) :]  # the latest turns stay, whole and in order
        assert_every_call_answered([run.requests[-1]])
    assert wire_view(runs["sdk"].requests) == wire_view(runs["handwritten"].requests)


@pytest.mark.parametrize("api", APIS)
def test_a_long_answer_and_long_arguments_are_cut_alike_by_both_agents(tmp_path: Path, api: str) -> None:
    long_arguments = json.dumps({"name": "checkout", "namespace": "production", "note": "n" * 3000})
    first = [
        text("Looking at it. " * 800),  # 12 KB, before any tool: pushed back, kept in the conversation cut
        calls(raw_tool("get_pod_logs", long_arguments)),  # 3 KB of arguments: cut once older turns must go
    ]
    runs = compaction_runs(tmp_path, log_lines=30, api=api, first=first, pods_read=11)

    for impl, run in runs.items():
        assert max(request_sizes(run)) <= 4_000 * BYTES_PER_TOKEN, impl
        sent = [json.dumps(body) for body in run.sent]
        assert any("more bytes of this answer, cut to keep the conversation" in body for body in sent), impl
        assert "Looking at it. " * 800 not in "".join(sent), impl  # never sent whole
        assert any("[arguments of 3,0" in body for body in sent), impl
    assert wire_view(runs["sdk"].requests) == wire_view(runs["handwritten"].requests)
    if api == "responses":  # the input items as sent are the same JSON (on Chat the SDK writes its own way)
        assert [said(body) for body in runs["sdk"].sent] == [said(body) for body in runs["handwritten"].sent]


def test_a_question_too_large_for_the_budget_is_a_clear_error(run_agent: RunAgent) -> None:
    run = run_agent([], "Why? " + "x" * 40_000, context_budget=4_000, check_script=False)

    assert run.result is None and run.error is not None and run.error.exit_code == 2
    assert "more than the context budget of 4,000 leaves room for: raise --context-budget" in str(run.error)
    assert run.requests == []


def test_text_no_request_could_carry_reaches_the_model_escaped_not_as_a_crash(
    impl: str, tmp_path: Path
) -> None:
    data = cluster(5)
    pod = next(p for p in data["pods"] if p["name"] == PLANTED[0])
    pod["containers"][0]["logs"] = ["bad bytes: \udcff\udcfe end", "café ok", "\x00\x07 control"]
    fixture = tmp_path / "odd.json"
    fixture.write_text(json.dumps(data))

    run = run_scenario(
        impl,
        [calls(tool("get_pod_logs", name=PLANTED[0], namespace="production")), text("Read.")],
        tmp_path / "run",
        QUESTION,
        cluster=fixture,
    )

    (logs,) = run.tool_messages(1)
    assert "bad bytes: \\udcff\\udcfe end" in logs["content"] and "café ok" in logs["content"]
    assert run.answer == "Read."
