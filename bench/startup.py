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
    params = StdioServerParameters(command=sys.executable, args=["-m", "mock_cluster"])
    async with Client(params, mode="legacy", cache=None) as client:
        tools = await client.list_tools()
    assert tools.tools
asyncio.run(main())
"""


@dataclass
class ProcessRun:
    """One measured process."""

    seconds: float
    peak_rss_mb: float
    output: dict[str, Any]
    first_request_s: float | None


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}


def measure(command: list[str], trace_dir: Path | None = None) -> ProcessRun:
    """Run a process; wall time, its own peak RSS (os.wait4), JSON stdout, first model request."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started_wall = time.time()
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=_clean_env(), text=True)
        _, status, usage = os.wait4(process.pid, 0)  # the child's own rusage: its peak RSS
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command[1:4])} failed ({process.returncode}): {stderr.strip()[-300:]}")
    peak = usage.ru_maxrss / 1024
    output = json.loads(stdout) if stdout.strip().startswith("{") else {}
    first = None
    if trace_dir is not None and output.get("trace"):
        for line in Path(output["trace"]).read_text().splitlines():
            event = json.loads(line)
            if event["kind"] == "model_request":
                first = event["ts"] - started_wall
                break
    return ProcessRun(seconds, peak, output, first)


def ask_command(impl: str, trace_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "k8s_agent",
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
    return [sys.executable, "-c", FLOOR]


def imports_sdk(impl: str) -> bool:
    """Whether `ask --impl IMPL` imports the `agents` package (python -X importtime lists every import)."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *ask_command(impl, Path(folder))[1:]],
            capture_output=True,
            text=True,
            env=_clean_env(),
            timeout=120,
            check=False,
        )
    return any(line.rsplit("|", 1)[-1].strip() == "agents" for line in done.stderr.splitlines())
