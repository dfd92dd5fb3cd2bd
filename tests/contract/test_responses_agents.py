"""Our agents on the Responses wire: what only that wire has, observed on it.

The contract items themselves run on both wires (test_contract.py, through the `wire` fixture);
here: items only the Responses API carries (reasoning) go back as they came, `--api` is recorded,
and the report's schema goes out as `text.format`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from k8s_agent.scenarios import PAYMENT, SCENARIOS
from k8s_agent_harness.errors import ModelEndpointError
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import HttpError, Malformed, text
from tests.conftest import run_scenario

REASONING = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "List the pods first."}],
    "encrypted_content": "gAAAAB-opaque-state-of-the-model",
}
CALL = {
    "id": "fc_1",
    "type": "function_call",
    "status": "completed",
    "call_id": "call_r1",
    "name": "list_pods",
    "arguments": '{"namespace": "production"}',
}


def _response(*output: dict[str, Any]) -> Malformed:
    """A Response body sent as is (the scripted replies carry no reasoning)."""
    body = {"id": "resp_1", "object": "response", "status": "completed", "model": "m", "output": list(output)}
    return Malformed(json.dumps(body))


def test_a_reasoning_item_goes_back_as_it_came_before_its_call(impl: Impl, tmp_path: Path) -> None:
    run = run_scenario(
        impl,
        [_response(REASONING, CALL), text(f"{PAYMENT} is in CrashLoopBackOff.")],
        tmp_path,
        api="responses",
    )

    assert run.wires == ["responses", "responses"]
    second = run.sent[1]["input"]
    assert second[1:3] == [REASONING, CALL]  # after the question, in the order the model said them
    assert second[3]["type"] == "function_call_output" and second[3]["call_id"] == "call_r1"
    # The reasoning is carried, never read: on the Chat view of the same request it is not there.
    assert [m["role"] for m in run.requests[1]["messages"]] == ["system", "user", "assistant", "tool"]


def test_the_wire_is_recorded_and_the_report_schema_goes_out_as_text_format(
    impl: Impl, tmp_path: Path
) -> None:
    run = run_scenario(
        impl, SCENARIOS["offline-default"], tmp_path, api="responses", report_format="json_schema"
    )

    assert run.result is not None and run.result.report is not None

    assert run.trace[0]["api"] == "responses"
    requests = run.events("model_request")
    assert {request["api"] for request in requests} == {"responses"}
    assert requests[0]["instructions"] == run.sent[0]["instructions"]  # recorded once, when it is new
    assert all(request.get("instructions") is None for request in requests[1:])  # unchanged since
    for body in run.sent:
        assert "response_format" not in body and "messages" not in body
        assert body["text"]["format"]["type"] == "json_schema"
        assert body["text"]["format"]["name"] == "final_output"
    assert {request["response_format"] for request in requests} == {"json_schema:final_output"}


def test_an_endpoint_without_the_responses_api_is_one_line_naming_the_way_back(
    impl: Impl, tmp_path: Path
) -> None:
    run = run_scenario(impl, [HttpError(404, "Invalid URL (POST /v1/responses)")], tmp_path, api="responses")

    assert isinstance(run.error, ModelEndpointError)
    message = str(run.error)
    assert "answered HTTP 404" in message and "Invalid URL (POST /v1/responses)" in message
    assert "--api chat uses Chat Completions" in message and "\n" not in message
