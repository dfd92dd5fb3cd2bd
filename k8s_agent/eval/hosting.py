"""One MCP server per incident, shared by every run of the incident over Streamable HTTP.

A run of an eval (each implementation, model and repeat) reaches its incident's cluster at the URL
of one server process, started when the incident's first run needs it and stopped when its last
run is done: an incident of six runs costs one server start instead of six. Each run is its own
connection (MCP session), and the mock cluster keeps a connection's state (a fault plan's counters)
to that connection, so the runs see the cluster as they would each on a server of their own.

`--server-per-run` keeps the other way: each run starts its own stdio server, as `ask` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import IO, Any

from k8s_agent.eval.corpus import Incident
from k8s_agent_harness.errors import McpServerError
from k8s_agent_harness.servers import mock_cluster_command

START_TIMEOUT = 60.0
"""Seconds a server has to say where it listens (a busy machine starts Python slowly)."""

Serve = Callable[[Incident], AbstractContextManager[str]]
"""Serves one incident's cluster for as long as the context lasts; yields its MCP URL."""


def serve_mock_cluster(incident: Incident) -> AbstractContextManager[str]:
    """The incident's mock cluster over Streamable HTTP on a free loopback port."""
    command = [*mock_cluster_command(cluster=incident.cluster), "--http", "127.0.0.1:0"]
    return serve_command(command, f"the mock cluster of {incident.id}")


@contextlib.contextmanager
def serve_command(command: list[str], what: str) -> Iterator[str]:
    """Run a server that prints `serving URL` once it listens; yields the URL; stops it at exit."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errors:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, text=True
        )
        try:
            yield _served_url(process, errors, what)
        finally:
            stop(process)


def _served_url(process: subprocess.Popen[str], errors: IO[str], what: str) -> str:
    """The URL of a server's `serving URL` line, read within START_TIMEOUT."""
    assert process.stdout is not None
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(START_TIMEOUT)
    first = line[0].strip() if line else ""
    if first.startswith("serving "):
        return first.removeprefix("serving ")
    stop(process)
    errors.seek(0)
    tail = " ".join(errors.read().strip().splitlines()[-3:])
    if not line:
        raise McpServerError(f"{what} did not start within {START_TIMEOUT:g} s")
    raise McpServerError(f"{what} did not start (exit {process.returncode}): {tail or first or 'no output'}")


def stop(process: subprocess.Popen[Any]) -> None:
    """Terminate, then kill after five seconds; reaped either way."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdout, process.stdin):
        if stream is not None:
            stream.close()


class SharedServers:
    """Each incident's server, started on its first run and stopped after its last (by count)."""

    def __init__(self, incidents: Iterable[Incident], serve: Serve) -> None:
        self._serve = serve
        self._left: Counter[str] = Counter(incident.id for incident in incidents)
        self._open: dict[str, tuple[AbstractContextManager[str], str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._failed: dict[str, McpServerError] = {}
        self.started = 0
        """Servers started so far."""

    @contextlib.asynccontextmanager
    async def url(self, incident: Incident) -> AsyncIterator[str]:
        """The URL of the incident's server for one run; raises McpServerError if it cannot start."""
        try:
            async with self._locks.setdefault(incident.id, asyncio.Lock()):
                if incident.id in self._failed:  # the incident's other runs fail alike, at once
                    raise self._failed[incident.id]
                if incident.id not in self._open:
                    context = self._serve(incident)
                    try:
                        self._open[incident.id] = (context, await _entered(context))
                    except McpServerError as error:
                        self._failed[incident.id] = error
                        raise
                    self.started += 1
            yield self._open[incident.id][1]
        finally:
            self._left[incident.id] -= 1
            if self._left[incident.id] <= 0:
                await self._close(incident.id)

    async def _close(self, incident_id: str) -> None:
        opened = self._open.pop(incident_id, None)
        if opened is not None:
            await asyncio.shield(asyncio.to_thread(opened[0].__exit__, None, None, None))

    async def aclose(self) -> None:
        """Stop every server still running (an interrupted eval)."""
        for incident_id in list(self._open):
            await self._close(incident_id)


async def _entered(context: AbstractContextManager[str]) -> str:
    """Enter a (blocking) server context in a thread; if cancelled meanwhile, the server that
    started is stopped before the cancellation goes on, never left running."""
    starting = asyncio.ensure_future(asyncio.to_thread(context.__enter__))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await starting
            await asyncio.to_thread(context.__exit__, None, None, None)
        raise
