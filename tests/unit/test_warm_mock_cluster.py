"""The warm mock cluster (k8s_agent_mock_cluster.warm): the same server as a cold start, its exit
status, its folder and environment, and nothing left running when its launcher or the warm
process goes away."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent.scenarios import SCENARIOS
from k8s_agent_harness.cluster.servers import WARM_MOCK_CLUSTER, mock_cluster_command
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from k8s_agent_mock_cluster.warm import warm_mock_cluster
from tests.conftest import run_scenario
from tests.processes import HANG_SECONDS, alive, wait_until

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture
def own_warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A warm mock cluster of this test's own (its servers are the only children it has)."""
    with warm_mock_cluster() as socket_path:
        monkeypatch.setenv(WARM_MOCK_CLUSTER, socket_path)
        yield socket_path


def servers_of(socket_path: str) -> list[int]:
    """The servers a warm process has forked and not reaped: its children."""
    warm = subprocess.run(
        ["pgrep", "-f", f"k8s_agent_mock_cluster.warm {socket_path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    found: list[int] = []
    for parent in warm.stdout.split():
        kids = subprocess.run(["pgrep", "-P", parent], capture_output=True, text=True, check=False)
        found += [int(pid) for pid in kids.stdout.split()]
    return found


def start(command: tuple[str, ...], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def initialize(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE) + "\n")
    process.stdin.flush()
    answer: dict[str, object] = json.loads(process.stdout.readline())
    return answer


def test_the_command_is_the_launcher_only_while_a_warm_mock_cluster_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(WARM_MOCK_CLUSTER, raising=False)
    cold = mock_cluster_command(cluster=tmp_path / "c.yaml")
    monkeypatch.setenv(WARM_MOCK_CLUSTER, str(tmp_path / "s.sock"))
    warm = mock_cluster_command(cluster=tmp_path / "c.yaml")

    assert cold == (sys.executable, "-m", "k8s_agent_mock_cluster", "--cluster", str(tmp_path / "c.yaml"))
    assert warm[1:3] == ("-I", "-S") and warm[-4:] == cold[-4:] and str(tmp_path / "s.sock") in warm


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_a_run_on_a_warm_mock_cluster_is_the_run_on_a_cold_one(
    impl: Impl, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    warm = run_scenario(impl, SCENARIOS["offline-default"], tmp_path / "warm")
    monkeypatch.delenv(WARM_MOCK_CLUSTER)
    cold = run_scenario(impl, SCENARIOS["offline-default"], tmp_path / "cold")

    assert warm.calls_received() == cold.calls_received() and len(cold.calls) >= 3
    assert warm.tool_contents() == cold.tool_contents() and warm.answer == cold.answer
    assert warm.requests == cold.requests  # the model's whole wire


def test_the_server_runs_in_the_launchers_folder_and_exits_with_its_status(
    warm_mock_cluster: str, tmp_path: Path
) -> None:
    (tmp_path / "broken.yaml").write_text("nodes: [")
    env = {"PATH": os.environ["PATH"], WARM_MOCK_CLUSTER: warm_mock_cluster}
    command = mock_cluster_command(cluster=Path("broken.yaml"))  # relative: the launcher's folder

    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 2, done.stderr
    assert "k8s_agent_mock_cluster:" in done.stderr and "broken.yaml" in done.stderr


def test_a_launcher_that_goes_away_takes_its_server_with_it(own_warm: str, tmp_path: Path) -> None:
    launcher = start(mock_cluster_command(), tmp_path)
    try:
        assert initialize(launcher)["id"] == 1
        servers = servers_of(own_warm)
        assert len(servers) == 1 and alive(servers[0])
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(timeout=HANG_SECONDS)
    finally:
        launcher.kill()
        launcher.communicate()
    wait_until(lambda: not alive(servers[0]), "the server gone with its launcher")


def test_closing_stdin_ends_the_server_and_the_launcher_with_status_0(own_warm: str, tmp_path: Path) -> None:
    launcher = start(mock_cluster_command(), tmp_path)
    try:
        assert initialize(launcher)["id"] == 1
        (server,) = servers_of(own_warm)
        _, stderr = launcher.communicate(timeout=HANG_SECONDS)  # closes stdin
    finally:
        launcher.kill()
    assert launcher.returncode == 0, stderr
    assert not alive(server)


def test_the_warm_process_stops_with_its_parent_and_kills_its_servers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with warm_mock_cluster() as socket_path:
        monkeypatch.setenv(WARM_MOCK_CLUSTER, socket_path)
        launcher = start(mock_cluster_command(), tmp_path)
        assert initialize(launcher)["id"] == 1
        (server,) = servers_of(socket_path)
    try:  # the block's end closed the warm process's stdin: it killed the server, its launcher saw it
        _, stderr = launcher.communicate(timeout=HANG_SECONDS)
    finally:
        launcher.kill()
    assert not alive(server) and not Path(socket_path).exists()
    assert launcher.returncode == 1 and "went away" in stderr, stderr


def test_a_launcher_without_a_warm_process_is_one_line_exit_2(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], WARM_MOCK_CLUSTER: str(tmp_path / "nothing.sock")}
    command = mock_cluster_command(environ=env)

    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 2 and "cannot be reached" in done.stderr and "Traceback" not in done.stderr
