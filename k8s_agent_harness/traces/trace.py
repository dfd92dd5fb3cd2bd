"""Writing traces: one JSONL file per run, one typed event per line, written as the run goes.

The Recorder is the single sink for what a run does: it stamps each event's header (`run_id`,
`impl`, `step`, `ts`), redacts every string in it, appends it to the file, keeps the run's
counters and hands the event to the progress observer. Writing never raises: a trace that
cannot be written costs a warning on stderr, never the run. The schema is `events.py`.

It also holds the run's large tool results, each distinct text once (`keep`): the gateway, the
evidence and the result store share that one copy, and the file holds it once, as a `result`
record written before the first event that names it by its sha256.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel

from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.private import open_private, private_dirs
from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.traces.spans import SpanBuilder
from k8s_agent_harness.vocabulary import Guardrail, Impl, Pushback, Rejection, ReportFormat, StopReason

Observer = Callable[[events.Event | events.StreamedText], None]
"""Shown each event as it is recorded, and each piece of a streamed answer's text."""
E = TypeVar("E", bound=BaseModel)


@dataclass
class RunStats:
    """Counters of one run, as reported by `ask --json` and the comparison table."""

    model_requests: int = 0
    model_attempts: int = 0
    tool_calls_executed: int = 0
    tool_calls_failed: int = 0
    rejected: dict[Rejection, int] = field(default_factory=lambda: dict.fromkeys(Rejection, 0))
    pushbacks: dict[Pushback, int] = field(default_factory=lambda: dict.fromkeys(Pushback, 0))
    forced_summary: StopReason | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    bytes_sent: int = 0
    largest_request: int = 0

    def counts(self) -> events.RunCounts:
        """The counters as the trace's `run_end` records them."""
        return events.RunCounts(
            model_requests=self.model_requests,
            model_attempts=self.model_attempts,
            tool_calls_executed=self.tool_calls_executed,
            tool_calls_failed=self.tool_calls_failed,
            tool_calls_rejected=sum(self.rejected.values()),
            rejected=dict(self.rejected),
            pushbacks=sum(self.pushbacks.values()),
            pushback_kinds=dict(self.pushbacks),
            forced_summary=self.forced_summary is not None,
            forced_summary_reason=self.forced_summary,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            bytes_sent=self.bytes_sent,
            largest_request=self.largest_request,
        )

    def as_dict(self) -> dict[str, Any]:
        """The counters as plain JSON."""
        return self.counts().model_dump(mode="json")


def new_run_id() -> str:
    """A short random run id."""
    return uuid.uuid4().hex[:12]


RUN_TRACE = re.compile(r"^\d{8}T\d{6}Z-(?:handwritten|sdk)-[0-9a-f]{12}\.jsonl$")
"""The name of a run's trace file: `<UTC time>-<impl>-<run id>.jsonl`, sortable by start time."""


def trace_path(trace_dir: Path, impl: Impl, run_id: str) -> Path:
    """Where the trace of a run goes: sortable by start time."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return trace_dir.expanduser() / f"{stamp}-{impl.value}-{run_id}.jsonl"


def run_traces(folder: Path) -> list[Path]:
    """The run traces in a folder (not compare or replay subfolders), oldest first: by when they were
    last written (a trace copied in, whatever its name, is not newer than the run written after it),
    then by name."""
    found = []
    try:
        for path in folder.iterdir():
            if RUN_TRACE.match(path.name) and path.is_file():
                try:
                    found.append((path.stat().st_mtime_ns, path.name, path))
                except OSError:
                    continue
    except OSError:
        return []
    return [path for _, _, path in sorted(found)]


def prune_traces(folder: Path, keep: int) -> int:
    """Delete the oldest run traces beyond `keep` (0 keeps every one); returns how many went.

    Only files named as run traces are touched. Never raises: a trace that cannot be deleted stays.
    """
    if keep <= 0:
        return 0
    removed = 0
    for path in run_traces(folder)[:-keep]:
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def prune_folders(folder: Path, prefix: str, keep: int, current: Path | None = None) -> int:
    """Delete the oldest run folders named `<prefix><UTC time>-...` (a comparison's, a replay's)
    beyond `keep`, by when they were last written (0 keeps every one; `current` is never deleted);
    returns how many went. Never raises: a folder that cannot be deleted stays."""
    if keep <= 0:
        return 0
    pattern = re.compile(rf"^{re.escape(prefix)}\d{{8}}T\d{{6}}Z-")
    found = []
    try:
        for path in folder.iterdir():
            if pattern.match(path.name) and path.is_dir() and not path.is_symlink():
                try:
                    found.append((path.stat().st_mtime_ns, path.name, path))
                except OSError:
                    continue
    except OSError:
        return 0
    ordered = [path for _, _, path in sorted(found)]
    removed = 0
    for path in ordered[:-keep]:
        if current is not None and path.resolve() == current.resolve():
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += not path.exists()
    return removed


class TraceWriter:
    """Appends lines to a JSONL file, flushing each; never raises. The file is 0600, and each folder
    it creates for it 0700 (private.py): a trace holds what the cluster showed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._failed = False
        try:
            private_dirs(path.parent)
            self._file = open_private(path, "a")
        except OSError as error:
            self._warn(error)

    def write(self, line: str) -> None:
        """Append one line (without its newline)."""
        if self._file is None:
            return
        try:
            self._file.write(line)  # not `line + "\n"`: a line may be megabytes
            self._file.write("\n")
            self._file.flush()
        except (OSError, ValueError) as error:
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
        impl: Impl,
        redactor: Redactor,
        observer: Observer | None = None,
        spans: SpanBuilder | None = None,
    ) -> None:
        self.writer = writer
        self.spans = spans
        """The run's span builder, when spans are exported (otel.py)."""
        self.run_id = run_id
        self.impl = impl
        self.redactor = redactor
        self.observer = observer
        self.stats = RunStats()
        self.step = 0
        self.reports_checked = 0
        self.started = time.monotonic()
        self._texts: dict[str, str] = {}
        """The large tool results kept, by sha256: the run's one copy of each."""
        self._written: set[str] = set()
        """The sha256 of each text written to the file as a `result` record."""

    def keep(self, text: str) -> tuple[str, str | None]:
        """A tool result's text redacted, as the run keeps it, and its sha256 when it is large.

        A large text the run has seen before comes back as the copy already kept (the new one is
        dropped), so every holder of it shares one.
        """
        text = self.redactor.text(text)
        if len(text) < events.INLINE_BYTES:
            return text, None
        sha = events.sha256_of(text)
        return self._texts.setdefault(sha, text), sha

    def stored_suffix(self, text: str) -> tuple[str, str] | None:
        """For a large text that ends with one already written as a `result` record (a tool message
        of a request): what comes before it, and its sha256."""
        if len(text) < events.INLINE_BYTES:
            return None
        for sha, stored in self._texts.items():
            if sha in self._written and len(stored) <= len(text) and text.endswith(stored):
                return text[: len(text) - len(stored)], sha
        return None

    @property
    def path(self) -> Path:
        """The trace file."""
        return self.writer.path

    def emit(self, event: E) -> E:
        """Record one event (header stamped, every string redacted); returns what was recorded."""
        redacted: E = self.redactor.value(event)
        recorded = redacted.model_copy(
            update={"run_id": self.run_id, "impl": self.impl, "step": self.step, "ts": round(time.time(), 6)}
        )
        self.writer.write(self._line(recorded))
        if self.spans is not None:
            try:
                self.spans.feed(recorded)  # type: ignore[arg-type]  # every E the harness emits is an Event
            except Exception as error:  # boundary: spans are never worth a run
                self.spans = None
                print(f"warning: spans of this run are not sent: {error}", file=sys.stderr)
        if self.observer is not None:
            try:
                self.observer(recorded)  # type: ignore[arg-type]  # every E the harness emits is an Event
            except Exception as error:  # boundary: a broken progress printer must not end the run
                self.observer = None
                print(f"warning: progress display failed: {error}", file=sys.stderr)
        return recorded

    def _line(self, event: BaseModel) -> str:
        """The event as the file holds it: a tool call's large texts by sha256, each written once."""
        if not isinstance(event, events.ToolCall):
            return event.model_dump_json()
        update: dict[str, Any] = {}
        exclude: set[str] = set()
        if event.full_sha256 is not None and event.full_result is not None:
            self._store(event.full_sha256, event.full_result)
            exclude.add("full_result")
        if event.result_sha256 is not None and (stored := self._texts.get(event.result_sha256)) is not None:
            self._store(event.result_sha256, stored)
            update["result"] = event.result[: len(event.result) - len(stored)]
        if event.structured_result is not None:
            structured = json.dumps(event.structured_result, sort_keys=True, ensure_ascii=False)
            if len(structured) >= events.INLINE_BYTES:
                update["structured_sha256"] = sha = events.sha256_of(structured)
                self._store(sha, structured)
                exclude.add("structured_result")
        return event.model_copy(update=update).model_dump_json(exclude=exclude)

    def _store(self, sha: str, text: str) -> None:
        """Write a large text as a `result` record, the first time it is named."""
        if sha in self._written:
            return
        self._written.add(sha)
        whole = kept = None
        if len(text) > events.STORED_TEXT_MAX:  # the trace keeps its start: a trace stays a readable size
            whole = len(text.encode("utf-8", "replace"))
            text = text[: events.STORED_TEXT_MAX]
            kept = events.sha256_of(text)
        record = events.StoredText(
            run_id=self.run_id,
            impl=self.impl,
            step=self.step,
            ts=round(time.time(), 6),
            sha256=sha,
            text=text,
            bytes=whole,
            kept_sha256=kept,
        )
        self.writer.write(record.model_dump_json())

    def pushback(self, kind: Pushback, message: str, names: list[str] | None = None) -> None:
        """Record a pushback the review policy gave."""
        self.stats.pushbacks[kind] += 1
        self.emit(events.GuardrailFired(guardrail=Guardrail(kind.value), message=message, names=names or []))

    def report_checked(
        self,
        report_format: ReportFormat,
        *,
        parsed: bool,
        report: dict[str, Any] | None,
        problems: list[str],
        accepted: bool,
    ) -> None:
        """Record the harness's reading of a structured report (one event per report reviewed)."""
        self.reports_checked += 1
        self.emit(
            events.ReportChecked(
                format=report_format,
                attempt=self.reports_checked,
                parsed=parsed,
                report=report,
                problems=problems,
                accepted=accepted,
            )
        )

    def force_summary(self, reason: StopReason) -> None:
        """Record the decision to stop investigating and ask for a tool-less summary (once)."""
        if self.stats.forced_summary is None:
            self.stats.forced_summary = reason
            self.emit(events.GuardrailFired(guardrail=Guardrail.FORCED_SUMMARY, reason=reason))

    def unparsable_call(self, message: str) -> None:
        """Record a reply the provider could not parse as a tool call, and what the model was told:
        counted as a call whose arguments are not JSON (C8)."""
        self.stats.rejected[Rejection.INVALID_JSON] += 1
        self.emit(events.GuardrailFired(guardrail=Guardrail.UNPARSABLE_CALL, message=message))

    def show_text(self, text: str) -> None:
        """Show a piece of a streamed answer's text (the trace records the whole response)."""
        if self.observer is None:
            return
        try:
            self.observer(events.StreamedText(text=self.redactor.text(text)))
        except Exception as error:  # boundary: a broken progress printer must not end the run
            self.observer = None
            print(f"warning: progress display failed: {error}", file=sys.stderr)

    def warn(self, message: str) -> None:
        """Tell the user something that does not stop the run, on stderr and in the trace."""
        print(f"warning: {message}", file=sys.stderr)
        self.emit(events.HarnessWarning(message=message))

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started
