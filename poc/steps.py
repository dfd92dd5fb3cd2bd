"""Run one build step as a subprocess, with progress on stderr: which version, which step, seconds."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from poc.words import one_line

HEARTBEAT_SECONDS = 15.0
_KILLED = -9


@dataclass(frozen=True)
class StepResult:
    """What a step's process did."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """Exited 0."""
        return self.returncode == 0

    def reason(self) -> str:
        """One line saying why it failed: pip's ERROR line, else the last line of stderr."""
        if self.timed_out:
            return f"timed out after {self.seconds:.0f}s"
        lines = [line.strip() for line in (self.stderr or self.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR:")]
        if errors:
            return one_line(errors[0], 200)
        tail = [line for line in lines if not line.startswith("WARNING:")]
        return one_line(tail[-1] if tail else f"exit code {self.returncode}", 200)


class Progress:
    """Prints `[label] step ...` lines with elapsed seconds to stderr (or nothing when quiet)."""

    def __init__(self, quiet: bool = False, stream: TextIO | None = None) -> None:
        self._quiet = quiet
        self._stream = stream or sys.stderr
        self._started = time.monotonic()

    def say(self, label: str, text: str) -> None:
        """One progress line, stamped with the seconds since the command started."""
        if not self._quiet:
            elapsed = time.monotonic() - self._started
            print(f"[{elapsed:6.1f}s] [{label}] {text}", file=self._stream, flush=True)


def run_step(
    progress: Progress,
    label: str,
    title: str,
    command: Sequence[str | Path],
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    timeout: float = 600.0,
) -> StepResult:
    """Run `command`, announcing it, a heartbeat while it runs, and how it ended."""
    progress.say(label, f"{title} ...")
    started = time.monotonic()
    # Files, not pipes: pip can print more than a pipe buffer holds while we only wait.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(
            [str(part) for part in command], stdout=out, stderr=err, env=dict(env), cwd=cwd, text=True
        )
        returncode = _wait(process, progress, label, title, started, timeout)
        out.seek(0)
        err.seek(0)
        seconds = time.monotonic() - started
        result = StepResult(returncode, out.read(), err.read(), seconds, timed_out=returncode == _KILLED)
    outcome = "done" if result.ok else f"failed: {result.reason()}"
    progress.say(label, f"{title}: {outcome} ({result.seconds:.1f}s)")
    return result


def _wait(
    process: subprocess.Popen[str], progress: Progress, label: str, title: str, started: float, timeout: float
) -> int:
    while True:
        try:
            return process.wait(timeout=HEARTBEAT_SECONDS)
        except subprocess.TimeoutExpired:
            elapsed = time.monotonic() - started
            if elapsed > timeout:
                process.kill()
                process.wait()
                return _KILLED
            progress.say(label, f"  {title}: still running ({elapsed:.0f}s)")
