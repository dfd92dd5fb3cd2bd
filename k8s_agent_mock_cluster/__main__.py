"""`python -m k8s_agent_mock_cluster [--cluster FILE] [--call-log FILE] [--result-log FILE] [--faults FILE]
[--with-write-tools] [--http HOST:PORT [--sse] [--token-env VAR]]`: the MCP server, on stdio or HTTP."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from k8s_agent_mock_cluster.cluster import Cluster
from k8s_agent_mock_cluster.faults import FaultPlan, FaultPlanError
from k8s_agent_mock_cluster.fixture import FixtureError, load_fixture


def main(argv: list[str] | None = None) -> int:
    """Run the mock cluster MCP server on stdin/stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m k8s_agent_mock_cluster",
        description="A simulated Kubernetes cluster as a stdio MCP server with read-only tools.",
    )
    parser.add_argument("--cluster", type=Path, help="cluster fixture (JSON); default: the shipped fixture")
    parser.add_argument("--call-log", type=Path, help="append one JSON line per tools/call received")
    parser.add_argument(
        "--result-log", type=Path, help="append one JSON line per call answered, with the answer"
    )
    parser.add_argument("--faults", type=Path, help="fault plan (JSON) for tests and demos")
    parser.add_argument(
        "--with-write-tools",
        action="store_true",
        help="also offer delete_pod and restart_pod (annotated destructive, not read-only)",
    )
    parser.add_argument("--check", action="store_true", help="validate the fixture and exit")
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0: a free one; "
        "prints `serving URL` once it listens)",
    )
    parser.add_argument(
        "--sse",
        action="store_true",
        help="with --http: serve the older HTTP+SSE transport instead of Streamable HTTP (the event stream "
        "at http://HOST:PORT/sse, messages at /messages/)",
    )
    parser.add_argument(
        "--token-env",
        metavar="VAR",
        help="with --http: answer 401 unless a request carries `Authorization: Bearer` and the value of "
        "this environment variable",
    )
    args = parser.parse_args(argv)
    try:
        cluster = Cluster(load_fixture(args.cluster))
        faults = FaultPlan.load(args.faults) if args.faults else None
    except (FixtureError, FaultPlanError) as error:
        print(f"k8s_agent_mock_cluster: {error}", file=sys.stderr)
        return 2
    if args.check:
        counts = [(len(cluster.nodes), "node"), (len(cluster.pods), "pod"), (len(cluster.events), "event")]
        print("ok: " + ", ".join(f"{count} {noun if count == 1 else noun + 's'}" for count, noun in counts))
        return 0
    from k8s_agent_mock_cluster.server import build_server  # the MCP server stack loads only when serving

    server = build_server(
        cluster, args.call_log, faults, write_tools=args.with_write_tools, result_log=args.result_log
    )
    if args.sse and args.http is None:
        print("k8s_agent_mock_cluster: --sse serves over HTTP: give --http HOST:PORT too", file=sys.stderr)
        return 2
    if args.http is None:
        server.run()
        return 0
    from k8s_agent_mock_cluster.server import serve_http

    host, _, port = args.http.rpartition(":")
    token = os.environ.get(args.token_env) if args.token_env else None
    if not host or not port.isdigit() or int(port) > 65535:
        print(f"k8s_agent_mock_cluster: --http expects HOST:PORT, got {args.http!r}", file=sys.stderr)
        return 2
    if args.token_env and not token:
        print(
            f"k8s_agent_mock_cluster: --token-env names {args.token_env}, which is not set", file=sys.stderr
        )
        return 2
    try:
        serve_http(server, host.strip("[]"), int(port), token, sse=args.sse)
    except OSError as error:
        print(
            f"k8s_agent_mock_cluster: cannot serve on {args.http}: {error.strerror or error}", file=sys.stderr
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
