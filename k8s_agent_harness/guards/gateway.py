"""The tool gateway: the one path every tool call takes, whichever agent drives the loop.

    allowlist -> parse JSON arguments -> validate against the tool's JSON Schema
      -> duplicate cache -> MCP call (timeout, bounded retries) -> redact -> trace -> outcome

Every rejection is a message for the model, never an exception.

It also keeps the run's view of the server's tool list: the name the model knows each tool by
(tool_names.py), and what a change of the list means once the model has been offered tools (added
and removed tools from the next request, a tool whose definition changed under the model refused).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from k8s_agent_harness.cluster.listing import changes
from k8s_agent_harness.cluster.results import ProgressListener, ToolFailure, ToolListing, ToolResult
from k8s_agent_harness.cluster.schemas import ArgumentValidator
from k8s_agent_harness.cluster.tool_names import aliases, model_names
from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.guards.approval import Approver, deny_all
from k8s_agent_harness.guards.read_policy import ReadPolicy
from k8s_agent_harness.guards.supervisor import Supervisor, call_signature, fingerprint_of
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.context import (
    SEARCH_TOOL,
    Budget,
    ResultStore,
    excerpt,
    search_tool_spec,
    size_of,
)
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.trace import Recorder
from k8s_agent_harness.vocabulary import FailureKind, Outcome

MAX_RAW_ARGUMENTS_ECHO = 500
RETRY_BASE_DELAY = 0.25
RETRY_MAX_DELAY = 5.0
PROGRESS_EVENT_SECONDS = 1.0
"""A call's progress is recorded (and shown) at its first notification, then at most this often."""


class ToolCaller(Protocol):
    """What the gateway needs from an MCP client."""

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        on_progress: ProgressListener | None = None,
        within: float | None = None,
    ) -> ToolResult:
        """Call a tool; failures come back as data. A call still running `within` seconds from now
        is cancelled (the run's time budget)."""
        ...


class ToolSource(Protocol):
    """Where the gateway reads the server's tool list again when it changed."""

    async def tool_listing(self) -> ToolListing:
        """The server's tools, listed again first when the server said they changed."""
        ...


@dataclass(frozen=True)
class ToolOutcome:
    """What happened to one proposed tool call, and the text the model receives for it."""

    call_id: str
    tool: str
    kind: Outcome
    content: str
    fingerprint: str
    arguments: Any
    attempts: int = 0
    duration_ms: float = 0.0
    handle: str | None = None
    """The stored result's handle when `content` is an excerpt of it."""
    full: str | None = None
    """The whole result when `content` is an excerpt (the run's one copy of it)."""
    sha256: str | None = None
    """The sha256 of the result's text when it is large (kept once by the recorder): `content` ends
    with it, or is an excerpt of it (`full`)."""
    structured: Any = None
    """The server's structured content for this result (redacted), when it sent one."""
    server_tool: str | None = None
    """The server's name of the tool, when the model knows it by an alias."""
    raw_arguments: str | None = None
    """The model's argument text, when it was not a JSON object (`arguments` is then `{}`)."""
    for_user: tuple[str, ...] = ()
    """What the server addressed to the user only (redacted): shown to them, not sent to the model."""

    @property
    def reached_server(self) -> bool:
        """Whether the MCP server received this call."""
        return self.kind.reached_server


@dataclass(frozen=True)
class RetryPolicy:
    """How the harness retries retryable tool failures; the model only sees the final outcome."""

    attempts: int = 3
    base_delay: float = RETRY_BASE_DELAY
    max_delay: float = RETRY_MAX_DELAY

    def delay(self, failure: ToolFailure, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1`: the server's retry-after if given, capped."""
        if failure.retry_after is not None:
            return min(failure.retry_after, self.max_delay)
        return min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)


class ToolGateway:
    """Checks, executes, caches and records tool calls for one run."""

    def __init__(
        self,
        tools: Sequence[ToolSpec],
        caller: ToolCaller,
        recorder: Recorder,
        supervisor: Supervisor,
        evidence: Evidence,
        *,
        policy: ReadPolicy | None = None,
        approver: Approver = deny_all,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
        store: ResultStore | None = None,
        max_calls_per_turn: int = 0,
        position: Callable[[str], int | None] | None = None,
        source: ToolSource | None = None,
        generation: int = 0,
    ) -> None:
        self.policy = policy or ReadPolicy.of(None)
        """Which tools only read (read_policy.py): the server's vetted table and what the user allowed
        (by default none: every tool of an unnamed server is a possible write)."""
        self.budget = budget or Budget(0)
        self.store = store if store is not None else ResultStore()
        self._max_calls = max_calls_per_turn
        self._position = position or (lambda call_id: None)
        taken = {tool.name for tool in tools}
        name = SEARCH_TOOL if SEARCH_TOOL not in taken else f"k8s_agent_{SEARCH_TOOL}"
        spec = search_tool_spec(name)
        self.search_tool = ToolSpec(name, spec["description"], spec["schema"], read_only=True)
        """The harness's own search over stored results: offered once a result is stored."""
        self._caller = caller
        self._source = source
        self._generation = generation
        """The reading of the server's tool list this gateway holds (ToolListing.generation)."""
        self._recorder = recorder
        self._supervisor = supervisor
        self.evidence = evidence
        self._retry = retry or RetryPolicy()
        self._cache: dict[str, tuple[str, str | None]] = {}
        """What each call signature was answered, with the sha256 of its text when it is kept."""
        self._approver = approver
        self._approved: set[str] = set()
        self._denied: set[str] = set()
        self._validators: dict[str, ArgumentValidator] = {}
        self._search_validator: ArgumentValidator | None = None
        self._turn_offer: tuple[int, list[str], bool] | None = None
        self._known_names: dict[str, str] = {}
        """The name the model knows each tool by, by the server's name: never changed in a run."""
        self._shown: dict[str, str] = {}
        """The definition (ToolSpec.signature) of each tool as the model was first offered it, by the
        server's name: once the model has been offered tools, a definition that changes is refused."""
        self._changed: set[str] = set()
        """The server's names of the tools refused because their definition changed under the model."""
        self._listed: tuple[ToolSpec, ...] = ()
        self._adopt(tools)

    def _adopt(self, listed: Sequence[ToolSpec]) -> None:
        """Take a tool list as the run's: names for the model, and which tools it may call."""
        self._listed = tuple(listed)
        self._known_names = model_names(
            [tool.name for tool in listed], self._known_names, reserved=[self.search_tool.name]
        )
        known = self._known_names

        self.verdicts = {tool.name: self.policy.verdict(tool, known[tool.name]) for tool in listed}
        """The read-only policy's word on each listed tool, by the server's name."""

        def as_task(tool: ToolSpec) -> bool:
            return tool.task_support == "required"

        def allowed(tool: ToolSpec) -> bool:
            if tool.name in self._changed or as_task(tool):
                return False
            return self.verdicts[tool.name].offered

        self.tools = [tool for tool in listed if allowed(tool)]
        """The tools the model may call, in the server's order."""
        self.refused = sorted(
            known[t.name] for t in listed if not self.verdicts[t.name].offered and t.name not in self._changed
        )
        """The tools refused as possible writes (read_policy.py), by the name the model knows them by."""
        self.tasks_only = sorted(
            known[t.name]
            for t in listed
            if as_task(t) and self.verdicts[t.name].offered and t.name not in self._changed
        )
        """The tools left out because the server runs them only as tasks, which this client does not."""
        self.changed = sorted(known[t.name] for t in listed if t.name in self._changed)
        """The tools refused because their definition changed after the model was offered them."""
        self._by_name = {known[tool.name]: tool for tool in self.tools}
        self._validators = {
            offered: self._validators.get(offered)
            or ArgumentValidator(offered, tool.input_schema, self._warn)
            for offered, tool in self._by_name.items()
        }

    @property
    def aliases(self) -> dict[str, str]:
        """The tools the model knows by another name than the server's: server name -> that name."""
        return aliases({tool.name: self._known_names[tool.name] for tool in self._listed})

    def server_name(self, name: str) -> str:
        """The server's name of the tool the model calls (or would call) `name`."""
        tool = self._by_name.get(name)
        if tool is not None:
            return tool.name
        return next((t.name for t in self._listed if self._known_names[t.name] == name), name)

    def hinted_read_only(self, name: str) -> bool:
        """Whether the server marks the tool the model knows as `name` read-only (a hint)."""
        server = self.server_name(name)
        return any(t.name == server and t.read_only is True for t in self._listed)

    @property
    def names(self) -> list[str]:
        """The tools the model may call now, sorted (the search tool once a result is stored)."""
        return sorted([*self._by_name, *([self.search_tool.name] if self.store else [])])

    @property
    def offers_search(self) -> bool:
        """Whether the search tool is offered: some result was too large and is stored."""
        return bool(self.store)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The tools the model may call now, in OpenAI Chat Completions form, under the names it knows
        them by (the server's, in its order, then the search tool once a result is stored)."""
        tools = [tool.openai_tool(self._known_names[tool.name]) for tool in self.tools]
        if self.store:
            tools.append(self.search_tool.openai_tool())
        return tools

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tool definitions of the model request being built: noted as what this turn offers,
        and from now on, what a changed definition is compared with."""
        for tool in self._listed:
            self._shown.setdefault(tool.name, tool.signature())
        self._turn_offer = (self._supervisor.turns, self.names, self.offers_search)
        return self.tool_definitions()

    def listed_event(self, protocol: str | None = None) -> events.ToolsListed:
        """The trace event of the tool list the run starts with (on a connection speaking `protocol`)."""
        return events.ToolsListed(
            tools=[
                events.ListedTool(
                    name=t.name,
                    read_only=t.read_only,
                    access=str(self.verdicts[t.name].access),
                    why=self.verdicts[t.name].why,
                )
                for t in self._listed
            ],
            allowed=self.names,
            refused=self.refused,
            aliases=self.aliases,
            tasks_only=self.tasks_only,
            server=self.policy.server,
            protocol=protocol,
        )

    async def refresh(self) -> None:
        """Read the server's tool list again if it said it changed, and take the change: recorded,
        shown, and applied (added and removed tools from the next request, a tool whose definition
        changed after the model was offered it refused). Before the first model request the new list
        is simply the run's."""
        if self._source is None:
            return
        listing = await self._source.tool_listing()
        if listing.generation == self._generation:
            return
        self._generation = listing.generation
        for problem in listing.problems:
            self._warn(problem)
        diff = changes(self._listed, listing.tools)
        refused = [
            tool.name
            for tool in listing.tools
            if tool.name in self._shown
            and tool.name not in self._changed
            and self._shown[tool.name] != tool.signature()
        ]
        self._changed.update(refused)
        self._adopt(listing.tools)
        self._recorder.emit(
            events.McpToolsChanged(
                detail=listing.why or "the server's tools were listed again",
                added=list(diff.added),
                removed=list(diff.removed),
                changed=list(diff.changed),
                refused=refused,
            )
        )

    def needs_approval(self, name: str, arguments: Mapping[str, Any] | None = None) -> bool:
        """Whether this call asks the operator first: a possible write allowed by --allow-write (or a
        tool that writes by its arguments, allowed so, called in its writing form)."""
        tool = self._by_name.get(name)
        if tool is None:
            return False
        if self.verdicts[tool.name].approval:
            return True
        return (
            arguments is not None
            and bool({tool.name, name} & self.policy.allow_write)
            and (self.policy.writes(tool, arguments) is not None)
        )

    def _writes(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        """Why this call writes when the run may not (a tool offered for reading, called to write)."""
        tool = self._by_name.get(name)
        if tool is None or self.needs_approval(name, arguments):
            return None
        return self.policy.writes(tool, arguments)

    async def approve(self, name: str, raw_arguments: str | None) -> bool:
        """Ask the operator about a call before it is made (for loops that ask first, like the SDK's).

        A call that will be rejected anyway, or answered from cache, needs no approval. A refusal
        is remembered: the call itself then produces and records the refusal message.
        """
        arguments, problem = _parse_arguments(raw_arguments or "")
        if problem is not None or self._schema_errors(name, arguments):
            return True
        if not self.needs_approval(name, arguments):
            return True
        signature = call_signature(name, arguments)
        if signature in self._cache or signature in self._approved:
            return True
        if await self._approver(name, arguments):
            self._approved.add(signature)
            return True
        self._denied.add(signature)
        return False

    async def call(self, call_id: str, name: str, raw_arguments: str | None) -> ToolOutcome:
        """Take one proposed call through every check; always returns the model-visible outcome."""
        started = time.perf_counter()
        raw = raw_arguments or ""
        await self.refresh()  # a tool whose definition changed since it was offered is refused
        outcome = await self._decide(call_id, name, raw)
        outcome = dataclasses.replace(outcome, duration_ms=round((time.perf_counter() - started) * 1e3, 3))
        if not isinstance(outcome.arguments, dict):  # the trace's `arguments` is always an object
            parsed, _ = _parse_arguments(raw)  # a refused or unknown call's arguments may be one
            outcome = (
                dataclasses.replace(outcome, arguments=parsed)
                if isinstance(parsed, dict)
                else dataclasses.replace(outcome, arguments={}, raw_arguments=raw)
            )
        self._record(outcome)
        return outcome

    async def _decide(self, call_id: str, name: str, raw: str) -> ToolOutcome:
        position = self._position(call_id)
        if self._max_calls and position is not None and position >= self._max_calls:
            message = prompts.over_call_cap(position + 1, self._max_calls)
            return self._rejected(call_id, name, Outcome.SKIPPED, message, raw)
        offered, search_offered = self._offered_this_turn()
        if name == self.search_tool.name and search_offered:
            return await self._search(call_id, raw)
        if name not in self._by_name or name not in offered:  # an added tool: offered from the next request
            if name in self.changed:
                return self._rejected(
                    call_id, name, Outcome.REFUSED, prompts.changed_tool(name, offered), raw
                )
            if name in self.refused:
                return self._rejected(
                    call_id, name, Outcome.REFUSED, prompts.refused_tool(name, offered), raw
                )
            return self._rejected(call_id, name, Outcome.UNKNOWN, prompts.unknown_tool(name, offered), raw)
        checked = self._checked(call_id, name, raw)
        if isinstance(checked, ToolOutcome):
            return checked
        arguments, signature, fingerprint = checked
        if self._supervisor.seconds_left() <= 0:  # the budget a user sets is the budget
            return ToolOutcome(
                call_id, name, Outcome.SKIPPED, prompts.over_time_budget(), fingerprint, arguments
            )

        if (why := self._writes(name, arguments)) is not None:
            return ToolOutcome(
                call_id, name, Outcome.REFUSED, prompts.write_call_refused(name, why), fingerprint, arguments
            )
        if self.needs_approval(name, arguments) and signature not in self._approved:
            if signature in self._denied or not await self._approver(name, arguments):
                self._cache[signature] = (prompts.not_approved(name), None)
                return ToolOutcome(
                    call_id, name, Outcome.REFUSED, self._cache[signature][0], fingerprint, arguments
                )

        result, attempts = await self._execute(call_id, name, arguments, fingerprint)
        structured = sha = None
        for_user = tuple(self._recorder.redactor.text(text) for text in result.for_user)
        if result.failure is None:
            content, sha = self._recorder.keep(result.text)  # redacted; a large text kept once
            if result.structured is not None:
                structured = self._recorder.redactor.value(result.structured)
            self.evidence.add(
                content, call_id, name, arguments, structured=structured, parameters=self._parameters(name)
            )
            kind = Outcome.EXECUTED
        else:
            reason = self._recorder.redactor.text(result.failure.reason)
            self.evidence.add_failure(reason, call_id, name, arguments, self._parameters(name))
            content = prompts.tool_failed(name, reason)
            kind = Outcome.FAILED
            if result.failure.kind == FailureKind.GONE:
                self._supervisor.server_gone = True
        del result  # the server's copy of a large text: the kept one is `content`
        handle = full = None
        if self.budget.result_bytes and size_of(content) > self.budget.result_bytes:
            call = describe_call(name, raw)
            stored = self.store.put(call_id, name, call, content, structured=structured, sha256=sha)
            handle, full = stored.handle, stored.text
            content = excerpt(stored, self.budget.result_bytes, call)
        self._cache[signature] = (content, sha if full is None else None)
        return ToolOutcome(
            call_id,
            name,
            kind,
            content,
            fingerprint,
            arguments,
            attempts,
            handle=handle,
            full=full,
            sha256=sha,
            structured=structured,
            server_tool=self._server_name_if_other(name),
            for_user=for_user,
        )

    def _server_name_if_other(self, name: str) -> str | None:
        server = self.server_name(name)
        return server if server != name else None

    async def _search(self, call_id: str, raw: str) -> ToolOutcome:
        """The harness's own tool: search the stored results (validated, cached and traced like any)."""
        name = self.search_tool.name
        checked = self._checked(call_id, name, raw)
        if isinstance(checked, ToolOutcome):
            return checked
        arguments, signature, fingerprint = checked
        content = self.store.search(
            arguments["pattern"],
            handle=arguments.get("handle"),
            regex=bool(arguments.get("regex", False)),
            ignore_case=bool(arguments.get("ignore_case", False)),
            invert=bool(arguments.get("invert", False)),
            max_matches=int(arguments.get("max_matches", 50)),
            max_bytes=self.budget.result_bytes,
        )
        # No evidence: its lines are copies of stored results (evidence already), its header repeats
        # the model's own pattern.
        self._cache[signature] = (content, None)
        return ToolOutcome(call_id, name, Outcome.EXECUTED, content, fingerprint, arguments)

    def _offered_this_turn(self) -> tuple[list[str], bool]:
        """The tools the request of this turn offered (`openai_tools` notes them when a loop builds
        the request; else, as they are when the turn's first call comes).

        A call that stores a result makes the search tool appear, but only from the next request
        on: the calls of one turn are judged against what that turn was offered, whatever order a
        loop runs them in (the SDK runs calls to unknown tools after the others).
        """
        turn = self._supervisor.turns
        if self._turn_offer is None or self._turn_offer[0] != turn:
            self._turn_offer = (turn, self.names, self.offers_search)
        return self._turn_offer[1], self._turn_offer[2]

    def _checked(self, call_id: str, name: str, raw: str) -> ToolOutcome | tuple[Any, str, str]:
        """JSON, schema and the duplicate cache: the outcome that ends the call here, or the parsed
        arguments with the call's signature and fingerprint (counted by the supervisor)."""
        arguments, problem = _parse_arguments(raw)
        if problem is not None:
            return self._rejected(
                call_id, name, Outcome.INVALID_JSON, prompts.invalid_json(problem, _echo(raw)), raw
            )
        errors = self._schema_errors(name, arguments)
        if errors:
            return self._rejected(
                call_id, name, Outcome.INVALID_ARGS, prompts.invalid_arguments(name, errors), arguments
            )
        signature = call_signature(name, arguments)
        fingerprint = fingerprint_of(signature)
        self._supervisor.call_seen(fingerprint)
        if signature in self._cache:
            answer, sha = self._cache[signature]
            cached = prompts.duplicate(answer)  # a large text: the trace names it by its sha256
            return ToolOutcome(call_id, name, Outcome.CACHED, cached, fingerprint, arguments, sha256=sha)
        return arguments, signature, fingerprint

    async def _execute(
        self, call_id: str, name: str, arguments: dict[str, Any], fingerprint: str
    ) -> tuple[ToolResult, int]:
        """Call the server (by the tool's own name), retrying retryable failures with bounded backoff."""
        attempt = 1
        progress = _ProgressReporter(self._recorder, call_id, name)
        while True:
            result = await self._caller.call(
                self.server_name(name),
                arguments,
                on_progress=progress.heard,
                within=self._supervisor.seconds_left(),
            )
            failure = result.failure
            if failure is None or not failure.retryable or attempt >= self._retry.attempts:
                return result, attempt
            delay = self._retry.delay(failure, attempt)
            if delay >= self._supervisor.seconds_left():
                return result, attempt
            self._recorder.emit(
                events.ToolRetry(
                    request_id=call_id,
                    tool=name,
                    fingerprint=fingerprint,
                    attempt=attempt,
                    reason=failure.reason,
                    retry_after=failure.retry_after,
                    delay_s=delay,
                )
            )
            await anyio.sleep(delay)
            attempt += 1

    def _rejected(self, call_id: str, name: str, kind: Outcome, message: str, arguments: Any) -> ToolOutcome:
        fingerprint = fingerprint_of(call_signature(name, arguments))
        self._supervisor.call_seen(fingerprint)
        return ToolOutcome(call_id, name, kind, message, fingerprint, arguments)

    def _record(self, outcome: ToolOutcome) -> None:
        stats = self._recorder.stats
        rejection = outcome.kind.rejection
        if rejection is None:
            stats.tool_calls_executed += 1
            stats.tool_calls_failed += outcome.kind == Outcome.FAILED
        else:
            stats.rejected[rejection] += 1
        self._recorder.emit(
            events.ToolCall(
                request_id=outcome.call_id,
                tool=outcome.tool,
                server_tool=outcome.server_tool,
                arguments=outcome.arguments,
                raw_arguments=outcome.raw_arguments,
                fingerprint=outcome.fingerprint,
                outcome=outcome.kind,
                attempts=outcome.attempts,
                duration_ms=outcome.duration_ms,
                result=outcome.content,
                result_sha256=outcome.sha256 if outcome.full is None else None,
                handle=outcome.handle,
                full_result=outcome.full,
                full_sha256=outcome.sha256 if outcome.full is not None else None,
                structured_result=outcome.structured,
                for_user=list(outcome.for_user),
            )
        )

    def _schema_errors(self, name: str, arguments: Any) -> list[str]:
        if name == self.search_tool.name:
            if self._search_validator is None:
                self._search_validator = ArgumentValidator(name, self.search_tool.input_schema, self._warn)
            return self._search_validator.errors(arguments)
        return self._validators[name].errors(arguments)

    def _parameters(self, name: str) -> tuple[str, ...]:
        """The argument names the tool's input schema declares."""
        properties = self._by_name[name].input_schema.get("properties")
        return tuple(str(key) for key in properties) if isinstance(properties, dict) else ()

    def _warn(self, message: str) -> None:
        self._recorder.warn(message)


class _ProgressReporter:
    """Records the progress a call reports: its first notification, then at most one a second (a
    server may send thousands)."""

    def __init__(self, recorder: Recorder, call_id: str, tool: str) -> None:
        self._recorder = recorder
        self._call_id = call_id
        self._tool = tool
        self._heard = 0
        self._last: float | None = None

    def heard(self, progress: float, total: float | None, message: str | None) -> None:
        """One progress notification of the call."""
        self._heard += 1
        now = time.monotonic()
        if self._last is not None and now - self._last < PROGRESS_EVENT_SECONDS:
            return
        self._last = now
        self._recorder.emit(
            events.ToolProgress(
                request_id=self._call_id,
                tool=self._tool,
                progress=progress,
                total=total,
                message=message,
                notifications=self._heard,
            )
        )


def _parse_arguments(raw: str) -> tuple[Any, str | None]:
    """Parse the model's argument string; an empty string means no arguments."""
    if not raw.strip():
        return {}, None
    try:
        return json.loads(raw), None
    except json.JSONDecodeError as error:
        return None, str(error)


def describe_call(name: str, raw_arguments: str) -> str:
    """A call as the excerpts and stubs name it: `tool(raw arguments)`, the arguments cut at 160 characters."""
    shown = " ".join(raw_arguments.split()) or "{}"
    return f"{name}({shown if len(shown) <= 160 else shown[:159] + '…'})"


def _echo(raw: str) -> str:
    if len(raw) <= MAX_RAW_ARGUMENTS_ECHO:
        return raw
    return raw[:MAX_RAW_ARGUMENTS_ECHO] + f"... [{len(raw) - MAX_RAW_ARGUMENTS_ECHO} more characters]"
