"""SIGTERM and SIGHUP during a model request end a run as Ctrl-C does: the trace ends with `run_end`,
the MCP server is stopped, one line names the signal, and the exit code is 128 + its number.

The run waits on a model endpoint of the tests' own that never finishes (hostile_model.py); the
signal is sent once the endpoint has the request, to the process alone (as `kill`, a service
manager, a container runtime or a terminal's hangup sends it), never to its process group: the
MCP server gets no signal of its own, the run must stop it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness import interrupts
from k8s_agent_harness.vocabulary import Impl
from tests.cli.test_ask import DEFAULT_QUESTION, traces
from tests.processes import HANG_SECONDS, alive, clean_env, wait_until
from tests.reliability.hostile_model import Mode, hostile_model

SIGNALLED = [
    pytest.param(signal.SIGTERM, "drip", signal.SIG_DFL, id="SIGTERM-while-streaming"),
    pytest.param(signal.SIGHUP, "stall", signal.SIG_DFL, id="SIGHUP-while-stalled"),
    # a shell's background job ignores SIGINT (and its children inherit that): SIGTERM still ends it
    pytest.param(signal.SIGTERM, "stall", signal.SIG_IGN, id="SIGTERM-with-SIGINT-ignored"),
]


def start(impl: Impl, mode: Mode, url: str, cwd: Path, sigint: Any) -> subprocess.Popen[str]:
    """`python -m k8s_agent ask` started cold, in a session of its own, with SIGINT's disposition
    `sigint` (SIGTERM and SIGHUP at their default), its mock cluster a child of its own (not forked from the suite's warm one); the
    time budgets out of reach (clean_env)."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "k8s_agent", "ask", DEFAULT_QUESTION, "--impl", impl,
            "--base-url", url, "--model", "hostile", "--stream", "yes" if mode == "drip" else "no",
        ],
        cwd=cwd,
        env=clean_env({"K8S_AGENT_TRACE_DIR": "traces"}, warm=False),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: _dispositions(sigint),
    )  # fmt: skip


def _dispositions(sigint: Any) -> None:
    """In the child: SIGINT as the case says, SIGTERM and SIGHUP as a terminal leaves them, whatever
    the suite was started under (`nohup` ignores SIGHUP, and a run keeps a signal ignored at start)."""
    signal.signal(signal.SIGINT, sigint)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


def descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs (from `ps`)."""
    listed = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, check=True)
    parents = [tuple(int(n) for n in line.split()) for line in listed.stdout.splitlines() if line.strip()]
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, ppid in parents if ppid == parent]
        found += children
        todo += children
    return found


@pytest.mark.parametrize(("number", "mode", "sigint"), SIGNALLED)
def test_a_signal_during_a_model_request_ends_the_run_as_ctrl_c_does(
    impl: Impl, number: signal.Signals, mode: Mode, sigint: Any, tmp_path: Path
) -> None:
    with hostile_model(mode) as endpoint:
        process = start(impl, mode, endpoint.url, tmp_path, sigint)
        try:
            wait_until(lambda: len(endpoint.requests) >= 1, "the model endpoint got the request", process)
            children = descendants(process.pid)
            assert children, "the run has started its MCP server"
            os.kill(process.pid, number)
            _, err = process.communicate(timeout=HANG_SECONDS)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    assert process.returncode == 128 + number, err
    assert err.strip().splitlines()[-1] == f"interrupted by {number.name}" and "Traceback" not in err
    (trace,) = traces(tmp_path)
    end = trace[-1]
    assert end["kind"] == "run_end" and end["status"] == "error" and end["interrupted"] is True
    assert (end["error"], end["error_type"]) == (f"interrupted by {number.name}", "Interrupted")
    assert len(endpoint.requests) == 1  # interrupted, not retried
    assert [pid for pid in children if alive(pid)] == []  # stopped by the run before it exited


def test_the_signals_are_handled_only_inside_and_one_ignored_at_start_stays_ignored() -> None:
    before = {number: signal.getsignal(number) for number in interrupts.FORWARDED}
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as `nohup` starts a command
    try:
        with interrupts.forwarded():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN, None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is before[signal.SIGTERM]
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
    assert (interrupts.reason(), interrupts.exit_code()) == ("interrupted", 130)  # no signal came: Ctrl-C's
