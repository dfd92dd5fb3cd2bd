"""A server the run starts listening over HTTP on loopback (`ServerLaunch.http`), stopped at the end.

    started_over_http(launch, timeout)   start it, wait until it listens, yield its URL, stop it

Either the starter picks a free loopback port and passes it (`HttpStart.port_arguments`, e.g.
kubernetes-mcp-server's `--port P --bind-address 127.0.0.1`) and waits until the port accepts, or
the server picks one itself and prints `serving URL` (the mock cluster). The process gets a
session of its own, so a Ctrl-C reaches the agent, which stops it (SIGTERM, then SIGKILL after a
grace period), whatever ended the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from k8s_agent_harness.cluster.servers import ServerLaunch
from k8s_agent_harness.errors import McpServerError

STOP_GRACE = 2.0
POLL_INTERVAL = 0.02
SERVING = "serving "
STDERR_TAIL_LINES = 12


@asynccontextmanager
async def started_over_http(launch: ServerLaunch, start_timeout: float) -> AsyncIterator[str]:
    """Start `launch` as an HTTP server on loopback; yield its MCP URL once it listens; stop it on exit.

    Raises McpServerError (with the server's stderr tail) when it exits or does not listen within
    `start_timeout` seconds."""
    assert launch.http is not None
    port = _free_port() if launch.http.port_arguments else None
    arguments = [word.replace("{port}", str(port)) for word in launch.http.port_arguments]
    stderr = tempfile.TemporaryFile()  # the server's own words: their tail, on failure
    try:
        process = await asyncio.create_subprocess_exec(
            *launch.command,
            *arguments,
            stdin=asyncio.subprocess.DEVNULL,
            # A server that announces its URL does so on stdout; any other logs there too (the Go server).
            stdout=asyncio.subprocess.PIPE if port is None else stderr,
            stderr=stderr,
            env={**_base_environment(), **launch.env},
            start_new_session=True,
        )
    except OSError as error:
        stderr.close()
        raise McpServerError(f"MCP server failed to start ({' '.join(launch.command)}): {error}") from None
    drain: asyncio.Task[None] | None = None
    try:
        try:
            async with asyncio.timeout(start_timeout):
                url = await (_announced(process) if port is None else _listening(process, port, launch))
        except TimeoutError:
            why = f"it did not listen within {start_timeout:g}s (--mcp-start-timeout)"
            raise _failed(launch, why, stderr) from None
        except _Exited as exited:
            why = f"the server exited during start-up (status {exited.status})"
            raise _failed(launch, why, stderr) from None
        # Nothing more is read from its stdout: keep the pipe drained so the server never blocks on it.
        if port is None:
            drain = asyncio.create_task(_drain(process))
        yield url
    finally:
        await _stop(process)
        if drain is not None:
            drain.cancel()
        stderr.close()


class _Exited(Exception):
    def __init__(self, status: int | None) -> None:
        self.status = status


async def _announced(process: asyncio.subprocess.Process) -> str:
    """The URL from the server's `serving URL` line."""
    assert process.stdout is not None
    while line := (await process.stdout.readline()).decode("utf-8", "replace"):
        if line.startswith(SERVING):
            return line.removeprefix(SERVING).strip()
    raise _Exited(await process.wait())


async def _drain(process: asyncio.subprocess.Process) -> None:
    assert process.stdout is not None
    with contextlib.suppress(OSError, ValueError):
        while await process.stdout.read(65536):
            pass


async def _listening(process: asyncio.subprocess.Process, port: int, launch: ServerLaunch) -> str:
    """Wait until the port accepts connections; the URL on it."""
    assert launch.http is not None
    while True:
        if process.returncode is not None:
            raise _Exited(process.returncode)
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            return f"http://127.0.0.1:{port}{launch.http.path}"
        await asyncio.sleep(POLL_INTERVAL)


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM, then SIGKILL after the grace period; never leaves the process behind."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), STOP_GRACE)
    except BaseException as error:  # the grace ran out, or the run is being cancelled again: kill it
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        if not isinstance(error, TimeoutError):
            raise
        await process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _base_environment() -> dict[str, str]:
    """What a started HTTP server inherits: what the stdio client would pass (HOME, PATH, ...)."""
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


def _failed(launch: ServerLaunch, why: str, stderr: object) -> McpServerError:
    tail = ""
    with contextlib.suppress(OSError, ValueError):
        fd = stderr.fileno()  # type: ignore[attr-defined]
        size = os.fstat(fd).st_size
        start = max(0, size - 16_384)
        text = os.pread(fd, size - start, start).decode("utf-8", "replace")
        tail = "\n".join(text.strip().splitlines()[-STDERR_TAIL_LINES:])
    return McpServerError(f"MCP server failed to start ({' '.join(launch.command)}): {why}", tail)
