"""SIGTERM and SIGHUP end a command the way Ctrl-C (SIGINT) does.

Ctrl-C cancels the running command's main task (asyncio's own SIGINT handling; before the event
loop runs, Python's KeyboardInterrupt): a run ends its trace with `run_end` (interrupted), stops
its MCP server and the other processes it started, and the command says `interrupted` and exits
130. Without this module, SIGTERM (`kill`, a service manager, a container runtime stopping the
process) and SIGHUP (the terminal closed) would kill the process where it stands: no `run_end`,
and a child process left to find out on its own.

`forwarded()` takes both down the Ctrl-C path: the signal is remembered and handed to whatever
handles SIGINT at that moment (asyncio's handler cancels the main task; Python's default raises
KeyboardInterrupt), or KeyboardInterrupt is raised when SIGINT is ignored (a background job).
What the command then says and its exit code name the signal: `interrupted by SIGTERM`, exit
128 + its number (143; 129 for SIGHUP; 130 for Ctrl-C, as before). A signal the process was
started ignoring (`nohup` ignores SIGHUP) stays ignored.

Imports nothing but `signal`: the command line installs it before its heavy imports.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

FORWARDED = (signal.SIGTERM, signal.SIGHUP)
"""The signals that end a command as Ctrl-C does."""

_received: signal.Signals | None = None


def received() -> signal.Signals:
    """The signal that interrupted the command: SIGTERM or SIGHUP when one of them came, else SIGINT."""
    return _received or signal.SIGINT


def signalled() -> bool:
    """Whether SIGTERM or SIGHUP came (an error that follows is its consequence: an exception raised
    inside a C extension while it imports can wrap the KeyboardInterrupt into one of its own)."""
    return _received is not None


def reason() -> str:
    """What an interrupted command says and its trace records: `interrupted` for Ctrl-C,
    `interrupted by SIGTERM` for a forwarded signal."""
    number = received()
    return "interrupted" if number is signal.SIGINT else f"interrupted by {number.name}"


def exit_code() -> int:
    """128 + the interrupting signal's number, as a shell reports a command a signal ended."""
    return 128 + int(received())


def handled() -> None:
    """Say that the KeyboardInterrupt was handled, so that the process exits with its own code.

    CPython takes a KeyboardInterrupt raised while it runs `exec()` or `eval()` of a string (as
    dataclasses, namedtuple and pydantic build their methods, during imports) for an unhandled
    one even when it is caught, and at exit ends the process with SIGINT instead of its code; the
    next `exec()` of a string that completes forgets it.
    """
    exec("")


def _forward(number: int, frame: FrameType | None) -> None:
    """Take SIGTERM or SIGHUP down Ctrl-C's path."""
    global _received
    if _received is None:
        _received = signal.Signals(number)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not _forward:
        handler(signal.SIGINT, frame)  # asyncio's: cancels the main task; Python's: KeyboardInterrupt
        return
    raise KeyboardInterrupt  # SIGINT ignored (a background job): end all the same


@contextmanager
def forwarded() -> Iterator[None]:
    """SIGTERM and SIGHUP end what runs inside as Ctrl-C does; the previous handlers come back after.

    Outside the main thread (where no handler can be installed) it does nothing.
    """
    global _received
    _received = None
    previous: dict[signal.Signals, Any] = {}
    try:
        for number in FORWARDED:
            if signal.getsignal(number) is signal.SIG_IGN:
                continue  # ignored on purpose by whoever started the process
            previous[number] = signal.signal(number, _forward)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
