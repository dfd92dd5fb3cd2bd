"""A small cluster for the real MCP servers: a fake Kubernetes API, its kubeconfig, and the servers.

The servers are the ones `.ci/install-k8s-mcp-servers.sh` installs; a test that needs one
skips, naming the install script, when it is not there.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.cluster.discovery import find_kubernetes_mcp_server, find_mcp_server_kubernetes
from k8s_agent_harness.cluster.servers import ServerLaunch
from k8s_agent_harness.errors import ConfigError
from k8s_agent_mock_cluster.kube_api import FAKE_TOKEN, FakeKubeAPI, make_event, make_pod
from k8s_agent_mock_cluster.kube_objects import kube_objects
from tests.conftest import AgentRun, run_scenario

QUESTION = "Which pods in the shop namespace are unhealthy, and why?"
CRASHING = "checkout-7d9f8c-x1z2"
HEALTHY = "web-5c6b4d-k8m2n"
LEAKY = "auth-proxy-6b5c4d-q2w3"
NODE = "kind-worker"
LOG_LINE = "FATAL could not reach postgres at db.shop.svc:5432 (connection refused)"
# A log line with the kubeconfig's token in plain prose: no secret-looking pattern redacts it,
# only the value read from the kubeconfig does.
LEAKED_LINE = f"refreshing cached credential {FAKE_TOKEN} for upstream"
INSTALL = "run `bash .ci/install-k8s-mcp-servers.sh` to install it"


def cluster_fixture() -> dict[str, Any]:
    """Namespace shop: a crash-looping pod with a telling previous log, a healthy one, a chatty proxy."""
    return {
        "namespaces": ["shop"],
        "nodes": kube_objects(
            {"nodes": [{"name": NODE, "status": "Ready", "age": "10d"}]}, datetime.now(UTC)
        )["nodes"],
        "pods": [
            make_pod(
                CRASHING,
                "shop",
                waiting_reason="CrashLoopBackOff",
                restarts=9,
                last_terminated_reason="Error",
                node=NODE,
                labels={"app": "checkout"},
            ),
            make_pod(HEALTHY, "shop", node=NODE, labels={"app": "web"}),
            make_pod(LEAKY, "shop", node=NODE, labels={"app": "auth-proxy"}),
        ],
        "events": [
            make_event(
                "shop", CRASHING, "BackOff", f"Back-off restarting failed container app in pod {CRASHING}"
            ),
        ],
        "logs": {
            f"shop/{CRASHING}": {
                "current": "starting checkout\n",
                "previous": f"starting checkout\nconnecting to db.shop.svc:5432\n{LOG_LINE}\n",
            },
            f"shop/{HEALTHY}": "GET /healthz 200\n",
            f"shop/{LEAKY}": f"proxy up\n{LEAKED_LINE}\n",
        },
    }


@pytest.fixture(scope="session")
def kubernetes_mcp_server() -> Path:
    """The kubernetes-mcp-server binary, found as `--cluster-server` finds it."""
    try:
        return find_kubernetes_mcp_server(os.environ, os.environ.get("PATH", os.defpath))
    except ConfigError:
        pytest.skip(f"kubernetes-mcp-server is not installed: {INSTALL}")


@pytest.fixture(scope="session")
def mcp_server_kubernetes() -> Path:
    """mcp-server-kubernetes' entry script; skips unless node and kubectl are on PATH too."""
    search_path = os.environ.get("PATH", os.defpath)
    try:
        script = find_mcp_server_kubernetes(os.environ, search_path)
    except ConfigError:
        pytest.skip(f"mcp-server-kubernetes is not installed: {INSTALL}")
    for program in ("node", "kubectl"):
        if shutil.which(program, path=search_path) is None:
            pytest.skip(f"mcp-server-kubernetes needs `{program}` on PATH, and there is none")
    return script


@pytest.fixture(scope="session")
def https_cluster() -> Iterator[FakeKubeAPI]:
    """The fake API over https: only then do client-go and kubectl send the kubeconfig's token."""
    with FakeKubeAPI(cluster_fixture(), tls=True) as api:
        yield api


@pytest.fixture
def cluster(https_cluster: FakeKubeAPI) -> FakeKubeAPI:
    """The shared fake API with an empty request log."""
    https_cluster.clear_requests()
    return https_cluster


@pytest.fixture
def kubeconfig(cluster: FakeKubeAPI, tmp_path: Path) -> Path:
    """A kubeconfig for the fake API, with FAKE_TOKEN as its bearer token."""
    return cluster.write_kubeconfig(tmp_path / "kubeconfig")


def diagnose(impl: str, workdir: Path, script: list[Any], launch: ServerLaunch, **overrides: Any) -> AgentRun:
    """Run `impl` on a script against the server `launch` describes (started as --mcp-command)."""
    return run_scenario(
        impl,
        script,
        workdir / impl,
        QUESTION,
        mcp_command=launch.command,
        mcp_env=dict(launch.env),
        **overrides,
    )


def offered(run: AgentRun) -> dict[str, dict[str, Any]]:
    """The tools of the first model request, by name, in their Chat Completions form."""
    return {tool["function"]["name"]: tool["function"] for tool in run.requests[0]["tools"]}


def leaked(run: AgentRun, secret: str) -> list[str]:
    """Where a secret shows up: in what the model received, in the trace, in the answer."""
    places = {"model requests": json.dumps(run.requests), "trace": json.dumps(run.trace)}
    if run.result is not None:
        places["answer"] = run.result.answer
    return [place for place, content in places.items() if secret in content]


@pytest.fixture(autouse=True)
def _warm(warm: None) -> None:
    """Every test here starts servers or agents: the warm processes are started for the first."""
