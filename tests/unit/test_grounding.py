"""Grounding: pod-like names in a report must appear in some tool result."""

from __future__ import annotations

from harness.grounding import Evidence, invented_names


def evidence(*texts: str, question: str = "") -> Evidence:
    found = Evidence(question)
    for text in texts:
        found.add(text)
    return found


def test_names_absent_from_every_result_are_invented() -> None:
    seen = evidence("production   payment-service-6f7b8d9c0-ghi56   0/1   CrashLoopBackOff")

    answer = "payment-service-6f7b8d9c0-ghi56 crashes; billing-api-7d8f9c6b5-xk2lm and cache-0-a too."

    assert invented_names(answer, seen) == ["billing-api-7d8f9c6b5-xk2lm", "cache-0-a"]


def test_short_names_and_names_derived_from_evidence_are_accepted() -> None:
    seen = evidence("pod payment-service-6f7b8d9c0-ghi56 on worker-node-1")

    answer = "Roll out deployment payment-service (replicaset payment-service-6f7b8d9c0) on worker-node-1."

    assert invented_names(answer, seen) == []


def test_the_question_counts_as_evidence_and_common_english_is_not_a_name() -> None:
    seen = evidence(question="Why is web-frontend-abc12-xyz9 slow?")

    assert invented_names("web-frontend-abc12-xyz9 is out-of-memory, an up-to-date image helps.", seen) == []


def test_repeated_names_are_reported_once() -> None:
    assert invented_names("ghost-pod-1 and ghost-pod-1 again", evidence("nothing")) == ["ghost-pod-1"]
