"""The mock cluster's input files: fixtures and fault plans are checked against their schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k8s_agent_mock_cluster import Cluster, FixtureError, load_fixture
from k8s_agent_mock_cluster.faults import FaultPlan, FaultPlanError


def test_a_fault_plan_that_breaks_its_schema_is_named_by_path(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"tool": "x", "action": "explode"}]}))

    with pytest.raises(FaultPlanError, match=r"faults\[0\]\.action: 'explode' is not one of"):
        FaultPlan.load(plan)


def test_a_fault_plan_with_an_unknown_field_is_refused(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"tool": "x", "sleep": 3}]}))

    with pytest.raises(FaultPlanError, match="Additional properties are not allowed"):
        FaultPlan.load(plan)


def test_a_missing_fixture_and_a_namespace_without_pods_say_what_exists(tmp_path: Path) -> None:
    with pytest.raises(FixtureError, match="cluster fixture not found"):
        load_fixture(tmp_path / "nope.json")

    answer = Cluster(load_fixture()).list_pods("prod")

    assert (
        answer
        == "No pods found in namespace prod. Namespaces with pods: batch, kube-system, production, staging."
    )


def test_the_result_log_keeps_what_the_server_answered_each_call_and_write_tools_are_destructive(
    tmp_path: Path,
) -> None:
    import asyncio

    from mcp import Client

    from k8s_agent_mock_cluster.call_log import read_call_log, read_result_log
    from k8s_agent_mock_cluster.server import build_server

    calls, results = tmp_path / "calls.jsonl", tmp_path / "results.jsonl"
    server = build_server(Cluster(load_fixture()), calls, write_tools=True, result_log=results)

    async def session() -> dict[str, bool | None]:
        async with Client(server) as client:
            listed = (await client.list_tools()).tools
            await client.call_tool("list_pods", {"namespace": "production"})
            await client.call_tool("get_pod_logs", {"name": "ghost-1", "namespace": "production"})
            return {t.name: t.annotations.read_only_hint if t.annotations else None for t in listed}

    read_only = asyncio.run(session())

    assert (
        read_only["delete_pod"] is False
        and read_only["restart_pod"] is False
        and read_only["list_pods"] is True
    )
    assert [c["tool"] for c in read_call_log(calls)] == ["list_pods", "get_pod_logs"]
    listing, failure = read_result_log(results)
    assert listing["is_error"] is False and listing["text"].startswith("NAMESPACE")
    assert listing["arguments"] == {"namespace": "production"}
    assert failure["is_error"] is True and 'pods "ghost-1" not found' in failure["text"]


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("name", "a" * 1_000_000, "is too long"),
        ("name", "a" * 254, "is too long"),
        ("name", "Api-Server", "does not match"),
        ("name", "[... 12 lines not shown ...]", "does not match"),
        ("namespace", "n" * 64, "is too long"),
        ("namespace", "shop.eu", "does not match"),
    ],
)
def test_names_are_limited_as_kubernetes_limits_them(
    tmp_path: Path, field: str, value: str, said: str
) -> None:
    """A pod name is a DNS subdomain (253 characters at most), a namespace a DNS label (63)."""
    pod = {
        "name": "api-0",
        "namespace": "shop",
        "status": "Running",
        "containers": [{"name": "api", "image": "i"}],
    }
    path = tmp_path / "cluster.json"
    path.write_text(
        json.dumps({"nodes": [{"name": "node-1", "status": "Ready"}], "pods": [{**pod, field: value}]})
    )
    with pytest.raises(FixtureError) as refused:
        load_fixture(path)
    assert said in str(refused.value) and len(str(refused.value)) < 600


def test_the_longest_names_kubernetes_allows_load(tmp_path: Path) -> None:
    name = ".".join(["a" * 63] * 3) + "." + "b" * 61  # 253 characters
    pod = {
        "name": name,
        "namespace": "n" * 63,
        "status": "Running",
        "containers": [{"name": "c" * 63, "image": "i"}],
    }
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"nodes": [{"name": "node-1", "status": "Ready"}], "pods": [pod]}))
    assert load_fixture(path)["pods"][0]["name"] == name
