"""What every run shares, whichever loop drives it: trace, budgets, MCP server, gateway, model client.

An agent opens a run, drives its loop with what it finds here, and finishes it with an answer.
Failures still end the trace with a `run_end` event, and carry the trace path to the CLI.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from harness.approval import Approver, deny_all
from harness.config import Config
from harness.errors import AgentError, ConfigError, MalformedResponseError
from harness.gateway import ToolGateway
from harness.grounding import Evidence, invented_names
from harness.mcp_client import McpClient
from harness.model_client import WireState, model_client, public_url
from harness.redact import Redactor
from harness.servers import resolve_server
from harness.supervisor import Supervisor
from harness.trace import Observer, Recorder, RunStats, TraceWriter, new_run_id, trace_path


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run, as the CLI prints it."""

    answer: str
    impl: str
    model: str
    run_id: str
    trace: Path
    stats: RunStats
    wall_seconds: float
    ungrounded: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The `ask --json` object."""
        return {
            "answer": self.answer,
            "impl": self.impl,
            "model": self.model,
            "run_id": self.run_id,
            "trace": str(self.trace),
            **self.stats.as_dict(),
            "ungrounded_names": list(self.ungrounded),
            "wall_seconds": round(self.wall_seconds, 3),
        }


@dataclass
class Run:
    """The shared parts of one run, handed to the loop that drives it."""

    config: Config
    question: str
    recorder: Recorder
    supervisor: Supervisor
    gateway: ToolGateway
    model: openai.AsyncOpenAI
    mcp: McpClient
    wire: WireState

    @property
    def evidence(self) -> Evidence:
        """Every successful tool result so far."""
        return self.gateway.evidence

    def check_wire(self) -> None:
        """Raise MalformedResponseError if the last completion the endpoint sent was unusable."""
        if self.wire.malformed is not None:
            raise MalformedResponseError(
                f"the model endpoint sent a malformed response: {self.wire.malformed}"
            )

    def finish(self, answer: str) -> RunResult:
        """Record the end of a successful run and return its result."""
        answer = self.recorder.redactor.text(answer)
        ungrounded = tuple(invented_names(answer, self.evidence))
        wall = self.recorder.elapsed()
        self.recorder.event(
            "run_end",
            status="ok",
            answer=answer,
            ungrounded_names=list(ungrounded),
            wall_seconds=round(wall, 3),
            counts=self.recorder.stats.as_dict(),
        )
        return RunResult(
            answer=answer,
            impl=self.recorder.impl,
            model=self.config.model,
            run_id=self.recorder.run_id,
            trace=self.recorder.path,
            stats=self.recorder.stats,
            wall_seconds=wall,
            ungrounded=ungrounded,
        )


@asynccontextmanager
async def open_run(
    config: Config,
    impl: str,
    question: str,
    *,
    observer: Observer | None = None,
    approver: Approver = deny_all,
    secrets: Sequence[str] = (),
    mcp: McpClient | None = None,
) -> AsyncIterator[Run]:
    """Open the trace, start the MCP server, build gateway and model client; close all on exit.

    `mcp` reuses a running server (its tools listed once) instead of starting one per run.
    """
    try:
        launch = resolve_server(config)
    except ConfigError as error:
        record_failed_start(config.trace_dir, impl, question, error)
        raise
    run_id = new_run_id()
    redactor = Redactor([*config.secrets(), *secrets, *launch.secrets])
    recorder = Recorder(
        TraceWriter(trace_path(config.trace_dir, impl, run_id)),
        run_id=run_id,
        impl=impl,
        redactor=redactor,
        observer=observer,
    )
    recorder.event(
        "run_start",
        question=question,
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        model=config.model,
        endpoint=public_url(config.base_url) if config.base_url else None,
        mcp_command=list(launch.command),
        mcp_server=launch.description,
        budgets={
            "max_steps": config.max_steps,
            "max_repeats": config.max_repeats,
            "max_seconds": config.max_seconds,
            "tool_timeout": config.tool_timeout,
            "request_timeout": config.request_timeout,
            "max_retries": config.max_retries,
        },
    )
    try:
        async with AsyncExitStack() as stack:
            if mcp is None:
                mcp = await stack.enter_async_context(
                    McpClient.running(
                        launch.command, launch.env, call_timeout=config.tool_timeout, on_event=recorder.event
                    )
                )
            supervisor = Supervisor(
                max_steps=config.max_steps, max_repeats=config.max_repeats, max_seconds=config.max_seconds
            )
            gateway = ToolGateway(
                mcp.tools,
                mcp,
                recorder,
                supervisor,
                Evidence(question),
                allow_write=config.allow_write,
                approver=approver,
            )
            recorder.event(
                "tools_listed",
                tools=[{"name": t.name, "read_only": t.read_only} for t in mcp.tools],
                allowed=gateway.names,
                refused=gateway.refused,
            )
            if not gateway.names:
                raise AgentError(
                    "the MCP server offers no usable tools"
                    + (
                        f" (refused as not read-only: {', '.join(gateway.refused)})"
                        if gateway.refused
                        else ""
                    )
                )
            wire = WireState()
            async with model_client(config, recorder, wire) as model:
                yield Run(config, question, recorder, supervisor, gateway, model, mcp, wire)
    except AgentError as error:
        _record_failure(recorder, error)
        error.trace_path = recorder.path
        raise
    except BaseException as error:
        _record_failure(recorder, error)
        raise
    finally:
        recorder.writer.close()


def _record_failure(recorder: Recorder, error: BaseException) -> None:
    detail = str(error) or type(error).__name__
    tail = getattr(error, "stderr_tail", "")
    recorder.event(
        "run_end",
        status="error",
        error=detail,
        error_type=type(error).__name__,
        stderr_tail=tail or None,
        wall_seconds=round(recorder.elapsed(), 3),
        counts=recorder.stats.as_dict(),
    )


def record_failed_start(trace_dir: Path, impl: str, question: str, error: AgentError) -> Path:
    """Write the trace of a run that failed before it could start (bad flags or configuration)."""
    run_id = new_run_id()
    recorder = Recorder(
        TraceWriter(trace_path(trace_dir, impl, run_id)), run_id=run_id, impl=impl, redactor=Redactor()
    )
    recorder.event(
        "run_start", question=question, started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    )
    _record_failure(recorder, error)
    recorder.writer.close()
    error.trace_path = recorder.path
    return recorder.path
