"""The items of the loop's turns: C1 (the forced first call), C2 and C5 (one further turn after
an answer given too early), C7 (the step budget)."""

from __future__ import annotations

import json

from k8s_agent import scenarios
from k8s_agent.contract.judge.checks import Runs, _answer_is, _Check, _one_further_turn, _ran, _runs
from k8s_agent.contract.judge.wire import (
    INSTRUCTING,
    Judgement,
    _request,
    content_text,
    forces_tool,
    messages,
    new_messages,
    offers_tools,
    tool_names,
)
from k8s_agent_harness.printout import plural


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
