"""What providers send that differs, read once at the model client: tolerant where the wire is
ambiguous, strict where it is broken, the same on both agents (docs/providers.md).

The answers are the providers' own shapes (tests/providers); each test runs both implementations
through the `impl` fixture (and both wires where the provider offers them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k8s_agent.scenarios import PAYMENT
from k8s_agent_harness.errors import MalformedResponseError, ModelEndpointError
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.provider_wire import FRESH_ID_PREFIX
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import Recorded, Reply, Step, call, raw_tool, text, tool
from tests.conftest import AgentRun, RunAgent, run_scenario

PROVIDERS = Path(__file__).parent.parent / "providers"
ANSWER = f"{PAYMENT} in production is in CrashLoopBackOff."


def recorded(path: str, status: int = 200) -> Recorded:
    """A provider's answer from tests/providers (an event stream for `.sse`)."""
    body = (PROVIDERS / path).read_text(encoding="utf-8")
    return Recorded(body, "text/event-stream" if path.endswith(".sse") else "application/json", status)


def run(impl: Impl, steps: list[Step], tmp_path: Path, **settings: object) -> AgentRun:
    """One run of `impl` on these answers (a prose report: the answer is checked as it is)."""
    return run_scenario(impl, steps, tmp_path, report_format="prose", **settings)


# -- tolerant where the wire is ambiguous ---------------------------------------------------------


def test_calls_without_an_id_are_answered_under_fresh_ids_the_trace_names(impl: Impl, tmp_path: Path) -> None:
    # Gemini's OpenAI-compatible endpoint: `"id": ""` on every call, two of them in one reply.
    done = run(impl, [recorded("gemini/chat-2.json"), text(ANSWER)], tmp_path)

    assert done.error is None and done.answer == ANSWER
    fresh = [f"{FRESH_ID_PREFIX}1", f"{FRESH_ID_PREFIX}2"]
    assistant = next(m for m in done.requests[1]["messages"] if m["role"] == "assistant")
    assert [c["id"] for c in assistant["tool_calls"]] == fresh
    assert [m["tool_call_id"] for m in done.tool_messages(1)] == fresh
    (response,) = done.events("model_response")[:1]
    assert [c["id"] for c in response["tool_calls"]] == fresh
    assert response["repaired"] == [
        f"tool call 1 (describe_pod) came with an empty id: answered as {fresh[0]}",
        f"tool call 2 (get_pod_logs) came with an empty id: answered as {fresh[1]}",
    ]
    assert [e["request_id"] for e in done.events("tool_call")] == fresh


@pytest.mark.parametrize("streamed", [False, True])
def test_call_ids_an_endpoint_restarts_in_every_answer_are_answered_under_fresh_ids(
    impl: Impl, streamed: bool, tmp_path: Path
) -> None:
    # Bedrock's Responses endpoint numbers the calls of every answer from `call_0`.
    ext = "sse" if streamed else "json"
    answers = [recorded(f"bedrock/responses-1.{ext}"), recorded(f"bedrock/responses-2.{ext}"), text(ANSWER)]
    done = run(impl, answers, tmp_path, api="responses", stream=streamed)

    assert done.error is None and done.answer == ANSWER
    items = done.sent[2]["input"]
    calls = [item["call_id"] for item in items if item.get("type") == "function_call"]
    outputs = [item["call_id"] for item in items if item.get("type") == "function_call_output"]
    assert calls == outputs == ["call_0", f"{FRESH_ID_PREFIX}1", "call_1"]
    assert done.events("model_response")[1]["repaired"] == [
        f"tool call 1 (describe_pod) came with the id call_0, already used in the run: answered as "
        f"{FRESH_ID_PREFIX}1"
    ]
    assert [e["request_id"] for e in done.events("tool_call")] == calls


def test_arguments_sent_as_a_json_object_are_read_as_its_text(impl: Impl, tmp_path: Path) -> None:
    # A llama.cpp build that sent `function.arguments` as an object.
    done = run(impl, [recorded("llamacpp/chat-2.json"), text(ANSWER)], tmp_path)

    assert done.error is None
    assert done.calls_received() == [
        ("describe_pod", {"name": PAYMENT, "namespace": "production"}),
        ("get_pod_logs", {"name": PAYMENT, "namespace": "production", "tail": 20}),
    ]
    sent = next(m for m in done.requests[1]["messages"] if m["role"] == "assistant")["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in sent] == [c[1] for c in done.calls_received()]
    assert all(isinstance(c["function"]["arguments"], str) for c in sent)
    notes = done.events("model_response")[0]["repaired"]
    assert notes == [
        "tool call 1 (describe_pod) sent its arguments as a JSON object: read as its text",
        "tool call 2 (get_pod_logs) sent its arguments as a JSON object: read as its text",
    ]


def test_a_reply_cut_off_at_the_output_limit_after_its_calls_is_told_to_the_model(
    run_agent: RunAgent,
) -> None:
    cut = Reply(
        tool_calls=(tool("list_pods", namespace="production"), raw_tool("describe_pod", '{"name": "pay')),
        finish_reason="length",
    )
    done = run_agent([cut, text(ANSWER)], report_format="prose")

    assert done.answer == ANSWER
    first, last = done.tool_messages(1)
    assert not first["content"].endswith(prompts.CUT_OFF_NOTE)
    assert last["content"].startswith("Tool arguments are not valid JSON")  # C8 still answers the cut call
    assert last["content"].endswith(prompts.CUT_OFF_NOTE)
    assert done.called_tools == ["list_pods"]


# -- strict where it is broken ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("openrouter/error-in-200.json", "Provider returned error (code 502)"),
        ("openrouter/error-in-stream.sse", "Token limit reached (code 400)"),
    ],
    ids=["body", "stream"],
)
def test_a_200_that_carries_an_error_is_the_endpoints_error_with_its_message(
    impl: Impl, answer: str, message: str, tmp_path: Path
) -> None:
    done = run(impl, [recorded(answer)], tmp_path, max_retries=2)

    assert isinstance(done.error, ModelEndpointError) and not isinstance(done.error, MalformedResponseError)
    assert done.error.exit_code == 3
    assert "\n" not in str(done.error)
    assert str(done.error).endswith(f"answered with an error: {message}")
    assert len(done.sent) == 1  # a 200 is not retried
    (response,) = done.events("model_response")
    assert response["malformed"] == f"the endpoint answered with an error: {message}"
    assert done.trace[-1]["error_type"] == "ModelEndpointError"


@pytest.mark.parametrize("wire", ["chat", "responses"])
def test_a_stream_that_is_only_an_error_event_reports_the_providers_message(
    impl: Impl, wire: str, tmp_path: Path
) -> None:
    only_error = {
        "chat": 'data: {"error": {"message": "The model is overloaded", "code": 503}}\n\ndata: [DONE]\n\n',
        "responses": 'event: error\ndata: {"type": "error", "code": "server_error", "message": "The model is '
        'overloaded", "param": null, "sequence_number": 0}\n\n',
    }[wire]
    done = run(impl, [Recorded(only_error, "text/event-stream")], tmp_path, api=wire, stream=True)

    assert isinstance(done.error, ModelEndpointError) and done.error.exit_code == 3
    assert "The model is overloaded" in str(done.error)
    assert "no choices" not in str(done.error)


UNPARSABLE = [
    pytest.param("groq/tool-use-failed.json", 400, "Failed to call a function", id="groq-400"),
    pytest.param("groq/tool-use-failed.sse", 200, "Failed to call a function", id="groq-stream-error-event"),
    pytest.param("ollama/error-parsing-tool-call.json", 500, "error parsing tool call", id="ollama-500"),
    pytest.param(
        "llamacpp/failed-to-parse-input.json", 500, "Failed to parse input at pos 17", id="llamacpp-500"
    ),
]


@pytest.mark.parametrize(("answer", "status", "said"), UNPARSABLE)
def test_a_call_the_provider_could_not_parse_is_one_more_turn_telling_the_model(
    impl: Impl, answer: str, status: int, said: str, tmp_path: Path
) -> None:
    done = run(
        impl,
        [recorded(answer, status), call("list_pods", namespace="production"), text(ANSWER)],
        tmp_path,
        max_retries=2,
        stream=answer.endswith(".sse"),
    )

    assert done.error is None and done.answer == ANSWER
    assert len(done.sent) == 3  # not retried: the model is told instead
    second = done.requests[1]
    told = second["messages"][-1]
    assert told["role"] == "user" and said in told["content"]
    assert "list_pods" in told["content"]  # what the model wrote, as the provider quoted it
    assert second.get("tool_choice") in ("auto", None) and second["tools"]  # C1: forced once only
    assert done.called_tools == ["list_pods"]
    assert done.result is not None
    counts = done.result.stats.counts()
    assert counts.rejected["invalid_json"] == 1 and counts.model_requests == 3  # counted like C8
    (guardrail,) = [g for g in done.events("guardrail") if g["guardrail"] == "unparsable_call"]
    assert guardrail["message"] == told["content"]


def test_an_unparsable_call_spends_its_step_and_the_budget_ends_the_run_with_the_summary(
    impl: Impl, tmp_path: Path
) -> None:
    done = run(impl, [recorded("groq/tool-use-failed.json", 400), text(ANSWER)], tmp_path, max_steps=1)

    assert done.error is None and done.answer == ANSWER
    assert len(done.sent) == 2
    assert "tools" not in done.requests[1] or not done.requests[1]["tools"]  # the tool-less summary
    assert done.events("guardrail")[-1]["reason"] == "step_budget"


def test_an_error_that_is_not_about_a_call_still_ends_the_run(impl: Impl, tmp_path: Path) -> None:
    body = json.dumps(
        {"error": {"message": "Invalid model", "type": "invalid_request_error", "code": "model_not_found"}}
    )
    done = run(impl, [Recorded(body, status=400)], tmp_path)

    assert isinstance(done.error, ModelEndpointError) and done.error.exit_code == 3
    assert "answered HTTP 400: Invalid model" in str(done.error)
    assert not [g for g in done.events("guardrail") if g["guardrail"] == "unparsable_call"]
