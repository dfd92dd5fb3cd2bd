"""Classifying MCP failures: retryable or not, and the retry-after the server asked for."""

from __future__ import annotations

import pytest

from k8s_agent_harness.cluster.results import classify_failure


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


class _Raising:
    """A client whose library raises on a result, as a server's malformed result can make it."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def call_tool(self, *args: object, **kwargs: object) -> None:
        raise self.error


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (
            KeyError("structuredContent"),
            "the MCP client could not read the result (KeyError: 'structuredContent')",
        ),
        (
            RuntimeError("Tool list_pods has an output schema but did not return structured content"),
            "the tool declares an output schema but its result has no structured content",
        ),
        (
            RuntimeError(
                "Invalid schema for tool list_pods: 'objekt' is not valid under any of the given schemas\nmore"
            ),
            "the tool's declared output schema cannot be checked: 'objekt' is not valid under any of the given schemas",
        ),
    ],
)
def test_whatever_the_mcp_library_raises_on_a_result_is_a_tool_failure(error: Exception, reason: str) -> None:
    import anyio

    from k8s_agent_harness.cluster.client import McpClient, _Connection

    client = McpClient(("a-server",))
    connection = _Connection(generation=0, client=_Raising(error))  # type: ignore[arg-type]

    try:
        result = anyio.run(client._call_once, connection, "list_pods", {}, None)
    finally:
        client._stderr.close()

    assert result.failure is not None and result.failure.kind == "protocol_error"
    assert result.failure.reason == reason
