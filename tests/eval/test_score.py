"""The scorer on its own: a report that is right scores solved, and each way of being wrong costs what it should.

The inputs are `ask --json` objects as the agents write them; the incident is a small truth.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from k8s_agent.eval.corpus import Incident, Resource
from k8s_agent.eval.score import score
from k8s_agent_harness.findings import Cause

CRASH = "payment-7c9d8f6b5-q2w3e"
PENDING = "ledger-6d5f7c8b9-k2m4p"
FACT = "FATAL: required environment variable DB_URL is not set"
SCHEDULER = "0/3 nodes are available: 3 Insufficient cpu."

INCIDENT = Incident(
    id="two-broken",
    folder=Path("."),
    question="Which pods in payments are unhealthy?",
    summary="",
    unhealthy=(
        Resource("pod", CRASH, "payments", Cause.CRASH_CONFIG, (), FACT),
        Resource("pod", PENDING, "payments", Cause.INSUFFICIENT_RESOURCES, (), SCHEDULER),
    ),
    allowed=(Resource("pod", "worker-5c8f9e7d2-vwx78", "payments"),),
)
HEALTHY = Incident(id="fine", folder=Path("."), question="q", summary="", unhealthy=())


def finding(
    name: str, cause: str, *quotes: str, verified: bool = True, ns: str = "payments"
) -> dict[str, Any]:
    return {
        "kind": "pod",
        "name": name,
        "namespace": ns,
        "status": "x",
        "cause": cause,
        "explanation": "x",
        "evidence": [{"text": q, "verified": verified} for q in quotes]
        or [{"text": "x", "verified": verified}],
        "fix": "x",
        "name_verified": True,
    }


def run(*findings: dict[str, Any], ungrounded: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "answer": "report",
        "report": {"scope": "payments", "findings": list(findings), "healthy": {"count": 3}},
        "ungrounded_names": list(ungrounded),
        "model_requests": 4,
        "tool_calls_executed": 6,
        "tool_calls_rejected": 1,
        "pushbacks": 1,
        "forced_summary": False,
        "prompt_tokens": 900,
        "bytes_sent": 12000,
        "wall_seconds": 1.5,
    }


RIGHT = run(finding(CRASH, "crash_config", FACT), finding(PENDING, "insufficient_resources", SCHEDULER))


def test_the_right_report_is_solved_with_every_score_full_and_its_costs() -> None:
    scored = score(RIGHT, INCIDENT)

    assert scored.solved and scored.scorable
    assert (scored.recall, scored.precision, scored.cause, scored.evidence, scored.fact) == (1, 1, 1, 1, 1)
    assert (
        scored.costs["requests"] == 4
        and scored.costs["guardrails"] == 2
        and scored.costs["bytes_sent"] == 12000
    )


def test_naming_the_wrong_pod_loses_recall_and_precision() -> None:
    scored = score(run(finding("payment-7c9d8f6b5-zzzzz", "crash_config", FACT)), INCIDENT)

    assert not scored.solved and scored.recall == 0 and scored.precision == 0
    assert scored.missed == [f"pod/{CRASH} (payments)", f"pod/{PENDING} (payments)"]
    assert scored.extra == ["pod/payment-7c9d8f6b5-zzzzz (payments)"]


def test_an_invented_pod_beside_the_right_ones_is_an_extra_and_ungrounded() -> None:
    invented = finding("billing-api-7d8f9c6b5-xk2lm", "oom_killed", "OOMKilled", verified=False)
    invented["name_verified"] = False
    scored = score(run(*RIGHT["report"]["findings"], invented), INCIDENT)

    assert not scored.solved and scored.recall == 1 and scored.precision == pytest.approx(2 / 3)
    assert scored.ungrounded == 1 and scored.evidence == pytest.approx(2 / 3)


def test_calling_everything_healthy_finds_nothing() -> None:
    scored = score(run(), INCIDENT)

    assert not scored.solved and scored.recall == 0 and scored.precision == 1 and scored.cause is None


def test_the_right_pods_with_a_wrong_cause_and_a_quote_that_is_not_the_fact() -> None:
    scored = score(
        run(
            finding(CRASH, "oom_killed", "Back-off restarting failed container"),
            RIGHT["report"]["findings"][1],
        ),
        INCIDENT,
    )

    assert not scored.solved and scored.recall == 1 and scored.cause == 0.5 and scored.fact == 0.5
    assert scored.wrong_cause == [f"pod/{CRASH} (payments): oom_killed (want crash_config)"]


def test_an_accepted_cause_counts_and_an_allowed_pod_costs_nothing() -> None:
    incident = Incident(
        id="x", folder=Path("."), question="q", summary="",
        unhealthy=(Resource("pod", CRASH, "payments", Cause.CRASH_CONFIG, (Cause.CRASH_APPLICATION,), FACT),),
        allowed=INCIDENT.allowed,
    )  # fmt: skip
    scored = score(
        run(finding(CRASH, "crash_application", FACT), finding("worker-5c8f9e7d2-vwx78", "unknown")), incident
    )

    assert scored.solved and scored.precision == 1 and scored.extra == []


def test_the_same_name_in_another_namespace_is_not_the_pod() -> None:
    scored = score(run(finding(CRASH, "crash_config", FACT, ns="staging")), INCIDENT)

    assert scored.recall == 0 and scored.extra == [f"pod/{CRASH} (staging)"]


def test_an_all_healthy_cluster_is_solved_by_an_empty_report_and_failed_by_any_finding() -> None:
    assert score(run(), HEALTHY).solved
    wrong = score(run(finding(CRASH, "crash_config", FACT)), HEALTHY)
    assert not wrong.solved and wrong.recall == 1 and wrong.precision == 0


def test_a_prose_report_says_what_cannot_be_scored() -> None:
    prose = {**RIGHT, "report": None, "answer": f"{CRASH} crashes: {FACT}. Nothing else."}

    scored = score(prose, INCIDENT)

    assert not scored.scorable and not scored.solved and scored.recall == 0.5
    assert scored.precision is scored.cause is scored.evidence is scored.fact is None
    assert "prose report" in scored.why_not and "structured findings" in scored.why_not


def test_a_failed_run_scores_nothing_and_says_why() -> None:
    scored = score(None, INCIDENT, "ModelError: the endpoint answered 500")

    assert not scored.solved and scored.recall == 0 and "the endpoint answered 500" in scored.why_not
