"""A warm mock cluster: `python -m k8s_agent_mock_cluster.warm SOCKET`.

Starting the mock cluster costs a second or more of imports (the MCP server stack) before it
answers `initialize`; a suite or an eval starts it hundreds of times. This process imports it
once, listens on a Unix socket, and for each launcher (`launch.py`, the command
`k8s_agent_harness.cluster.servers.mock_cluster_command` gives while $K8S_AGENT_MOCK_CLUSTER_WARM names
the socket) forks one server onto the launcher's stdin, stdout and stderr, in its folder and
environment, with its arguments. Each run still has a process of its own (its fault plan's
counters, its call log, its exit), started in milliseconds.

The server's exit status goes back to its launcher, which exits with it; a launcher that goes
away (killed, interrupted) takes its server with it. The warm process stops on SIGTERM or SIGINT
or when its stdin closes (its parent is gone), and kills the servers still running.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import random
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from typing import Any

ENV = "K8S_AGENT_MOCK_CLUSTER_WARM"
MODULE = "k8s_agent_mock_cluster"
MAX_REQUEST = 4 << 20


def _read_request(connection: socket.socket, module: str) -> tuple[dict[str, Any], list[int]]:
    connection.settimeout(10)
    data, fds, _, _ = socket.recv_fds(connection, 65536, 3)
    try:
        if len(data) < 4:
            raise ValueError("short request")
        (size,) = struct.unpack("!I", data[:4])
        if size > MAX_REQUEST:
            raise ValueError("request too large")
        body = data[4:]
        while len(body) < size:
            chunk = connection.recv(min(65536, size - len(body)))
            if not chunk:
                raise ValueError("request cut short")
            body += chunk
        request = json.loads(body)
        if len(fds) != 3 or request.get("argv", [])[:2] != ["-m", module]:
            raise ValueError(f"not a launch of {module}")
        return request, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _serve_child(
    request: dict[str, Any], fds: list[int], closing: list[int], main: Callable[[list[str]], int]
) -> None:
    """In the forked child: become the launcher's process (its stdio, folder, environment and
    arguments, as `python -m MODULE ARGS` would start), run `main`; never returns."""
    code: int = 1
    try:
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in closing:
            with contextlib.suppress(OSError):
                os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = request["cwd"]  # as `python -m` puts the folder it starts in first
        random.seed()  # a process of its own: not its siblings' random numbers
        sys.argv = [request["argv"][1], *request["argv"][2:]]
        code = main(request["argv"][2:])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # the child must always end with os._exit
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _mock_cluster_main(argv: list[str]) -> int:
    from k8s_agent_mock_cluster.__main__ import main

    return main(argv)


def serve(
    path: str,
    module: str = MODULE,
    main: Callable[[list[str]], int] = _mock_cluster_main,
    preload: tuple[str, ...] = (f"{MODULE}.__main__", f"{MODULE}.server"),
) -> int:
    """Serve launchers of `python -m MODULE` on the Unix socket `path` until told to stop: each
    is forked from this process, past the imports in `preload`, and runs `main(ARGS)`."""
    for name in preload:  # the point: import once, fork many
        importlib.import_module(name)

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(128)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listen")
    selector.register(wake_read, selectors.EVENT_READ, "wake")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    servers: dict[int, socket.socket] = {}  # pid -> its launcher's connection
    launchers: dict[socket.socket, int] = {}
    print("ready", flush=True)

    def forget(connection: socket.socket) -> None:
        launchers.pop(connection, None)
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(connection)
        connection.close()

    def reap() -> None:
        while servers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = servers.pop(pid, None)
            if connection is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(str(os.waitstatus_to_exitcode(status)).encode())
                forget(connection)

    try:
        while not stopping:
            for key, _ in selector.select(timeout=1.0):
                if key.data == "wake":
                    with contextlib.suppress(OSError):
                        while os.read(wake_read, 512):
                            pass
                elif key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 512):
                        stopping = True
                elif key.data == "listen":
                    connection, _ = listener.accept()
                    try:
                        request, fds = _read_request(connection, module)
                    except (OSError, ValueError) as error:
                        print(f"{module} (warm): refused a launch: {error}", file=sys.stderr)
                        connection.close()
                        continue
                    for stream in (sys.stdout, sys.stderr):
                        stream.flush()
                    closing = [listener.fileno(), wake_read, wake_write, connection.fileno(), 0]
                    closing += [other.fileno() for other in launchers]
                    with contextlib.suppress(OSError):
                        closing.append(selector.fileno())
                    pid = os.fork()
                    if pid == 0:
                        _serve_child(request, fds, closing, main)
                    for fd in fds:
                        os.close(fd)
                    connection.setblocking(False)
                    servers[pid] = connection
                    launchers[connection] = pid
                    selector.register(connection, selectors.EVENT_READ, "launcher")
                else:  # a launcher went away (or wrote, which it never does): its server goes too
                    launcher = key.fileobj
                    assert isinstance(launcher, socket.socket)
                    try:
                        gone = launcher.recv(64) == b""
                    except BlockingIOError:
                        gone = False
                    except OSError:
                        gone = True
                    server = launchers.get(launcher) if gone else None
                    if server is not None:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(server, signal.SIGKILL)
                    if gone:
                        forget(launcher)
            reap()
    finally:
        for pid in list(servers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in list(servers):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
    return 0


@contextlib.contextmanager
def warm_mock_cluster() -> Iterator[str]:
    """Run a warm mock cluster for the block; yields its socket path (set it as $K8S_AGENT_MOCK_CLUSTER_WARM
    for the runs that should use it). The process and its socket's folder are gone after."""
    with warm_process([sys.executable, "-m", f"{MODULE}.warm"]) as path:
        yield path


@contextlib.contextmanager
def warm_process(command: list[str], cwd: str | None = None) -> Iterator[str]:
    """Run `command SOCKET` (a process that calls `serve(SOCKET, ...)`) for the block; yields the
    socket path once it says "ready". The process and its socket's folder are gone after."""
    folder = tempfile.mkdtemp(prefix="k8s-agent-warm-")
    path = os.path.join(folder, "warm.sock")
    process = subprocess.Popen(
        [*command, path],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"{' '.join(command)} did not start")
        yield path
    finally:
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(folder)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m k8s_agent_mock_cluster.warm SOCKET", file=sys.stderr)
        sys.exit(2)
    sys.exit(serve(sys.argv[1]))
