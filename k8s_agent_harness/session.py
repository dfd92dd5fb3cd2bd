"""What every run shares, whichever loop drives it: trace, budgets, MCP server, gateway, model client.

An agent opens a session, drives its loop with what it finds here (asking `review` about every
answer), and finishes it with an answer. Failures still end the trace with a `run_end` event,
and carry the trace path to the CLI.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from k8s_agent_harness import interrupts
from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.cluster.served import started_over_http
from k8s_agent_harness.cluster.servers import resolve_server
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import AgentError, ConfigError
from k8s_agent_harness.evidence.grounding import Evidence, invented_names
from k8s_agent_harness.evidence.redact import Redactor, one_line, public_url
from k8s_agent_harness.evidence.rendering import render_text
from k8s_agent_harness.evidence.report import HealthReport, report_fields
from k8s_agent_harness.evidence.verification import Shown
from k8s_agent_harness.guards.approval import Approver, deny_all
from k8s_agent_harness.guards.gateway import ToolGateway
from k8s_agent_harness.guards.read_policy import KNOWN_AS, Access, ReadPolicy
from k8s_agent_harness.guards.review import Accept, Checked, PushBack, Verdict, review, review_report
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.client import WireState, model_client
from k8s_agent_harness.model.context import Budget, ResultStore
from k8s_agent_harness.traces import events, otel
from k8s_agent_harness.traces.trace import Observer, Recorder, RunStats, TraceWriter, new_run_id, trace_path
from k8s_agent_harness.vocabulary import Impl, Pushback, ReportFormat, RunStatus


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run, as the CLI prints it."""

    answer: str
    impl: Impl
    model: str
    run_id: str
    trace: Path
    stats: RunStats
    wall_seconds: float
    ungrounded: tuple[str, ...] = ()
    report_format: ReportFormat = ReportFormat.PROSE
    report: HealthReport | None = None
    """The structured report with the harness's marks (json modes, when the answer parsed)."""
    report_problems: tuple[str, ...] = ()
    """What is still unverified (or why the answer is no report) after the correction turn."""
    shown: tuple[Shown, ...] = ()
    """What the run's tool results showed, by kind, when a structured report was checked against them."""
    failures: tuple[str, ...] = ()
    """Why each tool call that reached the server failed (`tool: reason`), in order."""

    @property
    def read_nothing(self) -> bool:
        """Whether no tool call returned anything: every call failed, or none reached the server.
        Such a report says nothing of the cluster's health, whatever it says."""
        return self.stats.tool_calls_executed - self.stats.tool_calls_failed <= 0

    @property
    def verified(self) -> bool | None:
        """Whether the structured report checked out entirely; None for a prose report."""
        if self.report_format is ReportFormat.PROSE:
            return None
        return self.report is not None and not self.report_problems

    @property
    def unverified(self) -> bool:
        """Whether the report stayed unverified after its correction: a structured report with
        problems (or no report at all), or a prose report naming what no tool returned."""
        if self.report_format is ReportFormat.PROSE:
            return bool(self.ungrounded)
        return self.verified is False

    def as_json(self) -> dict[str, Any]:
        """The `ask --json` object."""
        return {
            "answer": self.answer,
            "impl": self.impl,
            "model": self.model,
            "run_id": self.run_id,
            "trace": str(self.trace),
            "report_format": self.report_format.value,
            "report": self.report.model_dump(mode="json") if self.report is not None else None,
            "report_verified": self.verified,
            "report_problems": list(self.report_problems),
            "resources_shown": [group.as_dict() for group in self.shown],
            "cluster_read": not self.read_nothing,
            "tool_failures": list(self.failures),
            **self.stats.as_dict(),
            "ungrounded_names": list(self.ungrounded),
            "wall_seconds": round(self.wall_seconds, 3),
        }


@dataclass
class Session:
    """The shared parts of one run, handed to the loop that drives it."""

    config: Config
    question: str
    recorder: Recorder
    supervisor: Supervisor
    gateway: ToolGateway
    model: openai.AsyncOpenAI
    mcp: McpClient
    wire: WireState
    corrected: Checked | None = None
    """The report the correction turn was about, kept in case the answer to it is no report."""

    @property
    def evidence(self) -> Evidence:
        """Every successful tool result so far."""
        return self.gateway.evidence

    @property
    def structured(self) -> bool:
        """Whether this run asks for the report as JSON (json_schema or json_text)."""
        return self.config.report_mode is not ReportFormat.PROSE

    @property
    def report_fields(self) -> dict[str, Any]:
        """The fields every request adds to ask for the report on this run's wire (evidence/report.py)."""
        return report_fields(self.config.report_mode, self.config.api)

    @property
    def report_bytes(self) -> int:
        """The bytes those fields add to every request (what compaction cannot shrink)."""
        fields = self.report_fields
        return len(json.dumps(next(iter(fields.values())))) if fields else 0

    def _spent(self) -> set[Pushback]:
        return {kind for kind in Pushback if self.recorder.stats.pushbacks[kind]}

    def review(self, answer: str) -> Verdict:
        """The review policy's verdict on a text answer; a pushback is recorded and spends its turn."""
        verdict = review(
            answer,
            tools_ran=self.recorder.stats.tool_calls_executed,
            evidence=self.evidence,
            spent=self._spent(),
            structured=self.structured,
            corrected=self.corrected,
        )
        return self._recorded(verdict)

    def review_summary(self, answer: str) -> Verdict:
        """The verdict on the forced summary: a structured report still gets its one correction turn
        (asked without tools); prose is accepted as it is."""
        if not self.structured:
            return Accept(answer)
        return self._recorded(
            review_report(answer, evidence=self.evidence, spent=self._spent(), corrected=self.corrected)
        )

    def _recorded(self, verdict: Verdict) -> Verdict:
        checked = verdict.checked
        if checked is not None:
            self.recorder.report_checked(
                self.config.report_mode,
                parsed=checked.report is not None,
                report=checked.report.model_dump(mode="json") if checked.report is not None else None,
                problems=checked.problems,
                accepted=isinstance(verdict, Accept),
            )
        if isinstance(verdict, PushBack):
            if verdict.kind is Pushback.REPORT:
                self.corrected = verdict.checked
            self.supervisor.pushback_given()
            self.recorder.pushback(verdict.kind, verdict.message, list(verdict.names))
        return verdict

    def check_wire(self) -> None:
        """Raise ModelEndpointError if the last answer was the endpoint's error (MalformedResponseError
        if it was unusable)."""
        self.wire.check()

    async def call_tool(self, call_id: str, name: str, arguments: str) -> str:
        """One proposed call through the gateway: the text its call id is answered with (with a note
        when the output limit cut the reply off after it)."""
        outcome = await self.gateway.call(call_id, name, arguments)
        if call_id == self.wire.cut_off:
            return outcome.content + prompts.CUT_OFF_NOTE
        return outcome.content

    def unparsable_call(self) -> str | None:
        """When the endpoint's last error said it could not parse the model's tool call: the message
        that tells the model, recorded and counted like a call whose arguments are not JSON (C8)."""
        unparsable = self.wire.unparsable
        if unparsable is None:
            return None
        self.wire.unparsable = None
        message = prompts.unparsable_call(unparsable.message, unparsable.generation)
        self.recorder.unparsable_call(message)
        return message

    def finish(self, outcome: Accept | str) -> RunResult:
        """Record the end of a successful run and return its result.

        A structured report is rendered from its checked structure (each quote marked); one that
        never parsed is kept as written, said to be unverified.
        """
        verdict = outcome if isinstance(outcome, Accept) else Accept(outcome)
        checked = verdict.checked
        mode = self.config.report_mode
        if checked is None and self.structured:  # a summary nobody could review (no report at all)
            checked = Checked(verdict.answer, None, "no report was written")
        report: HealthReport | None = None
        problems: tuple[str, ...] = ()
        shown: tuple[Shown, ...] = ()
        if checked is None:
            answer = verdict.answer
            ungrounded = tuple(invented_names(answer, self.evidence))
        else:
            report, problems = checked.report, tuple(checked.problems)
            if report is not None:  # `--json` prints it as data: no secret in it either
                report = redacted_report(report, self.recorder.redactor)
            if report is not None and checked.verification is not None:
                answer = render_text(
                    report, server_names={a: real for real, a in self.gateway.aliases.items()}
                )
                ungrounded = tuple(checked.verification.unverified_names)
                shown = tuple(redacted_shown(checked.verification.shown, self.recorder.redactor))
            else:
                answer = _unreadable(checked)
                ungrounded = ()
        answer = self.recorder.redactor.text(answer)
        wall = self.recorder.elapsed()
        self.recorder.emit(
            events.RunEnd(
                status=RunStatus.OK,
                answer=answer,
                ungrounded_names=list(ungrounded),
                wall_seconds=round(wall, 3),
                counts=self.recorder.stats.counts(),
            )
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
            report_format=mode,
            report=report,
            report_problems=problems,
            shown=shown,
            failures=tuple(
                f"{result.tool}: {result.text}" for result in self.evidence.results if not result.ok
            ),
        )


def redacted_shown(shown: Sequence[Shown], redactor: Redactor) -> list[Shown]:
    """The groups of resources shown, their namespaces and tool names redacted."""
    return [
        dataclasses.replace(
            group,
            namespaces=tuple(redactor.text(name) for name in group.namespaces),
            tools=tuple(redactor.text(tool) for tool in group.tools),
        )
        for group in shown
    ]


def redacted_report(report: HealthReport, redactor: Redactor) -> HealthReport:
    """A copy of a checked report with every text redacted, its marks kept."""
    copy = report.model_copy(deep=True)
    copy.scope = redactor.text(copy.scope)
    copy.unchecked = [redactor.text(item) for item in copy.unchecked]
    copy.healthy.examples = [redactor.text(name) for name in copy.healthy.examples]
    for finding in copy.findings:
        for name in ("name", "status", "explanation", "fix"):
            setattr(finding, name, redactor.text(getattr(finding, name)))
        finding.namespace = redactor.text(finding.namespace) if finding.namespace else finding.namespace
        for quote in finding.evidence:
            quote.text = redactor.text(quote.text)
    return copy


MAX_UNREADABLE_SHOWN = 8_000
"""Characters of an answer that is no report shown in the terminal (the trace keeps it whole)."""


def _unreadable(checked: Checked) -> str:
    """A structured answer that never became a report: shown (its start, if long), said to be
    unverified; the trace keeps it whole."""
    text = checked.text.strip() or "(the model wrote nothing)"
    if len(text) > MAX_UNREADABLE_SHOWN:
        more = len(text) - MAX_UNREADABLE_SHOWN
        text = (
            f"{text[:MAX_UNREADABLE_SHOWN]}\n[... {more:,} more characters: the whole answer is in the trace]"
        )
    problem = one_line(checked.problem or "")
    return f"UNVERIFIED: the model's answer is not a report the harness could check ({problem}).\n\n{text}"


@asynccontextmanager
async def open_session(
    config: Config,
    impl: Impl,
    question: str,
    *,
    observer: Observer | None = None,
    approver: Approver = deny_all,
    secrets: Sequence[str] = (),
    mcp: McpClient | None = None,
) -> AsyncIterator[Session]:
    """Open the trace, start the MCP server, build gateway and model client; close all on exit.

    `mcp` reuses a running server (its tools listed once) instead of starting one per run. The run
    starts when its trace opens: a server that cannot even be named (ConfigError) leaves no trace.
    """
    launch = resolve_server(config)
    run_id = new_run_id()
    exporter = otel.active()
    redactor = Redactor(
        [*config.secrets(), *secrets, *launch.secrets, *(exporter.settings.secrets() if exporter else ())]
    )
    recorder = Recorder(
        TraceWriter(trace_path(config.trace_dir, impl, run_id)),
        run_id=run_id,
        impl=impl,
        redactor=redactor,
        observer=observer,
        spans=exporter.builder() if exporter is not None else None,
    )
    recorder.emit(
        events.RunStart(
            question=question,
            started_at=_now(),
            model=config.model,
            endpoint=public_url(config.base_url) if config.base_url else None,
            mcp_command=list(launch.command),
            mcp_url=launch.url,
            mcp_server=launch.description,
            mcp_transport=launch.transport,
            budgets=config.budgets(),
            report_format=config.report_mode,
            api=config.api,
            stream=config.stream,
        )
    )
    try:
        async with AsyncExitStack() as stack:
            if mcp is None:
                launch.prepare()  # the files the server's command reads (kubernetes-mcp-server's config)
                launch = stack.enter_context(launch.with_private_kubeconfig())
                command, url = launch.command, launch.url
                if launch.http is not None:  # started listening on loopback, reached over HTTP
                    url = await stack.enter_async_context(started_over_http(launch, config.mcp_start_timeout))
                    command = ()
                mcp = await stack.enter_async_context(
                    McpClient.running(
                        command,
                        launch.env,
                        call_timeout=config.tool_timeout,
                        max_call_seconds=config.tool_max_seconds,
                        start_timeout=config.mcp_start_timeout,
                        on_event=recorder.emit,
                        url=url,
                        headers=launch.headers,
                        ca_file=str(launch.ca_file) if launch.ca_file else None,
                        transport=launch.transport if url is not None else None,
                    )
                )
            supervisor = Supervisor(
                max_steps=config.max_steps, max_repeats=config.max_repeats, max_seconds=config.max_seconds
            )
            wire = WireState()
            listing = mcp.listing
            gateway = ToolGateway(
                listing.tools,
                mcp,
                recorder,
                supervisor,
                Evidence(question),
                policy=ReadPolicy.of(
                    mcp.server[0] if mcp.server else None,
                    allow_read=config.allow_read,
                    allow_write=config.allow_write,
                    trust_hints=config.trust_server_hints,
                ),
                approver=approver,
                budget=Budget(config.context_budget, config.max_calls_per_turn),
                store=ResultStore(),
                max_calls_per_turn=config.max_calls_per_turn,
                position=wire.position,
                source=mcp,
                generation=listing.generation,
            )
            for problem in listing.problems:
                recorder.warn(problem)
            recorder.emit(gateway.listed_event(mcp.protocol))
            await gateway.refresh()  # a change the server announced while it started: the new list is used
            if not gateway.names:
                raise no_usable_tools(gateway)
            async with model_client(config, recorder, wire, on_text=recorder.show_text) as model:
                yield Session(config, question, recorder, supervisor, gateway, model, mcp, wire)
    except AgentError as error:
        _record_failure(recorder, error)
        error.trace_path = recorder.path
        raise
    except BaseException as error:
        _record_failure(recorder, error)
        raise
    finally:
        recorder.writer.close()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _record_failure(recorder: Recorder, error: BaseException) -> None:
    interrupted = isinstance(error, KeyboardInterrupt | asyncio.CancelledError)
    recorder.emit(
        events.RunEnd(
            status=RunStatus.ERROR,
            error=interrupts.reason() if interrupted else (str(error) or type(error).__name__),
            error_type="Interrupted" if interrupted else type(error).__name__,
            stderr_tail=getattr(error, "stderr_tail", "") or None,
            interrupted=interrupted,
            wall_seconds=round(recorder.elapsed(), 3),
            counts=recorder.stats.counts(),
        )
    )


def no_usable_tools(gateway: ToolGateway) -> AgentError:
    """Why the run can offer the model no tool, and what the user can do about it."""
    if not gateway.refused:
        left = f" (each runs only as a task: {', '.join(gateway.tasks_only)})" if gateway.tasks_only else ""
        return AgentError(f"the MCP server offers no usable tools{left}")
    policy = gateway.policy
    verdicts = [gateway.verdicts[gateway.server_name(name)] for name in gateway.refused]
    hinted = [
        name
        for name, verdict in zip(gateway.refused, verdicts, strict=True)
        if verdict.access is Access.UNVETTED and gateway.hinted_read_only(name)
    ]
    who = (
        f"{KNOWN_AS[policy.server]}, whose tools k8s-agent has vetted"
        if policy.known and policy.server
        else f"`{policy.server}`, which k8s-agent does not know"
        if policy.server
        else "a server that gave no name"
    )
    advice = (
        "allow the ones you know only read with --allow-read TOOL (repeatable; or K8S_AGENT_ALLOW_READ="
        "TOOL,TOOL in the environment or .env)"
        + (
            f"; the server marks read-only: {', '.join(hinted)} (--trust-server-hints takes its word)"
            if hinted
            else ""
        )
    )
    return ConfigError(
        f"the MCP server offers no tool this run may call: it is {who}, and every tool it lists may write "
        f"({', '.join(gateway.refused)}): {advice}"
    )
