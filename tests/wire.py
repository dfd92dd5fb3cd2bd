"""What the model saw, request by request: the form in which both implementations must match."""

from __future__ import annotations

from typing import Any


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


def said(body: dict[str, Any]) -> dict[str, Any]:
    """A request body as sent (either wire), its ways of saying nothing made one: C1's `auto` against
    an absent choice, and on the Responses wire the SDK's `include: []` and `tools: []` where the
    hand-written loop sends no tools."""
    said = {key: value for key, value in body.items() if key != "include" or value}
    if said.get("tool_choice") == "auto":
        del said["tool_choice"]
    if said.get("tools") == []:
        del said["tools"]
    return said


class RateLimitedFirst:
    """A model endpoint's responder that answers its first `times` requests 429 (Retry-After 1 s),
    then plays the offline model; `seen` counts the requests."""

    def __init__(self, times: int = 2) -> None:
        self.times = times
        self.seen = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        from k8s_agent_scripted_llm import HttpError, offline_model

        self.seen += 1
        if self.seen <= self.times:
            return HttpError(429, "slow down", {"Retry-After": "1"})
        return offline_model(body)
