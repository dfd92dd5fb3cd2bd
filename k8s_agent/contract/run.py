"""Running the contract: every contract scenario, per subject, against a scripted model and the mock cluster.

Per (subject, scenario): a scripted model server plays the scenario's script (tool names fitted to
what the subject offers: an agent that prefixes MCP tool names still gets the planted calls), a
fresh mock cluster logs every call it receives, the subject runs against both, and what crossed
the wire is kept as an `Observed` for the judge: the request bodies as sent, and the conversation
each amounts to (a stateful Responses request, `previous_response_id`, expanded to the whole chain
by the model server, which keeps its responses), which the rules read.

Over Streamable HTTP (`transport="streamable-http"`) one mock cluster serves every run (a second
one, with write tools, the scenarios that offer them), each run at a URL of its own
(`/mcp/SUBJECT--SCENARIO`): the judge reads that run's calls and results from the shared logs by
the name in the URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from k8s_agent.contract.judge import FAILS, ITEMS, Judgement, Observed, judge_all
from k8s_agent.contract.launch import MockCluster, Setup
from k8s_agent.contract.subjects import Subject
from k8s_agent.pool import run_pool
from k8s_agent.scenarios import JUDGED_SCENARIOS, QUESTION, SECRETS, Scenario
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces.private import private_dirs
from k8s_agent_mock_cluster.call_log import of_client, read_call_log, read_result_log
from k8s_agent_scripted_llm import HttpError, Reply, ScriptedModelServer, Step

CALL_LOG = "calls.jsonl"
RESULT_LOG = "results.jsonl"
API_KEY = "sk-contract-3f8e1a9c7b2d4e6f0a5c"
"""The key every subject is given: the scripted model takes any key, so this is never a real one, but
it is the secret the subject holds, and C14 looks for it in every request."""
MODEL = "scripted"


class ScriptPlayer:
    """A responder that plays a script, fitting each call's tool name to the tools a request offers.

    A scripted `list_pods` goes out as the one offered tool whose name ends in `list_pods` (e.g.
    `mock_cluster__list_pods`) when `list_pods` itself is not offered; a tool offered under no such
    name stays as scripted (an unknown tool, as the scenario means it).
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.played = 0
        self.extra = 0

    @property
    def left(self) -> int:
        """Steps never asked for."""
        return len(self._steps) - self.played

    def __call__(self, body: dict[str, Any]) -> Step:
        with self._lock:
            if self.played >= len(self._steps):
                self.extra += 1
                return HttpError(400, "scripted model: no step left", {"x-should-retry": "false"})
            step = self._steps[self.played]
            self.played += 1
        offered = [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []]
        if isinstance(step, Reply) and step.tool_calls:
            calls = tuple(replace(call, name=fit(call.name, offered)) for call in step.tool_calls)
            return replace(step, tool_calls=calls)
        return step


def fit(name: str, offered: Sequence[str]) -> str:
    """The offered tool a scripted name means: itself, else the one offered name ending in it."""
    if name in offered or not offered:
        return name
    matches = [tool for tool in offered if tool.endswith(name) and not tool[: -len(name)][-1:].isalnum()]
    return matches[0] if len(matches) == 1 else name


@dataclass
class SubjectResult:
    """One subject's runs and verdicts."""

    subject: str
    description: str
    judgements: list[Judgement]
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per scenario: requests, server calls, answer, error, seconds, workdir, wires."""
    wire: str = "chat"
    """The wire its requests came on, as the model server saw them: `chat`, `responses`, both
    (`chat+responses`) or `none` (no request)."""

    @property
    def failed(self) -> list[Judgement]:
        """The items that fail."""
        return [j for j in self.judgements if j.verdict == FAILS]


@dataclass
class ContractReport:
    """Every subject's verdicts on every item."""

    results: list[SubjectResult]
    scenarios: list[str]
    wall_seconds: float
    workdir: Path | None
    """Where each run's files are; None when they were not kept (`forget_files`)."""
    api: str = "chat"
    """The wire the subjects were asked to speak (`--api`)."""
    stream: bool = False
    """Whether they were asked to stream the model's answers (`--stream yes`)."""

    def forget_files(self) -> None:
        """Say nowhere where the runs' files were: they were in a temporary folder, now removed."""
        self.workdir = None
        for result in self.results:
            for run in result.runs.values():
                run["workdir"] = None

    @property
    def any_failed(self) -> bool:
        """Whether some item fails for some subject."""
        return any(result.failed for result in self.results)


def select_scenarios(names: Sequence[str] | None) -> list[Scenario]:
    """The contract scenarios, narrowed to `names` (in the library's order)."""
    if not names:
        return list(JUDGED_SCENARIOS)
    known = {scenario.name for scenario in JUDGED_SCENARIOS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(
            f"unknown contract scenario {', '.join(unknown)}: choose from {', '.join(sorted(known))}"
        )
    return [scenario for scenario in JUDGED_SCENARIOS if scenario.name in names]


@dataclass(frozen=True)
class SharedMock:
    """A mock cluster over Streamable HTTP that many runs share, and its logs."""

    url: str
    call_log: Path
    result_log: Path


async def observe(
    subject: Subject,
    scenario: Scenario,
    workdir: Path,
    shared: SharedMock | None = None,
    api: str = "chat",
    stream: bool = False,
) -> tuple[Observed, dict[str, Any]]:
    """One run of a subject on one scenario, and what it left on the wire and at the server (its
    own mock cluster, or its connection to `shared`)."""
    await asyncio.to_thread(private_dirs, workdir)
    call_log, result_log = workdir / CALL_LOG, workdir / RESULT_LOG
    client = f"{subject.name}--{scenario.name}"
    if shared is not None:
        call_log, result_log = shared.call_log, shared.result_log
    else:
        for log in (call_log, result_log):
            await asyncio.to_thread(log.unlink, missing_ok=True)
    assert scenario.script is not None  # the contract scenarios are scripts
    cluster = None
    if scenario.cluster is not None and shared is None:
        cluster = await asyncio.to_thread(scenario.cluster, workdir)
    player = ScriptPlayer(scenario.script())
    server = ScriptedModelServer(responder=player).start()
    mock = MockCluster(
        call_log=call_log, result_log=result_log, write_tools=scenario.write_tools, cluster=cluster
    )
    try:
        setup = Setup(
            base_url=server.url,
            api_key=API_KEY,
            model=MODEL,
            mcp_command=()
            if shared
            else mock_cluster_command(
                call_log=call_log, result_log=result_log, write_tools=scenario.write_tools, cluster=cluster
            ),
            question=scenario.question or QUESTION,
            workdir=workdir,
            overrides=dict(scenario.overrides),
            mock=mock,
            mcp_url=f"{shared.url}/{client}" if shared else None,
            api=api,
            stream=stream,
        )
        outcome = await subject.run(setup)
        requests, replies, wires = list(server.requests), list(server.replies), list(server.wires)
        conversations = list(server.conversations)
    finally:
        await asyncio.to_thread(server.stop)
    named = client if shared is not None else None
    calls = [dict(call) for call in of_client(read_call_log(call_log), named)]
    results = [dict(result) for result in of_client(read_result_log(result_log), named)]
    observed = Observed(
        scenario=scenario.name,
        requests=requests,
        replies=replies,
        calls=calls,
        answer=outcome.answer,
        error=outcome.error,
        steps_left=player.left,
        results=results,
        structured=getattr(subject, "structured", None),
        max_steps=setup.max_steps,
        write_tools=scenario.write_tools,
        server_schemas=await mock.schemas(),
        secrets=_secrets(scenario, setup),
        conversations=conversations if conversations != requests else (),
    )
    record = {
        "requests": len(requests),
        "server_calls": [f"{c.get('tool')}({c.get('arguments')})" for c in calls],
        "steps_left": player.left,
        "extra_requests": player.extra,
        "answer": outcome.answer,
        "error": outcome.error,
        "seconds": round(outcome.seconds, 3),
        "workdir": str(workdir),
        "wires": sorted(set(wires)),
    }
    return observed, record


def _secrets(scenario: Scenario, setup: Setup) -> dict[str, str]:
    """What must never reach the model in this run, by what it is: the key the subject holds, and
    the secrets the scenario's cluster plants in tool results."""
    held = {"the API key the agent holds": setup.api_key}
    return held | (dict(SECRETS) if scenario.cluster is not None else {})


def server_key(scenario: Scenario) -> tuple[bool, Any]:
    """Which shared server a scenario's runs use: by its write tools and its cluster."""
    return scenario.write_tools, scenario.cluster


async def run_contract(
    subjects: Sequence[Subject],
    scenarios: Sequence[Scenario],
    workdir: Path,
    *,
    jobs: int = 2,
    progress: Callable[[str], None] = lambda line: None,
    transport: str = "stdio",
    api: str = "chat",
    stream: bool = False,
) -> ContractReport:
    """Every scenario for every subject (`jobs` runs at a time), judged per subject; over
    Streamable HTTP, every run on one shared mock cluster (two: with and without write tools).
    `api`: the wire the subjects are asked to speak (the judge reads either); `stream`: whether
    they are asked to stream the model's answers (the scripted model then streams them)."""
    started = time.perf_counter()
    async with contextlib.AsyncExitStack() as stack:
        shared: dict[tuple[bool, Any], SharedMock] = {}
        if transport == "streamable-http":
            for scenario in scenarios:
                key = server_key(scenario)
                if key in shared:
                    continue
                folder = workdir / (
                    "server-with-write-tools"
                    if scenario.write_tools
                    else f"server-{scenario.name}"
                    if scenario.cluster
                    else "server"
                )
                shared[key] = await stack.enter_async_context(
                    _shared_mock(folder, scenario.write_tools, scenario.cluster)
                )
        report = await _run_all(
            subjects, scenarios, workdir, max(1, jobs), progress, shared, started, api, stream
        )
        return replace(report, api=api, stream=stream)


@contextlib.asynccontextmanager
async def _shared_mock(
    folder: Path, write_tools: bool, cluster: Callable[[Path], Path] | None = None
) -> AsyncIterator[SharedMock]:
    """One mock cluster over Streamable HTTP with its call and result logs in `folder` (its fixture
    written there by `cluster`, when the scenarios it serves have one)."""
    from k8s_agent.eval.hosting import serve_over_http

    await asyncio.to_thread(private_dirs, folder)
    call_log, result_log = folder / CALL_LOG, folder / RESULT_LOG
    fixture = await asyncio.to_thread(cluster, folder) if cluster is not None else None
    command = mock_cluster_command(
        call_log=call_log, result_log=result_log, write_tools=write_tools, http=True, cluster=fixture
    )
    async with serve_over_http(command) as url:
        yield SharedMock(url, call_log, result_log)


async def _run_all(
    subjects: Sequence[Subject],
    scenarios: Sequence[Scenario],
    workdir: Path,
    jobs: int,
    progress: Callable[[str], None],
    shared: dict[tuple[bool, Any], SharedMock],
    started: float,
    api: str,
    stream: bool = False,
) -> ContractReport:
    total = len(subjects) * len(scenarios)
    done = 0

    async def one(pair: tuple[Subject, Scenario]) -> tuple[Observed, dict[str, Any]]:
        subject, scenario = pair
        return await observe(
            subject,
            scenario,
            workdir / subject.name / scenario.name,
            shared.get(server_key(scenario)),
            api,
            stream,
        )

    from k8s_agent_harness.printout import plural

    def said(pair: tuple[Subject, Scenario], run: tuple[Observed, dict[str, Any]]) -> None:
        nonlocal done
        done += 1
        subject, scenario = pair
        record = run[1]
        outcome = f"error: {record['error']}" if record["error"] else "answered"
        progress(
            f"[{done:>{len(str(total))}}/{total}] {subject.name:<12} {scenario.name:<26} "
            f"{plural(record['requests'], 'request')}, {plural(len(record['server_calls']), 'server call')}, "
            f"{record['seconds']:.1f} s · {outcome[:120]}"
        )

    pairs = [(subject, scenario) for subject in subjects for scenario in scenarios]
    observed_runs = await run_pool(pairs, one, concurrency=jobs, on_done=said)
    results = []
    for number, subject in enumerate(subjects):
        runs = observed_runs[number * len(scenarios) : (number + 1) * len(scenarios)]
        observed = {o.scenario: o for o, _ in runs}
        budgets = {s.name: int(s.overrides["max_steps"]) for s in scenarios if "max_steps" in s.overrides}
        judgements = judge_all(observed, budgets)
        seen = sorted({wire for _, record in runs for wire in record["wires"]})
        results.append(
            SubjectResult(
                subject.name,
                subject.description,
                judgements,
                {o.scenario: r for o, r in runs},
                "+".join(seen) or "none",
            )
        )
    return ContractReport(
        results, [s.name for s in scenarios], round(time.perf_counter() - started, 3), workdir
    )


def as_json(report: ContractReport) -> dict[str, Any]:
    """The report as one JSON object."""
    return {
        "kind": "k8s-agent-contract",
        "api": report.api,
        "stream": report.stream,
        "items": ITEMS,
        "scenarios": report.scenarios,
        "wall_seconds": report.wall_seconds,
        "workdir": str(report.workdir) if report.workdir is not None else None,
        "subjects": [
            {
                "subject": result.subject,
                "description": result.description,
                "wire": result.wire,
                "verdicts": {j.item: j.verdict for j in result.judgements},
                "judgements": [
                    {
                        "item": j.item,
                        "verdict": j.verdict,
                        "summary": j.summary,
                        "evidence": j.evidence,
                        "scenarios": j.scenarios,
                        "violations": [
                            {"scenario": v.scenario, "summary": v.summary, "evidence": v.evidence}
                            for v in j.violations
                        ],
                    }
                    for j in result.judgements
                ],
                "runs": result.runs,
            }
            for result in report.results
        ],
    }
