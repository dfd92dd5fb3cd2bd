"""kubernetes-mcp-server listing 5,000 pods from the fake API, over stdio and over Streamable HTTP:
the request after the listing stays within the context budget, and the harness's search finds the
crashing pod in the stored result."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent_harness.model.context import BYTES_PER_TOKEN, SEARCH_TOOL
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI, make_namespace, make_pod
from k8s_agent_scripted_llm import call, raw_call, text
from tests.conftest import run_scenario
from tests.integration.conftest import QUESTION, diagnose
from tests.integration.test_kubernetes_mcp_server import preset

CRASHING = "ledger-7c9d8x-k4m2p"
BUDGET = 32_000


@pytest.fixture(scope="module")
def big_cluster() -> Iterator[FakeKubeAPI]:
    pods = [make_pod(f"web-{n:05d}-x{n % 97:02d}y", "shop", node=f"node-{n % 50}") for n in range(5_000)]
    pods.insert(
        2_500, make_pod(CRASHING, "shop", waiting_reason="CrashLoopBackOff", restarts=12, node="node-3")
    )
    with FakeKubeAPI({"namespaces": [make_namespace("shop")], "pods": pods}, tls=True) as api:
        yield api


@pytest.mark.parametrize("transport", ["stdio", "streamable-http"])
def test_a_5000_pod_listing_stays_within_the_budget_and_the_search_finds_the_crash(
    impl: str,
    transport: str,
    kubernetes_mcp_server: Path,
    big_cluster: FakeKubeAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kubeconfig = big_cluster.write_kubeconfig(tmp_path / "kubeconfig")
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        raw_call(SEARCH_TOOL, json.dumps({"pattern": "CrashLoopBackOff", "handle": "r1"})),
        text(f"{CRASHING} is in CrashLoopBackOff (found by searching the stored listing)."),
    ]

    if transport == "stdio":
        run = diagnose(impl, tmp_path, script, preset(kubernetes_mcp_server, kubeconfig, tmp_path))
    else:  # the preset started listening on loopback, reached over HTTP
        monkeypatch.setenv("KUBERNETES_MCP_SERVER_BIN", str(kubernetes_mcp_server))
        monkeypatch.setenv("K8S_AGENT_CACHE", str(tmp_path / "cache"))
        run = run_scenario(
            impl, script, tmp_path / impl, QUESTION,
            mcp_command=(), cluster_server="kubernetes-mcp-server", mcp_transport=transport,
            mcp_env={"KUBECONFIG": str(kubeconfig)},
        )  # fmt: skip
        (connected,) = run.events("mcp_connected")
        assert connected["transport"] == transport

    listing = run.tool_messages(1)[0]["content"]
    assert (
        listing.startswith("[Result r1 of pods_list_in_namespace(") and "too large to show whole" in listing
    )
    after_listing = len(json.dumps(run.requests[1], separators=(",", ":")).encode())
    assert after_listing <= BUDGET * BYTES_PER_TOKEN
    found = run.tool_messages(2)[0]["content"]
    assert found.startswith("1 of ") and CRASHING in found
    (stored,) = [e for e in run.trace if e["kind"] == "tool_call" and e["handle"] == "r1"]
    assert len(stored["full_result"].splitlines()) == 1 + 5_001  # the header and every pod, kept whole
