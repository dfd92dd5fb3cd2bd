"""The Responses API wire of the scripted model: its request read as a Chat Completions request,
and a reply written as a Response (one JSON body, or its Server-Sent Events).

The playbooks read Chat Completions bodies; `chat_request` is the one adapter that lets them read a
Responses body too (a Chat body passes through unchanged). The server writes each `Reply` on the
wire it was asked on: text as a `message` output item with `output_text` content, each tool call
as a `function_call` item (`call_id` is the call id the next request pairs its output with).

The server keeps every Response it writes (`Kept`: the input it answered, a continued chain
expanded, and its output items), so a request may continue one by `previous_response_id`, as on
OpenAI's API: `continued` is the conversation such a request amounts to. The Conversations API
(`conversation`) is not implemented: `refusal` says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from k8s_agent_scripted_llm.script import message_text

_CHUNK = 1024
"""Characters per delta event of a streamed text or argument string."""


def is_responses_request(body: dict[str, Any]) -> bool:
    """Whether a request body is a Responses request (`input`, no `messages`)."""
    return "input" in body and "messages" not in body


def chat_request(body: dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions request a Responses request body amounts to (a Chat body as is).

    `instructions` becomes the system message; message items keep their role (`developer` reads as
    `system`) and their text; `function_call` items become the `tool_calls` of one assistant
    message per turn, keyed by `call_id`; `function_call_output` items become `tool` messages;
    reasoning and any other items are left out. Function tools, `tool_choice` and `text.format`
    become their Chat forms.
    """
    if not is_responses_request(body):
        return body
    messages: list[dict[str, Any]] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        messages.append({"role": "system", "content": instructions})
    elif isinstance(instructions, list):
        _append_items(messages, instructions)
    items = body.get("input")
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
    elif isinstance(items, list):
        _append_items(messages, items)
    chat: dict[str, Any] = {"model": body.get("model"), "messages": messages}
    tools = [_chat_tool(tool) for tool in body.get("tools") or [] if tool.get("type") == "function"]
    if tools:
        chat["tools"] = tools
    if "tool_choice" in body:
        chat["tool_choice"] = _chat_tool_choice(body["tool_choice"])
    report_format = _chat_response_format((body.get("text") or {}).get("format"))
    if report_format is not None:
        chat["response_format"] = report_format
    for key in ("temperature", "top_p", "parallel_tool_calls"):
        if key in body:
            chat[key] = body[key]
    return chat


def _append_items(messages: list[dict[str, Any]], items: list[Any]) -> None:
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            role = "system" if item.get("role") == "developer" else str(item.get("role"))
            text = message_text(item.get("content"))
            last = messages[-1] if messages else None
            if (
                role == "assistant"
                and last is not None
                and last.get("tool_calls")
                and not last.get("content")
            ):
                last["content"] = text  # text after the calls of the same turn: still that turn
            else:
                messages.append({"role": role, "content": text})
        elif kind == "function_call":
            call = {
                "id": str(item.get("call_id")),
                "type": "function",
                "function": {"name": str(item.get("name", "")), "arguments": str(item.get("arguments", ""))},
            }
            last = messages[-1] if messages else None
            if last is not None and last.get("role") == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": str(item.get("call_id")),
                    "content": output if isinstance(output, str) else message_text(output),
                }
            )
        # reasoning items (and any other kind) are opaque to the playbooks


def _chat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = {key: tool[key] for key in ("name", "description", "parameters", "strict") if key in tool}
    return {"type": "function", "function": function}


def _chat_tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict) and choice.get("type") == "function":
        return {"type": "function", "function": {"name": choice.get("name")}}
    return choice


def _chat_response_format(report_format: Any) -> dict[str, Any] | None:
    if not isinstance(report_format, dict):
        return None
    if report_format.get("type") == "json_schema":
        schema = {key: value for key, value in report_format.items() if key != "type"}
        return {"type": "json_schema", "json_schema": schema}
    if report_format.get("type") == "json_object":
        return {"type": "json_object"}
    return None


def refusal(body: dict[str, Any]) -> str | None:
    """Why the server cannot answer this Responses request, or None: a request in a stored
    conversation (the Conversations API) is refused; one that continues a response
    (`previous_response_id`) is answered (`continued`)."""
    if not body.get("conversation"):
        return None
    return (
        "the scripted model server does not implement the Conversations API: continue a response "
        "with previous_response_id, or send the whole input, instead of conversation"
    )


@dataclass(frozen=True)
class Kept:
    """A Response the server keeps, by its id: the input it answered (the whole conversation, a
    continued chain expanded) and its output items. One sent with `store: false` is not kept:
    only its id is, so that a request continuing it is told why it is refused."""

    input: list[Any]
    output: list[Any]
    stored: bool = True


def input_items(body: dict[str, Any]) -> list[Any]:
    """A Responses request's `input` as a list of items (a string is one user message)."""
    items = body.get("input")
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    return list(items) if isinstance(items, list) else []


def continued(body: dict[str, Any], previous: Kept) -> dict[str, Any]:
    """The conversation a request that continues `previous` (its `previous_response_id`) amounts to:
    the body with `input` expanded to the previous response's input, its output items, then the
    request's own input, and `previous_response_id` removed. Everything else is the request's own:
    as OpenAI documents, the previous `instructions` are not carried over (nor `tools`,
    `tool_choice` or `text`)."""
    conversation = {key: value for key, value in body.items() if key != "previous_response_id"}
    conversation["input"] = [*previous.input, *previous.output, *input_items(body)]
    return conversation


def not_found(response_id: str) -> dict[str, Any]:
    """The 400 OpenAI answers a `previous_response_id` it does not have (never stored, sent with
    `store: false`, or unknown) with."""
    return {
        "error": {
            "message": f"Previous response with id '{response_id}' not found.",
            "type": "invalid_request_error",
            "param": "previous_response_id",
            "code": "previous_response_not_found",
        }
    }


def response(
    message: dict[str, Any],
    body: dict[str, Any],
    *,
    number: int,
    model: str,
    finish_reason: str,
    usage: dict[str, int],
) -> dict[str, Any]:
    """The Response of one reply (`message`: the reply as a Chat assistant message, call ids set)."""
    output: list[dict[str, Any]] = []
    if message.get("content") is not None:
        output.append(
            {
                "id": f"msg_scripted_{number}",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": message["content"], "annotations": [], "logprobs": []}
                ],
            }
        )
    for index, call in enumerate(message.get("tool_calls") or []):
        output.append(
            {
                "id": f"fc_scripted_{number}_{index}",
                "type": "function_call",
                "status": "completed",
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            }
        )
    incomplete = {"length": "max_output_tokens", "content_filter": "content_filter"}.get(finish_reason)
    input_tokens = usage.get("input_tokens", usage.get("prompt_tokens", 0))
    output_tokens = usage.get("output_tokens", usage.get("completion_tokens", 0))
    return {
        "id": f"resp_scripted_{number}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "instructions": body.get("instructions"),
        "metadata": body.get("metadata") or {},
        "model": str(body.get("model") or model),
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "store": body.get("store", True),
        "temperature": body.get("temperature"),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "top_p": body.get("top_p"),
        "text": body.get("text") or {"format": {"type": "text"}},
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def stream(finished: dict[str, Any]) -> bytes:
    """The Server-Sent Events that stream `finished`, the whole Response, as OpenAI sends them."""
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
        for event in _numbered(_events(finished))
    )


def _numbered(events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for number, event in enumerate(events):
        yield {**event, "sequence_number": number}


def _events(finished: dict[str, Any]) -> Iterator[dict[str, Any]]:
    started = {**finished, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
    yield {"type": "response.created", "response": started}
    yield {"type": "response.in_progress", "response": started}
    for index, item in enumerate(finished["output"]):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            yield {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**item, "status": "in_progress", "content": []},
            }
            part = item["content"][0]
            yield {
                "type": "response.content_part.added",
                **where,
                "content_index": 0,
                "part": {**part, "text": ""},
            }
            for delta in _chunks(part["text"]):
                yield {
                    "type": "response.output_text.delta",
                    **where,
                    "content_index": 0,
                    "delta": delta,
                    "logprobs": [],
                }
            yield {
                "type": "response.output_text.done",
                **where,
                "content_index": 0,
                "text": part["text"],
                "logprobs": [],
            }
            yield {"type": "response.content_part.done", **where, "content_index": 0, "part": part}
        else:
            yield {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**item, "status": "in_progress", "arguments": ""},
            }
            for delta in _chunks(item["arguments"]):
                yield {"type": "response.function_call_arguments.delta", **where, "delta": delta}
            yield {"type": "response.function_call_arguments.done", **where, "arguments": item["arguments"]}
        yield {"type": "response.output_item.done", "output_index": index, "item": item}
    ending = "response.incomplete" if finished["status"] == "incomplete" else "response.completed"
    yield {"type": ending, "response": finished}


def _chunks(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK):
        yield text[start : start + _CHUNK]
