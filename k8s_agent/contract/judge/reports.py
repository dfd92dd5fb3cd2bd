"""C11 and C12: the structured report asked for, corrected once, and what stays unverified kept and
marked."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from k8s_agent import scenarios
from k8s_agent.contract.judge.checks import (
    Runs,
    _answered_at,
    _Check,
    _pushed_back_once,
    _ran,
    _report_is_the_answer,
    _runs,
)
from k8s_agent.contract.judge.wire import (
    FINDING_FIELDS,
    JSON_WORDS,
    REPORT_FIELDS,
    UNVERIFIED_MARKS,
    Judgement,
    Observed,
    _mentions,
    _names,
    _request,
    clip,
    content_text,
    json_value,
    new_user_messages,
    readable,
    schema_problems,
    system_text,
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
        described = [field for field in FINDING_FIELDS if _names(system, field)]
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
        _report_is_the_answer(check, run, broken + 1, broken, by_dropped=True)
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
