"""What the wire and the server show, read once for every item: the verdicts, an observed run, the
messages, offers and answers of a request, the model's proposals and the server's receipts."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, UnknownType

from k8s_agent_harness.evidence.provenance import normalised
from k8s_agent_mock_cluster.writes import WRITE_TOOLS as WRITE_TOOL_DESCRIPTIONS
from k8s_agent_scripted_llm.responses_api import chat_request, is_responses_request

Verdict = Literal["holds", "fails", "not observable"]


HOLDS: Verdict = "holds"


FAILS: Verdict = "fails"


UNOBSERVABLE: Verdict = "not observable"


EXCERPT = 240


WRITE_TOOLS = tuple(WRITE_TOOL_DESCRIPTIONS)
"""The mock cluster's tools that change the cluster (annotated destructive, offered with
--with-write-tools); a subject may offer one under another name (`is_write_tool`)."""


UNVERIFIED_MARKS = (
    "unverified", "not verified", "not found", "✗", "unconfirmed", "could not be verified", "not confirmed",
    "fabricated", "not in any tool", "in no tool", "no tool returned", "unsupported", "unproven",
    "unsubstantiated", "could not be found", "not backed",
)  # fmt: skip
"""How an answer may mark a quote it could not verify (any one, on the quote's line, or in the quote's
own object when the answer is JSON)."""


REFUSAL_WORDS = (
    "not", "no", "never", "n't", "cannot", "unknown", "unavailable", "refused", "refuse", "refusing",
    "rejected", "reject", "denied", "deny", "declined", "decline", "disallowed", "forbidden",
    "prohibited", "disabled", "blocked", "skipped", "read-only", "read only", "only read",
)  # fmt: skip
"""Ordinary words of refusal, each a whole word (`n't` ends one: `won't`, `wasn't`): an answer to a
refused call says it was not run with any one of them. Saying the call waits for an approval says
nothing of the kind."""


REFUSAL = re.compile(
    r"(?i)(?<![a-z0-9_])(?:"
    + "|".join(re.escape(word) for word in REFUSAL_WORDS if word != "n't")
    + r")(?![a-z0-9_])|n't(?![a-z0-9_])"
)


JSON_WORDS = (
    "json",
    "decod",
    "parse",
    "expecting",
    "unexpected",
    "invalid character",
    "syntax",
    "unterminated",
)
"""How an answer may say arguments are not JSON (a decoder's message in any language)."""


EXCERPT_WORDS = (
    "truncat", "excerpt", "omitted", "elided", "not shown", "more line", "lines hidden", "shortened",
    "abridged", "[...]", "…", "cut ",
)  # fmt: skip
"""How an answer may say it shows only part of a result (an excerpt must say it is one)."""


REPORT_FIELDS = ("cause", "status", "explanation", "evidence", "fix", "kind", "namespace", "healthy")
"""What a health report's finding has: a correction of the scripted broken report (a finding with only a
name and a cause off the list) names one of these, when the subject's schema is not on the wire."""

FINDING_FIELDS = ("name", *REPORT_FIELDS)
"""Every field of a finding (its `name` is required by the report's schema): a system prompt that
describes the report names at least two of them."""


FINGERPRINT_LINES = 3


FINGERPRINT_WIDTH = 100


@dataclass(frozen=True)
class Observed:
    """What one scenario run of a subject left on the wire and at the server."""

    scenario: str
    requests: Sequence[Mapping[str, Any]]
    """Every request body the model server received, in order, as sent."""
    replies: Sequence[Mapping[str, Any]]
    """The assistant message of every completion the model server sent, in order."""
    calls: Sequence[Mapping[str, Any]]
    """Every tools/call the mock cluster received (tool, arguments), in order."""
    answer: str | None = None
    """The subject's final answer, where its adapter finds one."""
    error: str | None = None
    """How the subject's run failed (exit status, exception), or None."""
    steps_left: int = 0
    """Scripted steps the subject never asked for."""
    results: Sequence[Mapping[str, Any]] = ()
    """What the mock cluster answered each call it ran (tool, arguments, text, is_error), in order."""
    structured: bool | None = None
    """Whether the subject declares that it asks for a structured report (None: it does not say)."""
    max_steps: int | None = None
    """The scenario's step budget, as the subject was given it."""
    write_tools: bool = False
    """Whether the mock cluster offered its write tools in this run (C13 is judged there)."""
    server_schemas: Mapping[str, Any] = field(default_factory=dict)
    """The argument schemas of the server's tools, by name: what a call must fit to be valid (a
    subject may offer the model a stricter copy; the server's is the one that counts)."""
    sent: Sequence[Mapping[str, Any]] = ()
    """The request bodies as sent, when some came on the Responses wire (`requests` then holds the
    Chat Completions form of each conversation, which the rules read); empty when every request
    was Chat. C14 and the evidence that quotes a body read these."""
    secrets: Mapping[str, str] = field(default_factory=dict)
    """What must never reach the model, by what it is: the key the subject was given, and secrets the
    scenario planted in tool results (C14)."""
    conversations: Sequence[Mapping[str, Any]] = ()
    """Every request as the model saw it, in order (the model server's `conversations`): a Responses
    request that continued a stored response (`previous_response_id`) with its `input` expanded to
    the whole chain, any other as sent. Empty: the requests as sent are the conversations."""

    def on_chat(self) -> Observed:
        """This run with every request read as the Chat Completions conversation the model saw: a
        Responses body (`input` items, `function_call` / `function_call_output` paired by `call_id`,
        `tool_choice`, `text.format`) becomes the Chat body it amounts to, a stateful one
        (`previous_response_id`) read as its expanded conversation, so that the rules pair call ids
        and find new messages across the chain; the bodies as sent are kept in `sent`."""
        if self.sent:
            return self
        seen = self.conversations or self.requests
        if not any(is_responses_request(dict(body)) for body in seen):
            return self
        return replace(self, requests=[chat_request(dict(body)) for body in seen], sent=self.requests)

    def choice_sent(self, number: int) -> Any:
        """Request `number`'s `tool_choice` as sent (absent: the string `absent`)."""
        bodies = self.sent or self.requests
        return bodies[number - 1].get("tool_choice", "absent")


@dataclass(frozen=True)
class Violation:
    """One place an item is broken: the scenario, what happened, and the evidence."""

    scenario: str
    summary: str
    evidence: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Judgement:
    """One contract item for one subject."""

    item: str
    verdict: Verdict
    summary: str
    evidence: list[str] = field(default_factory=list)
    """Request numbers with excerpts, server log lines: what the verdict rests on (for a failure:
    every violation's, each line prefixed with its scenario)."""
    scenarios: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)


def clip(text: Any, width: int = EXCERPT) -> str:
    """One line of at most `width` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def content_text(content: Any) -> str:
    """A message's content as text (a string, or the text of its parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


@functools.lru_cache(maxsize=1 << 15)
def readable(text: str) -> str:
    """What a message says, read whichever way it was written: the text itself, then, when it is JSON
    (or holds a JSON object after some words), every string of it decoded. An agent may send a result
    JSON-encoded (`{"result": "pod \\"x\\" not found"}`), and its escaped quotes are still the result.
    Kept for the strings seen last: a conversation sends its earlier messages again each request."""
    decoded = json_strings(text)
    return f"{text}\n{decoded}" if decoded else text


def json_value(text: str) -> tuple[Any, tuple[int, int]] | None:
    """The JSON object or array a text is, or holds (fenced, or after some words), and where it is."""
    decoder = json.JSONDecoder()
    for start in [i for i, c in enumerate(text) if c in "{["][:8]:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value, (start, end)
    return None


def leaves(value: Any, keys: bool = True) -> Iterator[Any]:
    """The keys (with `keys`) and the scalar values of a JSON value, depth first, in order."""
    if isinstance(value, dict):
        for key, item in value.items():
            if keys:
                yield str(key)
            yield from leaves(item, keys)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, keys)
    else:
        yield value


def json_strings(text: str) -> str:
    """Every key and string of the JSON a text holds, one per line (empty when it holds none)."""
    found = json_value(text)
    if found is None:
        return ""
    lines: list[str] = []
    for value in leaves(found[0]):
        if isinstance(value, str):
            lines.append(value)
            inner = json_strings(value) if value.lstrip()[:1] in ("{", "[") else ""
            if inner:
                lines.append(inner)
        elif value is not None:
            lines.append(json.dumps(value))
    return "\n".join(lines)


def messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A request's messages."""
    return [m for m in body.get("messages") or [] if isinstance(m, Mapping)]


def offers_tools(body: Mapping[str, Any]) -> bool:
    """Whether a request lets the model call a tool: a non-empty `tools` and no `tool_choice: none`
    (with `none` the model cannot call one: such a request counts as tool-less)."""
    return bool(body.get("tools")) and body.get("tool_choice") != "none"


def forces_tool(body: Mapping[str, Any]) -> bool:
    """Whether a request forces a tool call (`required`, a named function, or a list of allowed tools
    in `required` mode), tools offered or not."""
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping):
        if choice.get("type") == "allowed_tools":
            allowed = choice.get("allowed_tools")
            mode = choice.get("mode") or (allowed.get("mode") if isinstance(allowed, Mapping) else None)
            return mode == "required"
        return True
    return choice == "required"


def tool_names(body: Mapping[str, Any]) -> list[str]:
    """The tools a request offers, by name."""
    return [str((tool.get("function") or {}).get("name")) for tool in body.get("tools") or []]


def write_tools_offered(body: Mapping[str, Any]) -> list[str]:
    """The tools a request offers that change the cluster, under whatever name: a write tool's name
    (or a prefixed one), or a tool offered under another name with a write tool's description and
    argument names (`restart_pod` offered as `refresh_pod`)."""
    found = []
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        name = str(function.get("name"))
        described = " ".join(str(function.get("description") or "").split())
        arguments = set((function.get("parameters") or {}).get("properties") or {})
        if any(same_tool(name, write) for write in WRITE_TOOLS) or any(
            described and described == " ".join(text.split()) and arguments >= {"name", "namespace"}
            for text in WRITE_TOOL_DESCRIPTIONS.values()
        ):
            found.append(name)
    return found


def tool_schema(body: Mapping[str, Any], name: str) -> Any:
    """The JSON Schema of the arguments of an offered tool (None when it is not offered)."""
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("name") == name:
            return function.get("parameters") or {"type": "object"}
    return None


def answers_to(body: Mapping[str, Any], call_id: str) -> list[str]:
    """The contents of the tool messages of a request that answer `call_id`."""
    return [
        content_text(m.get("content"))
        for m in messages(body)
        if m.get("role") == "tool" and str(m.get("tool_call_id")) == call_id
    ]


def first_answer(observed: Observed, call_id: str) -> tuple[int, str] | None:
    """The first request (1-based) that answers `call_id`, with the answer."""
    for number, body in enumerate(observed.requests, start=1):
        found = answers_to(body, call_id)
        if found:
            return number, found[0]
    return None


INSTRUCTING = ("user", "system", "developer")
"""The roles of a message that instructs the model (a system prompt, a pushback, a summary request)."""


SYSTEM_ROLES = ("system", "developer")
"""The roles of a system prompt: `system`, or `developer` as newer models name it (on the Responses
wire the request's `instructions` too, read as a system message)."""


def new_messages(previous: Mapping[str, Any], current: Mapping[str, Any], *roles: str) -> list[str]:
    """Messages of these roles `current` holds beyond what `previous` held (by position after the
    common start: a message rewritten in place counts as new)."""
    before, after = messages(previous), messages(current)
    common = 0
    while common < min(len(before), len(after)) and before[common] == after[common]:
        common += 1
    return [content_text(m.get("content")) for m in after[common:] if m.get("role") in roles]


def new_user_messages(previous: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """User messages `current` holds beyond what `previous` held (by position after the common start)."""
    return new_messages(previous, current, "user")


def system_text(body: Mapping[str, Any]) -> str:
    """A request's system prompt: its system and developer messages."""
    return " ".join(content_text(m.get("content")) for m in messages(body) if m.get("role") in SYSTEM_ROLES)


def same_tool(logged: str, name: str) -> bool:
    """Whether a tool name as the server logged it is `name` as a subject offers it (which may carry
    a prefix: `mock_cluster__list_pods` is `list_pods`), or the other way round."""
    if logged == name:
        return True
    short, long = sorted((logged, name), key=len)
    return long.endswith(short) and not long[: -len(short)][-1:].isalnum()


def log_line(call: Mapping[str, Any]) -> str:
    """A server call as the evidence shows it."""
    return f"server received {call.get('tool')}({json.dumps(call.get('arguments'), sort_keys=True)})"


def _request(number: int, what: str) -> str:
    return f"request {number}: {clip(what)}"


def _mentions(text: str, *words: str) -> bool:
    lowered = text.lower()
    return any(word.lower() in lowered for word in words)


def refuses(text: str) -> bool:
    """Whether a message says a call was not run: one of the words of refusal, as a word."""
    return REFUSAL.search(text) is not None


def _names(text: str, *names: str) -> bool:
    """Whether a text names any of `names` as a whole word (`tail` is not in `details`)."""
    return any(
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(name.lower())}(?![A-Za-z0-9_])", text.lower())
        for name in names
    )


@dataclass(frozen=True)
class Proposal:
    """One tool call the scripted model sent, as the request it answered framed it."""

    reply: int
    """The reply (1-based) that carried it: the answer to request `reply`."""
    call_id: str
    tool: str
    raw: str
    arguments: Any
    """The parsed arguments (None when they are not JSON)."""
    offered: tuple[str, ...]
    """The tools the request offered."""
    writes: tuple[str, ...] = ()
    """The tools the request offered that change the cluster (`write_tools_offered`)."""
    problems: tuple[str, ...] = ()
    """For a call that breaks the offered schema: the fields each problem is about."""

    @property
    def unknown(self) -> bool:
        return self.tool not in self.offered

    @property
    def invalid_json(self) -> bool:
        return not self.unknown and self.arguments is None

    @property
    def breaks_schema(self) -> bool:
        return not self.unknown and self.arguments is not None and bool(self.problems)

    @property
    def valid(self) -> bool:
        return not self.unknown and self.arguments is not None and not self.problems

    @property
    def write(self) -> bool:
        return self.tool in self.writes or any(same_tool(self.tool, name) for name in WRITE_TOOLS)

    @property
    def signature(self) -> str:
        return f"{self.tool} {json.dumps(self.arguments, sort_keys=True)}"


def proposals(observed: Observed) -> list[Proposal]:
    """Every tool call the model server sent, with what the request it answered offered."""
    found = []
    for number, reply in enumerate(observed.replies, start=1):
        body = observed.requests[number - 1] if number <= len(observed.requests) else {}
        offered = tuple(tool_names(body))
        writes = tuple(write_tools_offered(body))
        for call in reply.get("tool_calls") or []:
            function = call.get("function") or {}
            name, raw = str(function.get("name")), str(function.get("arguments") or "")
            try:
                arguments = json.loads(raw) if raw.strip() else {}
            except ValueError:
                arguments = None
            problems: tuple[str, ...] = ()
            if name in offered and arguments is not None:
                own = next((v for k, v in observed.server_schemas.items() if same_tool(k, name)), None)
                problems = schema_problems(own if own is not None else tool_schema(body, name), arguments)
            found.append(
                Proposal(number, str(call.get("id")), name, raw, arguments, offered, writes, problems)
            )
    return found


def schema_problems(schema: Any, arguments: Any) -> tuple[str, ...]:
    """The fields the arguments get wrong against the offered schema, one word each (a missing
    required property by its name, another error by the field it is about)."""
    try:
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    except (SchemaError, UnknownType, TypeError):  # a schema that is none: nothing can break it
        return ()
    words: list[str] = []
    for error in errors:
        instance = error.instance
        if error.validator == "required" and isinstance(instance, dict):
            words += [str(key) for key in error.validator_value if key not in instance]
        elif error.validator == "additionalProperties" and isinstance(instance, dict):
            allowed = set((error.schema or {}).get("properties") or {})
            words += [str(key) for key in instance if key not in allowed]
        elif error.absolute_path:
            words.append(str(error.absolute_path[-1]))
        else:
            words.append(str(error.validator))
    return tuple(dict.fromkeys(words))


def receipts(observed: Observed, tool: str, arguments: Any = ...) -> list[Mapping[str, Any]]:
    """The calls of a tool (with these arguments, when given) that the server received."""
    return [
        call
        for call in observed.calls
        if same_tool(str(call.get("tool")), tool) and (arguments is ... or call.get("arguments") == arguments)
    ]


def result_of(observed: Observed, tool: str, arguments: Any) -> Mapping[str, Any] | None:
    """What the server answered the first call of this tool with these arguments."""
    return next(
        (
            r
            for r in observed.results
            if same_tool(str(r.get("tool")), tool) and r.get("arguments") == arguments
        ),
        None,
    )


def _result_print(run: Observed, proposal: Proposal) -> list[str]:
    result = result_of(run, proposal.tool, proposal.arguments)
    if result is None:
        return []
    return fingerprint(failure_text(result) if result.get("is_error") else str(result.get("text", "")))


def failure_text(result: Mapping[str, Any]) -> str:
    """What a failed call's result says, without the MCP server library's framing (`Error executing
    tool NAME: `), which a client may strip."""
    text = str(result.get("text", ""))
    return text.removeprefix(f"Error executing tool {result.get('tool')}: ")


def fingerprint(text: str) -> list[str]:
    """What an answer must show of a result to be that result: the start of its first lines."""
    lines = [normalised(line) for line in text.splitlines() if line.strip()]
    return [line[:FINGERPRINT_WIDTH] for line in lines[:FINGERPRINT_LINES]]
