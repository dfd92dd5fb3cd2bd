"""The fault matrix: model endpoint and MCP server faults, for both implementations, with exact counts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import ANALYTICS, PAYMENT, REPORT
from k8s_agent_harness.errors import MalformedResponseError, McpServerError, ModelEndpointError
from k8s_agent_harness.model import prompts
from k8s_agent_scripted_llm import call, error, hang, malformed, text
from tests.conftest import RunAgent
from tests.processes import EXERCISED_TIMEOUT


def fault_plan(tmp_path: Path, *faults: dict[str, Any]) -> Path:
    path = tmp_path / f"faults-{len(list(tmp_path.glob('faults-*.json')))}.json"
    path.write_text(json.dumps({"faults": list(faults)}))
    return path


# -- the model endpoint ------------------------------------------------------------------------


def test_a_429_with_retry_after_is_retried_by_the_client_then_succeeds(run_agent: RunAgent) -> None:
    run = run_agent(
        [error(429, "slow down", retry_after=0.2), call("list_pods"), text(REPORT)], max_retries=2
    )

    assert len(run.requests) == 3
    assert run.answer == REPORT
    (failure,) = run.events("model_error")
    assert (failure["status"], failure["retry_after"], failure["attempt"]) == (429, "0.2", 1)
    attempts = [(e["step"], e["attempt"]) for e in run.events("model_request")]
    assert attempts == [(1, 1), (1, 2), (2, 1)]
    assert run.result is not None and run.result.stats.model_requests == 2
    assert run.result.stats.model_attempts == 3


def test_a_500_forever_ends_after_the_bounded_retries_with_a_clear_error(run_agent: RunAgent) -> None:
    run = run_agent([error(500, "upstream exploded", retry_after=0.05)] * 3, max_retries=2)

    assert len(run.requests) == 3
    assert isinstance(run.error, ModelEndpointError)
    assert "answered HTTP 500 after 3 attempts: upstream exploded" in str(run.error)
    assert run.trace[-1]["kind"] == "run_end" and run.trace[-1]["error_type"] == "ModelEndpointError"


def test_a_hanging_model_ends_at_the_request_timeout(run_agent: RunAgent) -> None:
    run = run_agent([hang(), hang()], request_timeout=0.5, max_retries=1)

    assert len(run.requests) == 2
    assert isinstance(run.error, ModelEndpointError)
    assert "did not answer within 0.5s (2 attempts)" in str(run.error)


NO_ANSWER = {
    "chat": ('{"id": "x", "object": "chat.completion", "choices": []}', "the completion has no choices"),
    "responses": (
        '{"id": "x", "object": "response", "status": "completed"}',
        "the response has no output list",
    ),
}


def test_a_completion_without_choices_ends_the_run_clearly(run_agent: RunAgent, wire: str) -> None:
    body, problem = NO_ANSWER[wire]
    run = run_agent([malformed(body)], max_retries=2)

    assert len(run.requests) == 1  # a 200 is not retried
    assert isinstance(run.error, MalformedResponseError)
    assert str(run.error) == f"the model endpoint sent a malformed response: {problem}"
    assert run.trace[-1]["error_type"] == "MalformedResponseError"


def test_a_tool_call_without_a_function_ends_the_run_clearly(run_agent: RunAgent, wire: str) -> None:
    chat = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c1", "type": "function"}],
                },
            }
        ],
    }
    responses = {
        "id": "x",
        "object": "response",
        "status": "completed",
        "output": [{"type": "function_call", "call_id": "c1", "arguments": "{}"}],
    }
    body, problem = (
        (chat, "a tool call lacks an id, a function or a name")
        if wire == "chat"
        else (responses, "a function call lacks a call_id or a name")
    )
    run = run_agent([malformed(json.dumps(body))])

    assert isinstance(run.error, MalformedResponseError)
    assert problem in str(run.error)
    assert run.calls == []


# -- the MCP server ------------------------------------------------------------------------------


def test_a_retryable_tool_error_is_retried_by_the_harness_and_the_model_sees_one_result(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    plan = fault_plan(
        tmp_path,
        {
            "tool": "list_pods",
            "action": "error",
            "times": 2,
            "message": "429 Too Many Requests: API rate limit",
            "retry_after": 0.1,
        },
    )
    run = run_agent([call("list_pods", namespace="production"), text(REPORT)], faults=plan)

    assert run.called_tools == ["list_pods"] * 3
    (result,) = run.tool_messages(1)
    assert result["content"].startswith("NAMESPACE ") and PAYMENT in result["content"]
    assert [e["attempt"] for e in run.events("tool_retry")] == [1, 2]
    assert [e["delay_s"] for e in run.events("tool_retry")] == [0.1, 0.1]
    (executed,) = run.events("tool_call")
    assert executed["attempts"] == 3 and executed["outcome"] == "executed"


def test_a_non_retryable_tool_error_reaches_the_model_once(run_agent: RunAgent, tmp_path: Path) -> None:
    plan = fault_plan(
        tmp_path,
        {
            "tool": "list_pods",
            "action": "error",
            "shape": "jsonrpc",
            "message": "forbidden: cannot list pods",
        },
    )
    run = run_agent([call("list_pods"), text("Could not list pods.")], faults=plan)

    assert run.called_tools == ["list_pods"]
    assert run.tool_messages(1)[0]["content"] == (
        "Tool call failed (list_pods): forbidden: cannot list pods (JSON-RPC error -32603)"
    )


@pytest.mark.parametrize("wire", ["chat"])  # a tool's timeout is the gateway's, the same on either wire
def test_a_hanging_tool_times_out_and_the_run_goes_on(run_agent: RunAgent, tmp_path: Path) -> None:
    plan = fault_plan(tmp_path, {"tool": "get_pod_logs", "action": "hang"})
    run = run_agent(
        [call("get_pod_logs", name=PAYMENT, namespace="production"), call("list_pods"), text(REPORT)],
        faults=plan,
        tool_timeout=EXERCISED_TIMEOUT,  # the hang reaches it; list_pods, a few ms of work, never does
    )

    assert run.tool_messages(1)[0]["content"] == "Tool call failed (get_pod_logs): timed out after 5s"
    assert run.tool_messages(2)[0]["content"].startswith("NAMESPACE ")
    assert run.answer == REPORT


def test_a_server_that_crashes_mid_run_is_restarted_once_and_the_call_retried(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    plan = fault_plan(tmp_path, {"action": "exit", "after": 1, "times": 1})
    run = run_agent(
        [call("list_pods"), call("get_pod_logs", name=PAYMENT, namespace="production"), text(REPORT)],
        faults=plan,
    )

    assert run.called_tools == ["list_pods", "get_pod_logs", "get_pod_logs"]
    first_pid = run.calls[0]["pid"]
    assert [c["pid"] == first_pid for c in run.calls] == [True, True, False]
    assert "missing required field 'DB_PASSWORD'" in run.tool_messages(2)[0]["content"]
    assert run.answer == REPORT
    (restart,) = run.events("mcp_restart")
    assert restart["ok"] is True and restart["reason"] == "MCP server closed the connection"


def test_a_server_gone_for_good_fails_every_call_and_forces_the_summary(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    plan = fault_plan(tmp_path, {"action": "exit", "after": 1})
    run = run_agent(
        [
            call("list_pods"),
            call("get_pod_logs", name=ANALYTICS, namespace="production"),
            text("Partial report."),
        ],
        faults=plan,
    )

    assert run.called_tools == ["list_pods", "get_pod_logs", "get_pod_logs"]
    assert_ended_by_the_lost_server(run)


def test_a_server_that_never_starts_is_a_clear_error_with_its_stderr(run_agent: RunAgent) -> None:
    never = (
        sys.executable,
        "-c",
        "import sys; print('error: no kubeconfig found', file=sys.stderr); sys.exit(1)",
    )
    run = run_agent([], mcp_command=never)

    assert isinstance(run.error, McpServerError)
    assert "exited during start-up" in str(run.error)
    assert run.error.stderr_tail == "error: no kubeconfig found"
    assert run.requests == []
    assert run.trace[-1]["stderr_tail"] == "error: no kubeconfig found"


def assert_ended_by_the_lost_server(run: Any) -> None:
    """The call after the server went away failed as such, and the third request asked, tool-less,
    for the summary of a run whose server is gone (the script answers "Partial report.")."""
    failure = run.tool_messages(2)[0]["content"]
    assert failure.startswith("Tool call failed (get_pod_logs): the MCP server is gone (")
    assert failure.endswith("this could not be checked")
    summary = run.requests[2]
    assert "tools" not in summary
    assert summary["messages"][-1]["content"] == prompts.summary_instruction("server_gone")
    assert run.answer == "Partial report."
