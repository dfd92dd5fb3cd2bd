"""MCP parts nobody here wrote, as the tests find them: the protocol's reference server
(`@modelcontextprotocol/server-everything`) and the MCP Inspector's CLI, installed and pinned by
`.ci/install-mcp-reference-servers.sh`. A test that needs one skips, naming the script, when it is
not there (or when there is no `node` to run it)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

INSTALL = "run `bash .ci/install-mcp-reference-servers.sh` to install it"
CACHE_BIN = Path.home() / ".cache" / "k8s-agent" / "npm" / "reference" / "node_modules" / ".bin"
ANY_SERVER = Path(__file__).with_name("any_server.py")


def installed(variable: str, program: str, what: str) -> Path:
    """A bin the install script put in place: `$VARIABLE`, else its cache folder, else PATH."""
    found = os.environ.get(variable) or (str(CACHE_BIN / program) if (CACHE_BIN / program).exists() else None)
    found = found or shutil.which(program)
    if not found or not Path(found).exists():
        pytest.skip(f"{what} is not installed: {INSTALL}")
    if shutil.which("node") is None:
        pytest.skip(f"{what} needs `node` on PATH, and there is none")
    return Path(found)


def server_everything() -> Path:
    """The reference server's bin (`mcp-server-everything`)."""
    return installed(
        "MCP_SERVER_EVERYTHING_BIN", "mcp-server-everything", "@modelcontextprotocol/server-everything"
    )


def inspector() -> Path:
    """The MCP Inspector's bin (`mcp-inspector`; `--cli` is its command-line client)."""
    return installed("MCP_INSPECTOR_BIN", "mcp-inspector", "@modelcontextprotocol/inspector")


def ts_sdk_modules() -> Path:
    """The TypeScript SDK v2's node_modules folder (`@modelcontextprotocol/server` and what it needs)."""
    found = os.environ.get("MCP_TS_SDK_MODULES") or str(
        CACHE_BIN.parent.parent.parent / "ts-sdk" / "node_modules"
    )
    if not (Path(found) / "@modelcontextprotocol" / "server" / "package.json").exists():
        pytest.skip(f"the TypeScript SDK v2 (@modelcontextprotocol/server) is not installed: {INSTALL}")
    if shutil.which("node") is None:
        pytest.skip("the TypeScript SDK v2 needs `node` on PATH, and there is none")
    return Path(found)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


LISTENING = {"streamableHttp": ("listening on port", "/mcp"), "sse": ("Server is running on port", "/sse")}
"""What the reference server says once it listens in each of its HTTP modes, and its endpoint."""


@contextmanager
def everything_over_http(program: Path, mode: str = "streamableHttp") -> Iterator[str]:
    """The reference server over Streamable HTTP (or SSE) at a free loopback port (it takes its port
    from $PORT)."""
    listening, endpoint = LISTENING[mode]
    with on_a_free_port(
        lambda port: ([str(program), mode], {**os.environ, "PORT": str(port)}), listening, endpoint
    ) as url:
        yield url


@contextmanager
def on_a_free_port(
    started: Callable[[int], tuple[list[str], dict[str, str]]], listening: str, endpoint: str
) -> Iterator[str]:
    """A server started by `started(port)` (its command and environment) on a free loopback port,
    picked again if another process took it first; its URL once its stderr says `listening`."""
    for _ in range(5):
        port = free_port()
        command, env = started(port)
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        said = ""
        for said in process.stderr:  # ends when it listens, gives up, or exits
            if listening in said or "already in use" in said or "EADDRINUSE" in said:
                break
        if listening not in said:
            process.kill()
            process.wait()
            process.stderr.close()
            continue
        drain = threading.Thread(target=process.stderr.read, daemon=True)  # never let its stderr fill up
        drain.start()
        try:
            yield f"http://127.0.0.1:{port}{endpoint}"
        finally:
            stop(process)
            drain.join()
            process.stderr.close()
        return
    raise AssertionError(f"no free port for {command[0]} after 5 tries")


def stop(process: subprocess.Popen[str]) -> None:
    """Stop a server the test started: terminate, a grace period (not a check), then kill."""
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def any_server_over_http(log: Path, *options: str) -> Iterator[str]:
    """tests/integration/any_server.py over Streamable HTTP, for the block."""
    process = subprocess.Popen(
        [sys.executable, str(ANY_SERVER), "--log", str(log), "--http", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    try:
        assert line.startswith("serving http://"), line
        yield line.removeprefix("serving ")
    finally:
        stop(process)
        process.stdout.close()
