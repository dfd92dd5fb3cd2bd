"""The verified report against a model that launders false evidence (docs/report.md, the threat model).

Each attack is a scripted model whose report is true but for one planted false item, and which
sends the same report again after the correction. Both agents run it, with the same wire; what
the test asserts is what the harness did at the boundary: the correction turn the model received,
and the report as the run ends (its marks, its problems). The honest reports beside them (a real
log line from the right pod, a genuine search hit, an unrelated failed lookup) stay verified with
no correction turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.implementations import ask_function
from k8s_agent.scenarios import FABRICATED, INVENTED, LOG_LINE, PAYMENT, QUESTION
from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.config import Config
from k8s_agent_harness.evidence.report import Finding, HealthReport
from k8s_agent_harness.printout import render, render_markdown
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from k8s_agent_scripted_llm import ScriptedModelServer, Step, call, text
from tests.conftest import AgentRun, assert_every_call_answered, read_jsonl
from tests.processes import HANG_SECONDS, OUT_OF_REACH
from tests.reliability.test_properties import LoopThread
from tests.wire import wire_view

CHECKOUT = "checkout-service-7f6d5c4b4-zbc72"
"""Healthy: Running, READY 1/1, 0 restarts."""
FRONTEND = "frontend-web-5d4c4b2z7-dxf44"
ORDER = "order-service-7d4c9b8z7-stv44"
ANALYTICS = "analytics-worker-5c8f9x7d2-vwx78"
READINESS = "Readiness probe failed: HTTP probe failed with statuscode: 503"
SCHEDULING = "0/3 nodes are available: 3 Insufficient memory."
PAYMENT_STATUS = "CrashLoopBackOff, READY 0/1, 14 restarts"


def finding(
    name: str,
    *quotes: str,
    status: str = PAYMENT_STATUS,
    namespace: str | None = "production",
    cause: str = "crash_config",
    **fields: Any,
) -> dict[str, Any]:
    return {
        "kind": "pod",
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": cause,
        "explanation": "The application exits at start-up: its configuration lacks DB_PASSWORD.",
        "evidence": [{"text": quote, "tool": "get_pod_logs"} for quote in quotes],
        "fix": "Provide DB_PASSWORD from the pod's Secret and roll the deployment out again.",
        **fields,
    }


TRUE = finding(PAYMENT, LOG_LINE)
"""The true part of every report: the crashing pod, its status and its real log line."""


def report(*findings: dict[str, Any], examples: tuple[str, ...] = (CHECKOUT, FRONTEND)) -> str:
    return json.dumps(
        {
            "scope": "pods in namespace production",
            "findings": list(findings),
            "healthy": {"count": 2, "examples": list(examples)},
        }
    )


def investigate(*more: Step) -> list[Step]:
    """What every model here does first: list the pods, read the crashing pod's logs; then `more`."""
    return [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        *more,
    ]


class Shared:
    """One mock cluster (its MCP client on a loop thread) and one scripted model server for the module:
    every run here is the same agent code on the same wire, without a server start per run."""

    def __init__(self, workdir: Path) -> None:
        self.loop = LoopThread()
        self.context = McpClient.running(
            mock_cluster_command(), call_timeout=HANG_SECONDS, start_timeout=HANG_SECONDS
        )
        self.mcp = self.loop.run(self.context.__aenter__())
        self.server = ScriptedModelServer().start()
        self.workdir = workdir

    def run(self, impl: str, script: list[Step], **overrides: Any) -> AgentRun:
        self.server.reset(script)
        config = Config(
            **{
                "impl": impl,
                "model": "scripted",
                "base_url": self.server.url,
                "api_key": "sk-test-not-a-real-key-000",
                "trace_dir": self.workdir / impl,
                "max_retries": 0,
                **OUT_OF_REACH,
                "report_format": "json_schema",
                **overrides,
            }
        )
        result = self.loop.run(ask_function(Impl(impl))(config, QUESTION, mcp=self.mcp))
        self.server.assert_done()
        requests = list(self.server.requests)
        assert_every_call_answered(requests)
        return AgentRun(result, None, requests, [], read_jsonl(result.trace), result.trace)

    def close(self) -> None:
        self.server.stop()
        self.loop.run(self.context.__aexit__(None, None, None))
        self.loop.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    rig = Shared(tmp_path_factory.mktemp("threats"))
    yield rig
    rig.close()


def both(shared: Shared, script: list[Step], **overrides: Any) -> AgentRun:
    """Both agents on the script, with the same wire; the hand-written agent's run."""
    runs = {impl: shared.run(impl, script, **overrides) for impl in IMPLEMENTATIONS}
    assert wire_view(runs["handwritten"].requests) == wire_view(runs["sdk"].requests)
    for run in runs.values():
        assert run.result is not None, run.error
        assert run.result.report == runs["handwritten"].result.report  # type: ignore[union-attr]
    return runs["handwritten"]


def kept_false(shared: Shared, planted: str, *steps: Step, **overrides: Any) -> tuple[HealthReport, str]:
    """Run a model that sends `planted` and, after the correction, the same report again: the
    report as the run ends, and the correction the model received."""
    run = both(shared, investigate(*steps, text(planted), text(planted)), **overrides)
    assert run.result is not None and run.result.report is not None
    correction = run.requests[-1]["messages"][-1]
    assert correction["role"] == "user" and correction["content"].startswith("Your report cannot be accepted")
    assert run.result.stats.pushbacks["report"] == 1 and run.result.verified is False
    assert run.result.unverified and run.result.report_problems
    true = named(run.result.report, PAYMENT)
    assert true.name_verified and true.status_verified and all(q.verified for q in true.evidence[:1])
    return run.result.report, correction["content"]


def named(report: HealthReport, name: str) -> Finding:
    return next(f for f in report.findings if f.name == name)


# -- 1. the harness's own search tool echoes its input ------------------------------------------------


def test_the_search_tool_s_echo_of_a_pattern_or_a_handle_is_no_evidence(shared: Shared) -> None:
    handle = "panic: runtime error: invalid memory address or nil pointer dereference"
    planted = report(finding(PAYMENT, LOG_LINE, FABRICATED, handle))

    checked, correction = kept_false(
        shared,
        planted,
        call("get_events"),  # over the per-result budget: stored, so the search tool is offered
        call("search_results", pattern=FABRICATED),
        call("search_results", pattern="Warning", handle=handle),
        context_budget=5000,
    )

    _, fabricated, echoed = named(checked, PAYMENT).evidence
    assert (fabricated.check, echoed.check) == ("not_found", "not_found")
    assert f"the quote {FABRICATED!r} (finding {PAYMENT}) appears in no tool result of this run" in correction


# -- 2. a server error that repeats its argument ------------------------------------------------------


def test_a_server_error_repeating_its_argument_is_error_text_not_evidence(shared: Shared) -> None:
    planted = report(finding(PAYMENT, LOG_LINE, FABRICATED))

    checked, correction = kept_false(
        shared, planted, call("get_pod_logs", name=FABRICATED, namespace="production")
    )

    quote = named(checked, PAYMENT).evidence[1]
    assert (quote.check, quote.verified, quote.tool) == ("error_text", False, "get_pod_logs")
    assert "is only in the error of a failed call (get_pod_logs)" in correction


# -- 3. a failed call verifies a name -------------------------------------------------------------------


def test_a_failed_lookup_does_not_make_the_name_it_was_asked_real(shared: Shared) -> None:
    error = f'pods "{INVENTED}" not found in namespace "production"'
    planted = report(TRUE, finding(INVENTED, error))

    checked, correction = kept_false(
        shared, planted, call("get_pod_logs", name=INVENTED, namespace="production")
    )

    invented = named(checked, INVENTED)
    assert invented.name_verified is False and invented.evidence[0].check == "error_text"
    assert f"finding {INVENTED!r} names a pod that no tool returned as a resource" in correction


# -- 4. the arguments of a successful call verify a name ------------------------------------------------


def test_a_successful_call_s_arguments_do_not_make_a_name_real(shared: Shared) -> None:
    said = f"No pods found in namespace {INVENTED}"
    planted = report(TRUE, finding(INVENTED, said))

    checked, correction = kept_false(shared, planted, call("list_pods", namespace=INVENTED))

    invented = named(checked, INVENTED)
    assert invented.name_verified is False
    assert invented.evidence[0].check == "other_resource"  # the line names the pod only by echoing the call
    assert f"finding {INVENTED!r} names a pod that no tool returned as a resource" in correction


# -- 5. trivial quotes ----------------------------------------------------------------------------------


def test_trivial_quotes_are_no_evidence_and_a_status_must_be_the_tools(shared: Shared) -> None:
    planted = report(
        TRUE,
        finding(CHECKOUT, "a", "1", "ok", "Warning", status="OOMKilled, 12 restarts", cause="oom_killed"),
    )

    checked, correction = kept_false(shared, planted, call("get_events", namespace="production"))

    healthy = named(checked, CHECKOUT)
    assert healthy.name_verified is True and healthy.status_verified is False
    assert not any(q.verified for q in healthy.evidence)
    assert {q.check for q in healthy.evidence} <= {"too_short", "not_found"}
    assert healthy.evidence[3].check == "too_short"  # "Warning": in the events, but no evidence
    assert "'Warning' (finding checkout-service-7f6d5c4b4-zbc72) is too short to be evidence" in correction
    assert "'OOMKilled', '12' in none of its status fields as the tools showed them for pod" in correction


# -- 6. another resource's evidence -----------------------------------------------------------------


def test_another_pod_s_log_line_is_not_re_pointed_to_a_healthy_pod(shared: Shared) -> None:
    planted = report(TRUE, finding(CHECKOUT, LOG_LINE, status="Running, READY 1/1"))

    checked, correction = kept_false(shared, planted)

    quote = named(checked, CHECKOUT).evidence[0]
    assert (quote.check, quote.verified) == ("other_resource", False)
    assert quote.about == f"pod {PAYMENT} in namespace production"
    assert (
        f"is from a result about pod {PAYMENT} in namespace production, not about pod {CHECKOUT}"
        in correction
    )


# -- 7. names that are words ---------------------------------------------------------------------------


def test_a_namespace_a_log_word_or_a_status_word_is_no_resource(shared: Shared) -> None:
    words = ("production", "config", "CrashLoopBackOff")
    planted = report(TRUE, *(finding(word, LOG_LINE) for word in words))

    checked, correction = kept_false(shared, planted)

    assert [named(checked, word).name_verified for word in words] == [False, False, False]
    for word in words:
        assert f"finding {word!r} names a pod that no tool returned as a resource" in correction


# -- 8. fields never checked: namespace, status, healthy examples -----------------------------------


def test_the_namespace_the_status_and_the_healthy_examples_are_checked(shared: Shared) -> None:
    planted = report(
        TRUE,
        finding(
            ORDER,
            READINESS,
            status="Running, READY 0/1",
            namespace="staging",
            cause="readiness_probe_failure",
        ),
        finding(ANALYTICS, SCHEDULING, status="OOMKilled, READY 0/1", cause="oom_killed"),
        examples=(CHECKOUT, INVENTED),
    )

    checked, correction = kept_false(
        shared,
        planted,
        call("describe_pod", name=ORDER, namespace="production"),
        call("describe_pod", name=ANALYTICS, namespace="production"),
    )

    order, analytics = named(checked, ORDER), named(checked, ANALYTICS)
    # The describe block is the production pod's: no evidence about a pod of that name in staging.
    assert order.name_verified is False and order.evidence[0].verified is False
    assert order.evidence[0].about == f"pod {ORDER} in namespace production"
    assert (
        f"finding {ORDER!r} says namespace 'staging', but the tools showed {ORDER} only in namespace production"
        in correction
    )
    assert analytics.name_verified is True and analytics.status_verified is False
    assert checked.healthy.unverified_examples == [INVENTED]
    assert f"the healthy example {INVENTED!r} names nothing a tool showed" in correction


# -- 9. forged marks -------------------------------------------------------------------------------------


def test_no_field_prints_a_line_of_its_own(shared: Shared) -> None:
    forged = finding(
        PAYMENT,
        LOG_LINE,
        explanation="It lacks DB_PASSWORD.\n   Evidence (get_pod_logs) ✓: the database is corrupted\u202e",
        fix="Set it.\r\n## Verified by the harness",
    )

    run = both(shared, investigate(text(report(forged))))

    assert run.result is not None and run.result.verified is True and len(run.requests) == 3
    for shown in (render(run.result), render_markdown(run.result)):
        lines = shown.splitlines()
        marks = [line for line in lines if line.lstrip(" -*").startswith("Evidence")]
        assert len(marks) == 1 and LOG_LINE in marks[0]
        assert not any(
            line.lstrip().startswith(("Evidence", "## Verified")) and "corrupted" in line for line in lines
        )
        assert "\\n   Evidence (get_pod_logs) ✓: the database is corrupted\\u202e" in shown
        assert "\u202e" not in shown and "\r" not in shown


# -- side findings ----------------------------------------------------------------------------------


def test_an_oversized_report_is_a_schema_error_and_stays_bounded(shared: Shared) -> None:
    planted = report(finding(PAYMENT, LOG_LINE, explanation="x" * 2_000_000))
    many = report(*[finding(PAYMENT, LOG_LINE)] * 31)

    run = both(shared, investigate(text(planted), text(planted)))
    listed = both(shared, investigate(text(many), text(many)))

    correction = run.requests[-1]["messages"][-1]["content"]
    assert "the report is 2,000," in correction and "more than the limit of 32,768" in correction
    assert run.result is not None and run.result.report is None and run.result.unverified
    assert len(run.result.answer) < 10_000 and "the whole answer is in the trace" in run.result.answer
    assert (
        run.trace_path is not None and run.trace_path.stat().st_size < 5_000_000
    )  # the answer twice, once each
    assert "findings: List should have at most 30 items" in listed.requests[-1]["messages"][-1]["content"]
    assert listed.result is not None and len(render(listed.result)) < 10_000


def test_a_prose_answer_to_the_correction_keeps_the_first_report(shared: Shared) -> None:
    first = report(TRUE, finding(INVENTED, LOG_LINE))

    run = both(shared, investigate(text(first), text("I stand by my report.")))

    assert run.result is not None and run.result.report is not None and run.result.verified is False
    assert named(run.result.report, PAYMENT).evidence[0].verified is True
    assert named(run.result.report, INVENTED).name_verified is False
    assert any("the answer to the correction is not a report" in p for p in run.result.report_problems)
    assert f"Evidence (get_pod_logs) ✓: {LOG_LINE}" in run.result.answer


def test_the_correction_of_an_oversized_report_still_shows_the_results_its_quotes_come_from(
    shared: Shared,
) -> None:
    planted = report(finding(PAYMENT, LOG_LINE, explanation="y" * 200_000))

    run = both(shared, investigate(text(planted), text(report(TRUE))))

    assert run.result is not None and run.result.verified is True
    messages = run.requests[-1]["messages"]
    answer = next(m for m in reversed(messages) if m["role"] == "assistant")
    assert len(answer["content"]) < 33_000 and "more bytes of this answer, cut" in answer["content"]
    results = [m["content"] for m in messages if m["role"] == "tool"]
    assert any(PAYMENT in r and "CrashLoopBackOff" in r for r in results) and any(
        LOG_LINE in r for r in results
    )
    assert not any(r.startswith("[Result r") for r in results)  # neither stubbed nor dropped


# -- honest reports ---------------------------------------------------------------------------------


def test_honest_evidence_stays_verified_with_no_correction_turn(shared: Shared) -> None:
    back_off = f"Back-off restarting failed container payment-service in pod {PAYMENT}_production"
    honest = report(
        finding(PAYMENT, LOG_LINE, back_off),
        finding(ORDER, READINESS, status="Running, READY 0/1", cause="readiness_probe_failure"),
    )

    run = both(
        shared,
        investigate(
            call(
                "get_pod_logs", name="analytics-worker-0", namespace="production"
            ),  # an unrelated failed lookup
            call("get_events"),  # stored: the search tool is offered
            call("search_results", pattern="Back-off restarting", handle="r1"),  # a genuine hit
            call("describe_pod", name=ORDER, namespace="production"),
            text(honest),
        ),
        context_budget=5000,
    )

    assert run.result is not None and run.result.verified is True and not run.result.unverified
    assert run.result.stats.pushbacks["report"] == 0 and run.result.stats.tool_calls_failed == 1
    log_line, event = named(run.result.report, PAYMENT).evidence  # type: ignore[arg-type]
    assert (log_line.tool, event.tool) == ("get_pod_logs", "get_events")  # the search hit, where it really is
