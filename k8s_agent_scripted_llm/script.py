"""Script steps for the scripted model server, and small builders that keep test scripts short.

text("All pods are healthy.")                      a final answer
call("list_pods", namespace="production")          one tool call
calls(tool("describe_pod", ...), tool(...))        parallel tool calls in one turn
raw_call("get_pod_logs", "{not-json")              arguments exactly as given
error(429, retry_after=1)                          an HTTP error
delay(2.0, text("late"))                           answer after a pause (or never: hang())
malformed('{"choices": []}')                       a body that is not a usable completion
Recorded(body, "text/event-stream")                 a provider's answer in its own shape, as is
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One tool call the scripted model makes; `arguments` is sent verbatim."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A chat completion: text, tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: dict[str, int] | None = None


@dataclass(frozen=True)
class HttpError:
    """An HTTP error response (the `openai` client retries 408/409/429/5xx)."""

    status: int
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Malformed:
    """A response body sent as is."""

    body: str
    status: int = 200


@dataclass(frozen=True)
class Recorded:
    """An answer in a provider's own shape, sent as it is: a JSON body, or an event stream
    (`content_type` `text/event-stream`)."""

    body: str
    content_type: str = "application/json"
    status: int = 200


@dataclass(frozen=True)
class Delay:
    """Wait, then answer with `then` (if the client is still there)."""

    seconds: float
    then: Step


Step = Reply | HttpError | Malformed | Recorded | Delay


def tool(name: str, /, _id: str | None = None, **arguments: Any) -> ToolCall:
    """A tool call with JSON-encoded keyword arguments."""
    return ToolCall(name, json.dumps(arguments), _id)


def raw_tool(name: str, arguments: str, _id: str | None = None) -> ToolCall:
    """A tool call whose argument string is sent exactly as given (e.g. invalid JSON)."""
    return ToolCall(name, arguments, _id)


def call(name: str, /, _id: str | None = None, **arguments: Any) -> Reply:
    """A turn with one tool call."""
    return Reply(tool_calls=(tool(name, _id, **arguments),))


def raw_call(name: str, arguments: str, _id: str | None = None) -> Reply:
    """A turn with one tool call whose arguments are sent verbatim."""
    return Reply(tool_calls=(raw_tool(name, arguments, _id),))


def calls(*tool_calls: ToolCall, content: str | None = None) -> Reply:
    """A turn with several (parallel) tool calls."""
    return Reply(content=content, tool_calls=tuple(tool_calls))


def text(content: str) -> Reply:
    """A turn that answers in text."""
    return Reply(content=content)


def error(status: int, message: str = "scripted error", retry_after: float | None = None) -> HttpError:
    """An HTTP error, optionally with a Retry-After header."""
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return HttpError(status, message, headers)


def delay(seconds: float, then: Step) -> Delay:
    """Answer with `then` after `seconds`."""
    return Delay(seconds, then)


def hang(seconds: float = 3600.0) -> Delay:
    """Never answer within any sane client timeout."""
    return Delay(seconds, text("(too late)"))


def malformed(body: str, status: int = 200) -> Malformed:
    """A body that is not a usable chat completion."""
    return Malformed(body, status)


# -- reading a Chat Completions request (the offline model's playbooks) ---------------------------


def requested_call(tool_call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The name and arguments of a tool call in a request's messages (arguments {} when they are
    not a JSON object)."""
    function = tool_call.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except ValueError:
        arguments = {}
    return str(function.get("name", "")), arguments if isinstance(arguments, dict) else {}


def message_text(content: Any) -> str:
    """A message's content as text (content parts joined)."""
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")
