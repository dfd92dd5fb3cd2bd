"""The model endpoint client both agents use: its transport reads every answer once, at the HTTP
boundary, and traces every request.

`ModelTransport` wraps the HTTP transport of the `openai` client, so whichever loop built a request
(the SDK port or the hand-written loop), the same code:
- records the request and the answer as trace events, exactly as they went on the wire;
- with `--stream`, asks for a stream and reads it as it comes (each piece of text shown at once),
  handing the client the one response it amounts to (streams.py);
- reads what providers send that differs (provider_wire.py): repairs an empty call id or arguments
  sent as an object, takes a 200 that carries an `error` for the endpoint's error, tells the loops
  when a provider could not parse the model's tool call, and keeps the reply as the conversation
  reads it (`WireState.reply`: text, calls and the provider's own fields).
Retries are the `openai` client's own (408/409/429/5xx and connection errors, Retry-After honoured
up to its cap); nothing stacks a second retry layer on top.

`--request-timeout` bounds each attempt as a whole, from sending the request to the answer's last
byte: the `openai` client's own timeout is httpx's, which bounds each read (a stream that sends a
piece every few milliseconds forever, or a body that trickles in, would never reach it). An attempt
cut by the deadline fails as a timed-out request (`RequestDeadline`, an httpx read timeout), so the
client retries it and then reports the timeout, as it does for an endpoint that never answers.
"""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx2
import openai

from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import MalformedResponseError, ModelEndpointError
from k8s_agent_harness.evidence.redact import public_url
from k8s_agent_harness.model.context import Budget
from k8s_agent_harness.model.conversation import ModelTurn, content_text, turn_from_chat
from k8s_agent_harness.model.provider_wire import (
    FRESH_ID_PREFIX,
    UnparsableCall,
    client_view,
    content_filtered,
    error_in,
    prompt_filtered,
    repair,
    unoffered_call,
    unparsable_call,
)
from k8s_agent_harness.model.streams import TextSink, read_stream
from k8s_agent_harness.traces import events
from k8s_agent_harness.traces.trace import Recorder

MAX_ERROR_BODY = 500
MAX_UNPARSABLE_BODY = 8_000
"""Characters kept of an error that says the model's call could not be parsed (replay reads it again)."""
MAX_RETRY_AFTER = 30.0  # seconds; a longer Retry-After is honoured only up to this
UNUSED_API_KEY = "unused"  # OpenAI-compatible servers without auth still need a non-empty key
DEFAULT_ENDPOINT = "https://api.openai.com/v1"


class WireState:
    """What the wire showed that the loops need: the last reply as the conversation reads it, the
    proposed call arguments, and why the last answer is unusable (malformed, an error, a call the
    provider could not parse)."""

    def __init__(self, endpoint: str = DEFAULT_ENDPOINT) -> None:
        self.endpoint = endpoint
        """The endpoint's URL, without credentials, as errors name it."""
        self._arguments: dict[str, str] = {}
        self._positions: dict[str, int] = {}
        self._fresh = 0
        self.malformed: str | None = None
        """Why the last completion was unusable, or None."""
        self.failed: str | None = None
        """The provider's message when the last 200 carried an error, or None."""
        self.filtered: str | None = None
        """What the provider's content filter flagged when it stopped the last answer, or None."""
        self.unoffered: str | None = None
        """The call of a tool the agent never offers that the last answer holds, or None."""
        self.unparsable: UnparsableCall | None = None
        """The provider's report that it could not parse the model's call, when the last error said so."""
        self.reply: ModelTurn | None = None
        """The last usable Chat Completions reply, as the conversation reads it."""
        self.cut_off: str | None = None
        """The id of the last call of a reply the output limit cut off (`finish_reason: length`)."""

    def used_ids(self) -> frozenset[str]:
        """The ids of every call proposed so far in the run."""
        return frozenset(self._arguments)

    def fresh_id(self) -> str:
        """A call id for a call that came without one (or with one already used), unique in the run."""
        self._fresh += 1
        return f"{FRESH_ID_PREFIX}{self._fresh}"

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
        """Raise ModelEndpointError if the last answer was the endpoint's error, MalformedResponseError
        if it was unusable."""
        if self.failed is not None:
            raise ModelEndpointError(
                f"the model endpoint {self.endpoint} answered with an error: {self.failed}"
            )
        if self.filtered is not None:
            raise ModelEndpointError(
                f"the model endpoint {self.endpoint} did not answer: its content filter stopped the answer "
                f"({self.filtered})"
            )
        if self.unoffered is not None:
            raise MalformedResponseError(
                f"the model endpoint {self.endpoint} answered with {self.unoffered}, a kind of tool the "
                "agent does not offer (it offers only its function tools): nothing was run"
            )
        if self.malformed is not None:
            raise MalformedResponseError(f"the model endpoint sent a malformed response: {self.malformed}")

    def answered(self, api: str, body: dict[str, Any], calls: list[events.ProposedCall]) -> None:
        """Take a usable answer: the reply as the conversation reads it, and whether the output limit
        cut it off after a call."""
        if api == CHAT:
            choice = body["choices"][0]
            self.reply = turn_from_chat(choice["message"])
            cut = choice.get("finish_reason") == "length"
        else:
            self.reply = None
            cut = (body.get("incomplete_details") or {}).get("reason") == "max_output_tokens"
        self.cut_off = calls[-1].id if cut and calls else None


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
    """Records each model request and answer (Chat Completions or Responses) as trace events and
    counters, and keeps what the loops need in the WireState."""

    def __init__(self, recorder: Recorder, state: WireState | None = None, budget_bytes: int = 0) -> None:
        self._recorder = recorder
        self.state = state or WireState()
        self._budget_bytes = budget_bytes
        self.largest_request = 0
        self._sent: list[Any] = []
        self._instructions: str | None = None

    async def on_request(self, request: httpx2.Request) -> None:
        """A request is about to be sent (each retry too)."""
        api = _api_of(request)
        if api is None:
            return
        content = request.content
        stats = self._recorder.stats
        retry = _retry_of(request)
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

    def on_error(
        self, request: httpx2.Request, status: int, headers: httpx2.Headers, text: str, latency: float
    ) -> None:
        """An attempt the endpoint answered with an HTTP error: recorded; whether it says the model's
        call could not be parsed is kept for the loops."""
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        self.state.unparsable = unparsable_call(status, body)
        kept = MAX_UNPARSABLE_BODY if self.state.unparsable is not None else MAX_ERROR_BODY
        self._recorder.emit(
            events.ModelError(
                attempt=_retry_of(request) + 1,
                status=status,
                retry_after=headers.get("retry-after"),
                latency_ms=latency,
                body=text[:kept],
                request_id=headers.get("x-request-id"),
            )
        )

    def on_answer(
        self, request: httpx2.Request, text: str, latency: float, headers: httpx2.Headers | None = None
    ) -> str:
        """A 200 answer: repaired, recorded, kept; the body the `openai` client is given."""
        api = _api_of(request) or CHAT
        attempt = _retry_of(request) + 1
        request_id = headers.get("x-request-id") if headers is not None else None
        state = self.state
        state.unparsable = None
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        state.failed = error_in(body)
        state.filtered = content_filtered(body, api) if state.failed is None else None
        clean = state.failed is None and state.filtered is None
        state.unoffered = unoffered_call(body, api) if clean else None
        repaired = repair(body, api, state.fresh_id, state.used_ids()) if state.failed is None else []
        problem = None
        if body is None:
            problem = f"the body is not JSON: {_start(text)}"
        elif clean and state.unoffered is None:
            problem = completion_problem(body) if api == CHAT else response_problem(body)
        state.malformed = problem
        if problem is not None or not clean or state.unoffered is not None:
            if state.failed is not None:
                why = f"the endpoint answered with an error: {state.failed}"
            elif state.filtered is not None:
                why = f"the provider's content filter stopped the answer ({state.filtered})"
            elif state.unoffered is not None:
                why = f"{state.unoffered}, a kind of tool the agent does not offer"
            else:
                why = str(problem)
            self._recorder.emit(
                events.ModelResponse(
                    attempt=attempt,
                    malformed=why,
                    latency_ms=latency,
                    body=text[:MAX_ERROR_BODY],
                    request_id=request_id,
                )
            )
            return text
        assert isinstance(body, dict)
        said = _chat_said(body) if api == CHAT else _responses_said(body)
        state.answered(api, body, said.calls)
        stats = self._recorder.stats
        for position, call in enumerate(said.calls):
            state.propose(call.id, call.arguments or "", position)
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
                repaired=repaired,
                response_id=_text_or_none(body.get("id")),
                response_model=_text_or_none(body.get("model")),
                request_id=request_id,
            )
        )
        view = client_view(body)
        return json.dumps(view) if repaired or view is not body else text

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
        text=content_text(text) if isinstance(text, str | list) else None,
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


def _start(text: str) -> str:
    """The start of a body, on one line, as an error quotes it."""
    start = " ".join(text.split())
    return repr(start[:200] + ("..." if len(start) > 200 else "")) if start else "(empty)"


def _text_or_none(value: Any) -> str | None:
    """A field of the body that should be text: itself when it is, else None."""
    return value if isinstance(value, str) and value else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (~20 ms), every client shares it."""
    return ssl.create_default_context()


def _cap_retry_after(headers: httpx2.Headers) -> None:
    """Cap the server's Retry-After before the `openai` client reads it (it would wait up to 120 s)."""
    for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue  # an HTTP date: the client's own parsing and cap apply
        if seconds > MAX_RETRY_AFTER:
            headers[header] = f"{MAX_RETRY_AFTER * scale:g}"


def _retry_of(request: httpx2.Request) -> int:
    """Which retry of a request this is (0: the first attempt), as the `openai` client numbers it."""
    try:
        return int(request.headers.get("x-stainless-retry-count", "0") or 0)
    except ValueError:
        return 0


class RequestDeadline(httpx2.ReadTimeout):
    """A model request that took more than `--request-timeout` in all, from sending it to the last
    byte of its answer; `answering`: the endpoint had begun to answer (its status and headers came)."""

    def __init__(self, seconds: float, request: httpx2.Request, *, answering: bool) -> None:
        began = "its answer had begun but did not end" if answering else "no answer came"
        super().__init__(f"{began} within {seconds:g}s (--request-timeout)", request=request)
        self.answering = answering


class ModelTransport(httpx2.AsyncBaseTransport):
    """The `openai` client's transport to the model endpoint: every model request and answer passes
    here once, whichever loop sent it (see the module docstring)."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        wire: WireRecorder,
        *,
        stream: bool = False,
        include_usage: bool = False,
        on_text: TextSink | None = None,
        request_timeout: float | None = None,
    ) -> None:
        self._inner = inner
        self._wire = wire
        self._stream = stream
        self._include_usage = include_usage
        self._on_text = on_text
        self._request_timeout = request_timeout
        """Seconds one attempt may take in all, to its answer's last byte (None: no bound)."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send one request; a model request's answer comes back read, repaired and recorded."""
        api = _api_of(request)
        if api is None or request.method != "POST":
            return await self._inner.handle_async_request(request)
        if self._stream:
            request = _asking_for_a_stream(request, api, self._include_usage)
        await self._wire.on_request(request)
        started = time.perf_counter()
        response, status, text = await self._exchange(request, api)
        latency = round((time.perf_counter() - started) * 1e3, 3)
        headers = httpx2.Headers(
            {
                key: value
                for key, value in response.headers.items()
                if key.lower()
                not in ("content-length", "content-encoding", "transfer-encoding", "content-type")
            }
        )
        headers["content-type"] = "application/json"
        if status >= 400:
            _cap_retry_after(headers)
            self._wire.on_error(request, status, headers, text, latency)
            if self._wire.state.unparsable is not None:
                headers["x-should-retry"] = "false"  # telling the model beats asking it again blind
        else:
            text = self._wire.on_answer(request, text, latency, headers)
        return httpx2.Response(
            status,
            headers=headers,
            content=text.encode("utf-8"),
            request=request,
            extensions=response.extensions,
        )

    async def _exchange(self, request: httpx2.Request, api: str) -> tuple[httpx2.Response, int, str]:
        """Send one attempt and read its answer to the end, within `--request-timeout` in all."""
        deadline = asyncio.timeout(self._request_timeout)
        answering = False
        try:
            async with deadline:
                response = await self._inner.handle_async_request(request)
                answering = True
                try:
                    status, text = await self._read(response, api)
                finally:
                    await response.aclose()
        except TimeoutError as error:
            if self._request_timeout is None or not deadline.expired():
                raise
            raise RequestDeadline(self._request_timeout, request, answering=answering) from error
        return response, status, text

    async def _read(self, response: httpx2.Response, api: str) -> tuple[int, str]:
        """The answer's status and JSON text: a stream read to the response it amounts to."""
        if "text/event-stream" not in response.headers.get("content-type", ""):
            await response.aread()
            return response.status_code, response.text
        ended = await read_stream(_lines(response), api, self._on_text)
        return ended.status, json.dumps(ended.body)

    async def aclose(self) -> None:
        """Close the transport underneath."""
        await self._inner.aclose()


async def _lines(response: httpx2.Response) -> AsyncIterator[str]:
    async for line in response.aiter_lines():
        yield line


def _asking_for_a_stream(request: httpx2.Request, api: str, include_usage: bool) -> httpx2.Request:
    """The request with `stream: true` (and, on Chat Completions at api.openai.com, the usage in the
    stream's last chunk, as the Agents SDK asks for it there)."""
    try:
        body = json.loads(request.content)
    except ValueError:
        return request
    if not isinstance(body, dict):
        return request
    body["stream"] = True
    if api == CHAT and include_usage:
        body.setdefault("stream_options", {"include_usage": True})
    headers = {key: value for key, value in request.headers.items() if key.lower() != "content-length"}
    return httpx2.Request(
        request.method,
        request.url,
        headers=headers,
        content=json.dumps(body).encode("utf-8"),
        extensions=request.extensions,
    )


def model_client(
    config: Config, recorder: Recorder, state: WireState | None = None, on_text: TextSink | None = None
) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client for the configured endpoint, read and traced at the wire, with bounded
    retries; `on_text` is shown each piece of a streamed answer's text."""
    wire = WireRecorder(recorder, state, Budget(config.context_budget).request_bytes)
    endpoint = config.base_url or DEFAULT_ENDPOINT
    wire.state.endpoint = public_url(endpoint)
    transport = ModelTransport(
        httpx2.AsyncHTTPTransport(verify=_tls_context(), limits=DEFAULT_LIMITS),
        wire,
        stream=config.stream,
        include_usage=_official_openai(endpoint),
        on_text=on_text,
        request_timeout=config.request_timeout,
    )
    base_url, query = _without_query(config.base_url)
    return openai.AsyncOpenAI(
        api_key=config.api_key or UNUSED_API_KEY,
        base_url=base_url,
        default_query=query,
        default_headers=_key_header(endpoint, config.api_key),
        timeout=config.request_timeout,
        max_retries=config.max_retries,
        http_client=openai.DefaultAsyncHttpxClient(transport=transport),
    )


DEFAULT_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
"""The `openai` client's own connection limits (its default transport's)."""


def _without_query(base_url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """A base URL's path, and its query as parameters to send on every request (Azure's classic
    `.../deployments/NAME?api-version=...`): the client appends `/chat/completions` to the path."""
    if base_url is None or "?" not in base_url:
        return base_url, None
    url = httpx2.URL(base_url)
    return str(url.copy_with(query=None, fragment=None)).rstrip("/"), dict(url.params.multi_items()) or None


AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
"""Azure OpenAI's hosts: a key goes in the `api-key` header there too (its classic deployment URLs
read only that one)."""


def _key_header(endpoint: str, api_key: str | None) -> dict[str, str] | None:
    """The `api-key` header where the endpoint is Azure OpenAI's, beside the bearer token."""
    host = httpx2.URL(endpoint).host
    return {"api-key": api_key} if api_key and host.endswith(AZURE_HOSTS) else None


def _official_openai(endpoint: str) -> bool:
    return httpx2.URL(endpoint).host == "api.openai.com"


def endpoint_error(error: Exception, config: Config, url: str | None) -> ModelEndpointError:
    """Turn an `openai` client exception into a one-line run failure."""
    where = public_url(url or config.base_url or "https://api.openai.com/v1").rstrip("/")
    retries = config.max_retries
    if isinstance(error, openai.APITimeoutError):
        cut = error.__cause__
        late = "finish its answer" if isinstance(cut, RequestDeadline) and cut.answering else "answer"
        return ModelEndpointError(
            f"the model endpoint {where} did not {late} within {config.request_timeout:g}s "
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
    if isinstance(error, openai.APIStatusError) and (flagged := prompt_filtered(error.body)):
        return ModelEndpointError(
            f"the model endpoint {where} refused the request: its content filter stopped the prompt "
            f"({flagged}; HTTP {error.status_code}: {_api_message(error)})"
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
