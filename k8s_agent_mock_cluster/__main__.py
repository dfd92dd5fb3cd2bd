"""`python -m k8s_agent_mock_cluster [--cluster FILE] [--call-log FILE] [--result-log FILE] [--faults FILE]
[--with-write-tools]`: the stdio MCP server."""

from __future__ import annotations

import argparse
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
    args = parser.parse_args(argv)
    try:
        cluster = Cluster(load_fixture(args.cluster))
        faults = FaultPlan.load(args.faults) if args.faults else None
    except (FixtureError, FaultPlanError) as error:
        print(f"k8s_agent_mock_cluster: {error}", file=sys.stderr)
        return 2
    if args.check:
        print(f"ok: {len(cluster.nodes)} nodes, {len(cluster.pods)} pods, {len(cluster.events)} events")
        return 0
    from k8s_agent_mock_cluster.server import build_server  # the MCP server stack loads only when serving

    build_server(
        cluster, args.call_log, faults, write_tools=args.with_write_tools, result_log=args.result_log
    ).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
