"""Driven by the same scripted model, both implementations put the same things on the wire, on
either wire, whole or streamed.

For every scenario of the library, on Chat Completions and on the Responses API, the two runs are
reduced to what the model sees, request by request, and compared whole: tools offered or not,
whether a tool is forced, and every message added (user text, assistant text and tool calls, tool
results in order). The request bodies are also compared as sent: the messages (or the instructions
and every input item), the tools and the report's format are the same JSON. The accepted
differences, normalised in tests/wire.py: C1's (after the first request the hand-written loop sends
tool_choice "auto" and the SDK omits the field; both leave the choice to the model) and, on the
Responses wire, two ways of saying nothing (the SDK's `include: []`, and `tools: []` where the
hand-written loop sends no tools).

Each scenario runs again with `--stream`: the scripted model streams every answer, and both agents
send the same requests as without it (but for `stream: true`) and record each answer as the
response it amounts to (its text, its calls and its finish reason in the trace).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import SCENARIOS, Scenario
from k8s_agent_harness.config import APIS
from tests.conftest import AgentRun, run_scenario
from tests.wire import said, wire_view


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_both_implementations_send_the_same_wire(scenario: Scenario, api: str, tmp_path: Path) -> None:
    handwritten = run_scenario("handwritten", scenario, tmp_path / "handwritten", api=api)
    sdk = run_scenario("sdk", scenario, tmp_path / "sdk", api=api)

    assert wire_view(sdk.requests) == wire_view(handwritten.requests)
    assert [said(body) for body in sdk.sent] == [said(body) for body in handwritten.sent]
    assert sdk.calls_received() == handwritten.calls_received()
    assert sdk.answer == handwritten.answer
    assert sdk.result is not None and handwritten.result is not None
    # Bytes and prompt tokens are costs, compared by `k8s-agent compare`; the SDK serialises differently.
    costs = ("bytes_sent", "prompt_tokens", "largest_request")
    counts = {k: v for k, v in sdk.result.stats.as_dict().items() if k not in costs}
    assert counts == {k: v for k, v in handwritten.result.stats.as_dict().items() if k not in costs}

    for impl, whole in (("handwritten", handwritten), ("sdk", sdk)):
        streamed = run_scenario(impl, scenario, tmp_path / f"{impl}-streamed", api=api, stream=True)
        assert all(body["stream"] is True for body in streamed.sent)
        assert [said(unstreamed(body)) for body in streamed.sent] == [said(body) for body in whole.sent]
        assert streamed.calls_received() == whole.calls_received()
        assert streamed.answer == whole.answer
        assert said_by_the_model(streamed) == said_by_the_model(whole)


def unstreamed(body: dict[str, Any]) -> dict[str, Any]:
    """A request body without its `stream: true`."""
    return {key: value for key, value in body.items() if key != "stream"}


def said_by_the_model(run: AgentRun) -> list[tuple[Any, ...]]:
    """Each answer as the trace records it: its text, its calls and its finish reason (the usage of a
    stream comes only when the endpoint is asked for it)."""
    return [
        (event["text"], event["tool_calls"], event["finish_reason"], event["malformed"])
        for event in run.events("model_response")
    ]
