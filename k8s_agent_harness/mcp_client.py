"""The MCP client: starts a stdio server, lists its tools, calls them; never raises into the loop.

The connection lives in one background task that owns the `mcp.Client` context (anyio task
groups must be entered and left by the same task, while the SDK runs tools in tasks of its
own). Callers in any task send requests through it. A server that dies or stops answering is
restarted once and the call retried; after that every call returns a failure at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

import anyio
import mcp_types
from mcp import Client, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from k8s_agent_harness import events
from k8s_agent_harness.errors import McpServerError
from k8s_agent_harness.redact import public_url
from k8s_agent_harness.tools import ToolSpec, clean_description
from k8s_agent_harness.vocabulary import FailureKind

CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
PING_TIMEOUT = 3.0
MAX_TOOL_PAGES = 50
STDERR_TAIL_LINES = 12
STDERR_TAIL_BYTES = 16_384

_RETRYABLE = re.compile(
    r"(?i)(\b(?:408|429|502|503|504)\b|too many requests|rate.?limit|throttl|service unavailable|bad gateway"
    r"|gateway time-?out|temporarily unavailable|try again later)"
)
_RETRY_AFTER = re.compile(r"(?i)retry[-_ ]?after\D{0,6}?(\d+(?:\.\d+)?)\s*(ms|milliseconds)?")


@dataclass(frozen=True)
class ToolFailure:
    """Why a tool call failed, kept as data until the gateway decides what to do."""

    reason: str
    kind: FailureKind
    retryable: bool = False
    retry_after: float | None = None


@dataclass(frozen=True)
class ToolResult:
    """What one MCP call produced: the result flattened to text, or a failure."""

    text: str
    failure: ToolFailure | None = None
    structured: Any = None
    """The server's `structuredContent` (JSON), when it sent one: kept next to the text, never
    instead of it."""

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.failure is None


def classify_failure(reason: str, kind: FailureKind, structured: Any = None) -> ToolFailure:
    """Decide whether a failure is worth retrying, and after how long the server asked for."""
    retryable = bool(_RETRYABLE.search(reason))
    retry_after: float | None = None
    if isinstance(structured, Mapping):
        if isinstance(structured.get("retryable"), bool):
            retryable = structured["retryable"]
        if isinstance(structured.get("retry_after"), int | float):
            retry_after = float(structured["retry_after"])
    if retry_after is None and (match := _RETRY_AFTER.search(reason)):
        retry_after = float(match[1]) / (1000 if match[2] else 1)
        retryable = True
    if retry_after is not None and not (math.isfinite(retry_after) and retry_after >= 0):
        retry_after = None
    return ToolFailure(reason=reason, kind=kind, retryable=retryable, retry_after=retry_after)


def flatten(result: mcp_types.CallToolResult) -> str:
    """A tool result as one text: text blocks joined, other blocks described, else structured JSON."""
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        elif isinstance(block, mcp_types.EmbeddedResource):
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri}]")
        elif isinstance(block, mcp_types.ResourceLink):
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{block.type} content: {getattr(block, 'mime_type', 'unknown type')}]")
    if not parts and result.structured_content is not None:
        import json

        parts.append(json.dumps(result.structured_content, sort_keys=True, default=str))
    # JSON may carry lone surrogates (`"\\udcff"`) that no UTF-8 request can: keep them, escaped.
    return "\n".join(parts).encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass
class _Connection:
    """One server process and its session; replaced on restart."""

    generation: int
    ready: anyio.Event = field(default_factory=anyio.Event)
    client: Client | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    error: BaseException | None = None


class McpClient:
    """A running stdio MCP server: its tools, and calls that return results or failures."""

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        call_timeout: float = 30.0,
        start_timeout: float = 30.0,
        restarts: int = 1,
        on_event: Callable[[events.McpRestart | events.McpToolsChanged], object] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        ca_file: str | None = None,
    ) -> None:
        if not command and not url:
            raise McpServerError("no MCP server command given")
        self.command = tuple(command)
        self.url = url
        """A deployed server's Streamable HTTP endpoint, reached instead of starting `command`."""
        self.headers = dict(headers or {})
        self.ca_file = ca_file
        self._http_refusal: int | None = None
        self.env = dict(env or {})
        self.call_timeout = call_timeout
        self.start_timeout = start_timeout
        self._restarts_left = restarts
        # The server's stderr goes to a file (never the user's terminal); its tail explains failures.
        self._stderr = cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
        self._connection = _Connection(generation=0)
        self._pending = self._connection
        self._wake = anyio.Event()
        self._started = anyio.Event()
        self._closing = False
        self._lock = anyio.Lock()
        self._gone_reason: str | None = None
        self.tools_changed = False
        self.on_event = on_event
        """Told about restarts and tool-list changes (the run's trace)."""
        self.tools: list[ToolSpec] = []
        self.restarts = 0

    @classmethod
    @asynccontextmanager
    async def running(
        cls,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        **options: Any,
    ) -> AsyncIterator[McpClient]:
        """Start the server, list its tools, and stop it on exit; raises McpServerError if it cannot start."""
        client = cls(command, env, **options)
        # A plain task, not a task group: errors of the caller's block must reach it unwrapped.
        owner = asyncio.create_task(client._own_connections())
        try:
            await client._started.wait()
            connection = client._connection
            if connection.client is None:
                raise client._start_error(connection.error)
            client.tools = connection.tools
            yield client
        finally:
            client._closing = True
            client._wake.set()
            if not client._started.is_set():
                # Interrupted while the server starts: stop waiting for its initialize answer now,
                # not when the start timeout ends (the MCP client still stops the process tree).
                owner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await owner
            client._stderr.close()

    # -- calls ---------------------------------------------------------------------------

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call one tool; every failure comes back as a ToolResult, never as an exception."""
        if self._gone_reason is not None:
            return self._gone()
        if self.tools_changed:
            # What was checked (names, schemas, read-only annotations) may no longer hold.
            reason = "the server changed its tool list during the run; calls to it are refused"
            return ToolResult("", ToolFailure(reason, FailureKind.REFUSED))
        connection = self._connection
        result = await self._call_once(connection, name, arguments)
        if result.failure is None or result.failure.kind != FailureKind.TRANSPORT:
            return result
        if not await self._restart(connection, result.failure.reason):
            return self._gone()
        result = await self._call_once(self._connection, name, arguments)
        if result.failure is not None and result.failure.kind == FailureKind.TRANSPORT:
            self._gone_reason = f"{result.failure.reason} again after a restart"
            return self._gone()
        return result

    async def _call_once(
        self, connection: _Connection, name: str, arguments: Mapping[str, Any]
    ) -> ToolResult:
        client = connection.client
        if client is None:
            return ToolResult(
                "", ToolFailure(self._describe_death("is not connected"), FailureKind.TRANSPORT)
            )
        since = self._stderr_size()
        try:
            result = await client.call_tool(name, dict(arguments), read_timeout_seconds=self.call_timeout)
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                if await self._responsive(client):
                    reason = f"timed out after {self.call_timeout:g}s"
                    return ToolResult("", ToolFailure(reason, FailureKind.TIMEOUT))
                return ToolResult(
                    "", ToolFailure(self._describe_death("stopped answering", since), FailureKind.TRANSPORT)
                )
            if error.code == CONNECTION_CLOSED and error.message == "Connection closed":
                return ToolResult(
                    "",
                    ToolFailure(self._describe_death("closed the connection", since), FailureKind.TRANSPORT),
                )
            reason = f"{error.message} (JSON-RPC error {error.code})"
            return ToolResult("", classify_failure(reason, FailureKind.PROTOCOL_ERROR, error.data))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError) as error:
            return ToolResult(
                "",
                ToolFailure(
                    self._describe_death(f"transport failed: {type(error).__name__}", since),
                    FailureKind.TRANSPORT,
                ),
            )
        except ValidationError as error:
            reason = f"the server sent an invalid result ({error.error_count()} validation errors)"
            return ToolResult("", ToolFailure(reason, FailureKind.PROTOCOL_ERROR))
        text = flatten(result)
        if result.is_error:
            # FastMCP-style servers prefix every error; the gateway names the tool already.
            text = text.removeprefix(f"Error executing tool {name}: ")
            return ToolResult(
                "",
                classify_failure(
                    text or "the tool reported an error", FailureKind.TOOL_ERROR, result.structured_content
                ),
            )
        return ToolResult(text, structured=result.structured_content)

    async def _responsive(self, client: Client) -> bool:
        """Whether the server still answers at all (a slow tool, not a dead server)."""
        try:
            # tools/list, not ping: ping is deprecated in the 2026 protocol revision.
            with anyio.fail_after(PING_TIMEOUT):
                await client.list_tools()
        except (MCPError, TimeoutError, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return False
        return True

    def _gone(self) -> ToolResult:
        reason = f"the MCP server is gone ({self._gone_reason}); this could not be checked"
        return ToolResult("", ToolFailure(reason, FailureKind.GONE))

    # -- connection ownership --------------------------------------------------------------

    async def _restart(self, failed: _Connection, reason: str) -> bool:
        """Replace a dead connection once; returns whether a working one is in place."""
        async with self._lock:
            if self._connection.generation != failed.generation:
                return self._connection.client is not None  # another caller restarted it already
            if self._restarts_left <= 0 or self._closing:
                self._gone_reason = reason
                return False
            self._restarts_left -= 1
            self.restarts += 1
            next_connection = _Connection(generation=failed.generation + 1)
            self._pending = next_connection
            self._wake.set()
            with anyio.move_on_after(self.start_timeout + 10):
                await next_connection.ready.wait()
            if next_connection.client is None:
                self._gone_reason = f"{reason}; restart failed: {self._error_text(next_connection.error)}"
                self._tell(events.McpRestart(reason=reason, ok=False, error=self._gone_reason))
                return False
            self._tell(events.McpRestart(reason=reason, ok=True))
            if [t.signature() for t in next_connection.tools] != [t.signature() for t in self.tools]:
                self._tools_changed("the restarted server lists other tools")
            return True

    def _tools_changed(self, how: str) -> None:
        if not self.tools_changed:
            self.tools_changed = True
            self._tell(events.McpToolsChanged(detail=how))

    def _tell(self, event: events.McpRestart | events.McpToolsChanged) -> None:
        if self.on_event is not None:
            self.on_event(event)

    async def _own_connections(self) -> None:
        """Owns each server process in turn: start it, serve until woken, then stop or restart."""
        connection = self._connection
        while True:
            try:
                async with self._new_client() as client:
                    connection.tools = await self._list_tools(client)
                    connection.client = client
                    connection.ready.set()
                    self._started.set()
                    await self._wake.wait()
            except Exception as error:  # boundary: a failed start or a dead server is data for the caller
                connection.error = error
            connection.client = None
            connection.ready.set()
            self._started.set()
            await self._wake.wait()
            if self._closing:
                return
            self._wake = anyio.Event()
            connection = self._connection = self._pending

    def _new_client(self) -> Client:
        if self.url is not None:
            transport: Any = self._http_transport(self.url)
        else:
            params = StdioServerParameters(command=self.command[0], args=list(self.command[1:]), env=self.env)
            transport = stdio_client(params, errlog=self._stderr)
        # "legacy" is the initialize handshake every server in the field speaks; no discover probe.
        return Client(
            transport,
            mode="legacy",
            cache=None,
            read_timeout_seconds=self.start_timeout,
            message_handler=self._on_message,
        )

    def _http_transport(self, url: str) -> Any:
        """Streamable HTTP to `url`: the headers on every request, TLS verified (against `ca_file`
        when given), connect and write bounded by the start timeout, reads by the call timeout."""
        import ssl

        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        verify: Any = ssl.create_default_context(cafile=self.ca_file) if self.ca_file else True
        timeout = httpx2.Timeout(self.start_timeout, read=max(self.call_timeout, self.start_timeout) + 5)

        async def note_status(response: Any) -> None:  # the transport reports any refusal as -32603
            if response.status_code >= 400:
                self._http_refusal = response.status_code

        http = httpx2.AsyncClient(
            headers=self.headers, timeout=timeout, verify=verify, event_hooks={"response": [note_status]}
        )
        return _closing_http(streamable_http_client(url, http_client=http), http)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_changed("the server sent notifications/tools/list_changed")
        await anyio.lowlevel.checkpoint()

    async def _list_tools(self, client: Client) -> list[ToolSpec]:
        tools: list[ToolSpec] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                annotations = tool.annotations
                tools.append(
                    ToolSpec(
                        name=tool.name,
                        description=clean_description(tool.description),
                        input_schema=dict(tool.input_schema or {}),
                        read_only=annotations.read_only_hint if annotations is not None else None,
                    )
                )
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    # -- diagnostics -----------------------------------------------------------------------

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES, since: int = 0) -> str:
        """The last lines the server wrote to stderr (after byte offset `since`)."""
        try:
            # pread: the server shares this file's offset, so never seek it.
            fd = self._stderr.fileno()
            size = os.fstat(fd).st_size
            start = max(since, size - STDERR_TAIL_BYTES)
            text = os.pread(fd, size - start, start).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def _stderr_size(self) -> int:
        try:
            return os.fstat(self._stderr.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def _describe_death(self, what: str, since: int = 0) -> str:
        last = self.stderr_tail(1, since)
        return f"MCP server {what}" + (f" (stderr: {last})" if last else "")

    def _start_error(self, error: BaseException | None) -> McpServerError:
        if self.url is not None:
            status = self._http_refusal
            why = self._error_text(error) if status is None else _http_refusal_text(status)
            return McpServerError(f"MCP server at {public_url(self.url)} cannot be used: {why}")
        command = " ".join(self.command)
        return McpServerError(
            f"MCP server failed to start ({command}): {self._error_text(error)}", self.stderr_tail()
        )

    @staticmethod
    def _error_text(error: BaseException | None) -> str:
        if error is None:
            return "unknown error"
        if isinstance(error, BaseExceptionGroup) and error.exceptions:
            return McpClient._error_text(error.exceptions[0])
        status = getattr(getattr(error, "response", None), "status_code", None)
        if isinstance(status, int):
            return _http_refusal_text(status)
        if type(error).__module__.startswith("httpx"):
            return f"cannot reach the server: {error or type(error).__name__}"
        if isinstance(error, FileNotFoundError):
            return f"command not found: {error.filename}"
        if isinstance(error, PermissionError):
            return f"permission denied: {error.filename}"
        if isinstance(error, MCPError):
            if error.code == CONNECTION_CLOSED:
                return "the server exited during start-up"
            if error.code == REQUEST_TIMEOUT:
                return "the server did not answer the initialize request in time (--mcp-start-timeout)"
            return f"{error.message} (JSON-RPC error {error.code})"
        return str(error) or type(error).__name__


@asynccontextmanager
async def _closing_http(transport: Any, http: Any) -> AsyncIterator[Any]:
    """The transport, then the HTTP client it was given (the transport leaves a given one open)."""
    try:
        async with transport as streams:
            yield streams
    finally:
        await http.aclose()


def _http_refusal_text(status: int) -> str:
    hint = " (check the token or headers: --mcp-token, --mcp-header)" if status in (401, 403) else ""
    return f"the server answered HTTP {status}{hint}"
