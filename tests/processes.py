"""Running `k8s-agent` as a user does (a subprocess with no key and no endpoint in its environment),
and finding the processes a run may have left behind (through `pgrep`/`ps`, not by reading files)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from k8s_agent_harness.cluster.servers import WARM_MOCK_CLUSTER, warm_command

HANG_SECONDS = 600.0
"""How long a test waits for a process or a condition before calling it a hang. Only a real hang
reaches it, however slow or busy the machine: a test's outcome must not depend on its speed."""

EXERCISED_TIMEOUT = 5.0
"""The timeout a test sets when it exercises one (a hanging tool, a frozen server): a hang always
reaches it; the run's ordinary calls, milliseconds of work, stay a thousand times below it even on
a machine kept busy (docs/testing.md)."""

OUT_OF_REACH = {
    "tool_timeout": HANG_SECONDS,
    "tool_max_seconds": HANG_SECONDS,
    "mcp_start_timeout": HANG_SECONDS,
    "request_timeout": HANG_SECONDS,
    "max_seconds": HANG_SECONDS,
}
"""The time budgets of a run, set out of reach: a test that does not exercise one must not trip it
on a slow machine (a test that does sets its own). Every run a test starts gets them: in process
(tests.conftest.run_scenario), and `k8s-agent` processes through their environment."""
OUT_OF_REACH_ENV = {
    **{f"K8S_AGENT_{name.upper()}": f"{value:g}" for name, value in OUT_OF_REACH.items()},
    "OTEL_EXPORTER_OTLP_TIMEOUT": f"{HANG_SECONDS * 1000:g}",  # span export, when a test turns it on
}


def clean_env(extra: Mapping[str, str] | None = None, *, warm: bool = True) -> dict[str, str]:
    """This environment without keys, endpoints (OpenTelemetry's too) or k8s-agent settings but the time budgets set out
    of reach (OUT_OF_REACH_ENV), plus `extra`.

    The suite's warm mock cluster (tests/conftest.py) stays, unless `warm` is false: a test of
    the processes a run leaves behind starts its mock clusters as a user's run does.
    """
    if warm:
        warm_up()
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "K8S_AGENT_", "OTEL_")) or (warm and k == WARM_MOCK_CLUSTER)
    }
    clean.update(OUT_OF_REACH_ENV)
    clean.update(extra or {})
    return clean


# The session's warm `k8s-agent` (tests/warm_cli.py), started by `warm_up` in each worker.
WARM_CLI: str | None = None

_WARM = contextlib.ExitStack()


def warm_up() -> None:
    """Start this worker's warm mock cluster and warm `k8s-agent` if they are not running yet: the
    first test that runs an agent or the CLI pays their start (a few seconds), the tests that run
    neither (a module's own unit tests) never do. tests/conftest.py stops them when the session
    ends. Every run's mock cluster, in process or in a `k8s-agent` subprocess, is then forked from
    the warm one in milliseconds instead of importing the MCP stack for a second or more; each run
    still gets a server process of its own."""
    global WARM_CLI
    if WARM_CLI is not None:
        return
    from k8s_agent_mock_cluster.warm import warm_mock_cluster, warm_process

    previous = os.environ.get(WARM_MOCK_CLUSTER)
    os.environ[WARM_MOCK_CLUSTER] = _WARM.enter_context(warm_mock_cluster())
    _WARM.callback(
        lambda: (
            os.environ.pop(WARM_MOCK_CLUSTER, None)
            if previous is None
            else os.environ.__setitem__(WARM_MOCK_CLUSTER, previous)
        )
    )
    root = str(Path(__file__).parent.parent)
    WARM_CLI = _WARM.enter_context(warm_process([sys.executable, "-m", "tests.warm_cli"], cwd=root))


def warm_down() -> None:
    """Stop what `warm_up` started (nothing if it never ran)."""
    global WARM_CLI
    WARM_CLI = None
    _WARM.close()


def k8s_agent(
    *args: str,
    cwd: Path,
    timeout: float = HANG_SECONDS,
    env: Mapping[str, str] | None = None,
    cold: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`python -m k8s_agent ARGS` in `cwd`, with a clean environment: forked from the session's
    warm `k8s-agent` past its imports (a process of its own all the same), or started `cold`."""
    command = (
        warm_command(WARM_CLI, "k8s_agent", args)
        if WARM_CLI is not None and not cold
        else (sys.executable, "-m", "k8s_agent", *args)
    )
    return subprocess.run(
        command,
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def running(pattern: str) -> list[int]:
    """The live (not zombie) processes but this one whose command line matches `pattern` (pgrep -f)."""
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split() if int(pid) != os.getpid() and alive(int(pid))]


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, killed and waiting for its parent, does not)."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True, check=False)
    return state.returncode == 0 and not state.stdout.strip().startswith("Z")


def start_cold(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, python_options: tuple[str, ...] = ()
) -> subprocess.Popen[str]:
    """`python [OPTIONS] -m k8s_agent ARGS` started as a user's terminal starts it, for the tests that
    press Ctrl-C: cold, in a process group of its own (a foreground job: Ctrl-C reaches the whole
    group), with pipes, and with Ctrl-C's default behaviour whatever this process inherited (a shell
    ignores SIGINT in its background jobs, and a child inherits that)."""
    return subprocess.Popen(
        [sys.executable, *python_options, "-m", "k8s_agent", *args],
        cwd=cwd,
        env=clean_env(env, warm=False),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Press Ctrl-C (SIGINT to the process group) and wait for the process to end: its stdout and
    stderr. A process still running after HANG_SECONDS is killed, and the test fails."""
    try:
        os.killpg(process.pid, signal.SIGINT)
        return process.communicate(timeout=HANG_SECONDS)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_until(
    condition: Callable[[], bool], what: str, process: subprocess.Popen[str] | None = None
) -> None:
    """Check `condition` every 50 ms until it holds. Fails the test when HANG_SECONDS pass first, or
    when `process` (the one expected to make it hold) has ended without it holding."""
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        assert process is None or process.poll() is None or condition(), (
            f"the process ended (exit {process.returncode if process else None}) before: {what}"
        )
        assert time.monotonic() < deadline, f"not after {HANG_SECONDS:g} s: {what}"
        time.sleep(0.05)
