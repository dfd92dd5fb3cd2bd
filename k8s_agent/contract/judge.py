"""The black-box judge: each contract item decided from what crossed the wire and what reached the server.

A subject is any agent pointed at the scripted model server and the mock cluster. The judge reads
four things only: the request bodies the model server received, the replies it sent (so it knows
which call id carried which planted mistake), the mock cluster's call log (written before any
validation) and its result log (what it answered each call). It never reads a subject's own
trace, and it does not assume our wording: a subject may phrase its errors its own way or wrap
tool results (HolmesGPT prefixes each with the parameters used). It judges behaviour: was a bad
call kept from the server, did the model get a message that names every problem, was every call
id answered with its own call's result in call order, was the summary request tool-less, did an
answer that should be refused get exactly one further turn, and did the run then end cleanly.

Every item is judged on every scenario where it applies, not only the one written for it (a
schema-breaking call in the mixed round is C3's as much as the C3 scenario's), and every
violation is reported, grouped by scenario, each with its evidence.

Each verdict is `holds`, `fails` (with every violation) or `not observable` (and why). Pure: no
I/O, no SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from k8s_agent import scenarios
from k8s_agent_harness.provenance import normalised
from k8s_agent_harness.report import plural
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


# -- reading the wire --------------------------------------------------------------------------------


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


def readable(text: str) -> str:
    """What a message says, read whichever way it was written: the text itself, then, when it is JSON
    (or holds a JSON object after some words), every string of it decoded. An agent may send a result
    JSON-encoded (`{"result": "pod \\"x\\" not found"}`), and its escaped quotes are still the result."""
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


# -- what the model proposed -------------------------------------------------------------------------------


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
    except (SchemaError, TypeError):
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


# -- the items ---------------------------------------------------------------------------------------------

Runs = Observed | Sequence[Observed]


@dataclass
class _Check:
    """The violations of one item and what it saw where it held."""

    item: str
    violations: list[Violation] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    """The scenarios where the item applied."""
    unobservable: str = ""

    def fail(self, scenario: str, summary: str, *evidence: str) -> None:
        self.violations.append(Violation(scenario, summary, [clip(e) for e in evidence if e]))

    def judgement(self, holds: str) -> Judgement:
        scenarios_seen = list(dict.fromkeys(self.applied))
        if self.violations:
            where = list(dict.fromkeys(v.scenario for v in self.violations))
            summary = self.violations[0].summary
            if len(self.violations) > 1:
                summary += f" (and {len(self.violations) - 1} more, in {', '.join(where)})"
            evidence = [f"{v.scenario}: {line}" for v in self.violations for line in [v.summary, *v.evidence]]
            return Judgement(self.item, FAILS, summary, evidence, scenarios_seen, list(self.violations))
        if not self.applied:
            return Judgement(self.item, UNOBSERVABLE, self.unobservable or "no scenario exercised it")
        return Judgement(self.item, HOLDS, holds, self.seen[:6], scenarios_seen)


def _runs(observed: Runs) -> list[Observed]:
    """The runs, each read as Chat Completions whichever wire its requests came on."""
    return [run.on_chat() for run in ([observed] if isinstance(observed, Observed) else observed)]


def _ran(check: _Check, runs: Iterable[Observed]) -> list[Observed]:
    """The runs that reached the model server (the others are why the item may be unobservable)."""
    ran = []
    for run in runs:
        if run.requests:
            ran.append(run)
        elif not check.unobservable:
            check.unobservable = f"the subject sent no model request ({run.error or 'no error reported'})"
    return ran


def _proposed(
    check: _Check, runs: Iterable[Observed], wanted: Callable[[Proposal], bool]
) -> Iterator[tuple[Observed, Proposal]]:
    """The proposals an item applies to, run by run (the item counts as applied to their scenario)."""
    for run in _ran(check, runs):
        for proposal in proposals(run):
            if wanted(proposal):
                check.applied.append(run.scenario)
                yield run, proposal


def _reached(check: _Check, run: Observed, calls: Iterable[Mapping[str, Any]], what: str) -> None:
    """Each call that reached the server and should not have: a violation worded `what`."""
    for call in calls:
        check.fail(run.scenario, what, log_line(call))


def _ending(run: Observed) -> str:
    count = f"{len(run.requests)} request{'s' if len(run.requests) != 1 else ''} in all"
    return f"{count}; the run ended: {clip(run.error)}" if run.error else count


def c1(observed: Runs) -> Judgement:
    """Every run's first request forces a tool call; no later request does (after a pushback, on the
    summary); and no request forces a tool while offering none (an API refuses that)."""
    check = _Check("C1")
    for run in _ran(check, _runs(observed)):
        check.applied.append(run.scenario)
        first = run.requests[0]
        said = f"tools {len(tool_names(first))}, tool_choice {json.dumps(run.choice_sent(1))}"
        if not (forces_tool(first) and offers_tools(first)):
            check.fail(run.scenario, "the first request does not force a tool call", _request(1, said))
        else:
            check.seen.append(f"{run.scenario}: {_request(1, said)}")
        for number, body in enumerate(run.requests, start=1):
            if not forces_tool(body):
                continue
            if not body.get("tools"):
                choice = json.dumps(run.choice_sent(number))
                check.fail(
                    run.scenario,
                    f"request {number} forces a tool but offers none",
                    _request(number, f"no tools, tool_choice {choice}"),
                )
            elif number > 1:
                check.fail(
                    run.scenario,
                    f"request {number} forces a tool call again",
                    _request(number, f"tool_choice {json.dumps(run.choice_sent(number))}"),
                )
    return check.judgement("every first request forces a tool; no later one does")


def c2(observed: Runs) -> Judgement:
    """An answer before any tool ran gets exactly one further turn; the answer after it is accepted
    and the run ends cleanly."""
    return _one_further_turn(
        observed, "C2", scenarios.C2.name, None, "the answer given before any tool call", answer_is_text=True
    )


def c5(observed: Runs) -> Judgement:
    """An answer naming a pod no tool returned gets exactly one further turn that names it; the answer
    after it is accepted and the run ends cleanly."""
    return _one_further_turn(
        observed,
        "C5",
        scenarios.C5.name,
        scenarios.INVENTED,
        "the answer naming a pod no tool returned",
        answer_is_text=True,
    )


def _one_further_turn(
    observed: Runs, item: str, scenario: str, needle: str | None, what: str, answer_is_text: bool = False
) -> Judgement:
    check = _Check(item, unobservable=f"scenario {scenario} was not run")
    for run in _ran(check, [r for r in _runs(observed) if r.scenario == scenario]):
        answered = _answered_at(run, needle)
        if answered is None:
            check.unobservable = "the scripted answer was never sent"
            continue
        check.applied.append(run.scenario)
        _pushed_back_once(check, run, answered, needle, what, answer_is_text=answer_is_text)
    return check.judgement(f"{what} got one further turn; the next answer was accepted")


def _answered_at(run: Observed, needle: str | None) -> int | None:
    """The reply (1-based) that carried the planted answer: the first text reply (containing `needle`)."""
    return next(
        (
            number
            for number, reply in enumerate(run.replies, start=1)
            if not reply.get("tool_calls")
            and (needle is None or needle in content_text(reply.get("content")))
        ),
        None,
    )


def _pushed_back_once(
    check: _Check,
    run: Observed,
    answered: int,
    needle: str | None,
    what: str,
    *more: str,
    answer_is_text: bool = False,
) -> None:
    """The answer of reply `answered` got one further turn (naming `needle` and each of `more`),
    then the next answer was accepted (no further request) and the run ended without an error."""
    if len(run.requests) <= answered:
        reply = content_text(run.replies[answered - 1].get("content"))
        check.fail(run.scenario, f"{what} was accepted as final", f"reply {answered}: {reply}", _ending(run))
        return
    pushed = new_user_messages(run.requests[answered - 1], run.requests[answered])
    needles = [n for n in (needle, *more) if n is not None]
    unnamed = [n for n in needles if not any(_named(n, readable(text)) for text in pushed)]
    if not pushed:
        check.fail(
            run.scenario, f"request {answered + 1} adds no message after {what}", _request(answered + 1, "")
        )
    elif unnamed:
        check.fail(
            run.scenario,
            f"{what} got a further turn that does not name {', '.join(clip(n, 60) for n in unnamed)}",
            _request(answered + 1, pushed[-1]),
        )
    else:
        check.seen.append(f"{run.scenario}: {_request(answered + 1, pushed[-1])}")
    if len(run.requests) > answered + 1:
        check.fail(
            run.scenario,
            f"the answer after the further turn was not accepted: {len(run.requests)} requests",
            _request(
                answered + 2,
                " | ".join(new_user_messages(run.requests[answered], run.requests[answered + 1])),
            ),
        )
    if run.error:
        check.fail(run.scenario, "the run ended in an error after the further turn", clip(run.error))
    elif answer_is_text and len(run.requests) == answered + 1 and len(run.replies) > answered:
        _answer_is(check, run, answered + 1, "the accepted answer")


def _named(needle: str, text: str) -> bool:
    """Whether a message names a quote or a name: whole, or a quote by its first 24 characters and
    more (a correction may shorten a long quote: `'panic: dial tcp 10.0.4.7:5432: …'`)."""
    if needle in text or normalised(needle) in normalised(text):
        return True
    return " " in needle and len(needle) > 24 and normalised(needle)[:24] in normalised(text)


def _answer_is(check: _Check, run: Observed, reply: int, what: str) -> None:
    """The subject's answer (where its adapter finds one) is the text of reply `reply`."""
    text = content_text(run.replies[reply - 1].get("content"))
    if run.answer is None or not text.strip():
        return
    if normalised(text) not in normalised(readable(run.answer)):
        check.fail(
            run.scenario,
            f"{what} (reply {reply}) is not the subject's answer",
            f"reply {reply}: {text}",
            f"answer: {run.answer}",
        )


def _report_is_the_answer(check: _Check, run: Observed, accepted: int, rejected: int) -> None:
    """The subject's answer (where its adapter finds one) is the report of reply `accepted`, not the
    one of reply `rejected` it corrected: it shows at least one text of the accepted report that the
    rejected one did not hold (a report may be rendered any way, so its texts are what is compared)."""
    if run.answer is None or len(run.replies) < accepted or len(run.requests) != accepted:
        return
    report = content_text(run.replies[accepted - 1].get("content"))
    before = normalised(readable(content_text(run.replies[rejected - 1].get("content"))))
    found = json_value(report)
    texts = [
        normalised(text)
        for text in (v for v in leaves(found[0] if found else None, keys=False) if isinstance(v, str))
        if len(text.strip()) >= 8
    ]
    own = [text for text in texts if text not in before]
    if own and not any(text in normalised(readable(run.answer)) for text in own):
        check.fail(
            run.scenario,
            f"the corrected report (reply {accepted}) is not the subject's answer",
            f"reply {accepted}: {report}",
            f"answer: {run.answer}",
        )


def unaccounted(run: Observed) -> list[tuple[str, Mapping[str, Any], str]]:
    """Every call the server received that no proposal accounts for, with the item it breaks.

    Each call the server receives must be the exact call a valid proposal asked for. A call that
    keeps the arguments a schema-breaking proposal of its tool got right is that call, repaired
    (C3); a call made after a call failed at the server is a retry or a fallback behind the model's
    back (C9), whatever its tool and arguments; one the model never asked for at all breaks C3
    (only a valid call reaches the server). Calls the other items account for are left to them:
    write tools (C13), unknown tools (C6), arguments that are not JSON (C8), a schema-breaking call
    sent as it was (C3's own check), too many of one valid call (C4, C9)."""
    made = proposals(run)
    failed = [(r.get("tool"), r.get("arguments")) for r in run.results if r.get("is_error")]
    first_failure = next(
        (n for n, c in enumerate(run.calls) if (c.get("tool"), c.get("arguments")) in failed), None
    )
    found: list[tuple[str, Mapping[str, Any], str]] = []
    for number, call in enumerate(run.calls):
        tool, arguments = str(call.get("tool")), call.get("arguments")
        of_tool = [p for p in made if same_tool(tool, p.tool)]
        if any(p.arguments == arguments and (p.valid or p.breaks_schema) for p in of_tool):
            continue
        if run.write_tools and any(same_tool(tool, name) for name in WRITE_TOOLS):
            continue
        if any(p.unknown or p.invalid_json for p in of_tool):
            continue
        if any(p.breaks_schema and _repairs(p, arguments) for p in of_tool):
            found.append(
                (
                    "C3",
                    call,
                    f"{tool} reached the server with arguments the model never sent "
                    "(its call broke the schema: it was repaired, not refused)",
                )
            )
        elif first_failure is not None and number > first_failure:
            found.append(
                (
                    "C9",
                    call,
                    f"{tool} reached the server after a call failed, though the model never proposed it: a retry or a fallback behind its back",
                )
            )
        else:
            found.append(
                ("C3", call, f"{tool} reached the server, though the model never proposed that call")
            )
    return found


def _repairs(proposal: Proposal, arguments: Any) -> bool:
    """Whether a server call keeps what a schema-breaking proposal got right: every argument the
    proposal sent that is not one of its problems, with the same value."""
    if not isinstance(proposal.arguments, dict) or not isinstance(arguments, dict):
        return False
    kept = {k: v for k, v in proposal.arguments.items() if k not in proposal.problems}
    return all(arguments.get(k) == v for k, v in kept.items())


def _unaccounted(check: _Check, run: Observed) -> None:
    """The calls of `unaccounted` that break this check's item, each a violation."""
    for item, call, summary in unaccounted(run):
        if item == check.item:
            check.applied.append(run.scenario)
            check.fail(run.scenario, summary, log_line(call))


def c3(observed: Runs) -> Judgement:
    """A call whose arguments break the offered schema never reaches the server, as it was or
    repaired, and the model is told every problem (each field named); no call the model did not
    propose reaches the server."""
    check = _Check("C3", unobservable="no call broke a tool's schema")
    runs = _runs(observed)
    for run, proposal in _proposed(check, runs, lambda p: p.breaks_schema):
        calls = receipts(run, proposal.tool, proposal.arguments)
        _reached(check, run, calls, "a call that breaks the tool's schema reached the server")
        _told(check, run, proposal, proposal.problems, f"the schema problems of {proposal.tool}")
    for run in _ran(_Check("C3"), runs):
        _unaccounted(check, run)
    return check.judgement(
        "schema-breaking calls were kept from the server, not repaired; every problem was named"
    )


def _answer(check: _Check, run: Observed, proposal: Proposal) -> tuple[int, str] | None:
    """The first answer to a proposal (request number, text); a violation when there is none."""
    answered = first_answer(run, proposal.call_id)
    if answered is None:
        check.fail(
            run.scenario, f"call {proposal.call_id} ({proposal.tool}) was never answered", _ending(run)
        )
    return answered


def _told(check: _Check, run: Observed, proposal: Proposal, words: Sequence[str], what: str) -> str | None:
    """The answer to a proposal must name each of `words`; the answer, read (None: never answered)."""
    answered = _answer(check, run, proposal)
    if answered is None:
        return None
    number, text = answered
    said = readable(text)
    missing = [word for word in words if not _names(said, word)]
    if missing:
        check.fail(
            run.scenario,
            f"{what}: the model was not told {', '.join(repr(w) for w in missing)}",
            _request(number, text),
        )
    else:
        check.seen.append(f"{run.scenario}: {_request(number, text)}")
    return said


def c4(observed: Runs) -> Judgement:
    """A call proposed again (identical tool and arguments) never reaches the server twice, and only
    an identical call is a repeat: a call that repeats none reaches the server; where the repeats
    spend `max_repeats`, one tool-less request asks for the summary."""
    check = _Check("C4", unobservable="no call was proposed twice")
    budget_scenarios = (scenarios.C4.name, scenarios.C4_PARALLEL.name)
    for run in _ran(check, _runs(observed)):
        counted: dict[str, list[Proposal]] = {}
        for proposal in proposals(run):
            if proposal.valid:
                counted.setdefault(proposal.signature, []).append(proposal)
        failed = {
            f"{r.get('tool')} {json.dumps(r.get('arguments'), sort_keys=True)}"
            for r in run.results
            if r.get("is_error")
        }
        for signature, same in counted.items():
            reached = receipts(run, same[0].tool, same[0].arguments)
            if len(same) < 2:
                if any(p.tool == same[0].tool for sig, ps in counted.items() for p in ps if sig != signature):
                    check.applied.append(run.scenario)  # one tool with two argument sets
                    if reached:
                        check.seen.append(f"{run.scenario}: {same[0].signature} reached the server")
                if not reached and not (run.write_tools and same[0].write) and _before_the_end(run, same[0]):
                    check.applied.append(run.scenario)
                    check.fail(
                        run.scenario,
                        f"{same[0].tool} with arguments no earlier call had never reached the server: "
                        "it was answered as a repeat of another call",
                        f"proposed {same[0].signature}",
                        *(log_line(call) for call in receipts(run, same[0].tool)),
                    )
                elif len(reached) > 1 and signature not in failed:
                    check.applied.append(run.scenario)
                    check.fail(
                        run.scenario,
                        f"{same[0].tool} proposed once reached the server {len(reached)} times",
                        *(log_line(call) for call in reached),
                    )
                continue
            check.applied.append(run.scenario)
            said = (
                f"{same[0].tool} proposed {plural(len(same), 'time')}, reached the server "
                f"{plural(len(reached), 'time')}"
            )
            if len(reached) > 1:
                check.fail(run.scenario, said, *(log_line(call) for call in reached))
            elif not reached and not (run.write_tools and same[0].write) and _before_the_end(run, same[0]):
                check.fail(
                    run.scenario,
                    f"{same[0].tool} with arguments no earlier call had never reached the server, nor did "
                    "its repeats: it was answered as a repeat of another call",
                    f"proposed {same[0].signature} {plural(len(same), 'time')}",
                    *(log_line(call) for call in receipts(run, same[0].tool)),
                )
            else:
                check.seen.append(f"{run.scenario}: {said}")
        if run.scenario in budget_scenarios:
            check.applied.append(run.scenario)
            last = run.requests[-1]
            if offers_tools(last):
                check.fail(
                    run.scenario,
                    "no tool-less summary request after the repeats",
                    _request(len(run.requests), f"still offers {plural(len(tool_names(last)), 'tool')}"),
                )
            else:
                check.seen.append(
                    f"{run.scenario}: request {len(run.requests)} offers no tools (the summary)"
                )
                if len(run.replies) >= len(run.requests):
                    _answer_is(check, run, len(run.requests), "the summary")
    return check.judgement(
        "repeats were kept from the server, other argument sets were not; a tool-less summary followed"
    )


def _before_the_end(run: Observed, proposal: Proposal) -> bool:
    """Whether a proposal came while the run could still run it: not in a round whose repeats spent
    the repeat budget (the round is then finished without running the rest)."""
    same_round = [p for p in proposals(run) if p.reply == proposal.reply and p.valid]
    signatures = [p.signature for p in proposals(run) if p.valid and p.reply < proposal.reply]
    for p in same_round:
        if p is proposal or p.call_id == proposal.call_id:
            break
        signatures.append(p.signature)
    repeats = len(signatures) - len(set(signatures))
    return repeats < max(1, _max_repeats(run))


def _max_repeats(run: Observed) -> int:
    """The repeat limit of the run's scenario (the contract's default, 2, for one it does not know)."""
    scenario = next((s for s in scenarios.JUDGED_SCENARIOS if s.name == run.scenario), None)
    return int((scenario.overrides if scenario else {}).get("max_repeats", 2))


def c6(observed: Runs) -> Judgement:
    """A call to a tool the request did not offer never reaches the server, and the model is told the
    tool is unknown and which tools there are, the unknown one not among them. (A write tool of a
    server that has them is C13's.)"""
    check = _Check("C6", unobservable="no call named a tool that was not offered")
    for run in _ran(check, _runs(observed)):
        for proposal in proposals(run):
            if not proposal.unknown or not proposal.offered or (run.write_tools and proposal.write):
                continue  # a call answering a tool-less request is the model ignoring it: C7's summary
            check.applied.append(run.scenario)
            _reached(
                check,
                run,
                receipts(run, proposal.tool),
                f"the unknown tool {proposal.tool} reached the server",
            )
            said = _told(
                check, run, proposal, [proposal.tool, *proposal.offered], f"the unknown tool {proposal.tool}"
            )
            answer = first_answer(run, proposal.call_id)
            if said is not None and answer and listed_among(answer[1], proposal.tool, proposal.offered):
                number, text = first_answer(run, proposal.call_id) or (0, said)
                check.fail(
                    run.scenario,
                    f"the unknown tool {proposal.tool} is listed among the tools there are",
                    _request(number, text),
                )
    return check.judgement("unknown tools were kept from the server; the model was told what there is")


_LIST_ITEM = r"[\"'`]?[A-Za-z0-9_.:/-]+[\"'`]?"
_SEPARATOR = re.compile(r"[ \t]*[,;|][ \t]*|[ \t]+(?:and|or)[ \t]+")
"""What separates the items of a list written along a line."""
_LIST = re.compile(rf"{_LIST_ITEM}(?:(?:{_SEPARATOR.pattern}){_LIST_ITEM})+")


def listed_among(text: str, name: str, offered: Sequence[str]) -> bool:
    """Whether `name` is an item of a list that holds the offered tools (names separated by commas,
    `and`, `or` or new lines, or a JSON array): told as one of the tools there are, not as the one
    that is unknown. A JSON answer is read string by string."""
    others = [tool for tool in offered if tool != name]
    found = json_value(text)
    if found is not None:
        strings: list[str] = []
        for array in _arrays(found[0], strings):
            if name in array and any(tool in array for tool in others):
                return True
        return any(_listed_in_text(string, name, others) for string in strings)
    return _listed_in_text(text, name, others)


def _arrays(value: Any, strings: list[str]) -> Iterator[list[Any]]:
    """The arrays of a JSON value, collecting its strings on the way."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _arrays(item, strings)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _arrays(item, strings)
    elif isinstance(value, str):
        strings.append(value)


def _listed_in_text(text: str, name: str, others: Sequence[str]) -> bool:
    items: list[str] = []
    for line in [*text.splitlines(), ""]:  # a list down the lines: each line one name, bullet or not
        alone = line.strip().lstrip("-*•").strip().strip("\"'`.,;:")
        if re.fullmatch(r"[A-Za-z0-9_.:/-]+", alone or "-") and alone:
            items.append(alone)
            continue
        if name in items and any(tool in items for tool in others):
            return True
        items = []
    for found in _LIST.finditer(text):
        items = [item.strip("\"'`.:") for item in _SEPARATOR.split(found.group())]
        if name in items and any(tool in items for tool in others):
            return True
    return False


def c7(observed: Runs, max_steps: int | None = None) -> Judgement:
    """The step budget ends the run with one tool-less request, within max_steps + 1 requests."""
    check = _Check("C7", unobservable=f"scenario {scenarios.C7.name} was not run")
    for run in _ran(check, [r for r in _runs(observed) if r.scenario == scenarios.C7.name]):
        check.applied.append(run.scenario)
        steps = max_steps or run.max_steps or int(scenarios.C7.overrides.get("max_steps", 3))
        count = len(run.requests)
        said = f"{plural(count, 'request')} for a budget of {plural(steps, 'step')}"
        if run.error:
            check.fail(
                run.scenario, "the run ended with an error at the step limit, not a summary", said, run.error
            )
        if count > steps + 1:
            check.fail(run.scenario, f"more than max_steps + 1 = {steps + 1} requests", said)
        if offers_tools(run.requests[-1]):
            check.fail(run.scenario, "the last request still offers tools: no tool-less summary", said)
        tool_less = [n for n, body in enumerate(run.requests, start=1) if not offers_tools(body)]
        if len(tool_less) > 1:
            check.fail(
                run.scenario,
                f"requests {tool_less} are all tool-less: one summary was asked for more than once",
                said,
            )
        early = [
            n
            for n in tool_less[:1]
            if n <= steps
            and all(run.replies[r - 1].get("tool_calls") for r in range(1, n) if r <= len(run.replies))
        ]
        if early:
            check.fail(
                run.scenario,
                f"the summary was asked for after {plural(early[0] - 1, 'step')}, before the budget of {steps} was "
                "spent",
                said,
            )
        if tool_less and tool_less[0] > 1:
            told = new_messages(run.requests[tool_less[0] - 2], run.requests[tool_less[0] - 1], *INSTRUCTING)
            if not told:
                check.fail(
                    run.scenario,
                    f"the summary request (request {tool_less[0]}) carries no instruction: no new user, "
                    "system or developer message asks for the summary",
                    _request(
                        tool_less[0],
                        " | ".join(
                            content_text(m.get("content"))
                            for m in messages(run.requests[tool_less[0] - 1])[-2:]
                        ),
                    ),
                )
        if tool_less and not run.error and len(run.replies) >= tool_less[-1]:
            _answer_is(check, run, tool_less[-1], "the summary")
        check.seen.append(f"{run.scenario}: {said}; request {count} offers no tools")
    return check.judgement("the budget ended with one tool-less summary request")


def c8(observed: Runs) -> Judgement:
    """A call whose arguments are not JSON never reaches the server, and the model is told so: the
    decoder's message with the raw arguments."""
    check = _Check("C8", unobservable="no call had arguments that are not JSON")
    for run, proposal in _proposed(check, _runs(observed), lambda p: p.invalid_json):
        valid = {p.signature for p in proposals(run) if p.valid and p.tool == proposal.tool}
        unexplained = [
            call
            for call in receipts(run, proposal.tool)
            if f"{proposal.tool} {json.dumps(call.get('arguments'), sort_keys=True)}" not in valid
        ]
        _reached(check, run, unexplained, "a call whose arguments are not JSON reached the server")
        answered = _answer(check, run, proposal)
        if answered is None:
            continue
        said = readable(answered[1])
        if not _mentions(said.replace(proposal.raw, " "), *JSON_WORDS):
            check.fail(run.scenario, "the model was not told its arguments are not JSON", _request(*answered))
        elif proposal.raw.strip() and normalised(proposal.raw) not in normalised(said):
            check.fail(
                run.scenario,
                f"the model was not shown the arguments it sent ({clip(proposal.raw, 60)})",
                _request(*answered),
            )
        else:
            check.seen.append(f"{run.scenario}: {_request(*answered)}")
    return check.judgement(
        "calls with arguments that are not JSON were kept from the server; the model was told why, with its arguments"
    )


def c9(observed: Runs) -> Judgement:
    """A call the server fails is a result the model sees: it reached the server once (no silent
    retry, with the same arguments or others), the model is shown the failure, and the run goes on
    to its end."""
    check = _Check("C9", unobservable="no call failed at the server")
    for run in _ran(check, _runs(observed)):
        made = [p for p in proposals(run) if p.valid]
        failed = [r for r in run.results if r.get("is_error")]
        for result in {
            json.dumps([r.get("tool"), r.get("arguments")], sort_keys=True): r for r in failed
        }.values():
            same = [
                p
                for p in made
                if same_tool(str(result.get("tool")), p.tool) and p.arguments == result.get("arguments")
            ]
            if not same:
                continue
            check.applied.append(run.scenario)
            reached = receipts(run, same[0].tool, same[0].arguments)
            if len(same) == 1 and len(reached) > 1:
                check.fail(
                    run.scenario,
                    f"a failed call proposed once reached the server {len(reached)} times (retried without the model)",
                    *(log_line(call) for call in reached),
                )
            answered = first_answer(run, same[0].call_id)
            shown = fingerprint(failure_text(result))[:1]
            if answered is None:
                check.fail(
                    run.scenario,
                    f"the failed call {same[0].call_id} was never answered: the run stopped",
                    _ending(run),
                )
                continue
            if shown and not all(line in normalised(readable(answered[1])) for line in shown):
                check.fail(
                    run.scenario,
                    "the model was not shown the failure",
                    _request(*answered),
                    f"the server said: {shown[0]}",
                )
            else:
                check.seen.append(f"{run.scenario}: {_request(*answered)}")
            if run.error:
                check.fail(run.scenario, "the run failed after the tool failure", clip(run.error))
        _unaccounted(check, run)
    return check.judgement("failures came back as results, once each, and the runs went on")


def shows_result(answer: str, result: str) -> str | None:
    """None when an answer shows a whole result (every line of it, whitespace aside; a line with a
    secret redacted counts as shown), or says it is an excerpt and shows part of it; else the first
    line of the result it leaves out."""
    said = readable(answer)
    lines = [normalised(line) for line in result.splitlines() if line.strip()]
    missing = [
        line
        for at, line in enumerate(lines)
        if not line_shown(line, said) and not redacted_shown(line, said, lines[at - 1] if at else "")
    ]
    if not missing or (len(missing) < len(lines) and _mentions(said, *EXCERPT_WORDS)):
        return None
    return missing[0]


def line_shown(line: str, said: str) -> bool:
    """Whether an answer (read) shows a line of a result as it is, whitespace aside (a line whose
    secret the answer redacted: `redacted_shown`)."""
    return normalised(line) in normalised(said)


SECRET_KEY = r"(?:token|password|passwd|pwd|secret|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credentials?|auth(?:orization)?)"
SECRET_VALUE = re.compile(
    r"(?i)(?:bearer\s+(?P<bearer>[^\s\"',;}]+)|"
    + SECRET_KEY
    + r"\w*[\"']?\s*[:=]\s*[\"']?)(?P<value>(?:bearer\s+)?[^\s\"',;}]+)?"
    r"|://[^/\s:@]+:(?P<password>[^@\s/]+)@"
    r"|(?<![\w+/.-])(?P<token>(?=[\w+/.-]*\d)(?=[\w+/.-]*[A-Za-z])[\w+/.-]{24,}=*)"
)
"""Where a result line holds a secret: the value of a key named like a token, password, secret or
key (or after `Bearer`), a connection URL's password, a long token of letters and digits."""
NEXT_VALUE = re.compile(r"(?i)^(?P<key>-?\s*value\s*:\s*)(?P<value>\S.*)$")
"""A YAML `value:` line, which holds a secret when the line before names one (`- name: DB_PASSWORD`)."""
MARK_WIDTH = 40
"""The most characters a mark put in place of a secret may take."""


def redacted_shown(line: str, said: str, before: str = "") -> bool:
    """Whether an answer shows a result line with its secrets redacted, whatever the mark: the answer
    has a line holding what the result line holds around each secret, in order, with in each
    secret's place a mark of at most MARK_WIDTH characters that is not the secret (`[masked]`,
    `<hidden>`, `***`, ...). A secret is what SECRET_VALUE finds (or a `value:` after a line naming
    one); the rest of the line must be there as it was."""
    spans = [
        match.span(group)
        for match in SECRET_VALUE.finditer(line)
        for group in ("bearer", "value", "password", "token")
        if match.group(group)
    ]
    follows = NEXT_VALUE.match(line)
    if follows and re.search(SECRET_KEY, before, re.IGNORECASE):
        spans.append(follows.span("value"))
    if not spans:
        return False
    spans.sort()
    pieces, secrets, at = [], [], 0
    for start, end in spans:
        if start < at:
            continue
        pieces.append(line[at:start])
        secrets.append(line[start:end])
        at = end
    pieces.append(line[at:])
    if sum(len(piece.strip()) for piece in pieces) < min(len(line) // 4, 6):
        return False  # too little of the line is left to say it is this line
    return any(_around_marks(normalised(shown), pieces, secrets) for shown in said.splitlines())


def _around_marks(shown: str, pieces: Sequence[str], secrets: Sequence[str]) -> bool:
    """Whether `shown` holds `pieces` in order with a short mark, not the secret, between each two."""
    start = shown.find(pieces[0]) if pieces[0] else 0
    while start >= 0:
        at, held = start + len(pieces[0]), True
        for secret, piece in zip(secrets, pieces[1:], strict=True):
            found = shown.find(piece, at) if piece else len(shown)  # a secret at the end: the rest
            mark = shown[at:found] if found >= 0 else ""
            if found < 0 or not mark.strip() or len(mark) > MARK_WIDTH or secret in mark:
                held = False
                break
            at = found + len(piece)
        if held:
            return True
        start = shown.find(pieces[0], start + 1) if pieces[0] else -1
    return False


def c10(observed: Runs) -> Judgement:
    """In every request of every scenario, each call id is answered exactly once, in call order,
    before the next message, with its own call's result, whole (or an excerpt that says it is one);
    the mixed round's calls are all answered."""
    check = _Check("C10", unobservable="no request carried tool calls")
    rounds = 0
    for run in _ran(check, _runs(observed)):
        for number, body in enumerate(run.requests, start=1):
            listed = messages(body)
            for index, message in enumerate(listed):
                ids = [str(call.get("id")) for call in message.get("tool_calls") or []]
                if message.get("role") != "assistant" or not ids:
                    continue
                answers: list[str] = []
                for following in listed[index + 1 :]:
                    if following.get("role") != "tool":
                        break
                    answers.append(str(following.get("tool_call_id")))
                rounds += 1
                check.applied.append(run.scenario)
                if sorted(answers) != sorted(ids):
                    check.fail(
                        run.scenario,
                        f"calls answered {answers} for {ids}",
                        _request(number, f"assistant calls {ids}"),
                    )
                elif answers != ids:
                    check.fail(
                        run.scenario,
                        "answers out of call order",
                        _request(number, f"calls {ids}, answers {answers}"),
                    )
        made = [p for p in proposals(run) if p.valid]
        served: dict[str, int] = {}
        own_prints = {p.signature: _result_print(run, p) for p in made}
        for proposal in made:
            result = result_of(run, proposal.tool, proposal.arguments)
            answered = first_answer(run, proposal.call_id)
            if result is None or answered is None:
                continue
            said = readable(answered[1])
            shown = normalised(said)
            expected = own_prints[proposal.signature]
            served[proposal.signature] = served.get(proposal.signature, 0) + 1
            if served[proposal.signature] > len(receipts(run, proposal.tool, proposal.arguments)):
                # A repeat answered without the server (from a cache, or refused): it may carry its own
                # result or none, never another call's.
                others = [
                    sig
                    for sig, lines in own_prints.items()
                    if sig != proposal.signature
                    and lines
                    and lines != expected
                    and all(line in shown for line in lines)
                ]
                if others and not (expected and all(line in shown for line in expected)):
                    check.fail(
                        run.scenario,
                        f"call {proposal.call_id} ({proposal.tool}) was answered with another call's result",
                        _request(answered[0], answered[1]),
                    )
                continue
            if result.get("is_error"):
                continue  # a failure shown to the model is C9's
            first = [line for line in str(result.get("text", "")).splitlines() if line.strip()]
            shown_first = [
                line_shown(line, said)
                or redacted_shown(normalised(line), said, normalised(first[at - 1]) if at else "")
                for at, line in enumerate(first[:FINGERPRINT_LINES])
            ]
            excerpt = any(shown_first) and _mentions(said, *EXCERPT_WORDS)
            if expected and not all(shown_first) and not excerpt:
                check.fail(
                    run.scenario,
                    f"call {proposal.call_id} ({proposal.tool}) was answered with something else than its own result",
                    _request(answered[0], answered[1]),
                    f"its result begins: {expected[0]}",
                )
                continue
            left_out = shows_result(answered[1], str(result.get("text", "")))
            if left_out is not None:
                check.fail(
                    run.scenario,
                    f"call {proposal.call_id} ({proposal.tool}) was answered with part of its result, "
                    "without saying it is an excerpt",
                    _request(answered[0], answered[1]),
                    f"left out: {left_out}",
                )
        if run.scenario == scenarios.C10.name:
            unanswered = [p.call_id for p in proposals(run) if first_answer(run, p.call_id) is None]
            if unanswered:
                check.fail(
                    run.scenario, f"the mixed round's calls {unanswered} were never answered", _ending(run)
                )
    return check.judgement(
        f"{plural(rounds, 'round')} of calls, each answered once, in order, with its own whole result"
    )


def c11(observed: Runs) -> Judgement:
    """A subject that asks for a structured report asks for it on every request (its response_format,
    once sent, on every one), and corrects one that breaks its schema once, naming the errors the
    report really has; the corrected report is accepted."""
    check = _Check("C11")
    runs = _runs(observed)
    for run in _ran(check, [r for r in runs if r.scenario in _JSON_SCHEMA_SCENARIOS]):
        if run.structured is False:
            continue
        formats = [body.get("response_format") for body in run.requests]
        first = next((f for f in formats if f), None)
        if first is None and run.structured:
            check.applied.append(run.scenario)
            check.fail(
                run.scenario,
                "the subject asks for a structured report, yet no request carries its response_format",
                _request(1, "no response_format"),
            )
        elif first is not None:
            check.applied.append(run.scenario)
            other = [n for n, f in enumerate(formats, start=1) if f != first]
            if other:
                check.fail(
                    run.scenario,
                    f"requests {other} do not ask for the report's format the others ask for",
                    _request(other[0], f"response_format {clip(json.dumps(formats[other[0] - 1]), 80)}"),
                )
    for run in _ran(check, [r for r in runs if r.scenario in _JSON_SCENARIOS]):
        if run.structured is False or (run.structured is None and not _asks_json(run)):
            continue
        check.applied.append(run.scenario)
        system = system_text(run.requests[0])
        described = [field for field in REPORT_FIELDS if _names(system, field)]
        if not _names(system, "findings") or len(described) < 2:
            check.fail(
                run.scenario,
                "the system prompt does not describe the report (its findings and their fields)",
                _request(1, system),
            )
    for run in _ran(check, [r for r in runs if r.scenario in (scenarios.C11.name, scenarios.C11_TEXT.name)]):
        if not _structured(check, run):
            continue
        broken = next(
            (
                n
                for n, reply in enumerate(run.replies, start=1)
                if not reply.get("tool_calls") and scenarios.PAYMENT in content_text(reply.get("content"))
            ),
            None,
        )
        if broken is None:
            check.unobservable = "the scripted answer was never sent"
            continue
        check.applied.append(run.scenario)
        before = len(check.violations)
        _pushed_back_once(check, run, broken, None, "the report that breaks the schema")
        if len(check.violations) > before:
            continue
        _report_is_the_answer(check, run, broken + 1, broken)
        pushed = readable(new_user_messages(run.requests[broken - 1], run.requests[broken])[-1])
        report = content_text(run.replies[broken - 1].get("content"))
        if run.scenario == scenarios.C11_TEXT.name:
            if not _mentions(pushed, *JSON_WORDS):
                check.fail(
                    run.scenario,
                    "the correction does not say the answer is not JSON",
                    _request(broken + 1, pushed),
                )
            continue
        errors, every = report_errors(run.requests[broken - 1], report)
        named = [field for field in errors if _names(pushed, field)]
        if not named or (every and len(named) < len(errors)):
            unnamed = [field for field in errors if field not in named]
            check.fail(
                run.scenario,
                "the correction does not name the errors the report has: "
                + ", ".join(repr(field) for field in unnamed),
                _request(broken + 1, pushed),
            )
    if not check.applied and not check.unobservable:
        check.unobservable = f"scenarios {scenarios.C11.name}, {scenarios.C11_TEXT.name} were not run"
    return check.judgement(
        "the report was asked for on every request; the broken one got one correction naming its errors; the corrected one was accepted"
    )


_JSON_SCHEMA_SCENARIOS = tuple(
    s.name for s in scenarios.JUDGED_SCENARIOS if s.overrides.get("report_format") == "json_schema"
)
_JSON_SCENARIOS = tuple(
    s.name for s in scenarios.JUDGED_SCENARIOS if str(s.overrides.get("report_format", "")).startswith("json")
)


def _asks_json(run: Observed) -> bool:
    """Whether an undeclared subject asks for a structured report: a response_format, or JSON in its
    instructions."""
    first = run.requests[0]
    system = system_text(first)
    return "response_format" in first or "json" in system.lower()


def report_errors(request: Mapping[str, Any], report: str) -> tuple[list[str], bool]:
    """The fields a scripted report gets wrong, and whether every one must be named: against the
    schema the request asked for (`response_format`), every one; without it on the wire, the finding
    fields the report lacks or fills off the list, any one."""
    wanted = request.get("response_format") or {}
    schema = (wanted.get("json_schema") or {}).get("schema") if isinstance(wanted, Mapping) else None
    try:
        value = json.loads(report)
    except ValueError:
        return ["json"], True
    if isinstance(schema, Mapping):
        found = [field for field in schema_problems(schema, value) if field not in ("anyOf", "oneOf")]
        if found:
            return found, True
    finding = ((value.get("findings") or [{}])[0] if isinstance(value, dict) else {}) or {}
    lacking = [field for field in REPORT_FIELDS if field not in finding or field == "cause"]
    return lacking, False


def c12(observed: Runs) -> Judgement:
    """A report quoting text no tool returned, or naming a pod no tool returned, gets one further turn
    naming each problem; what stays unverified after it is kept in the answer and marked so, on its
    line or, in a JSON answer, in the quote's own object; the verified quote is not."""
    check = _Check("C12")
    for run in _ran(
        check, [r for r in _runs(observed) if r.scenario in (scenarios.C12.name, scenarios.C12_KEPT.name)]
    ):
        if not _structured(check, run):
            continue
        answered = _answered_at(run, scenarios.FABRICATED)
        if answered is None:
            check.unobservable = "the scripted answer was never sent"
            continue
        check.applied.append(run.scenario)
        problems = [scenarios.FABRICATED]
        if scenarios.INVENTED in content_text(run.replies[answered - 1].get("content")):
            problems.append(scenarios.INVENTED)
        before = len(check.violations)
        _pushed_back_once(check, run, answered, None, "the report quoting text no tool returned", *problems)
        if len(check.violations) == before:
            _report_is_the_answer(check, run, answered + 1, answered)
        if run.scenario != scenarios.C12_KEPT.name:
            continue
        answer = run.answer or ""
        fabricated = quote_marks(answer, scenarios.FABRICATED)
        true = quote_marks(answer, scenarios.LOG_LINE)
        if not fabricated:
            check.fail(
                run.scenario, "the still-unverified quote was dropped from the answer", f"answer: {answer}"
            )
        elif not all(marked for marked, _ in fabricated):
            check.fail(
                run.scenario,
                "the still-unverified quote is presented as fact",
                *(where for marked, where in fabricated if not marked),
            )
        if any(marked for marked, _ in true):
            check.fail(
                run.scenario,
                "the quote a tool returned is marked unverified",
                *(where for marked, where in true if marked),
            )
    if not check.applied and not check.unobservable:
        check.unobservable = f"scenarios {scenarios.C12.name}, {scenarios.C12_KEPT.name} were not run"
    return check.judgement(
        "the report's problems got one correction naming each; what stayed unverified is marked, the rest not"
    )


_VERIFIED_KEYS = ("verif", "found", "check", "confirm", "grounded", "valid")
_UNVERIFIED_KEYS = ("unverified", "fabricat", "not_found", "notfound", "invented", "unconfirmed")


def quote_marks(answer: str, quote: str) -> list[tuple[bool, str]]:
    """Each place an answer shows `quote`, and whether it marks it unverified there: in a JSON answer
    (the whole answer, or a JSON object in it) by the quote's own object (a `verified: false`, a
    mark word in one of its values, or the quote's text itself carrying one); elsewhere by the line
    it is on."""
    places: list[tuple[bool, str]] = []
    rest = answer
    found = json_value(answer)
    if found is not None:
        value, (start, end) = found
        for holder in _holders(value, quote):
            places.append((_marks_object(holder, quote), clip(json.dumps(holder, ensure_ascii=False))))
        rest = answer[:start] + "\n" + answer[end:]
    for line in rest.splitlines():
        if quote in line:
            places.append((_mentions(line, *UNVERIFIED_MARKS), clip(line)))
    return places


def _holders(value: Any, quote: str) -> Iterator[Any]:
    """The innermost objects of a JSON value that hold `quote` in one of their strings (a string of a
    list is held by the list's object)."""
    if isinstance(value, dict):
        inner = [holder for item in value.values() for holder in _holders(item, quote)]
        if inner:
            yield from inner
        elif any(isinstance(item, str) and quote in item for item in value.values()) or any(
            isinstance(item, list) and any(isinstance(x, str) and quote in x for x in item)
            for item in value.values()
        ):
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from _holders(item, quote)


def _marks_object(holder: Mapping[str, Any], quote: str) -> bool:
    """Whether a JSON object holding a quote marks it unverified."""
    for key, item in holder.items():
        name = str(key).lower()
        if any(word in name for word in _UNVERIFIED_KEYS) and item not in (False, None, "", "false", "no"):
            return True
        if any(word in name for word in _VERIFIED_KEYS) and item in (False, "false", "no", "unverified"):
            return True
        if isinstance(item, str) and _mentions(item.replace(quote, ""), *UNVERIFIED_MARKS):
            return True
    return False


def _structured(check: _Check, run: Observed) -> bool:
    if run.structured is False:
        check.unobservable = "the subject declares it asks for no structured report"
        return False
    if run.structured is None and not _asks_json(run):
        check.unobservable = (
            "the subject asks for no structured report (no response_format, no JSON in its instructions)"
        )
        return False
    return True


def c13(observed: Runs) -> Judgement:
    """Where the server has tools that change the cluster, none is offered; a call to one never
    reaches the server without the operator's approval (none is given here, whatever the model says),
    its answer (paired with the call by its id) says it was not run and gives the tools there are;
    the run goes on."""
    check = _Check(
        "C13", unobservable=f"no call to a write tool was proposed (scenario {scenarios.C13.name} not run)"
    )
    for run in _ran(check, [r for r in _runs(observed) if r.write_tools]):
        check.applied.append(run.scenario)
        for number, body in enumerate(run.requests, start=1):
            offered = write_tools_offered(body)
            if offered and offers_tools(body):
                check.fail(
                    run.scenario,
                    f"tools that change the cluster are offered: {', '.join(offered)}",
                    _request(number, f"tools {', '.join(tool_names(body))}"),
                )
                break
        written = [c for c in run.calls if any(same_tool(str(c.get("tool")), w) for w in WRITE_TOOLS)]
        for call in written:  # under whatever name it was offered or proposed
            check.fail(
                run.scenario,
                f"{call.get('tool')} reached the server without the operator's approval",
                log_line(call),
            )
        for proposal in proposals(run):
            if not proposal.write:
                continue
            answered = _answer(check, run, proposal)
            if answered is None:
                continue
            number, text = answered
            said = readable(text)
            available = [t for t in proposal.offered if t not in proposal.writes]
            unlisted = [t for t in available if not _names(said, t)]
            if not refuses(said):
                check.fail(
                    run.scenario, "the model was not told the call was not run", _request(number, text)
                )
            elif unlisted:
                check.fail(
                    run.scenario,
                    f"the refusal does not give the tools there are: {', '.join(repr(t) for t in unlisted)}",
                    _request(number, text),
                )
            elif run.error:
                check.fail(run.scenario, "the run ended in an error after the refused call", clip(run.error))
            else:
                check.seen.append(f"{run.scenario}: {_request(number, text)}")
    return check.judgement(
        "write tools were not offered and never reached the server; refusals said so, with the tools there are"
    )


def _around(sent: str, secret: str, run: Observed) -> str:
    """Where a secret is in a request body, every secret in it masked (the evidence never repeats one)."""
    masked = sent
    for form in _escaped_forms(secret):
        masked = masked.replace(form, "\0")
    for other in run.secrets.values():
        for form in _escaped_forms(other) if other else ():
            masked = masked.replace(form, "«a secret»")
    at = masked.find("\0")
    return masked[max(0, at - 80) : at + 40].replace("\0", "«the secret»")


def _escaped_forms(secret: str) -> list[str]:
    """A secret as it is and JSON-escaped once and twice, longest first (for masking)."""
    once = {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    twice = {json.dumps(form)[1:-1] for form in once}
    return sorted({secret, *once, *twice}, key=len, reverse=True)


def holds_secret(body: Any, secret: str) -> bool:
    """Whether a request body holds a secret, in any form the model could read back: as it is, or
    JSON-escaped (with or without its characters outside ASCII escaped), in any string of the body
    or of JSON a string of it holds (a result sent JSON-encoded escapes it once more)."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    strings = [
        readable(value)
        for value in leaves(dict(body) if isinstance(body, Mapping) else body)
        if isinstance(value, str)
    ]
    return any(form in text for text in strings for form in forms)


def c14(observed: Runs) -> Judgement:
    """No secret reaches the model: not the key the agent holds (nor any header or credential it was
    given), not a secret a tool result carries (redacted before the model sees it). Judged in every
    request body of every run, as sent."""
    check = _Check("C14", unobservable="no secret was given to the subject or planted in a result")
    for run in _ran(check, _runs(observed)):
        if not run.secrets:
            continue
        check.applied.append(run.scenario)
        leaked = False
        for number, body in enumerate(run.sent or run.requests, start=1):
            sent = json.dumps(body, ensure_ascii=False)
            for what, secret in run.secrets.items():
                if not secret or not holds_secret(body, secret):
                    continue
                leaked = True
                check.fail(
                    run.scenario, f"{what} reached the model", _request(number, _around(sent, secret, run))
                )
        if not leaked:
            check.seen.append(
                f"{run.scenario}: {plural(len(run.requests), 'request')}, none holds {', '.join(run.secrets)}"
            )
    return check.judgement("no secret the agent holds or a result carried reached the model")


ITEMS: dict[str, str] = {
    "C1": "forced first step",
    "C2": "zero-tool pushback",
    "C3": "schema rejection",
    "C4": "duplicates, forced summary",
    "C5": "invented pods pushback",
    "C6": "unknown tool",
    "C7": "step budget",
    "C8": "invalid JSON arguments",
    "C9": "tool failure",
    "C10": "protocol invariant",
    "C11": "report schema",
    "C12": "fabricated evidence",
    "C13": "write tools",
    "C14": "secrets",
}


def judge_all(
    observed: Mapping[str, Observed], max_steps: Mapping[str, int] | None = None
) -> list[Judgement]:
    """Every item, from the runs of one subject by scenario name, each judged on every run it applies to."""
    runs = list(observed.values())
    budget = (max_steps or {}).get(scenarios.C7.name)
    return [
        c1(runs),
        c2(runs),
        c3(runs),
        c4(runs),
        c5(runs),
        c6(runs),
        c7(runs, budget),
        c8(runs),
        c9(runs),
        c10(runs),
        c11(runs),
        c12(runs),
        c13(runs),
        c14(runs),
    ]
