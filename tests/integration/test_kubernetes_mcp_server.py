"""Both agents against kubernetes-mcp-server (containers/kubernetes-mcp-server) and a fake API over https.

Each test drives a scripted model through a real diagnosis and asserts on three wires: what the
model received, what the fake Kubernetes API received, and the run's trace.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent_harness.cluster.servers import KUBERNETES_MCP_SERVER_ARGUMENTS, ServerLaunch, resolve_server
from k8s_agent_harness.config import Config
from k8s_agent_harness.guards.read_policy import KUBERNETES_MCP_SERVER_RULES
from k8s_agent_harness.model import prompts
from k8s_agent_mock_cluster.kube_api import FAKE_TOKEN, FakeKubeAPI, refused_url, write_kubeconfig
from k8s_agent_scripted_llm import call, raw_call, text
from tests.conftest import run_scenario
from tests.integration.conftest import CRASHING, LEAKY, LOG_LINE, NODE, QUESTION, diagnose, leaked, offered
from tests.processes import HANG_SECONDS

WRITE_TOOLS = {
    "pods_delete",
    "pods_exec",
    "pods_run",
    "resources_create_or_update",
    "resources_delete",
    "resources_scale",
}
REPORT = (
    f"{CRASHING} (namespace shop, node {NODE}) is in CrashLoopBackOff: its previous log ends with "
    f"'{LOG_LINE}' (pods_log). Fix: make the database reachable, then restart the pod."
)


def preset(binary: Path, kubeconfig: Path, tmp_path: Path) -> ServerLaunch:
    """What `--cluster-server kubernetes-mcp-server` starts, for this binary and kubeconfig."""
    environ = {
        **os.environ,
        "KUBERNETES_MCP_SERVER_BIN": str(binary),
        "K8S_AGENT_CACHE": str(tmp_path / "cache"),
    }
    config = Config(cluster_server="kubernetes-mcp-server", mcp_env={"KUBECONFIG": str(kubeconfig)})
    launch = resolve_server(config, environ)
    launch.prepare()  # the config file its command names, as a session writes it before the start
    return launch


def test_a_crash_looping_pod_is_found_with_its_log_line(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        call("pods_log", name=CRASHING, namespace="shop", previous=True),
        text(REPORT),
    ]

    run = diagnose(impl, tmp_path, script, preset(kubernetes_mcp_server, kubeconfig, tmp_path))

    tools = offered(run)
    assert "pods_log" in tools and "pods_list_in_namespace" in tools
    assert tools["pods_log"]["parameters"]["required"] == ["name"]  # type: ignore[index]
    properties = tools["pods_log"]["parameters"]["properties"]  # type: ignore[index]
    assert {
        name: spec["type"] for name, spec in properties.items() if name in ("name", "previous", "tail")
    } == {
        "name": "string",
        "previous": "boolean",
        "tail": "integer",
    }
    assert not WRITE_TOOLS & set(tools) and "configuration_view" not in tools
    [listing] = run.tool_messages(1)
    assert CRASHING in listing["content"] and "CrashLoopBackOff" in listing["content"]
    [logs] = run.tool_messages(2)
    assert LOG_LINE in logs["content"]
    assert run.answer == REPORT
    assert run.result is not None and run.result.ungrounded == ()
    [log_request] = [r for r in cluster.requests if r.path == f"/api/v1/namespaces/shop/pods/{CRASHING}/log"]
    assert log_request.query["previous"] == ["true"]
    assert log_request.headers.get("Authorization") == f"Bearer {FAKE_TOKEN}"
    assert cluster.mutating_requests() == []
    assert leaked(run, FAKE_TOKEN) == []


def test_arguments_that_break_the_schema_never_reach_the_server(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    script = [
        raw_call("pods_log", '{"namespace": "shop", "tail": "fifty"}'),
        call("namespaces_list"),
        text("The shop namespace exists; no logs were read."),
    ]

    run = diagnose(impl, tmp_path, script, preset(kubernetes_mcp_server, kubeconfig, tmp_path))

    assert run.tool_messages(1)[0]["content"] == (
        "Invalid arguments for pods_log: <root>: 'name' is a required property; tail: 'fifty' is not of type 'integer'"
    )
    assert "shop" in run.tool_messages(2)[0]["content"]
    assert [r.path for r in cluster.requests if "/pods" in r.path] == []
    assert run.answer == "The shop namespace exists; no logs were read."


def test_write_tools_are_refused_even_when_the_server_offers_them(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    # Started by hand without --read-only: the server offers its write tools, the harness does not.
    # resources_scale reads a scale, or sets it when given one: offered, and refused in its writing form.
    launch = ServerLaunch(
        (str(kubernetes_mcp_server), "--toolsets", "core", "--disable-multi-cluster"),
        {"KUBECONFIG": str(kubeconfig)},
    )
    scale = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "checkout"}
    script = [
        call("pods_delete", name=CRASHING, namespace="shop"),
        call("resources_scale", **scale, scale=0),
        call("pods_list_in_namespace", namespace="shop"),
        text(f"{CRASHING} is in CrashLoopBackOff; it was not deleted."),
    ]

    run = diagnose(impl, tmp_path, script, launch)

    [listed] = run.events("tools_listed")
    assert set(listed["refused"]) == WRITE_TOOLS - {"resources_scale"}
    assert set(offered(run)) & WRITE_TOOLS == {"resources_scale"}
    access = {tool["name"]: tool["access"] for tool in listed["tools"]}
    assert access["resources_scale"] == "by-argument" and access["pods_delete"] == "write"
    assert run.tool_messages(1)[0]["content"] == prompts.refused_tool("pods_delete", listed["allowed"])
    assert run.tool_messages(2)[0]["content"] == prompts.write_call_refused(
        "resources_scale", "with scale it sets the workload's replicas; without it, it only reads"
    )
    assert CRASHING in run.tool_messages(3)[0]["content"]
    assert cluster.mutating_requests() == []
    assert [r for r in cluster.requests if r.method == "DELETE"] == []


OTHER_TOOLSETS = ("kcp", "kiali", "kubevirt", "netobserv", "tekton")
"""The server's toolsets beyond core, config and helm: not diagnosis of the cluster's own objects, and
not vetted (their tools are offered only when allowed by name)."""


def test_the_vetted_table_is_every_tool_of_core_config_and_helm_and_no_other_toolset_s(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    toolsets = ",".join(("core", "config", "helm", *OTHER_TOOLSETS))
    launch = ServerLaunch(
        (str(kubernetes_mcp_server), "--toolsets", toolsets, "--disable-multi-cluster"),
        {"KUBECONFIG": str(kubeconfig)},
    )

    run = diagnose(impl, tmp_path, [call("pods_list"), text("Listed.")], launch)

    [listed] = run.events("tools_listed")
    access = {tool["name"]: tool["access"] for tool in listed["tools"]}
    assert listed["server"] == "kubernetes-mcp-server"
    assert {name for name, given in access.items() if given != "unvetted"} == set(KUBERNETES_MCP_SERVER_RULES)
    unvetted = {name for name, given in access.items() if given == "unvetted"}
    assert len(unvetted) > 10 and not unvetted & set(offered(run))  # whatever their hints say
    assert any(tool["read_only"] is True for tool in listed["tools"] if tool["name"] in unvetted)


def test_an_api_that_refuses_connections_becomes_tool_failures(
    impl: str, kubernetes_mcp_server: Path, tmp_path: Path
) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", refused_url())
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        call("pods_log", name=CRASHING, namespace="shop"),
        text("The cluster API refused every connection: nothing could be checked."),
    ]

    run = diagnose(impl, tmp_path, script, preset(kubernetes_mcp_server, kubeconfig, tmp_path))

    listing = run.tool_messages(1)[0]["content"]
    logs = run.tool_messages(2)[0]["content"]
    assert listing.startswith(
        "Tool call failed (pods_list_in_namespace): failed to list pods in namespace shop: "
    )
    assert logs.startswith(
        f"Tool call failed (pods_log): failed to get pod {CRASHING} log in namespace shop: "
    )
    assert "connection refused" in listing and "connection refused" in logs
    assert run.answer == "The cluster API refused every connection: nothing could be checked."
    assert run.result is not None and run.result.stats.tool_calls_failed == 2


def test_configuration_view_never_shows_the_token(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    # The preset leaves the config toolset out; started by hand with it, configuration_view prints
    # the kubeconfig, token included. It is withheld unless allowed by name; allowed, the harness
    # redacts the token before the model sees it.
    launch = ServerLaunch(
        (str(kubernetes_mcp_server), "--read-only", "--disable-multi-cluster"),
        {"KUBECONFIG": str(kubeconfig)},
    )
    withheld = diagnose(impl, tmp_path / "withheld", [call("pods_list"), text("Listed.")], launch)
    assert "configuration_view" in withheld.events("tools_listed")[0]["refused"]
    assert "configuration_view" not in offered(withheld) and "pods_list" in offered(withheld)
    script = [call("configuration_view", minified=False), text("The kubeconfig has one context.")]

    run = diagnose(impl, tmp_path, script, launch, allow_read=("configuration_view",))

    assert "configuration_view" in offered(run)
    view = run.tool_messages(1)[0]["content"]
    assert "token: [REDACTED]" in view and "fake-context" in view
    assert leaked(run, FAKE_TOKEN) == []


def test_the_preset_alone_reaches_the_cluster_and_hides_the_kubeconfig_token(
    impl: str,
    kubernetes_mcp_server: Path,
    cluster: FakeKubeAPI,
    kubeconfig: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KUBERNETES_MCP_SERVER_BIN", str(kubernetes_mcp_server))
    monkeypatch.setenv("K8S_AGENT_CACHE", str(tmp_path / "cache"))
    script = [
        call("pods_log", name=LEAKY, namespace="shop"),
        call("resources_get", apiVersion="v1", kind="Secret", namespace="shop", name="db-credentials"),
        text("The proxy logs look fine; Secrets are not readable."),
    ]

    run = run_scenario(
        impl,
        script,
        tmp_path / impl,
        QUESTION,
        mcp_command=(),
        cluster_server="kubernetes-mcp-server",
        mcp_env={"KUBECONFIG": str(kubeconfig)},
    )

    [start] = run.events("run_start")
    assert start["mcp_command"][: 1 + len(KUBERNETES_MCP_SERVER_ARGUMENTS)] == [
        str(kubernetes_mcp_server),
        *KUBERNETES_MCP_SERVER_ARGUMENTS,
    ]
    assert "configuration_view" not in offered(run)
    # Only the value read from the kubeconfig catches a token in plain prose.
    assert "refreshing cached credential [REDACTED] for upstream" in run.tool_messages(1)[0]["content"]
    secret = run.tool_messages(2)[0]["content"]
    assert secret.startswith("Tool call failed (resources_get): ") and "resource not allowed" in secret
    assert [r.path for r in cluster.requests if "secrets" in r.path] == []
    assert leaked(run, FAKE_TOKEN) == []


def test_a_structured_report_is_verified_against_what_the_real_server_returned(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    def report(*quotes: str) -> str:
        return json.dumps(
            {
                "scope": "pods in namespace shop",
                "findings": [
                    {
                        "kind": "pod",
                        "name": CRASHING,
                        "namespace": "shop",
                        "status": "CrashLoopBackOff",
                        "cause": "dependency_down",
                        "explanation": "The database it needs is unreachable.",
                        "evidence": [{"text": quote, "tool": "pods_log"} for quote in quotes],
                        "fix": "Make the database reachable, then restart the pod.",
                    }
                ],
            }
        )

    invented = "FATAL: password authentication failed for user app"
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        call("pods_log", name=CRASHING, namespace="shop", previous=True),
        text(report(invented)),
        text(report(LOG_LINE, "CrashLoopBackOff")),
    ]

    run = diagnose(
        impl,
        tmp_path,
        script,
        preset(kubernetes_mcp_server, kubeconfig, tmp_path),
        report_format="json_schema",
    )

    correction = run.requests[3]["messages"][-1]["content"]
    assert f"the quote {invented!r} (finding {CRASHING}) appears in no tool result of this run" in correction
    assert run.result is not None and run.result.verified is True and run.result.report is not None
    log_quote, status_quote = run.result.report.findings[0].evidence
    assert (log_quote.tool, status_quote.tool) == (
        "pods_log",
        "pods_list_in_namespace",
    )  # where each really is
    assert f"Evidence (pods_log) ✓: {LOG_LINE}" in run.answer


def test_over_streamable_http_the_run_is_the_run_over_stdio(
    impl: str, kubernetes_mcp_server: Path, cluster: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    """kubernetes-mcp-server deployed as teams deploy it (`--port`, Streamable HTTP at /mcp), reached
    with --mcp-url: the model and the fake API see what they see when the agent starts it over stdio."""
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        call("pods_log", name=CRASHING, namespace="shop", previous=True),
        text(REPORT),
    ]
    launch = preset(kubernetes_mcp_server, kubeconfig, tmp_path)
    over_stdio = diagnose(impl, tmp_path / "stdio", script, launch)
    stdio_api = pod_reads(cluster)
    cluster.clear_requests()

    with served_over_http(launch, tmp_path) as url:
        over_http = run_scenario(impl, script, tmp_path / "http" / impl, QUESTION, mcp_url=url)

    assert over_http.error is None, over_http.error
    assert offered(over_http) == offered(over_stdio)  # the same tools, with the same schemas
    assert len(over_http.requests) == len(over_stdio.requests) == 3
    assert over_http.tool_messages(2) == over_stdio.tool_messages(2)  # the log, as the model read it
    [listing] = over_http.tool_messages(1)  # (its AGE column moves with the clock)
    assert CRASHING in listing["content"] and "CrashLoopBackOff" in listing["content"]
    assert over_http.answer == REPORT
    assert pod_reads(cluster) == stdio_api and len(stdio_api) >= 2  # the API saw the same reads of pods
    (start,) = over_http.events("run_start")
    assert start["mcp_url"] == url and start["mcp_command"] == []


def pod_reads(api: FakeKubeAPI) -> list[tuple[str, str]]:
    """What the fake API was asked about pods, in order (API discovery, which client-go runs
    concurrently and in no fixed order, left out)."""
    return [(r.path, json.dumps(r.query, sort_keys=True)) for r in api.requests if "/pods" in r.path]


@contextlib.contextmanager
def served_over_http(launch: ServerLaunch, tmp_path: Path) -> Iterator[str]:
    """The preset's server with `--port` on a free loopback port; its /mcp URL once it accepts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [*launch.command, "--port", str(port), "--bind-address", "127.0.0.1"],
        env={**os.environ, **launch.env}, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + HANG_SECONDS
        while True:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, (
                tmp_path / "server.log"
            ).read_text()
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        try:
            server.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.mark.parametrize("transport", ["streamable-http"])
def test_started_in_http_mode_the_run_is_the_run_over_stdio(
    impl: str,
    transport: str,
    kubernetes_mcp_server: Path,
    cluster: FakeKubeAPI,
    kubeconfig: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--cluster-server kubernetes-mcp-server --mcp-transport streamable-http` starts the
    server with `--port` on loopback, reaches it over HTTP and stops it: the model sees what it sees
    over stdio."""
    script = [
        call("pods_list_in_namespace", namespace="shop"),
        call("pods_log", name=CRASHING, namespace="shop", previous=True),
        text(REPORT),
    ]
    over_stdio = diagnose(
        impl, tmp_path / "stdio", script, preset(kubernetes_mcp_server, kubeconfig, tmp_path)
    )
    monkeypatch.setenv("KUBERNETES_MCP_SERVER_BIN", str(kubernetes_mcp_server))
    monkeypatch.setenv("K8S_AGENT_CACHE", str(tmp_path / "cache"))

    over_http = run_scenario(
        impl, script, tmp_path / "http" / impl, QUESTION,
        mcp_command=(), cluster_server="kubernetes-mcp-server", mcp_transport=transport,
        mcp_env={"KUBECONFIG": str(kubeconfig)},
    )  # fmt: skip

    assert over_http.error is None, over_http.error
    assert offered(over_http) == offered(over_stdio)
    assert over_http.tool_messages(2) == over_stdio.tool_messages(2)
    assert over_http.answer == REPORT
    (start,) = over_http.events("run_start")
    assert start["mcp_transport"] == transport and "--port" not in start["mcp_command"]
    (connected,) = over_http.events("mcp_connected")
    assert connected["transport"] == transport and connected["url"].startswith("http://127.0.0.1:")
    binary = str(kubernetes_mcp_server)
    leftover = subprocess.run(
        ["pgrep", "-f", f"{binary} .*--port"], capture_output=True, text=True, check=False
    )
    assert str(tmp_path / "cache") not in leftover.stdout  # stopped with the run
