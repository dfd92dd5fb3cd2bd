"""The black-box judge: each contract item decided from what crossed the wire and what reached the server.

A subject is any agent pointed at the scripted model server and the mock cluster. The judge reads
three things only: the request bodies the model server received, the replies it sent (so it knows
which call id carried which planted mistake), and the mock cluster's call log (written before any
validation). It never reads a subject's own trace, and it does not assume our wording: a subject
may phrase its errors its own way or wrap tool results (HolmesGPT prefixes each with the
parameters used). It judges behaviour: was the bad call kept from the server, did the model get a
message that names the problem, was every call id answered in call order, was the summary request
tool-less, did an answer that should be refused get a further turn.

Each verdict is `holds`, `fails` (with the evidence: the request, an excerpt, the server's log
line) or `not observable` (and why). Pure: no I/O, no SDK.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from k8s_agent import scenarios

Verdict = Literal["holds", "fails", "not observable"]
HOLDS: Verdict = "holds"
FAILS: Verdict = "fails"
UNOBSERVABLE: Verdict = "not observable"
EXCERPT = 240


@dataclass(frozen=True)
class Observed:
    """What one scenario run of a subject left on the wire and at the server."""

    scenario: str
    requests: Sequence[Mapping[str, Any]]
    """Every request body the model server received, in order."""
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


@dataclass(frozen=True)
class Judgement:
    """One contract item for one subject."""

    item: str
    verdict: Verdict
    summary: str
    evidence: list[str] = field(default_factory=list)
    """Request numbers with excerpts, server log lines: what the verdict rests on."""
    scenarios: list[str] = field(default_factory=list)


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


def messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A request's messages."""
    return [m for m in body.get("messages") or [] if isinstance(m, Mapping)]


def offers_tools(body: Mapping[str, Any]) -> bool:
    """Whether a request lets the model call a tool (a non-empty `tools` and no `tool_choice: none`)."""
    return bool(body.get("tools")) and body.get("tool_choice") != "none"


def forces_tool(body: Mapping[str, Any]) -> bool:
    """Whether a request forces a tool call (`required`, or a named function)."""
    choice = body.get("tool_choice")
    return offers_tools(body) and (choice == "required" or isinstance(choice, Mapping))


def tool_names(body: Mapping[str, Any]) -> list[str]:
    """The tools a request offers, by name."""
    return [str((tool.get("function") or {}).get("name")) for tool in body.get("tools") or []]


def replied_calls(observed: Observed) -> list[tuple[int, str, str, str]]:
    """Every tool call the model server sent: (reply number, call id, tool, raw arguments)."""
    found = []
    for number, reply in enumerate(observed.replies, start=1):
        for call in reply.get("tool_calls") or []:
            function = call.get("function") or {}
            found.append(
                (number, str(call.get("id")), str(function.get("name")), str(function.get("arguments")))
            )
    return found


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


def new_user_messages(previous: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """User messages `current` holds beyond what `previous` held (by position after the common start)."""
    before, after = messages(previous), messages(current)
    common = 0
    while common < min(len(before), len(after)) and before[common] == after[common]:
        common += 1
    return [content_text(m.get("content")) for m in after[common:] if m.get("role") == "user"]


def server_calls(observed: Observed, tool: str) -> list[Mapping[str, Any]]:
    """The calls of one tool the server received."""
    return [call for call in observed.calls if str(call.get("tool")).endswith(tool)]


def log_line(call: Mapping[str, Any]) -> str:
    """A server call as the evidence shows it."""
    return f"server received {call.get('tool')}({json.dumps(call.get('arguments'), sort_keys=True)})"


def _request(number: int, what: str) -> str:
    return f"request {number}: {clip(what)}"


def _planted(observed: Observed, tool: str, raw: str | None = None) -> tuple[int, str] | None:
    """(reply number, call id) of the scripted call to `tool` (with these raw arguments)."""
    for number, call_id, name, arguments in replied_calls(observed):
        if name.endswith(tool) and (raw is None or arguments == raw):
            return number, call_id
    return None


def _not_run(observed: Observed, what: str) -> Judgement | None:
    if not observed.requests:
        reason = f"the subject sent no model request ({observed.error or 'no error reported'})"
        return Judgement(what, UNOBSERVABLE, reason, scenarios=[observed.scenario])
    return None


def _ended(observed: Observed) -> list[str]:
    """How the run ended, as evidence."""
    count = f"{len(observed.requests)} request{'s' if len(observed.requests) != 1 else ''} in all"
    return [count, f"the run ended: {clip(observed.error)}"] if observed.error else [count]


def _mentions(text: str, *words: str) -> bool:
    lowered = text.lower()
    return any(word.lower() in lowered for word in words)


# -- the items ------------------------------------------------------------------------------------------


def c1(observed: Observed) -> Judgement:
    """The first request forces a tool; no later request does."""
    item = "C1"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    first = observed.requests[0]
    evidence = [
        _request(
            1, f"tools {len(tool_names(first))}, tool_choice {json.dumps(first.get('tool_choice', 'absent'))}"
        )
    ]
    if not forces_tool(first):
        return Judgement(
            item, FAILS, "the first request does not force a tool call", evidence, [observed.scenario]
        )
    forced_later = [n for n, body in enumerate(observed.requests[1:], start=2) if forces_tool(body)]
    if forced_later:
        evidence += [_request(n, "tool_choice required again") for n in forced_later]
        return Judgement(item, FAILS, "later requests force a tool too", evidence, [observed.scenario])
    return Judgement(
        item, HOLDS, "request 1 forces a tool, later ones leave the choice", evidence, [observed.scenario]
    )


def c2(observed: Observed) -> Judgement:
    """An answer before any tool ran gets one more turn (a user message), not acceptance."""
    item = "C2"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    if len(observed.requests) < 2:
        first = content_text((observed.replies or [{}])[0].get("content"))
        return Judgement(
            item,
            FAILS,
            "the answer given before any tool call was accepted as final",
            [f"reply 1 (no tool called): {clip(first)}", f"{len(observed.requests)} request in all"],
            [observed.scenario],
        )
    pushed = new_user_messages(observed.requests[0], observed.requests[1])
    if not pushed:
        return Judgement(
            item, FAILS, "request 2 adds no user message after the tool-less answer", [], [observed.scenario]
        )
    return Judgement(
        item, HOLDS, "the tool-less answer got a further turn", [_request(2, pushed[-1])], [observed.scenario]
    )


def c3(observed: Observed) -> Judgement:
    """A call whose arguments break the schema never reaches the server, and the model is told which field."""
    return _kept_back(
        observed, "C3", "get_pod_logs", ("tail", "fifty", "integer"), "breaks the tool's schema"
    )


def c8(observed: Observed) -> Judgement:
    """A call whose arguments are not JSON never reaches the server, and the model is told so."""
    return _kept_back(
        observed, "C8", "describe_pod", ("json", "{not-json"), "has arguments that are not JSON"
    )


def c6(observed: Observed) -> Judgement:
    """A call to a tool the server does not offer never reaches it, and the model learns what there is."""
    item = "C6"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    planted = _planted(observed, "delete_pod")
    if planted is None:
        return Judgement(item, UNOBSERVABLE, "the scripted call was never sent", [], [observed.scenario])
    slipped = server_calls(observed, "delete_pod")
    if slipped:
        return Judgement(
            item, FAILS, "the unknown tool reached the server", [log_line(slipped[0])], [observed.scenario]
        )
    answered = first_answer(observed, planted[1])
    if answered is None:
        return Judgement(
            item,
            FAILS,
            f"call {planted[1]} (delete_pod) was never answered",
            _ended(observed),
            [observed.scenario],
        )
    number, text = answered
    offered = tool_names(observed.requests[0])
    if not _mentions(text, "delete_pod", *offered):
        return Judgement(
            item,
            FAILS,
            "the model was not told the tool is unknown or what is available",
            [_request(number, text)],
            [observed.scenario],
        )
    return Judgement(
        item, HOLDS, "kept from the server; the model was told", [_request(number, text)], [observed.scenario]
    )


def _kept_back(observed: Observed, item: str, tool: str, words: tuple[str, ...], problem: str) -> Judgement:
    if (missing := _not_run(observed, item)) is not None:
        return missing
    planted = _planted(observed, tool)
    if planted is None:
        return Judgement(item, UNOBSERVABLE, "the scripted call was never sent", [], [observed.scenario])
    slipped = server_calls(observed, tool)
    if slipped:
        return Judgement(
            item,
            FAILS,
            f"the call that {problem} reached the server",
            [log_line(slipped[0])],
            [observed.scenario],
        )
    answered = first_answer(observed, planted[1])
    if answered is None:
        return Judgement(
            item, FAILS, f"call {planted[1]} was never answered", _ended(observed), [observed.scenario]
        )
    number, text = answered
    if not _mentions(text, *words):
        return Judgement(
            item,
            FAILS,
            "kept from the server, but the model was not told what is wrong",
            [_request(number, text)],
            [observed.scenario],
        )
    return Judgement(
        item,
        HOLDS,
        "kept from the server; the model was told what is wrong",
        [_request(number, text)],
        [observed.scenario],
    )


def c4(observed: Sequence[Observed]) -> Judgement:
    """Repeats are answered without the server, then one tool-less request asks for the summary."""
    item = "C4"
    evidence: list[str] = []
    names = [o.scenario for o in observed]
    for run in observed:
        if (missing := _not_run(run, item)) is not None:
            return missing
        repeated = [(name, raw) for _, _, name, raw in replied_calls(run)]
        counts: dict[tuple[str, str], int] = {}
        for key in repeated:
            counts[key] = counts.get(key, 0) + 1
        for (name, raw), proposed in counts.items():
            if proposed < 2:
                continue
            arguments = json.loads(raw or "{}")
            reached = [
                c for c in run.calls if str(c.get("tool")).endswith(name) and c.get("arguments") == arguments
            ]
            if len(reached) > 1:
                return Judgement(
                    item,
                    FAILS,
                    f"a call proposed {proposed} times reached the server {len(reached)} times ({run.scenario})",
                    [log_line(call) for call in reached],
                    names,
                )
            evidence.append(
                f"{run.scenario}: {name} proposed {proposed} times, reached the server {len(reached)} time(s)"
            )
        last = run.requests[-1]
        if offers_tools(last):
            return Judgement(
                item,
                FAILS,
                f"no tool-less summary request after the repeats ({run.scenario})",
                [*evidence, _request(len(run.requests), f"still offers {len(tool_names(last))} tools")],
                names,
            )
        evidence.append(f"{run.scenario}: request {len(run.requests)} offers no tools (the summary)")
    return Judgement(
        item, HOLDS, "repeats kept from the server; a tool-less summary followed", evidence, names
    )


def c5(observed: Observed) -> Judgement:
    """An answer naming a pod no tool returned gets a further turn that names it."""
    item = "C5"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    return _refused_answer(observed, item, scenarios.INVENTED, "the answer naming a pod no tool returned")


def c12(observed: Sequence[Observed]) -> Judgement:
    """A quote found in no tool result gets a further turn naming it; what stays unverified is kept and said to be."""
    item = "C12"
    fabricated = next((o for o in observed if o.scenario == scenarios.C12.name), None)
    kept = next((o for o in observed if o.scenario == scenarios.C12_KEPT.name), None)
    names = [o.scenario for o in observed]
    if fabricated is None:
        return Judgement(item, UNOBSERVABLE, "scenario c12-fabricated-evidence was not run", [], names)
    if (missing := _not_run(fabricated, item)) is not None:
        return missing
    first = _refused_answer(
        fabricated, item, scenarios.FABRICATED, "the answer quoting text no tool returned"
    )
    if first.verdict != HOLDS or kept is None:
        return Judgement(item, first.verdict, first.summary, first.evidence, names)
    answer = kept.answer or ""
    if scenarios.FABRICATED not in answer:
        return Judgement(
            item,
            FAILS,
            "the still-unverified quote was dropped from the answer",
            [f"answer: {clip(answer)}"],
            names,
        )
    if not _mentions(answer, "unverified", "not verified"):
        return Judgement(
            item, FAILS, "the still-unverified quote is presented as fact", [f"answer: {clip(answer)}"], names
        )
    return Judgement(
        item,
        HOLDS,
        "the fabricated quote got a correction; what stayed unverified is marked",
        first.evidence,
        names,
    )


def _refused_answer(observed: Observed, item: str, needle: str, what: str) -> Judgement:
    answered = next(
        (
            n
            for n, reply in enumerate(observed.replies, start=1)
            if needle in content_text(reply.get("content"))
        ),
        None,
    )
    if answered is None:
        return Judgement(item, UNOBSERVABLE, "the scripted answer was never sent", [], [observed.scenario])
    if len(observed.requests) <= answered:
        return Judgement(
            item,
            FAILS,
            f"{what} was accepted as final",
            [f"reply {answered}: {clip(content_text(observed.replies[answered - 1].get('content')))}"],
            [observed.scenario],
        )
    pushed = new_user_messages(observed.requests[answered - 1], observed.requests[answered])
    naming = [text for text in pushed if needle in text]
    if not naming:
        return Judgement(
            item,
            FAILS,
            f"{what} got a further turn that does not name {clip(needle, 60)}",
            [_request(answered + 1, pushed[-1] if pushed else "no new user message")],
            [observed.scenario],
        )
    return Judgement(
        item,
        HOLDS,
        f"{what} got a further turn naming it",
        [_request(answered + 1, naming[-1])],
        [observed.scenario],
    )


def c7(observed: Observed, max_steps: int) -> Judgement:
    """The step budget ends the run with one tool-less request, within max_steps + 1 requests."""
    item = "C7"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    count = len(observed.requests)
    last = observed.requests[-1]
    evidence = [f"{count} requests for a budget of {max_steps} steps"]
    if observed.error:
        return Judgement(
            item,
            FAILS,
            "the run ended with an error at the step limit, not a summary",
            [*evidence, clip(observed.error)],
            [observed.scenario],
        )
    if count > max_steps + 1:
        return Judgement(
            item, FAILS, f"more than max_steps + 1 = {max_steps + 1} requests", evidence, [observed.scenario]
        )
    if offers_tools(last):
        return Judgement(
            item,
            FAILS,
            "the last request still offers tools: no tool-less summary",
            [*evidence, _request(count, "tools offered")],
            [observed.scenario],
        )
    return Judgement(
        item,
        HOLDS,
        "the budget ended with a tool-less summary request",
        [*evidence, _request(count, "no tools")],
        [observed.scenario],
    )


def c9(observed: Observed) -> Judgement:
    """A failing tool is a result the model sees, and the run goes on."""
    item = "C9"
    if (missing := _not_run(observed, item)) is not None:
        return missing
    planted = _planted(observed, "get_pod_logs")
    if planted is None:
        return Judgement(item, UNOBSERVABLE, "the scripted call was never sent", [], [observed.scenario])
    answered = first_answer(observed, planted[1])
    if answered is None:
        return Judgement(
            item,
            FAILS,
            "the failed call was never answered: the run stopped",
            [clip(observed.error or "")],
            [observed.scenario],
        )
    number, text = answered
    if observed.error:
        return Judgement(
            item,
            FAILS,
            "the run failed after the tool failure",
            [_request(number, text), clip(observed.error)],
            [observed.scenario],
        )
    return Judgement(
        item,
        HOLDS,
        "the failure came back as a result and the run went on",
        [_request(number, text)],
        [observed.scenario],
    )


def c10(observed: Sequence[Observed]) -> Judgement:
    """In every request of every scenario, each call id is answered exactly once, in call order,
    before the next message; nothing unknown or invalid of the mixed round reaches the server."""
    item = "C10"
    names = [o.scenario for o in observed]
    checked = 0
    for run in observed:
        for number, body in enumerate(run.requests, start=1):
            listed = messages(body)
            for index, message in enumerate(listed):
                ids = [str(call.get("id")) for call in message.get("tool_calls") or []]
                if message.get("role") != "assistant" or not ids:
                    continue
                answered = []
                for following in listed[index + 1 :]:
                    if following.get("role") != "tool":
                        break
                    answered.append(str(following.get("tool_call_id")))
                checked += 1
                if sorted(answered) != sorted(ids):
                    return Judgement(
                        item,
                        FAILS,
                        f"calls answered {answered} for {ids} ({run.scenario})",
                        [_request(number, f"assistant calls {ids}")],
                        names,
                    )
                if answered != ids:
                    return Judgement(
                        item,
                        FAILS,
                        f"answers out of call order ({run.scenario})",
                        [_request(number, f"calls {ids}, answers {answered}")],
                        names,
                    )
    mixed = next((o for o in observed if o.scenario == scenarios.C10.name), None)
    if mixed is not None:
        unanswered = [
            call_id for _, call_id, _, _ in replied_calls(mixed) if first_answer(mixed, call_id) is None
        ]
        if unanswered:
            return Judgement(
                item, FAILS, f"the mixed round's calls {unanswered} were never answered", _ended(mixed), names
            )
        slipped = [c for c in mixed.calls if str(c.get("tool")) not in ("list_nodes", "get_pod_logs")]
        if slipped:
            return Judgement(
                item,
                FAILS,
                "a call of the mixed round that should be refused reached the server",
                [log_line(c) for c in slipped],
                names,
            )
    if not checked:
        return Judgement(item, UNOBSERVABLE, "no request carried tool calls", [], names)
    return Judgement(item, HOLDS, f"{checked} rounds of calls, each answered once, in order", [], names)


def c11(observed: Sequence[Observed]) -> Judgement:
    """A subject that asks for a structured report corrects one that breaks its schema, once."""
    item = "C11"
    names = [o.scenario for o in observed]
    schema_run = next((o for o in observed if o.scenario == scenarios.C11.name), None)
    if schema_run is None:
        return Judgement(item, UNOBSERVABLE, "scenario c11-report-schema was not run", [], names)
    if (missing := _not_run(schema_run, item)) is not None:
        return missing
    first = schema_run.requests[0]
    system = " ".join(content_text(m.get("content")) for m in messages(first) if m.get("role") == "system")
    if "response_format" not in first and "json" not in system.lower():
        return Judgement(
            item,
            UNOBSERVABLE,
            "the subject asks for no structured report (no response_format, no JSON in its instructions)",
            [],
            names,
        )
    asked = [n for n, body in enumerate(schema_run.requests, start=1) if "response_format" in body]
    evidence = [f"response_format on requests {asked}"] if asked else []
    broken = next(
        (
            n
            for n, reply in enumerate(schema_run.replies, start=1)
            if '"crashing"' in content_text(reply.get("content"))
        ),
        None,
    )
    if broken is None:
        return Judgement(item, UNOBSERVABLE, "the scripted answer was never sent", evidence, names)
    if len(schema_run.requests) <= broken:
        return Judgement(item, FAILS, "the report that breaks the schema was accepted", evidence, names)
    pushed = new_user_messages(schema_run.requests[broken - 1], schema_run.requests[broken])
    if not pushed or not _mentions(pushed[-1], "cause", "schema", "field"):
        return Judgement(
            item,
            FAILS,
            "the correction does not name what breaks the schema",
            [*evidence, _request(broken + 1, pushed[-1] if pushed else "none")],
            names,
        )
    return Judgement(
        item,
        HOLDS,
        "the schema violation got one correction naming it",
        [*evidence, _request(broken + 1, pushed[-1])],
        names,
    )


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
}


def judge_all(observed: Mapping[str, Observed], max_steps: Mapping[str, int]) -> list[Judgement]:
    """Every item, from the runs of one subject by scenario name (a missing scenario: not observable)."""

    def one(name: str, rule: Callable[[Observed], Judgement], item: str) -> Judgement:
        run = observed.get(name)
        if run is None:
            return Judgement(item, UNOBSERVABLE, f"scenario {name} was not run", [], [name])
        return rule(run)

    def runs(*names: str) -> list[Observed]:
        return [observed[name] for name in names if name in observed]

    c7_name = scenarios.C7.name
    return [
        one(scenarios.C1.name, c1, "C1"),
        one(scenarios.C2.name, c2, "C2"),
        one(scenarios.C3.name, c3, "C3"),
        c4(runs(scenarios.C4.name, scenarios.C4_PARALLEL.name))
        if runs(scenarios.C4.name, scenarios.C4_PARALLEL.name)
        else Judgement("C4", UNOBSERVABLE, "the duplicate scenarios were not run"),
        one(scenarios.C5.name, c5, "C5"),
        one(scenarios.C6.name, c6, "C6"),
        one(c7_name, lambda run: c7(run, max_steps.get(c7_name, 3)), "C7"),
        one(scenarios.C8.name, c8, "C8"),
        one(scenarios.C9.name, c9, "C9"),
        c10(list(observed.values())),
        c11(runs(scenarios.C11.name)),
        c12(runs(scenarios.C12.name, scenarios.C12_KEPT.name)),
    ]
