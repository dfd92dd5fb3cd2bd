"""The mock cluster as a stdio MCP server: seven read-only tools over a fixture.

Tool descriptions are prompts: they tell the model when a tool helps and when it cannot.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import inspect
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations
from pydantic import Field

from k8s_agent_mock_cluster import call_log
from k8s_agent_mock_cluster.cluster import Cluster, Invalid, NotFound
from k8s_agent_mock_cluster.faults import Fault, FaultPlan, describe
from k8s_agent_mock_cluster.writes import WRITE_TOOLS

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

Namespace = Annotated[str, Field(description="Namespace of the pod, e.g. production.")]
PodName = Annotated[str, Field(description="Exact pod name as listed by list_pods.")]


class MockClusterServer(MCPServer[Any]):
    """MCPServer that logs every tools/call it receives and applies a fault plan.

    Served over HTTP, one process answers many clients at once, and each connection (MCP session)
    (its `mcp-session-id`, or for a client without a session the name in its URL) is a cluster of
    its own to its client: the fault plan's counters are the connection's (a plan
    that fails the second call fails every client's second call), and every logged call names its
    session (`mcp-session-id`) and the name its client was given (the URL `/mcp/NAME`), so that one
    run's calls can be told from another's in a shared log. With write tools, the cluster itself is
    the connection's (a pod one client deletes is still there for the others). Over stdio there is
    one connection, and the plan's counters persist across restarts.
    """

    def __init__(
        self,
        call_log: Path | None,
        faults: FaultPlan | None,
        result_log: Path | None = None,
        cluster: Cluster | None = None,
        writable: bool = False,
        tools: list[Tool] | None = None,
    ) -> None:
        super().__init__(
            "mock-cluster",
            tools=tools,
            version=package_version(),
            instructions="A simulated Kubernetes cluster (read-only).",
            log_level="WARNING",
        )
        self._call_log = call_log
        self._result_log = result_log
        self._faults = faults
        self._session_faults: dict[str, FaultPlan] = {}
        self._cluster = cluster
        self._writable = writable
        self._session_clusters: dict[str, Cluster] = {}
        self.sessions_lost = False
        """Set by a `lose_session` fault: the HTTP front forgets the sessions it has seen."""

    def cluster(self) -> Cluster:
        """The cluster as the calling connection sees it: with write tools, each MCP session has a
        copy of its own (one client's delete_pod is not another's); else the one cluster."""
        assert self._cluster is not None
        session = _SESSION.get()
        if not self._writable or session is None:
            return self._cluster
        if session not in self._session_clusters:
            self._session_clusters[session] = copy.deepcopy(self._cluster)
        return self._session_clusters[session]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Log the call, apply a planned fault if one fires, then answer it (and log the answer)."""
        session, client = _connection_of(context)
        # A client of the stateless protocol has no session: the name in its URL is its identity.
        _SESSION.set(session or client)
        _SERVER.set(self)
        plan = self._plan_of(session or client)
        fault = plan.next_fault(name) if plan else None
        self._log(name, arguments, fault, session, client)
        try:
            if fault is not None and fault.action == "lose_session":
                self.sessions_lost = True
            elif fault is not None:
                await _apply(fault)
            result = await super().call_tool(name, arguments, context)
        except Exception as error:
            self._answered(name, arguments, str(error), is_error=True, session=session, client=client)
            raise
        parts = getattr(result, "content", None) or []
        self._answered(
            name,
            arguments,
            "\n".join(str(getattr(part, "text", "")) for part in parts),
            is_error=bool(getattr(result, "is_error", False)),
            session=session,
            client=client,
        )
        return result

    def _plan_of(self, session: str | None) -> FaultPlan | None:
        """The fault plan as this connection has seen it: the process's own over stdio, a fresh
        copy per MCP session over HTTP."""
        if self._faults is None or session is None:
            return self._faults
        if session not in self._session_faults:
            self._session_faults[session] = FaultPlan(self._faults.faults)
        return self._session_faults[session]

    def _answered(
        self,
        name: str,
        arguments: dict[str, Any],
        text: str,
        *,
        is_error: bool,
        session: str | None,
        client: str | None,
    ) -> None:
        if self._result_log is not None:
            call_log.append(
                self._result_log,
                call_log.result(os.getpid(), name, arguments, text, is_error, session, client),
            )

    def _log(
        self,
        name: str,
        arguments: dict[str, Any],
        fault: Fault | None,
        session: str | None,
        client: str | None,
    ) -> None:
        if self._call_log is not None:
            fault_record = describe(fault) if fault else None
            call_log.append(
                self._call_log, call_log.entry(os.getpid(), name, arguments, fault_record, session, client)
            )


def package_version() -> str:
    """The version the server gives in `serverInfo`: the installed k8s-agent's."""
    import importlib.metadata

    try:
        return importlib.metadata.version("k8s-agent")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


_SESSION: contextvars.ContextVar[str | None] = contextvars.ContextVar("mock_cluster_session", default=None)
"""The MCP session of the call being answered (None over stdio)."""

CLIENT_HEADER = "x-mock-cluster-client"
"""Set by the server itself from the URL `/mcp/NAME` (a header a client sends is dropped)."""


def _connection_of(context: Any) -> tuple[str | None, str | None]:
    """The MCP session id of the HTTP connection a call came on, and its client's name from the URL
    (both None over stdio)."""
    request = getattr(getattr(context, "_request_context", None), "request", None)
    headers = getattr(request, "headers", None)
    if headers is None:
        return None, None
    return headers.get("mcp-session-id"), headers.get(CLIENT_HEADER)


async def _apply(fault: Fault) -> None:
    if fault.action == "exit":
        os._exit(fault.exit_code)
    if fault.action == "freeze":
        time.sleep(fault.seconds)  # noqa: ASYNC251 -- on purpose: blocks the event loop: the whole server stops answering
    if fault.action in ("hang", "delay"):
        await anyio.sleep(fault.seconds)
        return
    if fault.action == "error":
        message = fault.message
        if fault.retry_after is not None:
            message += f" (retry after {fault.retry_after:g}s)"
        if fault.shape == "jsonrpc":
            data = {"retry_after": fault.retry_after} if fault.retry_after is not None else None
            raise MCPError(code=fault.code, message=message, data=data)
        raise ToolError(message)


def _answer(method: Callable[..., str]) -> Callable[..., str]:
    """Turn the cluster's NotFound/Invalid into tool errors the model can read; keep the text sendable."""

    def wrapper(*args: Any, **kwargs: Any) -> str:
        try:
            text = method(*args, **kwargs)
        except (NotFound, Invalid) as error:
            raise ToolError(str(error)) from None
        # A fixture may hold text no JSON-RPC message can carry (a lone surrogate): show it escaped.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    return wrapper


def build_server(
    cluster: Cluster,
    call_log: Path | None = None,
    faults: FaultPlan | None = None,
    write_tools: bool = False,
    result_log: Path | None = None,
) -> MCPServer[Any]:
    """The MCP server answering from `cluster`; `write_tools` adds destructive tools (delete_pod,
    restart_pod), for tests and demos; `result_log` gets what it answered each call."""
    tools = _read_tools() + (_write_tools() if write_tools else [])
    return MockClusterServer(call_log, faults, result_log, cluster, writable=write_tools, tools=tools)


_SERVER: contextvars.ContextVar[MockClusterServer | None] = contextvars.ContextVar(
    "mock_cluster_server", default=None
)
"""The server answering the call in progress (set by `MockClusterServer.call_tool`)."""


def _serving() -> MockClusterServer:
    server = _SERVER.get()
    if server is None:  # pragma: no cover - a tool is only ever called through call_tool
        raise ToolError("no mock cluster is answering this call")
    return server


@functools.cache
def _read_tools() -> list[Tool]:
    """The read-only tools, built once per process: a tool's schema is derived from its signature
    (pydantic models), which costs more than the rest of a server; every server shares them, and
    each call finds its server's cluster through `_SERVER`."""
    return [
        Tool.from_function(
            tool,
            description=inspect.cleandoc(tool.__doc__ or ""),
            annotations=READ_ONLY,
            structured_output=False,
        )
        for tool in (
            list_pods,
            describe_pod,
            get_pod_logs,
            get_events,
            list_nodes,
            describe_node,
            search_logs,
            resources_list,
            resources_get,
        )
    ]


@functools.cache
def _write_tools() -> list[Tool]:
    return [
        Tool.from_function(
            tool, description=WRITE_TOOLS[tool.__name__], annotations=DESTRUCTIVE, structured_output=False
        )
        for tool in (delete_pod, restart_pod)
    ]


def list_pods(
    namespace: Annotated[
        str | None, Field(description="Only this namespace; omit for all namespaces.")
    ] = None,
) -> str:
    """List pods with READY, STATUS, RESTARTS, AGE and NODE, in one namespace or in all.

    Start here. A pod is unhealthy when its STATUS is not Running or Completed, or when it is
    Running but not ready (READY 0/1): that one is easy to miss.
    """
    return _answer(_serving().cluster().list_pods)(namespace)


def describe_pod(name: PodName, namespace: Namespace) -> str:
    """Describe one pod: container state and last termination reason, probes, environment,
    conditions, and the pod's events (scheduling failures, image pull errors, probe failures).

    Use it for every unhealthy pod: the events usually hold the evidence.
    """
    return _answer(_serving().cluster().describe_pod)(name, namespace)


def get_pod_logs(
    name: PodName,
    namespace: Namespace,
    tail: Annotated[int, Field(description="Number of most recent lines to return.", ge=1, le=1000)] = 50,
    previous: Annotated[
        bool, Field(description="Logs of the previous (crashed) container instance.")
    ] = False,
    container: Annotated[str | None, Field(description="Container name; default the first.")] = None,
) -> str:
    """Read a container's logs (the last `tail` lines).

    Use it for pods that crash or restart (CrashLoopBackOff, Error, high RESTARTS). Do not use this
    for ImagePullBackOff or Pending pods: their containers never started, so there are no logs;
    describe_pod shows why.
    """
    return _answer(_serving().cluster().get_pod_logs)(name, namespace, tail, previous, container)


def get_events(
    namespace: Annotated[str | None, Field(description="Only this namespace; omit for all.")] = None,
    pod: Annotated[str | None, Field(description="Only events of this pod.")] = None,
    type: Annotated[str | None, Field(description="Normal or Warning.")] = None,
) -> str:
    """List cluster events, optionally for one namespace, one pod, or one type (Warning, Normal)."""
    return _answer(_serving().cluster().get_events)(namespace, pod, type)


def list_nodes() -> str:
    """List nodes with their status and requested/allocatable CPU and memory."""
    return _answer(_serving().cluster().list_nodes)()


def describe_node(
    name: Annotated[str, Field(description="Exact node name as listed by list_nodes.")],
) -> str:
    """Describe one node: conditions, capacity, allocatable and requested resources, and its pods.

    Use it when pods are Pending for lack of CPU or memory.
    """
    return _answer(_serving().cluster().describe_node)(name)


def search_logs(
    pattern: Annotated[
        str, Field(description="Exact text to find (or a regular expression with regex=true).")
    ],
    namespace: Annotated[str | None, Field(description="Only this namespace; omit for all.")] = None,
    regex: Annotated[bool, Field(description="Treat the pattern as a regular expression.")] = False,
    ignore_case: Annotated[bool, Field(description="Match regardless of case.")] = False,
    max_hits: Annotated[int, Field(description="Most hits to return.", ge=1, le=200)] = 20,
) -> str:
    """Search the logs of every pod (or one namespace), like grep, for an exact string or a regex.

    Returns the match count and `namespace/pod:line` hits, capped at max_hits. When the count is
    far above the hits shown, the pattern is too broad: narrow it. Use it to find every pod that
    logs a given error, instead of guessing.
    """
    return _answer(_serving().cluster().search_logs)(pattern, namespace, regex, ignore_case, max_hits)


def resources_list(
    kind: Annotated[
        str,
        Field(description="Deployment, Service, Endpoints, PersistentVolumeClaim, Job ... (or svc, pvc)."),
    ],
    apiVersion: Annotated[str | None, Field(description="API version (v1, apps/v1); optional.")] = None,
    namespace: Annotated[
        str | None, Field(description="Only this namespace; omit for all namespaces.")
    ] = None,
    labelSelector: Annotated[str | None, Field(description="Only these labels (app=web).")] = None,
) -> str:
    """List objects of any kind with kubectl's columns for it: past the pods (Deployments,
    Services, claims, quotas, autoscalers, policies)."""
    return _answer(_serving().cluster().resources_list)(kind, apiVersion, namespace, labelSelector)


def resources_get(
    kind: Annotated[str, Field(description="Kind of resource, as for resources_list.")],
    name: Annotated[str, Field(description="Exact name, as listed.")],
    namespace: Annotated[str | None, Field(description="Its namespace, if namespaced.")] = None,
    apiVersion: Annotated[str | None, Field(description="API version; optional.")] = None,
) -> str:
    """Get one object of any kind as YAML, its spec and status (a Service's selector, a claim's
    phase, a Deployment's conditions)."""
    return _answer(_serving().cluster().resources_get)(kind, name, namespace, apiVersion)


def delete_pod(name: PodName, namespace: Namespace) -> str:
    return _answer(_serving().cluster().delete_pod)(name, namespace)


def restart_pod(name: PodName, namespace: Namespace) -> str:
    return _answer(_serving().cluster().restart_pod)(name, namespace)


def serve_http(
    server: MCPServer[Any], host: str, port: int, token: str | None = None, *, sse: bool = False
) -> None:
    """Serve `server` over Streamable HTTP at http://HOST:PORT/mcp (port 0: a free one) until
    interrupted; prints `serving URL` on stdout once it listens. `URL/NAME` is the same server for
    a client that names itself (its calls are logged with that name). With `token`, a request without
    `Authorization: Bearer TOKEN` is answered 401, as a deployed server behind a gateway answers.
    With `sse`, the older HTTP+SSE transport instead, and only it: the event stream at /sse (a POST
    there is answered 405, as an SSE-only server answers), messages at /messages/."""
    import socket
    import sys

    import uvicorn

    app: Any
    if sse:
        app = server.sse_app(sse_path="/sse", message_path="/messages/", host=host)
    else:
        app = _named_clients(server.streamable_http_app(streamable_http_path="/mcp", host=host))
    served: Any = _forgetful(app, server) if isinstance(server, MockClusterServer) else app
    served = _known_protocol_versions(served)
    served = served if token is None else _bearer_only(served, token, "/sse" if sse else "/mcp")
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(
        128
    )  # connections wait in the backlog until the server accepts: "serving" is true at once
    bound = listener.getsockname()[1]
    config = uvicorn.Config(served, log_level="warning", lifespan="on")
    print(f"serving http://{host}:{bound}/{'sse' if sse else 'mcp'}", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[listener])
    except KeyboardInterrupt:
        pass
    sys.stdout.flush()


def _named_clients(app: Any) -> Any:
    """`/mcp/NAME` is served as `/mcp`, with NAME passed to the tools as the client's name."""
    own = CLIENT_HEADER.encode()

    async def named(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = scope.get("path", "")
            name = path[len("/mcp/") :].strip("/") if path.startswith("/mcp/") else ""
            headers = [(key, value) for key, value in scope.get("headers") or [] if key.lower() != own]
            if name:
                headers.append((own, name.encode("utf-8", "replace")))
                scope = {**scope, "path": "/mcp", "raw_path": b"/mcp"}
            scope = {**scope, "headers": headers}
        await app(scope, receive, send)

    return named


def _forgetful(app: Any, server: MockClusterServer) -> Any:
    """The app, in front of which a `lose_session` fault takes effect: every session seen so far
    (its id in the `mcp-session-id` header, or SSE's `session_id` query) is answered 404."""
    seen: set[str] = set()
    forgotten: set[str] = set()

    async def front(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        from urllib.parse import parse_qs

        headers = dict(scope.get("headers") or [])
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        session = (
            headers.get(b"mcp-session-id", b"").decode("latin-1") or (query.get("session_id") or [""])[0]
        )
        if server.sessions_lost:
            server.sessions_lost = False
            forgotten.update(seen)
        if session in forgotten:
            body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if session:
            seen.add(session)
        await app(scope, receive, send)

    return front


METADATA_PATH = "/.well-known/oauth-protected-resource"
"""Where a client finds the protected-resource metadata (RFC 9728) the 401's header points to."""


def _bearer_only(app: Any, token: str, endpoint: str) -> Any:
    """The app behind a static bearer token, as a deployed server behind a gateway is, answering as
    the MCP authorization spec says: a 401 names the protected-resource metadata in its
    `WWW-Authenticate` header (with `error="invalid_token"` when a token was sent and is wrong), and
    that document is served without a token. It names no authorization server: the token is given
    out of band (`--mcp-token`), and there is no OAuth flow to start."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path in (METADATA_PATH, METADATA_PATH + endpoint):
            await _send_json(send, 200, _resource_metadata(scope, endpoint))
            return
        if path.startswith("/.well-known/"):
            await _send_json(send, 404, {"error": "not_found"})
            return
        sent = dict(scope.get("headers") or []).get(b"authorization")
        if sent != expected:
            challenge = f'Bearer realm="mock-cluster", resource_metadata="{_base_url(scope)}{METADATA_PATH}{endpoint}"'
            if sent is not None:
                challenge += ', error="invalid_token", error_description="the bearer token is not valid"'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", challenge.encode())],
                }
            )
            why = b"a bearer token is required" if sent is None else b"the bearer token is not valid"
            await send({"type": "http.response.body", "body": b"unauthorized: " + why + b"\n"})
            return
        await app(scope, receive, send)

    return guarded


def _base_url(scope: dict[str, Any]) -> str:
    """The server's own URL as the client reached it (its Host header, else the socket's address)."""
    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
    if not host:
        address, port = scope.get("server") or ("127.0.0.1", 80)
        host = f"[{address}]:{port}" if ":" in str(address) else f"{address}:{port}"
    return f"{scope.get('scheme', 'http')}://{host}"


def _resource_metadata(scope: dict[str, Any], endpoint: str) -> dict[str, Any]:
    """The protected-resource metadata (RFC 9728) of the MCP endpoint."""
    return {
        "resource": _base_url(scope) + endpoint,
        "resource_name": "k8s-agent mock cluster",
        "bearer_methods_supported": ["header"],
    }


def _known_protocol_versions(app: Any) -> Any:
    """A request naming a protocol version the server does not speak (`MCP-Protocol-Version`) is
    answered 400 with a message that says so, as the transport spec asks."""
    from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

    async def checked(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            version = dict(scope.get("headers") or []).get(b"mcp-protocol-version")
            if version is not None and version.decode("latin-1") not in SUPPORTED_PROTOCOL_VERSIONS:
                named = version.decode("latin-1", "replace")[:40]
                message = (
                    f"Bad Request: unsupported MCP-Protocol-Version {named!r}; this server speaks "
                    f"{', '.join(SUPPORTED_PROTOCOL_VERSIONS)}"
                )
                await _send_json(
                    send, 400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
                )
                return
        await app(scope, receive, send)

    return checked


async def _send_json(send: Any, status: int, body: dict[str, Any]) -> None:
    import json

    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})
