"""Each contract invariant the comparison checks can be broken, and says how."""

from __future__ import annotations

from typing import Any

from k8s_agent.invariants import INVARIANTS, Check, check_run, requests_from_trace
from k8s_agent_harness.events import Event, parse_event

REQUIRED = {
    "run_start": {"question": "q", "started_at": "t"},
    "tool_call": {"request_id": "c", "fingerprint": "f"},
}


def event(kind: str, step: int = 0, **fields: Any) -> Event:
    return parse_event({"kind": kind, "step": step, **REQUIRED.get(kind, {}), **fields})


def request(step: int, *, tools: bool = True, choice: str = "auto", added: list[Any] | None = None) -> Event:
    return event(
        "model_request",
        step,
        attempt=1,
        tools_sent=tools,
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
        "model_request", step, attempt=1, tools_sent=True, tool_choice="auto", response_format=response_format
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
