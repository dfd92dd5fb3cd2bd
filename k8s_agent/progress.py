"""Progress on stderr while a run goes: each model turn and each tool call as it happens."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO, assert_never

from k8s_agent.timeline import clip, pieces
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Guardrail, Outcome

QUESTION_SHOWN = 200
"""Characters of the question the first progress line shows (the trace keeps it whole)."""
ARGUMENTS_SHOWN = 200
"""Characters of a tool call's arguments its progress line shows."""
NAME_SHOWN = 80
"""Characters of a tool's name a progress line shows (a model may call a name of any length)."""
FOR_USER_SHOWN = 20
"""Lines of content a server addressed to the user that a call's progress lines show (the trace
keeps it whole)."""

BOLD, RED, GREEN, YELLOW, MAGENTA, RESET = (
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[35m",
    "\x1b[0m",
)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def outcome_mark(outcome: Outcome) -> str:
    """✓ executed, ↺ answered from cache, ✗ rejected or failed."""
    match outcome:
        case Outcome.EXECUTED:
            return "✓"
        case Outcome.CACHED:
            return "↺"
        case Outcome.SKIPPED:
            return "⊘"
        case Outcome.FAILED | Outcome.UNKNOWN | Outcome.REFUSED | Outcome.INVALID_JSON | Outcome.INVALID_ARGS:
            return "✗"
        case _:
            assert_never(outcome)


def outcome_words(outcome: Outcome) -> str:
    """What the gateway did with a call that did not run, in a few words."""
    match outcome:
        case Outcome.EXECUTED:
            return "executed"
        case Outcome.FAILED:
            return "failed"
        case Outcome.CACHED:
            return "duplicate, answered from cache"
        case Outcome.UNKNOWN:
            return "unknown tool, rejected"
        case Outcome.REFUSED:
            return "may write, refused"
        case Outcome.INVALID_JSON:
            return "arguments are not JSON, rejected"
        case Outcome.INVALID_ARGS:
            return "arguments break the schema, rejected"
        case Outcome.SKIPPED:
            return "not run: over the per-turn call cap"
        case _:
            assert_never(outcome)


STREAMED_PREFIX = "  │ "
"""The margin of the model's text as a stream brings it (`--stream`)."""
STRUCTURED = frozenset({"json_schema", "json_text"})
"""Report formats whose final answer is a JSON document: streamed, it is shown finding by finding."""
FINDING_SHOWN = 200
"""Characters of a streamed finding's line."""


class ProgressPrinter:
    """Prints one line per model turn, tool call and guardrail, and with `--stream` the model's text
    as it comes (in a margin of its own, ended before the next line). A structured report (a JSON
    document) is not echoed as JSON: one line says the report is being written, then one line per
    finding as each is complete. When the run ends, one line says how long it took and how long the
    command has run (the loading before a run is part of the user's wait, not of the run).

    On a terminal it adds colour (unless NO_COLOR is set or TERM is dumb) and, while the model is
    thinking, a line that counts the seconds, redrawn in place; piped, it prints plain lines only.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        tick: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        command_clock: Callable[[], float] | None = None,
    ) -> None:
        self.stream = stream or sys.stderr
        environ = os.environ if environ is None else environ
        self.interactive = _isatty(self.stream)
        self.color = self.interactive and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"
        self._tick = tick
        self._clock = clock
        self._lock = threading.Lock()
        self._waiting: threading.Event | None = None
        self._streaming = False
        self._structured = False  # the run asked for a JSON report (RunStart.report_format)
        self._pending = ""  # the text of the answer being streamed, while it may be the report
        self._report: _StreamedReport | None = None
        if command_clock is None:
            from k8s_agent.uptime import command_seconds

            command_clock = command_seconds
        self._command_clock = command_clock

    def __call__(self, event: events.Event | events.StreamedText) -> None:
        from k8s_agent_harness.evidence.redact import printable

        if isinstance(event, events.StreamedText):
            self._streamed(printable(event.text))
            return
        if isinstance(event, events.RunStart):
            self._structured = event.report_format is not None and event.report_format.value in STRUCTURED
        line = self.line(event)
        if isinstance(event, events.RunEnd):
            line = self._end_line(event)
        if line:
            line = printable(line)  # tool results and names can carry terminal escapes; colours come after
        with self._lock:
            self._stop_waiting()
            self._end_stream()
            if line:
                print(self._paint(event, line), file=self.stream, flush=True)
            if self.interactive and isinstance(event, events.ModelRequest):
                self._start_waiting()

    def close(self) -> None:
        """Stop the waiting line, if one is drawn, and end the streamed text, if any."""
        with self._lock:
            self._stop_waiting()
            self._end_stream()

    def _streamed(self, text: str) -> None:
        with self._lock:
            self._stop_waiting()
            if self._report is not None:
                self._report_lines(text)
                return
            if not self._streaming and self._structured:
                # Whether this answer is the JSON report shows at its first character that is not space.
                self._pending += text
                start = self._pending.lstrip()
                if not start:
                    return
                text, self._pending = self._pending, ""
                if start[0] in "{`":
                    self._report = _StreamedReport()
                    self.stream.write(
                        f"{STREAMED_PREFIX}writing the report; each finding as it is written:\n"
                    )
                    self._report_lines(text)
                    return
            if not self._streaming:
                self.stream.write(STREAMED_PREFIX)
                self._streaming = True
            self.stream.write(text.replace("\n", "\n" + STREAMED_PREFIX))
            self.stream.flush()

    def _report_lines(self, text: str) -> None:
        assert self._report is not None
        for finding in self._report.feed(text):
            self.stream.write(f"{STREAMED_PREFIX}{clip(_finding_words(finding), FINDING_SHOWN)}\n")
        self.stream.flush()

    def _end_stream(self) -> None:
        self._pending = ""
        self._report = None
        if self._streaming:
            self._streaming = False
            self.stream.write("\n")
            self.stream.flush()

    def _end_line(self, event: events.RunEnd) -> str:
        """How long the run took, and the command (which also loaded the agent before the run)."""
        ended = "ended" if event.status == "ok" else "was interrupted" if event.interrupted else "failed"
        command = max(self._command_clock(), event.wall_seconds)
        return (
            f"run {ended} after {event.wall_seconds:.1f} s; {command:.1f} s since the command started "
            "(the rest: loading the agent and checking the request)"
        )

    def _start_waiting(self) -> None:
        stop = self._waiting = threading.Event()
        started = self._clock()

        def draw() -> None:
            while not stop.wait(self._tick):
                with self._lock:
                    if stop.is_set():
                        return
                    seconds = self._clock() - started
                    self.stream.write(f"\r\x1b[2K  … waiting for the model ({seconds:.0f} s)")
                    self.stream.flush()

        threading.Thread(target=draw, name="progress-waiting", daemon=True).start()

    def _stop_waiting(self) -> None:
        if self._waiting is not None:
            self._waiting.set()
            self._waiting = None
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def _paint(self, event: events.Event, line: str) -> str:
        if not self.color:
            return line
        if isinstance(event, events.ToolCall):
            mark = outcome_mark(event.outcome)
            colour = {"✓": GREEN, "↺": YELLOW, "⊘": YELLOW}.get(mark, RED)
            return line.replace(mark, f"{colour}{mark}{RESET}", 1)
        if isinstance(event, events.GuardrailFired | events.McpRestart | events.McpToolsChanged):
            return f"{MAGENTA}{line}{RESET}"
        if isinstance(event, events.ToolProgress):
            return f"{YELLOW}{line}{RESET}"
        if isinstance(event, events.ReportChecked):
            return f"{GREEN if not event.problems else RED}{line}{RESET}"
        if isinstance(event, events.ModelError) or (
            isinstance(event, events.ModelResponse) and event.malformed
        ):
            return f"{RED}{line}{RESET}"
        if isinstance(event, events.ModelRequest | events.RunStart):
            return f"{BOLD}{line}{RESET}"
        return line

    def line(self, event: events.Event) -> str | None:
        """The progress line for one trace event, or None for events not worth a line."""
        match event:
            case events.RunStart():
                question = clip(event.question, QUESTION_SHOWN)  # a 128 KB question is not a line
                wire = f" on the {event.api} API" if event.api != "chat" else ""
                wire += " (streamed)" if event.stream else ""
                return f"k8s-agent · {event.impl} agent · model {event.model}{wire} · question: {question}"
            case events.ToolsListed():
                note = f" (refused, may write: {', '.join(event.refused)})" if event.refused else ""
                if event.tasks_only:
                    note += f" (left out, run only as tasks: {', '.join(event.tasks_only)})"
                server_names = {alias: real for real, alias in event.aliases.items()}
                shown = [
                    f"{name} [{server_names[name]}]" if name in server_names else name
                    for name in event.allowed
                ]
                return f"  tools: {', '.join(shown)}{note}"
            case events.ModelRequest() if event.attempt == 1:
                if not event.offers_tools:
                    how = "summary, no tools"
                elif event.tool_choice == "required":
                    how = "tools required"
                else:
                    how = "tools offered"
                return (
                    f"step {event.step}: asking the model ({pieces(event.message_count, event.api)}, {how})"
                )
            case events.ModelRequest():
                return f"step {event.step}: retrying the model request (attempt {event.attempt})"
            case events.ModelError():
                after = f", retry-after {event.retry_after}s" if event.retry_after else ""
                return f"  model endpoint answered HTTP {event.status}{after}"
            case events.ModelResponse():
                if event.malformed:
                    return "  model sent a malformed response"
                latency = f" ({event.latency_ms:.0f} ms)"
                if event.tool_calls:
                    return f"  model proposes {plural(len(event.tool_calls), 'tool call')}{latency}"
                return f"  model answers ({plural(len(event.text or ''), 'character')}){latency}"
            case events.ToolCall():
                return self._tool_line(event)
            case events.ToolProgress():
                done = f"{event.progress:g}/{event.total:g}" if event.total else f"{event.progress:g}"
                said = f": {clip(event.message, 120)}" if event.message else ""
                return f"  … {event.tool} is working ({done}){said}"
            case events.ToolRetry():
                return f"  … {event.tool} failed ({event.reason}); retrying in {event.delay_s:g}s"
            case events.GuardrailFired():
                return f"  ! {_guardrail_words(event)}"
            case events.ReportChecked():
                return f"  {_report_words(event)}"
            case events.McpConnected():
                how = {"sse": "SSE", "streamable-http": "Streamable HTTP"}.get(
                    event.transport, event.transport
                )
                why = f" ({event.fallback})" if event.fallback else ""
                return f"  MCP server: {event.url} over {how}{why}"
            case events.McpRestart() if event.reconnect:
                tried = f" ({event.attempts} attempts)" if event.attempts > 1 else ""
                outcome = (
                    f"opened a new session{tried}" if event.ok else f"could not reconnect: {event.error}"
                )
                return f"  ! MCP server: {event.reason}; {outcome}"
            case events.McpRestart():
                outcome = "restarted it" if event.ok else f"could not restart it: {event.error}"
                return f"  ! MCP server: {event.reason}; {outcome}"
            case events.McpToolsChanged():
                return f"  ! MCP server's tool list read again ({event.detail}): {_changes_words(event)}"
        return None

    @staticmethod
    def _tool_line(event: events.ToolCall) -> str:
        arguments = _compact(event.arguments, event.raw_arguments)
        if event.outcome == Outcome.EXECUTED and event.handle and event.full_result is not None:
            lines = event.full_result.count(chr(10)) + 1
            counted = f"{lines:,} {'line' if lines == 1 else 'lines'}"  # one huge JSON line is "1 line"
            detail = f"{counted}, too large: stored as {event.handle}, the model gets an excerpt, {event.duration_ms:.0f} ms"
        elif event.outcome == Outcome.EXECUTED:
            detail = f"{plural(event.result.count(chr(10)) + 1, 'line')}, {event.duration_ms:.0f} ms"
        elif event.outcome == Outcome.FAILED:
            detail = event.result
        else:
            detail = outcome_words(event.outcome)
        name = clip(event.tool, NAME_SHOWN) + (
            f" [{clip(event.server_tool, NAME_SHOWN)}]" if event.server_tool else ""
        )
        line = f"  {outcome_mark(event.outcome)} {name}({arguments}): {clip(detail, 140)}"
        for text in event.for_user:
            shown = text.splitlines()[:FOR_USER_SHOWN] or [""]
            line += "\n    for you: " + "\n             ".join(clip(part, 200) for part in shown)
        return line


class _StreamedReport:
    """Reads a JSON report as a stream brings it: each finding of its `findings` list once the
    finding's object is complete (a report that is not such JSON yields nothing)."""

    _FINDINGS = re.compile(r'"findings"\s*:\s*\[')

    def __init__(self) -> None:
        self._text = ""
        self._at: int | None = None  # where the next finding starts, once the list is found
        self._done = False
        self._decoder = json.JSONDecoder()

    def feed(self, text: str) -> list[Any]:
        """The findings this piece of text completes."""
        self._text += text
        if self._done:
            return []
        if self._at is None:
            found = self._FINDINGS.search(self._text)
            if found is None:
                return []
            self._at = found.end()
        complete: list[Any] = []
        while True:
            at = self._at
            while at < len(self._text) and self._text[at] in " \t\r\n,":
                at += 1
            if at >= len(self._text):
                return complete
            if self._text[at] == "]":
                self._done = True
                return complete
            try:
                finding, self._at = self._decoder.raw_decode(self._text, at)
            except ValueError:  # not complete yet (or not JSON: then it never completes)
                return complete
            complete.append(finding)


def _finding_words(finding: Any) -> str:
    """`pod api-7f (production): CrashLoopBackOff · crash_config`, from a finding as the model wrote it."""
    if not isinstance(finding, dict):
        return f"finding: {clip(str(finding), 80)}"
    name = str(finding.get("name") or "?")
    kind = str(finding.get("kind") or "")
    where = f" ({finding['namespace']})" if finding.get("namespace") else ""
    status = f": {finding['status']}" if finding.get("status") else ""
    cause = f" · {finding['cause']}" if finding.get("cause") else ""
    return f"finding: {kind + ' ' if kind else ''}{name}{where}{status}{cause}"


def _changes_words(event: events.McpToolsChanged) -> str:
    parts = []
    if event.added:
        parts.append(f"added {', '.join(event.added)}")
    if event.removed:
        parts.append(f"removed {', '.join(event.removed)}")
    kept = [name for name in event.changed if name not in event.refused]
    if kept:
        parts.append(f"changed {', '.join(kept)} before the model was offered it")
    if event.refused:
        parts.append(
            f"refused from now on, changed after the model was offered it: {', '.join(event.refused)}"
        )
    return "; ".join(parts) or "nothing changed"


def _guardrail_words(event: events.GuardrailFired) -> str:
    match event.guardrail:
        case Guardrail.ZERO_TOOL:
            return "pushback: the model answered without investigating"
        case Guardrail.EVIDENCE:
            return f"pushback: the report names things no tool returned: {', '.join(event.names)}"
        case Guardrail.REPORT:
            what = f" (names no tool returned: {', '.join(event.names)})" if event.names else ""
            return f"correction: the report does not check out{what}; asking for it once more"
        case Guardrail.FORCED_SUMMARY:
            reason = event.reason.value.replace("_", " ") if event.reason else "budget"
            return f"stopping the investigation ({reason}): asking for the summary"
        case Guardrail.UNPARSABLE_CALL:
            return "the model endpoint could not parse the model's tool call: telling the model"
        case _:
            assert_never(event.guardrail)


def _report_words(event: events.ReportChecked) -> str:
    if not event.parsed:
        return f"✗ the report is not readable as structured findings: {clip(event.problems[0], 120)}"
    findings = (event.report or {}).get("findings") or []
    quotes = [quote for finding in findings for quote in finding.get("evidence") or []]
    verified = sum(1 for quote in quotes if quote.get("verified"))
    mark = "✓" if not event.problems else "✗"
    unverified = f", {plural(len(event.problems), 'problem')}" if event.problems else ""
    return f"{mark} report: {plural(len(findings), 'finding')}, {verified}/{len(quotes)} quotes verified{unverified}"


def _compact(arguments: Any, raw: str | None = None) -> str:
    if raw is not None:
        return clip(raw, 60)
    if isinstance(arguments, dict):
        return clip(
            ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in arguments.items()),
            ARGUMENTS_SHOWN,
        )
    return clip(str(arguments), 60)
