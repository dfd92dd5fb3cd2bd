"""`k8s-agent bench`: registered as a subcommand; the work is imported only when it runs."""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    """Add `bench` to the CLI."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "bench",
        help="measure what the harness costs: per turn, per tool call, start-up, memory",
        description="Benchmarks against the scripted model answering instantly, interleaved, "
        "medians with min and max. The figures are this machine's: about a minute on two idle cores "
        "(--quick: about a third of that), longer on a busy machine. Every mode exits 8 when a target "
        "is missed (the figures are printed all the same), 0 when all are met.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds and turns (a smoke test)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument(
        "--scale",
        action="store_true",
        help="instead: the offline model on synthetic clusters of 50 to 50,000 pods, with the context budget "
        "and without (a few minutes; --quick: 50 and 500 pods); exit 8 if a target is missed",
    )
    parser.add_argument(
        "--sizes",
        metavar="N,N,...",
        help="with --scale: the cluster sizes, in pods (default 50,500,5000,20000,50000)",
    )
    parser.add_argument(
        "--chart",
        metavar="FILE.svg",
        help="with --scale: also draw the table as curves into FILE.svg (needs pip install 'k8s-agent[charts]')",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="instead: how long checking a report takes against a listing of 5,000 pods in each shape a server "
        "returns (a kubectl table, JSON indented and on one line, YAML); target under a second for a table and "
        "JSON (--quick: 500 pods, two rounds)",
    )
    parser.add_argument(
        "--eval",
        type=int,
        metavar="N",
        help="instead: N offline investigations of the eval corpus in one process, one shared mock cluster per "
        "incident (memory, file descriptors, child processes; throughput against a server per run, target "
        "3x, and against one process per run); exit 8 if a target is missed",
    )
    parser.add_argument(
        "--concurrency", type=int, default=16, help="with --eval: investigations at a time (default 16)"
    )
    parser.add_argument(
        "--baseline-runs",
        type=int,
        default=64,
        metavar="M",
        help="with --eval: the first M investigations run again with a server per run and as one process "
        "each, for the throughput ratios (default 64)",
    )
    parser.add_argument(
        "--otel",
        action="store_true",
        help="instead: what sending each run as OpenTelemetry spans costs it, side by side with export off, "
        "to a receiver on loopback (target under 2%% of a run's wall time; needs pip install 'k8s-agent[otel]')",
    )
    parser.add_argument(
        "--otel-endpoint",
        metavar="URL",
        help="with --otel: send to this OTLP/HTTP receiver instead of the bench's own on loopback",
    )
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    import sys

    if args.otel:
        from k8s_agent.bench import otel_cost

        return otel_cost.main(quick=args.quick, as_json=args.json, endpoint=args.otel_endpoint)
    if args.otel_endpoint:
        print("error: --otel-endpoint goes with --otel", file=sys.stderr)
        return 2
    if args.verify:
        from k8s_agent.bench import verify

        return verify.main(pods=500 if args.quick else 5000, rounds=2 if args.quick else 5, as_json=args.json)
    if args.eval is not None:
        if args.eval < 1 or args.concurrency < 1 or args.baseline_runs < 1:
            print("error: --eval, --concurrency and --baseline-runs must be at least 1", file=sys.stderr)
            return 2
        from k8s_agent.bench import eval_scale

        return eval_scale.main(args.eval, args.concurrency, args.baseline_runs, as_json=args.json)
    if args.scale:
        from k8s_agent.bench import scale

        try:
            sizes = tuple(int(n) for n in args.sizes.split(",")) if args.sizes else None
        except ValueError:
            print(f"error: --sizes expects numbers separated by commas, got {args.sizes!r}", file=sys.stderr)
            return 2
        if sizes is not None and any(n < 5 for n in sizes):
            print("error: --sizes: a synthetic cluster has at least 5 pods", file=sys.stderr)
            return 2
        from pathlib import Path

        return scale.main(
            sizes or (scale.QUICK_SIZES if args.quick else scale.SIZES),
            as_json=args.json,
            chart_file=Path(args.chart) if args.chart else None,
        )
    if args.sizes or args.chart:
        print(f"error: {'--sizes' if args.sizes else '--chart'} goes with --scale", file=sys.stderr)
        return 2
    from k8s_agent.bench.run import main

    return main(quick=args.quick, as_json=args.json)
