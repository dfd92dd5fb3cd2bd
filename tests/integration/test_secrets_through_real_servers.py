"""The hostile fixture's planted secrets never reach the model, the trace or the answer, through the
real Kubernetes MCP servers, whatever shape they print an object in.

The fixture (k8s_agent_mock_cluster/fixtures/hostile.json) holds a pod whose env carries a password
and a Stripe key, a Deployment that carries them too (env, a secret flag in its args, and the
last-applied annotation that repeats the whole manifest), and a Secret whose data (and last-applied
`stringData`, in clear) hold a connection string, a user name and an API key. The fake Kubernetes
API serves it over https; both presets read it as they read a real cluster: kubernetes-mcp-server
(YAML, its tables), mcp-server-kubernetes (`kubectl get -o json`, `-o yaml`, describe).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from k8s_agent_mock_cluster import default_fixture_path
from k8s_agent_mock_cluster.fixture import load_fixture
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI
from k8s_agent_mock_cluster.kube_objects import kube_objects
from k8s_agent_scripted_llm import calls, text, tool
from tests.conftest import AgentRun
from tests.integration import test_kubernetes_mcp_server as go_server
from tests.integration import test_mcp_server_kubernetes as kubectl_server
from tests.integration.conftest import diagnose

HOSTILE = default_fixture_path().with_name("hostile.json")
PAYMENT = "payment-service-6f7b8d9c8-ghj56"
CHECKOUT = "checkout-service-7f6d5c4b4-zbc72"
PLANTED = (
    "hunter2-prod-Zk8qW",
    "sk_live_51H8xQ2eZvKYlo2C0aB1c2D3e",
    "tok_live_4f9a8b7c6d5e4f3a2b1c",
    "Pl4nted-Conn-7xQ2v",
    "svc-payments-rw",
    "Pl4nted-ApiKey-k3Jd9",
    "Pl4nted-Webhook-s8Kq1",
)
"""Every secret the fixture's pods, Deployment and Secret plant (and the Secret's data base64)."""
KEPT = ("postgres.production.svc.cluster.local", "payment-db-credentials", "DB_PASSWORD", "STRIPE_SECRET_KEY")
"""Evidence beside them: a non-secret env value, the Secret's name, the names of secret variables."""
REPORT = f"{PAYMENT} crash-loops: its configuration lacks a value (pods_get)."


@pytest.fixture(scope="module")
def hostile_api() -> Iterator[FakeKubeAPI]:
    with FakeKubeAPI(kube_objects(load_fixture(HOSTILE), datetime.now(UTC)), tls=True) as api:
        yield api


def forms(secret: str) -> list[str]:
    return [secret, base64.b64encode(secret.encode()).decode()]


def assert_nothing_leaked(run: AgentRun) -> None:
    written = (
        json.dumps(run.sent or run.requests) + json.dumps(run.trace) + (run.answer if run.result else "")
    )
    assert [form for secret in PLANTED for form in forms(secret) if form in written] == []
    results = [
        message["content"] for message in run.requests[-1]["messages"] if message.get("role") == "tool"
    ]
    assert "[REDACTED]" in "".join(results)
    for kept in KEPT:
        assert kept in "".join(results), kept


def test_kubernetes_mcp_server_s_yaml_and_tables_never_carry_a_planted_secret(
    impl: str, kubernetes_mcp_server: Path, hostile_api: FakeKubeAPI, tmp_path: Path
) -> None:
    kubeconfig = hostile_api.write_kubeconfig(tmp_path / "kubeconfig")
    reads = calls(
        tool("pods_get", name=PAYMENT, namespace="production"),
        tool("resources_get", apiVersion="v1", kind="Pod", name=CHECKOUT, namespace="production"),
        tool("resources_get", apiVersion="apps/v1", kind="Deployment", name="payment-service", namespace="production"),
        tool("resources_list", apiVersion="apps/v1", kind="Deployment", namespace="production"),
        tool("resources_list", apiVersion="v1", kind="Pod", namespace="production"),
        tool("pods_list_in_namespace", namespace="production"),
        tool("pods_log", name=CHECKOUT, namespace="production"),
    )  # fmt: skip

    run = diagnose(
        impl, tmp_path, [reads, text(REPORT)], go_server.preset(kubernetes_mcp_server, kubeconfig, tmp_path)
    )

    assert [event["outcome"] for event in run.events("tool_call")] == ["executed"] * 7
    assert_nothing_leaked(run)


def test_mcp_server_kubernetes_s_json_and_yaml_never_carry_a_planted_secret(
    impl: str, mcp_server_kubernetes: Path, hostile_api: FakeKubeAPI, tmp_path: Path
) -> None:
    kubeconfig = hostile_api.write_kubeconfig(tmp_path / "kubeconfig")
    reads = calls(
        tool("kubectl_get", resourceType="pods", name=PAYMENT, namespace="production", output="yaml"),
        tool("kubectl_get", resourceType="pods", name=PAYMENT, namespace="production", output="json"),
        tool("kubectl_get", resourceType="deployments", name="payment-service", namespace="production", output="json"),
        tool("kubectl_get", resourceType="deployments", namespace="production", output="yaml"),
        tool("kubectl_get", resourceType="secrets", name="payment-db-credentials", namespace="production", output="json"),
        tool("kubectl_describe", resourceType="pod", name=PAYMENT, namespace="production"),
        tool("kubectl_describe", resourceType="deployment", name="payment-service", namespace="production"),
    )  # fmt: skip

    run = diagnose(
        impl,
        tmp_path,
        [reads, text(REPORT)],
        kubectl_server.preset(mcp_server_kubernetes, kubeconfig, tmp_path),
    )

    assert [event["outcome"] for event in run.events("tool_call")] == ["executed"] * 7
    assert_nothing_leaked(run)
