"""Run one implementation against a scripted model and the mock cluster, and keep all it left behind.

The contract tests, the side-by-side comparison and trace replay all run agents this way: the
model is a `ScriptedModelServer` (a script, or a responder such as the offline model) and the
cluster is the mock cluster over stdio, with a call log of every `tools/call` it received.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k8s_agent.implementations import ask_function
from k8s_agent.scenarios import QUESTION
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import AgentError
from k8s_agent_harness.session import RunResult
from k8s_agent_harness.traces.events import Event, Trace, read_trace
from k8s_agent_harness.traces.private import private_dirs
from k8s_agent_harness.traces.trace import Observer
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_mock_cluster.call_log import LoggedCall, read_call_log
from k8s_agent_scripted_llm import ScriptedModelServer, Step
from k8s_agent_scripted_llm.server import Responder

CALL_LOG = "calls.jsonl"

# What a scripted run uses unless told otherwise: a scripted server never fails, so no retries. The
# time budgets are a user's run's defaults: a busy machine must not turn a slow answer into a verdict.
SCRIPTED_SETTINGS: dict[str, Any] = {
    "model": "scripted",
    "report_format": "prose",  # the C1-C10 scripts answer in prose; C11 and C12 scenarios set a json mode
    "max_retries": 0,
}


@dataclass(frozen=True)
class ScriptedRun:
    """What one run left behind: its result (or error), the wire, the server's call log, the trace."""

    impl: Impl
    result: RunResult | None
    error: AgentError | None
    requests: list[dict[str, Any]]
    """Every request body the model server received, in order."""
    wires: list[str]
    """The wire of each request: `chat` or `responses`."""
    calls: list[LoggedCall]
    """Every `tools/call` the MCP server logged, in order (empty without a call log)."""
    trace: Trace | None
    trace_path: Path | None
    script_problems: str = ""
    """Why the script was not played exactly (steps left over, extra requests); "" when it was."""

    @property
    def events(self) -> tuple[Event, ...]:
        """The trace's events (none when the run left no readable trace)."""
        return self.trace.events if self.trace is not None else ()


async def run_scripted(
    impl: Impl,
    workdir: Path,
    *,
    script: Iterable[Step] = (),
    responder: Responder | None = None,
    question: str = QUESTION,
    mcp_command: tuple[str, ...] | None = None,
    cluster: Path | None = None,
    faults: Path | None = None,
    settings: Mapping[str, Any] | None = None,
    write_tools: bool = False,
    observer: Observer | None = None,
) -> ScriptedRun:
    """Run `impl` on a script (or responder) in `workdir` (call log and trace go there).

    Without `mcp_command` the mock cluster runs with a call log (and its write tools with
    `write_tools`). `settings` are Config fields
    over `SCRIPTED_SETTINGS`; `observer` sees each event as it happens (a progress display). A run
    failure is kept in the result, never raised.
    """
    await asyncio.to_thread(private_dirs, workdir)
    call_log = workdir / CALL_LOG
    if mcp_command is None:
        await asyncio.to_thread(call_log.unlink, missing_ok=True)  # the log must be this run's alone
        mcp_command = mock_cluster_command(
            call_log=call_log, cluster=cluster, faults=faults, write_tools=write_tools
        )
    ask = ask_function(impl)
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
            result = await ask(config, question, **({"observer": observer} if observer else {}))
        except AgentError as failure:
            error = failure
        problems = _script_problems(server)
        requests = list(server.requests)
        wires = list(server.wires)
    finally:
        # Stopping joins the server thread: keep that off the event loop other runs share.
        await asyncio.to_thread(server.stop)
    trace_file = result.trace if result else error.trace_path if error else None
    return ScriptedRun(
        impl=impl,
        result=result,
        error=error,
        requests=requests,
        wires=wires,
        calls=read_call_log(call_log),
        trace=read_trace(trace_file) if trace_file else None,
        trace_path=trace_file,
        script_problems=problems,
    )


def _script_problems(server: ScriptedModelServer) -> str:
    try:
        server.assert_done()
    except AssertionError as problems:
        return str(problems)
    return ""
