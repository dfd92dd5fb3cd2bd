"""Incidents of the eval corpus served by kubernetes-mcp-server (k8s_agent.eval.kube_surface), and the
offline playbook investigating them through the Go server's tools."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.eval.corpus import Incident, load_incident
from k8s_agent.eval.kube_surface import serve_incident
from k8s_agent.eval.score import score
from k8s_agent_harness.cluster.servers import ServerLaunch
from k8s_agent_harness.errors import ConfigError, McpServerError
from k8s_agent_mock_cluster import load_fixture
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI
from tests.clusters import LEDGER_TIMEOUT, ledger_chain_fixture, restarts_fixture
from tests.processes import k8s_agent

CORPUS = Path(__file__).resolve().parents[2] / "k8s_agent" / "eval" / "corpus"
# One of each kind (a crash read from the logs is the shared server's, below): an OOM read from the
# container's last state, an image pull read from events, a node read from its events, a healthy cluster.
SOLVED_THROUGH_THE_GO_SERVER = (
    "oomkilled-jvm-heap-over-limit",
    "image-tag-not-found",
    "node-not-ready",
    "healthy-completed-jobs",
)


def ask_over_http(url: str, question: str, trace_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """`k8s-agent ask --mcp-url URL --json QUESTION` with the offline model: its JSON, or the error."""
    trace_dir.mkdir(parents=True, exist_ok=True)
    done = k8s_agent(
        "ask", "--mcp-url", url, "--json", "--trace-dir", str(trace_dir), question, cwd=trace_dir
    )
    try:
        return json.loads(done.stdout), None
    except ValueError:
        return None, f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:] or done.stdout[-200:]}"


def incident(name: str) -> Incident:
    return load_incident(CORPUS / f"{name}.yaml")


@pytest.fixture(scope="module")
def served(kubernetes_mcp_server: Path) -> Iterator[str]:
    """init-migration-crashloop (an init container that crashes beside its pod's app container)."""
    with serve_incident(incident("init-migration-crashloop"), kubernetes_mcp_server) as url:
        yield url


def findings(result: dict[str, Any] | None) -> list[tuple[Any, ...]]:
    assert result is not None
    return [
        (
            f["name"],
            f["namespace"],
            f["cause"],
            tuple((q["text"], q["tool"], q["verified"]) for q in f["evidence"]),
        )
        for f in result["report"]["findings"]
    ]


def test_two_runs_at_once_on_one_served_incident_get_the_same_answer(served: str, tmp_path: Path) -> None:
    question = incident("init-migration-crashloop").question
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda n: ask_over_http(served, question, tmp_path / str(n)), (1, 2)))

    (first, first_error), (second, second_error) = runs
    assert first_error is None and second_error is None
    assert findings(first) == findings(second)
    assert [name for name, *_ in findings(first)] == ["billing-api-lt8j95fr7-r86t9"]
    assert score(first, incident("init-migration-crashloop"), None).solved


def test_eval_through_kubernetes_mcp_server_solves_incidents_of_each_kind_on_both_agents(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    """`eval --cluster-server kubernetes-mcp-server`: one Go server per incident, shared by both
    agents' runs; the offline playbook on the Go server's tools solves each, quoting its results."""
    chosen = [argument for name in SOLVED_THROUGH_THE_GO_SERVER for argument in ("--incident", name)]
    done = k8s_agent(
        "eval", "--cluster-server", "kubernetes-mcp-server", *chosen, "--no-baselines",
        "--results", "r.jsonl", "--concurrency", "4", "-q", cwd=tmp_path,
        env={"KUBERNETES_MCP_SERVER_BIN": str(kubernetes_mcp_server)},
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert sorted((r["impl"], r["incident"]) for r in records) == sorted(
        (impl, name) for impl in ("handwritten", "sdk") for name in SOLVED_THROUGH_THE_GO_SERVER
    )
    for record in records:
        assert record["score"]["solved"], (record["incident"], record["score"])
        assert record["cluster_server"] == "kubernetes-mcp-server" and record["key"].endswith(
            "|kubernetes-mcp-server"
        )
        tools = {q["tool"] for f in record["report"]["findings"] for q in f["evidence"]}
        assert tools <= {
            "pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "events_list", "resources_get",
            "resources_list",
        }  # fmt: skip
    assert "| handwritten | offline via kubernetes-mcp-server | 4 | 100%" in done.stdout


def test_eval_through_kubernetes_mcp_server_is_served_per_incident_only(tmp_path: Path) -> None:
    done = k8s_agent(
        "eval", "--cluster-server", "kubernetes-mcp-server", "--server-per-run", "--incident", "node-not-ready",
        cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 2 and "--server-per-run starts a stdio mock cluster per run" in done.stderr


def test_a_missing_binary_is_a_config_error(tmp_path: Path) -> None:
    with (
        pytest.raises(ConfigError, match="not an executable file"),
        serve_incident(incident("crashloop-missing-env"), tmp_path / "absent"),
    ):
        pass


def test_a_server_that_exits_at_start_is_an_mcp_server_error(tmp_path: Path) -> None:
    broken = tmp_path / "kubernetes-mcp-server"
    broken.write_text("#!/bin/sh\necho 'unknown flag: --toolsets' >&2\nexit 3\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)

    with (
        pytest.raises(McpServerError, match=r"exited at start \(status 3\): unknown flag: --toolsets"),
        serve_incident(incident("crashloop-missing-env"), broken),
    ):
        pass


UNREACHED: dict[str, set[str]] = {}
"""Incidents whose deciding line only the mock cluster's own text shows (a `describe_node` line the Go
server's YAML writes in other fields): none may be."""


NOT_VERBATIM = {
    "pending-anti-affinity": {"3 node(s) didn't match pod anti-affinity rules"},
    "pending-node-selector": {"3 node(s) didn't match Pod's node affinity/selector"},
    "multi-import-selector-tag": {"3 node(s) didn't match Pod's node affinity/selector"},
    "shop-search-503-nodepool-renamed": {"3 node(s) didn't match Pod's node affinity/selector"},
}
"""The facts not verbatim in the Go server's YAML, by incident."""
SLICES = 4
"""The incidents are checked in slices, each behind a fake API and a Go server of its own, in two
classes, so that the suite's workers share them (`--dist loadscope` keeps a class on one worker)."""


def facts_reach_a_client_of_the_go_server(kubernetes_mcp_server: Path, tmp_path: Path, part: int) -> None:
    """Each incident's cluster in turn behind one fake API and one Go server: the STATUS each pod is
    listed with, and the deciding facts, as the Go server's tools return them (events and pods as
    YAML, logs as they are). A fact whose event message holds an apostrophe is not verbatim in the
    YAML (`didn''t`): those are the ones listed."""
    every = sorted(CORPUS.glob("*.yaml")) + sorted((CORPUS.parent / "holdout").glob("*.yaml"))
    cases = every[part::SLICES]
    not_verbatim, unreached = asyncio.run(
        _facts_through_the_go_server(kubernetes_mcp_server, tmp_path, cases)
    )

    names = {case.stem for case in cases}
    assert unreached == {name: facts for name, facts in UNREACHED.items() if name in names}
    assert not_verbatim == {name: facts for name, facts in NOT_VERBATIM.items() if name in names}
    assert len(every) > 100 and set(NOT_VERBATIM) <= {case.stem for case in every}


class TestTheFirstHalfOfTheIncidents:  # a class each: the suite's two workers take one half each
    @pytest.mark.parametrize("part", range(SLICES // 2))
    def test_every_incidents_facts_reach_a_client_of_the_go_server(
        self, kubernetes_mcp_server: Path, tmp_path: Path, part: int
    ) -> None:
        facts_reach_a_client_of_the_go_server(kubernetes_mcp_server, tmp_path, part)


class TestTheSecondHalfOfTheIncidents:
    @pytest.mark.parametrize("part", range(SLICES // 2, SLICES))
    def test_every_incidents_facts_reach_a_client_of_the_go_server(
        self, kubernetes_mcp_server: Path, tmp_path: Path, part: int
    ) -> None:
        facts_reach_a_client_of_the_go_server(kubernetes_mcp_server, tmp_path, part)


async def _facts_through_the_go_server(
    binary: Path, tmp_path: Path, cases: list[Path]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    import yaml
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from k8s_agent_harness.cluster.servers import KUBERNETES_MCP_SERVER_ARGUMENTS
    from k8s_agent_mock_cluster.fixture import read_yaml
    from k8s_agent_mock_cluster.kube_objects import cluster_moment, kube_objects
    from tests.integration.test_kubernetes_mcp_server import served_over_http

    not_verbatim: dict[str, set[str]] = {}
    unreached: dict[str, set[str]] = {}
    with FakeKubeAPI({}, tls=True) as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        launch = ServerLaunch(
            (str(binary), *KUBERNETES_MCP_SERVER_ARGUMENTS), {"KUBECONFIG": str(kubeconfig)}
        )
        with served_over_http(launch, tmp_path) as url:
            async with (
                streamable_http_client(url) as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                await session.initialize()

                async def text(tool: str, **arguments: Any) -> str:
                    result = await session.call_tool(tool, arguments)
                    return "\n".join(getattr(part, "text", "") for part in result.content)

                for path in cases:
                    case = load_incident(path)
                    fixture = load_fixture(path)
                    now = cluster_moment(read_yaml(path)["cluster"].get("now"), datetime.now(UTC))
                    api.replace(kube_objects(fixture, now), now=now)
                    listing = await text("pods_list")
                    for pod in fixture["pods"]:
                        row = next(line for line in listing.splitlines() if f" {pod['name']} " in line)
                        assert pod["status"] in row or pod["status"] == "Evicted", (path.stem, row)
                    events = await text("events_list")
                    raw, decoded = [events], _strings(yaml.safe_load(events))
                    for resource in case.unhealthy:
                        if resource.kind == "pod":
                            pod_yaml = await text(
                                "pods_get", name=resource.name, namespace=resource.namespace
                            )
                            raw.append(pod_yaml)
                            decoded += _strings(yaml.safe_load(pod_yaml))
                            for container in next(p for p in fixture["pods"] if p["name"] == resource.name)[
                                "containers"
                            ]:
                                for previous in (False, True):
                                    raw.append(
                                        await text(
                                            "pods_log",
                                            name=resource.name,
                                            namespace=resource.namespace,
                                            container=container["name"],
                                            previous=previous,
                                        )
                                    )
                    for resource in case.unhealthy:  # past the pods: the objects, as resources_get shows them
                        if resource.kind in ("pod", "node"):
                            continue
                        for shown in fixture.get("objects") or []:
                            if shown["metadata"]["name"] != resource.name:
                                continue
                            arguments = {
                                "apiVersion": shown["apiVersion"],
                                "kind": shown["kind"],
                                "name": resource.name,
                            }
                            if shown["metadata"].get("namespace"):
                                arguments["namespace"] = shown["metadata"]["namespace"]
                            got = await text("resources_get", **arguments)
                            raw.append(got)
                            decoded += _strings(yaml.safe_load(got))
                    verbatim = _norm("\n".join(raw))
                    everything = _norm("\n".join(raw + decoded))
                    for resource in case.unhealthy:
                        facts = resource.facts
                        if not any(_norm(f) in everything for f in facts):
                            unreached.setdefault(path.stem, set()).add(facts[0])
                        elif not any(_norm(f) in verbatim for f in facts):
                            not_verbatim.setdefault(path.stem, set()).add(facts[0])
    return not_verbatim, unreached


def _strings(data: Any) -> list[str]:
    """Every string of a YAML document, decoded (what a client reading the YAML sees)."""
    if isinstance(data, dict):
        return [s for value in data.values() for s in _strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return [data] if isinstance(data, str) else []


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


@contextlib.contextmanager
def served_fixture(fixture: dict[str, Any], path: Path, binary: Path) -> Iterator[str]:
    """A cluster fixture of the tests' own, served by kubernetes-mcp-server: its MCP URL."""
    path.write_text(json.dumps(fixture))
    with serve_incident(Incident(path.stem, path.parent, "", "", (), fixture=path), binary) as url:
        yield url


def verified_findings(result: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """(name, namespace, cause) of each finding, once every quote is checked to be the Go server's own."""
    assert result is not None and result["report_verified"] is True, result
    for finding in result["report"]["findings"]:
        assert all(q["verified"] and q["tool"] in KUBE_TOOLS for q in finding["evidence"]), finding
    return [(f["name"], f["namespace"], f["cause"]) for f in result["report"]["findings"]]


KUBE_TOOLS = {"pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "events_list"}


def test_a_workload_and_the_service_of_another_namespace_it_times_out_on_through_the_go_server(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    with served_fixture(ledger_chain_fixture(), tmp_path / "ledger.json", kubernetes_mcp_server) as url:
        result, error = ask_over_http(url, "Why is ledger-writer failing?", tmp_path / "traces")

    assert error is None
    assert verified_findings(result) == [
        ("ledger-writer-0", "billing", "dependency_down"),
        ("ledger-writer-1", "billing", "dependency_down"),
        ("postgres-0", "db", "oom_killed"),
    ]
    assert result is not None
    writer = result["report"]["findings"][0]
    assert (writer["evidence"][0]["text"], writer["evidence"][0]["tool"]) == (LEDGER_TIMEOUT, "pods_log")


def test_the_restarts_and_how_each_pod_last_ended_through_the_go_server(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    with served_fixture(restarts_fixture(), tmp_path / "restarts.json", kubernetes_mcp_server) as url:
        result, error = ask_over_http(url, "which pods restarted today", tmp_path / "traces")

    assert error is None
    assert verified_findings(result) == [
        ("cache-0", "web", "liveness_probe_failure"),
        ("api-6c5d4b4z2-zzzzz", "web", "oom_killed"),
        ("api-5b4c4d2x7-ddddd", "staging", "crash_application"),
        ("worker-7f6x5d4c4-bbbbb", "web", "unknown"),
    ]
    assert result is not None
    api = result["report"]["findings"][1]
    quoted = {(q["text"], q["tool"]) for q in api["evidence"]}
    assert {("reason: OOMKilled", "pods_get"), ("restartCount: 3", "pods_get")} <= quoted
    assert any("2027-03-04T06:42:17Z" in text and tool == "pods_get" for text, tool in quoted)
    assert any(
        "(pods_get)" in line and "not checked against a clock" in line
        for line in result["report"]["unchecked"]
    )


# -- `ask --cluster-server kubernetes-mcp-server` with the offline model ------------------------------

KUBE_TOOLS = {
    "pods_list",
    "pods_list_in_namespace",
    "pods_get",
    "pods_log",
    "events_list",
    "resources_get",
    "resources_list",
}
SHOP_UNHEALTHY = {
    "cart-api-6d5f7c8b9-k2m4p",
    "pricing-engine-84c9d7f6b-q8r2t",
    "search-api-5b7c9d8x7-w4x5w",
    "mailer-7f8x9d6c5-h4j6k",
}


def ask_offline(
    tmp_path: Path, binary: Path, question: str, *flags: str, env: dict[str, str] | None = None
) -> Any:
    """`k8s-agent ask QUESTION --cluster-server kubernetes-mcp-server FLAGS --json`, the offline model."""
    return k8s_agent(
        "ask", question, "--cluster-server", "kubernetes-mcp-server", *flags, "--json", "--quiet",
        cwd=tmp_path,
        env={"KUBERNETES_MCP_SERVER_BIN": str(binary), "K8S_AGENT_CACHE": str(tmp_path / "cache"),
             "K8S_AGENT_TRACE_DIR": "traces", **(env or {})},
    )  # fmt: skip


def trace_of(tmp_path: Path) -> list[dict[str, Any]]:
    from tests.conftest import read_jsonl

    (path,) = (tmp_path / "traces").glob("*.jsonl")
    return read_jsonl(path)


def test_ask_serves_a_fixture_to_kubernetes_mcp_server_and_the_offline_model_plays_on_its_tools(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    """`--cluster FILE`: a fake Kubernetes API holds the fixture, the Go server reads it, and the
    user's kubeconfig (here one for another fake cluster) is never read."""
    from tests.clusters import shop_fixture

    fixture = tmp_path / "shop.json"
    fixture.write_text(json.dumps(shop_fixture()))
    (tmp_path / "tmp").mkdir()

    done = ask_offline(
        tmp_path, kubernetes_mcp_server, "Which pods in the shop namespace are unhealthy, and why?",
        "--impl", impl, "--cluster", str(fixture), env={"KUBECONFIG": str(kubeconfig), "TMPDIR": str(tmp_path / "tmp")},
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["report_verified"] is True
    assert {f["name"] for f in out["report"]["findings"]} == SHOP_UNHEALTHY
    assert {q["tool"] for f in out["report"]["findings"] for q in f["evidence"]} <= KUBE_TOOLS
    start, *events = trace_of(tmp_path)
    assert start["mcp_command"][0] == str(kubernetes_mcp_server)
    assert f"the fixture {fixture} served by a fake Kubernetes API" in start["mcp_server"]
    called = {e["tool"] for e in events if e["kind"] == "tool_call"}
    assert called and called <= KUBE_TOOLS
    assert cluster.requests == []  # the user's cluster was not asked anything
    assert list((tmp_path / "tmp").iterdir()) == []  # the fake API's kubeconfig went with the run


def test_ask_with_the_offline_model_reaches_the_user_s_cluster_through_kubernetes_mcp_server(
    kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    from tests.integration.conftest import CRASHING, QUESTION

    done = ask_offline(tmp_path, kubernetes_mcp_server, QUESTION, "--kubeconfig", str(kubeconfig))

    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    crashing = next(f for f in out["report"]["findings"] if f["name"] == CRASHING)
    assert crashing["evidence"] and all(
        q["verified"] and q["tool"] in KUBE_TOOLS for q in crashing["evidence"]
    )
    assert cluster.requests  # asked through the kubeconfig the user named
    assert {e["tool"] for e in trace_of(tmp_path) if e["kind"] == "tool_call"} <= KUBE_TOOLS


def test_a_fixture_kubernetes_mcp_server_cannot_read_is_one_line_and_exit_2(
    kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ nodes: [")

    done = ask_offline(tmp_path, kubernetes_mcp_server, "Which pods are unhealthy?", "--cluster", str(broken))

    assert done.returncode == 2
    assert (
        done.stderr.startswith(f"error: fixture {broken} is not valid JSON")
        and len(done.stderr.splitlines()) == 1
    )
    assert not (tmp_path / "traces").exists()
