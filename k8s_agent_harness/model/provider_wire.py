"""What model providers send that differs, read once, where the model client receives it.

Tolerant where the wire is ambiguous, strict where it is broken (docs/providers.md):

- `repair`: a tool call with an empty or missing id, or with an id the run has already used, gets
  a fresh one, unique in the run (`k8s-agent-call-N`: Gemini's OpenAI-compatible endpoint sends
  `"id": ""`, Bedrock's Responses endpoint numbers calls from `call_0` in every response), and is
  answered under it; arguments sent as a JSON object instead of a string are read as that
  object's JSON text. Each repair is noted (the trace's `model_response.repaired`).
- `client_view`: content sent as a list of chunks (Mistral's thinking and text chunks) is given to
  the `openai` client and the SDK as its text (the turn keeps the chunks to send them back:
  conversation.turn_from_chat); an incomplete Response is read as the turn it holds, as a Chat
  reply cut at the output limit is (the model is told when calls were cut: prompts.CUT_OFF_NOTE).
- `error_in`: a 200 body that carries an `error` object (OpenRouter's, also as the last event of a
  stream) is the endpoint's error, with the provider's own message.
- `unparsable_call`: the provider says the model produced a tool call it could not parse (Groq's
  400 `tool_use_failed`, Ollama's 500 `error parsing tool call`, llama.cpp's 500 `Failed to parse
  input at pos`): the loops tell the model and go on (counted like a call whose arguments are
  not JSON, C8).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from k8s_agent_harness.model.conversation import content_text

FRESH_ID_PREFIX = "k8s-agent-call-"
MAX_GENERATION = 2_000
"""Characters of an unparsable generation quoted back to the model."""


def repair(body: Any, api: str, fresh_id: Callable[[], str], used: Collection[str] = ()) -> list[str]:
    """Repair a usable 200 body of `api` in place; what was repaired, one line each. `used`: the
    call ids of the run's earlier answers."""
    notes: list[str] = []
    if not isinstance(body, dict):
        return notes
    taken = set(used)
    if api == "chat":
        for choice in body.get("choices") or []:
            message = choice.get("message") if isinstance(choice, dict) else None
            calls = message.get("tool_calls") if isinstance(message, dict) else None
            for position, call in enumerate(calls if isinstance(calls, list) else []):
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    notes += _repaired_call(call, call["function"], "id", position, fresh_id, taken)
    else:
        calls = [item for item in body.get("output") or [] if isinstance(item, dict)]
        for position, item in enumerate(item for item in calls if item.get("type") == "function_call"):
            notes += _repaired_call(item, item, "call_id", position, fresh_id, taken)
    return notes


def _repaired_call(
    call: dict[str, Any],
    function: dict[str, Any],
    id_key: str,
    position: int,
    fresh_id: Callable[[], str],
    taken: set[str],
) -> list[str]:
    notes = []
    name = function.get("name") or "?"
    given = call.get(id_key)
    if not isinstance(given, str) or not given or given in taken:
        if isinstance(given, str) and given:
            said = f"the id {given}, already used in the run"
        else:
            said = "an empty id" if given == "" else f"no {id_key}"
        call[id_key] = fresh_id()
        while call[id_key] in taken:
            call[id_key] = fresh_id()
        notes.append(f"tool call {position + 1} ({name}) came with {said}: answered as {call[id_key]}")
    taken.add(call[id_key])
    arguments = function.get("arguments")
    if isinstance(arguments, dict | list):
        function["arguments"] = json.dumps(arguments, ensure_ascii=False)
        notes.append(
            f"tool call {position + 1} ({name}) sent its arguments as a JSON object: read as its text"
        )
    return notes


def client_view(body: Any) -> Any:
    """The body as the `openai` client and the SDK read it: Chat content chunks as their text, a
    tool call without a `type` (Mistral's) as the function call it is, and an incomplete Response
    (cut at the output limit) as the turn it holds, as Chat's `finish_reason: length` is read (the
    trace keeps its status; the Agents SDK would end the run on it)."""
    if not isinstance(body, dict):
        return body
    if body.get("object") == "response" and body.get("status") == "incomplete":
        return {**body, "status": "completed"}
    choices = body.get("choices")
    if not isinstance(choices, list) or not any(_needs_view(choice) for choice in choices):
        return body
    return {**body, "choices": [_viewed(choice) if _needs_view(choice) else choice for choice in choices]}


def _needs_view(choice: Any) -> bool:
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        return False
    calls = message.get("tool_calls")
    untyped = isinstance(calls, list) and any(isinstance(call, dict) and "type" not in call for call in calls)
    return untyped or isinstance(message.get("content"), list)


def _viewed(choice: dict[str, Any]) -> dict[str, Any]:
    message = dict(choice["message"])
    if isinstance(message.get("content"), list):
        message["content"] = content_text(message["content"])
    if isinstance(message.get("tool_calls"), list):
        message["tool_calls"] = [
            {"type": "function", **call} if isinstance(call, dict) else call for call in message["tool_calls"]
        ]
    return {**choice, "message": message}


def error_in(body: Any) -> str | None:
    """The provider's message when a 200 body is an error: a top-level `error` object (or text),
    or a first choice that ended with `finish_reason: "error"`; None otherwise."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if not error:
        choices = body.get("choices")
        first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        if first.get("error") or first.get("finish_reason") == "error":
            error = first.get("error") or "the response ended with finish_reason error"
    if not error:
        return None
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error, ensure_ascii=False)[:300])
        code = error.get("code")
        return f"{message} (code {code})" if code not in (None, "") and str(code) not in message else message
    return str(error)[:500]


@dataclass(frozen=True)
class UnparsableCall:
    """The provider could not parse a tool call the model produced."""

    message: str
    """The provider's message."""
    generation: str
    """What the model wrote, when the provider says ("" otherwise)."""


UNPARSABLE_CODES = frozenset({"tool_use_failed"})
"""Error codes that say the model's tool call could not be parsed (Groq)."""
UNPARSABLE_MESSAGES = ("error parsing tool call", "failed to parse input at pos")
"""Error messages that say so (Ollama; llama.cpp's server), matched at their start."""
_OLLAMA_RAW = re.compile(r"raw='(?P<raw>.*)', err=", re.DOTALL)


def unparsable_call(status: int, body: Any) -> UnparsableCall | None:
    """The provider's report that the model produced a tool call it could not parse, from an error
    response (status 400 or 5xx); None for any other error."""
    if status < 400 or not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, str):
        details: dict[str, Any] = {"message": error}
    elif isinstance(error, dict):
        details = error
    else:
        return None
    message = str(details.get("message") or "")
    code = details.get("code")
    if code not in UNPARSABLE_CODES and not message.lower().startswith(UNPARSABLE_MESSAGES):
        return None
    generation = details.get("failed_generation")
    if not isinstance(generation, str):
        found = _OLLAMA_RAW.search(message)
        generation = found["raw"] if found else ""
    return UnparsableCall(message[:MAX_GENERATION], generation[:MAX_GENERATION])


def content_filtered(body: Any, api: str) -> str | None:
    """What a provider's content filter stopped, when it stopped the answer (Azure OpenAI's
    `finish_reason: "content_filter"`, a Response left incomplete for `content_filter`); None
    otherwise. Names the categories the filter flagged, with their severity, when the body says."""
    if not isinstance(body, dict):
        return None
    if api == "chat":
        choices = body.get("choices")
        first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        if first.get("finish_reason") != "content_filter":
            return None
        results = first.get("content_filter_results")
    else:
        details = body.get("incomplete_details")
        if not isinstance(details, dict) or details.get("reason") != "content_filter":
            return None
        results = body.get("content_filter_results") or body.get("content_filters")
    flagged = _flagged(results)
    return f"flagged: {', '.join(flagged)}" if flagged else "no category named"


def _flagged(results: Any) -> list[str]:
    """The categories of Azure's filter results marked `filtered`, each with its severity (the
    results of a choice, of a Response's `content_filters` list, or of a refused prompt)."""
    if isinstance(results, list):
        return [name for result in results for name in _flagged(result)]
    if not isinstance(results, dict):
        return []
    for key in ("content_filter_results", "content_filter_result"):
        if isinstance(results.get(key), dict):
            return _flagged(results[key])
    flagged = []
    for category, verdict in results.items():
        if isinstance(verdict, dict) and verdict.get("filtered") is True:
            severity = verdict.get("severity")
            flagged.append(f"{category} ({severity})" if isinstance(severity, str) else category)
    return flagged


def prompt_filtered(body: Any) -> str | None:
    """What a provider's content filter flagged when it refused the request itself (Azure
    OpenAI's 400 with `code: "content_filter"`); None for any other error."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict) or error.get("code") != "content_filter":
        return None
    inner = error.get("innererror")
    flagged = _flagged(inner.get("content_filter_result") if isinstance(inner, dict) else None)
    return f"flagged: {', '.join(flagged)}" if flagged else "no category named"


def unoffered_call(body: Any, api: str) -> str | None:
    """A call in the answer of a kind of tool the agent never offers (it offers function tools
    only), which the provider expects the client to run or answer: a Responses output item that
    asks for an answer (`shell_call`, `apply_patch_call`, `computer_call`, `custom_tool_call`, a
    client-executed `tool_search_call`, an `mcp_approval_request`, ...: an item with a `call_id`
    no item of the same answer answers), a function call made by a program (`caller`), a Chat
    tool call of another type than `function` (`custom`). None when there is none. Items the
    provider ran itself (a `web_search_call`, a server-executed `tool_search_call` and its output)
    ask nothing and go back as they came."""
    if not isinstance(body, dict):
        return None
    if api == "chat":
        choices = body.get("choices")
        first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        message = first.get("message")
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            kind = call.get("type") if isinstance(call, dict) else None
            if kind not in (None, "function"):
                return f"a tool call of type `{kind}` ({call.get('id') or 'no id'})"
        return None
    items = [item for item in body.get("output") or [] if isinstance(item, dict)]
    answered = {item.get("call_id") for item in items if str(item.get("type") or "").endswith("_output")}
    for item in items:
        kind = str(item.get("type") or "")
        caller = item.get("caller")
        if kind == "function_call":
            if isinstance(caller, dict) and caller.get("type") not in (None, "direct"):
                return (
                    f"a function call made by a {caller.get('type')} ({item.get('call_id') or 'no call_id'})"
                )
            continue
        if kind.endswith("_output") or item.get("execution") == "server":
            continue
        asks = kind.endswith("_request") or item.get("execution") == "client"
        call_id = item.get("call_id")
        if asks or (isinstance(call_id, str) and call_id and call_id not in answered):
            return f"an item `{kind}` ({call_id or item.get('id') or 'no id'})"
    return None
