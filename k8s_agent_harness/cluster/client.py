"""The MCP client: starts a stdio server (or reaches one over HTTP), lists its tools, calls them;
never raises into the loop.

The connection lives in one background task that owns the `mcp.Client` context (anyio task
groups must be entered and left by the same task, while the SDK runs tools in tasks of its
own). Callers in any task send requests through it. A stdio server that dies or stops answering
is restarted once and the call retried; a server over HTTP (Streamable HTTP, or the older
HTTP+SSE) that refuses connections, resets them, loses the session or stops answering gets one
reconnect (a new session), tried a few times with backoff within the start timeout, and the call
retried. After that every call returns a failure at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.metadata
import logging
import math
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from k8s_agent_harness.cluster.content import read_content
from k8s_agent_harness.cluster.listing import Listing, list_tools
from k8s_agent_harness.cluster.results import (
    ProgressListener,
    ToolFailure,
    ToolListing,
    ToolResult,
    classify_failure,
    unreadable_result,
)
from k8s_agent_harness.cluster.stdio import UNREAD_MARK, StderrTail, stdio_transport
from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.errors import McpServerError
from k8s_agent_harness.evidence.redact import public_url
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import FailureKind

CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
PING_TIMEOUT = 3.0
RECONNECT_DELAYS = (0.1, 0.3, 1.0, 2.0)
"""Pauses before the second, third, ... attempt to open a new session with a server over HTTP."""
NOTIFY_TIMEOUT = 1.0
"""How long the POST of `notifications/cancelled` to a server over HTTP may take (a working server
answers 202 at once; it is sent after a call timed out, when the server may have frozen)."""
HTTP_CLOSE_GRACE = 2.0
"""How long closing an HTTP session may take (its DELETE); a broken one is dropped at once."""
STDIO, STREAMABLE_HTTP, SSE = "stdio", "streamable-http", "sse"
_SDK_LOGS = logging.NullHandler()
LIBRARY_TIMEOUT_SLACK = 5.0
"""How much longer than the run's own bound the MCP library waits for a call (ours ends it first)."""
INITIALIZE, TOOLS_LIST = "initialize", "tools/list"
STDERR_TAIL_LINES = 12
STDERR_TAIL_BYTES = 16_384


class _CallClock:
    """The bound of one call: `timeout` seconds without an answer or a progress notification,
    `most` seconds in all, however often the server reports progress, and never past what the run's
    time budget leaves (`within`)."""

    def __init__(
        self, timeout: float, most: float, listener: ProgressListener | None, within: float | None = None
    ) -> None:
        self.timeout = timeout
        self.most = max(most, timeout)
        self.listener = listener
        self.within = within
        self.notifications = 0
        self._scope: anyio.CancelScope | None = None
        self._started = 0.0
        self._capped = False
        """Whether the deadline in force is the maximum, not the timeout."""
        self._budget_end = math.inf

    def start(self, scope: anyio.CancelScope) -> None:
        """Bound the call that runs in `scope`, from now."""
        self._scope = scope
        self._started = anyio.current_time()
        if self.within is not None:
            self._budget_end = self._started + max(0.0, self.within)
        scope.deadline = min(self._started + self.timeout, self._budget_end)

    async def heard(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress notification: the call gets another `timeout` seconds, within `most`."""
        self.notifications += 1
        if self._scope is not None:
            renewed = anyio.current_time() + self.timeout
            last = self._started + self.most
            self._capped = last <= renewed
            self._scope.deadline = min(renewed, last, self._budget_end)
        if self.listener is not None:
            self.listener(progress, total, message)

    @property
    def out_of_budget(self) -> bool:
        """Whether the run's time budget, not the call's own bound, ended the call."""
        return self._scope is not None and self._scope.deadline >= self._budget_end

    def timeout_reason(self) -> str:
        """Why the call was given up, for the model."""
        if self.out_of_budget:
            elapsed = anyio.current_time() - self._started
            return (
                f"cancelled after {elapsed:.0f}s: the run's time budget (--max-seconds) ran out while "
                "the call was running"
            )
        if not self.notifications:
            return f"timed out after {self.timeout:g}s"
        reported = f"{self.notifications} progress notification{'s' if self.notifications != 1 else ''}"
        if self._capped:
            return (
                f"still running after {self.most:g}s, the most one call may take (--tool-max-seconds), "
                f"although the server reported progress ({reported})"
            )
        elapsed = anyio.current_time() - self._started
        return f"timed out: no progress for {self.timeout:g}s after {reported} ({elapsed:.0f}s in all)"


@dataclass
class _Connection:
    """One server process and its session; replaced on restart."""

    generation: int
    ready: anyio.Event = field(default_factory=anyio.Event)
    client: Client | None = None
    listing: Listing = field(default_factory=lambda: Listing(()))
    phase: str = INITIALIZE
    """The request the start is waiting for: `initialize`, then `tools/list`."""
    error: BaseException | None = None
    refused: int | None = None
    """The HTTP status of the last response that refused a request (4xx, 5xx)."""
    session_lost: bool = False
    """The server answered 404 to a request of this session: it no longer knows it."""
    in_flight: set[anyio.CancelScope] = field(default_factory=set)
    """The calls waiting for an answer: ended at once when the session is lost (over SSE a refused
    POST never answers them)."""
    broken: bool = False
    """Replaced after a failure: closing it need not say goodbye to the server."""
    session_id: str | None = None
    """The session a server over Streamable HTTP opened (its `Mcp-Session-Id` header)."""
    server: tuple[str, str] | None = None
    """The name and version the server gave (`serverInfo`), when it gave them."""
    protocol: str | None = None
    """The MCP protocol version the connection speaks."""


def _identity(client: Client) -> tuple[tuple[str, str] | None, str | None]:
    """The server's name and version as it gave them, and the protocol version in use."""
    info = client.session.server_info
    server = (str(info.name), str(info.version or "")) if info is not None and info.name else None
    return server, client.session.protocol_version


class McpClient:
    """A running stdio MCP server: its tools, and calls that return results or failures."""

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        call_timeout: float = 30.0,
        start_timeout: float = 30.0,
        max_call_seconds: float | None = None,
        restarts: int = 1,
        on_event: Callable[[events.McpConnected | events.McpRestart], object] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        ca_file: str | None = None,
        transport: str | None = None,
    ) -> None:
        if not command and not url:
            raise McpServerError("no MCP server command given")
        self.command = tuple(command)
        self.url = url
        """A server's HTTP endpoint, reached instead of starting `command`."""
        self.headers = dict(headers or {})
        self.ca_file = ca_file
        self._auto = url is not None and transport is None
        self.transport = transport or (STREAMABLE_HTTP if url is not None else STDIO)
        """The transport in use: `stdio`, `streamable-http` or `sse` (after a fallback, `sse`)."""
        self.fallback: str | None = None
        """Why SSE is used instead of Streamable HTTP, when the server did not speak it."""
        self.env = dict(env or {})
        self.call_timeout = call_timeout
        """Seconds a call may go without an answer or a progress notification."""
        self.max_call_seconds = max(max_call_seconds or call_timeout, call_timeout)
        """Seconds a call may take at most, however often it reports progress."""
        self.start_timeout = start_timeout
        self._restarts_left = restarts
        """One restart (stdio) or reconnect (HTTP) per run, as docs/failures.md says."""
        # The server's stderr is read (never the user's terminal) and its last bytes kept in memory:
        # they explain failures (stdio.py).
        self._stderr = StderrTail()
        self._connection = _Connection(generation=0)
        self._pending = self._connection
        self._wake = anyio.Event()
        self._started = anyio.Event()
        self._closing = False
        self._lock = anyio.Lock()
        self._gone_reason: str | None = None
        self.on_event = on_event
        """Told about connections and restarts (the run's trace)."""
        self.listing = ToolListing(0, ())
        """The server's tools as last listed; read again when the server says they changed."""
        self._listing_stale: str | None = None
        """Why the listing must be read again before it is used, when it must."""
        self._listing_lock = anyio.Lock()
        self.restarts = 0
        self.server: tuple[str, str] | None = None
        """The name and version the server gave at its first start (`serverInfo`), when it gave them:
        what the read-only policy knows it by (read_policy.py)."""
        self.protocol: str | None = None
        """The MCP protocol version the first connection negotiated."""
        self._mode = "legacy"
        """How a connection opens: the initialize handshake every server in the field speaks, or (once
        a server refused it, naming only modern versions) "auto": `server/discover`, the 2026 way."""

    @property
    def tools(self) -> list[ToolSpec]:
        """The server's tools as last listed."""
        return list(self.listing.tools)

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
        # The SDK logs a dropped HTTP connection with its traceback; here it is a failure as data. A
        # NullHandler only stops Python's last-resort printing: a configured logging still gets them.
        logging.getLogger("mcp").addHandler(_SDK_LOGS)
        # A plain task, not a task group: errors of the caller's block must reach it unwrapped.
        owner = asyncio.create_task(client._own_connections())
        try:
            await client._started.wait()
            connection = client._connection
            if connection.client is None:
                raise client._start_error(connection)
            client.listing = ToolListing(1, connection.listing.tools, problems=connection.listing.problems)
            client.server, client.protocol = connection.server, connection.protocol
            if client.url is not None:
                client._tell(
                    events.McpConnected(
                        url=public_url(client.url),
                        transport=client.transport,
                        fallback=client.fallback,
                        session_id=connection.session_id,
                    )
                )
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

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        on_progress: ProgressListener | None = None,
        within: float | None = None,
    ) -> ToolResult:
        """Call one tool; every failure comes back as a ToolResult, never as an exception.

        A `progressToken` goes with every call; each progress notification the server sends for it
        is told to `on_progress`, and gives the call another `call_timeout` seconds, up to
        `max_call_seconds` in all (the MCP spec lets a client reset its timeout on progress, and
        asks it to keep a maximum). A call still running `within` seconds from now (what the run's
        time budget leaves) is cancelled there (`notifications/cancelled`), whatever its own bounds."""
        if self._gone_reason is not None:
            return self._gone()
        started = anyio.current_time()
        connection = self._connection
        result = await self._call_once(connection, name, arguments, on_progress, within)
        if result.failure is None or result.failure.kind != FailureKind.TRANSPORT:
            return result
        if not await self._restart(connection, result.failure.reason):
            return self._gone()
        if within is not None:
            within -= anyio.current_time() - started
            if within <= 0:
                return result
        result = await self._call_once(self._connection, name, arguments, on_progress, within)
        if result.failure is not None and result.failure.kind == FailureKind.TRANSPORT:
            self._gone_reason = f"{result.failure.reason} again after a restart"
            return self._gone()
        return result

    async def _call_once(
        self,
        connection: _Connection,
        name: str,
        arguments: Mapping[str, Any],
        on_progress: ProgressListener | None,
        within: float | None = None,
    ) -> ToolResult:
        client = connection.client
        if client is None:
            return ToolResult(
                "", ToolFailure(self._describe_death("is not connected"), FailureKind.TRANSPORT)
            )
        since = self._stderr_size()
        clock = _CallClock(self.call_timeout, self.max_call_seconds, on_progress, within)
        try:
            with anyio.CancelScope() as bounded:
                clock.start(bounded)
                connection.in_flight.add(bounded)
                try:
                    result = await client.call_tool(
                        name,
                        dict(arguments),
                        read_timeout_seconds=self.max_call_seconds + LIBRARY_TIMEOUT_SLACK,
                        progress_callback=clock.heard,
                    )
                finally:
                    connection.in_flight.discard(bounded)
        except MCPError as error:
            return self._call_error(connection, error, since)
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
        except Exception as error:  # boundary: whatever the MCP library raises on a result is a tool failure
            return ToolResult("", ToolFailure(unreadable_result(error), FailureKind.PROTOCOL_ERROR))
        if (
            bounded.cancelled_caught
        ):  # our deadline (the library sent notifications/cancelled), or a lost session
            if connection.session_lost:
                reason = "MCP server lost the session (HTTP 404 for its session id)"
                return ToolResult("", ToolFailure(reason, FailureKind.TRANSPORT))
            if clock.out_of_budget:  # the run ends now: no time to ask whether the server still answers
                return ToolResult("", ToolFailure(clock.timeout_reason(), FailureKind.TIME_BUDGET))
            if await self._responsive(client):
                return ToolResult("", ToolFailure(clock.timeout_reason(), FailureKind.TIMEOUT))
            return ToolResult(
                "", ToolFailure(self._describe_death("stopped answering", since), FailureKind.TRANSPORT)
            )
        content = read_content(result)
        if result.is_error:
            # FastMCP-style servers prefix every error; the gateway names the tool already.
            text = content.text.removeprefix(f"Error executing tool {name}: ")
            return ToolResult(
                "",
                classify_failure(
                    text or "the tool reported an error", FailureKind.TOOL_ERROR, result.structured_content
                ),
                for_user=content.for_user,
            )
        return ToolResult(content.text, structured=result.structured_content, for_user=content.for_user)

    def _call_error(self, connection: _Connection, error: MCPError, since: int) -> ToolResult:
        """A JSON-RPC error, a lost session, a library timeout or a closed connection, as a failure."""
        if connection.session_lost:
            reason = "MCP server lost the session (HTTP 404 for its session id)"
            return ToolResult("", ToolFailure(reason, FailureKind.TRANSPORT))
        if error.code == REQUEST_TIMEOUT:  # only past our own bound: the server stopped answering
            return ToolResult(
                "", ToolFailure(self._describe_death("stopped answering", since), FailureKind.TRANSPORT)
            )
        if error.code == CONNECTION_CLOSED and error.message == "Connection closed":
            return ToolResult(
                "", ToolFailure(self._describe_death("closed the connection", since), FailureKind.TRANSPORT)
            )
        if error.code == CONNECTION_CLOSED and self.url is not None:  # e.g. "SSE stream ended ..."
            reason = f"MCP server closed the connection ({error.message})"
            return ToolResult("", ToolFailure(reason, FailureKind.TRANSPORT))
        if error.data == UNREAD_MARK:  # the transport's own answer: an answer too large or too deep to read
            return ToolResult("", ToolFailure(error.message, FailureKind.PROTOCOL_ERROR))
        reason = f"{error.message} (JSON-RPC error {error.code})"
        return ToolResult("", classify_failure(reason, FailureKind.PROTOCOL_ERROR, error.data))

    # -- the tool list ---------------------------------------------------------------------

    async def tool_listing(self) -> ToolListing:
        """The server's tools: as listed last, or listed again first when the server said they
        changed (`notifications/tools/list_changed`) or a restarted server lists other ones."""
        if self._listing_stale is None:
            return self.listing
        async with self._listing_lock:
            why = self._listing_stale
            client = self._connection.client
            if why is None or client is None:
                return self.listing
            self._listing_stale = None
            try:
                listing = await list_tools(self._page_fetcher(client))
            except Exception as error:  # boundary: a call or a model request never fails on a relisting
                problem = f"the server's tools could not be listed again ({self._error_text(error)}): the last list is used"
                self.listing = ToolListing(self.listing.generation + 1, self.listing.tools, why, (problem,))
                return self.listing
            self.listing = ToolListing(self.listing.generation + 1, listing.tools, why, listing.problems)
            return self.listing

    def _page_fetcher(self, client: Client) -> Any:
        async def fetch(cursor: str | None) -> mcp_types.ListToolsResult:
            return await client.list_tools(cursor=cursor)

        return fetch

    async def _responsive(self, client: Client) -> bool:
        """Whether the server still answers at all (a slow tool, not a dead server)."""
        try:
            # tools/list, not ping: ping is deprecated in the 2026 protocol revision.
            with anyio.fail_after(min(PING_TIMEOUT, self.call_timeout)):
                await client.list_tools()
        except (MCPError, TimeoutError, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return False
        return True

    def _gone(self) -> ToolResult:
        reason = f"the MCP server is gone ({self._gone_reason}); this could not be checked"
        return ToolResult("", ToolFailure(reason, FailureKind.GONE))

    # -- connection ownership --------------------------------------------------------------

    async def _restart(self, failed: _Connection, reason: str) -> bool:
        """Replace a dead connection once; returns whether a working one is in place.

        A stdio server is started again; a server over HTTP cannot be restarted by us, so a new
        session is opened, tried again with backoff while the start timeout lasts."""
        async with self._lock:
            if self._connection.generation != failed.generation:
                return self._connection.client is not None  # another caller restarted it already
            if self._restarts_left <= 0 or self._closing:
                self._gone_reason = reason
                return False
            self._restarts_left -= 1
            self.restarts += 1
            deadline = anyio.current_time() + self.start_timeout
            attempts = 0
            while True:
                attempts += 1
                failed.broken = True
                next_connection = await self._replace(failed)
                if next_connection.client is not None or self.url is None or self._closing:
                    break
                if attempts > len(RECONNECT_DELAYS):
                    break
                delay = RECONNECT_DELAYS[attempts - 1]
                if anyio.current_time() + delay >= deadline:
                    break
                await anyio.sleep(delay)
                failed = next_connection
            reconnect = self.url is not None
            if next_connection.client is None:
                how = "reconnect" if reconnect else "restart"
                tried = f" ({attempts} attempts)" if attempts > 1 else ""
                self._gone_reason = f"{reason}; {how} failed{tried}: {self._error_text(next_connection.error, next_connection)}"
                self._tell(
                    events.McpRestart(
                        reason=reason,
                        ok=False,
                        error=self._gone_reason,
                        reconnect=reconnect,
                        attempts=attempts,
                    )
                )
                return False
            self._tell(events.McpRestart(reason=reason, ok=True, reconnect=reconnect, attempts=attempts))
            tools = next_connection.listing.tools
            if [t.signature() for t in tools] != [t.signature() for t in self.listing.tools]:
                self.listing = ToolListing(
                    self.listing.generation + 1,
                    tools,
                    "the restarted server lists other tools",
                    next_connection.listing.problems,
                )
            return True

    async def _replace(self, failed: _Connection) -> _Connection:
        """Have the owner task drop `failed` and open the next connection; wait until it is ready."""
        next_connection = _Connection(generation=failed.generation + 1)
        self._pending = next_connection
        self._wake.set()
        with anyio.move_on_after(self.start_timeout + 10):
            await next_connection.ready.wait()
        return next_connection

    def _tell(self, event: events.McpConnected | events.McpRestart) -> None:
        if self.on_event is not None:
            self.on_event(event)

    async def _own_connections(self) -> None:
        """Owns each connection in turn: open it, serve until woken, then close it or open the next."""
        connection = self._connection
        while True:
            try:
                with anyio.CancelScope() as bounded:
                    if self.url is not None:  # the SSE stream's GET has no read timeout of its own
                        bounded.deadline = anyio.current_time() + self.start_timeout
                    async with self._new_client(connection) as client:
                        connection.phase = TOOLS_LIST
                        connection.server, connection.protocol = _identity(client)
                        connection.listing = await list_tools(self._page_fetcher(client))
                        connection.client = client
                        bounded.deadline = math.inf
                        connection.ready.set()
                        self._started.set()
                        await self._wake.wait()
                        if self.url is not None:
                            # Saying goodbye (DELETE) to a server that stopped answering must not hold
                            # up the next session or the end of the run.
                            grace = 0 if connection.broken else HTTP_CLOSE_GRACE
                            bounded.deadline = anyio.current_time() + grace
                if bounded.cancelled_caught and connection.client is None:
                    what = "tools/list" if connection.phase == TOOLS_LIST else "the initialize request"
                    connection.error = TimeoutError(
                        f"the server did not answer {what} within {self.start_timeout:g}s (--mcp-start-timeout)"
                    )
            except Exception as error:  # boundary: a failed start or a dead server is data for the caller
                connection.error = error
                if self._speaks_modern(connection):
                    connection = self._connection = self._pending = _Connection(connection.generation)
                    continue
                if self._falls_back_to_sse(connection):
                    connection = self._connection = self._pending = _Connection(connection.generation)
                    continue
            connection.client = None
            connection.ready.set()
            self._started.set()
            await self._wake.wait()
            if self._closing:
                return
            self._wake = anyio.Event()
            connection = self._connection = self._pending

    def _speaks_modern(self, connection: _Connection) -> bool:
        """A server that refused the initialize handshake as an unsupported protocol version, naming
        only modern versions this client speaks (a TypeScript SDK v2 server with `legacy: 'reject'`):
        open again with `server/discover`, on the same transport."""
        refusal = _version_refusal(connection.error)
        if self._mode != "legacy" or self._started.is_set() or refusal is None:
            return False
        supported = _supported_versions(refusal)
        if not set(supported) & set(MODERN_PROTOCOL_VERSIONS):
            return False
        self._mode = "auto"
        return True

    def _falls_back_to_sse(self, connection: _Connection) -> bool:
        """The MCP spec's backwards compatibility: a server that answers the first Streamable HTTP
        POST with a 4xx (404, 405, ...) may speak the older HTTP+SSE transport at the same URL. One
        that answered with a protocol version it does not speak spoke Streamable HTTP: no fallback."""
        status = connection.refused
        if not self._auto or self._started.is_set() or self.transport != STREAMABLE_HTTP or status is None:
            return False
        if _version_refusal(connection.error) is not None:
            return False
        if not 400 <= status < 500 or status in (401, 403):
            return False  # 401/403: the credentials are wrong whatever the transport
        self.transport = SSE
        self.fallback = f"the Streamable HTTP initialize was answered HTTP {status}"
        return True

    def _new_client(self, connection: _Connection) -> Client:
        if self.url is not None:
            transport: Any = self._http_transport(self.url, connection)
        else:
            transport = stdio_transport(self.command, self.env, self._stderr)
        # "legacy" is the initialize handshake every server in the field speaks; no discover probe. No
        # sampling, elicitation or roots callback: the capabilities sent are none, honestly, and such
        # requests from the server are answered "not supported" at once.
        return Client(
            transport,
            mode=self._mode,
            cache=None,
            read_timeout_seconds=self.start_timeout,
            message_handler=self._on_message,
            client_info=client_info(),
        )

    def _http_transport(self, url: str, connection: _Connection) -> Any:
        """Streamable HTTP or SSE to `url`: the headers on every request, TLS verified (against
        `ca_file` when given), connect and write bounded by the start timeout, reads by the call
        timeout (SSE's event stream: by none, each call is bounded by the call timeout)."""
        import ssl

        import httpx2

        verify: Any = ssl.create_default_context(cafile=self.ca_file) if self.ca_file else True

        async def note_status(response: Any) -> None:  # the transports report a refusal as -32603
            if session_id := response.headers.get("mcp-session-id"):
                connection.session_id = session_id
            if response.status_code >= 400:
                connection.refused = response.status_code
                if response.status_code == 404 and connection.client is not None:
                    connection.session_lost = True
                    for call in list(connection.in_flight):
                        call.cancel()

        notify_timeout = min(NOTIFY_TIMEOUT, self.call_timeout)

        async def bound_notifications(request: Any) -> None:
            # `notifications/cancelled` after a timed-out call is answered at once by a server that
            # works; one that froze must not hold the session for a whole read timeout. Any other
            # notification (`notifications/initialized`) may take as long as a start: a busy server
            # that acknowledges it late must not lose its session (a failed POST ends the transport).
            if request.method != "POST":
                return
            if b'"id"' not in request.content:
                bound = (
                    notify_timeout if b"notifications/cancelled" in request.content else self.start_timeout
                )
            elif self.transport == SSE:
                bound = self.call_timeout  # over SSE a POST is only acknowledged (202); the answer streams
            else:
                return
            request.extensions["timeout"] = dict.fromkeys(("connect", "read", "write", "pool"), bound)

        def http_client(timeout: Any) -> Any:
            return httpx2.AsyncClient(
                headers=self.headers,
                timeout=timeout,
                verify=verify,
                event_hooks={"request": [bound_notifications], "response": [note_status]},
            )

        if self.transport == SSE:
            from mcp.client.sse import sse_client

            def sse_http_client(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
                return http_client(httpx2.Timeout(self.start_timeout, read=None))

            return sse_client(url, headers=self.headers, httpx_client_factory=sse_http_client)
        from mcp.client.streamable_http import streamable_http_client

        http = http_client(
            httpx2.Timeout(self.start_timeout, read=max(self.call_timeout, self.start_timeout) + 5)
        )
        return _closing_http(streamable_http_client(url, http_client=http), http)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            # Read again before the list is next used (the next model request, or the next call).
            self._listing_stale = "the server sent notifications/tools/list_changed"
        await anyio.lowlevel.checkpoint()

    # -- diagnostics -----------------------------------------------------------------------

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES, since: int = 0) -> str:
        """The last lines the server wrote to stderr (after byte offset `since`)."""
        text = self._stderr.since(since, STDERR_TAIL_BYTES).decode("utf-8", "replace")
        return "\n".join(text.strip().splitlines()[-lines:])

    def _stderr_size(self) -> int:
        return self._stderr.total

    def _describe_death(self, what: str, since: int = 0) -> str:
        last = self.stderr_tail(1, since)
        return f"MCP server {what}" + (f" (stderr: {last})" if last else "")

    def _start_error(self, connection: _Connection) -> McpServerError:
        error = connection.error
        if self.url is not None:
            why = self._error_text(error, connection)
            if self.fallback is not None:
                why = f"{self.fallback}, and over SSE {why}"
            return McpServerError(f"MCP server at {public_url(self.url)} cannot be used: {why}")
        command = " ".join(self.command)
        return McpServerError(
            f"MCP server failed to start ({command}): {self._error_text(error, phase=connection.phase)}",
            self.stderr_tail(),
        )

    @staticmethod
    def _error_text(
        error: BaseException | None, connection: _Connection | None = None, *, phase: str = INITIALIZE
    ) -> str:
        if connection is not None:
            phase = connection.phase
            refusal = _version_refusal(error)
            if refusal is not None:  # the server's own reason, whatever the HTTP status
                return _version_refusal_text(refusal)
            if connection.refused is not None:
                return _http_refusal_text(connection.refused)  # the transport reports a refusal as -32603
        if error is None:
            return "unknown error"
        if isinstance(error, BaseExceptionGroup) and error.exceptions:
            return McpClient._error_text(error.exceptions[0], phase=phase)
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
            if error.code == REQUEST_TIMEOUT and phase == TOOLS_LIST:
                return (
                    "the server answered the initialize request but did not answer tools/list in time "
                    "(--mcp-start-timeout)"
                )
            if error.code == REQUEST_TIMEOUT:
                return "the server did not answer the initialize request in time (--mcp-start-timeout)"
            if error.data == UNREAD_MARK:
                return error.message
            if error.code == UNSUPPORTED_PROTOCOL_VERSION:
                return _version_refusal_text(error)
            return f"{error.message} (JSON-RPC error {error.code})"
        return str(error) or type(error).__name__


@functools.cache
def client_info() -> mcp_types.Implementation:
    """How the agent introduces itself to a server (`clientInfo`): `k8s-agent` and its version, so a
    gateway in front of several servers and clients can tell its connections apart."""
    try:
        version = importlib.metadata.version("k8s-agent")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return mcp_types.Implementation(name="k8s-agent", title="k8s-agent", version=version)


@asynccontextmanager
async def _closing_http(transport: Any, http: Any) -> AsyncIterator[Any]:
    """The transport, then the HTTP client it was given (the transport leaves a given one open)."""
    try:
        async with transport as streams:
            yield streams
    finally:
        with anyio.CancelScope(shield=True):  # also when closing was cut short: no socket left open
            await http.aclose()


def _version_refusal(error: BaseException | None) -> MCPError | None:
    """The server's "unsupported protocol version" answer (-32022) in a failed start, if that is what
    ended it."""
    if isinstance(error, BaseExceptionGroup):
        return next((found for sub in error.exceptions if (found := _version_refusal(sub)) is not None), None)
    if isinstance(error, MCPError) and error.code == UNSUPPORTED_PROTOCOL_VERSION:
        return error
    return None


def _supported_versions(refusal: MCPError) -> list[str]:
    """The versions a -32022 answer names (`data.supported`); none when it names none."""
    data = refusal.error.data
    supported = data.get("supported") if isinstance(data, dict) else None
    return [str(version) for version in supported] if isinstance(supported, list) else []


def _version_refusal_text(refusal: MCPError) -> str:
    supported = _supported_versions(refusal)
    speaks = f"; it speaks {', '.join(supported)}" if supported else ""
    ours = ", ".join((*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS))
    return (
        f"the server refused the protocol version: {refusal.message} (JSON-RPC error {refusal.code}){speaks}; "
        f"k8s-agent speaks {ours}"
    )


def _http_refusal_text(status: int) -> str:
    hint = " (check the token or headers: --mcp-token, --mcp-header)" if status in (401, 403) else ""
    return f"the server answered HTTP {status}{hint}"
