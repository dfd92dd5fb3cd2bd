"""The run pool of `eval`, `compare` and `contract`: many runs of one command in one event loop.

    results = await run_pool(items, run, concurrency=N, on_done=callback)

Each item's `run` holds one of `concurrency` slots while it runs; `on_done(item, result)` is told
as each ends (it may be async: appending a results line); the results come back in the items'
order. When a run raises, or the pool is cancelled (Ctrl-C), every run still going is cancelled and
awaited before the pool returns: no run outlives its command, and each run's own clean-up (its
servers, its trace) has happened.

A real model endpoint is reached through a `RateGate`, a loopback proxy every run's requests go
through: a 429 pauses every run of the pool for the endpoint's `Retry-After` (else a doubling
backoff) and the request is retried there, so one run's rate limit slows the pool instead of
failing the run. What only `eval` needs (its results file to resume, its shards of the corpus)
stays in k8s_agent/eval/runner.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import inspect
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


async def run_pool(
    items: Sequence[Item],
    run: Callable[[Item], Awaitable[Result]],
    *,
    concurrency: int,
    on_done: Callable[[Item, Result], Any] | None = None,
) -> list[Result]:
    """`run(item)` for every item, `concurrency` at a time; the results in the items' order."""
    slot = asyncio.Semaphore(max(1, concurrency))

    async def one(item: Item) -> Result:
        async with slot:
            result = await run(item)
        if on_done is not None:
            told = on_done(item, result)
            if inspect.isawaitable(told):
                await told
        return result

    tasks = [asyncio.ensure_future(one(item)) for item in items]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*tasks, return_exceptions=True)


# -- the rate-limit gate --------------------------------------------------------------------------------


class RateGate:
    """A loopback proxy to one endpoint that turns a 429 into a pause of every request through it."""

    def __init__(self, upstream: str, *, max_waits: int = 8, first_wait: float = 1.0, max_wait: float = 60.0):
        self.upstream = upstream.rstrip("/")
        self.max_waits, self.first_wait, self.max_wait = max_waits, first_wait, max_wait
        self._until = 0.0
        self._lock = threading.Lock()
        self.rate_limited = 0
        """429s received."""
        self.paused_seconds = 0.0
        gate = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "content-length", "connection", "accept-encoding")
                }
                status, reply_headers, data = gate.forward(self.path, body, headers)
                self.send_response(status)
                for name, value in reply_headers:
                    if name.lower() not in (
                        "content-length",
                        "transfer-encoding",
                        "connection",
                        "content-encoding",
                    ):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="eval-rate-gate", daemon=True)

    @property
    def url(self) -> str:
        """The base URL the runs use: the upstream's path on the gate."""
        host, port = self._server.server_address[:2]
        path = urllib.parse.urlsplit(self.upstream).path
        return f"http://{host!s}:{port}{path}"

    def __enter__(self) -> RateGate:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _wait_turn(self) -> None:
        while True:
            with self._lock:
                left = self._until - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, 0.5))

    def _pause(self, retry_after: str | None, attempt: int) -> None:
        seconds = _retry_after(retry_after)
        if seconds is None:
            seconds = min(self.max_wait, self.first_wait * 2**attempt)
        seconds = min(self.max_wait, max(0.0, seconds))
        with self._lock:
            self.rate_limited += 1
            until = time.monotonic() + seconds
            if until > self._until:
                self.paused_seconds += until - max(self._until, time.monotonic())
                self._until = until

    def forward(
        self, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urllib.parse.urlsplit(self.upstream)
        target = f"{parts.scheme}://{parts.netloc}{path}"
        for attempt in range(self.max_waits + 1):
            self._wait_turn()
            request = urllib.request.Request(target, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=600) as response:
                    return response.status, list(response.headers.items()), response.read()
            except urllib.error.HTTPError as error:
                data = error.read()
                if error.code == 429 and attempt < self.max_waits:
                    self._pause(error.headers.get("Retry-After"), attempt)
                    continue
                return error.code, list(error.headers.items()), data
            except (urllib.error.URLError, OSError) as error:
                reason = getattr(error, "reason", error)
                message = json.dumps({"error": {"message": f"eval gate: upstream unreachable: {reason}"}})
                return 502, [("Content-Type", "application/json")], message.encode()
        raise AssertionError("unreachable")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A run that went away mid-request (Ctrl-C) is not an error to print."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (delta or HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return moment.timestamp() - time.time()
