"""Classifying MCP failures: retryable or not, and the retry-after the server asked for."""

from __future__ import annotations

import pytest

from k8s_agent_harness.mcp_client import classify_failure


@pytest.mark.parametrize(
    ("reason", "retryable", "retry_after"),
    [
        ("429 Too Many Requests: rate limited (retry after 2s)", True, 2.0),
        ("the server is throttling; Retry-After: 1500 ms", True, 1.5),
        ("503 Service Unavailable", True, None),
        ('pods "x" not found', False, None),
        ("forbidden: User cannot list pods", False, None),
    ],
)
def test_failures_are_classified_from_their_text(
    reason: str, retryable: bool, retry_after: float | None
) -> None:
    failure = classify_failure(reason, "tool_error")

    assert (failure.retryable, failure.retry_after) == (retryable, retry_after)


def test_structured_hints_win_over_the_text() -> None:
    failure = classify_failure("429 busy", "protocol_error", {"retryable": False, "retry_after": 3})

    assert (failure.retryable, failure.retry_after) == (False, 3.0)
