"""Driven by the same scripted model, both implementations put the same things on the wire.

For every scenario of the library the two runs are reduced to what the model sees, request by
request, and compared whole: tools offered or not, whether a tool is forced, and every message
added (user text, assistant text and tool calls, tool results in order). The one accepted
difference is C1's, normalised in `wire_view`: after the first request the hand-written loop sends
tool_choice "auto" and the SDK omits the field; both leave the choice to the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import SCENARIOS, Scenario
from tests.conftest import run_scenario


def wire_view(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the model saw, request by request, in a form both implementations must match."""
    views = []
    seen = 0
    for body in requests:
        messages = body["messages"]
        added = messages[seen:]
        seen = len(messages)
        views.append(
            {
                "tools": [t["function"]["name"] for t in body.get("tools") or []]
                if "tools" in body
                else None,
                # The accepted C1 difference: "auto" (hand-written) and absent (SDK) both mean not forced.
                "tool_choice": "not forced"
                if body.get("tool_choice") in ("auto", None)
                else body["tool_choice"],
                "messages": [_message(m) for m in added],
            }
        )
    return views


def _message(message: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {"role": message["role"], "content": _text(message.get("content"))}
    if message.get("tool_calls"):
        view["tool_calls"] = [
            (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]
        ]
    if message["role"] == "tool":
        view["tool_call_id"] = message["tool_call_id"]
    return view


def _text(content: Any) -> str | None:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or None  # an empty assistant text and a missing one say the same


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_both_implementations_send_the_same_wire(scenario: Scenario, tmp_path: Path) -> None:
    handwritten = run_scenario("handwritten", scenario, tmp_path / "handwritten")
    sdk = run_scenario("sdk", scenario, tmp_path / "sdk")

    assert wire_view(sdk.requests) == wire_view(handwritten.requests)
    assert sdk.calls_received() == handwritten.calls_received()
    assert sdk.answer == handwritten.answer
    assert sdk.result is not None and handwritten.result is not None
    # Bytes and prompt tokens are costs, compared by `k8s-agent compare`; the SDK serialises differently.
    costs = ("bytes_sent", "prompt_tokens")
    counts = {k: v for k, v in sdk.result.stats.as_dict().items() if k not in costs}
    assert counts == {k: v for k, v in handwritten.result.stats.as_dict().items() if k not in costs}
