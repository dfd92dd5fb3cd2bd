"""Both agents against mcp-server-kubernetes (Flux159), which runs `kubectl` against a fake API over https.

It answers a refused connection with JSON-RPC errors for most tools and an isError result for
kubectl_logs: both shapes must reach the model as `Tool call failed (...)` and the run go on.
"""

from __future__ import annotations

import os
from pathlib import Path

from k8s_agent_harness import prompts
from k8s_agent_harness.config import Config
from k8s_agent_harness.servers import (
    MCP_SERVER_KUBERNETES_ENVIRONMENT,
    MCP_SERVER_KUBERNETES_TOOLS,
    ServerLaunch,
    resolve_server,
)
from k8s_agent_mock_cluster.kube_api import FAKE_TOKEN, FakeKubeAPI, refused_url, write_kubeconfig
from k8s_agent_scripted_llm import call, text
from tests.integration.conftest import CRASHING, LOG_LINE, diagnose, leaked, offered

REPORT = (
    f"{CRASHING} in namespace shop is in CrashLoopBackOff: its previous log ends with '{LOG_LINE}' "
    "(kubectl_logs). Fix: make the database reachable, then restart the pod."
)


def preset(script: Path, kubeconfig: Path, tmp_path: Path) -> ServerLaunch:
    """What `--cluster-server mcp-server-kubernetes` starts; kubectl gets a HOME of its own for its cache."""
    environ = {**os.environ, "MCP_SERVER_KUBERNETES_JS": str(script)}
    config = Config(
        cluster_server="mcp-server-kubernetes",
        mcp_env={"KUBECONFIG": str(kubeconfig), "HOME": str(tmp_path / "home")},
    )
    return resolve_server(config, environ)


def test_a_crash_looping_pod_is_found_with_its_log_line_through_kubectl(
    impl: str, mcp_server_kubernetes: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    script = [
        call("kubectl_get", resourceType="pods", namespace="shop"),
        call("kubectl_logs", resourceType="pod", name=CRASHING, namespace="shop", previous=True),
        text(REPORT),
    ]

    run = diagnose(impl, tmp_path, script, preset(mcp_server_kubernetes, kubeconfig, tmp_path))

    tools = offered(run)
    assert set(tools) == set(MCP_SERVER_KUBERNETES_TOOLS)
    assert tools["kubectl_logs"]["parameters"]["required"] == ["resourceType", "name", "namespace"]  # type: ignore[index]
    listing = run.tool_messages(1)[0]["content"]
    assert CRASHING in listing and "CrashLoopBackOff" in listing
    assert LOG_LINE in run.tool_messages(2)[0]["content"]
    assert run.answer == REPORT
    assert run.result is not None and run.result.ungrounded == ()
    logs = [r for r in cluster.requests if r.path == f"/api/v1/namespaces/shop/pods/{CRASHING}/log"]
    assert [r.query.get("previous") for r in logs] == [["true"]]
    assert logs[0].headers.get("Authorization") == f"Bearer {FAKE_TOKEN}"
    assert cluster.mutating_requests() == []
    assert leaked(run, FAKE_TOKEN) == []


def test_json_rpc_errors_and_error_results_both_become_tool_failures(
    impl: str, mcp_server_kubernetes: Path, tmp_path: Path
) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", refused_url())
    script = [
        call("kubectl_get", resourceType="pods", namespace="shop"),
        call("kubectl_logs", resourceType="pod", name=CRASHING, namespace="shop"),
        text("The cluster API refused every connection: nothing could be checked."),
    ]

    run = diagnose(impl, tmp_path, script, preset(mcp_server_kubernetes, kubeconfig, tmp_path))

    rpc_error = run.tool_messages(1)[0]["content"]
    error_result = run.tool_messages(2)[0]["content"]
    assert rpc_error.startswith("Tool call failed (kubectl_get): ")
    assert "(JSON-RPC error -32603)" in rpc_error and "was refused" in rpc_error
    assert error_result.startswith("Tool call failed (kubectl_logs): ")
    assert '"status": "general_error"' in error_result and "was refused" in error_result
    assert run.answer == "The cluster API refused every connection: nothing could be checked."
    assert run.result is not None and run.result.stats.tool_calls_failed == 2


def test_tools_without_a_read_only_annotation_are_refused(
    impl: str, mcp_server_kubernetes: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    # Started by hand in full mode: 23 tools, the write ones annotated destructive or not at all.
    read_only = preset(mcp_server_kubernetes, kubeconfig, tmp_path)
    full = {
        name: value for name, value in read_only.env.items() if name not in MCP_SERVER_KUBERNETES_ENVIRONMENT
    }
    launch = ServerLaunch(read_only.command, full)
    script = [
        call("kubectl_delete", resourceType="pod", name=CRASHING, namespace="shop"),
        call("kubectl_get", resourceType="pods", namespace="shop"),
        text(f"{CRASHING} is in CrashLoopBackOff; it was not deleted."),
    ]

    run = diagnose(impl, tmp_path, script, launch)

    [listed] = run.events("tools_listed")
    assert {"kubectl_delete", "kubectl_apply", "kubectl_create", "exec_in_pod", "kubectl_reconnect"} <= set(
        listed["refused"]
    )
    assert set(offered(run)) == set(listed["allowed"]) and "kubectl_delete" not in offered(run)
    assert run.tool_messages(1)[0]["content"] == prompts.refused_tool("kubectl_delete", listed["allowed"])
    assert CRASHING in run.tool_messages(2)[0]["content"]
    assert cluster.mutating_requests() == []
