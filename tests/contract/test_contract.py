"""The loop contract C1-C12 (docs/contract.md), observed on the wire, for every implementation.

Each test drives a scripted, misbehaving model over real HTTP against the real mock cluster over
stdio, and asserts on the recorded requests and on the MCP server's call log. Every run also
checks C10 (every tool call id answered exactly once) in the `run_agent` fixture.
"""

from __future__ import annotations

import json
from typing import Any

from k8s_agent import scenarios
from k8s_agent.scenarios import ANALYTICS, FABRICATED, INVENTED, LOG_LINE, PAYMENT, REPORT
from k8s_agent_harness.evidence.report import instructions, response_format
from k8s_agent_harness.model import prompts
from k8s_agent_scripted_llm import call, text
from tests.clusters import MOCK_TOOLS
from tests.conftest import RunAgent

TOOLS = "describe_node, describe_pod, get_events, get_pod_logs, list_nodes, list_pods, resources_get, resources_list, search_logs"

# The one accepted wire difference (C1). After the first step the hand-written loop sends
# tool_choice "auto"; the SDK (reset_tool_choice) drops the field. Both leave the choice to the
# model, which is all the contract asks; no other difference is accepted anywhere.
NOT_FORCED = ("auto", None)


def tool_choice(request: dict[str, Any]) -> Any:
    return request.get("tool_choice")


def last_message(request: dict[str, Any]) -> dict[str, Any]:
    return request["messages"][-1]  # type: ignore[no-any-return]


def test_c1_first_request_forces_a_tool_and_later_ones_do_not(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C1)

    first, *later = run.requests
    assert first["tool_choice"] == "required"
    assert [t["function"]["name"] for t in first["tools"]] == list(MOCK_TOOLS)
    assert len(later) == 2
    for request in later:
        assert "tools" in request
        assert tool_choice(request) in NOT_FORCED
    assert run.answer == REPORT


def test_c2_an_answer_before_any_tool_call_gets_one_pushback_and_the_second_is_accepted(
    run_agent: RunAgent,
) -> None:
    run = run_agent(scenarios.C2)

    assert len(run.requests) == 2
    pushback = last_message(run.requests[1])
    assert pushback == {"role": "user", "content": prompts.ZERO_TOOL_PUSHBACK}
    assert tool_choice(run.requests[1]) in NOT_FORCED
    assert run.answer == "Still healthy, I am sure."
    assert run.calls == []
    assert run.result is not None and run.result.stats.pushbacks == {
        "zero_tool": 1,
        "evidence": 0,
        "report": 0,
    }


def test_c2_the_pushback_is_not_given_once_a_tool_was_called(run_agent: RunAgent) -> None:
    run = run_agent([call("list_nodes"), text("Nodes are fine.")])

    assert len(run.requests) == 2
    assert run.answer == "Nodes are fine."


def test_c3_schema_errors_name_every_bad_field_and_never_reach_the_server(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C3)

    assert run.tool_messages(1)[0]["content"] == (
        "Invalid arguments for get_pod_logs: <root>: 'namespace' is a required property; "
        "tail: 'fifty' is not of type 'integer'"
    )
    assert run.called_tools == ["list_pods"]


def test_c4_repeats_are_answered_from_cache_then_a_tool_less_summary_is_forced(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C4)

    assert run.called_tools == ["list_pods"]
    first_result = run.tool_messages(1)[0]["content"]
    for request in (2, 3):
        repeat = run.tool_messages(request)[0]["content"]
        assert repeat == f"{prompts.DUPLICATE_NUDGE}\n\n{first_result}"
    summary = run.requests[3]
    assert "tools" not in summary and "tool_choice" not in summary
    assert last_message(summary) == {"role": "user", "content": prompts.summary_instruction("repeated_calls")}
    assert len(run.requests) == 4
    assert run.answer == "Summary: " + REPORT
    assert run.result is not None and run.result.stats.forced_summary == "repeated_calls"


def test_c4_parallel_repeats_finish_the_round_before_the_summary(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C4_PARALLEL)

    assert run.called_tools == ["list_nodes", "list_pods"]
    answered = run.tool_messages(1)
    assert len(answered) == 4
    assert [m["content"].startswith("[Duplicate call]") for m in answered] == [False, True, True, False]
    assert "tools" not in run.requests[1]
    assert run.answer == "Summary."


def test_c5_invented_pod_names_get_one_pushback_naming_them(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C5)

    assert len(run.requests) == 3
    assert last_message(run.requests[2]) == {
        "role": "user",
        "content": prompts.evidence_pushback([INVENTED]),
    }
    assert tool_choice(run.requests[2]) in NOT_FORCED
    # The pushback is given once: the next answer is accepted even though it invents again.
    assert run.answer == "billing-worker-1a2b3c-zz9 as well."
    assert run.result is not None and run.result.ungrounded == ("billing-worker-1a2b3c-zz9",)


def test_c5_a_grounded_report_gets_no_pushback(run_agent: RunAgent) -> None:
    run = run_agent(
        [call("list_pods", namespace="production"), text(f"{PAYMENT} and {ANALYTICS} are unhealthy.")]
    )

    assert len(run.requests) == 2
    assert run.result is not None and run.result.stats.pushbacks == {
        "zero_tool": 0,
        "evidence": 0,
        "report": 0,
    }


def test_c6_an_unknown_tool_gets_the_whitelist_and_never_reaches_the_server(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C6)

    assert run.tool_messages(1)[0]["content"] == f"Unknown tool 'delete_pod'. Available tools: {TOOLS}"
    assert run.called_tools == ["list_pods"]
    assert run.answer == REPORT


def test_c13_a_write_tool_is_never_offered_never_run_and_the_run_goes_on(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C13)  # the server offers delete_pod and restart_pod, annotated destructive

    offered = [tool["function"]["name"] for tool in run.requests[0]["tools"]]
    assert "delete_pod" not in offered and "restart_pod" not in offered
    assert run.tool_messages(2)[0]["content"] == prompts.refused_tool("delete_pod", offered)
    assert run.called_tools == ["list_pods"]  # never reached the server
    assert run.answer == REPORT and len(run.requests) == 3


def test_c7_the_step_budget_ends_with_one_tool_less_summary(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C7)

    assert len(run.requests) == 4  # max_steps + pushbacks (0) + 1
    assert all("tools" in request for request in run.requests[:3])
    summary = run.requests[3]
    assert "tools" not in summary
    assert last_message(summary) == {"role": "user", "content": prompts.summary_instruction("step_budget")}
    assert run.called_tools == ["list_pods", "list_nodes", "get_events"]
    assert run.answer == "Summary."


def test_c7_pushbacks_extend_the_budget_by_one_turn_each(run_agent: RunAgent) -> None:
    run = run_agent([text("fine"), call("list_pods"), call("list_nodes"), text("Summary.")], max_steps=2)

    assert len(run.requests) == 4  # 2 steps + 1 pushback + 1 summary
    assert "tools" not in run.requests[3]


def test_c8_invalid_json_arguments_get_the_decoder_message_and_the_run_continues(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C8)

    assert run.tool_messages(1)[0]["content"] == (
        "Tool arguments are not valid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1); raw arguments: {not-json"
    )
    assert run.called_tools == ["list_pods"]
    assert run.answer == REPORT


def test_c9_a_tool_failure_is_a_result_and_the_run_continues(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C9)

    content = run.tool_messages(1)[0]["content"]
    assert content.startswith("Tool call failed (get_pod_logs): ")
    assert f'pod "{ANALYTICS}" is Pending' in content
    assert run.called_tools == ["get_pod_logs"]
    assert run.answer == "Logs unavailable."
    assert run.result is not None and run.result.stats.tool_calls_failed == 1


def test_c10_every_call_of_a_mixed_round_is_answered_once_in_order(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C10)

    answered = run.tool_messages(1)
    ids = [c["id"] for c in run.requests[1]["messages"][-len(answered) - 1]["tool_calls"]]
    assert [m["tool_call_id"] for m in answered] == ids
    prefixes = (
        "Unknown tool 'delete_pod'",
        "Tool arguments are not valid JSON",
        "Invalid arguments for describe_pod",
        "NAME ",
        "[Duplicate call]",
        "Tool call failed (get_pod_logs)",
    )
    assert [m["content"].startswith(p) for m, p in zip(answered, prefixes, strict=True)] == [True] * 6
    assert run.called_tools == ["list_nodes", "get_pod_logs"]


def test_c10_an_endpoint_that_reuses_call_ids_still_gets_every_call_answered(run_agent: RunAgent) -> None:
    # Some OpenAI-compatible servers number tool calls afresh in every response.
    run = run_agent(
        [
            call("list_pods", _id="call_1", namespace="production"),
            call("list_pods", _id="call_1", namespace="production"),
            call("list_nodes", _id="call_1"),
            text(REPORT),
        ]
    )

    assert len(run.requests) == 4
    assert run.called_tools == ["list_pods", "list_nodes"]
    assert run.tool_messages(2)[0]["content"].startswith("[Duplicate call]")
    assert run.tool_messages(3)[0]["content"].startswith("NAME ")
    assert run.answer == REPORT


# -- C11, C12: the structured report, checked against the tool results ------------------------------


def report_event(run: Any) -> list[dict[str, Any]]:
    return [e for e in run.trace if e["kind"] == "report"]


def test_c11_every_request_asks_for_the_report_schema_and_a_schema_violation_gets_one_correction(
    run_agent: RunAgent,
) -> None:
    run = run_agent(scenarios.C11)

    assert len(run.requests) == 4
    assert all(request["response_format"] == response_format() for request in run.requests)
    assert instructions() in run.requests[0]["messages"][0]["content"]  # the system prompt
    bad, correction = run.requests[3]["messages"][-2:]
    assert bad["role"] == "assistant" and json.loads(bad["content"])["findings"][0]["cause"] == "crashing"
    assert correction["role"] == "user"
    assert correction["content"].startswith(
        "Your report cannot be accepted as it is: the report does not fit the schema: "
    )
    for wrong in ("findings.0.status: Field required", "findings.0.cause: Input should be", "findings.0.fix"):
        assert wrong in correction["content"]
    assert tool_choice(run.requests[3]) in NOT_FORCED and "tools" in run.requests[3]
    first, second = report_event(run)
    assert (first["parsed"], first["accepted"], second["parsed"], second["accepted"]) == (
        False,
        False,
        True,
        True,
    )
    assert run.result is not None and run.result.verified is True
    assert run.result.report is not None and [f.name for f in run.result.report.findings] == [PAYMENT]


def test_c11_json_text_asks_in_the_instructions_and_reads_a_fenced_answer(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C11_TEXT)

    assert all("response_format" not in request for request in run.requests)
    assert instructions() in run.requests[0]["messages"][0]["content"]
    assert last_message(run.requests[3])["content"].startswith(
        "Your report cannot be accepted as it is: the report is not valid JSON: "
    )
    assert run.result is not None and run.result.verified is True
    assert f"pod {PAYMENT} (production): CrashLoopBackOff" in run.answer
    assert f"Evidence (get_pod_logs) ✓: {LOG_LINE}" in run.answer


def test_c12_a_fabricated_quote_and_an_invented_pod_get_one_correction_naming_both(
    run_agent: RunAgent,
) -> None:
    run = run_agent(scenarios.C12)

    assert len(run.requests) == 4
    correction = last_message(run.requests[3])["content"]
    assert f"the quote {FABRICATED!r} (finding {PAYMENT}) appears in no tool result of this run" in correction
    assert f"finding {INVENTED!r} names a pod that no tool returned" in correction
    # The payment pod's log line is no evidence about another pod, let alone one no tool returned.
    assert (
        f"is from a result about pod {PAYMENT} in namespace production, not about pod {INVENTED}"
        in correction
    )
    first, second = report_event(run)
    marks = [
        (f["name"], f["name_verified"], [q["check"] for q in f["evidence"]])
        for f in first["report"]["findings"]
    ]
    assert marks == [(PAYMENT, True, ["not_found"]), (INVENTED, False, ["other_resource"])]
    assert first["accepted"] is False and second["accepted"] is True and second["problems"] == []
    guardrails = [e for e in run.trace if e["kind"] == "guardrail"]
    assert [(g["guardrail"], g["names"]) for g in guardrails] == [("report", [INVENTED])]
    # The corrected quote is tied to the call whose result holds it.
    logs_call = next(
        e["request_id"] for e in run.trace if e["kind"] == "tool_call" and e["tool"] == "get_pod_logs"
    )
    (quote,) = second["report"]["findings"][0]["evidence"]
    assert quote == {
        "text": LOG_LINE,
        "call_id": logs_call,
        "tool": "get_pod_logs",
        "verified": True,
        "check": "verified",
        "about": None,
    }
    assert run.result is not None and run.result.verified is True and run.result.ungrounded == ()


def test_c12_what_is_still_unverified_after_the_correction_is_kept_and_marked(run_agent: RunAgent) -> None:
    run = run_agent(scenarios.C12_KEPT)

    assert len(run.requests) == 3  # one correction, then the report is accepted as it is
    assert run.result is not None and run.result.verified is False
    report = run.result.report
    assert report is not None
    assert [(q.text, q.verified) for q in report.findings[0].evidence] == [
        (LOG_LINE, True),
        (FABRICATED, False),
    ]
    assert f"✗ unverified (in no tool result): {FABRICATED}" in run.answer and f"✓: {LOG_LINE}" in run.answer
    # The script read the pod's logs but never listed or described it: no tool showed it as a resource.
    assert (
        f"pod {PAYMENT} (production): CrashLoopBackOff  [no tool showed this pod in this namespace]"
        in run.answer
    )
    assert run.result.report_problems == (
        f"finding {PAYMENT!r} names a pod that no tool returned as a resource (a listing row, a describe "
        "header or an event's object)",
        f"the quote {FABRICATED!r} (finding {PAYMENT}) appears in no tool result of this run",
    )
    end = run.trace[-1]
    assert end["kind"] == "run_end" and end["answer"] == run.answer


def test_c12_an_answer_that_never_parses_is_kept_whole_and_said_to_be_unverified(run_agent: RunAgent) -> None:
    run = run_agent(
        [call("list_pods", namespace="production"), text(REPORT), text("Still prose: " + REPORT)],
        report_format="json_text",
    )

    assert len(run.requests) == 3
    assert run.answer.startswith("UNVERIFIED: the model's answer is not a report the harness could check")
    assert run.answer.endswith("Still prose: " + REPORT)
    assert run.result is not None and run.result.verified is False and run.result.report is None


def test_c11_the_forced_summary_asks_for_the_report_and_gets_its_correction_without_tools(
    run_agent: RunAgent,
) -> None:
    run = run_agent(
        [
            call("list_pods", namespace="production"),
            call("get_pod_logs", name=PAYMENT, namespace="production"),
            text("Summary: " + REPORT),
            text(scenarios.report_json(scenarios.finding(PAYMENT, LOG_LINE))),
        ],
        report_format="json_schema",
        max_steps=2,
    )

    summary, correction = run.requests[2:]
    assert "tools" not in summary and "tools" not in correction
    assert summary["response_format"] == correction["response_format"] == response_format()
    assert last_message(summary)["content"] == prompts.summary_instruction("step_budget", structured=True)
    assert last_message(correction)["content"].startswith("Your report cannot be accepted as it is: ")
    assert run.result is not None and run.result.verified is True
