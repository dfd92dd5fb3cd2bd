"""A model endpoint that misbehaves on the bare wire, for the tests of what a run does when the
endpoint never finishes: an HTTP server on 127.0.0.1 (a free port), in threads, standard library only.

It speaks just enough of the OpenAI wire (`POST .../chat/completions`, `POST .../responses`) to keep
a client reading, and never finishes an answer:

- `drip`: a request with `"stream": true` is answered with Server-Sent Events that are valid chunks
  of its wire (`chat.completion.chunk` deltas of text; `response.output_text.delta` events after
  `response.created`), one every `interval` seconds, forever; any other request with a JSON body
  that never ends (its opening, then one byte of whitespace every `interval` seconds, chunked).
- `stall`: the status line and headers (200, an event stream if one was asked for), then nothing,
  forever.

Every request is counted and its body kept (`requests`); `wait_for_requests(n)` waits until `n`
arrived. An endless answer ends when the client goes away or the server is stopped.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["drip", "stall"]
MODES: tuple[Mode, ...] = ("drip", "stall")
INTERVAL = 0.01
"""Seconds between two pieces of an endless answer."""


class HostileModel:
    """The misbehaving endpoint; `url` is its base URL (`http://127.0.0.1:PORT/v1`)."""

    def __init__(self, mode: Mode, *, interval: float = INTERVAL) -> None:
        self.mode = mode
        self.interval = interval
        self.requests: list[dict[str, Any]] = []
        """Each request body as received (a body that is not JSON: {})."""
        self.paths: list[str] = []
        self.stopping = threading.Event()
        self._arrived = threading.Condition()
        self._server = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(target=self._server.serve_forever, name="hostile-model", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> HostileModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def received(self, body: dict[str, Any], path: str) -> None:
        with self._arrived:
            self.requests.append(body)
            self.paths.append(path)
            self._arrived.notify_all()

    def wait_for_requests(self, count: int, timeout: float) -> bool:
        """Wait until `count` requests arrived (False if `timeout` seconds pass first)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)


@contextmanager
def hostile_model(mode: Mode, *, interval: float = INTERVAL) -> Iterator[HostileModel]:
    """A running HostileModel, stopped at the end."""
    server = HostileModel(mode, interval=interval).start()
    try:
        yield server
    finally:
        server.stop()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], owner: HostileModel):
        super().__init__(address, handler)
        self.owner = owner


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        owner = self.server.owner
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        path = self.path.split("?", 1)[0]
        wire = (
            "responses"
            if path.endswith("/responses")
            else "chat"
            if path.endswith("/chat/completions")
            else None
        )
        if wire is None:
            self.send_error(404)
            return
        owner.received(body, path)
        streamed = body.get("stream") is True
        self.send_response(200)
        self.send_header("content-type", "text/event-stream" if streamed else "application/json")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("x-request-id", f"hostile-{len(owner.requests)}")
        self.end_headers()
        self.wfile.flush()
        try:
            if owner.mode == "stall":
                owner.stopping.wait()
                return
            pieces = _events(wire, body) if streamed else _endless_json(wire)
            for piece in pieces:
                self._chunk(piece)
                if owner.stopping.wait(owner.interval):
                    return
        except OSError:  # the client went away: the answer ends with the connection
            return
        finally:
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _events(wire: str, body: dict[str, Any]) -> Iterator[bytes]:
    """A stream of valid events of `wire` that never ends."""
    model = str(body.get("model") or "hostile")
    created = int(time.time())
    if wire == "chat":
        head = {
            "id": "chatcmpl-hostile",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
        }
        delta: dict[str, Any] = {"role": "assistant", "content": ""}
        while True:
            chunk = {
                **head,
                "choices": [{"index": 0, "delta": delta, "finish_reason": None, "logprobs": None}],
            }
            yield f"data: {json.dumps(chunk)}\n\n".encode()
            delta = {"content": "still thinking. "}
    response = {
        "id": "resp_hostile",
        "object": "response",
        "created_at": created,
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    sequence = 0

    def event(kind: str, **fields: Any) -> bytes:
        nonlocal sequence
        sequence += 1
        return f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': sequence, **fields})}\n\n".encode()

    yield event("response.created", response=response)
    yield event("response.in_progress", response=response)
    item = {
        "id": "msg_hostile",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    yield event("response.output_item.added", output_index=0, item=item)
    part = {"type": "output_text", "text": "", "annotations": []}
    yield event(
        "response.content_part.added", item_id="msg_hostile", output_index=0, content_index=0, part=part
    )
    while True:
        yield event(
            "response.output_text.delta",
            item_id="msg_hostile",
            output_index=0,
            content_index=0,
            delta="still thinking. ",
            logprobs=[],
        )


def _endless_json(wire: str) -> Iterator[bytes]:
    """A JSON body that never ends: its opening, then whitespace, a byte at a time."""
    yield (
        b'{"id": "chatcmpl-hostile", "object": "chat.completion", '
        if wire == "chat"
        else b'{"id": "resp_hostile", '
    )
    while True:
        yield b" "
