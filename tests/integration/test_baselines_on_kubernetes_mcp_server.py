"""The baselines on kubernetes-mcp-server's tools, and one scorer for both surfaces.

The clusters are the events reader's own (tests/clusters.py), served by the real Go server over a fake
Kubernetes API (`ask --cluster FILE --cluster-server kubernetes-mcp-server`, `eval --cluster-server`).
The floor on a surface must be a floor on that surface: each baseline plays with the Go server's
tools there, and the same incident, answered the same, scores the same on either server.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.eval.corpus import Incident, Resource
from k8s_agent.eval.kube_surface import serve_incident
from k8s_agent.eval.score import score
from k8s_agent_harness.evidence.provenance import Source
from k8s_agent_harness.evidence.report import Cause, HealthReport
from k8s_agent_harness.evidence.verification import verify
from k8s_agent_mock_cluster import Cluster, load_fixture
from tests.clusters import (
    READER_JOB,
    READER_LIVENESS,
    READER_LOG_LINE,
    READER_SCHEDULING,
    events_reader_fixture,
    nodes_in_trouble_fixture,
)
from tests.integration.test_kube_surface import ask_offline
from tests.processes import k8s_agent

ORDERS = "Which pods in the orders namespace are unhealthy, and why?"
RACKS = "Are any nodes in trouble, and which pods do they affect?"
SCHEDULING_FACT = "2 node(s) didn't match Pod's node affinity/selector"


def fixture_file(tmp_path: Path, fixture: dict[str, Any], name: str = "cluster.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(fixture))
    return path


def ask_baseline(
    tmp_path: Path, binary: Path, model: str, question: str, fixture: Path, *flags: str, exit_code: int = 0
) -> dict[str, Any]:
    done = ask_offline(tmp_path, binary, question, "--model", model, "--cluster", str(fixture), *flags)
    assert done.returncode == exit_code, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("report_format", ["json_schema", "json_text"])
def test_the_events_reader_reads_each_cause_with_the_go_server_s_tools(
    report_format: str, kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    fixture = fixture_file(tmp_path, events_reader_fixture())
    result = ask_baseline(
        tmp_path, kubernetes_mcp_server, "baseline:rules", ORDERS, fixture, "--report-format", report_format
    )

    assert result["report_verified"] is True
    quoted = {
        f["name"]: (f["cause"], f["evidence"][0]["tool"], f["evidence"][0]["text"])
        for f in result["report"]["findings"]
    }
    assert {name: cause_and_tool for name, (*cause_and_tool, _) in quoted.items()} == {
        "basket-6c7d8e9f0-q2w4x": ["oom_killed", "pods_get"],
        "courier-5b6c7d8e9-k8m2n": ["liveness_probe_failure", "events_list"],
        "ledger-4a5b6c7d8-r7t9v": ["crash_config", "pods_log"],
        "receipts-3f4d5c6b7-h3j5k": ["image_pull_failed", "pods_list_in_namespace"],
        "pricing-2b3c4d5e6-z6x8c": ["node_selector_mismatch", "events_list"],
        "settle-28861440-x7k2p": ["job_backoff_limit", "events_list"],
    }
    assert quoted["basket-6c7d8e9f0-q2w4x"][2] == "reason: OOMKilled"
    assert quoted["ledger-4a5b6c7d8-r7t9v"][2] == READER_LOG_LINE
    # Quoted as the Go server prints them: the event's Message key, a YAML scalar, apostrophes doubled.
    assert quoted["courier-5b6c7d8e9-k8m2n"][2] == f"Message: '{READER_LIVENESS}'"
    assert quoted["pricing-2b3c4d5e6-z6x8c"][2] == "Message: '" + READER_SCHEDULING.replace("'", "''") + "'"
    assert quoted["settle-28861440-x7k2p"][2] == f"Message: {READER_JOB}"


def test_the_events_reader_writes_prose_with_the_go_server_s_tools(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    fixture = fixture_file(tmp_path, events_reader_fixture())
    result = ask_baseline(
        tmp_path, kubernetes_mcp_server, "baseline:rules", ORDERS, fixture, "--report-format", "prose"
    )

    assert result["report"] is None
    assert (
        f"- ledger-4a5b6c7d8-r7t9v: CrashLoopBackOff, READY 0/1, 4 restarts (crash_config). Evidence: {READER_LOG_LINE}"
        in result["answer"]
    )


def test_the_events_reader_reports_nodes_in_trouble_and_their_pods_with_the_go_server_s_tools(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    fixture = fixture_file(tmp_path, nodes_in_trouble_fixture())
    result = ask_baseline(tmp_path, kubernetes_mcp_server, "baseline:rules", RACKS, fixture)

    assert result["report_verified"] is True
    assert {f["name"]: (f["cause"], f["evidence"][0]["tool"]) for f in result["report"]["findings"]} == {
        "rack-b": ("node_not_ready", "events_list"),
        "rack-c": ("node_pressure", "events_list"),
        "cart-7c8d9e0f1-n3b5v": ("node_not_ready", "events_list"),
        "thumbs-6b7c8d9e0-s8d2f": ("evicted", "events_list"),
    }


def test_the_status_reader_and_the_parrot_play_on_the_go_server_s_tools(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    fixture = fixture_file(tmp_path, events_reader_fixture())
    (tmp_path / "parrot").mkdir()
    status = ask_baseline(tmp_path, kubernetes_mcp_server, "baseline:status", ORDERS, fixture)
    # the parrot reads nothing of the cluster: its report of no finding is no sign of health (exit 7)
    parrot = ask_baseline(
        tmp_path / "parrot", kubernetes_mcp_server, "baseline:parrot", ORDERS, fixture, exit_code=7
    )

    listed = status["report"]["findings"]
    assert {f["name"] for f in listed} == {
        "basket-6c7d8e9f0-q2w4x", "courier-5b6c7d8e9-k8m2n", "ledger-4a5b6c7d8-r7t9v",
        "receipts-3f4d5c6b7-h3j5k", "pricing-2b3c4d5e6-z6x8c", "settle-28861440-x7k2p",
    }  # fmt: skip
    assert all(q["tool"] == "pods_list_in_namespace" and q["verified"] for f in listed for q in f["evidence"])
    assert parrot["tool_calls_executed"] == 0 and parrot["report"]["findings"] == []
    assert parrot["cluster_read"] is False


# -- one scorer for both surfaces -----------------------------------------------------------------------


def incident_folder(corpus: Path, name: str, fixture: dict[str, Any], truth: dict[str, Any]) -> Path:
    folder = corpus / name
    folder.mkdir(parents=True)
    fixture_file(folder, fixture)
    (folder / "truth.json").write_text(json.dumps(truth))
    return folder


def reader_corpus(corpus: Path) -> None:
    """Two incidents made of the events reader's clusters, each fact as the cluster says it."""

    def pod(name: str, cause: str, fact: str, namespace: str = "orders") -> dict[str, Any]:
        return {"kind": "pod", "name": name, "namespace": namespace, "cause": cause, "fact": fact}

    incident_folder(
        corpus,
        "orders-events",
        events_reader_fixture(),
        {
            "question": ORDERS,
            "unhealthy": [
                pod("basket-6c7d8e9f0-q2w4x", "oom_killed", "Reason: OOMKilled"),
                pod("courier-5b6c7d8e9-k8m2n", "liveness_probe_failure", READER_LIVENESS),
                pod("ledger-4a5b6c7d8-r7t9v", "crash_config", READER_LOG_LINE),
                pod("pricing-2b3c4d5e6-z6x8c", "node_selector_mismatch", SCHEDULING_FACT),
                pod("settle-28861440-x7k2p", "job_backoff_limit", READER_JOB),
            ],
            "allowed": [{"kind": "pod", "name": "receipts-3f4d5c6b7-h3j5k", "namespace": "orders"}],
        },
    )
    incident_folder(
        corpus,
        "racks",
        nodes_in_trouble_fixture(),
        {
            "question": RACKS,
            "unhealthy": [
                {
                    "kind": "node",
                    "name": "rack-b",
                    "cause": "node_not_ready",
                    "fact": "status is now: NodeNotReady",
                },
                {
                    "kind": "node",
                    "name": "rack-c",
                    "cause": "node_pressure",
                    "fact": "status is now: NodeHasDiskPressure",
                },
                pod("cart-7c8d9e0f1-n3b5v", "node_not_ready", "Node is not ready", "shop"),
                pod("thumbs-6b7c8d9e0-s8d2f", "evicted", "low on resource: ephemeral-storage", "shop"),
            ],
        },
    )


def scores_by_incident(results: Path) -> dict[str, dict[str, Any]]:
    """Each incident's score, but what a run costs (the surfaces make different calls)."""
    records = [json.loads(line) for line in results.read_text().splitlines()]
    return {
        r["incident"]: {k: v for k, v in r["score"].items() if k not in ("costs", "successful_tool_calls")}
        for r in records
    }


def test_the_events_reader_scores_the_same_on_either_server_answering_alike(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    reader_corpus(corpus)
    runs = {}
    for server in ("mock", "kubernetes-mcp-server"):
        done = k8s_agent(
            "eval", "--corpus", str(corpus), "--cluster-server", server, "--model", "baseline:rules",
            "--no-baselines", "--impl", "handwritten", "--results", f"{server}.jsonl", "-q",
            cwd=tmp_path, env={"KUBERNETES_MCP_SERVER_BIN": str(kubernetes_mcp_server)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        runs[server] = scores_by_incident(tmp_path / f"{server}.jsonl")

    assert runs["mock"] == runs["kubernetes-mcp-server"]
    assert all(scored["solved"] for scored in runs["mock"].values()), runs["mock"]


async def _go_sources(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Source]:
    """The Go server's answers to the calls, kept as the harness keeps a run's tool results."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        declared = {
            tool.name: tuple((tool.input_schema or {}).get("properties", {}))
            for tool in (await session.list_tools()).tools
        }
        sources = []
        for number, (tool, arguments) in enumerate(calls):
            result = await session.call_tool(tool, arguments)
            text = "\n".join(getattr(part, "text", "") for part in result.content)
            sources.append(
                Source(f"go-{number}", tool, text, arguments, not result.is_error, None, declared[tool])
            )
        return sources


def test_one_report_verified_against_each_surface_s_results_scores_the_same(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    """One report, its quotes written as the cluster said them: the harness finds them in the mock
    cluster's table and logs, and in the Go server's YAML (decoded) and logs; scored, the same."""
    fixture = fixture_file(tmp_path, events_reader_fixture())
    pricing, ledger = "pricing-2b3c4d5e6-z6x8c", "ledger-4a5b6c7d8-r7t9v"
    incident = Incident(
        "orders",
        tmp_path,
        ORDERS,
        "",
        (
            Resource("pod", pricing, "orders", Cause.NODE_SELECTOR_MISMATCH, (), SCHEDULING_FACT),
            Resource("pod", ledger, "orders", Cause.CRASH_CONFIG, (), READER_LOG_LINE),
        ),
        fixture=fixture,
    )
    report = HealthReport.model_validate(
        {
            "scope": "pods in namespace orders",
            "findings": [
                {
                    "kind": "pod",
                    "name": name,
                    "namespace": "orders",
                    "status": status,
                    "cause": cause,
                    "explanation": "x",
                    "evidence": [{"text": quote}],
                    "fix": "x",
                }
                for name, status, cause, quote in (
                    (pricing, "Pending", "node_selector_mismatch", READER_SCHEDULING),
                    (ledger, "CrashLoopBackOff", "crash_config", READER_LOG_LINE),
                )
            ],
            "healthy": {"count": 0, "examples": []},
        }
    )
    mock = Cluster(load_fixture(fixture))
    on_mock = [
        Source("m-0", "get_events", mock.get_events("orders", type="Warning"), {"namespace": "orders", "type": "Warning"}, True, None, ("namespace", "pod", "type")),
        Source("m-1", "get_pod_logs", mock.get_pod_logs(ledger, "orders", previous=True), {"name": ledger, "namespace": "orders", "previous": True}, True, None, ("name", "namespace", "tail", "previous", "container")),
    ]  # fmt: skip
    with serve_incident(incident, kubernetes_mcp_server) as url:
        on_go = asyncio.run(
            _go_sources(
                url,
                [
                    ("events_list", {"namespace": "orders"}),
                    ("pods_log", {"name": ledger, "namespace": "orders", "previous": True}),
                ],
            )
        )

    scored = []
    for sources in (on_mock, on_go):
        checked = verify(report, sources).report.model_dump(mode="json")
        run = {"report": checked, "answer": "", "tool_calls_executed": len(sources), "tool_calls_failed": 0}
        scored.append({k: v for k, v in score(run, incident).as_dict().items() if k != "costs"})

    assert scored[0]["solved"] and scored[0] == scored[1]
    assert "didn''t" in on_go[0].text  # the Go server printed the message encoded, and it was found
