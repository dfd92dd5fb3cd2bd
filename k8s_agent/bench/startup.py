"""Start-up and whole runs, as separate processes: `k8s-agent ask` per implementation against the
floor of importing what is needed and listing the mock server's tools; time to the first model
request; peak memory; what the offline model's investigation costs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QUESTION = "Which pods in the production namespace are unhealthy, and why?"

FLOOR = """
import asyncio, sys
import openai
from mcp import Client, StdioServerParameters
async def main():
    params = StdioServerParameters(command=sys.executable, args=["-m", "k8s_agent_mock_cluster"])
    async with Client(params, mode="legacy", cache=None) as client:
        tools = await client.list_tools()
    assert tools.tools
asyncio.run(main())
"""


# Prepended to each measured program: at exit, write the process's own peak RSS (VmHWM) and whether
# it imported the SDK (`agents` in sys.modules: any import of it or of a submodule puts it there).
# Not ru_maxrss: a child's ru_maxrss counts the parent's pages it held between fork and exec.
PEAK_RSS_HOOK = """
import atexit as _atexit, os as _os, sys as _sys
def _peak_rss():
    target = _os.environ.get("K8S_AGENT_BENCH_RSS")
    if target:
        with open("/proc/self/status") as status, open(target, "w") as out:
            peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
            out.write(f"{peak} {int('agents' in _sys.modules)}")
_atexit.register(_peak_rss)
"""
ASK = """
import runpy, sys
sys.argv = ["k8s-agent", *sys.argv[1:]]
runpy.run_module("k8s_agent", run_name="__main__", alter_sys=True)
"""


@dataclass
class ProcessRun:
    """One measured process."""

    seconds: float
    peak_rss_mb: float
    output: dict[str, Any]
    first_request_s: float | None
    imported_sdk: bool | None = None


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}


def measure(command: list[str], trace_dir: Path | None = None) -> ProcessRun:
    """Run a process; wall time, its own peak RSS, JSON stdout, time to its first model request."""
    with tempfile.TemporaryDirectory() as folder:
        rss_file = Path(folder) / "rss"
        env = {**_clean_env(), "K8S_AGENT_BENCH_RSS": str(rss_file)}
        started_wall = time.time()
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180, check=False)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command[1:4])} failed ({done.returncode}): {done.stderr.strip()[-300:]}"
            )
        written = rss_file.read_text().split() if rss_file.exists() else []
        peak = int(written[0]) / 1024 if written else float("nan")
        imported_sdk = written[1] == "1" if len(written) > 1 else None
        stdout = done.stdout
    output = json.loads(stdout) if stdout.strip().startswith("{") else {}
    first = None
    if trace_dir is not None and output.get("trace"):
        for line in Path(output["trace"]).read_text().splitlines():
            event = json.loads(line)
            if event["kind"] == "model_request":
                first = event["ts"] - started_wall
                break
    return ProcessRun(seconds, peak, output, first, imported_sdk)


def ask_command(impl: str, trace_dir: Path) -> list[str]:
    """`k8s-agent ask` as a user runs it, plus the peak-RSS hook."""
    return [
        sys.executable,
        "-c",
        PEAK_RSS_HOOK + ASK,
        "ask",
        QUESTION,
        "--impl",
        impl,
        "--json",
        "--quiet",
        "--trace-dir",
        str(trace_dir),
    ]


def floor_command() -> list[str]:
    """Import what `ask` needs and list the mock server's tools: the start-up floor."""
    return [sys.executable, "-c", PEAK_RSS_HOOK + FLOOR]
