"""`baseline:rules`, the events reader (k8s_agent_scripted_llm/baseline_rules.py), driven turn by turn
against the mock cluster in process: the calls it puts on the wire, and the report it writes.

Each rule has a cluster of its own (tests/clusters.py, or written here): an OOMKilled pod, a Warning
that is not a back-off, a cause read from the logs, a pod told by its STATUS alone, a Job's Warning,
nodes in trouble. Its quotes are checked by the harness's own verification. The same reader through
kubernetes-mcp-server's tools is tested in tests/integration/test_baselines_on_kubernetes_mcp_server.py.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.report import instructions, parse_report, response_format
from k8s_agent_harness.evidence.verification import verify
from k8s_agent_mock_cluster import Cluster, Invalid, NotFound, load_fixture
from k8s_agent_scripted_llm import Reply, responder_for
from k8s_agent_scripted_llm.baseline_rules import rules
from tests.clusters import (
    READER_JOB,
    READER_LIVENESS,
    READER_LOG_LINE,
    READER_SCHEDULING,
    events_reader_fixture,
    nodes_in_trouble_fixture,
    offered_tools,
)

ORDERS = "Which pods in the orders namespace are unhealthy, and why?"
FORMATS = {
    "json_schema": {"response_format": response_format()},
    "json_text": {"system": "You are an SRE.\n" + instructions()},
    "prose": {"system": "You are an SRE."},
}


def cluster_of(fixture: dict[str, Any], tmp_path: Path) -> Cluster:
    """The fixture as the mock cluster serves it (its defaults filled in)."""
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(fixture))
    return Cluster(load_fixture(path))


def play(
    cluster: Cluster, question: str, *, report_format: str = "json_schema", max_turns: int = 8
) -> tuple[list[list[tuple[str, dict[str, Any]]]], str, list[ToolText]]:
    """Ask the reader turn by turn, running its calls on `cluster` as the harness would. Returns the
    calls of each turn (as they went on the wire), the final answer, and every tool result."""
    request = dict(FORMATS[report_format])
    system = request.pop("system", None)
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    tools = offered_tools()
    turns: list[list[tuple[str, dict[str, Any]]]] = []
    results: list[ToolText] = []
    for turn in range(max_turns):
        step = rules({"messages": messages, "tools": tools, "tool_choice": "required", **request})
        assert isinstance(step, Reply)
        if not step.tool_calls:
            return turns, step.content or "", results
        ids = [f"t{turn}-{n}" for n in range(len(step.tool_calls))]
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for i, c in zip(ids, step.tool_calls, strict=True)
                ],
            }
        )
        turns.append([(c.name, json.loads(c.arguments)) for c in step.tool_calls])
        for call_id, call in zip(ids, step.tool_calls, strict=True):
            failed = None
            try:
                text = getattr(cluster, call.name)(**json.loads(call.arguments))
            except (NotFound, Invalid) as error:
                failed, text = str(error), f"Tool call failed ({call.name}): {error}"
            parameters = tuple(inspect.signature(getattr(cluster, call.name)).parameters)
            results.append(
                ToolText(
                    call_id,
                    call.name,
                    failed or text,
                    call.arguments,
                    ok=failed is None,
                    parameters=parameters,
                )
            )
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
    raise AssertionError(f"no report after {max_turns} turns")


def checked_report(answer: str, results: list[ToolText]) -> dict[str, Any]:
    """The JSON report as the harness reads and verifies it: every quote must check out."""
    report, problem = parse_report(answer)
    assert report is not None, problem
    verification = verify(report, results)
    assert verification.problems == []
    checked: dict[str, Any] = verification.report.model_dump(mode="json")
    return checked


def found(report: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """Each finding's name -> (cause, its one quote, the tool it quotes)."""
    return {
        f["name"]: (f["cause"], f["evidence"][0]["text"], f["evidence"][0]["tool"])
        for f in report["findings"]
        if len(f["evidence"]) == 1
    }


def test_each_pod_s_cause_is_the_first_line_that_tells_it(tmp_path: Path) -> None:
    _, answer, results = play(cluster_of(events_reader_fixture(), tmp_path), ORDERS)
    report = checked_report(answer, results)

    assert found(report) == {
        "basket-6c7d8e9f0-q2w4x": ("oom_killed", "Reason:       OOMKilled", "describe_pod"),
        "courier-5b6c7d8e9-k8m2n": ("liveness_probe_failure", READER_LIVENESS, "get_events"),
        "ledger-4a5b6c7d8-r7t9v": ("crash_config", READER_LOG_LINE, "get_pod_logs"),
        "receipts-3f4d5c6b7-h3j5k": (
            "image_pull_failed",
            "orders      receipts-3f4d5c6b7-h3j5k   0/1     ImagePullBackOff   0          2d    worker-1",
            "list_pods",
        ),
        "pricing-2b3c4d5e6-z6x8c": ("node_selector_mismatch", READER_SCHEDULING, "get_events"),
        "settle-28861440-x7k2p": ("job_backoff_limit", READER_JOB, "get_events"),
    }
    assert report["scope"] == "pods in namespace orders" and report["healthy"]["count"] == 2
    assert all(q["verified"] for f in report["findings"] for q in f["evidence"])


def test_it_lists_then_describes_and_reads_events_then_reads_only_the_logs_it_still_needs(
    tmp_path: Path,
) -> None:
    turns, _, _ = play(cluster_of(events_reader_fixture(), tmp_path), ORDERS)

    listing, details, logs = turns
    assert listing == [("list_pods", {"namespace": "orders"})]
    assert sorted(call for call, _ in details) == ["describe_pod"] * 6 + ["get_events"]
    assert ("get_events", {"namespace": "orders", "type": "Warning"}) in details
    # The OOMKilled pod, the one with a Warning and the Job's pod are told without their logs.
    assert logs == [
        (
            "get_pod_logs",
            {
                "container": "ledger",
                "name": "ledger-4a5b6c7d8-r7t9v",
                "namespace": "orders",
                "previous": True,
            },
        )
    ]


def test_a_back_off_and_a_bare_status_word_are_no_cause_and_a_log_without_an_error_line_leaves_the_status(
    tmp_path: Path,
) -> None:
    def pod(name: str, status: str, **container: Any) -> dict[str, Any]:
        return {
            "name": name,
            "namespace": "web",
            "status": status,
            "node": "node-1",
            "containers": [{"name": name.split("-")[0], "image": "ghcr.io/acme/x:1", **container}],
        }

    def warning(pod_name: str, reason: str, message: str) -> dict[str, Any]:
        return {
            "namespace": "web",
            "object": f"pod/{pod_name}",
            "type": "Warning",
            "reason": reason,
            "message": message,
        }

    pulled = 'Failed to pull image "ghcr.io/acme/x:9": rpc error: code = NotFound desc = manifest unknown'
    fixture = {
        "nodes": [{"name": "node-1", "status": "Ready"}],
        "pods": [
            pod("gallery-5d6c7b8a9-aaaa1", "ErrImagePull", state={"waiting": {"reason": "ErrImagePull"}}),
            pod(
                "search-5d6c7b8a9-bbbb2",
                "CrashLoopBackOff",
                restarts=2,
                state={"waiting": {"reason": "CrashLoopBackOff"}},
                last_state={"terminated": {"reason": "Completed", "exit_code": 0}},
                previous_logs=["indexing", "done, exiting"],
            ),
        ],
        "events": [
            warning("gallery-5d6c7b8a9-aaaa1", "Failed", "Error: ErrImagePull"),
            warning("gallery-5d6c7b8a9-aaaa1", "Failed", pulled),
            warning(
                "search-5d6c7b8a9-bbbb2", "BackOff", "Back-off restarting failed container search in pod x"
            ),
        ],
    }
    _, answer, results = play(cluster_of(fixture, tmp_path), "Is anything wrong in the web namespace?")

    causes = found(checked_report(answer, results))
    assert causes["gallery-5d6c7b8a9-aaaa1"] == ("image_not_found", pulled, "get_events")
    assert causes["search-5d6c7b8a9-bbbb2"][0::2] == ("crash_application", "list_pods")


def test_without_a_previous_instance_it_reads_the_current_logs(tmp_path: Path) -> None:
    fixture = {
        "nodes": [{"name": "node-1", "status": "Ready"}],
        "pods": [
            {
                "name": "mailer-6f5e4d3c2-aaaa1",
                "namespace": "mail",
                "status": "CrashLoopBackOff",
                "node": "node-1",
                "containers": [
                    {
                        "name": "mailer",
                        "image": "ghcr.io/acme/mailer:2",
                        "restarts": 5,
                        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                        "logs": ["mailer 2.0", "panic: send on closed channel"],
                    }
                ],
            }
        ],
        "events": [],
    }
    turns, answer, results = play(cluster_of(fixture, tmp_path), "Is anything wrong in the mail namespace?")

    assert [call for call, _ in turns[2]] == ["get_pod_logs"] and turns[2][0][1]["previous"] is True
    assert turns[3] == [
        ("get_pod_logs", {"container": "mailer", "name": "mailer-6f5e4d3c2-aaaa1", "namespace": "mail"})
    ]
    assert found(checked_report(answer, results))["mailer-6f5e4d3c2-aaaa1"] == (
        "crash_application",
        "panic: send on closed channel",
        "get_pod_logs",
    )


def test_a_namespace_the_question_names_as_a_word_narrows_the_listing_of_all(tmp_path: Path) -> None:
    cluster = cluster_of(events_reader_fixture(), tmp_path)

    turns, answer, results = play(cluster, "Did the last deploy break anything in orders?")
    everything = play(cluster, "Which pods are unhealthy?")

    assert turns[0] == [("list_pods", {})]
    narrowed = checked_report(answer, results)
    assert narrowed["scope"] == "pods in namespace orders"
    assert "stray-9z8y7x6w5-w2e4r" not in found(narrowed) and len(narrowed["findings"]) == 6
    assert "stray-9z8y7x6w5-w2e4r" in found(checked_report(everything[1], everything[2]))


def test_a_question_about_nodes_reports_the_nodes_in_trouble_and_the_unhealthy_pods_on_them(
    tmp_path: Path,
) -> None:
    turns, answer, results = play(
        cluster_of(nodes_in_trouble_fixture(), tmp_path),
        "Are any nodes in trouble, and which pods do they affect?",
    )
    report = checked_report(answer, results)

    assert sorted(call for call, _ in turns[0]) == ["list_nodes", "list_pods"]
    assert sorted(arguments["name"] for _, arguments in turns[1]) == ["rack-a", "rack-b", "rack-c"]
    assert found(report) == {
        "rack-b": ("node_not_ready", "Node rack-b status is now: NodeNotReady", "describe_node"),
        "rack-c": ("node_pressure", "Node rack-c status is now: NodeHasDiskPressure", "describe_node"),
        "cart-7c8d9e0f1-n3b5v": ("node_not_ready", "Node is not ready", "get_events"),
        "thumbs-6b7c8d9e0-s8d2f": (
            "evicted",
            "The node was low on resource: ephemeral-storage.",
            "get_events",
        ),
    }  # the crashing pod on the healthy node is not what the question asks about


def test_beyond_ten_unhealthy_pods_it_reports_the_rest_from_their_status_and_says_so(tmp_path: Path) -> None:
    fixture = {
        "nodes": [{"name": "node-1", "status": "Ready"}],
        "pods": [
            {
                "name": f"worker-5c6d7e8f9-{n:05d}",
                "namespace": "batch",
                "status": "Pending",
                "containers": [{"name": "worker", "image": "ghcr.io/acme/worker:1"}],
            }
            for n in range(12)
        ],
        "events": [],
    }
    turns, answer, results = play(
        cluster_of(fixture, tmp_path), "Which pods in the batch namespace are unhealthy?"
    )
    report = checked_report(answer, results)

    assert [call for call, _ in turns[1]].count("describe_pod") == 10
    assert len(report["findings"]) == 12 and {f["cause"] for f in report["findings"]} == {"unschedulable"}
    assert any("2 more unhealthy pods beyond the first 10" in line for line in report["unchecked"])


@pytest.mark.parametrize("report_format", list(FORMATS))
def test_it_answers_in_the_report_format_asked(report_format: str, tmp_path: Path) -> None:
    _, answer, results = play(
        cluster_of(events_reader_fixture(), tmp_path), ORDERS, report_format=report_format
    )

    if report_format == "prose":
        assert not answer.lstrip().startswith(("{", "```"))
        assert (
            f"- ledger-4a5b6c7d8-r7t9v: CrashLoopBackOff, READY 0/1, 4 restarts (crash_config). Evidence: {READER_LOG_LINE}"
            in answer
        )
        return
    assert answer.startswith("```json\n") == (report_format == "json_text")
    assert len(checked_report(answer, results)["findings"]) == 6


def test_given_no_tool_it_knows_it_reports_nothing_and_calls_nothing() -> None:
    step = rules(
        {
            "messages": [{"role": "user", "content": ORDERS}],
            "tools": [{"type": "function", "function": {"name": "kubectl"}}],
            "response_format": response_format(),
        }
    )

    assert isinstance(step, Reply) and not step.tool_calls
    assert json.loads(step.content or "")["findings"] == []


def test_it_is_served_by_its_name() -> None:
    assert responder_for("baseline:rules") is rules
