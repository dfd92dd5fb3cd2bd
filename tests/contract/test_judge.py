"""The black-box judge on its own: every item can hold, fail (with every violation) and be unobservable.

The observations are built by hand, in the shapes other agents produce (their own error wording,
results wrapped in the parameters used, answers in completion order), so that what is judged is
behaviour, never our message texts. Each subtle break the judge must catch has a case here; the
mutation test (test_mutants.py) catches them again from real runs.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k8s_agent import scenarios
from k8s_agent.contract.judge import (
    FAILS,
    HOLDS,
    UNOBSERVABLE,
    Observed,
    c1,
    c2,
    c3,
    c4,
    c5,
    c6,
    c7,
    c8,
    c9,
    c10,
    c11,
    c12,
    c13,
    c14,
    judge_all,
)

LOGS_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}, "tail": {"type": "integer"}},
    "required": ["name", "namespace"],
}
TOOLS = [
    {"type": "function", "function": {"name": "list_pods", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "get_pod_logs", "parameters": LOGS_SCHEMA}},
    {"type": "function", "function": {"name": "describe_pod", "parameters": LOGS_SCHEMA}},
]


REPORT_SYSTEM = "You are an SRE. Answer with JSON: findings, each with its status, cause and evidence."


def request(
    *messages: dict[str, Any],
    tools: bool = True,
    choice: Any = None,
    system: str = "You are an SRE.",
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messages": [{"role": "system", "content": system}, *messages],
        **extra,
    }
    if tools:
        body["tools"] = TOOLS
    if choice is not None:
        body["tool_choice"] = choice
    return body


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(*made: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in made
        ],
    }


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def received(tool: str, arguments: dict[str, Any], times: int = 1) -> list[dict[str, Any]]:
    return [{"tool": tool, "arguments": arguments}] * times


def answered(tool: str, arguments: dict[str, Any], text: str, error: bool = False) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments, "text": text, "is_error": error}


def observed(
    name: str, requests: list[dict[str, Any]], replies: list[dict[str, Any]], **fields: Any
) -> Observed:
    return Observed(scenario=name, requests=requests, replies=replies, **{"calls": [], **fields})


Q = user("Which pods are unhealthy?")
FORCED = request(Q, choice="required")


# -- C1 ------------------------------------------------------------------------------------------------


def test_c1_forcing_is_judged_on_every_request_of_every_scenario() -> None:
    forced = observed("c1", [FORCED, request(Q)], [])
    named = observed(
        "c1", [request(Q, choice={"type": "function", "function": {"name": "list_pods"}}), request(Q)], []
    )
    auto = observed("c1", [request(Q, choice="auto")], [])
    after_pushback = observed(
        "c2", [FORCED, request(Q, said("ok"), user("Look first."), choice="required")], []
    )
    on_summary = observed("c7", [FORCED, request(Q, tools=False, choice="required")], [])
    nothing = observed("c1", [], [], error="exit 1: connection refused")

    assert c1(forced).verdict == HOLDS and c1(named).verdict == HOLDS
    assert c1(auto).verdict == FAILS and c1(auto).violations[0].evidence == [
        'request 1: tools 3, tool_choice "auto"'
    ]
    assert c1(after_pushback).summary == "request 2 forces a tool call again"
    assert c1(on_summary).summary == "request 2 forces a tool but offers none"  # an API refuses it
    assert c1(nothing).verdict == UNOBSERVABLE and "connection refused" in c1(nothing).summary


def test_every_violation_is_reported_grouped_by_scenario() -> None:
    judged = c1(
        [observed("c1", [request(Q)], []), observed("c2", [FORCED, request(Q, choice="required")], [])]
    )

    assert judged.verdict == FAILS and [v.scenario for v in judged.violations] == ["c1", "c2"]
    assert judged.summary.endswith("(and 1 more, in c1, c2)")
    assert "c2: request 2 forces a tool call again" in judged.evidence


# -- C2, C5: one further turn, then a clean end ------------------------------------------------------------


def test_c2_one_further_turn_then_the_next_answer_is_accepted() -> None:
    pushed = [FORCED, request(Q, said("All good."), user("Call a tool first."))]
    once = observed(scenarios.C2.name, pushed, [said("All good."), said("Still good.")])
    accepted = observed(scenarios.C2.name, [FORCED], [said("All good.")])
    twice = observed(
        scenarios.C2.name,
        [
            *pushed,
            request(Q, said("All good."), user("Call a tool first."), said("Still good."), user("Again.")),
        ],
        [said("All good."), said("Still good.")],
        error="exit 1: the model keeps answering",
    )

    assert c2(once).verdict == HOLDS and c2(once).evidence == [
        "c2-zero-tool-pushback: request 2: Call a tool first."
    ]
    assert c2(accepted).verdict == FAILS
    assert c2(accepted).violations[0].evidence == ["reply 1: All good.", "1 request in all"]
    summaries = [v.summary for v in c2(twice).violations]
    assert summaries == [
        "the answer after the further turn was not accepted: 3 requests",
        "the run ended in an error after the further turn",
    ]


def test_c5_the_further_turn_must_name_the_invented_pod() -> None:
    answer = f"{scenarios.INVENTED} is down."
    base = [FORCED, request(Q, said(answer))]
    replies = [calls(("c1", "list_pods", "{}")), said(answer), said("Fixed.")]
    named = observed(
        scenarios.C5.name,
        [*base, request(Q, said(answer), user(f"Nothing returned {scenarios.INVENTED}."))],
        replies,
    )
    vague = observed(
        scenarios.C5.name, [*base, request(Q, said(answer), user("Check your answer."))], replies
    )
    accepted = observed(scenarios.C5.name, base, replies)
    never = observed(scenarios.C5.name, base, [calls(("c1", "list_pods", "{}"))])

    assert c5(named).verdict == HOLDS
    assert c5(vague).verdict == FAILS and c5(vague).violations[0].evidence == [
        "request 3: Check your answer."
    ]
    assert c5(accepted).verdict == FAILS and c5(accepted).summary.endswith("was accepted as final")
    assert c5(never).verdict == UNOBSERVABLE


# -- C3, C6, C8: a call kept from the server, the model told every problem -----------------------------------

LOGS_CALL = ("c1", "get_pod_logs", '{"name": "p", "tail": "fifty"}')


def test_a_call_is_judged_against_the_server_s_schema_not_a_stricter_copy_the_subject_offers() -> None:
    strict = {
        **LOGS_SCHEMA,
        "required": ["name", "namespace", "tail"],
    }  # every property required, as some agents send it
    offered = {"type": "function", "function": {"name": "get_pod_logs", "parameters": strict}}
    valid = ("c1", "get_pod_logs", '{"name": "p", "namespace": "shop"}')
    run = observed(
        "c1",
        [{**FORCED, "tools": [offered]}, request(Q, calls(valid), result("c1", "log line"))],
        [calls(valid)],
        calls=received("get_pod_logs", {"name": "p", "namespace": "shop"}),
        server_schemas={"get_pod_logs": LOGS_SCHEMA},
    )

    assert c3(run).verdict == UNOBSERVABLE  # no call broke the server's schema
    assert (
        c3(observed("c1", run.requests, run.replies, calls=run.calls)).verdict == FAILS
    )  # by the offered one


def test_c3_every_schema_problem_must_be_named_wherever_the_call_is_made() -> None:
    replies = [calls(LOGS_CALL)]

    def told(text: str) -> list[dict[str, Any]]:
        return [FORCED, request(Q, calls(LOGS_CALL), result("c1", text))]

    both = observed(
        "c10", told("get_pod_logs(name=p): 'namespace' is missing; tail must be an integer"), replies
    )
    one = observed("c10", told("get_pod_logs(name=p): tail must be an integer"), replies)
    reached = observed(
        "c3", told("namespace, tail"), replies, calls=received("get_pod_logs", {"name": "p", "tail": "fifty"})
    )
    unanswered = observed("c3", [FORCED], replies, error="ValueError: bad arguments")

    assert c3(both).verdict == HOLDS  # another agent's wording, in another scenario than C3's own
    assert c3(one).summary == "the schema problems of get_pod_logs: the model was not told 'namespace'"
    assert c3(reached).verdict == FAILS
    assert c3(reached).violations[0].evidence == [
        'server received get_pod_logs({"name": "p", "tail": "fifty"})'
    ]
    assert c3(unanswered).violations[0].evidence == [
        "1 request in all; the run ended: ValueError: bad arguments"
    ]
    assert c3(observed("c3", [FORCED], [said("no calls")])).verdict == UNOBSERVABLE


def test_c8_arguments_that_are_not_json_must_not_run_as_anything() -> None:
    broken = ("c1", "describe_pod", "{not-json")
    replies = [calls(broken)]
    told = observed(
        "c8",
        [FORCED, request(Q, calls(broken), result("c1", "Could not parse the JSON arguments: {not-json"))],
        replies,
    )
    no_raw = observed(
        "c8", [FORCED, request(Q, calls(broken), result("c1", "Could not parse the JSON arguments"))], replies
    )
    ran_empty = observed(
        "c8",
        [FORCED, request(Q, calls(broken), result("c1", "describe_pod: name is required"))],
        replies,
        calls=received("describe_pod", {}),
    )

    assert c8(told).verdict == HOLDS
    assert c8(no_raw).summary == "the model was not shown the arguments it sent ({not-json)"
    assert [v.summary for v in c8(ran_empty).violations] == [
        "a call whose arguments are not JSON reached the server",
        "the model was not told its arguments are not JSON",
    ]


def test_c6_an_unknown_tool_is_kept_back_and_the_model_learns_every_tool_there_is() -> None:
    unknown = ("c1", "delete_pod", '{"name": "p"}')
    replies = [calls(unknown)]

    def answer(text: str, **fields: Any) -> Observed:
        return observed("c6", [FORCED, request(Q, calls(unknown), result("c1", text))], replies, **fields)

    listed = answer("No tool delete_pod here; you have list_pods, get_pod_logs, describe_pod.")
    prefix_only = answer("delete_pod(name=p): Tool not found")  # names the tool, lists nothing
    crashed = observed("c6", [FORCED], replies, error="ModelBehaviorError: Tool delete_pod not found")

    assert c6(listed).verdict == HOLDS
    assert c6(prefix_only).summary.startswith(
        "the unknown tool delete_pod: the model was not told 'list_pods'"
    )
    assert c6(crashed).verdict == FAILS and "ModelBehaviorError" in c6(crashed).violations[0].evidence[0]


# -- C4, C7: budgets ---------------------------------------------------------------------------------------


def repeat_run(server_times: int, summary_tools: bool, name: str = scenarios.C4.name) -> Observed:
    call = ("list_pods", '{"namespace": "production"}')
    replies = [calls((f"c{n}", *call)) for n in range(1, 4)]
    requests = [FORCED, request(Q), request(Q), request(Q, tools=summary_tools)]
    return observed(
        name, requests, replies, calls=received("list_pods", {"namespace": "production"}, server_times)
    )


def test_c4_repeats_stay_off_the_server_in_every_scenario_and_a_tool_less_summary_follows() -> None:
    assert c4([repeat_run(1, summary_tools=False)]).verdict == HOLDS
    ran_thrice = c4([repeat_run(3, summary_tools=False), repeat_run(2, summary_tools=False, name="c1")])
    assert ran_thrice.verdict == FAILS and [v.scenario for v in ran_thrice.violations] == [
        "c4-duplicates",
        "c1",
    ]
    assert len(ran_thrice.violations[0].evidence) == 3
    no_summary = c4([repeat_run(1, summary_tools=True)])
    assert no_summary.verdict == FAILS and no_summary.summary.startswith("no tool-less summary request")


def test_c7_the_budget_ends_in_one_tool_less_summary_within_max_steps_plus_one() -> None:
    c7_name = scenarios.C7.name
    ask = user("The step budget is spent: write your answer from what the tools returned.")
    summary = request(Q, ask, tools=False)
    within = observed(c7_name, [FORCED] + [request(Q)] * 2 + [summary], [])
    none_choice = observed(c7_name, [FORCED] + [request(Q)] * 2 + [request(Q, ask, choice="none")], [])
    raised = observed(c7_name, [FORCED] + [request(Q)] * 2, [], error="exit 1: Reached max steps")
    one_over = observed(c7_name, [FORCED] + [request(Q)] * 3 + [summary], [])
    over = observed(c7_name, [FORCED] + [request(Q)] * 4 + [summary], [])
    offered = observed(c7_name, [FORCED] + [request(Q)] * 3, [])
    mute = observed(c7_name, [FORCED] + [request(Q)] * 2 + [request(Q, tools=False)], [])
    by_system = observed(
        c7_name,
        [FORCED]
        + [request(Q)] * 2
        + [request(Q, {"role": "developer", "content": "Summarise."}, tools=False)],
        [],
    )

    assert c7(within, 3).verdict == HOLDS  # exactly max_steps + 1 requests, the last a summary
    assert c7(none_choice, 3).verdict == HOLDS  # tools attached, but tool_choice none: no call possible
    assert c7(by_system, 3).verdict == HOLDS  # the instruction may come as a system or developer message
    assert (
        c7(raised, 3).verdict == FAILS
        and c7(raised, 3).violations[0].evidence[-1] == "exit 1: Reached max steps"
    )
    assert c7(one_over, 3).summary == "more than max_steps + 1 = 4 requests"  # the boundary: 5 is too many
    assert c7(over, 3).summary == "more than max_steps + 1 = 4 requests"
    assert c7(offered, 3).summary == "the last request still offers tools: no tool-less summary"
    assert c7(mute, 3).summary.startswith("the summary request (request 4) carries no instruction")


# -- C9, C10 -------------------------------------------------------------------------------------------------

FAILED_CALL = ("c1", "get_pod_logs", '{"name": "a", "namespace": "shop"}')
FAILURE = answered(
    "get_pod_logs", {"name": "a", "namespace": "shop"}, "pod a is Pending: no logs", error=True
)


def test_c9_a_failure_reaches_the_server_once_and_is_shown_and_the_run_goes_on() -> None:
    def run(text: str, times: int = 1, **fields: Any) -> Observed:
        return observed(
            "c9",
            [FORCED, request(Q, calls(FAILED_CALL), result("c1", text))],
            [calls(FAILED_CALL)],
            calls=received("get_pod_logs", {"name": "a", "namespace": "shop"}, times),
            results=[FAILURE] * times,
            **fields,
        )

    assert c9(run("get_pod_logs(name=a) failed: pod a is Pending: no logs")).verdict == HOLDS
    assert c9(run("pod a is Pending: no logs", times=2)).summary.startswith(
        "a failed call proposed once reached the server 2 times"
    )
    assert c9(run("An error occurred.")).summary == "the model was not shown the failure"
    assert (
        c9(run("pod a is Pending: no logs", error="exit 1: tool failed")).summary
        == "the run failed after the tool failure"
    )
    stopped = observed(
        "c9",
        [FORCED],
        [calls(FAILED_CALL)],
        calls=received("get_pod_logs", {"name": "a", "namespace": "shop"}),
        results=[FAILURE],
        error="exit 1",
    )
    assert c9(stopped).summary.startswith("the failed call c1 was never answered")


def test_c10_every_call_id_answered_once_in_call_order_with_its_own_result() -> None:
    round_ = calls(("a", "list_pods", "{}"), ("b", "list_pods", '{"namespace": "shop"}'))
    served = [
        answered("list_pods", {}, "NAME   STATUS\nweb-1   Running\napi-2   Running"),
        answered("list_pods", {"namespace": "shop"}, "NAME   STATUS\ncart-3   CrashLoopBackOff"),
    ]
    everything, shop = served[0]["text"], served[1]["text"]

    def run(*answers: dict[str, Any], name: str = "c1") -> Observed:
        reached = [*received("list_pods", {}), *received("list_pods", {"namespace": "shop"})]
        return observed(name, [FORCED, request(Q, round_, *answers)], [round_], results=served, calls=reached)

    assert c10([run(result("a", f"list_pods(): {everything}"), result("b", shop))]).verdict == HOLDS
    assert c10([run(result("b", shop), result("a", everything))]).summary.startswith(
        "answers out of call order"
    )
    assert c10([run(result("a", everything), result("a", everything), result("b", shop))]).verdict == FAILS
    rotated = c10([run(result("a", shop), result("b", everything))])  # each id once, in order, wrong result
    assert (
        rotated.violations[0].summary
        == "call a (list_pods) was answered with something else than its own result"
    )
    assert len(rotated.violations) == 2
    repeat = calls(("c", "list_pods", "{}"))
    refused = (
        observed(  # a repeat answered without the server: a refusal of its own is no other call's result
            "c4",
            [
                FORCED,
                request(
                    Q, round_, result("a", everything), result("b", shop), repeat, result("c", "Not again.")
                ),
            ],
            [round_, repeat],
            results=served,
            calls=[*received("list_pods", {}), *received("list_pods", {"namespace": "shop"})],
        )
    )
    crossed = observed(
        "c4",
        [FORCED, request(Q, round_, result("a", everything), result("b", shop), repeat, result("c", shop))],
        [round_, repeat],
        results=served,
        calls=[*received("list_pods", {}), *received("list_pods", {"namespace": "shop"})],
    )
    assert c10([refused]).verdict == HOLDS
    assert c10([crossed]).summary == "call c (list_pods) was answered with another call's result"
    mixed_unanswered = observed(scenarios.C10.name, [FORCED], [round_], error="ModelBehaviorError")
    assert c10([mixed_unanswered]).summary == "the mixed round's calls ['a', 'b'] were never answered"
    assert c10([observed("c2", [FORCED], [])]).verdict == UNOBSERVABLE


# -- C11, C12: judged where the subject asks for a structured report ---------------------------------------------


def test_c11_is_judged_only_where_the_subject_asks_for_a_structured_report() -> None:
    broken = said(json.dumps({"findings": [{"name": scenarios.PAYMENT, "cause": "crashing"}]}))
    asking = {"response_format": {"type": "json_schema"}}
    fixed = said("{}")
    corrected = observed(
        scenarios.C11.name,
        [
            request(Q, **asking, system=REPORT_SYSTEM),
            request(Q, broken, user("findings.0.cause: not a known cause"), **asking, system=REPORT_SYSTEM),
        ],
        [broken, fixed],
    )
    vague = observed(
        scenarios.C11.name,
        [
            request(Q, **asking, system=REPORT_SYSTEM),
            request(Q, broken, user("Try again."), **asking, system=REPORT_SYSTEM),
        ],
        [broken, fixed],
    )
    accepted = observed(scenarios.C11.name, [request(Q, **asking, system=REPORT_SYSTEM)], [broken])

    assert c11([corrected]).verdict == HOLDS
    assert c11([vague]).summary.startswith("the correction does not name the errors the report has: 'cause'")
    assert c11([accepted]).verdict == FAILS
    assert c11([observed(scenarios.C11.name, [request(Q)], [broken])]).verdict == UNOBSERVABLE
    declared = c11(
        [
            observed(
                scenarios.C11.name, [request(Q, **asking, system=REPORT_SYSTEM)], [broken], structured=False
            )
        ]
    )
    assert declared.verdict == UNOBSERVABLE and "declares" in declared.summary


def test_c12_names_the_fabricated_quote_and_marks_each_quote_on_its_own_line() -> None:
    answer = f'{{"quote": "{scenarios.FABRICATED}"}}'
    replies = [said(answer), said(answer)]
    corrected = observed(
        scenarios.C12.name,
        [request(Q), request(Q, said(answer), user(f"The quote {scenarios.FABRICATED!r} is in no result."))],
        replies,
        structured=True,
    )
    pushed = [request(Q), request(Q, said(answer), user(f"{scenarios.FABRICATED} is in no result."))]

    def kept(text: str) -> Observed:
        return observed(scenarios.C12_KEPT.name, pushed, replies, answer=text, structured=True)

    marked = kept(f"[checked] {scenarios.LOG_LINE}\n[not found in any tool output] {scenarios.FABRICATED}")
    swapped = kept(f"[not found in any tool output] {scenarios.LOG_LINE}\n[checked] {scenarios.FABRICATED}")
    elsewhere = kept(f"Evidence: {scenarios.FABRICATED}\nSome quotes are unverified.")
    dropped = kept("No evidence.")

    assert c12([corrected, marked]).verdict == HOLDS
    assert (
        c12([observed(scenarios.C12.name, [request(Q)], replies, structured=True), marked]).verdict == FAILS
    )
    assert [v.summary for v in c12([corrected, swapped]).violations] == [
        "the still-unverified quote is presented as fact",
        "the quote a tool returned is marked unverified",
    ]
    assert c12([corrected, elsewhere]).summary == "the still-unverified quote is presented as fact"
    assert c12([corrected, dropped]).summary == "the still-unverified quote was dropped from the answer"
    assert (
        c12([observed(scenarios.C12.name, [request(Q)], replies, structured=False)]).verdict == UNOBSERVABLE
    )


# -- C13 -------------------------------------------------------------------------------------------------------


def test_c13_a_write_call_never_runs_unapproved_the_model_is_told_and_the_run_goes_on() -> None:
    delete = ("c1", "delete_pod", '{"name": "p", "namespace": "shop"}')
    replies = [calls(delete), said("Done.")]

    def run(text: str, **fields: Any) -> Observed:
        return observed(
            scenarios.C13.name,
            [FORCED, request(Q, calls(delete), result("c1", text))],
            replies,
            write_tools=True,
            **fields,
        )

    listed = "Available: list_pods, get_pod_logs, describe_pod"
    assert c13(run(f"delete_pod is refused: read-only tools only. {listed}")).verdict == HOLDS
    assert (
        c13(run(f"rejected: it modifies the cluster and this run may only read. {listed}")).verdict == HOLDS
    )
    assert c13(run("delete_pod is refused: read-only tools only.")).summary.startswith(
        "the refusal does not give the tools there are: 'list_pods'"
    )
    ran = c13(run("pod p deleted", calls=received("delete_pod", {"name": "p", "namespace": "shop"})))
    assert ran.violations[0].summary == "delete_pod reached the server without the operator's approval"
    assert c13(run("ok")).summary == "the model was not told the call was not run"
    assert c13(observed("c1", [FORCED], [])).verdict == UNOBSERVABLE


def test_every_item_is_judged_and_with_no_run_none_is_observable() -> None:
    verdicts = judge_all({}, {})

    assert [j.item for j in verdicts] == [f"C{n}" for n in range(1, 15)]
    assert {j.verdict for j in verdicts} == {UNOBSERVABLE}


@pytest.mark.parametrize("offered", [["mock__list_pods"], ["list_pods"]])
def test_the_player_fits_scripted_tool_names_to_what_the_subject_offers(offered: list[str]) -> None:
    from k8s_agent.contract.run import ScriptPlayer, fit
    from k8s_agent_scripted_llm import Reply, ToolCall

    player = ScriptPlayer([Reply(tool_calls=(ToolCall("list_pods", "{}"), ToolCall("delete_pod", "{}")))])
    step = player({"tools": [{"function": {"name": name}} for name in offered]})

    assert isinstance(step, Reply) and [c.name for c in step.tool_calls] == [offered[0], "delete_pod"]
    assert fit("pods", ["listpods"]) == "pods"  # a name is fitted only after a separator
    assert player.left == 0 and player({}).status == 400 and player.extra == 1  # type: ignore[union-attr]


# -- every server call accounted for ---------------------------------------------------------------------


def test_a_server_call_the_model_never_proposed_fails_the_item_whose_call_it_stands_for() -> None:
    breaking = ("c1", "get_pod_logs", '{"name": "p", "tail": "fifty"}')
    repaired = observed(
        "c3",
        [FORCED, request(Q, calls(breaking), result("c1", "adjusted: namespace, tail"))],
        [calls(breaking)],
        calls=received("get_pod_logs", {"name": "p", "namespace": "default"}),
    )
    failing = ("c1", "get_pod_logs", '{"name": "p", "namespace": "shop"}')
    retried = observed(
        "c9",
        [FORCED, request(Q, calls(failing), result("c1", "no logs yet"))],
        [calls(failing)],
        calls=[
            *received("get_pod_logs", {"name": "p", "namespace": "shop"}),
            *received("get_pod_logs", {"name": "p", "namespace": "shop", "tail": 20}),
        ],
        results=[answered("get_pod_logs", {"name": "p", "namespace": "shop"}, "no logs yet", error=True)],
    )
    unasked = observed("c1", [FORCED], [], calls=received("list_pods", {"namespace": "shop"}))

    assert c3(repaired).summary.startswith(
        "get_pod_logs reached the server with arguments the model never sent"
    )
    assert c9(retried).summary.startswith("get_pod_logs reached the server after a call failed")
    assert c3(unasked).summary == "list_pods reached the server, though the model never proposed that call"
    assert c9(repaired).verdict != FAILS and c3(retried).verdict != FAILS


def test_c4_only_an_identical_call_is_a_repeat() -> None:
    first, other = ("c1", "list_pods", '{"namespace": "shop"}'), ("c2", "list_pods", "{}")
    requests = [FORCED, request(Q, calls(first), result("c1", "pod a"), calls(other), result("c2", "pod b"))]
    both = observed(
        "c4",
        requests,
        [calls(first), calls(other)],
        calls=[*received("list_pods", {"namespace": "shop"}), *received("list_pods", {})],
    )
    by_name = observed(
        "c4", requests, [calls(first), calls(other)], calls=received("list_pods", {"namespace": "shop"})
    )

    assert c4(both).verdict == HOLDS
    assert c4(by_name).summary.startswith(
        "list_pods with arguments no earlier call had never reached the server"
    )
    # a read is no write: where the write tools are offered too, the same read still fails
    assert c4(replace(by_name, scenario="c13", write_tools=True)).summary.startswith(
        "list_pods with arguments no earlier call had never reached the server"
    )


# -- no wording assumed ----------------------------------------------------------------------------------


def test_results_sent_json_encoded_are_read_decoded() -> None:
    failing = ("c1", "get_pod_logs", '{"name": "x", "namespace": "shop"}')
    server_said = 'pod "x" not found'
    run = observed(
        "c9",
        [FORCED, request(Q, calls(failing), result("c1", json.dumps({"result": server_said})))],
        [calls(failing)],
        calls=received("get_pod_logs", {"name": "x", "namespace": "shop"}),
        results=[answered("get_pod_logs", {"name": "x", "namespace": "shop"}, server_said, error=True)],
    )
    listing = ("c1", "list_pods", "{}")
    table = 'NAME  STATUS\napi-1  Running\nweb "x"  Running'
    listed = observed(
        "c10",
        [FORCED, request(Q, calls(listing), result("c1", json.dumps({"output": table})))],
        [calls(listing)],
        calls=received("list_pods", {}),
        results=[answered("list_pods", {}, table)],
    )

    assert c9(run).verdict == HOLDS
    assert c10(listed).verdict == HOLDS


def test_c10_each_answer_is_the_whole_result_or_says_it_is_an_excerpt() -> None:
    listing = ("c1", "list_pods", "{}")
    table = "\n".join(["NAME STATUS", *(f"api-{n} Running" for n in range(8))])

    def answering(text: str) -> Observed:
        return observed(
            "c10",
            [FORCED, request(Q, calls(listing), result("c1", text))],
            [calls(listing)],
            calls=received("list_pods", {}),
            results=[answered("list_pods", {}, table)],
        )

    head = "\n".join(table.splitlines()[:3])
    assert c10(answering(table)).verdict == HOLDS
    assert c10(answering(head)).summary == (
        "call c1 (list_pods) was answered with part of its result, without saying it is an excerpt"
    )
    assert c10(answering(head + "\n[6 more lines omitted]")).verdict == HOLDS
    secret = table.replace("api-5 Running", "api-5 Running token=abc123secret")
    redacted = table.replace("api-5 Running", "api-5 Running token=[REDACTED]")
    run = answering(redacted)
    assert c10(Observed(**{**run.__dict__, "results": [answered("list_pods", {}, secret)]})).verdict == HOLDS


def test_c6_the_unknown_tool_may_be_named_but_not_listed_among_the_tools_there_are() -> None:
    unknown = ("c1", "delete_pod", "{}")

    def told(text: str) -> Observed:
        return observed("c6", [FORCED, request(Q, calls(unknown), result("c1", text))], [calls(unknown)])

    tools = "list_pods, get_pod_logs, describe_pod"
    assert c6(told(f"delete_pod is not one of {tools}")).verdict == HOLDS
    assert (
        c6(
            told(json.dumps({"error": "unknown tool", "tool": "delete_pod", "available": tools.split(", ")}))
        ).verdict
        == HOLDS
    )
    assert c6(told(f"Unknown tool delete_pod. Available: {tools}, delete_pod")).summary == (
        "the unknown tool delete_pod is listed among the tools there are"
    )


def test_c11_a_correction_names_the_errors_the_report_really_has() -> None:
    report = json.dumps({"findings": [{"name": scenarios.PAYMENT, "cause": "crashing"}]})
    schema = {
        "type": "object",
        "required": ["findings"],
        "properties": {
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "cause", "evidence"],
                    "properties": {"cause": {"enum": ["oom_killed"]}},
                },
            }
        },
    }
    asking = {"response_format": {"type": "json_schema", "json_schema": {"schema": schema}}}

    def corrected(text: str, scenario: str = scenarios.C11.name) -> Observed:
        return observed(
            scenario,
            [
                request(Q, **asking, system=REPORT_SYSTEM),
                request(Q, said(report), user(text), **asking, system=REPORT_SYSTEM),
            ],
            [said(report), said("{}")],
        )

    assert (
        c11([corrected("findings.0.cause is not allowed; findings.0.evidence is required")]).verdict == HOLDS
    )
    assert c11([corrected("findings.0.evidence is required")]).summary.endswith("'cause'")
    assert c11([corrected("It does not match the schema, send it again.")]).verdict == FAILS
    dropped = observed(
        scenarios.C11.name,
        [
            request(Q, **asking, system=REPORT_SYSTEM),
            request(Q, said(report), user("cause, evidence"), system=REPORT_SYSTEM),
        ],
        [said(report), said("{}")],
    )
    assert c11([dropped]).summary.startswith("requests [2] do not ask for the report's format")
    loose = observed(
        scenarios.C11.name,
        [
            request(Q, **asking, system=REPORT_SYSTEM),
            request(
                Q,
                said(report),
                user("cause, evidence"),
                response_format={"type": "json_object"},
                system=REPORT_SYSTEM,
            ),
        ],
        [said(report), said("{}")],
    )
    assert c11([loose]).summary.startswith("requests [2] do not ask for the report's format")
    silent = observed(
        scenarios.C11.name,
        [
            request(Q, **asking, system="Answer in JSON."),
            request(Q, said(report), user("cause, evidence"), **asking, system="Answer in JSON."),
        ],
        [said(report), said("{}")],
    )
    assert (
        c11([silent]).summary
        == "the system prompt does not describe the report (its findings and their fields)"
    )
    never = observed(scenarios.C11.name, [request(Q, system=REPORT_SYSTEM)], [said(report)], structured=True)
    assert any(
        v.summary == "the subject asks for a structured report, yet no request carries its response_format"
        for v in c11([never]).violations
    )


def test_c12_every_problem_is_named_and_a_json_answer_is_read_as_json() -> None:
    report = json.dumps({"findings": [{"name": scenarios.INVENTED, "evidence": [scenarios.FABRICATED]}]})
    replies = [said(report), said("{}")]

    def corrected(text: str) -> Observed:
        return observed(
            scenarios.C12.name, [request(Q), request(Q, said(report), user(text))], replies, structured=True
        )

    assert (
        c12([corrected(f"{scenarios.FABRICATED!r} and {scenarios.INVENTED} are in no result")]).verdict
        == HOLDS
    )
    assert c12([corrected(f"{scenarios.FABRICATED!r} is in no result")]).summary.endswith(scenarios.INVENTED)

    quoting = json.dumps({"findings": [{"name": scenarios.PAYMENT, "evidence": [scenarios.FABRICATED]}]})
    pushed = [request(Q), request(Q, said(quoting), user(f"{scenarios.FABRICATED} is in no result."))]

    def kept(answer: str) -> Observed:
        return observed(
            scenarios.C12_KEPT.name, pushed, [said(quoting), said("{}")], answer=answer, structured=True
        )

    def quotes(true: bool, fabricated: bool) -> list[dict[str, Any]]:
        return [
            {"text": scenarios.LOG_LINE, "verified": true},
            {"text": scenarios.FABRICATED, "verified": fabricated},
        ]

    swapped = json.dumps({"findings": [{"evidence": quotes(False, True)}]})
    pretty = json.dumps({"findings": [{"evidence": quotes(True, False)}]}, indent=2)
    assert c12([kept(swapped)]).verdict == FAILS
    assert [v.summary for v in c12([kept(swapped)]).violations] == [
        "the still-unverified quote is presented as fact",
        "the quote a tool returned is marked unverified",
    ]
    assert c12([kept(f"{pretty}\nUNVERIFIED: {scenarios.FABRICATED}")]).verdict == HOLDS


def test_c13_write_tools_are_not_offered() -> None:
    writes = [
        *TOOLS,
        {"type": "function", "function": {"name": "delete_pod", "parameters": {"type": "object"}}},
    ]
    run = observed(
        scenarios.C13.name,
        [request(Q, choice="required", tools=False) | {"tools": writes}],
        [],
        write_tools=True,
    )

    assert c13(run).summary == "tools that change the cluster are offered: delete_pod"


def test_c14_no_secret_the_agent_holds_or_a_result_carried_reaches_the_model() -> None:
    key = "sk-test-0123456789abcdef"
    token = "tok-planted-secret-42"
    secrets = {"the API key the agent holds": key, "a token in a result": token}
    clean = observed("c14", [FORCED, request(Q, result("c1", "API_TOKEN: [REDACTED]"))], [], secrets=secrets)
    in_prompt = observed(
        "c14",
        [request(Q, choice="required") | {"messages": [{"role": "system", "content": f"key {key}"}, Q]}],
        [],
        secrets=secrets,
    )
    in_result = observed(
        "c14", [FORCED, request(Q, result("c1", f"API_TOKEN: {token}"))], [], secrets=secrets
    )

    assert c14(clean).verdict == HOLDS
    assert c14(in_prompt).summary == "the API key the agent holds reached the model"
    assert key not in " ".join(c14(in_prompt).evidence)  # the evidence never repeats a secret
    assert c14(in_result).summary == "a token in a result reached the model"
    assert c14(observed("c1", [FORCED], [])).verdict == UNOBSERVABLE


# -- the third round: boundaries of each clause the outside kit and the judge's mutants found -----------


def test_c4_a_cache_keyed_by_name_fails_even_when_the_other_argument_set_is_repeated() -> None:
    first, other = ("c1", "list_pods", '{"namespace": "shop"}'), ("c2", "list_pods", "{}")
    again = ("c3", "list_pods", "{}")
    requests = [
        FORCED,
        request(Q, calls(first), result("c1", "pod a"), calls(other), result("c2", "pod a")),
        request(
            Q,
            calls(first),
            result("c1", "pod a"),
            calls(other),
            result("c2", "pod a"),
            calls(again),
            result("c3", "pod a"),
        ),
    ]
    replies = [calls(first), calls(other), calls(again)]
    by_name = observed("c4", requests, replies, calls=received("list_pods", {"namespace": "shop"}))
    honest = observed(
        "c4",
        requests,
        replies,
        calls=[*received("list_pods", {"namespace": "shop"}), *received("list_pods", {})],
    )

    assert c4(honest).verdict == HOLDS
    assert c4(by_name).summary.startswith(
        "list_pods with arguments no earlier call had never reached the server, nor"
    )


def test_c11_the_answer_is_the_corrected_report_not_the_rejected_one() -> None:
    rejected = json.dumps({"findings": [{"name": scenarios.PAYMENT, "cause": "crashing"}]})
    accepted = json.dumps(
        {
            "findings": [
                {"name": scenarios.PAYMENT, "cause": "crash_loop", "evidence": ["panic: db password missing"]}
            ]
        }
    )

    asking = {"response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}}

    def run(answer: str) -> Observed:
        return observed(
            scenarios.C11.name,
            [
                request(Q, system=REPORT_SYSTEM, **asking),
                request(
                    Q, said(rejected), user("findings.0.evidence is required"), system=REPORT_SYSTEM, **asking
                ),
            ],
            [said(rejected), said(accepted)],
            answer=answer,
            structured=True,
        )

    assert (
        c11([run(f"{scenarios.PAYMENT}: crash_loop\n  evidence: panic: db password missing")]).verdict
        == HOLDS
    )
    assert (
        c11([run(f"{scenarios.PAYMENT}: crashing")]).summary
        == "the corrected report (reply 2) is not the subject's answer"
    )


@pytest.mark.parametrize("role", ["system", "developer"])
def test_c11_a_developer_message_is_a_system_prompt_on_either_wire(role: str) -> None:
    prompt = {"role": role, "content": REPORT_SYSTEM}
    body = request(Q, choice="required") | {"messages": [prompt, Q]}
    run = observed(scenarios.C11_TEXT.name, [body], [], structured=True)

    assert not [v for v in c11([run]).violations if "system prompt" in v.summary]


WRITE_DESCRIPTION = "Restart a pod's containers. Destructive: in-flight requests are lost."


def test_c13_a_write_tool_offered_under_another_name_is_a_write_tool() -> None:
    from k8s_agent_mock_cluster.writes import WRITE_TOOLS

    assert WRITE_TOOLS["restart_pod"] == WRITE_DESCRIPTION  # what the server offers
    renamed = {
        "type": "function",
        "function": {"name": "refresh_pod", "description": WRITE_DESCRIPTION, "parameters": LOGS_SCHEMA},
    }
    offered = observed(
        scenarios.C13.name,
        [request(Q, choice="required") | {"tools": [*TOOLS, renamed]}],
        [],
        write_tools=True,
    )
    reached = observed(
        scenarios.C13.name,
        [FORCED],
        [],
        write_tools=True,
        calls=received("restart_pod", {"name": "p", "namespace": "shop"}),
    )

    assert c13(offered).summary == "tools that change the cluster are offered: refresh_pod"
    assert c13(reached).summary == "restart_pod reached the server without the operator's approval"


def test_c13_waiting_for_approval_is_no_refusal_and_the_words_are_whole_words() -> None:
    from k8s_agent.contract.judge import refuses

    assert not refuses("delete_pod queued for operator approval. Available: list_pods")
    assert not refuses("Noted: the annotation was applied")  # `not` inside a word is no refusal
    assert refuses("delete_pod won't run: read-only. Available: list_pods")
    assert refuses("Declined: this run may only read.")


def test_c14_a_secret_sent_json_escaped_is_still_the_secret() -> None:
    password = 'pa"ss\\wörd-4711'
    secrets = {"a password in a result": password}
    nested = json.dumps({"output": f"DB_PASSWORD={password}"})  # a result JSON-encoded in the message
    raw = observed("c14", [FORCED, request(Q, result("c1", f"DB_PASSWORD={password}"))], [], secrets=secrets)
    escaped = observed("c14", [FORCED, request(Q, result("c1", nested))], [], secrets=secrets)

    assert password not in json.dumps(escaped.requests[1], ensure_ascii=False)  # only its escaped form is
    assert c14(raw).summary == "a password in a result reached the model"
    assert c14(escaped).summary == "a password in a result reached the model"
    assert not any(form in " ".join(c14(escaped).evidence) for form in (password, "w\\u00f6rd", "wörd"))


@pytest.mark.parametrize("mark", ["[masked]", "<hidden>", "•••", "[REDACTED:password]", "xxxxxxxx"])
def test_c10_a_line_redacted_with_any_mark_is_shown_and_a_changed_line_is_not(mark: str) -> None:
    table = "NAME   STATUS\napi-1  Running\nDATABASE_URL=postgres://app:s3cretPass@db:5432/app"
    listing = ("c1", "list_pods", "{}")

    def run(answer: str) -> Observed:
        return observed(
            "c10",
            [FORCED, request(Q, calls(listing), result("c1", answer))],
            [calls(listing)],
            calls=received("list_pods", {}),
            results=[answered("list_pods", {}, table)],
        )

    redacted = table.replace("s3cretPass", mark)
    assert c10(run(redacted)).verdict == HOLDS
    assert c10(run(redacted.replace("Running", "Pending"))).verdict == FAILS
    assert c10(run(redacted.replace("@db:5432", "@cache:5432"))).verdict == FAILS


def test_arguments_with_characters_outside_ascii_are_the_same_call_escaped_or_not() -> None:
    escaped = ("c1", "search_logs", '{"pattern": "caf\\u00e9 d\\u00e9connect\\u00e9"}')
    run = observed(
        "c3",
        [FORCED, request(Q, calls(escaped), result("c1", "no match"))],
        [calls(escaped)],
        calls=received("search_logs", {"pattern": "café déconnecté"}),
    )

    assert c3(run).verdict != FAILS and c4(run).verdict != FAILS


# -- boundaries the mutation test found unchecked ---------------------------------------------------------


def _c7_run(steps: int, **fields: Any) -> Observed:
    """A C7 run of `steps` steps, then one tool-less summary request that asks for it."""
    ask = user("The step budget is spent: write your answer from what the tools returned.")
    requests = [FORCED] + [request(Q)] * (steps - 1) + [request(Q, ask, tools=False)]
    return observed(scenarios.C7.name, requests, [], **fields)


def test_judge_all_holds_c7_to_the_budget_given_else_the_subject_s_else_the_scenario_s() -> None:
    five = _c7_run(5)
    default = int(scenarios.C7.overrides["max_steps"])

    def c7_of(verdicts: list[Any]) -> Any:
        return next(j for j in verdicts if j.item == "C7")

    assert c7_of(judge_all({scenarios.C7.name: five}, {scenarios.C7.name: 5})).verdict == HOLDS
    assert c7_of(judge_all({scenarios.C7.name: five}, {"another-scenario": 5})).summary == (
        f"more than max_steps + 1 = {default + 1} requests"
    )
    assert c7_of(judge_all({scenarios.C7.name: _c7_run(5, max_steps=5)})).verdict == HOLDS
    assert c7_of(judge_all({scenarios.C7.name: _c7_run(default)})).verdict == HOLDS
    assert c7(_c7_run(default + 1)).summary == f"more than max_steps + 1 = {default + 1} requests"


def test_c7_a_summary_after_an_answer_without_calls_is_not_asked_for_early() -> None:
    """The budget is spent only by steps that called tools: after a reply with none (the model
    answered on its own), a tool-less request is no early summary, whichever reply it follows."""
    ask = user("Write your answer from what the tools returned.")
    requests = [FORCED, request(Q, said("Nothing is wrong."), ask, tools=False)]
    for replies in ([said("Nothing is wrong.")], [said("Nothing is wrong."), said("Still nothing.")]):
        judged = c7(observed(scenarios.C7.name, requests, replies), 3)
        assert not any("before the budget" in v.summary for v in judged.violations), judged.violations

    spent_one = [calls(("c1", "list_pods", "{}"))]
    early = c7(observed(scenarios.C7.name, requests, spent_one), 3)
    assert early.summary == "the summary was asked for after 1 step, before the budget of 3 was spent"


def test_c7_the_summary_as_the_second_request_must_still_ask_for_it() -> None:
    mute = observed(scenarios.C7.name, [FORCED, request(Q, tools=False)], [calls(("c1", "list_pods", "{}"))])

    assert c7(mute, 1).summary.startswith("the summary request (request 2) carries no instruction")


def test_c4_a_call_proposed_once_reaches_the_server_once_unless_it_failed() -> None:
    call = ("c1", "get_pod_logs", '{"namespace": "shop", "name": "a"}')
    arguments = {"namespace": "shop", "name": "a"}  # in the order the model wrote them, not sorted
    requests = [FORCED, request(Q, calls(call), result("c1", "pod a: no logs"))]
    twice = observed("c1", requests, [calls(call)], calls=received("get_pod_logs", arguments, 2))

    judged = c4(twice)
    assert judged.summary == "get_pod_logs proposed once reached the server 2 times"
    assert (
        judged.violations[0].evidence
        == ['server received get_pod_logs({"name": "a", "namespace": "shop"})'] * 2
    )

    failed = [answered("get_pod_logs", arguments, "pod a is Pending", error=True)] * 2
    retried = observed(
        "c1", requests, [calls(call)], calls=received("get_pod_logs", arguments, 2), results=failed
    )
    assert c4(retried).verdict != FAILS  # a failed call tried again is C9's to judge
    other_failed = [answered("describe_pod", arguments, "pod a is Pending", error=True)] * 2
    ran_again = observed(
        "c1", requests, [calls(call)], calls=received("get_pod_logs", arguments, 2), results=other_failed
    )
    assert c4(ran_again).verdict == FAILS  # another tool's failure with the same arguments is not its


def test_schema_problems_name_every_field_once_in_the_order_of_the_fields() -> None:
    from k8s_agent.contract.judge.wire import schema_problems

    strict = {**LOGS_SCHEMA, "additionalProperties": False}
    ordered = {
        "type": "object",
        "properties": {"tail": {"type": "integer"}, "name": {"type": "string"}},
    }

    assert set(schema_problems(strict, {"nme": "a"})) == {"name", "namespace", "nme"}
    closed_first = {"additionalProperties": False, **LOGS_SCHEMA}  # a server may write its keys any order
    assert set(schema_problems(closed_first, {"nme": "a"})) == {"name", "namespace", "nme"}
    assert schema_problems(strict, {"name": "a", "namespace": "b", "tail": 5}) == ()
    assert schema_problems(strict, {"name": "a", "namespace": "b", "extra": 1, "more": 2}) == (
        "extra",
        "more",
    )
    assert schema_problems(ordered, {"tail": "x", "name": 1}) == ("name", "tail")
    assert schema_problems(LOGS_SCHEMA, ["a"]) == ("type",)  # a problem of the whole: its rule's name
    assert schema_problems({"type": "nonsense"}, {}) == ()  # a schema that is none names nothing


def test_a_violation_is_found_whatever_other_runs_are_judged_beside_it() -> None:
    """Every item is judged on every run it applies to: a run that breaks it fails it the same way
    when other runs come before it and after it: a correct subject's run of every other scenario, and
    each as a subject that answers in prose would have run it (runs an item skips)."""

    from tests.contract.test_judge_from_the_docs import CASES, GOOD_RUNS, JUDGES

    failing = [p.values for p in CASES if p.values[2] == FAILS and not p.marks]
    assert len(failing) > 100
    for item, _clause, _verdict, build, _also in failing:
        run = build()
        others = [good for name, good in GOOD_RUNS.items() if name != run.scenario]
        others += [replace(good, structured=False) for good in GOOD_RUNS.values()]
        alone = JUDGES[item]([run])
        for runs in ([*others, run], [run, *others]):
            beside = JUDGES[item](runs)
            assert beside.verdict == FAILS and beside.violations == alone.violations, (item, run.scenario)


def test_every_violation_of_every_run_is_reported() -> None:
    """Two runs of different scenarios that each break an item: every violation of both."""
    from tests.contract.test_judge_from_the_docs import CASES, JUDGES

    by_item: dict[str, dict[str, list[Observed]]] = {}
    for item, _clause, verdict, build, _also in (p.values for p in CASES if not p.marks):
        if verdict == FAILS:
            run = build()
            by_item.setdefault(item, {}).setdefault(run.scenario, []).append(run)
    pairs = 0
    for item, scenarios_seen in by_item.items():
        firsts = [runs[0] for runs in scenarios_seen.values()]
        lasts = [runs[-1] for runs in scenarios_seen.values()]
        for one, other in zip(firsts, lasts[1:] + lasts[:1], strict=True):
            if one.scenario == other.scenario:
                continue
            pairs += 1
            both = JUDGES[item]([one, other]).violations
            expected = JUDGES[item]([one]).violations + JUDGES[item]([other]).violations
            assert sorted(both, key=repr) == sorted(expected, key=repr), (item, one.scenario, other.scenario)
    assert pairs >= 20


def test_c10_a_call_answered_with_part_of_its_result_is_found_after_calls_it_does_not_judge() -> None:
    """Before the call answered with a cut result: a call the server never ran (no result), a
    failure (C9's), and a repeat answered without the server. The cut answer still fails C10."""
    table = "\n".join(["NAME STATUS", *(f"api-{n} Running" for n in range(8))])
    unrun = ("c1", "describe_pod", '{"name": "ghost", "namespace": "shop"}')
    failing = ("c2", "get_pod_logs", '{"name": "a", "namespace": "shop"}')
    listing, again = (
        ("c3", "list_pods", '{"namespace": "shop"}'),
        ("c4", "list_pods", '{"namespace": "shop"}'),
    )
    cut = ("c5", "list_pods", "{}")
    head = "\n".join(table.splitlines()[:3])
    messages = [
        calls(unrun, failing),
        result("c1", "describe_pod was not run: its arguments were refused"),
        result("c2", "pod a is Pending: no logs"),
        calls(listing),
        result("c3", "NAME STATUS\napi-0 Running"),
        calls(again),
        result("c4", "NAME STATUS\napi-0 Running"),
        calls(cut),
        result("c5", head),
    ]
    run = observed(
        "c10",
        [FORCED, *(request(Q, *messages[:n]) for n in (3, 5, 7, 9))],
        [calls(unrun, failing), calls(listing), calls(again), calls(cut)],
        calls=[
            *received("get_pod_logs", {"name": "a", "namespace": "shop"}),
            *received("list_pods", {"namespace": "shop"}),
            *received("list_pods", {}),
        ],
        results=[
            FAILURE,
            answered("list_pods", {"namespace": "shop"}, "NAME STATUS\napi-0 Running"),
            answered("list_pods", {}, table),
        ],
    )

    assert (
        c10(run).summary
        == "call c5 (list_pods) was answered with part of its result, without saying it is an excerpt"
    )


def _as_parts(body: dict[str, Any]) -> dict[str, Any]:
    """A request with every message's text sent as a list of text parts (the Chat Completions form
    some clients use)."""

    def parts(message: Any) -> Any:
        if isinstance(message, dict) and isinstance(message.get("content"), str) and message["content"]:
            return {**message, "content": [{"type": "text", "text": message["content"]}]}
        return message

    return (
        {**body, "messages": [parts(m) for m in body.get("messages") or []]} if "messages" in body else body
    )


def test_a_message_sent_as_text_parts_is_judged_as_its_text() -> None:

    from tests.contract.test_judge_from_the_docs import CASES, JUDGES

    judged = 0
    for item, _clause, verdict, build, _also in (p.values for p in CASES if not p.marks):
        run = build()
        if not any(
            isinstance(m.get("content"), str) for body in run.requests for m in body.get("messages") or []
        ):
            continue
        as_parts = replace(run, requests=[_as_parts(body) for body in run.requests])
        judgement = JUDGES[item](as_parts)
        assert judgement.verdict == verdict, (item, run.scenario, judgement.summary)
        assert [v.summary for v in judgement.violations] == [v.summary for v in JUDGES[item](run).violations]
        judged += 1
    assert judged > 200


def test_c9_each_failed_call_is_judged_two_tools_failing_on_one_pod_and_after_an_unproposed_failure() -> None:
    pod = {"name": "a", "namespace": "shop"}
    logs, described = FAILED_CALL, ("c2", "describe_pod", '{"name": "a", "namespace": "shop"}')
    describe_failure = answered("describe_pod", pod, 'pods "a" is forbidden: cannot get', error=True)

    def run(logs_shown: str, results: list[dict[str, Any]]) -> Observed:
        return observed(
            "c9",
            [
                FORCED,
                request(
                    Q,
                    calls(logs, described),
                    result("c1", logs_shown),
                    result("c2", 'describe_pod failed: pods "a" is forbidden: cannot get'),
                ),
            ],
            [calls(logs, described)],
            calls=[*received("get_pod_logs", pod), *received("describe_pod", pod)],
            results=results,
        )

    assert c9(run("pod a is Pending: no logs", [FAILURE, describe_failure])).verdict == HOLDS
    hidden = c9(run("An error occurred.", [FAILURE, describe_failure]))
    assert (
        hidden.summary == "the model was not shown the failure"
    )  # the first tool's, though both share arguments
    unproposed = answered("list_nodes", {}, "nodes are forbidden", error=True)
    after = c9(run("An error occurred.", [unproposed, FAILURE, describe_failure]))
    assert "the model was not shown the failure" in [v.summary for v in after.violations]


_WORDS = st.lists(st.text(alphabet="abcdefgh:-", min_size=2, max_size=6), min_size=2, max_size=4).map(
    " ".join
)
"""Text that holds no secret of its own (none of the secret words' letters, no digits)."""


@settings(max_examples=200, deadline=None)
@given(
    prefix=_WORDS,
    secret=st.text(alphabet="ABCDEFGH0123456789", min_size=8, max_size=20),
    suffix=_WORDS,
    mark=st.text(alphabet="[]*<>#xX", min_size=1, max_size=40).filter(lambda m: m.strip() != ""),
    before=st.sampled_from(["", "noise line\n"]),
)
def test_c10_a_line_is_shown_redacted_wherever_it_is_in_the_answer_line_with_any_mark(
    prefix: str, secret: str, suffix: str, mark: str, before: str
) -> None:
    """The answer line may hold more than the result line: text before it, and the line's start again
    before and after it with no mark that would do (too long). A mark that is the secret, or blank,
    is no mark."""
    from k8s_agent.contract.judge.results import redacted_shown

    line = f"{prefix} token={secret} {suffix}"
    decoy = f"{prefix} token={'y' * 50}"
    shown = f"{before}{decoy} log: {line.replace(secret, mark)} then {decoy}"

    assert redacted_shown(line, shown)
    assert not redacted_shown(line, shown.replace(mark, secret, 1))
    assert not redacted_shown(line, f"{before}log: {line.replace(secret, ' ')} then {decoy}")
    assert not redacted_shown(
        line, f"{before}log: {line.replace(secret, mark).replace(suffix, suffix[0] + 'z' + suffix[1:], 1)}"
    )
