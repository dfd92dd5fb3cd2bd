"""Property test of the structured report (C11, C12): any mix of valid, broken, fabricated and
invented reports is checked, corrected at most once, and never loses a finding, in either
implementation; both put the same wire. The shared rig and settings are test_properties.py's (its
own module, so that the two halves can run on two workers).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k8s_agent.scenarios import ANALYTICS, FABRICATED, INVENTED, LOG_LINE, PAYMENT, finding, report_json
from k8s_agent_harness.config import APIS
from k8s_agent_harness.evidence.report import parse_report
from k8s_agent_harness.traces.events import resolved_json
from k8s_agent_scripted_llm import Reply, Step, ToolCall, text
from tests.conftest import assert_every_call_answered, read_jsonl
from tests.reliability.test_properties import EXAMPLES, MAX_STEPS, VALID_CALLS, Rig, examples, make_rig
from tests.wire import wire_view


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    yield from make_rig(tmp_path_factory)


# -- C11, C12: structured reports, any mix of valid, broken, fabricated and invented ----------------

QUOTES = [
    LOG_LINE,  # in the payment pod's logs (when a call read them)
    "CrashLoopBackOff",  # in the listing and the descriptions
    FABRICATED,  # in no tool result
    "  CrashLoopBackOff \n",  # whitespace differs: still verbatim once normalised
]
NAMES = [PAYMENT, ANALYTICS, INVENTED]
report_findings = st.lists(
    st.tuples(st.sampled_from(NAMES), st.lists(st.sampled_from(QUOTES), min_size=1, max_size=3)),
    max_size=3,
).map(lambda found: [finding(name, *quotes) for name, quotes in found])
REPORT_BREAKS = [
    "{not a report",
    f"{PAYMENT} is in CrashLoopBackOff.",
    json.dumps({"scope": "x", "findings": [{"name": PAYMENT}]}),  # misses required fields
    json.dumps({"findings": "none"}),
    "",
]
report_texts = st.one_of(
    st.tuples(report_findings, st.booleans()).map(lambda r: report_json(*r[0], fence=r[1])),
    st.sampled_from(REPORT_BREAKS),
)
structured_turns = st.one_of(
    st.lists(st.sampled_from(VALID_CALLS[:5]), min_size=1, max_size=3).map(
        lambda calls: Reply(tool_calls=tuple(ToolCall(name, json.dumps(args)) for name, args in calls))
    ),
    report_texts.map(text),
)
structured_scripts = st.lists(structured_turns, min_size=1, max_size=MAX_STEPS + 3)


def expected_marks(trace: list[dict[str, Any]]) -> tuple[Any, Any]:
    """What the verification must make of each finding, from the calls that ran (the fixture's own
    facts, not the verifier's rule): (name, quote) -> verified, and name -> (name, status) verified."""
    ran = [e for e in trace if e["kind"] == "tool_call" and e["outcome"] == "executed"]
    listed = any(e["tool"] == "list_pods" for e in ran)
    described = any(e["tool"] == "describe_pod" and e["arguments"].get("name") == PAYMENT for e in ran)
    read = any(
        e["tool"] == "get_pod_logs"
        and e["arguments"].get("name") == PAYMENT
        and LOG_LINE in str(e.get("full_result") or e["result"])
        for e in ran
    )

    def quote(name: str, text: str) -> bool:
        if name != PAYMENT or text == FABRICATED:
            return False  # the payment pod's evidence is no other pod's; the fabricated line is nobody's
        return read if text == LOG_LINE else listed or described  # CrashLoopBackOff: its row, its describe

    def resource(name: str) -> tuple[bool, bool | None]:
        shown = name != INVENTED and (listed or (name == PAYMENT and described))
        return shown, (
            name == PAYMENT
        ) if shown else None  # the analytics pod is Pending, not CrashLoopBackOff

    return quote, resource


def final_written(trace: list[dict[str, Any]]) -> str:
    """The answer the run's report must come from: the last one, or, when that is no report, the
    one the correction turn was about."""
    texts = [e["text"] or "" for e in trace if e["kind"] == "model_response"]
    last = texts[-1] if texts else ""  # a forced summary answered with calls wrote nothing
    corrected = None
    latest = ""
    for event in trace:
        if event["kind"] == "model_response":
            latest = event["text"] or ""
        elif event["kind"] == "guardrail" and event["guardrail"] == "report":
            corrected = latest
    if parse_report(last)[0] is None and corrected is not None and parse_report(corrected)[0] is not None:
        return corrected
    return last


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("report_format", ["json_schema", "json_text"])
@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_any_report_is_checked_corrected_at_most_once_and_never_loses_a_finding(
    impl: str, report_format: str, api: str, rig: Rig
) -> None:
    # The examples are shared between the two wires (each sees half), so the suite's time stays.
    @examples(max(EXAMPLES // 5, 40) // len(APIS))
    @given(script=structured_scripts)
    def check(script: list[Step]) -> None:
        result = rig.run(impl, script, report_format=report_format, api=api)

        # The report's schema on every request: `response_format`, or `text.format` on the Responses wire.
        schema_field = "response_format" if api == "chat" else "text"
        assert all((schema_field in body) is (report_format == "json_schema") for body in rig.server.requests)
        requests = rig.requests
        assert result.stats.pushbacks["report"] <= 1 and result.stats.pushbacks["evidence"] == 0
        assert len(requests) <= MAX_STEPS + result.stats.as_dict()["pushbacks"] + 2
        assert_every_call_answered(requests)
        trace = resolved_json(read_jsonl(result.trace))
        assert trace[-1]["kind"] == "run_end" and trace[-1]["status"] == "ok"
        reports = [e for e in trace if e["kind"] == "report"]
        assert reports and reports[-1]["accepted"] and all(not e["accepted"] for e in reports[:-1])
        written = final_written(trace)
        quote_verified, resource_verified = expected_marks(trace)
        if result.report is None:  # never a report: shown, said to be unverified
            assert result.verified is False and result.answer.startswith("UNVERIFIED")
            assert written.strip()[:8000] in result.answer
        else:  # every finding kept; each mark as the fixture's facts say
            assert len(result.report.findings) == len(parse_report(written)[0].findings)  # type: ignore[union-attr]
            for found in result.report.findings:
                assert (found.name_verified, found.status_verified) == resource_verified(found.name)
                for quote in found.evidence:
                    held = quote_verified(found.name, " ".join(quote.text.split()))
                    assert quote.verified is held, (found.name, quote.text, held)
                    assert ("✓" if held else "✗ unverified") in result.answer
            assert result.verified is (not result.report_problems)
        result.trace.unlink()

    check()


@pytest.mark.parametrize("api", APIS)
def test_both_implementations_put_the_same_wire_for_any_report(api: str, rig: Rig) -> None:
    @examples(max(EXAMPLES // 8, 30) // len(APIS))
    @given(script=structured_scripts)
    def check(script: list[Step]) -> None:
        views = {}
        for impl in ("handwritten", "sdk"):
            result = rig.run(impl, script, report_format="json_schema", api=api)
            views[impl] = (wire_view(rig.requests), result.answer, result.report)
            result.trace.unlink()
        assert views["sdk"] == views["handwritten"]

    check()
