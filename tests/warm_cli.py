"""A warm `k8s-agent` for the tests: `python -m tests.warm_cli SOCKET`.

Most CLI tests run `python -m k8s_agent ARGS` and read its exit status, stdout, stderr and files;
each such process spends two to five seconds importing openai, mcp and the SDK before it reads
its arguments. This process imports them once and forks each run from there, through the mock
cluster's launcher (`k8s_agent_mock_cluster/launch.py SOCKET -m k8s_agent ARGS`): the run is
still a process of its own, with the test's folder, environment, arguments and pipes, and the
same `main()` a cold start calls after its imports. What a warm start cannot show (imports at
start-up, a signal during them, the processes a run leaves behind) is tested cold: those tests
start `python -m k8s_agent` themselves, and `test_warm_cli.py` checks that a warm and a cold run
of the same commands print the same.
"""

from __future__ import annotations

import sys

# What `ask` imports, and what the other commands import when they run (eval, compare, contract,
# trace, probe, the charts' matplotlib): a child pays for none of it.
PRELOAD = (
    "k8s_agent.cli",
    "k8s_agent.implementations",
    "handwritten_agent.loop",
    "sdk_agent.runner",
    "k8s_agent_harness.session",
    "k8s_agent.eval.runner",
    "k8s_agent.eval.report",
    "k8s_agent.compare",
    "k8s_agent.compare_runs",
    "k8s_agent.compare_html",
    "k8s_agent.contract.run",
    "k8s_agent.contract.judge",
    "k8s_agent.trace_tools",
    "k8s_agent.replay",
    "k8s_agent.charts",
    "poc.cli",
)
CHARTS = ("matplotlib.figure", "matplotlib.backends.backend_svg")
"""The charts' imports, preloaded when the `charts` extra is installed (without it, the pages show
their tables only, and the tests that need charts skip)."""


def preloaded() -> tuple[str, ...]:
    import importlib.util

    charts = CHARTS if importlib.util.find_spec("matplotlib") is not None else ()
    return PRELOAD + charts


def main(argv: list[str]) -> int:
    from k8s_agent.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    from k8s_agent_mock_cluster.warm import serve

    if len(sys.argv) != 2:
        print("usage: python -m tests.warm_cli SOCKET", file=sys.stderr)
        sys.exit(2)
    sys.exit(serve(sys.argv[1], module="k8s_agent", main=main, preload=preloaded()))
