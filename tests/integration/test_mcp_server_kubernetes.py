"""Both agents against mcp-server-kubernetes (Flux159), which runs `kubectl` against a fake API over https.

It answers a refused connection with JSON-RPC errors for most tools and an isError result for
kubectl_logs: both shapes must reach the model as `Tool call failed (...)` and the run go on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from k8s_agent.implementations import ask_function
from k8s_agent_harness.cluster.servers import (
    MCP_SERVER_KUBERNETES_ENVIRONMENT,
    MCP_SERVER_KUBERNETES_TOOLS,
    ServerLaunch,
    resolve_server,
)
from k8s_agent_harness.config import Config
from k8s_agent_harness.guards.read_policy import MCP_SERVER_KUBERNETES_RULES, Access
from k8s_agent_harness.model import prompts
from k8s_agent_mock_cluster.kube_api import FAKE_TOKEN, FakeKubeAPI, refused_url, write_kubeconfig
from k8s_agent_scripted_llm import ScriptedModelServer, call, text
from tests.integration.conftest import CRASHING, LOG_LINE, diagnose, leaked, offered
from tests.processes import OUT_OF_REACH

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


def test_every_tool_of_the_full_server_is_vetted_and_the_writes_refused(
    impl: str, mcp_server_kubernetes: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    # Started by hand in full mode: 23 tools, the write ones annotated destructive or not at all. The
    # vetted table names exactly the tools the pinned server lists.
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
    assert listed["server"] == "kubernetes"
    assert {tool["name"] for tool in listed["tools"]} == set(MCP_SERVER_KUBERNETES_RULES)
    writes = {name for name, rule in MCP_SERVER_KUBERNETES_RULES.items() if rule.access is Access.WRITE}
    assert set(listed["refused"]) == writes
    assert {"kubectl_delete", "kubectl_apply", "kubectl_create", "exec_in_pod", "kubectl_reconnect"} <= writes
    assert set(offered(run)) == set(listed["allowed"]) and "kubectl_delete" not in offered(run)
    assert run.tool_messages(1)[0]["content"] == prompts.refused_tool("kubectl_delete", listed["allowed"])
    assert CRASHING in run.tool_messages(2)[0]["content"]
    assert cluster.mutating_requests() == []


def two_contexts(kubeconfig: Path) -> bytes:
    """The fake API's kubeconfig with a second context beside the current one; the file's bytes."""
    config = json.loads(kubeconfig.read_text())
    config["contexts"].append(
        {"name": "other-cluster", "context": {"cluster": "fake-cluster", "user": "fake-user"}}
    )
    kubeconfig.write_text(json.dumps(config))
    return kubeconfig.read_bytes()


def full_mode(script: Path, kubeconfig: Path, tmp_path: Path) -> ServerLaunch:
    """mcp-server-kubernetes started by hand with every tool, as `--mcp-command` would start it,
    with its own read-only switch on (which offers kubectl_context: the server marks it read-only)."""
    read_only = preset(script, kubeconfig, tmp_path)
    env = {
        name: value for name, value in read_only.env.items() if name not in MCP_SERVER_KUBERNETES_ENVIRONMENT
    }
    return ServerLaunch(read_only.command, {**env, "ALLOW_ONLY_READONLY_TOOLS": "true"})


def test_kubectl_context_set_is_refused_though_the_server_marks_it_read_only(
    impl: str, mcp_server_kubernetes: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    before = two_contexts(kubeconfig)
    script = [
        call("kubectl_context", operation="set", name="other-cluster"),
        call("kubectl_context", operation="get"),
        text("The run reads the current context, fake-context (kubectl_context)."),
    ]

    run = diagnose(impl, tmp_path, script, full_mode(mcp_server_kubernetes, kubeconfig, tmp_path))

    [listed] = run.events("tools_listed")
    hinted = {tool["name"]: tool for tool in listed["tools"]}
    assert hinted["kubectl_context"]["read_only"] is True  # the server's hint ...
    assert hinted["kubectl_context"]["access"] == "by-argument"  # ... and what the run holds
    assert "kubectl_context" in offered(run)
    refused = run.tool_messages(1)[0]["content"]
    assert refused.startswith("Tool call refused (kubectl_context): operation 'set' switches")
    assert "fake-context" in run.tool_messages(2)[0]["content"]
    [set_call, get_call] = run.events("tool_call")
    assert (set_call["outcome"], get_call["outcome"]) == ("refused", "executed")
    assert kubeconfig.read_bytes() == before


def test_an_approved_context_switch_changes_the_server_s_copy_never_the_user_s_kubeconfig(
    impl: str, mcp_server_kubernetes: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    before = hashlib.sha256(two_contexts(kubeconfig)).hexdigest()
    asked: list[dict[str, Any]] = []

    async def operator(tool: str, arguments: Mapping[str, Any]) -> bool:
        asked.append(dict(arguments))
        return True

    script = [
        call("kubectl_context", operation="set", name="other-cluster"),
        call("kubectl_context", operation="get"),
        text("The server's current context is other-cluster now (kubectl_context)."),
    ]
    launch = full_mode(mcp_server_kubernetes, kubeconfig, tmp_path)
    with ScriptedModelServer(script) as model:
        config = Config(
            impl=impl,
            model="scripted",
            base_url=model.url,
            api_key="k",
            mcp_command=launch.command,
            mcp_env=dict(launch.env),
            allow_write=("kubectl_context",),
            trace_dir=tmp_path / "traces",
            max_retries=0,
            report_format="prose",
            **OUT_OF_REACH,
        )
        result = asyncio.run(ask_function(impl)(config, "Which context?", approver=operator))
        model.assert_done()
        answers = [m["content"] for m in model.requests[-1]["messages"] if m.get("role") == "tool"]

    assert asked == [{"operation": "set", "name": "other-cluster"}]
    assert result.stats.tool_calls_executed == 2
    assert "other-cluster" in answers[1]  # the switch took effect, in the server's copy
    assert hashlib.sha256(kubeconfig.read_bytes()).hexdigest() == before
    assert not list(Path(tempfile.gettempdir()).glob("k8s-agent-kubeconfig-*/*-kubeconfig"))
