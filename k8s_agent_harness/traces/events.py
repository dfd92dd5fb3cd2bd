"""The trace schema: one typed event per kind, the one reader of trace files, and its version.

A trace is a JSONL file, one event per line. Every event carries the header `run_id`, `impl`,
`step` (the model request it belongs to) and `ts` (Unix time), and a `kind` that says which of
the models below it is. The first event, `run_start`, names the schema version the file was
written in; a reader refuses a version it does not know instead of guessing at its fields.

The writer (`trace.Recorder`) stamps the header and redacts every string before a line is
written; the models validate when a file is read (`read_trace`), so the commands that read
traces (show, replay, compare) work on checked, typed events and never on loose dicts.
Large texts are written once: a `result` record (`StoredText`) holds a text and its sha256, before
the first event that names it; a tool call or a request message names it by that hash after
that, however often it comes back. `read_trace` puts each text back where it is named, so the
events a reader gets hold their whole texts, in every version.

docs/traces.md describes each kind for readers of the files.
"""

from __future__ import annotations

import hashlib
import json
import sys
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import (
    Guardrail,
    Impl,
    Outcome,
    Pushback,
    Rejection,
    ReportFormat,
    RunStatus,
    StopReason,
)

SCHEMA_VERSION = 6
"""The version this code writes. Raise it when a field changes meaning or goes away, or a kind (or
a value of the vocabulary) is added (a reader refuses a kind it does not know: version 2 added
`report`; version 3 writes large texts once, as `result` records, and names them by hash; version 4
adds the Responses wire: `api` on run_start and model_request, whose `messages_added` are then input
items; version 5 adds `tool_progress`, makes `tool_call.arguments` always an object (the model's text
in `raw_arguments` when it was not one), names the server's tool beside an alias (`server_tool`,
`tools_listed.aliases`), and says what a tool-list change added, removed and refused; version 6 adds
the `unparsable_call` guardrail, `run_start.stream` and `model_response.repaired`)."""
SUPPORTED_VERSIONS = frozenset({1, 2, 3, 4, 5, SCHEMA_VERSION})
STORED_TEXT_MAX = 4_000_000
"""Characters of one large text a trace keeps: a result of 50 MB leaves 4 MB in the trace, not 50."""
INLINE_BYTES = 4096
"""Texts of tool results shorter than this are written inline, where they occur; longer ones once,
as a `result` record, and named by their sha256."""
STORED_TEXT = "result"
"""The kind of the records that hold a stored text."""


def sha256_of(text: str) -> str:
    """The name of a stored text: the sha256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class TraceError(ConfigError):
    """A trace file cannot be read: missing, empty, of an unknown schema version, or damaged."""


class _Model(BaseModel):
    # Unknown fields are ignored: a reader of version N reads what it knows of a file that a
    # later release of the same version added fields to.
    model_config = ConfigDict(frozen=True, extra="ignore")


class _Event(_Model):
    run_id: str = ""
    impl: Impl = Impl.HANDWRITTEN
    step: int = 0
    """The model request the event belongs to (0 before the first)."""
    ts: float = 0.0
    """Unix time the event was recorded."""


# -- parts of events -------------------------------------------------------------------------------


class ListedTool(_Model):
    """A tool the MCP server listed, with its read-only annotation (None: the server did not say), and
    what the run's read-only policy holds it does (read_policy.py), and why."""

    name: str
    read_only: bool | None = None
    access: str | None = None
    """`read`, `write`, `by-argument`, `withheld` or `unvetted`; absent in traces from before it."""
    why: str | None = None


class ProposedCall(_Model):
    """A tool call as the model proposed it: its id, the tool, the raw argument string."""

    id: str
    name: str
    arguments: str | None = None


class Usage(_Model):
    """Token counts from a response's `usage` (an estimate from bytes against the scripted model)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


class RunCounts(_Model):
    """The counters of a run, as `run_end` records them and `ask --json` prints them."""

    # The keys of `rejected` and `pushback_kinds` are the vocabulary's values; a reader of an older
    # file of this version may miss one (e.g. `skipped`), which counts as 0.

    model_requests: int = 0
    model_attempts: int = 0
    tool_calls_executed: int = 0
    tool_calls_failed: int = 0
    tool_calls_rejected: int = 0
    rejected: dict[Rejection, int] = Field(default_factory=lambda: dict.fromkeys(Rejection, 0))
    pushbacks: int = 0
    pushback_kinds: dict[Pushback, int] = Field(default_factory=lambda: dict.fromkeys(Pushback, 0))
    forced_summary: bool = False
    forced_summary_reason: StopReason | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    bytes_sent: int = 0
    largest_request: int = 0
    """The largest request body sent, in bytes."""


# -- the events ------------------------------------------------------------------------------------


class RunStart(_Event):
    """The run began: what was asked, of which model, against which MCP server, with which budgets."""

    kind: Literal["run_start"] = "run_start"
    schema_version: int = SCHEMA_VERSION
    question: str
    started_at: str
    """UTC, ISO 8601."""
    model: str | None = None
    endpoint: str | None = None
    """The model endpoint without credentials; None for the offline model's own server."""
    mcp_command: list[str] = Field(default_factory=list)
    """The MCP server's command line as it was started (data for readers, never run by replay)."""
    mcp_url: str | None = None
    """A deployed server's Streamable HTTP endpoint, when the run reached one instead of starting a
    command (never a user, password or token: those are refused or redacted)."""
    mcp_server: str | None = None
    """One line on which server that is, how it was found and what it is limited to."""
    mcp_transport: str | None = None
    """`stdio`, `streamable-http` or `sse` as the run was set to use; None for a deployed server
    without --mcp-transport (Streamable HTTP, else SSE: `mcp_connected` says which)."""
    budgets: dict[str, int | float] = Field(default_factory=dict)
    """The budget settings of the run (max_steps, max_repeats, max_seconds, ...)."""
    report_format: ReportFormat | None = None
    """How the report was asked for (json_schema, json_text or prose; `auto` resolved); None in
    version 1 traces, which are all prose."""
    api: str = "chat"
    """The model endpoint's API: `chat` (Chat Completions) or `responses` (the Responses API);
    traces before version 4 are all chat."""
    stream: bool = False
    """Whether the run asked the endpoint to stream its answers (each is recorded as the one
    response it amounts to); traces before version 6 never did."""


class ToolsListed(_Event):
    """The server's tools, which the run offers the model, and which it refuses (possible writes).

    Which tools are possible writes is the run's read-only policy (docs/real-clusters.md).
    """

    kind: Literal["tools_listed"] = "tools_listed"
    tools: list[ListedTool]
    allowed: list[str]
    """The names the model is offered (an alias where the server's name cannot be a function name)."""
    refused: list[str] = Field(default_factory=list)
    """The tools not offered: possible writes the run was not allowed, or tools withheld."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """The server's name of each tool the model knows by another name, and that name (version 5)."""
    tasks_only: list[str] = Field(default_factory=list)
    """Tools left out because the server runs them only as tasks (`execution.taskSupport: required`)."""
    server: str | None = None
    """The name the server gave at initialize (what the read-only policy knows it by)."""
    protocol: str | None = None
    """The MCP protocol version the connection speaks (`2026-07-28`: a server that refused the
    initialize handshake, opened with `server/discover`)."""


class ModelRequest(_Event):
    """A request to the model endpoint as it went on the wire (one per attempt)."""

    kind: Literal["model_request"] = "model_request"
    api: str = "chat"
    """`chat` (Chat Completions: `messages`) or `responses` (the Responses API: `input` items and
    `instructions`)."""
    attempt: int = 1
    model: str | None = None
    bytes: int = 0
    message_count: int = 0
    tools_sent: bool = False
    """Whether the request offered tools (an empty `tools` list offers none)."""
    tool_count: int = 0
    tool_choice: str | dict[str, Any] = "absent"
    """`required`, `auto`, a named tool, or `absent` when the field was not sent."""
    response_format: str | None = None
    """`json_schema:<name>` when the request asked for the report's schema; None when not sent."""
    messages_added: list[dict[str, Any]] | None = None
    """First attempts: the messages (on the Responses wire: the input items) added since the
    previous request (the whole list on the first)."""
    instructions: str | None = None
    """Responses wire, first attempts: the request's `instructions` when they differ from the
    previous request's (on the first, whenever sent)."""
    history_rewritten: bool = False
    """True when the history was not extended but rewritten: `messages_added` is then the whole list."""

    @property
    def offers_tools(self) -> bool:
        """Whether the request let the model call a tool: at least one tool sent, and tool_choice not
        `none`. An empty `tools` list (the SDK's Responses model sends one once tools are withdrawn)
        offers none."""
        return self.tools_sent and self.tool_count > 0 and self.tool_choice != "none"


class ModelResponse(_Event):
    """A response to a request: the model's text and tool calls, or why it was unusable."""

    kind: Literal["model_response"] = "model_response"
    attempt: int = 1
    latency_ms: float = 0.0
    text: str | None = None
    tool_calls: list[ProposedCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    malformed: str | None = None
    """Why the completion was unusable (no choices, a tool call without name, the endpoint's error
    in a 200...); None when usable."""
    body: str | None = None
    """The start of the body of a malformed response."""
    repaired: list[str] = Field(default_factory=list)
    """What the harness repaired before reading the response (a call without an id answered under
    a fresh one, arguments sent as an object), one line each (version 6)."""
    response_id: str | None = None
    """The response's own id (`chatcmpl-...`, `resp_...`), when the endpoint sent one."""
    response_model: str | None = None
    """The model the endpoint says answered, when it said."""
    request_id: str | None = None
    """The endpoint's id of the HTTP request (its `x-request-id` header), when it sent one."""


class ModelError(_Event):
    """An attempt the endpoint answered with an HTTP error (the client may retry it)."""

    kind: Literal["model_error"] = "model_error"
    attempt: int = 1
    status: int
    retry_after: str | None = None
    latency_ms: float = 0.0
    body: str = ""
    request_id: str | None = None
    """The endpoint's id of the HTTP request (its `x-request-id` header), when it sent one."""


class ToolCall(_Event):
    """One proposed tool call, what the gateway did with it, and the text the model got back."""

    kind: Literal["tool_call"] = "tool_call"
    request_id: str
    """The tool call id the model gave the call."""
    tool: str
    """The tool as the model named it."""
    arguments: Any = None
    """The parsed arguments, always an object (version 5; before, the raw string when they were not
    JSON)."""
    raw_arguments: str | None = None
    """The model's argument text, when it was not a JSON object (then `arguments` is `{}`)."""
    server_tool: str | None = None
    """The server's name of the tool, when the model knows it by an alias."""
    fingerprint: str
    """sha256 of `tool:canonical-arguments`, 12 hex digits: what the repeat budget counts."""
    outcome: Outcome
    attempts: int = 0
    """Calls made to the server (retries included); 0 when the gateway answered itself."""
    duration_ms: float = 0.0
    result: str = ""
    """What the model received for this call (an excerpt when the result was too large). In the file,
    when `result_sha256` is set, only what comes before the stored text (the duplicate notice, or
    nothing); a reader gets the whole."""
    result_sha256: str | None = None
    """The stored text (a `result` record) that what the model received ends with, when it is large."""
    handle: str | None = None
    """The stored result's handle (`r1`...) when the model got an excerpt; the full text is `full_result`."""
    full_result: str | None = None
    """The whole result, when the model got an excerpt of it. In the file: the `result` record
    `full_sha256` names (version 3); a reader gets the text."""
    full_sha256: str | None = None
    """The stored text that is the whole result, when the model got an excerpt of it."""
    structured_result: Any = None
    """The server's structured content (`structuredContent`, JSON, redacted like the text), when it
    sent one next to the text; the model reads the text (an excerpt names its outline). In the file,
    when large: the `result` record `structured_sha256` names, whose text is this JSON."""
    structured_sha256: str | None = None
    """The stored text that is `structured_result` as JSON, when it is large."""
    for_user: list[str] = Field(default_factory=list)
    """Content the server addressed to the user only (`audience: ["user"]`): shown on the terminal,
    never sent to the model."""


class ToolProgress(_Event):
    """A tool call in flight reported progress (`notifications/progress`): the first notification of
    a call, then at most one a second."""

    kind: Literal["tool_progress"] = "tool_progress"
    request_id: str
    tool: str
    progress: float
    total: float | None = None
    message: str | None = None
    notifications: int = 1
    """How many progress notifications the call has sent so far."""


class ToolRetry(_Event):
    """A retryable tool failure (429, 503, rate limit, ...) that the gateway retried."""

    kind: Literal["tool_retry"] = "tool_retry"
    request_id: str
    tool: str
    fingerprint: str
    attempt: int
    reason: str
    retry_after: float | None = None
    delay_s: float = 0.0


class GuardrailFired(_Event):
    """A guardrail fired: a pushback (with its message) or a forced summary (with its reason)."""

    kind: Literal["guardrail"] = "guardrail"
    guardrail: Guardrail
    message: str | None = None
    names: list[str] = Field(default_factory=list)
    """For the evidence pushback: the names no tool returned."""
    reason: StopReason | None = None
    """For a forced summary: why the investigation ended."""


class ReportChecked(_Event):
    """A structured report the harness read: whether it parsed, each finding's verification (the
    `verified` and `name_verified` marks in `report`), what is wrong, and the verdict."""

    kind: Literal["report"] = "report"
    format: ReportFormat
    attempt: int = 1
    """1 for the first report, 2 for the one written after the correction turn."""
    parsed: bool
    report: dict[str, Any] | None = None
    """The report as the harness marked it (findings.HealthReport); None when it did not parse."""
    problems: list[str] = Field(default_factory=list)
    """What did not parse, validate or verify, as the correction turn names it."""
    accepted: bool
    """False: a correction turn follows; True: this is the run's report (unverified parts marked)."""


class McpConnected(_Event):
    """The run reached its MCP server over HTTP: at which URL, over which transport, and why not
    Streamable HTTP when it fell back to SSE."""

    kind: Literal["mcp_connected"] = "mcp_connected"
    url: str
    """Without credentials (a URL with a user or password is refused)."""
    transport: str
    """`streamable-http` or `sse`."""
    fallback: str | None = None
    """Why SSE is used: the server answered the Streamable HTTP initialize with a 4xx."""
    session_id: str | None = None
    """The session the server opened (its `Mcp-Session-Id` header), when it opened one."""


class McpRestart(_Event):
    """The MCP server died or stopped answering and was restarted (ok) or could not be (not ok); for
    a server over HTTP, which cannot be restarted by us, a new session was opened (`reconnect`)."""

    kind: Literal["mcp_restart"] = "mcp_restart"
    reason: str
    ok: bool
    error: str | None = None
    reconnect: bool = False
    """A new session with a server over HTTP, not a restarted process."""
    attempts: int = 1
    """How many starts or connections were tried (HTTP: a few, with backoff, within the start timeout)."""


class McpToolsChanged(_Event):
    """The server's tool list changed and was read again: what was added, removed and refused.

    Before the first model request the new list is simply used. After it, tools added or removed
    take effect from the next request (added ones under the same read-only rule), and a tool whose
    definition changed after the model was offered it is refused for the rest of the run (version
    5; before, every later call was refused)."""

    kind: Literal["mcp_tools_changed"] = "mcp_tools_changed"
    detail: str
    """Why the list was read again."""
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    """Tools whose description, input or output schema, or annotations changed."""
    refused: list[str] = Field(default_factory=list)
    """The changed tools that are refused from now on: the model had been offered them."""


class StreamedText(_Model):
    """A piece of the model's text as a stream brings it: shown by the progress display, never
    written to the trace (which records the response the stream amounts to)."""

    text: str


class HarnessWarning(_Event):
    """Something the user should know that did not stop the run (e.g. a tool with a broken schema)."""

    kind: Literal["warning"] = "warning"
    message: str


class RunEnd(_Event):
    """The run ended: with the answer and the counters, or with the error that ended it."""

    kind: Literal["run_end"] = "run_end"
    status: RunStatus
    answer: str | None = None
    ungrounded_names: list[str] = Field(default_factory=list)
    error: str | None = None
    error_type: str | None = None
    stderr_tail: str | None = None
    """The MCP server's last stderr lines, when it failed to start."""
    interrupted: bool = False
    wall_seconds: float = 0.0
    counts: RunCounts = Field(default_factory=RunCounts)


class StoredText(_Event):
    """A large text of the run, written once, before the first event that names it by `sha256`.

    A text longer than STORED_TEXT_MAX is kept cut: its first STORED_TEXT_MAX characters (`text`),
    its whole size (`bytes`) and the sha256 of what is kept (`kept_sha256`); `sha256` is still the
    whole text's, by which events name it. The rest is not kept anywhere: the call that returned
    it returns it again."""

    kind: Literal["result"] = "result"
    sha256: str
    text: str
    bytes: int | None = None
    """The whole text's size in UTF-8 bytes, when only its start is kept."""
    kept_sha256: str | None = None
    """The sha256 of `text`, when only its start is kept."""


Event = Annotated[
    RunStart
    | ToolsListed
    | ModelRequest
    | ModelResponse
    | ModelError
    | ToolCall
    | ToolProgress
    | ToolRetry
    | GuardrailFired
    | ReportChecked
    | McpConnected
    | McpRestart
    | McpToolsChanged
    | HarnessWarning
    | RunEnd,
    Field(discriminator="kind"),
]
EVENT_TYPES: tuple[type[_Event], ...] = typing.get_args(typing.get_args(Event)[0])
"""Every event model, in the order of the union above."""
_EVENT: TypeAdapter[Event] = TypeAdapter(Event)

E = TypeVar("E", bound=_Event)


# -- reading ---------------------------------------------------------------------------------------


def parse_event(data: Any) -> Event:
    """One event from its JSON object; raises pydantic's ValidationError when it breaks the schema."""
    return _EVENT.validate_python(data)


@dataclass(frozen=True)
class Trace:
    """A trace file's events, checked against the schema."""

    events: tuple[Event, ...]
    path: Path | None = None

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def start(self) -> RunStart:
        """The run_start event (every readable trace has one, first)."""
        first = self.events[0]
        assert isinstance(first, RunStart)
        return first

    @property
    def end(self) -> RunEnd | None:
        """The run_end event, or None for a run that never finished (killed)."""
        last = self.events[-1]
        return last if isinstance(last, RunEnd) else None

    def of(self, kind: type[E]) -> list[E]:
        """The events of one kind, in order."""
        return [event for event in self.events if isinstance(event, kind)]


def read_trace(path: Path) -> Trace:
    """Read and check a trace file; raises TraceError with a one-line reason."""
    try:
        with path.open(encoding="utf-8") as lines:
            return parse_trace(lines, str(path), path)
    except FileNotFoundError:
        raise TraceError(f"cannot read trace {path}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{path} is a folder, not a trace file") from None
    except OSError as error:
        raise TraceError(f"cannot read trace {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path} is not a trace: it is not UTF-8 text") from None


def parse_trace(lines: Iterable[str], source: str = "trace", path: Path | None = None) -> Trace:
    """Check the events of a trace, one JSON object per line.

    The first event must be `run_start` with a schema version this reader knows. A last line that
    is not JSON (a run killed while writing it) is skipped; anywhere else it is an error, as is an
    event that does not fit the schema.
    """
    parsed: list[tuple[int, Any]] = []
    damaged: int | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if damaged is not None:
            raise TraceError(f"{source}:{damaged}: not JSON")
        try:
            parsed.append((number, json.loads(line)))
        except ValueError:
            damaged = number
    if damaged is not None:
        print(f"warning: {source}:{damaged} is not JSON (a run killed mid-write?); skipped", file=sys.stderr)
    if not parsed:
        raise TraceError(f"{source} holds no trace events")
    parsed = _resolved(parsed, source)
    number, first = parsed[0]
    if not isinstance(first, dict) or first.get("kind") != "run_start":
        raise TraceError(f"{source}:{number}: not a k8s-agent trace: the first event is not run_start")
    version = first.get("schema_version")
    if version not in SUPPORTED_VERSIONS:
        written = "no schema version (k8s-agent 0.1)" if version is None else f"schema version {version!r}"
        raise TraceError(
            f"{source} is a trace of {written}; this k8s-agent reads schema version "
            f"{', '.join(map(str, sorted(SUPPORTED_VERSIONS)))}: use the k8s-agent release that wrote it"
        )
    events: list[Event] = []
    for number, data in parsed:
        try:
            events.append(parse_event(data))
        except ValidationError as error:
            raise _not_an_event(source, number, error) from None
    return Trace(tuple(events), path)


def resolved_json(records: Iterable[Any], source: str = "trace") -> list[Any]:
    """A trace's JSON objects, in order, with the stored texts put back where they are named and the
    `result` records taken out: what `read_trace` checks against the schema (TraceError: a text is
    named before it is stored, or does not match its sha256)."""
    return [data for _, data in _resolved(list(enumerate(records, start=1)), source)]


def _resolved(parsed: list[tuple[int, Any]], source: str) -> list[tuple[int, Any]]:
    """The events with their stored texts put back where they are named, the `result` records
    themselves taken out (a text the run saw, not a thing it did)."""
    texts: dict[str, str] = {}
    cut: set[str] = set()
    events: list[tuple[int, Any]] = []
    for number, data in parsed:
        if not isinstance(data, dict):
            events.append((number, data))
            continue
        try:
            if data.get("kind") == STORED_TEXT:
                stored = StoredText.model_validate(data)
                if sha256_of(stored.text) != (
                    stored.kept_sha256 if stored.bytes is not None else stored.sha256
                ):
                    raise TraceError(f"{source}:{number}: a stored text that does not match its sha256")
                texts[stored.sha256] = stored.text
                if stored.bytes is not None:
                    cut.add(stored.sha256)
                continue
            events.append((number, resolve(data, texts, cut)))
        except KeyError as missing:
            raise TraceError(
                f"{source}:{number}: names a stored text ({missing.args[0]}) no earlier line holds"
            ) from None
        except ValidationError as error:
            raise _not_an_event(source, number, error) from None
    return events


def _not_an_event(source: str, number: int, error: ValidationError) -> TraceError:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "<event>"
    return TraceError(f"{source}:{number}: not a valid trace event ({where}: {problem['msg']})")


def resolve(
    data: dict[str, Any], texts: dict[str, str], cut: set[str] | frozenset[str] = frozenset()
) -> dict[str, Any]:
    """One event's JSON with the stored texts it names put back (KeyError: one is not known). A
    structured content the trace keeps cut (`cut`) is no JSON any more: it comes back as None."""
    kind = data.get("kind")
    if kind == "tool_call":
        data = dict(data)
        if isinstance(sha := data.get("result_sha256"), str):
            data["result"] = str(data.get("result") or "") + texts[sha]
        if isinstance(sha := data.get("full_sha256"), str):
            data["full_result"] = texts[sha]
        if isinstance(sha := data.get("structured_sha256"), str):
            data["structured_result"] = None if sha in cut else json.loads(texts[sha])
    elif kind == "model_request" and isinstance(data.get("messages_added"), list):
        data = dict(data)
        data["messages_added"] = [_resolved_message(message, texts) for message in data["messages_added"]]
    return data


def _resolved_message(message: Any, texts: dict[str, str]) -> Any:
    """A tool message (`content_sha256`) or a function_call_output item (`output_sha256`) whole."""
    if not isinstance(message, dict):
        return message
    for field_name in ("content", "output"):
        sha = message.get(f"{field_name}_sha256")
        if isinstance(sha, str):
            whole = str(message.get(field_name) or "") + texts[sha]
            kept = {key: value for key, value in message.items() if key != f"{field_name}_sha256"}
            return {**kept, field_name: whole}
    return message
