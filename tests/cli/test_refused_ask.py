"""A refused `ask`: one line on stderr, exit 2, decided before the heavy imports, and no trace; a
trace is written once a run started. Run cold (`python -m k8s_agent`, not the tests' warm CLI):
what a process imports is what is tested."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.cli.test_ask import DEFAULT_QUESTION
from tests.processes import HANG_SECONDS, k8s_agent, start_cold, wait_until

# What a run needs and a refusal must not wait for: the model and MCP clients, the SDK, the
# harness's session and tool gateway (each seconds of imports on a loaded machine).
HEAVY = ("openai", "mcp", "agents", "k8s_agent_harness.session", "k8s_agent_harness.guards.gateway")
A_MODEL = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-test", "K8S_AGENT_MODEL": "any"}


def imported(stderr: str) -> set[str]:
    """The modules a process imported, from its `-X importtime` lines on stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def printed(stderr: str) -> list[str]:
    """What the process printed on stderr, without its `-X importtime` lines."""
    return [line for line in stderr.splitlines() if not line.startswith("import time:")]


@pytest.mark.parametrize(
    ("args", "env", "error"),
    [
        (["  "], {}, "error: the question is empty: "),
        (
            [DEFAULT_QUESTION, "--cluster", "missing.json"],
            {},
            "error: cluster fixture not found: missing.json",
        ),
        ([DEFAULT_QUESTION, "--env-file", "missing.env"], {}, "error: env file not found: missing.env"),
        ([DEFAULT_QUESTION, "--max-steps", "0"], {}, "error: max-steps must be at least 1"),
        ([DEFAULT_QUESTION, "--impl", "other"], {}, "error: unknown implementation 'other'"),
        (
            [DEFAULT_QUESTION, "--cluster-server", "kubernetes-mcp-server", "--kubeconfig", "kubeconfig"],
            {"KUBERNETES_MCP_SERVER_BIN": "no-such-binary", **A_MODEL},
            "error: KUBERNETES_MCP_SERVER_BIN=no-such-binary: no such file",
        ),
        (
            [DEFAULT_QUESTION, "--mcp-command", "server", "--context", "prod", "--kubeconfig", "kubeconfig"],
            {},
            "error: context 'prod' is not in the kubeconfig",
        ),
    ],
)
def test_a_refused_ask_is_one_line_and_exit_2_before_the_heavy_imports_and_writes_no_trace(
    args: list[str], env: dict[str, str], error: str, tmp_path: Path
) -> None:
    (tmp_path / "kubeconfig").write_text("apiVersion: v1\nkind: Config\ncontexts: []\n")

    done = k8s_agent(
        "ask",
        *args,
        cwd=tmp_path,
        cold=True,
        env={"K8S_AGENT_TRACE_DIR": "traces", "PYTHONPROFILEIMPORTTIME": "1", **env},
    )

    assert done.returncode == 2
    (line,) = printed(done.stderr)
    assert line.startswith(error)
    assert done.stdout == ""
    loaded = imported(done.stderr)
    assert "k8s_agent.cli" in loaded  # the importtime lines were read
    assert not loaded & set(HEAVY)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["kubeconfig"]  # no trace folder


def test_a_refused_ask_with_json_prints_the_error_object_and_no_trace(tmp_path: Path) -> None:
    import json

    done = k8s_agent("ask", "", "--json", cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"})

    assert done.returncode == 2
    assert json.loads(done.stdout)["trace"] is None and json.loads(done.stdout)["exit_code"] == 2
    assert done.stderr.startswith("error: the question is empty") and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "traces").exists()


def test_ctrl_c_before_the_run_started_is_exit_130_and_leaves_no_trace(tmp_path: Path) -> None:
    # A named .env file that is a FIFO holds the command in its checks (reading its settings) for
    # as long as the test keeps the FIFO open and silent: the Ctrl-C lands before the run starts.
    fifo = tmp_path / "settings.env"
    os.mkfifo(fifo)
    process = start_cold(
        "ask", DEFAULT_QUESTION, "--env-file", str(fifo), cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"}
    )
    writer = None

    def opened() -> bool:  # true once the command has opened the FIFO to read it
        nonlocal writer
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return False
        return True

    try:
        wait_until(opened, "the command opened its env file", process)
        os.killpg(process.pid, signal.SIGINT)
        # A Ctrl-C that lands just before the read of the FIFO starts is noted but cannot interrupt
        # it (Python sees it when the read returns): the end of the file ends the read either way.
        os.close(writer)  # type: ignore[arg-type]
        writer = None
        _, err = process.communicate(timeout=HANG_SECONDS)
    finally:
        if writer is not None:
            os.close(writer)
        if process.poll() is None:  # killed as a hang
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    assert process.returncode == 130
    assert err == "interrupted\n"
    assert not (tmp_path / "traces").exists()
