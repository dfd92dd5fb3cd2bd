"""Measure what a run holds and writes when its tools return the same large result several times.

A pod's logs are made MEGABYTES large (500 long lines; the mock cluster returns them whole, as
`tail` is larger than the log); the scripted model reads them four times with different `tail`
values (four calls, one content), repeats one call exactly (answered from the gateway's cache),
searches the stored result, and answers. Printed per implementation and size: the peak of Python
memory during the run (tracemalloc: the agent, the scripted model server in its thread; not the
mock cluster, a subprocess), the most it held when a model request arrived (what the run keeps,
without a tool call's passing copies), the size of the trace file, and the seconds to read it.

    .venv/bin/python scripts/measure_repeated_results.py [--sizes 5,20] [--impl handwritten,sdk]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from k8s_agent.implementations import ask_function
from k8s_agent.scripted_run import SCRIPTED_SETTINGS
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.config import Config
from k8s_agent_harness.model.context import SEARCH_TOOL
from k8s_agent_harness.traces.events import ToolCall, read_trace
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_mock_cluster.synthetic import PLANTED, cluster
from k8s_agent_scripted_llm import ScriptedModelServer, calls, raw_tool, text, tool

LINES = 500
QUESTION = "Why does the pod in the production namespace crash?"


def fixture(path: Path, megabytes: int) -> Path:
    """A small cluster whose first planted pod has `megabytes` MB of logs, in 500 lines."""
    data = cluster(5)
    pod = next(p for p in data["pods"] if p["name"] == PLANTED[0])
    width = megabytes * 1_000_000 // LINES - 20
    pod["containers"][0]["logs"] = [f"{n:06d} " + "x" * width + " needle" for n in range(LINES)]
    path.write_text(json.dumps(data))
    return path


class _Unkept(list[Any]):
    """A list that keeps nothing appended to it (the requests the model server received), and notes
    the memory the run holds when each request arrives."""

    held = 0

    def append(self, item: Any) -> None:
        if tracemalloc.is_tracing():
            self.held = max(self.held, tracemalloc.get_traced_memory()[0])


def script() -> list[object]:
    def logs(tail: int) -> object:
        return tool("get_pod_logs", name=PLANTED[0], namespace="production", tail=tail)

    return [
        calls(logs(1000)),
        calls(logs(999)),
        calls(logs(998), logs(997)),
        calls(logs(1000)),  # an exact repeat: answered from the cache
        calls(raw_tool(SEARCH_TOOL, json.dumps({"pattern": "needle", "max_matches": 3}))),
        text("The logs repeat a needle on every line."),
    ]


async def measure(impl: Impl, megabytes: int, budget: int, folder: Path) -> dict[str, float]:
    cluster_file = fixture(folder / f"cluster-{megabytes}.json", megabytes)
    workdir = folder / f"{impl.value}-{megabytes}-{budget}"
    server = ScriptedModelServer(script()).start()  # type: ignore[arg-type]
    server.requests = requests = _Unkept()  # the test server's copies of the requests are not the agent's
    config = Config(
        **{
            **SCRIPTED_SETTINGS,
            "impl": impl,
            "base_url": server.url,
            "mcp_command": mock_cluster_command(cluster=cluster_file),
            "trace_dir": workdir,
            "context_budget": budget,
            "tool_timeout": 300.0,  # a busy machine reads 20 MB slowly: a timeout would measure nothing
            "request_timeout": 300.0,
        }
    )
    gc.collect()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = await ask_function(impl)(config, QUESTION)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        server.stop()
    trace = result.trace
    started = time.perf_counter()
    read = read_trace(trace)
    read_seconds = time.perf_counter() - started
    outcomes = [event.outcome.value for event in read.of(ToolCall)]
    search = "executed" if budget else "unknown"  # without a budget nothing is stored to search
    if outcomes != ["executed"] * 4 + ["cached", search]:
        raise SystemExit(f"{impl.value} {megabytes} MB: the calls were {outcomes}, not the script's")
    del read
    return {
        "peak_mb": peak / 1e6,
        "held_mb": requests.held / 1e6,
        "trace_mb": trace.stat().st_size / 1e6,
        "seconds": seconds,
        "read_seconds": read_seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5,20", help="result sizes in MB (default 5,20)")
    parser.add_argument("--impl", default="handwritten,sdk")
    parser.add_argument("--budgets", default="32000,0", help="context budgets in tokens (0: none)")
    args = parser.parse_args()
    print(
        "| impl | result MB | budget | peak memory MB | held at a request MB | trace MB | run s | trace read s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for megabytes in (int(size) for size in args.sizes.split(",")):
            for budget in (int(b) for b in args.budgets.split(",")):
                for name in args.impl.split(","):
                    figures = asyncio.run(measure(Impl(name), megabytes, budget, Path(folder)))
                    print(
                        f"| {name} | {megabytes} | {budget or 'none'} | {figures['peak_mb']:.1f} | {figures['held_mb']:.1f} "
                        f"| {figures['trace_mb']:.1f} | {figures['seconds']:.1f} | {figures['read_seconds']:.1f} |",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
