"""Driven by the same scripted model, both implementations put the same things on the wire, on
either wire.

For every scenario of the library, on Chat Completions and on the Responses API, the two runs are
reduced to what the model sees, request by request, and compared whole: tools offered or not,
whether a tool is forced, and every message added (user text, assistant text and tool calls, tool
results in order). The one accepted difference is C1's, normalised in `wire_view`: after the first
request the hand-written loop sends tool_choice "auto" and the SDK omits the field; both leave the
choice to the model. On the Responses wire the request bodies are also compared as sent: the
instructions, every input item, the tools and `text.format` are the same JSON; besides C1's, the
accepted differences are two ways of saying nothing (the SDK's `include: []`, and `tools: []`
where the hand-written loop sends no tools).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_agent.scenarios import SCENARIOS, Scenario
from k8s_agent_harness.config import APIS
from tests.conftest import run_scenario
from tests.wire import said, wire_view


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_both_implementations_send_the_same_wire(scenario: Scenario, api: str, tmp_path: Path) -> None:
    handwritten = run_scenario("handwritten", scenario, tmp_path / "handwritten", api=api)
    sdk = run_scenario("sdk", scenario, tmp_path / "sdk", api=api)

    assert wire_view(sdk.requests) == wire_view(handwritten.requests)
    if api == "responses":
        assert [said(body) for body in sdk.sent] == [said(body) for body in handwritten.sent]
    assert sdk.calls_received() == handwritten.calls_received()
    assert sdk.answer == handwritten.answer
    assert sdk.result is not None and handwritten.result is not None
    # Bytes and prompt tokens are costs, compared by `k8s-agent compare`; the SDK serialises differently.
    costs = ("bytes_sent", "prompt_tokens", "largest_request")
    counts = {k: v for k, v in sdk.result.stats.as_dict().items() if k not in costs}
    assert counts == {k: v for k, v in handwritten.result.stats.as_dict().items() if k not in costs}
