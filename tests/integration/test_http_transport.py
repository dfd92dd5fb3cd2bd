"""A deployed MCP server over Streamable HTTP (`--mcp-url`): both agents put the same wire to the
model as over stdio, the server receives the same calls, the token is sent and never written, and
a server that refuses or cannot be reached is one line, exit 4."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent.scenarios import SCENARIOS
from k8s_agent.scripted_run import CALL_LOG
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from tests.cli.test_ask import DEFAULT_QUESTION, ask, traces
from tests.conftest import run_scenario
from tests.wire import wire_view

TOKEN = "mcp-token-0123456789abcdef"


class HttpMock:
    """The mock cluster served over Streamable HTTP, with a call log, behind a bearer token."""

    def __init__(self, call_log: Path) -> None:
        env = {**os.environ, "MOCK_TOKEN": TOKEN}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "k8s_agent_mock_cluster", "--http", "127.0.0.1:0", "--token-env", "MOCK_TOKEN",
             "--call-log", str(call_log)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        assert line.startswith("serving http://"), (
            line,
            self.process.stderr.read() if self.process.stderr else "",
        )
        self.url = line.removeprefix("serving ")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def http_mock(tmp_path: Path) -> Iterator[HttpMock]:
    (tmp_path / "http").mkdir()
    server = HttpMock(tmp_path / "http" / CALL_LOG)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_a_run_over_http_is_the_run_over_stdio(impl: Impl, http_mock: HttpMock, tmp_path: Path) -> None:
    scenario = SCENARIOS["offline-default"]
    over_http = run_scenario(impl, scenario, tmp_path / "http", mcp_url=http_mock.url, mcp_token=TOKEN)
    over_stdio = run_scenario(impl, scenario, tmp_path / "stdio")

    assert over_http.error is None and over_stdio.error is None, (over_http.error, over_stdio.error)
    assert wire_view(over_http.requests) == wire_view(over_stdio.requests)
    assert over_http.calls_received() == over_stdio.calls_received() and len(over_stdio.calls) >= 3
    assert over_http.answer == over_stdio.answer
    (start,) = over_http.events("run_start")
    assert start["mcp_url"] == http_mock.url and start["mcp_command"] == []
    assert "Authorization" in start["mcp_server"] and TOKEN not in json.dumps(over_http.trace)


def test_ask_with_mcp_url_sends_the_token_and_never_writes_it(http_mock: HttpMock, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--mcp-url", http_mock.url, cwd=tmp_path, env={"K8S_AGENT_MCP_TOKEN": TOKEN})

    assert done.returncode == 0, done.stderr
    assert "Health report" in done.stdout and TOKEN not in done.stdout + done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["mcp_url"] == http_mock.url and TOKEN not in json.dumps(trace)
    timeline = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "trace", "show", "last", "--trace-dir", "traces"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert f"MCP server: {http_mock.url} (Streamable HTTP)" in timeline.stdout


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ((), "HTTP 401 (check the token or headers"),
        (("--mcp-header", f"Authorization: Bearer {TOKEN}x"), "HTTP 401"),
    ],
    ids=["no-token", "wrong-token"],
)
def test_a_refused_token_is_one_line_exit_4(
    extra: tuple[str, ...], said: str, http_mock: HttpMock, tmp_path: Path
) -> None:
    done = ask(DEFAULT_QUESTION, "--mcp-url", http_mock.url, *extra, cwd=tmp_path)

    assert done.returncode == 4, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr and TOKEN not in done.stderr


def test_a_server_that_cannot_be_reached_is_one_line_exit_4(tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there

    done = ask(DEFAULT_QUESTION, "--mcp-url", f"http://127.0.0.1:{port}/mcp", cwd=tmp_path)

    assert done.returncode == 4, done.stderr
    assert "cannot reach the server" in done.stderr and "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["status"] != "ok"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--mcp-url", "ftp://host/mcp"), "--mcp-url must be an http:// or https:// URL"),
        (("--mcp-url", "https://user:pw@host/mcp"), "must not carry a user or password"),
        (
            ("--mcp-url", "https://host/mcp", "--mcp-command", "server"),
            "cannot be combined with --mcp-command",
        ),
        (("--mcp-token", TOKEN), "--mcp-token is for a deployed MCP server: give --mcp-url too"),
        (("--mcp-url", "https://host/mcp", "--mcp-header", "no colon"), "--mcp-header expects 'NAME: VALUE'"),
        (("--mcp-url", "https://host/mcp", "--mcp-ca-file", "nope.pem"), "CA file not found: nope.pem"),
    ],
    ids=["scheme", "userinfo", "two-servers", "token-alone", "header", "ca-file"],
)
def test_bad_http_settings_are_one_line_exit_2(args: tuple[str, ...], said: str, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, *args, cwd=tmp_path)

    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "pw" not in done.stderr.replace("password", "") and TOKEN not in done.stderr
