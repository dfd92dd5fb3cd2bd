"""Approval of write tools: a tool the user allowed with --allow-write still asks before each call."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from typing import Any, Protocol, TextIO


class Approver(Protocol):
    """Decides whether one call of a write tool may run."""

    async def __call__(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """True to run the call, False to refuse it."""
        ...


async def deny_all(tool: str, arguments: Mapping[str, Any]) -> bool:
    """The default: nobody is there to approve, so nothing that writes runs."""
    return False


class TerminalApprover:
    """Asks on the terminal before each call; refuses when there is no terminal to ask."""

    def __init__(self, stdin: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._stdin = stdin or sys.stdin
        self._stderr = stderr or sys.stderr
        self._lock = asyncio.Lock()

    async def __call__(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        described = f"{tool}({json.dumps(dict(arguments), sort_keys=True)})"
        if not self._stdin.isatty():
            print(
                f"  ! {described} needs approval, and there is no terminal to ask: refused", file=self._stderr
            )
            return False
        async with self._lock:  # one question at a time
            answer = await asyncio.to_thread(self._ask, f"  ? allow the write call {described}? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    def _ask(self, prompt: str) -> str:
        print(prompt, end="", file=self._stderr, flush=True)
        return self._stdin.readline()
