"""The model endpoint client both agents use, and the wire recorder that traces every request.

Requests are recorded at the HTTP boundary (event hooks of the `openai` client's transport), so
the trace shows exactly what went on the wire, whichever loop built the request: the SDK port
and the hand-written loop are traced by the same code. Retries are the `openai` client's own
(408/409/429/5xx and connection errors, Retry-After honoured up to its cap); nothing stacks a
second retry layer on top.
"""

from __future__ import annotations

import functools
import json
import ssl
import time
from dataclasses import dataclass
from typing import Any

import httpx2
import openai

from k8s_agent_harness import events
from k8s_agent_harness.config import Config
from k8s_agent_harness.context import Budget
from k8s_agent_harness.errors import MalformedResponseError, ModelEndpointError
from k8s_agent_harness.redact import public_url
from k8s_agent_harness.trace import Recorder

MAX_ERROR_BODY = 500
MAX_RETRY_AFTER = 30.0  # seconds; a longer Retry-After is honoured only up to this
UNUSED_API_KEY = "unused"  # OpenAI-compatible servers without auth still need a non-empty key


class WireState:
    """What the wire showed that the loops need: proposed call arguments, and a malformed answer."""

    def __init__(self) -> None:
        self._arguments: dict[str, str] = {}
        self._positions: dict[str, int] = {}
        self.malformed: str | None = None
        """Why the last completion was unusable, or None."""

    def propose(self, call_id: str, arguments: str, position: int | None = None) -> None:
        """Remember the raw arguments of one proposed tool call (a reused id: the latest wins), and
        its place among the calls of its response (0-based)."""
        self._arguments[call_id] = arguments
        if position is not None:
            self._positions[call_id] = position

    def position(self, call_id: str) -> int | None:
        """The place of a proposed call among its response's calls, if known."""
        return self._positions.get(call_id)

    def arguments(self, call_id: str) -> str:
        """The raw argument string of a proposed call ("" if unknown)."""
        return self._arguments.get(call_id, "")

    def check(self) -> None:
        """Raise MalformedResponseError if the last response the endpoint sent was unusable."""
        if self.malformed is not None:
            raise MalformedResponseError(f"the model endpoint sent a malformed response: {self.malformed}")


def completion_problem(body: Any) -> str | None:
    """Why a 200 response body is not a usable chat completion, or None if it is."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        return "the completion has no choices"
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        return "the first choice has no message"
    calls = message.get("tool_calls")
    if calls is None:
        return None
    if not isinstance(calls, list):
        return "tool_calls is not a list"
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not call.get("id") or not function.get("name"):
            return f"a tool call lacks an id, a function or a name: {json.dumps(call)[:200]}"
        if not isinstance(function.get("arguments", ""), str):
            return f"tool call {call['id']} has arguments that are not a string"
    return None


class WireRecorder:
    """Records each model request and response (Chat Completions or Responses) as trace events and
    counters."""

    def __init__(self, recorder: Recorder, state: WireState | None = None, budget_bytes: int = 0) -> None:
        self._recorder = recorder
        self.state = state or WireState()
        self._budget_bytes = budget_bytes
        self.largest_request = 0
        self._sent: list[Any] = []
        self._instructions: str | None = None
        self._started: dict[int, float] = {}

    async def on_request(self, request: httpx2.Request) -> None:
        """Hook: a request is about to be sent (each retry too)."""
        api = _api_of(request)
        if api is None:
            return
        self._started[id(request)] = time.perf_counter()
        content = request.content
        stats = self._recorder.stats
        retry = int(request.headers.get("x-stainless-retry-count", "0") or 0)
        if retry == 0:
            self._recorder.step += 1
            stats.model_requests += 1
        stats.model_attempts += 1
        stats.bytes_sent += len(content)
        stats.largest_request = max(stats.largest_request, len(content))
        if self._budget_bytes and len(content) > self._budget_bytes:
            # Compaction keeps a margin below the budget; this says so loudly if it ever did not.
            self._recorder.warn(
                f"request {self._recorder.step} is {len(content):,} bytes, over the context budget of "
                f"{self._budget_bytes:,} bytes"
            )
        try:
            body = json.loads(content)
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        pieces = body.get("messages") if api == CHAT else body.get("input")
        if isinstance(pieces, str):  # a Responses input given as one text
            pieces = [{"role": "user", "content": pieces}]
        messages = [self._by_reference(message) for message in pieces or []]
        tool_choice = body.get("tool_choice", "absent")
        report = body.get("response_format") if api == CHAT else (body.get("text") or {}).get("format")
        event = events.ModelRequest(
            api=api,
            attempt=retry + 1,
            model=body.get("model"),
            bytes=len(content),
            message_count=len(messages),
            tools_sent=bool(body.get("tools")),  # `tools: []` (the SDK's tool-less summary) offers none
            tool_count=len(body.get("tools") or []),
            tool_choice=tool_choice if isinstance(tool_choice, str | dict) else str(tool_choice),
            response_format=_response_format(report),
        )
        if retry == 0:
            added, rewritten = self._delta(messages)
            update: dict[str, Any] = {"messages_added": added, "history_rewritten": rewritten}
            instructions = body.get("instructions")
            if api == RESPONSES and isinstance(instructions, str) and instructions != self._instructions:
                self._instructions = update["instructions"] = instructions
            event = event.model_copy(update=update)
        self._recorder.emit(event)

    async def on_response(self, response: httpx2.Response) -> None:
        """Hook: a response arrived; read it and record what the model said."""
        request = response.request
        api = _api_of(request)
        if api is None:
            return
        started = self._started.pop(id(request), time.perf_counter())
        await response.aread()
        latency = round((time.perf_counter() - started) * 1e3, 3)
        attempt = int(request.headers.get("x-stainless-retry-count", "0") or 0) + 1
        if response.status_code >= 400:
            _cap_retry_after(response)
            self._recorder.emit(
                events.ModelError(
                    attempt=attempt,
                    status=response.status_code,
                    retry_after=response.headers.get("retry-after"),
                    latency_ms=latency,
                    body=response.text[:MAX_ERROR_BODY],
                )
            )
            return
        try:
            body = response.json()
        except ValueError:
            body = None
        problem = completion_problem(body) if api == CHAT else response_problem(body)
        self.state.malformed = problem
        if problem is not None:
            self._recorder.emit(
                events.ModelResponse(
                    attempt=attempt,
                    malformed=problem,
                    latency_ms=latency,
                    body=response.text[:MAX_ERROR_BODY],
                )
            )
            return
        said = _chat_said(body) if api == CHAT else _responses_said(body)
        stats = self._recorder.stats
        for position, call in enumerate(said.calls):
            self.state.propose(call.id, call.arguments or "", position)
        stats.prompt_tokens += said.prompt_tokens
        stats.completion_tokens += said.completion_tokens
        self._recorder.emit(
            events.ModelResponse(
                attempt=attempt,
                latency_ms=latency,
                finish_reason=said.finish_reason,
                text=said.text,
                tool_calls=said.calls,
                usage=said.usage,
            )
        )

    def _by_reference(self, message: Any) -> Any:
        """A tool message (a function_call_output item) whose text ends with a large result the
        trace already holds, with that text named by its sha256 (`content_sha256`, `output_sha256`;
        `content`, `output` keep what comes before it)."""
        if not isinstance(message, dict):
            return message
        if message.get("role") == "tool":
            field_name = "content"
        elif message.get("type") == "function_call_output":
            field_name = "output"
        else:
            return message
        text = message.get(field_name)
        stored = self._recorder.stored_suffix(text) if isinstance(text, str) else None
        if stored is None:
            return message
        before, sha = stored
        return {**message, field_name: before, f"{field_name}_sha256": sha}

    def _delta(self, messages: list[Any]) -> tuple[list[Any], bool]:
        """The messages added since the previous request, and whether the history was rewritten
        (then the whole list is "added")."""
        previous = self._sent
        self._sent = messages
        if previous and messages[: len(previous)] == previous:
            return messages[len(previous) :], False
        return messages, bool(previous)


CHAT, RESPONSES = "chat", "responses"


def _api_of(request: httpx2.Request) -> str | None:
    """Which model API a request is to (None: not a model request)."""
    path = request.url.path
    if path.endswith("/chat/completions"):
        return CHAT
    if path.endswith("/responses"):
        return RESPONSES
    return None


@dataclass(frozen=True)
class _Said:
    """What one usable response said, whichever wire it came on."""

    text: str | None
    calls: list[events.ProposedCall]
    finish_reason: str | None
    usage: events.Usage
    prompt_tokens: int
    completion_tokens: int


def _chat_said(body: dict[str, Any]) -> _Said:
    choice = body["choices"][0]
    message = choice["message"]
    usage = body.get("usage") or {}
    text = message.get("content")
    return _Said(
        text=text if isinstance(text, str) else None,
        calls=[
            events.ProposedCall(
                id=str(call["id"]),
                name=str(call["function"]["name"]),
                arguments=call["function"].get("arguments"),
            )
            for call in message.get("tool_calls") or []
        ],
        finish_reason=choice.get("finish_reason"),
        usage=events.Usage(
            **{
                key: value
                for key in ("prompt_tokens", "completion_tokens", "total_tokens")
                if isinstance(value := usage.get(key), int)
            }
        ),
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


def _responses_said(body: dict[str, Any]) -> _Said:
    output = [item for item in body.get("output") or [] if isinstance(item, dict)]
    texts = [
        str(part.get("text") or "")
        for item in output
        if item.get("type") == "message"
        for part in item.get("content") or []
        if isinstance(part, dict) and part.get("type") == "output_text"
    ]
    usage = body.get("usage") or {}
    counted = {
        "prompt_tokens": usage.get("input_tokens"),
        "completion_tokens": usage.get("output_tokens"),
        "total_tokens": usage.get("total_tokens"),
    }
    incomplete = (body.get("incomplete_details") or {}).get("reason")
    return _Said(
        text="".join(texts) if texts else None,
        calls=[
            events.ProposedCall(
                id=str(item["call_id"]), name=str(item["name"]), arguments=item.get("arguments")
            )
            for item in output
            if item.get("type") == "function_call"
        ],
        finish_reason=f"{body.get('status')}: {incomplete}" if incomplete else body.get("status"),
        usage=events.Usage(**{key: value for key, value in counted.items() if isinstance(value, int)}),
        prompt_tokens=_count(usage.get("input_tokens")),
        completion_tokens=_count(usage.get("output_tokens")),
    )


def response_problem(body: Any) -> str | None:
    """Why a 200 response body is not a usable Response (Responses API), or None if it is."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if body.get("status") == "failed" or body.get("error"):
        error = body.get("error") or {}
        detail = error.get("message") if isinstance(error, dict) else error
        return f"the response failed: {str(detail or 'no reason given')[:200]}"
    output = body.get("output")
    if not isinstance(output, list):
        return "the response has no output list"
    if not output:  # as Chat's `choices: []`: nothing was answered (the SDK would end the run quietly)
        return "the response has no output items"
    for item in output:
        if not isinstance(item, dict) or not item.get("type"):
            return f"an output item has no type: {json.dumps(item)[:200]}"
        if item["type"] != "function_call":
            continue
        if not item.get("call_id") or not item.get("name"):
            return f"a function call lacks a call_id or a name: {json.dumps(item)[:200]}"
        if not isinstance(item.get("arguments", ""), str):
            return f"function call {item['call_id']} has arguments that are not a string"
    return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (~20 ms), every client shares it."""
    return ssl.create_default_context()


def _cap_retry_after(response: httpx2.Response) -> None:
    """Cap the server's Retry-After before the `openai` client reads it (it would wait up to 120 s)."""
    for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = response.headers.get(header)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue  # an HTTP date: the client's own parsing and cap apply
        if seconds > MAX_RETRY_AFTER:
            response.headers[header] = f"{MAX_RETRY_AFTER * scale:g}"


def model_client(config: Config, recorder: Recorder, state: WireState | None = None) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client for the configured endpoint, traced at the wire, with bounded retries."""
    wire = WireRecorder(recorder, state, Budget(config.context_budget).request_bytes)
    http_client = openai.DefaultAsyncHttpxClient(
        event_hooks={"request": [wire.on_request], "response": [wire.on_response]},
        verify=_tls_context(),
    )
    return openai.AsyncOpenAI(
        api_key=config.api_key or UNUSED_API_KEY,
        base_url=config.base_url,
        timeout=config.request_timeout,
        max_retries=config.max_retries,
        http_client=http_client,
    )


def endpoint_error(error: Exception, config: Config, url: str | None) -> ModelEndpointError:
    """Turn an `openai` client exception into a one-line run failure."""
    where = public_url(url or config.base_url or "https://api.openai.com/v1")
    retries = config.max_retries
    if isinstance(error, openai.APITimeoutError):
        return ModelEndpointError(
            f"the model endpoint {where} did not answer within {config.request_timeout:g}s "
            f"({retries + 1} attempt{'s' if retries else ''})"
        )
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error.__context__
        detail = str(cause) if cause else str(error)
        return ModelEndpointError(f"cannot reach the model endpoint {where}: {detail}")
    if isinstance(error, openai.AuthenticationError):
        return ModelEndpointError(f"the model endpoint {where} rejected the API key (HTTP 401)")
    if isinstance(error, openai.NotFoundError):
        wire = (
            "; on --api responses the endpoint must speak the Responses API (/v1/responses): "
            "--api chat uses Chat Completions"
            if config.api == "responses"
            else ""
        )
        return ModelEndpointError(
            f"the model endpoint {where} answered HTTP 404 (check --base-url and --model {config.model!r}"
            f"{wire}): {_api_message(error)}"
        )
    if isinstance(error, openai.APIStatusError):
        return ModelEndpointError(
            f"the model endpoint {where} answered HTTP {error.status_code}"
            f"{' after ' + str(retries + 1) + ' attempts' if _retryable_status(error.status_code) else ''}: "
            f"{_api_message(error)}"
        )
    if isinstance(error, openai.APIResponseValidationError):
        return MalformedResponseError(f"the model endpoint {where} sent a malformed response: {error}")
    return ModelEndpointError(f"model request failed: {type(error).__name__}: {error}")


def _retryable_status(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _api_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:MAX_ERROR_BODY]
    return str(error.message)[:MAX_ERROR_BODY]


def _response_format(value: Any) -> str | None:
    """`json_schema:<name>`, `json_object`, `text` or None (absent), as the trace records it (from
    Chat's `response_format` or the Responses API's `text.format`)."""
    if not isinstance(value, dict):
        return None
    kind = str(value.get("type") or "")
    schema = value.get("json_schema") if "json_schema" in value else value
    if kind == "json_schema" and isinstance(schema, dict) and schema.get("name"):
        return f"json_schema:{schema['name']}"
    return kind or None
