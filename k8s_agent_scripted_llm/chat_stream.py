"""A chat completion written as the Server-Sent Events that stream it, as OpenAI sends them.

One `chat.completion.chunk` with the role, the text in 1 KB deltas, each tool call as a chunk with
its id, type and name and then its argument string in 1 KB pieces (each delta carries the call's
`index`), a chunk with the finish reason, the usage in a last chunk with no choices when the request
asked for it (`stream_options.include_usage`), and `data: [DONE]`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_CHUNK = 1024
"""Characters per delta of a streamed text or argument string."""


def chat_stream(completion: dict[str, Any], include_usage: bool) -> bytes:
    """The event stream of `completion` (a `chat.completion` body)."""
    events = [*_chunks(completion, include_usage), "[DONE]"]
    return b"".join(
        f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n".encode() for event in events
    )


def _chunks(completion: dict[str, Any], include_usage: bool) -> Iterator[dict[str, Any]]:
    head: dict[str, Any] = {key: completion[key] for key in ("id", "created", "model") if key in completion}
    head["object"] = "chat.completion.chunk"
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(message.get("content") or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        opening = {"index": index, "id": call["id"], "type": "function"}
        yield chunk({"tool_calls": [{**opening, "function": {"name": function["name"], "arguments": ""}}]})
        for piece in _pieces(function["arguments"]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice.get("finish_reason"))
    if include_usage:
        yield {**head, "choices": [], "usage": completion.get("usage")}


def _pieces(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK):
        yield text[start : start + _CHUNK]
