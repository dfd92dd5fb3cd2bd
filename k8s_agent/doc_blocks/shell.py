"""Running `k8s-agent` for the docs as a user runs it: a process of its own, in a scratch folder,
with no key, no endpoint and no k8s-agent setting from the environment.

Several blocks show the same run (the README's `ask` and report.md's excerpt of it): each
distinct command runs once per refresh, and every block reads its output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

Launcher = Callable[[Sequence[str], Path, Mapping[str, str]], "subprocess.CompletedProcess[str]"]
"""Runs `k8s-agent ARGS` in a folder with extra environment variables (the tests' launcher forks
a warm process instead of starting a cold one)."""

SHOWN_STATE = "~/.local/state"
"""Where a user's traces are: the scratch folder's state directory is shown as this."""


class BlockError(RuntimeError):
    """A block's command did not run as its page needs: one line, naming the block and the command."""


@dataclass(frozen=True)
class Ran:
    """What one command printed, and its exit status."""

    args: tuple[str, ...]
    stdout: str
    stderr: str
    code: int


def cold_launch(
    args: Sequence[str], cwd: Path, extra_env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """`python -m k8s_agent ARGS` in `cwd`, its environment this one's without keys, endpoints or
    k8s-agent settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "k8s_agent", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )


class Shell:
    """Runs the commands behind the blocks, each once, in `workdir`."""

    def __init__(self, workdir: Path, launch: Launcher = cold_launch) -> None:
        self.workdir = workdir
        self.state = workdir / "state"
        self._launch = launch
        self._ran: dict[tuple[str, ...], Ran] = {}
        self._made: dict[str, Any] = {}

    def k8s_agent(self, *args: str, codes: Sequence[int] = (0,), env: Mapping[str, str] | None = None) -> Ran:
        """`k8s-agent ARGS`, with `env` added to its environment (run once; later calls read the same
        output). Exits with another status than `codes` are a BlockError carrying the end of stderr."""
        key = (*args, *(f"{name}={value}" for name, value in sorted((env or {}).items())))
        if key not in self._ran:
            scratch = self.workdir / "tmp"  # the command's temporary files stay in the scratch folder
            scratch.mkdir(parents=True, exist_ok=True)
            folders = {"XDG_STATE_HOME": str(self.state), "TMPDIR": str(scratch)}
            done = self._launch(args, self.workdir, {**folders, **(env or {})})
            self._ran[key] = Ran(tuple(args), done.stdout, done.stderr, done.returncode)
        ran = self._ran[key]
        if ran.code not in codes:
            tail = " | ".join(ran.stderr.strip().splitlines()[-3:])
            raise BlockError(f"`k8s-agent {' '.join(args)}` exited {ran.code}: {tail}")
        return ran

    def once(self, name: str, make: Callable[[], T]) -> T:
        """What `make` returns, made once per shell: runs that share a server started for them."""
        if name not in self._made:
            self._made[name] = make()
        made: T = self._made[name]
        return made

    def path(self, name: str) -> Path:
        """A file in the scratch folder (an output the command writes, a fixture it reads)."""
        return self.workdir / name

    def shown(self, text: str) -> str:
        """`text` with the scratch folder's state directory written as a user's (`~/.local/state`)."""
        return text.replace(str(self.state), SHOWN_STATE)
