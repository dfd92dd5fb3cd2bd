"""A server that speaks only the 2026-07-28 protocol (`modern_server.mjs`, on the TypeScript SDK v2 from
npm, which nobody here wrote): it refuses the initialize handshake every other server speaks, and both
agents still use it, over stdio and Streamable HTTP, by opening again the modern way (`server/discover`)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from k8s_agent_scripted_llm import call, text
from tests.cli.test_ask import ask
from tests.conftest import AgentRun, run_scenario
from tests.integration.reference import on_a_free_port, ts_sdk_modules
from tests.reliability.hostile_mcp_server import FUTURE_PROTOCOL

MODERN_SERVER = Path(__file__).with_name("modern_server.mjs")
HOSTILE_SERVER = Path(__file__).parents[1] / "reliability" / "hostile_mcp_server.py"
TOOLS = ("list_pods", "pod_logs")
"""The server's tools: it is not one k8s-agent knows, so the tests allow them by name."""
SCRIPT = [
    call("list_pods", namespace="shop"),
    call("pod_logs", namespace="shop", name="orders-6c9d4f-r4t5y"),
    text("orders-6c9d4f-r4t5y is in CrashLoopBackOff: FATAL cannot reach postgres:5432 (pod_logs)."),
]


@pytest.fixture(scope="module")
def server_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's file in a folder whose node_modules is the SDK's (Node resolves an ES module's
    imports from the folders above the file, not from NODE_PATH)."""
    modules = ts_sdk_modules()
    folder = tmp_path_factory.mktemp("modern-server")
    (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    return Path(shutil.copy(MODERN_SERVER, folder / MODERN_SERVER.name))


@contextmanager
def over_http(script: Path) -> Iterator[str]:
    """The server on a free loopback port; its URL once it listens."""
    with on_a_free_port(
        lambda port: (["node", str(script), "http", str(port)], dict(os.environ)), "listening on ", "/mcp"
    ) as url:
        yield url


def check(run: AgentRun) -> None:
    assert run.error is None, run.error
    assert {tool["function"]["name"] for tool in run.requests[0]["tools"]} >= set(TOOLS)
    assert "orders-6c9d4f-r4t5y    0/1    CrashLoopBackOff" in run.tool_messages(1)[0]["content"]
    assert "FATAL cannot reach postgres:5432" in run.tool_messages(2)[0]["content"]
    (listed,) = run.events("tools_listed")
    assert listed["server"] == "modern-only" and listed["protocol"] == "2026-07-28"
    assert run.result is not None and run.result.ungrounded == ()


def test_both_agents_use_a_modern_only_server_over_stdio(
    impl: str, server_script: Path, tmp_path: Path
) -> None:
    run = run_scenario(
        impl, SCRIPT, tmp_path, mcp_command=("node", str(server_script), "stdio"), allow_read=TOOLS
    )

    check(run)


def test_both_agents_use_a_modern_only_server_over_streamable_http(
    impl: str, server_script: Path, tmp_path: Path
) -> None:
    with over_http(server_script) as url:
        run = run_scenario(impl, SCRIPT, tmp_path, mcp_url=url, allow_read=TOOLS)

    check(run)
    (connected,) = run.events("mcp_connected")
    assert connected["transport"] == "streamable-http" and connected["fallback"] is None  # no SSE detour


def test_a_server_that_speaks_no_version_of_ours_is_reported_in_its_own_words(tmp_path: Path) -> None:
    # It refuses the handshake and the modern opening alike, naming a version no client speaks.
    command = f"{sys.executable} {HOSTILE_SERVER} --mode future-protocol"

    done = ask("Which pods are unhealthy?", "--mcp-command", command, cwd=tmp_path)

    assert done.returncode == 4, done.stderr
    assert "the server refused the protocol version: Unsupported protocol version: " in done.stderr
    assert (
        f"(JSON-RPC error -32022); it speaks {FUTURE_PROTOCOL}; k8s-agent speaks 2024-11-05, " in done.stderr
    )
    assert "Traceback" not in done.stderr
