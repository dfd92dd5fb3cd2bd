"""How long this command has been running, as the user waited for it: from the start of the process,
not from the start of a run (the imports and checks before a run can take longer than the run).

On Linux the process's start time comes from /proc (to a clock tick, 10 ms); elsewhere it is when
this module was first imported, which the CLI does first thing. When the CLI's `main` runs a command
line that is not the process's own (a test calling it in its process), the command starts there.
"""

from __future__ import annotations

import os
import time

_IMPORTED = time.monotonic()
_begun: tuple[float, float] | None = None
"""(when `main` began, the seconds the process had run by then when they count), once it did."""


def begin(*, own_process: bool) -> None:
    """The CLI's `main` began a command: the process's own command line (`own_process`: what ran
    before `main` is part of the wait), or one given to it in a process started for something else."""
    global _begun
    before = _seconds_since_start() if own_process else 0.0
    _begun = (time.monotonic(), before)


def command_seconds() -> float:
    """Seconds the command has run: since its process started (or since this module was imported,
    where the process's start cannot be read), or since `main` began one given to it."""
    if _begun is None:
        return _seconds_since_start()
    began, before = _begun
    return time.monotonic() - began + before


def _seconds_since_start() -> float:
    started = _process_age()
    return started if started is not None else time.monotonic() - _IMPORTED


def _process_age() -> float | None:
    try:
        with open(f"/proc/{os.getpid()}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()
        ticks = int(fields[19])  # field 22 of stat(5), counted after the command name's ")"
        started = ticks / os.sysconf("SC_CLK_TCK")
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    age = now - started
    return age if age >= 0 else None
