"""The mock cluster's warm-start launcher: `python -I -S launch.py SOCKET -m k8s_agent_mock_cluster ARGS`
(the same launcher starts any module a warm process serves: `-m MODULE ARGS`).

An MCP client starts this instead of `python -m k8s_agent_mock_cluster ARGS` when a warm mock
cluster (`python -m k8s_agent_mock_cluster.warm`) is running: it hands its stdin, stdout and
stderr, its arguments, folder and environment to the warm process, which forks a server already
past its imports onto them, and it exits with that server's exit status. The client sees the
same stdio server, started in milliseconds instead of a second of imports.

Standard library only, run as a file with -I -S: the launcher itself must start in milliseconds.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

PREFIX = "k8s_agent_mock_cluster"


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(f"usage: launch.py SOCKET -m {PREFIX} [ARGS]", file=sys.stderr)
        return 2
    path, args = argv[0], argv[1:]
    module = args[1] if len(args) > 1 and args[0] == "-m" else PREFIX
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        body = json.dumps({"argv": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        socket.send_fds(connection, [struct.pack("!I", len(body)) + body], [0, 1, 2])
    except OSError as error:
        print(
            f"{module}: the warm process at {path} cannot be reached ({error.strerror or error}); "
            "unset K8S_AGENT_MOCK_CLUSTER_WARM to start the mock cluster on its own",
            file=sys.stderr,
        )
        return 2
    # The server holds the pipes now: let go of ours, so that its exit is the pipes' end.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    answer = b""
    try:
        while chunk := connection.recv(64):
            answer += chunk
    except OSError:
        pass
    try:
        status = int(answer)
    except ValueError:
        print(f"{module}: the warm process at {path} went away during the run", file=sys.stderr)
        return 1
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # the connection closes with this process: the server is stopped
        sys.exit(130)
