"""The black-box judge on its own: every item can hold, fail (with its evidence) and be unobservable.

The observations are built by hand, in the shapes other agents produce (their own error wording,
results wrapped in the parameters used, answers in completion order), so that what is judged is
behaviour, never our message texts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

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
    judge_all,
)

TOOLS = [
    {"type": "function", "function": {"name": name}} for name in ("list_pods", "get_pod_logs", "describe_pod")
]


def request(
    *messages: dict[str, Any], tools: bool = True, choice: Any = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messages": [{"role": "system", "content": "You are an SRE."}, *messages],
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


def observed(
    name: str, requests: list[dict[str, Any]], replies: list[dict[str, Any]], **fields: Any
) -> Observed:
    return Observed(scenario=name, requests=requests, replies=replies, **{"calls": [], **fields})


Q = user("Which pods are unhealthy?")
LOGS_CALL = ("c1", "get_pod_logs", '{"name": "p", "tail": "fifty"}')


# -- C1 ------------------------------------------------------------------------------------------------


def test_c1_holds_fails_and_is_unobservable() -> None:
    forced = observed("c1", [request(Q, choice="required"), request(Q)], [])
    named = observed(
        "c1",
        [
            request(Q, choice={"type": "function", "function": {"name": "list_pods"}}),
            request(Q, choice="auto"),
        ],
        [],
    )
    auto = observed("c1", [request(Q, choice="auto")], [])
    again = observed("c1", [request(Q, choice="required"), request(Q, choice="required")], [])
    nothing = observed("c1", [], [], error="exit 1: connection refused")

    assert c1(forced).verdict == HOLDS and c1(named).verdict == HOLDS
    assert c1(auto).verdict == FAILS and c1(auto).evidence == ['request 1: tools 3, tool_choice "auto"']
    assert c1(again).verdict == FAILS and c1(again).evidence[-1] == "request 2: tool_choice required again"
    assert c1(nothing).verdict == UNOBSERVABLE and "connection refused" in c1(nothing).summary


# -- C2, C5, C12: an answer that should get a further turn ----------------------------------------------


def test_c2_a_tool_less_answer_must_get_a_further_turn() -> None:
    first = [request(Q, choice="required")]
    pushed = observed(
        "c2", [*first, request(Q, said("All good."), user("Call a tool first."))], [said("All good.")]
    )
    accepted = observed("c2", first, [said("All good.")])

    assert c2(pushed).verdict == HOLDS and c2(pushed).evidence == ["request 2: Call a tool first."]
    assert c2(accepted).verdict == FAILS
    assert c2(accepted).evidence == ["reply 1 (no tool called): All good.", "1 request in all"]


def test_c5_the_further_turn_must_name_the_invented_pod() -> None:
    answer = f"{scenarios.INVENTED} is down."
    base = [request(Q), request(Q, said(answer))]
    replies = [calls(("c1", "list_pods", "{}")), said(answer)]
    named = observed(
        "c5", [*base, request(Q, said(answer), user(f"Nothing returned {scenarios.INVENTED}."))], replies
    )
    vague = observed("c5", [*base, request(Q, said(answer), user("Check your answer."))], replies)
    accepted = observed("c5", base, replies)
    never = observed("c5", base, [calls(("c1", "list_pods", "{}"))])

    assert c5(named).verdict == HOLDS
    assert c5(vague).verdict == FAILS and c5(vague).evidence == ["request 3: Check your answer."]
    assert c5(accepted).verdict == FAILS and c5(accepted).summary.endswith("was accepted as final")
    assert c5(never).verdict == UNOBSERVABLE


def test_c12_the_fabricated_quote_must_be_named_and_what_stays_unverified_marked() -> None:
    answer = f'{{"quote": "{scenarios.FABRICATED}"}}'
    replies = [said(answer), said(answer)]
    corrected = observed(
        scenarios.C12.name,
        [request(Q), request(Q, said(answer), user(f"The quote {scenarios.FABRICATED!r} is in no result."))],
        replies,
    )
    accepted = observed(scenarios.C12.name, [request(Q)], replies)
    marked = observed(
        scenarios.C12_KEPT.name, [request(Q)], replies, answer=f"✗ unverified: {scenarios.FABRICATED}"
    )
    as_fact = observed(
        scenarios.C12_KEPT.name, [request(Q)], replies, answer=f"Evidence: {scenarios.FABRICATED}"
    )
    dropped = observed(scenarios.C12_KEPT.name, [request(Q)], replies, answer="No evidence.")

    assert c12([corrected, marked]).verdict == HOLDS
    assert c12([accepted, marked]).verdict == FAILS
    assert c12([corrected, as_fact]).summary == "the still-unverified quote is presented as fact"
    assert c12([corrected, dropped]).summary == "the still-unverified quote was dropped from the answer"
    assert c12([marked]).verdict == UNOBSERVABLE


# -- C3, C6, C8: a call kept from the server, the model told what is wrong --------------------------------


def test_c3_the_bad_call_must_not_reach_the_server_and_the_model_must_hear_which_field() -> None:
    replies = [calls(LOGS_CALL)]
    told = [
        request(Q),
        request(
            Q,
            calls(LOGS_CALL),
            result("c1", "get_pod_logs(name=p): invalid value for 'tail': must be an integer"),
        ),
    ]
    wrapped = observed("c3", told, replies)  # another agent's wording, the parameters wrapped around it
    silent = observed(
        "c3", [request(Q), request(Q, calls(LOGS_CALL), result("c1", "An error occurred."))], replies
    )
    reached = observed(
        "c3", told, replies, calls=[{"tool": "get_pod_logs", "arguments": {"name": "p", "tail": "fifty"}}]
    )
    unanswered = observed("c3", [request(Q)], replies, error="ValueError: bad arguments")

    assert c3(wrapped).verdict == HOLDS
    assert c3(silent).verdict == FAILS and c3(silent).evidence == ["request 2: An error occurred."]
    assert c3(reached).verdict == FAILS
    assert c3(reached).evidence == ['server received get_pod_logs({"name": "p", "tail": "fifty"})']
    assert c3(unanswered).evidence == ["1 request in all", "the run ended: ValueError: bad arguments"]
    assert c3(observed("c3", [request(Q)], [said("no calls")])).verdict == UNOBSERVABLE


def test_c8_arguments_that_are_not_json_must_not_run_as_anything() -> None:
    broken = ("c1", "describe_pod", "{not-json")
    replies = [calls(broken)]
    told = observed(
        "c8",
        [request(Q), request(Q, calls(broken), result("c1", "Could not parse the JSON arguments"))],
        replies,
    )
    ran_empty = observed(
        "c8",
        [request(Q), request(Q, calls(broken), result("c1", "describe_pod: name is required"))],
        replies,
        calls=[{"tool": "describe_pod", "arguments": {}}],
    )

    assert c8(told).verdict == HOLDS
    assert c8(ran_empty).verdict == FAILS and c8(ran_empty).evidence == ["server received describe_pod({})"]


def test_c6_an_unknown_tool_is_kept_back_and_the_model_learns_what_exists() -> None:
    unknown = ("c1", "delete_pod", '{"name": "p"}')
    replies = [calls(unknown)]
    listed = observed(
        "c6", [request(Q), request(Q, calls(unknown), result("c1", "No such tool; try list_pods."))], replies
    )
    mute = observed("c6", [request(Q), request(Q, calls(unknown), result("c1", "error"))], replies)
    crashed = observed("c6", [request(Q)], replies, error="ModelBehaviorError: Tool delete_pod not found")

    assert c6(listed).verdict == HOLDS
    assert c6(mute).verdict == FAILS
    assert c6(crashed).verdict == FAILS and "ModelBehaviorError" in c6(crashed).evidence[-1]


# -- C4, C7: budgets ---------------------------------------------------------------------------------------


def repeat_run(server_times: int, summary_tools: bool) -> Observed:
    call = ("list_pods", '{"namespace": "production"}')
    replies = [calls((f"c{n}", *call)) for n in range(1, 4)]
    requests = [request(Q) for _ in range(3)] + [request(Q, tools=summary_tools)]
    logged = [{"tool": "list_pods", "arguments": {"namespace": "production"}}] * server_times
    return observed(scenarios.C4.name, requests, replies, calls=logged)


def test_c4_repeats_stay_off_the_server_and_a_tool_less_summary_follows() -> None:
    assert c4([repeat_run(1, summary_tools=False)]).verdict == HOLDS
    ran_thrice = c4([repeat_run(3, summary_tools=False)])
    assert ran_thrice.verdict == FAILS and len(ran_thrice.evidence) == 3
    no_summary = c4([repeat_run(1, summary_tools=True)])
    assert no_summary.verdict == FAILS and no_summary.summary.startswith("no tool-less summary request")


def test_c7_the_budget_ends_in_a_tool_less_summary_within_max_steps_plus_one() -> None:
    within = observed("c7", [request(Q)] * 3 + [request(Q, tools=False)], [])
    raised = observed("c7", [request(Q)] * 3, [], error="exit 1: Reached max steps")
    over = observed("c7", [request(Q)] * 5 + [request(Q, tools=False)], [])
    offered = observed("c7", [request(Q)] * 4, [])

    assert c7(within, 3).verdict == HOLDS
    assert c7(raised, 3).verdict == FAILS and c7(raised, 3).evidence[-1] == "exit 1: Reached max steps"
    assert c7(over, 3).summary == "more than max_steps + 1 = 4 requests"
    assert c7(offered, 3).summary == "the last request still offers tools: no tool-less summary"


# -- C9, C10 -------------------------------------------------------------------------------------------------


def test_c9_a_failure_is_a_result_and_the_run_goes_on() -> None:
    call = ("c1", "get_pod_logs", '{"name": "a"}')
    went_on = observed(
        "c9", [request(Q), request(Q, calls(call), result("c1", "pod a is Pending"))], [calls(call)]
    )
    stopped = observed("c9", [request(Q)], [calls(call)], error="exit 1: tool failed")

    assert c9(went_on).verdict == HOLDS
    assert c9(stopped).verdict == FAILS


def test_c10_every_call_id_answered_once_in_call_order() -> None:
    round_ = calls(("a", "list_pods", "{}"), ("b", "get_pod_logs", "{}"))
    in_order = observed("c1", [request(Q), request(Q, round_, result("a", "x"), result("b", "y"))], [round_])
    completion_order = observed(
        "c1", [request(Q), request(Q, round_, result("b", "y"), result("a", "x"))], [round_]
    )
    twice = observed(
        "c1", [request(Q), request(Q, round_, result("a", "x"), result("a", "x"), result("b", "y"))], [round_]
    )
    mixed_unanswered = observed(scenarios.C10.name, [request(Q)], [round_], error="ModelBehaviorError")

    assert c10([in_order]).verdict == HOLDS
    assert c10([completion_order]).summary.startswith("answers out of call order")
    assert c10([twice]).verdict == FAILS
    assert c10([mixed_unanswered]).summary == "the mixed round's calls ['a', 'b'] were never answered"
    assert c10([observed("c2", [request(Q)], [])]).verdict == UNOBSERVABLE


# -- C11 -------------------------------------------------------------------------------------------------------


def test_c11_is_judged_only_where_the_subject_asks_for_a_structured_report() -> None:
    broken = said(json.dumps({"findings": [{"cause": "crashing"}]}))
    asking = {"response_format": {"type": "json_schema"}}
    corrected = observed(
        scenarios.C11.name,
        [request(Q, **asking), request(Q, broken, user("findings.0.cause: not a known cause"), **asking)],
        [broken],
    )
    accepted = observed(scenarios.C11.name, [request(Q, **asking)], [broken])
    prose_agent = observed(scenarios.C11.name, [request(Q)], [broken])

    assert c11([corrected]).verdict == HOLDS
    assert c11([corrected]).evidence[0] == "response_format on requests [1, 2]"
    assert c11([accepted]).verdict == FAILS
    assert c11([prose_agent]).verdict == UNOBSERVABLE


def test_every_item_is_judged_and_a_scenario_not_run_is_not_observable() -> None:
    verdicts = judge_all({}, {})

    assert [j.item for j in verdicts] == [f"C{n}" for n in range(1, 13)]
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
