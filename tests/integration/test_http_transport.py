"""A deployed MCP server over Streamable HTTP or SSE (`--mcp-url`): both agents put the same wire to
the model as over stdio, the server receives the same calls, the token is sent and never written, a
server that refuses or cannot be reached is one line, exit 4, and one that goes away mid-run is a
failure kind with a bounded reconnect, never a hang."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent.scenarios import ANALYTICS, PAYMENT, SCENARIOS
from k8s_agent.scripted_run import CALL_LOG
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from k8s_agent_scripted_llm import call, text
from tests.cli.test_ask import DEFAULT_QUESTION, ask, traces
from tests.conftest import run_scenario
from tests.processes import EXERCISED_TIMEOUT, HANG_SECONDS
from tests.reliability.test_faults import assert_ended_by_the_lost_server, fault_plan
from tests.wire import wire_view

TOKEN = "mcp-token-0123456789abcdef"


class HttpMock:
    """The mock cluster served over Streamable HTTP (or only SSE), with a call log, behind a bearer token."""

    def __init__(self, call_log: Path, *extra: str) -> None:
        env = {**os.environ, "MOCK_TOKEN": TOKEN}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "k8s_agent_mock_cluster", "--http", "127.0.0.1:0", "--token-env", "MOCK_TOKEN",
             "--call-log", str(call_log), *extra],
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
            self.process.communicate(timeout=5)  # a grace period, not a check: nothing is asserted on it
        except subprocess.TimeoutExpired:  # a frozen server cannot even shut down
            self.process.kill()
            self.process.communicate()


@contextlib.contextmanager
def serving(call_log: Path, *extra: str) -> Iterator[HttpMock]:
    """The mock cluster over HTTP for the block, stopped after it."""
    call_log.parent.mkdir(parents=True, exist_ok=True)
    server = HttpMock(call_log, *extra)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def http_mock(tmp_path: Path) -> Iterator[HttpMock]:
    with serving(tmp_path / "http" / CALL_LOG) as server:
        yield server


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
    assert TOKEN not in json.dumps(over_http.requests)  # C14: the model never sees it either


def test_ask_with_mcp_url_sends_the_token_and_never_writes_it(http_mock: HttpMock, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--mcp-url", http_mock.url, cwd=tmp_path, env={"K8S_AGENT_MCP_TOKEN": TOKEN})

    assert done.returncode == 0, done.stderr
    assert "Health report" in done.stdout and TOKEN not in done.stdout + done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["mcp_url"] == http_mock.url and TOKEN not in json.dumps(trace)
    timeline = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "trace", "show", "last", "--trace-dir", "traces"],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert f"MCP server: {http_mock.url} over Streamable HTTP" in timeline.stdout


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


# -- SSE -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_an_sse_only_server_is_reached_over_sse_and_the_run_is_the_run_over_stdio(
    impl: Impl, tmp_path: Path
) -> None:
    scenario = SCENARIOS["offline-default"]
    with serving(tmp_path / "sse" / CALL_LOG, "--sse") as sse_only:
        over_sse = run_scenario(impl, scenario, tmp_path / "sse", mcp_url=sse_only.url, mcp_token=TOKEN)
    over_stdio = run_scenario(impl, scenario, tmp_path / "stdio")

    assert over_sse.error is None and over_stdio.error is None, (over_sse.error, over_stdio.error)
    assert wire_view(over_sse.requests) == wire_view(over_stdio.requests)
    assert over_sse.calls_received() == over_stdio.calls_received() and len(over_stdio.calls) >= 3
    assert over_sse.answer == over_stdio.answer
    (connected,) = over_sse.events("mcp_connected")
    assert connected["transport"] == "sse" and connected["url"] == sse_only.url
    assert connected["fallback"] == "the Streamable HTTP initialize was answered HTTP 405"
    assert TOKEN not in json.dumps(over_sse.trace)


def test_ask_over_sse_sends_the_token_and_never_writes_it(tmp_path: Path) -> None:
    with serving(tmp_path / "sse" / CALL_LOG, "--sse") as sse_only:
        done = ask(
            DEFAULT_QUESTION, "--mcp-url", sse_only.url, "--mcp-transport", "sse",
            cwd=tmp_path, env={"K8S_AGENT_MCP_TOKEN": TOKEN},
        )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "Health report" in done.stdout and TOKEN not in done.stdout + done.stderr
    assert f"MCP server: {sse_only.url} over SSE" in done.stderr and "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["mcp_transport"] == "sse" and TOKEN not in json.dumps(trace)
    (connected,) = [event for event in trace if event["kind"] == "mcp_connected"]
    assert connected["transport"] == "sse" and connected["fallback"] is None


def test_a_forced_transport_the_server_does_not_speak_is_one_line_exit_4(tmp_path: Path) -> None:
    with serving(tmp_path / "sse" / CALL_LOG, "--sse") as sse_only:
        done = ask(
            DEFAULT_QUESTION, "--mcp-url", sse_only.url, "--mcp-transport", "streamable-http",
            cwd=tmp_path, env={"K8S_AGENT_MCP_TOKEN": TOKEN},
        )  # fmt: skip

    assert done.returncode == 4, done.stderr
    assert "the server answered HTTP 405" in done.stderr and "Traceback" not in done.stderr


# -- a server that goes away mid-run ----------------------------------------------------------------

GONE_SCRIPT = (
    call("list_pods"),
    call("get_pod_logs", name=ANALYTICS, namespace="production"),
    text("Partial report."),
)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("action", ["exit", "freeze"])
def test_a_server_over_http_that_goes_away_mid_run_is_gone_and_the_run_ends_with_the_summary(
    impl: Impl, action: str, tmp_path: Path
) -> None:
    plan = fault_plan(tmp_path, {"action": action, "after": 1})
    with serving(tmp_path / "http" / CALL_LOG, "--faults", str(plan)) as server:
        run = run_scenario(
            impl, list(GONE_SCRIPT), tmp_path / "http", mcp_url=server.url, mcp_token=TOKEN,
            # A frozen server is found by the call's timeout and the reconnect's; an exited one needs none.
            **({"tool_timeout": EXERCISED_TIMEOUT, "mcp_start_timeout": EXERCISED_TIMEOUT} if action == "freeze" else {}),
        )  # fmt: skip

    assert run.error is None, run.error
    assert run.called_tools == ["list_pods", "get_pod_logs"]  # nothing more reached it
    assert_ended_by_the_lost_server(run)
    (reconnect,) = run.events("mcp_restart")
    assert reconnect["reconnect"] is True and reconnect["ok"] is False
    assert ("stopped answering" if action == "freeze" else "closed the connection") in reconnect["reason"]
    (summary_event,) = [e for e in run.events("guardrail") if e.get("reason") == "server_gone"]
    assert summary_event["guardrail"] == "forced_summary"
    assert TOKEN not in json.dumps(run.trace)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("sse", [False, True], ids=["streamable-http", "sse"])
def test_a_lost_session_is_reopened_once_and_the_call_retried(impl: Impl, sse: bool, tmp_path: Path) -> None:
    plan = fault_plan(tmp_path, {"action": "lose_session", "times": 1})
    extra = ("--sse",) if sse else ()
    with serving(tmp_path / "http" / CALL_LOG, "--faults", str(plan), *extra) as server:
        run = run_scenario(
            impl, [call("list_pods"), call("get_pod_logs", name=PAYMENT, namespace="production"), text("Report.")],
            tmp_path / "http", mcp_url=server.url, mcp_token=TOKEN,
        )  # fmt: skip

    assert run.error is None, run.error
    assert run.called_tools == ["list_pods", "get_pod_logs"]  # the 404 never reached a tool
    assert "missing required field 'DB_PASSWORD'" in run.tool_messages(2)[0]["content"]
    (reconnect,) = run.events("mcp_restart")
    assert reconnect == {**reconnect, "ok": True, "reconnect": True, "attempts": 1}
    assert reconnect["reason"] == "MCP server lost the session (HTTP 404 for its session id)"
    assert run.answer == "Report."


# -- the mock started in HTTP mode ----------------------------------------------------------------


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_ask_starts_the_mock_over_http_and_stops_it_with_the_run(transport: str, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--mcp-transport", transport, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert "Health report" in done.stdout
    (trace,) = traces(tmp_path)
    assert trace[0]["mcp_transport"] == transport and "--http" in trace[0]["mcp_command"]
    (connected,) = [event for event in trace if event["kind"] == "mcp_connected"]
    host, port = connected["url"].removeprefix("http://").split("/")[0].split(":")
    assert host == "127.0.0.1" and connected["transport"] == transport
    with socket.socket() as probe:
        assert probe.connect_ex((host, int(port))) != 0  # nothing listens there any more
