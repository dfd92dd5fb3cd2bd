"""Running a comparison: the scenario library, or one question asked again and again, on two sides.

A side is an implementation on a wire (compare_report.Side); by default both agents on one wire.
Each run is measured from its own trace and checked against the contract (compare_report). Runs
share one event loop; `jobs` of them go at a time, and a warm-up run of each side comes first so
that no measured run pays for the process's first use of anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_agent.compare_report import DEFAULT_SIDES, Comparison, Row, RunRecord, Side, record_run
from k8s_agent.implementations import ask_function
from k8s_agent.pool import RateGate, run_pool
from k8s_agent.scenarios import SCENARIOS, Scenario
from k8s_agent.scripted_run import CALL_LOG, run_scripted
from k8s_agent_harness.cluster.servers import STREAMABLE_HTTP, mock_cluster_command
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import AgentError, ConfigError
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces.events import read_trace
from k8s_agent_harness.traces.private import private_dirs
from k8s_agent_mock_cluster import FixtureError, load_fixture
from k8s_agent_mock_cluster.call_log import of_client, read_call_log
from k8s_agent_scripted_llm import ScriptedModelServer, offline_model, responder_for

WARM_UP = "c1-forced-first-step"
"""The scenario each side runs once, unmeasured, before a comparison."""


@dataclass(frozen=True)
class Case:
    """A scenario to run both sides on, on a mock cluster fixture (None: the shipped one)."""

    scenario: Scenario
    cluster: Path | None = None

    @property
    def name(self) -> str:
        """The scenario's name, as `--scenario` selects it."""
        return self.scenario.name

    def columns(self) -> tuple[str, str, str]:
        """Its name, what drives the model (with the budgets it changes), and what it shows."""
        scenario = self.scenario
        if scenario.offline:
            driver = "offline model"
        else:
            steps = len(scenario.script()) if scenario.script else 0
            driver = f"script, {steps} turn{'s' if steps != 1 else ''}"
        budgets = ", ".join(f"{k.replace('_', '-')} {v}" for k, v in scenario.overrides.items())
        if budgets:
            driver += f", {budgets}"
        return self.name, driver, scenario.summary


def listing(cases: Sequence[Case]) -> list[str]:
    """`compare list`: one line per case, its columns aligned to the widest cell of each."""
    rows = [case.columns() for case in cases]
    if not rows:
        return []
    name_width = max(len(row[0]) for row in rows)
    driver_width = max(len(row[1]) for row in rows)
    return [f"{name:<{name_width}}  {driver:<{driver_width}}  {summary}" for name, driver, summary in rows]


@dataclass
class Progress:
    """One line on stderr per finished run."""

    total: int
    quiet: bool = False
    done: int = field(default=0, init=False)

    def say(self, line: str) -> None:
        """Print a line unless quiet."""
        if not self.quiet:
            print(line, file=sys.stderr, flush=True)

    def finished(self, name: str, record: RunRecord, side: str | None = None) -> None:
        """A run ended: its outcome in one line (`side`: how to name its side; its implementation)."""
        self.done += 1
        metrics = record.metrics
        if metrics["status"] != "ok":
            outcome = f"failed: {metrics['error']}"
        elif metrics["invariants_held"]:
            outcome = "ok" if metrics["grounded"] else "ok, ungrounded answer"
        else:
            outcome = "BROKE " + "; ".join(metrics["violations"])
        wall = metrics["wall_seconds"] or 0.0
        self.say(
            f"[{self.done:>{len(str(self.total))}}/{self.total}] {name:<26} {side or record.impl:<11} "
            f"{plural(metrics['model_requests'], 'request')}, {plural(metrics['tool_calls_executed'], 'tool call')}, "
            f"{float(wall):.2f} s · {outcome}"
        )


def builtin_cases() -> list[Case]:
    """Every scenario of the library, in order."""
    return [Case(scenario) for scenario in SCENARIOS.values()]


def cluster_case(fixture: Path) -> Case:
    """The offline model on a mock cluster fixture, as a scenario named `cluster-<stem>`."""
    scenario = Scenario(
        f"cluster-{fixture.stem}", f"the offline model diagnoses {fixture.name}", responder=offline_model
    )
    return Case(scenario, fixture)


def select_cases(cluster: Path | None, names: list[str] | None) -> list[Case]:
    """The built-in scenarios plus the fixture's, narrowed to `names` (in the library's order)."""
    cases = builtin_cases()
    if cluster is not None:
        try:
            load_fixture(cluster)
        except FixtureError as error:
            raise ConfigError(str(error)) from None
        cases.append(cluster_case(cluster))
    if not names:
        return cases
    known = {case.name for case in cases}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(f"unknown scenario {', '.join(unknown)}: choose from {', '.join(sorted(known))}")
    return [case for case in cases if case.name in names]


def run_comparison(
    cases: list[Case],
    root: Path,
    *,
    jobs: int = 2,
    settings: dict[str, Any] | None = None,
    progress: Progress | None = None,
    sides: tuple[Side, ...] = DEFAULT_SIDES,
) -> Comparison:
    """Run every case on both sides (`jobs` runs at a time) and collect the rows."""
    warm_up(root, progress, sides)
    started = time.perf_counter()

    async def run_all() -> list[RunRecord]:
        async def one(pair: tuple[Case, Side]) -> RunRecord:
            case, side = pair
            return await run_case(case, side, root / case.name / side.folder, settings or {})

        def finished(pair: tuple[Case, Side], record: RunRecord) -> None:
            if progress is not None:
                progress.finished(pair[0].name, record, pair[1].title)

        pairs = [(case, side) for case in cases for side in sides]
        return await run_pool(pairs, one, concurrency=jobs, on_done=finished)

    records = iter(asyncio.run(run_all()))
    rows = [
        Row(
            name=case.name,
            summary=case.scenario.summary,
            question=case.scenario.question,
            model="offline" if case.scenario.offline else "scripted",
            deterministic=True,
            runs={side.key: next(records) for side in sides},
            cluster=case.cluster,
            overrides={**(settings or {}), **case.scenario.overrides},
        )
        for case in cases
    ]
    return Comparison(rows, time.perf_counter() - started, jobs, trace_dir=root, sides=sides)


def warm_up(root: Path, progress: Progress | None = None, sides: tuple[Side, ...] = DEFAULT_SIDES) -> None:
    """Run each side once, unmeasured, on a scripted scenario (never a real endpoint).

    The first run in a process pays for lazy imports and first-use set-up in the openai client,
    the MCP client and the SDK (and each wire's first use in them); whichever side ran first
    would be charged for both.
    """
    if progress is not None:
        progress.say("warming up both sides (one unmeasured run each)")
    case = Case(SCENARIOS[WARM_UP])

    async def both() -> None:
        await asyncio.gather(*(run_case(case, side, root / "warm-up" / side.folder, {}) for side in sides))

    asyncio.run(both())


async def run_case(case: Case, side: Side, workdir: Path, settings: dict[str, Any]) -> RunRecord:
    """One side on one scenario, measured and checked."""
    scenario = case.scenario
    done = await run_scripted(
        side.impl,
        workdir,
        script=scenario.script() if scenario.script else (),
        responder=scenario.responder,
        question=scenario.question,
        cluster=case.cluster,
        settings={
            **settings,
            **scenario.overrides,
            "model": "offline" if scenario.offline else "scripted",
            "api": side.api,
        },
    )
    return record_run(
        side.impl,
        done.events,
        api=side.api,
        requests=done.requests,
        wires=done.wires,
        calls=done.calls,
        script_problems=done.script_problems,
        trace_path=done.trace_path,
    )


def run_repeated(
    question: str,
    config: Config,
    repeat: int,
    root: Path,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    sides: tuple[Side, ...] = DEFAULT_SIDES,
) -> Comparison:
    """Ask `question` `repeat` times per side; the order alternates between rounds."""
    warm_up(root, progress, sides)
    started = time.perf_counter()
    rounds = [
        [(number, side) for side in (sides if number % 2 else sides[::-1])] for number in range(1, repeat + 1)
    ]

    async def run_all() -> dict[tuple[int, Side], RunRecord]:
        async with contextlib.AsyncExitStack() as stack:
            shared: SharedMock | None = None
            if _on_mock(config) and config.mcp_transport == STREAMABLE_HTTP:
                shared = await stack.enter_async_context(_shared_mock(config, root / "server"))
            gated = config
            if not config.offline:  # a 429 pauses every run of the comparison instead of failing one
                gate = stack.enter_context(RateGate(config.base_url or "https://api.openai.com/v1"))
                gated = dataclasses.replace(config, base_url=gate.url)

            async def one(pair: tuple[int, Side]) -> RunRecord:
                number, side = pair
                return await run_configured(
                    side, gated, question, root / f"round-{number}" / side.folder, shared
                )

            def finished(pair: tuple[int, Side], record: RunRecord) -> None:
                if progress is not None:
                    progress.finished(f"round {pair[0]}", record, pair[1].title)

            order = [pair for pairs in rounds for pair in pairs]
            records = await run_pool(order, one, concurrency=jobs, on_done=finished)
        return dict(zip(order, records, strict=True))

    records = asyncio.run(run_all())
    rows = [
        Row(
            name=f"round {number}",
            summary=f"round {number} of {repeat}",
            question=question,
            model=config.model,
            deterministic=config.offline,
            runs={side.key: records[number, side] for side in sides},
            cluster=config.cluster,
        )
        for number in range(1, repeat + 1)
    ]
    return Comparison(
        rows,
        time.perf_counter() - started,
        jobs,
        mode="repeat",
        question=question,
        repeat=repeat,
        trace_dir=root,
        sides=sides,
    )


@dataclass(frozen=True)
class SharedMock:
    """The mock cluster over Streamable HTTP that every run of a comparison shares, and its log."""

    url: str
    call_log: Path


def _on_mock(config: Config) -> bool:
    return not config.mcp_command and not config.mcp_url and config.cluster_server in (None, "mock")


@contextlib.asynccontextmanager
async def _shared_mock(config: Config, folder: Path) -> AsyncIterator[SharedMock]:
    """One mock cluster (the configured fixture) over Streamable HTTP, logging every call."""
    from k8s_agent.eval.hosting import serve_over_http

    await asyncio.to_thread(private_dirs, folder)
    call_log = folder / CALL_LOG
    async with serve_over_http(
        mock_cluster_command(call_log=call_log, cluster=config.cluster, http=True)
    ) as url:
        yield SharedMock(url, call_log)


async def run_configured(
    side: Side, config: Config, question: str, workdir: Path, shared: SharedMock | None = None
) -> RunRecord:
    """One run of a side with the configured endpoint (the offline model when none) and MCP server.

    On the mock cluster the run gets a call log, to check the gateway against: a stdio server of
    its own, or its own URL on `shared` (whose log holds its calls under that name). Any other
    server (`--mcp-command`, a `--cluster-server` preset) is left to the session to start, as
    `ask` does.
    """
    await asyncio.to_thread(private_dirs, workdir)
    call_log = workdir / CALL_LOG if _on_mock(config) and shared is None else None
    server = (
        ScriptedModelServer(responder=responder_for(config.model), model=config.model).start()
        if config.offline
        else None
    )
    run_config = dataclasses.replace(
        config,
        impl=side.impl,
        api=side.api,
        trace_dir=workdir,
        base_url=server.url if server else config.base_url,
    )
    client = "-".join(workdir.parts[-2:])  # round-N-SIDE
    if shared is not None:
        run_config = dataclasses.replace(run_config, mcp_url=f"{shared.url}/{client}", cluster=None)
    elif call_log is not None:
        run_config = dataclasses.replace(
            run_config,
            mcp_command=mock_cluster_command(call_log=call_log, cluster=config.cluster),
            cluster=None,
        )
    trace_path: Path | None = None
    try:
        result = await ask_function(side.impl)(run_config, question)
        trace_path = result.trace
    except AgentError as error:
        trace_path = error.trace_path
    finally:
        if server is not None:
            await asyncio.to_thread(server.stop)
    return record_run(
        side.impl,
        read_trace(trace_path).events if trace_path else (),
        api=side.api,
        wires=server.wires if server else None,
        calls=of_client(read_call_log(shared.call_log), client)
        if shared
        else read_call_log(call_log)
        if call_log
        else None,
        trace_path=trace_path,
    )
