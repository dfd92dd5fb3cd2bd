"""Running `k8s-agent` as a user does (a subprocess with no key and no endpoint in its environment),
and finding the processes a run may have left behind (through `pgrep`/`ps`, not by reading files)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from k8s_agent_harness.servers import WARM_MOCK_CLUSTER, warm_command


def clean_env(extra: Mapping[str, str] | None = None, *, warm: bool = True) -> dict[str, str]:
    """This environment without keys, endpoints or k8s-agent settings, plus `extra`.

    The suite's warm mock cluster (tests/conftest.py) stays, unless `warm` is false: a test of
    the processes a run leaves behind starts its mock clusters as a user's run does.
    """
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "K8S_AGENT_")) or (warm and k == WARM_MOCK_CLUSTER)
    }
    clean.update(extra or {})
    return clean


# The session's warm `k8s-agent` (tests/warm_cli.py), set by tests/conftest.py for each worker.
WARM_CLI: str | None = None


def k8s_agent(
    *args: str, cwd: Path, timeout: float = 300, env: Mapping[str, str] | None = None, cold: bool = False
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
