"""A streamed answer read as the one response it amounts to.

With `--stream` the model endpoint answers in Server-Sent Events; the model client reads them as
they come (each piece of text is shown at once) and hands the agents the response the stream
amounts to, so both loops, the guardrails and the trace see one response whichever way it came:

- Chat Completions: `chat.completion.chunk` objects, merged into one `chat.completion`. Text and
  argument pieces are joined; a tool call is put together from the chunks of its `index`; a
  provider's own fields in a delta (`reasoning_content`, `reasoning`, `reasoning_details`,
  `extra_content`) are merged the same way (text joined, list items merged by their `index`,
  objects updated); the last `finish_reason` and `usage` win.
- Responses API: the `response.completed` (or `.incomplete`, `.failed`) event carries the whole
  Response; text deltas are shown as they come.

An error in a stream stays an error: an `error` event that names an HTTP status becomes a response
with that status (Groq's `tool_use_failed` arrives so), any other error event or an `error` object
in a chunk (OpenRouter's, after a 200) becomes a body with that `error`, which the model client
reports as the endpoint's error. Comment lines (`: OPENROUTER PROCESSING`) are ignored.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

TextSink = Callable[[str], None]
"""Called with each piece of the model's text as it arrives."""


@dataclass
class StreamEnd:
    """What a stream amounted to: a status and a JSON body."""

    status: int
    body: dict[str, Any]


@dataclass
class _Event:
    name: str = ""
    data: list[str] = field(default_factory=list)


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """(event name, data) for each Server-Sent Event in `lines`; comments are skipped."""
    event = _Event()
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if event.data:
                yield event.name, "\n".join(event.data)
            event = _Event()
        elif line.startswith(":"):
            continue
        else:
            key, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if key == "event":
                event.name = value
            elif key == "data":
                event.data.append(value)
    if event.data:
        yield event.name, "\n".join(event.data)


async def read_stream(lines: AsyncIterator[str], api: str, on_text: TextSink | None = None) -> StreamEnd:
    """Read a stream of `api` (`chat` or `responses`) to its end: the response it amounts to."""
    reader: _ChatStream | _ResponsesStream = _ChatStream() if api == "chat" else _ResponsesStream()
    async for name, data in sse_events(lines):
        if data.strip() == "[DONE]":
            break
        try:
            payload = json.loads(data)
        except ValueError:
            reader.broken = f"a stream event is not JSON: {data[:200]}"
            continue
        if not isinstance(payload, dict):
            continue
        ended = _error_event(name, payload)
        if ended is not None:
            return ended
        text = reader.add(payload)
        if text and on_text is not None:
            on_text(text)
    return reader.end()


def _error_event(name: str, payload: dict[str, Any]) -> StreamEnd | None:
    """An error event that names an HTTP status ends the stream as that status."""
    error = payload.get("error")
    if name != "error" or not isinstance(error, dict):
        return None
    status = error.get("status_code")
    if isinstance(status, int) and status >= 400:
        return StreamEnd(status, {"error": error})
    return None


TEXT_FIELDS = frozenset({"reasoning_content", "reasoning", "refusal"})
"""The text fields of a delta besides `content`, whose pieces are joined."""


class _ChatStream:
    """Chat Completions chunks merged into one completion."""

    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.choice: dict[str, Any] = {}
        self.message: dict[str, Any] = {}
        self.calls: dict[Any, dict[str, Any]] = {}
        self.usage: Any = None
        self.broken: str | None = None
        self.chunks = 0

    def add(self, chunk: dict[str, Any]) -> str:
        """Merge one chunk; the text it adds."""
        self.chunks += 1
        for key, value in chunk.items():
            if key == "usage" and value is not None:
                self.usage = value
            elif key not in ("choices", "object", "usage") and value is not None:
                self.top[key] = value
        text = ""
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            for key, value in choice.items():
                if key not in ("delta", "message", "index") and value is not None:
                    self.choice[key] = value
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, dict):
                text += self._delta(delta)
        return text

    def _delta(self, delta: dict[str, Any]) -> str:
        text = ""
        for key, value in delta.items():
            if value is None:
                continue
            if key == "tool_calls" and isinstance(value, list):
                for position, call in enumerate(value):
                    if isinstance(call, dict):
                        self._call(call, position)
            elif key == "content":
                text += value if isinstance(value, str) else _chunks_text(value)
                self.message["content"] = merged_content(self.message.get("content"), value)
            elif key == "role" and isinstance(value, str):
                self.message["role"] = value
            elif (isinstance(value, str) and key in TEXT_FIELDS) or isinstance(value, list | dict):
                self.message[key] = merged(self.message.get(key), value)
            # anything else labels the piece (Groq's `channel`, a token id), not the message
        return text

    def _call(self, delta: dict[str, Any], position: int) -> None:
        key = delta.get("index", delta.get("id") or position)
        call = self.calls.setdefault(key, {"type": "function", "function": {}})
        function = call["function"]
        for name, value in delta.items():
            if value is None or name == "index":
                continue
            if name == "function" and isinstance(value, dict):
                if value.get("name") and not function.get("name"):
                    function["name"] = value["name"]
                arguments = value.get("arguments")
                if isinstance(arguments, str):
                    before = function.get("arguments")
                    function["arguments"] = (before if isinstance(before, str) else "") + arguments
                elif arguments is not None:
                    function["arguments"] = arguments  # a JSON object: the repair makes it text
            elif name == "id":
                if not call.get("id"):  # the first id a call gets is its id
                    call["id"] = value
            elif name == "type":
                call["type"] = value
            else:
                call[name] = merged(call.get(name), value)

    def end(self) -> StreamEnd:
        if self.chunks == 0:
            return StreamEnd(200, {"error": {"message": self.broken or "the stream ended before any chunk"}})
        message: dict[str, Any] = {"role": "assistant", **self.message}
        message["role"] = message.get("role") or "assistant"
        if not message.get("content"):
            message["content"] = None  # as a response that was not streamed says nothing
        if self.calls:
            message["tool_calls"] = list(self.calls.values())
        body: dict[str, Any] = {
            **self.top,
            "object": "chat.completion",
            "choices": [{**self.choice, "index": 0, "message": message}],
        }
        if self.usage is not None:
            body["usage"] = self.usage
        elif isinstance(self.top.get("x_groq"), dict) and isinstance(self.top["x_groq"].get("usage"), dict):
            body["usage"] = self.top["x_groq"]["usage"]  # Groq streams its usage there
        return StreamEnd(200, body)


class _ResponsesStream:
    """Responses API events: the Response of the terminal event."""

    TERMINAL = ("response.completed", "response.incomplete", "response.failed")

    def __init__(self) -> None:
        self.response: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.broken: str | None = None

    def add(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if kind in self.TERMINAL and isinstance(event.get("response"), dict):
            self.response = event["response"]
        elif kind == "error":
            self.error = {
                key: value for key, value in event.items() if key not in ("type", "sequence_number")
            }
        elif kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
            return str(event["delta"])
        return ""

    def end(self) -> StreamEnd:
        if self.error is not None:
            return StreamEnd(200, {"error": self.error})
        if self.response is None:
            reason = self.broken or "the stream ended without response.completed"
            return StreamEnd(200, {"error": {"message": reason}})
        return StreamEnd(200, self.response)


def merged_content(before: Any, piece: Any) -> Any:
    """A message's content with one more piece: text joined; content chunks (Mistral's thinking
    and text chunks) merged into the last chunk of the same type."""
    if isinstance(piece, str) and not isinstance(before, list):
        return (before if isinstance(before, str) else "") + piece
    chunks = [dict(chunk) for chunk in _as_chunks(before)]
    for chunk in _as_chunks(piece):
        last = chunks[-1] if chunks else None
        if last is not None and last.get("type") == chunk.get("type") == "text":
            last["text"] = str(last.get("text") or "") + str(chunk.get("text") or "")
        elif last is not None and last.get("type") == chunk.get("type") == "thinking":
            last["thinking"] = merged_content(last.get("thinking"), chunk.get("thinking"))
        else:
            chunks.append(dict(chunk))
    return chunks


def _as_chunks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return [chunk for chunk in content if isinstance(chunk, dict)]
    return []


def _chunks_text(content: Any) -> str:
    return "".join(
        str(chunk.get("text") or "") for chunk in _as_chunks(content) if chunk.get("type") == "text"
    )


def merged(before: Any, piece: Any) -> Any:
    """A provider's field with one more piece of a stream: text joined, list items merged by their
    `index` (a new index is appended), objects updated, anything else replaced."""
    if isinstance(before, str) and isinstance(piece, str):
        return before + piece
    if isinstance(before, list) and isinstance(piece, list):
        result = list(before)
        for item in piece:
            at = _same_index(result, item)
            if at is None:
                result.append(item)
            else:
                result[at] = _merged_item(result[at], item)
        return result
    if isinstance(before, dict) and isinstance(piece, dict):
        return {**before, **{key: value for key, value in piece.items() if value is not None}}
    return piece


def _same_index(items: list[Any], item: Any) -> int | None:
    if not isinstance(item, dict) or "index" not in item:
        return None
    for at, seen in enumerate(items):
        if (
            isinstance(seen, dict)
            and seen.get("index") == item["index"]
            and seen.get("type") == item.get("type")
        ):
            return at
    return None


def _merged_item(before: dict[str, Any], piece: dict[str, Any]) -> dict[str, Any]:
    result = dict(before)
    for key, value in piece.items():
        if value is None:
            continue
        if key in ("index", "type", "format", "id"):
            result[key] = value
        else:
            result[key] = merged(result.get(key), value)
    return result
