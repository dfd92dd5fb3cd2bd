"""The review policy (guards/review.py): which answer is accepted, which gets its one pushback, and
what a structured answer is read as; the verdict as the loops receive it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.guards.review import Accept, Checked, PushBack, check_report, review
from k8s_agent_harness.model import prompts
from k8s_agent_harness.vocabulary import Pushback

LISTING = (
    "NAMESPACE   NAME            READY   STATUS             RESTARTS\n"
    "shop        api-7d9f8-x2x   0/1     CrashLoopBackOff   14\n"
    "shop        web-5c6b4-k8m   1/1     Running            0\n"
)
LOGS = "2026-11-30T04:12:02Z ERROR   config validation failed: missing required field 'DB_PASSWORD'"
QUOTE = "config validation failed: missing required field 'DB_PASSWORD'"


def evidence(*, logs: bool = True) -> Evidence:
    found = Evidence("Which pods in shop are unhealthy?")
    found.add(LISTING, "call_1", "list_pods", {"namespace": "shop"}, parameters=("namespace",))
    if logs:
        found.add(
            LOGS,
            "call_2",
            "get_pod_logs",
            {"name": "api-7d9f8-x2x", "namespace": "shop"},
            parameters=("name", "namespace"),
        )
    return found


def report(quote: str = QUOTE, name: str = "api-7d9f8-x2x") -> str:
    return json.dumps(
        {
            "scope": "pods in namespace shop",
            "findings": [
                {
                    "kind": "pod",
                    "name": name,
                    "namespace": "shop",
                    "status": "CrashLoopBackOff",
                    "cause": "crash_config",
                    "explanation": "It lacks a setting.",
                    "evidence": [{"text": quote}],
                    "fix": "Set it.",
                }
            ],
        }
    )


def verdict(answer: str, **options: Any) -> Any:
    options.setdefault("tools_ran", 1)
    options.setdefault("spent", ())
    options.setdefault("evidence", evidence())
    return review(answer, **options)


def test_an_answer_before_any_tool_gets_the_zero_tool_pushback_once() -> None:
    assert verdict("All healthy.", tools_ran=0) == PushBack(Pushback.ZERO_TOOL, prompts.ZERO_TOOL_PUSHBACK)
    assert verdict("All healthy.", tools_ran=0, spent={Pushback.ZERO_TOOL}) == Accept("All healthy.")
    # Structured or not, the zero-tool rule comes first.
    assert verdict(report(), tools_ran=0, structured=True).kind == Pushback.ZERO_TOOL


def test_a_prose_answer_naming_what_no_tool_returned_gets_the_evidence_pushback_naming_it() -> None:
    answer = "api-7d9f8-x2x crashes; billing-api-7d8f9c6b5-xk2lm is also down."

    got = verdict(answer)

    assert got == PushBack(
        Pushback.EVIDENCE,
        prompts.evidence_pushback(["billing-api-7d8f9c6b5-xk2lm"]),
        ("billing-api-7d8f9c6b5-xk2lm",),
    )
    assert verdict(answer, spent={Pushback.EVIDENCE}) == Accept(answer)
    assert verdict("api-7d9f8-x2x crashes.") == Accept("api-7d9f8-x2x crashes.")


def test_answers_are_read_as_prose_unless_the_loop_says_structured() -> None:
    answer = "api-7d9f8-x2x crashes."  # grounded prose, and no report at all

    assert verdict(answer) == Accept(answer)
    assert verdict(answer, structured=True).kind == Pushback.REPORT


def test_a_verified_structured_report_is_accepted_with_what_the_harness_made_of_it() -> None:
    answer = report()

    got = verdict(answer, structured=True)

    assert isinstance(got, Accept) and got.answer == answer
    assert got.checked is not None and got.checked.text == answer and got.checked.problems == []
    assert got.checked.report is not None and got.checked.report.findings[0].evidence[0].verified


def test_a_report_that_does_not_verify_gets_one_correction_naming_what_is_wrong() -> None:
    answer = report(name="db-0")

    got = verdict(answer, structured=True)

    assert isinstance(got, PushBack) and got.kind == Pushback.REPORT
    assert got.checked is not None and got.checked.text == answer
    assert got.message == prompts.report_correction(got.checked.problems)
    assert got.names == ("db-0",)
    spent = verdict(answer, structured=True, spent={Pushback.REPORT})
    assert isinstance(spent, Accept) and spent.checked is not None
    assert spent.checked.problems == got.checked.problems  # accepted, marked unverified


def test_an_answer_that_is_no_report_is_named_and_has_no_names() -> None:
    got = verdict("All fine.", structured=True)

    assert isinstance(got, PushBack) and got.names == ()
    problem = "the report is not valid JSON: Expecting value: line 1 column 1 (char 0)"
    assert got.message == prompts.report_correction([problem])
    assert got.checked == Checked("All fine.", None, problem)
    assert got.checked.problems == [problem] and got.checked.report is None
    assert Checked("x", None).problems == ["the answer is not a report"]


def test_no_report_in_answer_to_the_correction_keeps_the_first_report_checked_again() -> None:
    first = report()
    # The first report was checked before the logs came back: its quote was not verified then.
    corrected = check_report(first, evidence(logs=False))
    assert corrected.problems

    got = verdict(
        "Sorry, I cannot.", structured=True, spent={Pushback.REPORT}, corrected=corrected, evidence=evidence()
    )

    assert isinstance(got, Accept) and got.answer == "Sorry, I cannot."
    assert got.checked is not None and got.checked.text == first
    assert got.checked.report is not None and got.checked.report.findings[0].evidence[0].verified
    assert got.checked.problems == [
        "the answer to the correction is not a report (the report is not valid JSON: Expecting value: "
        "line 1 column 1 (char 0)): the first report is shown"
    ]


@pytest.mark.parametrize("first", [None, Checked("All fine.", None, "not JSON")], ids=["none", "unreadable"])
def test_no_report_after_the_correction_and_no_first_report_is_accepted_as_written(
    first: Checked | None,
) -> None:
    got = verdict("Sorry, I cannot.", structured=True, spent={Pushback.REPORT}, corrected=first)

    assert isinstance(got, Accept) and got.answer == "Sorry, I cannot."
    assert got.checked is not None and got.checked.text == "Sorry, I cannot." and got.checked.report is None


def test_a_report_in_answer_to_the_correction_is_the_one_kept() -> None:
    corrected = check_report(report(name="db-0"), evidence())
    answer = report()

    got = verdict(answer, structured=True, spent={Pushback.REPORT}, corrected=corrected)

    assert isinstance(got, Accept) and got.checked is not None
    assert got.checked.text == answer and got.checked.problems == []
