"""One MCP server per incident, shared by every run of the incident over Streamable HTTP.

A run of an eval (each implementation, model and repeat) reaches its incident's cluster at the URL
of one server process, started when the incident's first run needs it and stopped when its last
run is done: an incident of six runs costs one server start instead of six. Each run is its own
connection (MCP session), and the mock cluster keeps a connection's state (a fault plan's counters,
what its write tools changed) to that connection, so the runs see the cluster as they would each on
a server of their own.

`--server-per-run` keeps the other way: each run starts its own stdio server, as `ask` does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from pathlib import Path

from k8s_agent.eval.corpus import Incident
from k8s_agent_harness.cluster.servers import STREAMABLE_HTTP, HttpStart, ServerLaunch, mock_cluster_command
from k8s_agent_harness.errors import AgentError

START_TIMEOUT = 60.0
"""Seconds a server has to listen (a busy machine starts Python slowly)."""

Serve = Callable[[Incident], AbstractAsyncContextManager[str]]
"""Serves one incident's cluster for as long as the context lasts; yields its MCP URL."""


def serve_mock_cluster(incident: Incident) -> AbstractAsyncContextManager[str]:
    """The incident's mock cluster over Streamable HTTP on a free loopback port."""
    return serve_over_http(mock_cluster_command(cluster=incident.cluster, http=True))


def serve_over_http(command: tuple[str, ...]) -> AbstractAsyncContextManager[str]:
    """A server that picks its own loopback port and prints `serving URL` (the mock cluster)."""
    from k8s_agent_harness.cluster.served import started_over_http

    return started_over_http(ServerLaunch(command, http=HttpStart(STREAMABLE_HTTP)), START_TIMEOUT)


def serve_through_kubernetes_mcp_server(binary: Path) -> Serve:
    """Each incident through kubernetes-mcp-server (`kube_surface.serve_incident`): the real
    server's tool names and output formats over the incident's cluster."""
    from k8s_agent.eval.kube_surface import serve_incident

    return lambda incident: _in_a_thread(serve_incident(incident, binary))


@contextlib.asynccontextmanager
async def _in_a_thread(serving: AbstractContextManager[str]) -> AsyncIterator[str]:
    """A blocking server context, entered and left in a worker thread. A thread cannot be stopped:
    when the start is cancelled, it is let finish, and the server it started is stopped before the
    cancellation goes on, never left running."""
    entering = asyncio.ensure_future(asyncio.to_thread(serving.__enter__))
    try:
        url = await asyncio.shield(entering)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await entering
            await asyncio.to_thread(serving.__exit__, None, None, None)
        raise
    try:
        yield url
    finally:
        await asyncio.to_thread(serving.__exit__, None, None, None)


class SharedServers:
    """Each incident's server, started on its first run and stopped after its last (by count)."""

    def __init__(self, incidents: Iterable[Incident], serve: Serve) -> None:
        self._serve = serve
        self._left: Counter[str] = Counter(incident.id for incident in incidents)
        self._open: dict[str, tuple[AbstractAsyncContextManager[str], str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._failed: dict[str, AgentError] = {}

    @contextlib.asynccontextmanager
    async def url(self, incident: Incident) -> AsyncIterator[str]:
        """The URL of the incident's server for one run; raises the AgentError (McpServerError,
        ConfigError) that kept it from starting."""
        try:
            async with self._locks.setdefault(incident.id, asyncio.Lock()):
                if incident.id in self._failed:  # the incident's other runs fail alike, at once
                    raise self._failed[incident.id]
                if incident.id not in self._open:
                    serving = self._serve(incident)
                    try:
                        self._open[incident.id] = (serving, await _entered(serving))
                    except AgentError as error:  # cannot start: McpServerError, ConfigError
                        self._failed[incident.id] = error
                        raise
            yield self._open[incident.id][1]
        finally:
            self._left[incident.id] -= 1
            if self._left[incident.id] <= 0:
                await self._close(incident.id)

    async def _close(self, incident_id: str) -> None:
        opened = self._open.pop(incident_id, None)
        if opened is not None:
            await asyncio.shield(opened[0].__aexit__(None, None, None))

    async def aclose(self) -> None:
        """Stop every server still running (an interrupted eval)."""
        for incident_id in list(self._open):
            await self._close(incident_id)


async def _entered(serving: AbstractAsyncContextManager[str]) -> str:
    """Enter a server's context in a task of its own. If the run is cancelled meanwhile (Ctrl-C),
    the start is cancelled too (a server context stops what it started when cancelled), and a
    start that finished all the same is stopped before the cancellation goes on: never left
    running."""
    starting = asyncio.ensure_future(serving.__aenter__())
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        starting.cancel()
        with contextlib.suppress(BaseException):
            await starting
            await serving.__aexit__(None, None, None)
        raise
