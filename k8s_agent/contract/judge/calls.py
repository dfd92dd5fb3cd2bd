"""The items of the calls: C3 (a call that breaks the schema), C4 (repeats), C6 (an unknown tool),
C8 (arguments that are not JSON), C9 (a failed call)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from k8s_agent import scenarios
from k8s_agent.contract.judge.checks import (
    Runs,
    _answer,
    _answer_is,
    _before_the_end,
    _Check,
    _ending,
    _proposed,
    _ran,
    _reached,
    _runs,
    _told,
    _unaccounted,
)
from k8s_agent.contract.judge.wire import (
    JSON_WORDS,
    Judgement,
    Proposal,
    _mentions,
    _request,
    clip,
    failure_text,
    fingerprint,
    first_answer,
    json_value,
    log_line,
    offers_tools,
    proposals,
    readable,
    receipts,
    same_tool,
    tool_names,
)
from k8s_agent_harness.evidence.provenance import normalised
from k8s_agent_harness.printout import plural


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
