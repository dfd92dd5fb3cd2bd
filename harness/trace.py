"""JSONL traces: one file per run, one event per line, written as the run goes.

Every event carries `run_id`, `impl`, `step`, `ts` and `kind`. Writing never raises: a trace
that cannot be written costs a warning on stderr, never the run. Every event passes through
the redactor first, so no secret reaches the file or the progress observer.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from harness.redact import Redactor

Event = dict[str, Any]
Observer = Callable[[Event], None]

REJECTION_KINDS = ("unknown", "refused", "invalid_json", "invalid_args", "duplicate")


@dataclass
class RunStats:
    """Counters of one run, as reported by `ask --json` and the comparison table."""

    model_requests: int = 0
    model_attempts: int = 0
    tool_calls_executed: int = 0
    tool_calls_failed: int = 0
    rejected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REJECTION_KINDS, 0))
    pushbacks: dict[str, int] = field(default_factory=lambda: {"zero_tool": 0, "evidence": 0})
    forced_summary: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    bytes_sent: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The counters as plain JSON."""
        return {
            "model_requests": self.model_requests,
            "model_attempts": self.model_attempts,
            "tool_calls_executed": self.tool_calls_executed,
            "tool_calls_failed": self.tool_calls_failed,
            "tool_calls_rejected": sum(self.rejected.values()),
            "rejected": dict(self.rejected),
            "pushbacks": sum(self.pushbacks.values()),
            "pushback_kinds": dict(self.pushbacks),
            "forced_summary": self.forced_summary is not None,
            "forced_summary_reason": self.forced_summary,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "bytes_sent": self.bytes_sent,
        }


def new_run_id() -> str:
    """A short random run id."""
    return uuid.uuid4().hex[:12]


def trace_path(trace_dir: Path, impl: str, run_id: str) -> Path:
    """Where the trace of a run goes: sortable by start time."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return trace_dir / f"{stamp}-{impl}-{run_id}.jsonl"


class TraceWriter:
    """Appends events to a JSONL file, flushing each line; never raises."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._failed = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")
        except OSError as error:
            self._warn(error)

    def write(self, event: Event) -> None:
        """Append one event as a line."""
        if self._file is None:
            return
        try:
            self._file.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
            self._file.flush()
        except (OSError, ValueError, TypeError) as error:
            self._warn(error)

    def close(self) -> None:
        """Close the file; later writes are dropped."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                self._warn(error)
            self._file = None

    def _warn(self, error: Exception) -> None:
        if not self._failed:
            self._failed = True
            print(f"warning: cannot write trace {self.path}: {error}", file=sys.stderr)


class Recorder:
    """The single sink for what a run does: trace file, counters and progress observer."""

    def __init__(
        self,
        writer: TraceWriter,
        *,
        run_id: str,
        impl: str,
        redactor: Redactor,
        observer: Observer | None = None,
    ) -> None:
        self.writer = writer
        self.run_id = run_id
        self.impl = impl
        self.redactor = redactor
        self.observer = observer
        self.stats = RunStats()
        self.step = 0
        self.started = time.monotonic()

    @property
    def path(self) -> Path:
        """The trace file."""
        return self.writer.path

    def event(self, kind: str, **fields: Any) -> Event:
        """Record one event (redacted) and hand it to the observer; returns what was recorded."""
        event: Event = {
            "run_id": self.run_id,
            "impl": self.impl,
            "step": self.step,
            "ts": round(time.time(), 6),
            "kind": kind,
        }
        event.update(self.redactor.value(fields))
        self.writer.write(event)
        if self.observer is not None:
            try:
                self.observer(event)
            except Exception as error:  # boundary: a broken progress printer must not end the run
                self.observer = None
                print(f"warning: progress display failed: {error}", file=sys.stderr)
        return event

    def guardrail(self, name: str, **detail: Any) -> None:
        """Record that a guardrail fired (pushback, forced summary, ...)."""
        if name in self.stats.pushbacks:
            self.stats.pushbacks[name] += 1
        self.event("guardrail", guardrail=name, **detail)

    def force_summary(self, reason: str, **detail: Any) -> None:
        """Record the decision to stop investigating and ask for a tool-less summary."""
        if self.stats.forced_summary is None:
            self.stats.forced_summary = reason
            self.guardrail("forced_summary", reason=reason, **detail)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started
