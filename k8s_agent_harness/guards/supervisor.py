"""The run supervisor: budgets that live outside the model's conversation.

The model cannot talk its way past these: the step budget, the wall-clock budget, and the count
of each tool-call fingerprint. When one is spent, the investigation ends with a tool-less summary.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from k8s_agent_harness.vocabulary import StopReason


def call_signature(name: str, arguments: Any) -> str:
    """The duplicate-cache key of a call: `name:json.dumps(args, sort_keys=True)`."""
    if isinstance(arguments, str):  # unparsable arguments: the raw text is the identity
        return f"{name}:{arguments}"
    return f"{name}:{json.dumps(arguments, sort_keys=True)}"


def fingerprint_of(signature: str) -> str:
    """Short sha256 of a call signature, as recorded in the trace."""
    return hashlib.sha256(signature.encode("utf-8")).hexdigest()[:12]


class Supervisor:
    """Counts turns, pushbacks, elapsed time and call fingerprints; says when to stop."""

    def __init__(
        self,
        *,
        max_steps: int,
        max_repeats: int,
        max_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_steps = max_steps
        self.max_repeats = max_repeats
        self.max_seconds = max_seconds
        self._clock = clock
        self._started = clock()
        self.turns = 0
        self.pushbacks = 0
        self.calls: Counter[str] = Counter()
        self.server_gone = False

    def turn_taken(self) -> None:
        """A model turn was requested."""
        self.turns += 1

    def pushback_given(self) -> None:
        """A pushback was sent; it earns the model one more turn."""
        self.pushbacks += 1

    def call_seen(self, call_fingerprint: str) -> int:
        """Count one proposed call; returns how often this fingerprint has been seen."""
        self.calls[call_fingerprint] += 1
        return self.calls[call_fingerprint]

    @property
    def turns_left(self) -> int:
        """Turns the model may still take before the summary."""
        return max(0, self.max_steps + self.pushbacks - self.turns)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return self._clock() - self._started

    def seconds_left(self) -> float:
        """Seconds of the wall-clock budget still unspent."""
        return max(0.0, self.max_seconds - self.elapsed())

    def stop_reason(self) -> StopReason | None:
        """Why the investigation must end now, or None to go on."""
        if self.server_gone:
            return StopReason.SERVER_GONE
        if any(count > self.max_repeats for count in self.calls.values()):
            return StopReason.REPEATED_CALLS
        if self.elapsed() >= self.max_seconds:
            return StopReason.TIME_BUDGET
        if self.turns_left == 0:
            return StopReason.STEP_BUDGET
        return None
