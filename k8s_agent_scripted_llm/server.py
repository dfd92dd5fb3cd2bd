"""An OpenAI-compatible model server on loopback that plays a script, or a responder.

It answers `POST /v1/chat/completions` and `POST /v1/responses` (a JSON body, or Server-Sent Events
when the request asks for `"stream": true`: chat_stream.py, responses_api.py); the same steps play
on either wire (`responses_api.py`), and a recorded answer (`Recorded`: a provider's body or stream)
is sent as it is. Every request body is recorded, as received, with the wire it came on, and beside
it the conversation it amounts to. Every Response it writes is kept by its id (the latest 256 when it
does not record), so a Responses request may continue one with `previous_response_id`, as on
OpenAI's API: the server expands it to the whole conversation (the previous response's input and
output items, then the request's own input), and the responder and `conversations` see that. An
unknown id, or one of a response sent with `store: false`, is answered with OpenAI's 400
(`previous_response_not_found`); `conversation` (the Conversations API) is refused. A script is a
queue of steps: a request with no step left is an error (answered with HTTP 400, which the client
does not retry), and so is a step left unused; `assert_done()` says which. Sockets use
TCP_NODELAY: without it every request pays ~40 ms of delayed ACK.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from k8s_agent_scripted_llm import responses_api
from k8s_agent_scripted_llm.chat_stream import chat_stream
from k8s_agent_scripted_llm.script import Delay, HttpError, Malformed, Recorded, Reply, Step

Responder = Callable[[dict[str, Any]], Step]
"""Answers a request with the next step: its body as received, on either wire, but a Responses
request that continues a stored response (`previous_response_id`) expanded to the whole
conversation (`ScriptedModelServer.conversations`)."""

CHAT = "chat"
RESPONSES = "responses"
_ROUTES = {"/chat/completions": CHAT, "/responses": RESPONSES}
KEPT_UNRECORDED = 256
"""Responses a server that does not record keeps (the latest): enough for every run in flight to
continue its last one, without a long-lived server (an eval's shared offline model) growing: each
holds its whole input, as a recorded body would."""


class ScriptedModelServer:
    """A Chat Completions and Responses endpoint on 127.0.0.1 (free port), served from a thread."""

    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        responder: Responder | None = None,
        model: str = "scripted",
        record: bool = True,
    ) -> None:
        self._script: deque[Step] = deque(script)
        self._responder = responder
        self.model = model
        self.record = record
        """Keep every request, reply and header (tests read them); a long-lived server (eval) does not."""
        self.count = 0
        """Requests received."""
        self.requests: list[dict[str, Any]] = []
        """Every request body, in order, as received."""
        self.conversations: list[dict[str, Any]] = []
        """Every request, in order, as the model sees it (the same length as `requests`): a
        Responses request that continues a kept response with its `input` expanded to the whole
        conversation and `previous_response_id` removed; any other request as received."""
        self.wires: list[str] = []
        """The wire of every request, in order: `chat` or `responses`."""
        self.replies: list[dict[str, Any]] = []
        """Every reply sent, in order, as a Chat assistant message (call ids as assigned), whichever
        wire it went out on."""
        self.headers: list[dict[str, str]] = []
        """The headers of every request, in order, lower-cased, with the request's path and query as
        `:path`."""
        self.extra_requests: list[int] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._kept: OrderedDict[str, responses_api.Kept] = OrderedDict()
        """Every Response written, by id (`previous_response_id` continues one)."""
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for an OpenAI client (`.../v1`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedModelServer:
        """Serve in a daemon thread."""
        # A short poll interval: stop() waits for the serving loop to notice (0.5 s by default).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-model",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending delays are cut short."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self, script: Iterable[Step] = ()) -> None:
        """Forget recorded requests and load a new script (to reuse one server across runs)."""
        with self._lock:
            self._script = deque(script)
            self.count = 0
            self.requests.clear()
            self.conversations.clear()
            self._kept.clear()
            self.wires.clear()
            self.replies.clear()
            self.headers.clear()
            self.extra_requests.clear()
            self.errors.clear()
            self._ids = itertools.count(1)

    def assert_done(self) -> None:
        """Fail if steps were left unused or requests came after the script ended."""
        problems = []
        if self._script:
            problems.append(
                f"{len(self._script)} scripted steps were never requested: {list(self._script)!r}"
            )
        if self.extra_requests:
            problems.append(f"requests {self.extra_requests} came after the script ended")
        problems += self.errors
        if problems:
            raise AssertionError("; ".join(problems))

    # -- called from the handler thread ---------------------------------------------------------

    def _continued(self, body: dict[str, Any], wire: str) -> tuple[dict[str, Any], str | None]:
        """The conversation a request amounts to, and why it cannot be answered (None: it can): a
        Responses request with `previous_response_id` expanded to the whole conversation, or the
        reason the id names no response kept."""
        previous = body.get("previous_response_id") if wire == RESPONSES else None
        if not previous:
            return body, None
        with self._lock:
            kept = self._kept.get(str(previous))
        if kept is None:
            return body, f"previous_response_id {previous!r} names no response this server wrote"
        if not kept.stored:
            return (
                body,
                f"previous_response_id {previous!r} names a response sent with store: false (not kept)",
            )
        return responses_api.continued(body, kept), None

    def _keep(self, answer: dict[str, Any], conversation: dict[str, Any], stored: bool) -> None:
        """Keep a Response written: its id, the input it answered and its output items."""
        kept = (
            responses_api.Kept(responses_api.input_items(conversation), list(answer["output"]))
            if stored
            else responses_api.Kept([], [], stored=False)
        )
        with self._lock:
            self._kept[str(answer["id"])] = kept
            while not self.record and len(self._kept) > KEPT_UNRECORDED:
                self._kept.popitem(last=False)

    def _received(
        self,
        body: dict[str, Any],
        headers: dict[str, str],
        wire: str,
        conversation: dict[str, Any] | None = None,
    ) -> int:
        """Count and record a request (and the conversation it amounts to); its number."""
        with self._lock:
            self.count += 1
            if self.record:
                self.requests.append(body)
                self.conversations.append(body if conversation is None else conversation)
                self.headers.append(headers)
                self.wires.append(wire)
            return self.count

    def _refused(self, number: int, reason: str) -> None:
        with self._lock:
            self.errors.append(f"request {number} refused: {reason}")

    def _next_step(self, body: dict[str, Any], number: int) -> Step | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            if self._responder is None:
                self.extra_requests.append(number)
                return None
        try:
            return self._responder(body)
        except Exception as error:  # boundary: a broken responder is reported, not a dead thread
            self.errors.append(f"responder failed on request {number}: {type(error).__name__}: {error}")
            return HttpError(500, f"responder failed: {error}", {"x-should-retry": "false"})

    def _answer(
        self,
        reply: Reply,
        body: dict[str, Any],
        raw_size: int,
        wire: str,
        number: int,
        conversation: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The body of a reply on `wire`: a chat completion or a Response (kept by its id, with
        `conversation`, what the request amounts to: the body when it continues nothing)."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id or f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in reply.tool_calls
            ]
        if self.record:
            with self._lock:
                self.replies.append(message)
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        written = len(reply.content or "") + sum(len(c.name) + len(c.arguments) for c in reply.tool_calls)
        usage = reply.usage or {
            "prompt_tokens": raw_size // 4,
            "completion_tokens": written // 4 + 1,
        }
        if wire == RESPONSES:
            answer = responses_api.response(
                message, body, number=number, model=self.model, finish_reason=finish, usage=usage
            )
            self._keep(answer, body if conversation is None else conversation, body.get("store") is not False)
            return answer
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        return {
            "id": f"chatcmpl-scripted-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": usage,
        }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a run cancelled mid-request: Ctrl-C) is not the server's error:
        nothing to print on the user's terminal. Anything else is reported as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            owner = self.server.owner
            self._send(
                200,
                {"object": "list", "data": [{"id": owner.model, "object": "model", "owned_by": "scripted"}]},
            )
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        route = self.path.split("?", 1)[0].rstrip("/")
        wire = next((wire for suffix, wire in _ROUTES.items() if route.endswith(suffix)), None)
        if wire is None:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(
                400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}}
            )
            return
        owner = self.server.owner
        conversation, missing = owner._continued(body, wire)
        number = owner._received(
            body, {**{k.lower(): v for k, v in self.headers.items()}, ":path": self.path}, wire, conversation
        )
        reason = responses_api.refusal(body) if wire == RESPONSES else None
        if reason is not None:
            owner._refused(number, reason)
            self._send(
                400,
                {"error": {"message": reason, "type": "invalid_request_error", "param": "conversation"}},
                {"x-should-retry": "false"},
            )
            return
        if missing is not None:
            owner._refused(number, missing)
            self._send(
                400, responses_api.not_found(str(body["previous_response_id"])), {"x-should-retry": "false"}
            )
            return
        # the usage counts the whole conversation, as OpenAI's does
        size = len(raw) if conversation is body else len(json.dumps(conversation))
        step = owner._next_step(conversation, number)
        while isinstance(step, Delay):
            if owner._stopping.wait(step.seconds):
                return
            step = step.then
        if step is None:
            self._send(
                400,
                {
                    "error": {
                        "message": f"scripted model: no step left for request {number}",
                        "type": "script_exhausted",
                    }
                },
                {"x-should-retry": "false"},
            )
        elif isinstance(step, HttpError):
            self._send(
                step.status, {"error": {"message": step.message, "type": "scripted_error"}}, step.headers
            )
        elif isinstance(step, Malformed):
            self._send_raw(step.status, step.body.encode("utf-8"), {})
        elif isinstance(step, Recorded):
            self._send_raw(step.status, step.body.encode("utf-8"), {}, step.content_type)
        elif body.get("stream"):
            answer = owner._answer(step, body, size, wire, number, conversation)
            if wire == RESPONSES:
                self._send_raw(200, responses_api.stream(answer), {}, "text/event-stream")
            else:
                usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._send_raw(200, chat_stream(answer, usage), {}, "text/event-stream")
        else:
            self._send(200, owner._answer(step, body, size, wire, number, conversation))

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode("utf-8"), headers or {})

    def _send_raw(
        self, status: int, data: bytes, headers: dict[str, str], content_type: str = "application/json"
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to answer
