"""Each contract invariant the comparison checks can be broken, and says how."""

from __future__ import annotations

from typing import Any

import pytest

from k8s_agent.invariants import INVARIANTS, Check, calls_answered, check_run, requests_from_trace
from k8s_agent_harness.traces.events import Event, parse_event

REQUIRED = {
    "run_start": {"question": "q", "started_at": "t"},
    "tool_call": {"request_id": "c", "fingerprint": "f"},
}


def event(kind: str, step: int = 0, **fields: Any) -> Event:
    return parse_event({"kind": kind, "step": step, **REQUIRED.get(kind, {}), **fields})


def request(
    step: int, *, tools: bool = True, choice: str = "auto", added: list[Any] | None = None, **fields: Any
) -> Event:
    return event(
        "model_request",
        step,
        attempt=1,
        **fields,
        tools_sent=tools,
        tool_count=7 if tools else 0,
        tool_choice=choice if tools else "absent",
        messages_added=added or [],
    )


def assistant(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": i, "function": {"name": "list_pods"}} for i in ids],
    }


def answer(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def executed(tool: str, arguments: dict[str, Any], outcome: str = "executed") -> Event:
    return event("tool_call", 1, tool=tool, arguments=arguments, outcome=outcome, attempts=1)


START = event("run_start", budgets={"max_steps": 2})
GOOD = [
    START,
    request(1, choice="required", added=[{"role": "user", "content": "q"}]),
    executed("list_pods", {"namespace": "production"}),
    event("tool_call", 1, tool="delete_pod", arguments={}, outcome="unknown", attempts=0),
    request(2, added=[assistant("call_1", "call_2"), answer("call_1"), answer("call_2")]),
]


def verdicts(checks: list[Check]) -> dict[str, bool | None]:
    return {check.name: check.held for check in checks}


def test_a_run_that_keeps_the_contract_holds_every_invariant() -> None:
    checks = check_run(
        GOOD, calls=[{"tool": "list_pods", "arguments": {"namespace": "production"}}], script_problems=""
    )

    assert [check.name for check in checks] == list(INVARIANTS)
    assert all(check.held is True for check in checks), checks


def test_without_a_call_log_or_a_script_those_checks_are_not_made() -> None:
    held = verdicts(check_run(GOOD))

    assert held["server_saw_only_accepted_calls"] is None
    assert held["script_played_exactly"] is None


def test_a_first_request_that_does_not_force_a_tool_breaks_c1() -> None:
    trace = [START, request(1, choice="auto")]

    assert verdicts(check_run(trace))["first_request_forced"] is False


def test_a_call_id_left_unanswered_or_answered_twice_breaks_c10() -> None:
    unanswered = [
        START,
        request(1, choice="required"),
        request(2, added=[assistant("call_1", "call_2"), answer("call_1")]),
    ]
    twice = [
        START,
        request(1, choice="required"),
        request(2, added=[assistant("call_1"), answer("call_1"), answer("call_1")]),
    ]

    for trace in (unanswered, twice):
        check = check_run(trace)[1]
        assert check.name == "calls_answered" and check.held is False
        assert "request 2" in check.detail


def test_a_rejected_call_that_reaches_the_server_is_caught_by_the_call_log() -> None:
    calls = [
        {"tool": "list_pods", "arguments": {"namespace": "production"}},
        {"tool": "delete_pod", "arguments": {}},
    ]

    check = check_run(GOOD, calls=calls)[2]

    assert check.held is False and "delete_pod" in check.detail


def test_the_server_receiving_a_call_more_often_than_it_was_made_is_caught() -> None:
    call = {"tool": "list_pods", "arguments": {"namespace": "production"}}

    assert check_run(GOOD, calls=[call, call])[2].held is False


def test_more_requests_than_steps_pushbacks_and_one_summary_break_c7() -> None:
    over = [*GOOD, request(3), request(4)]
    with_pushback = [*GOOD, event("guardrail", 2, guardrail="zero_tool"), request(3), request(4)]

    assert verdicts(check_run(over))["request_budget"] is False
    assert verdicts(check_run(with_pushback))["request_budget"] is True


def test_a_forced_summary_request_that_offers_tools_breaks_c4_and_c7() -> None:
    forced = event("guardrail", 2, guardrail="forced_summary", reason="step_budget")

    assert verdicts(check_run([*GOOD, forced, request(3, tools=False)]))["summary_without_tools"] is True
    assert verdicts(check_run([*GOOD, forced, request(3, tools=True)]))["summary_without_tools"] is False


def test_a_script_not_played_exactly_is_reported() -> None:
    check = check_run(GOOD, script_problems="1 scripted steps were never requested")[-1]

    assert check.held is False and "never requested" in check.detail


def test_request_bodies_are_rebuilt_from_the_trace_deltas() -> None:
    rewritten = event(
        "model_request",
        3,
        attempt=1,
        tools_sent=False,
        messages_added=[{"role": "user", "content": "new"}],
        history_rewritten=True,
    )

    bodies = requests_from_trace([*GOOD, event("model_request", 2, attempt=2), rewritten])

    assert [len(body["messages"]) for body in bodies] == [1, 4, 1]
    assert ["tools" in body for body in bodies] == [True, True, False]


def structured_run(*steps: Event, report_format: str = "json_schema") -> list[Event]:
    start = event("run_start", budgets={"max_steps": 4}, report_format=report_format)
    return [start, *steps, event("run_end", status="ok", answer="a")]


def schema_request(step: int, response_format: str | None = "json_schema:final_output") -> Event:
    return event(
        "model_request",
        step,
        attempt=1,
        tools_sent=True,
        tool_count=7,
        tool_choice="auto",
        response_format=response_format,
    )


def report(accepted: bool, problems: list[str] | None = None) -> Event:
    return event(
        "report", format="json_schema", parsed=True, report={}, problems=problems or [], accepted=accepted
    )


def test_a_json_schema_request_without_the_schema_breaks_c11() -> None:
    run = structured_run(schema_request(1), schema_request(2, None), report(True))

    assert verdicts(check_run(run))["report_checked"] is False
    (check,) = [c for c in check_run(run) if c.name == "report_checked"]
    assert check.detail == "step 2: response_format None"


def test_an_answer_not_read_as_a_report_or_two_corrections_break_c11_c12() -> None:
    unread = structured_run(schema_request(1))
    twice = structured_run(schema_request(1), report(False), schema_request(2), report(False), report(True))
    kept = structured_run(schema_request(1), report(False, ["q"]), schema_request(2), report(True, ["q"]))

    assert verdicts(check_run(unread))["report_checked"] is False
    assert verdicts(check_run(twice))["report_checked"] is False
    (check,) = [c for c in check_run(kept) if c.name == "report_checked"]
    assert (check.held, check.detail) == (True, "kept, unverified")  # kept and marked is the contract


# -- the Responses API wire: input items, paired by call_id ---------------------------------------

RESPONSES_START = event("run_start", budgets={"max_steps": 2}, api="responses")
QUESTION = {"role": "user", "content": "q"}


def function_call(call_id: str | None, name: str = "list_pods") -> dict[str, Any]:
    item = {
        "type": "function_call",
        "name": name,
        "arguments": "{}",
        "id": f"fc_{call_id}",
        "status": "completed",
    }
    return {**item, "call_id": call_id} if call_id is not None else item


def output(call_id: str | None) -> dict[str, Any]:
    item = {"type": "function_call_output", "output": "ok"}
    return {**item, "call_id": call_id} if call_id is not None else item


def on_responses(*second: dict[str, Any]) -> list[Event]:
    """A run on the Responses API whose second request adds `second` after the question."""
    return [
        RESPONSES_START,
        request(1, choice="required", added=[QUESTION], api="responses", instructions="You are an SRE."),
        request(2, added=list(second), api="responses"),
    ]


REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}
SAID = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Looking."}],
    "id": "msg_1",
    "status": "completed",
}


def test_a_responses_run_that_pairs_every_call_id_holds() -> None:
    good = on_responses(
        REASONING, SAID, function_call("call_1"), function_call("call_2"), output("call_1"), output("call_2")
    )

    bodies = requests_from_trace(good)

    assert verdicts(check_run(good))["calls_answered"] is True
    assert bodies[1]["instructions"] == "You are an SRE." and len(bodies[1]["input"]) == 7
    assert verdicts(check_run(good))["first_request_forced"] is True


@pytest.mark.parametrize(
    ("items", "detail"),
    [
        (
            [function_call("call_1"), function_call("call_2"), output("call_1")],
            "calls ['call_1', 'call_2'] answered by ['call_1']",
        ),
        (
            [function_call("call_1"), output("call_1"), output("call_1")],
            "calls ['call_1'] answered by ['call_1', 'call_1']",
        ),
        ([function_call("call_1"), output("call_2")], "calls ['call_1'] answered by ['call_2']"),
        ([function_call("call_1")], "calls ['call_1'] answered by []"),
        ([output("call_9")], "the answer to 'call_9' follows no call of that id"),
        ([output("call_1"), function_call("call_1")], "the answer to 'call_1' follows no call of that id"),
        ([function_call("call_1"), QUESTION, output("call_1")], "calls ['call_1'] answered by []"),
        ([function_call(None), output(None)], "a function_call item without a call_id"),
        ([function_call("call_1"), output(None)], "a function_call_output item without a call_id"),
        (
            [assistant("call_1"), answer("call_1")],
            "a Chat Completions tool message among the input items (no call_id pairs it)",
        ),
    ],
    ids=[
        "unanswered",
        "twice",
        "another-id",
        "alone",
        "orphan",
        "before-its-call",
        "user-between",
        "no-ids",
        "no-answer-id",
        "chat-shaped",
    ],
)
def test_a_responses_run_whose_items_leave_a_call_unpaired_breaks_c10(
    items: list[dict[str, Any]], detail: str
) -> None:
    (check,) = [c for c in check_run(on_responses(*items)) if c.name == "calls_answered"]

    assert (check.held, check.detail) == (False, f"request 2: {detail}")


def test_a_call_answered_in_the_next_request_is_still_unanswered_in_the_one_that_sent_it() -> None:
    late = [*on_responses(function_call("call_1")), request(3, added=[output("call_1")], api="responses")]

    (check,) = [c for c in check_run(late) if c.name == "calls_answered"]

    assert (check.held, check.detail) == (False, "request 2: calls ['call_1'] answered by []")


def test_a_turn_whose_text_follows_its_calls_is_one_turn_and_its_calls_are_answered() -> None:
    text_last = {"model": "m", "input": [QUESTION, function_call("call_1"), SAID, output("call_1")]}
    between = {"model": "m", "input": [QUESTION, function_call("call_1"), QUESTION, output("call_1")]}

    assert calls_answered([text_last]).held is True
    assert calls_answered([between]).held is False  # a user message between a call and its answer


def test_request_bodies_as_sent_on_the_responses_api_are_checked_as_well() -> None:
    sent = {"model": "m", "instructions": "S", "input": [QUESTION, function_call("call_1"), output("call_1")]}
    unanswered = {**sent, "input": [QUESTION, function_call("call_1")]}

    assert calls_answered([sent]).held is True
    assert calls_answered([sent, unanswered]) == Check(
        "calls_answered", False, "request 2: calls ['call_1'] answered by []"
    )


def test_a_chat_tool_message_that_answers_no_call_or_has_no_id_breaks_c10() -> None:
    orphan = [
        START,
        request(1, choice="required", added=[{"role": "user", "content": "q"}, answer("call_1")]),
    ]
    no_id = [
        START,
        request(1, choice="required", added=[assistant("call_1"), {"role": "tool", "content": "ok"}]),
    ]

    assert verdicts(check_run(orphan))["calls_answered"] is False
    assert verdicts(check_run(no_id))["calls_answered"] is False


def test_an_empty_tools_list_offers_no_tools() -> None:
    """The SDK's Responses model sends `tools: []` once tools are withdrawn: the summary offers none."""
    forced = event("guardrail", 2, guardrail="forced_summary", reason="step_budget")
    empty = event("model_request", 3, attempt=1, api="responses", tools_sent=True, tool_count=0)

    assert verdicts(check_run([*GOOD, forced, empty]))["summary_without_tools"] is True
