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
        "(--quick: about a third of that), longer on a busy machine.",
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds and turns (a smoke test)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from k8s_agent.bench.run import main

    return main(quick=args.quick, as_json=args.json)
