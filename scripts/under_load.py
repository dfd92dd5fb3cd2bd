"""Run a command with the machine's cores kept busy, and say how long it took and how busy it was.

    python scripts/under_load.py [--busy N] [--] COMMAND ...

Starts N processes that spin on the CPU (default: twice the cores, at least 4), runs COMMAND, stops
them, and prints on stderr the command's exit code, its wall time and the load average seen while it
ran (sampled every 10 s). Exits with the command's exit code. Used to check that the test suite's
outcome does not depend on the machine's speed (docs/testing.md):

    .venv/bin/python scripts/under_load.py -- .venv/bin/python -m pytest
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time


def _spin() -> None:  # pragma: no cover - runs in a child process
    os.nice(0)
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cores = os.cpu_count() or 1
    parser.add_argument(
        "--busy", type=int, default=max(4, 2 * cores), help="busy processes (default %(default)s)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run, e.g. -- .venv/bin/python -m pytest")
    if args.busy < 0:
        parser.error("--busy must be 0 or more")

    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    loads: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(10):
            loads.append(os.getloadavg()[0])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    try:
        # The command gets the default Ctrl-C behaviour even when this script was started in the
        # background by a shell (which ignores SIGINT there): tests of Ctrl-C rely on it.
        status = subprocess.call(command, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    except KeyboardInterrupt:
        status = 130
    finally:
        elapsed = time.monotonic() - started
        done.set()
        for spinner in spinners:
            spinner.terminate()
        for spinner in spinners:
            spinner.join(5)
    seen = f"load average {min(loads):.1f} to {max(loads):.1f}" if loads else "load not sampled (under 10 s)"
    print(
        f"under_load: exit {status} after {elapsed:.0f} s with {args.busy} busy processes on {cores} cores; "
        f"{seen}",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
