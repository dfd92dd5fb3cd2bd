"""What several items check alike: a run's checks and violations, a further turn after an answer
that should be refused, a server call no proposal accounts for, a proposal's answer."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent import scenarios
from k8s_agent.contract.judge.wire import (
    FAILS,
    HOLDS,
    UNOBSERVABLE,
    WRITE_TOOLS,
    Judgement,
    Observed,
    Proposal,
    Violation,
    _names,
    _request,
    clip,
    content_text,
    first_answer,
    json_value,
    leaves,
    log_line,
    new_user_messages,
    proposals,
    readable,
    same_tool,
)
from k8s_agent_harness.evidence.provenance import normalised

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


def _report_is_the_answer(
    check: _Check, run: Observed, accepted: int, rejected: int, *, by_dropped: bool = False
) -> None:
    """The subject's answer (where its adapter finds one) is the report of reply `accepted`, not the
    one of reply `rejected` it corrected: it shows at least one text of the accepted report that the
    rejected one did not hold; with `by_dropped` (C11), when the accepted report has none, it shows
    no text of the rejected report that the accepted one dropped (a report may be rendered any way,
    so its texts, string values of 8 characters or more, are what is compared). C12's corrected
    report may keep the rejected one's texts, marked, so it is not told apart by them."""
    if run.answer is None or len(run.replies) < accepted or len(run.requests) != accepted:
        return
    report = content_text(run.replies[accepted - 1].get("content"))
    earlier = content_text(run.replies[rejected - 1].get("content"))
    own = _new_texts(report, earlier)
    answer = normalised(readable(run.answer))
    # With no text of its own, the corrected report is told apart by what it dropped.
    shown = [] if own or not by_dropped else [t for t in _new_texts(earlier, report) if t in answer]
    if (own and not any(text in answer for text in own)) or shown:
        check.fail(
            run.scenario,
            f"the corrected report (reply {accepted}) is not the subject's answer"
            + (f": it shows the rejected report's {shown[0]!r}" if shown else ""),
            f"reply {accepted}: {report}",
            f"answer: {run.answer}",
        )


def _new_texts(report: str, other: str) -> list[str]:
    """The string values of 8 characters or more of a report (its JSON, or the JSON object in it)
    that the other report's text does not hold, normalised."""
    before = normalised(readable(other))
    found = json_value(report)
    texts = [
        normalised(text)
        for text in (v for v in leaves(found[0] if found else None, keys=False) if isinstance(v, str))
        if len(text.strip()) >= 8
    ]
    return [text for text in texts if text not in before]


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
