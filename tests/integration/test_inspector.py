"""The mock cluster as a real client sees it: the MCP Inspector's CLI (`mcp-inspector --cli`, pinned,
installed by .ci/install-mcp-reference-servers.sh) over stdio and over HTTP, with and without the
token; and the mock's HTTP answers as the MCP spec asks (a 401 that names its protected-resource
metadata, that document served, a version in serverInfo, a clear 400 for an unknown protocol
version)."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from k8s_agent_mock_cluster.server import METADATA_PATH
from tests.integration.reference import inspector
from tests.integration.test_http_transport import TOKEN, HttpMock, serving
from tests.processes import HANG_SECONDS

READ_ONLY_TOOLS = {
    "describe_node",
    "describe_pod",
    "get_events",
    "get_pod_logs",
    "list_nodes",
    "list_pods",
    "search_logs",
    "resources_list",
    "resources_get",
}
MOCK = (sys.executable, "-m", "k8s_agent_mock_cluster")


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpMock]:
    """One mock cluster over HTTP, behind TOKEN, for the module."""
    with serving(tmp_path_factory.mktemp("inspected") / "calls.jsonl") as server:
        yield server


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli ARGS`, as a user (or a CI job: no terminal) runs it."""
    return subprocess.run(
        [str(inspector()), "--cli", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=HANG_SECONDS,
        check=False,
    )


def listed(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    tools = json.loads(done.stdout)["tools"]
    return {tool["name"]: tool for tool in tools}


def over_http(mock: HttpMock, *args: str) -> subprocess.CompletedProcess[str]:
    """Over Streamable HTTP, in the Inspector's mode for runs without a person (`--stored-auth-only`:
    a 401 is an error, not an OAuth flow in a browser)."""
    return inspect(mock.url, "--transport", "http", "--stored-auth-only", *args)


def test_the_inspector_lists_and_calls_the_mock_over_stdio() -> None:
    tools = listed(inspect(*MOCK, "--method", "tools/list"))
    called = inspect(
        *MOCK, "--method", "tools/call", "--tool-name", "list_pods", "--tool-arg", "namespace=production"
    )

    assert set(tools) == READ_ONLY_TOOLS
    assert all(tool["annotations"]["readOnlyHint"] is True for tool in tools.values())
    assert called.returncode == 0, called.stderr
    (content,) = json.loads(called.stdout)["content"]
    assert content["text"].startswith("NAMESPACE") and "CrashLoopBackOff" in content["text"]


def test_the_inspector_lists_and_calls_the_mock_over_http_with_the_token(mock: HttpMock) -> None:
    header = ("--header", f"Authorization: Bearer {TOKEN}")
    tools = listed(over_http(mock, *header, "--method", "tools/list"))
    called = over_http(mock, *header, "--method", "tools/call", "--tool-name", "list_nodes")

    assert set(tools) == READ_ONLY_TOOLS
    assert called.returncode == 0, called.stderr
    assert "Ready" in json.loads(called.stdout)["content"][0]["text"]


@pytest.mark.parametrize(
    ("header", "said"),
    [
        ((), "a bearer token is required"),
        (("--header", "Authorization: Bearer wrong"), "the bearer token is not valid"),
    ],
    ids=["no-token", "wrong-token"],
)
def test_the_inspector_without_the_token_is_told_why(
    mock: HttpMock, header: tuple[str, ...], said: str
) -> None:
    done = over_http(mock, *header, "--method", "tools/list")

    assert done.returncode != 0
    error = json.loads(done.stdout or done.stderr)["error"]
    assert error["code"] == "auth_required" and said in error["message"]


def test_a_401_names_the_protected_resource_metadata_which_is_served_without_a_token(mock: HttpMock) -> None:
    base = mock.url.removesuffix("/mcp")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with httpx2.Client(timeout=HANG_SECONDS) as http:
        missing = http.post(mock.url, json=body)
        wrong = http.post(mock.url, json=body, headers={"Authorization": "Bearer wrong"})
        metadata = http.get(f"{base}{METADATA_PATH}/mcp")
        root = http.get(f"{base}{METADATA_PATH}")
        other = http.get(f"{base}/.well-known/oauth-authorization-server")

    expected = f'resource_metadata="{base}{METADATA_PATH}/mcp"'
    assert missing.status_code == 401 and expected in missing.headers["www-authenticate"]
    assert "error=" not in missing.headers["www-authenticate"]
    assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert metadata.status_code == root.status_code == 200
    assert metadata.json()["resource"] == mock.url and metadata.json()["bearer_methods_supported"] == [
        "header"
    ]
    assert other.status_code == 404


def test_the_mock_names_its_version_and_refuses_an_unknown_protocol_version_clearly(mock: HttpMock) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    with httpx2.Client(timeout=HANG_SECONDS, headers=headers) as http:
        answered = http.post(mock.url, json=initialize)
        refused = http.post(
            mock.url,
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            headers={"MCP-Protocol-Version": "1999-01-01"},
        )

    data = next(line for line in answered.text.splitlines() if line.startswith("data: "))
    server = json.loads(data.removeprefix("data: "))["result"]["serverInfo"]
    assert server == {"name": "mock-cluster", "version": importlib.metadata.version("k8s-agent")}
    assert refused.status_code == 400
    message = refused.json()["error"]["message"]
    assert message.startswith(
        "Bad Request: unsupported MCP-Protocol-Version '1999-01-01'; this server speaks "
    )
    assert "2025-06-18" in message
