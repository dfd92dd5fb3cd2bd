"""Run one implementation against a scripted model and the mock cluster, and keep all it left behind.

The contract tests, the side-by-side comparison and trace replay all run agents this way: the
model is a `ScriptedModelServer` (a script, or a responder such as the offline model) and the
cluster is the mock cluster over stdio, with a call log of every `tools/call` it received.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.config import Config
from harness.errors import AgentError
from harness.session import RunResult
from harness.trace import Event
from k8s_agent.runner import agent
from k8s_agent.scenarios import QUESTION
from scripted_llm import ScriptedModelServer, Step
from scripted_llm.server import Responder

CALL_LOG = "calls.jsonl"
MOCK_CLUSTER = "mock_cluster"

# What a scripted run uses unless told otherwise: a scripted server never fails, so no retries.
SCRIPTED_SETTINGS: dict[str, Any] = {
    "model": "scripted",
    "max_retries": 0,
    "request_timeout": 20.0,
    "tool_timeout": 10.0,
}


@dataclass(frozen=True)
class ScriptedRun:
    """What one run left behind: its result (or error), the wire, the server's call log, the trace."""

    impl: str
    result: RunResult | None
    error: AgentError | None
    requests: list[dict[str, Any]]
    """Every request body the model server received, in order."""
    calls: list[dict[str, Any]]
    """Every `tools/call` the MCP server logged, in order (empty without a call log)."""
    trace: list[Event]
    trace_path: Path | None
    script_problems: str = ""
    """Why the script was not played exactly (steps left over, extra requests); "" when it was."""


def is_mock_cluster(command: Sequence[str]) -> bool:
    """Whether a server command starts the mock cluster (`python -m mock_cluster ...`)."""
    return any(a == "-m" and b == MOCK_CLUSTER for a, b in itertools.pairwise(command))


def mock_cluster_command(
    call_log: Path | None = None, *, cluster: Path | None = None, faults: Path | None = None
) -> tuple[str, ...]:
    """The mock cluster's stdio command, with a call log, a fixture and a fault plan if given."""
    command = [sys.executable, "-m", MOCK_CLUSTER]
    if call_log is not None:
        command += ["--call-log", str(call_log)]
    if cluster is not None:
        command += ["--cluster", str(cluster)]
    if faults is not None:
        command += ["--faults", str(faults)]
    return tuple(command)


async def run_scripted(
    impl: str,
    workdir: Path,
    *,
    script: Iterable[Step] = (),
    responder: Responder | None = None,
    question: str = QUESTION,
    mcp_command: tuple[str, ...] | None = None,
    cluster: Path | None = None,
    faults: Path | None = None,
    settings: Mapping[str, Any] | None = None,
    slot: asyncio.Semaphore | None = None,
) -> ScriptedRun:
    """Run `impl` on a script (or responder) in `workdir` (call log and trace go there).

    Without `mcp_command` the mock cluster runs with a call log. `settings` are Config fields
    over `SCRIPTED_SETTINGS`. A run failure is kept in the result, never raised. With `slot`, the
    run itself holds it (not the model server's shutdown).
    """
    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    call_log = workdir / CALL_LOG
    if mcp_command is None:
        await asyncio.to_thread(call_log.unlink, missing_ok=True)  # the log must be this run's alone
        mcp_command = mock_cluster_command(call_log, cluster=cluster, faults=faults)
    run = agent(impl)
    server = ScriptedModelServer(script, responder=responder).start()
    try:
        config = Config(
            **{
                **SCRIPTED_SETTINGS,
                "impl": impl,
                "base_url": server.url,
                "mcp_command": mcp_command,
                "trace_dir": workdir,
                **(settings or {}),
            }
        )
        result: RunResult | None = None
        error: AgentError | None = None
        try:
            async with slot or contextlib.nullcontext():
                result = await run(config, question)
        except AgentError as failure:
            error = failure
        problems = _script_problems(server)
        requests = list(server.requests)
    finally:
        # Stopping joins the server thread: keep that off the event loop other runs share.
        await asyncio.to_thread(server.stop)
    trace_file = result.trace if result else error.trace_path if error else None
    return ScriptedRun(
        impl=impl,
        result=result,
        error=error,
        requests=requests,
        calls=read_jsonl(call_log),
        trace=read_jsonl(trace_file) if trace_file else [],
        trace_path=trace_file,
        script_problems=problems,
    )


def _script_problems(server: ScriptedModelServer) -> str:
    try:
        server.assert_done()
    except AssertionError as problems:
        return str(problems)
    return ""


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one per non-empty line ([] when the file is missing)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
