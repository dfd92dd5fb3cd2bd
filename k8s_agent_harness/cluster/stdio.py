"""The stdio transport of the MCP client: the server as a child process, JSON-RPC lines over its stdin
and stdout, every buffer bounded whatever the server writes.

The `mcp` library's stdio client reads stdout as text, a line held whole however long, stops at the
first invalid UTF-8 byte, and hands stderr to a file that grows as long as the server writes. Here:

- stdout is read as bytes, in chunks, and cut into lines. A line longer than MAX_LINE_BYTES is
  discarded as it arrives: only its first and last ID_WINDOW bytes are kept, to find its JSON-RPC id.
- Invalid UTF-8 is replaced (U+FFFD), never the end of the connection.
- A line that cannot be read (too long, nested deeper than MAX_JSON_DEPTH, not JSON-RPC) is skipped;
  when it is the answer to a request in flight (its top-level `id`, found in its first or last bytes,
  is one the client sent and not yet answered; it has no `method`), that request is answered at once
  with an error naming the cause, marked as the client's own (UNREAD_MARK in its `data`). The server
  stays connected: its later answers are read as usual.
- stderr is a pipe, drained as it comes; the last bytes are kept in memory (StderrTail), the rest
  discarded: they explain a failure, nothing more.
- Stopping is the library's: stdin closed, a grace period, then the whole process group terminated
  (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.lowlevel
import mcp_types
from anyio.abc import AsyncResource, ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line read from a server's stdout: longer ones are discarded as they arrive."""
MAX_JSON_DEPTH = 200
"""The deepest nesting of JSON values in a message that is read (the JSON parser stops near it)."""
STDERR_KEEP_BYTES = 64 * 1024
"""The server's last stderr bytes kept in memory (the rest is read and discarded)."""
READ_CHUNK = 64 * 1024
ID_WINDOW = 4096
"""How far into a line, from either end, its JSON-RPC id is looked for when the line cannot be read."""
UNREAD_MARK = "k8s-agent: unread answer"
"""In the `data` of an error the transport answers itself: the cause is the client's, not the server's."""
PROCESS_TERMINATION_TIMEOUT = 2.0
"""Grace period for the server to exit on its own after its stdin closes (as the `mcp` library)."""
FORCE_KILL_TIMEOUT = 2.0
"""After SIGTERM to its process group, how long before SIGKILL (as the `mcp` library)."""
REAP_TIMEOUT = 2.0
WRITER_FLUSH_TIMEOUT = 0.5
STDERR_EOF_GRACE = 1.0
"""After the server's stdout ends, how long its stderr may take to end too, so that a failure's
explanation holds its last words (longer only when a child of the server holds stderr open)."""
_EXIT_POLL_INTERVAL = 0.01

logger = logging.getLogger(__name__)

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


class StderrTail:
    """What a server wrote to stderr: how much (`total`), and the last STDERR_KEEP_BYTES of it.

    One for a client's whole run (restarts included), so that offsets into it stay comparable."""

    def __init__(self, keep: int = STDERR_KEEP_BYTES) -> None:
        self.keep = keep
        self.total = 0
        """Bytes the server wrote to stderr, all its processes together."""
        self._kept = bytearray()

    @property
    def held(self) -> int:
        """Bytes held in memory."""
        return len(self._kept)

    def write(self, data: bytes) -> None:
        self.total += len(data)
        self._kept += data[-self.keep :]
        if len(self._kept) > self.keep:
            del self._kept[: -self.keep]

    def since(self, offset: int, most: int | None = None) -> bytes:
        """The kept bytes written after `offset` (of `total`), the last `most` of them at most."""
        start = max(offset, self.total - len(self._kept))
        if most is not None:
            start = max(start, self.total - most)
        return bytes(self._kept[start - (self.total - len(self._kept)) :]) if start < self.total else b""

    def close(self) -> None:
        self._kept = bytearray()


@asynccontextmanager
async def stdio_transport(
    command: Sequence[str], env: Mapping[str, str], stderr: StderrTail
) -> AsyncIterator[Streams]:
    """Start `command` (in a session of its own, with the library's safe environment plus `env`) and
    connect to it over its stdin and stdout; its stderr goes to `stderr`. Raises OSError if it cannot
    be started."""
    process = await anyio.open_process(
        list(command),
        env=get_default_environment() | dict(env),
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    # No awaits until the task group is entered: a cancellation in the gap would leak the process.
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    reader = LineReader()
    writer_done = anyio.Event()
    stderr_done = anyio.Event()

    async def stdout_reader() -> None:
        assert process.stdout is not None
        lines = LineSplitter()
        try:
            async with read_stream_writer:
                try:
                    while True:
                        try:
                            chunk = await process.stdout.receive(READ_CHUNK)
                        except anyio.EndOfStream:
                            break
                        for piece in lines.feed(chunk):
                            message = reader.read(piece)
                            if message is not None:
                                # One message at a time: no read-ahead while a delivery waits.
                                await read_stream_writer.send(message)
                    # The connection is about to end: read what the server said last on stderr first.
                    with anyio.move_on_after(STDERR_EOF_GRACE):
                        await stderr_done.wait()
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session is gone; only the drain below remains
                finally:
                    await _drain(process.stdout)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            pass  # our own shutdown closed stdout under the read; the session sees the stream end

    async def stderr_reader() -> None:
        assert process.stderr is not None
        try:
            while True:
                stderr.write(await process.stderr.receive(READ_CHUNK))
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            stderr_done.set()

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    reader.sent(session_message.message)
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode("utf-8", "replace"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still run: end the read stream, so that a request does not wait forever.
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()  # the reader drains from now: a server stuck writing stdout can read its stdin
        write_stream.close()
        with anyio.move_on_after(WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await _stop(process)
        with anyio.move_on_after(STDERR_EOF_GRACE):
            await stderr_done.wait()
        assert process.stderr is not None
        await _close(process.stderr)
        await _aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(stdout_reader)
        group.start_soon(stderr_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            # Shutdown finishes even when the caller is cancelled (every wait in it is bounded), or
            # the server process would be left running.
            with anyio.CancelScope(shield=True):
                await shutdown()
            group.cancel_scope.cancel()  # a pipe a surviving child holds open must not hold us
    await anyio.lowlevel.cancel_shielded_checkpoint()


class LineSplitter:
    """Cuts a byte stream into lines; a line longer than `cap` is not held: it comes out as an
    `Oversized` with its first and last `window` bytes and its size."""

    def __init__(self, cap: int = MAX_LINE_BYTES, window: int = ID_WINDOW) -> None:
        self.cap = cap
        self.window = window
        self._line = bytearray()
        self._over: Oversized | None = None

    def feed(self, chunk: bytes) -> list[bytearray | Oversized]:
        """The lines `chunk` completes (and an `Oversized` as soon as a line passes the cap, once)."""
        done: list[bytearray | Oversized] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if self._over is None:
                self._line += piece
                if len(self._line) > self.cap:
                    self._over = Oversized(bytes(self._line[: self.window]), len(self._line))
                    self._over.add_tail(self._line[-self.window :], self.window)
                    self._line = bytearray()
                    done.append(self._over.early())
            else:
                self._over.size += len(piece)
                self._over.add_tail(piece, self.window)
            if end < 0:
                return done
            if self._over is not None:
                done.append(self._over)
                self._over = None
            else:
                done.append(self._line)  # handed over, not copied
                self._line = bytearray()
            start = end + 1


class Oversized:
    """A line longer than the cap: its first bytes, its last bytes so far, its size so far."""

    def __init__(self, head: bytes, size: int, *, complete: bool = True) -> None:
        self.head = head
        self.tail = b""
        self.size = size
        self.complete = complete
        """False: the line goes on (only its head is known); True: it ended."""

    def add_tail(self, data: bytes | bytearray, window: int) -> None:
        self.tail = (self.tail + bytes(data[-window:]))[-window:]

    def early(self) -> Oversized:
        """The line as known when it passed the cap: its head only."""
        return Oversized(self.head, self.size, complete=False)


class LineReader:
    """Reads stdout's lines as JSON-RPC messages, and answers a request in flight itself when its
    answer cannot be read."""

    def __init__(self) -> None:
        self._in_flight: dict[Any, mcp_types.RequestId] = {}
        """The requests sent and not yet answered: the id as the library correlates it, and as sent."""

    def sent(self, message: Any) -> None:
        """Note a message the client sends: a request waits for its answer; a cancelled one no longer."""
        if isinstance(message, mcp_types.JSONRPCRequest):
            self._in_flight[coerce_request_id(message.id)] = message.id
        elif (
            isinstance(message, mcp_types.JSONRPCNotification) and message.method == "notifications/cancelled"
        ):
            cancelled = as_request_id((message.params or {}).get("requestId"))
            if cancelled is not None:
                self._in_flight.pop(coerce_request_id(cancelled), None)

    def read(self, line: bytes | bytearray | Oversized) -> SessionMessage | None:
        """The message on `line`, the client's own error for the request it answers when it cannot be
        read, or None (a line skipped)."""
        if isinstance(line, Oversized):
            size = MAX_LINE_BYTES // (1024 * 1024)
            return self._unread(line.head, line.tail, f"the server's answer was larger than {size} MB")
        if not line.strip():
            return None
        text = line.decode("utf-8", "replace")
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError as error:
            reason = (
                f"the server's answer is nested deeper than {MAX_JSON_DEPTH} levels"
                if nested_deeper_than(line, MAX_JSON_DEPTH)
                else f"the server's answer is not a JSON-RPC message ({_first_problem(error)})"
            )
            logger.debug("skipped a line of the MCP server's stdout: %s", reason)
            return self._unread(bytes(line[:ID_WINDOW]), bytes(line[-ID_WINDOW:]), reason)
        if isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) and message.id is not None:
            self._in_flight.pop(coerce_request_id(message.id), None)
        return SessionMessage(message)

    def _unread(self, head: bytes, tail: bytes, reason: str) -> SessionMessage | None:
        """The client's error for the request in flight a line it cannot read answers, if any."""
        request_id = self._answered(head, tail)
        if request_id is None:
            return None
        error = mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=reason, data=UNREAD_MARK)
        return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    def _answered(self, head: bytes, tail: bytes) -> mcp_types.RequestId | None:
        first, last = top_level_members(head), top_level_members_from_end(tail)
        if "method" in first or "method" in last:
            return None  # a request or a notification of the server's, not an answer
        raw = first.get("id") or last.get("id")
        if not raw:
            return None
        try:
            found = as_request_id(json.loads(raw))
        except ValueError:
            return None
        if found is None:
            return None
        return self._in_flight.pop(coerce_request_id(found), None)


def _first_problem(error: ValueError) -> str:
    if isinstance(error, ValidationError) and error.errors():
        return str(error.errors()[0]["msg"])
    return str(error).splitlines()[0] if str(error) else type(error).__name__


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def nested_deeper_than(line: bytes | bytearray, limit: int) -> bool:
    """Whether the JSON on `line` nests arrays and objects more than `limit` deep."""
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    if re.search(rb"[\[{]{%d}" % (limit + 1), brackets):
        return True
    depth = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|([\[\]{}:,])|([^\s\[\]{}:,"]+))', re.DOTALL)
_CONTAINER = b"{}"
"""The value noted for a member whose value is an object or an array."""
_DELIMITERS = frozenset(b' \t\r\n"[]{}:,')


def top_level_members(head: bytes) -> dict[str, bytes]:
    """The members of the JSON object `head` begins, as far as `head` goes: each name, and its value's
    text when it is a string, a number or a literal (_CONTAINER for an object or an array)."""
    members: dict[str, bytes] = {}
    depth, position, key, expect = 0, 0, None, "start"
    while match := _TOKEN.match(head, position):
        position = match.end()
        string, mark, other = match.groups()
        if depth == 0 and mark != b"{":
            return members  # not an object
        if mark in (b"{", b"["):
            depth += 1
            if depth == 1:
                expect = "key"
            elif depth == 2 and expect == "value" and key is not None:
                members[key] = _CONTAINER
                expect = ""
        elif mark in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return members
        elif depth != 1:
            continue
        elif mark == b":":
            expect = "value" if expect == "colon" else ""
        elif mark == b",":
            key, expect = None, "key"
        elif string is not None and expect == "key":
            key, expect = _name(string), "colon"
        elif expect == "value" and key is not None:
            members[key] = string if string is not None else other
            expect = ""
    return members


def top_level_members_from_end(tail: bytes) -> dict[str, bytes]:
    """The members of the JSON object `tail` ends, as far back as `tail` goes (as top_level_members)."""
    members: dict[str, bytes] = {}
    depth, position, value, after_colon = 0, len(tail), None, False
    while True:
        while position > 0 and tail[position - 1 : position].isspace():
            position -= 1
        if position == 0:
            return members
        last = tail[position - 1 : position]
        if last in (b"}", b"]"):
            if depth == 0 and last != b"}":
                return members
            depth += 1
            if depth == 2:
                value = _CONTAINER
            position -= 1
            continue
        if last in (b"{", b"["):
            depth -= 1
            if depth <= 0:
                return members
            position -= 1
            continue
        if last == b'"':
            start = _string_start(tail, position - 1)
            if start < 0:
                return members
            token = tail[start:position]
        elif last in (b":", b","):
            token = last
        else:
            start = position - 1
            while start > 0 and tail[start - 1] not in _DELIMITERS:
                start -= 1
            token = tail[start:position]
        position -= len(token)
        if depth != 1:
            continue
        if token == b":":
            after_colon = value is not None
        elif token == b",":
            value, after_colon = None, False
        elif after_colon and token.startswith(b'"'):
            name = _name(token)
            if name is not None and value is not None:
                members.setdefault(name, value)
            value, after_colon = None, False
        else:
            value = token


def _string_start(data: bytes, end: int) -> int:
    """Where the JSON string whose closing quote is at `end` opens; -1 if before `data`."""
    position = end
    while True:
        position = data.rfind(b'"', 0, position)
        if position < 0:
            return -1
        slashes = 0
        while position - slashes - 1 >= 0 and data[position - slashes - 1] == 0x5C:
            slashes += 1
        if slashes % 2 == 0:
            return position


def _name(token: bytes) -> str | None:
    try:
        name = json.loads(token)
    except ValueError:
        return None
    return name if isinstance(name, str) else None


async def _drain(stream: ByteReceiveStream) -> None:
    """Read and discard the rest of stdout, shielded, until it ends: a server flushing its output
    must not block on a full pipe and miss its chance to exit."""
    with anyio.CancelScope(shield=True):
        with suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError
        ):
            while True:
                await stream.receive(READ_CHUNK)


async def _stop(process: Process) -> None:
    """Close stdin, wait out the grace period, then end the whole process group (the MCP spec's
    shutdown sequence, and the `mcp` library's bounds)."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    await _close(process.stdin)
    if not await _exited(process, PROCESS_TERMINATION_TIMEOUT):
        await terminate_posix_process_tree(process, FORCE_KILL_TIMEOUT)
        if not await _exited(process, REAP_TIMEOUT):
            logger.warning("MCP server process %d is still alive after SIGKILL; abandoning it", process.pid)
    # A child of the server can hold the pipes open: close them all the same.
    await _close(process.stdout)
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with suppress(PermissionError):
            close()


async def _exited(process: Process, within: float) -> bool:
    """Whether the process exited within `within` seconds (polled: `wait()` also waits for the pipes' end,
    which a child holding them would postpone)."""
    deadline = anyio.current_time() + within
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(_EXIT_POLL_INTERVAL)
    return True


async def _close(stream: AsyncResource) -> None:
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.aclose()


async def _aclose_all(*streams: AsyncResource) -> None:
    for stream in streams:
        await stream.aclose()
