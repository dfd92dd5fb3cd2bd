"""Shared fixtures: run either agent against a scripted model and the real mock cluster over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from k8s_agent.invariants import calls_answered
from k8s_agent.scenarios import QUESTION, Scenario
from k8s_agent.scripted_run import run_scripted
from k8s_agent_harness.cluster.servers import WARM_MOCK_CLUSTER
from k8s_agent_harness.config import APIS
from k8s_agent_harness.errors import AgentError
from k8s_agent_harness.session import RunResult
from k8s_agent_harness.traces.events import resolved_json
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from k8s_agent_scripted_llm import Step
from k8s_agent_scripted_llm.responses_api import chat_request
from tests import processes

# Property tests: the same examples on every run (derandomized), no per-example deadline and no
# "too slow" check (a busy machine is slow, never wrong), and no example database (it would be a
# folder in the checkout: the tests write only in their temporary folders).
settings.register_profile(
    "k8s-agent", deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("k8s-agent")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half a worker more than the cores. A third of the suite's time is spent waiting
    (on subprocesses, servers, a timeout a test exercises) with a core idle: a third worker on two
    cores ends the suite about a fifth sooner (docs/testing.md)."""
    return max(2, (os.cpu_count() or 1) * 3 // 2)


def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis keeps its caches (written from the collection on) in a temporary folder of this
    process, removed when it ends, not in the checkout."""
    from hypothesis.configuration import set_hypothesis_home_dir

    home = tempfile.mkdtemp(prefix="k8s-agent-hypothesis-")
    set_hypothesis_home_dir(home)
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))


@dataclass
class AgentRun:
    """What one run left behind: its result (or error), the wire, the server's call log, the trace.

    The trace and the call log are the files as written (JSON objects), read at the boundary.
    """

    result: RunResult | None
    error: AgentError | None
    requests: list[dict[str, Any]]
    """Each request the model endpoint received, read as the Chat Completions request it amounts
    to (`responses_api.chat_request`: a Responses body's input items as messages), so that one
    assertion holds on either wire."""
    calls: list[dict[str, Any]]
    trace: list[dict[str, Any]] = field(default_factory=list)
    trace_path: Path | None = None
    sent: list[dict[str, Any]] = field(default_factory=list)
    """Each request body exactly as it came on the wire."""
    wires: list[str] = field(default_factory=list)

    @property
    def answer(self) -> str:
        assert self.result is not None, f"the run failed: {self.error}"
        return self.result.answer

    @property
    def called_tools(self) -> list[str]:
        """Tools the MCP server received, in order."""
        return [call["tool"] for call in self.calls]

    def calls_received(self) -> list[tuple[str, Any]]:
        """(tool, arguments) the MCP server received, in order."""
        return [(call["tool"], call["arguments"]) for call in self.calls]

    def tool_messages(self, request: int) -> list[dict[str, Any]]:
        """The tool messages that request `request` (0-based) added since the previous one."""
        before = len(self.requests[request - 1]["messages"]) if request else 0
        return [m for m in self.requests[request]["messages"][before:] if m.get("role") == "tool"]

    def tool_contents(self) -> list[str]:
        """Every tool message content sent to the model, in order, each once."""
        last = self.requests[-1]["messages"] if self.requests else []
        return [
            m["content"] if isinstance(m["content"], str) else _text(m["content"])
            for m in last
            if m.get("role") == "tool"
        ]

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.trace if e["kind"] == kind]


def _text(content: Any) -> str:
    return "".join(part.get("text", "") for part in content) if isinstance(content, list) else str(content)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file as written ([] when it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def assert_every_call_answered(requests: Iterable[dict[str, Any]]) -> None:
    """C10: in every request, each assistant tool call id is answered by exactly one tool message
    before the next assistant or user message (the same check `compare` reports)."""
    check = calls_answered(list(requests))
    assert check.held, check.detail


RunAgent = Callable[..., AgentRun]


@pytest.fixture(scope="session", autouse=True)
def _warm_processes_stop_with_the_session() -> Iterator[None]:
    """The warm processes are started on first need (`tests.processes.warm_up`: by any test that
    runs an agent or the CLI) and stopped here when the session ends."""
    try:
        yield
    finally:
        processes.warm_down()


@pytest.fixture
def warm() -> None:
    """Opt in to the warm processes: for a test that starts the mock cluster or `k8s-agent` by
    another path than `run_scenario`, `run_agent` or `tests.processes` (which start them)."""
    processes.warm_up()


@pytest.fixture
def warm_mock_cluster(warm: None) -> str:
    """The socket of this worker's warm mock cluster."""
    return os.environ[WARM_MOCK_CLUSTER]


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request: pytest.FixtureRequest) -> Impl:
    """Each test runs once per implementation."""
    return Impl(request.param)


def run_scenario(
    impl: Impl | str,
    script: Iterable[Step] | Scenario,
    workdir: Path,
    question: str = QUESTION,
    *,
    cluster: Path | None = None,
    faults: Path | None = None,
    check_script: bool = True,
    **overrides: Any,
) -> AgentRun:
    """Run `impl` on a script (or scenario) against the mock cluster, in a fresh folder of `workdir`.

    The run itself is `k8s_agent.scripted_run.run_scripted`, the one `k8s-agent compare` and
    `trace replay` use: the contract suite and the comparison run the same thing.
    """
    processes.warm_up()
    responder = None
    write_tools = False
    if isinstance(script, Scenario):
        write_tools = script.write_tools
        overrides = {**script.overrides, **overrides}
        question = script.question
        responder = script.responder
        script = script.script() if script.script else []
    settings: dict[str, Any] = {
        **processes.OUT_OF_REACH,
        "api_key": "sk-test-not-a-real-key-000",
        "trace_dir": workdir / "traces",
        **overrides,
    }
    done = asyncio.run(
        run_scripted(
            Impl(impl),
            workdir,
            script=script,
            responder=responder,
            question=question,
            cluster=cluster,
            faults=faults,
            settings=settings,
            write_tools=write_tools,
        )
    )
    if check_script and done.script_problems:
        raise AssertionError(done.script_problems)
    # The trace must be one the project's own reader accepts (run_scripted read it), and the
    # tests look at it as written: the JSON objects of the file, the large texts it stores once
    # put back where they are named (read_jsonl(run.trace_path) is the file itself).
    assert done.trace_path is None or done.trace is not None
    trace = resolved_json(read_jsonl(done.trace_path)) if done.trace_path else []
    run = AgentRun(
        done.result,
        done.error,
        [chat_request(body) for body in done.requests],
        [dict(c) for c in done.calls],
        trace,
        done.trace_path,
        done.requests,
        done.wires,
    )
    assert_every_call_answered(run.requests)
    wire = settings.get("api", "chat")
    assert run.wires == [wire] * len(run.wires), f"asked for {wire}, the requests came on {run.wires}"
    return run


@pytest.fixture(params=APIS)
def wire(request: pytest.FixtureRequest) -> str:
    """Each contract test runs once per wire: Chat Completions and the Responses API."""
    return str(request.param)


@pytest.fixture
def run_agent(impl: Impl, wire: str, tmp_path: Path) -> RunAgent:
    """Run the parametrized implementation on the parametrized wire on a script; the script must be
    consumed exactly."""
    counter = iter(range(1000))

    def run(script: Iterable[Step] | Scenario, question: str = QUESTION, **options: Any) -> AgentRun:
        options = {"api": wire, **options}
        return run_scenario(impl, script, tmp_path / f"run-{next(counter)}", question, **options)

    return run


REQUIRE_EVERYTHING = "K8S_AGENT_REQUIRE_EVERYTHING"
"""Set by .ci/run: a test skipped for anything CI installs (Chromium, a real MCP server, kubectl,
Phoenix, matplotlib) fails the run; only the tests that need the package registries may skip."""
MAY_SKIP_IN_CI = ("K8S_AGENT_NETWORK_TESTS",)


def _skip_reasons(terminalreporter: Any) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    return reasons


def _untested(terminalreporter: Any) -> list[str]:
    """The skip reasons CI may not have (with REQUIRE_EVERYTHING set)."""
    if os.environ.get(REQUIRE_EVERYTHING) != "1":
        return []
    return sorted(
        reason
        for reason in _skip_reasons(terminalreporter)
        if not any(word in reason for word in MAY_SKIP_IN_CI)
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say what the run skipped and why, grouped by reason (a missing Chromium, a Kubernetes MCP
    server not installed, the package registries not asked for), so a green run that skipped
    is never taken for a green run that tested everything; where everything is required (CI), a
    skip for anything but the registries is a failure, said here."""
    reasons = _skip_reasons(terminalreporter)
    if not reasons:
        return
    terminalreporter.section("not tested here", sep="-")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.line(f"{count} test{'s' if count != 1 else ''} skipped: {reason}")
    for reason in _untested(terminalreporter):
        terminalreporter.line(
            f"FAILED: {REQUIRE_EVERYTHING} is set and this was not tested: {reason}", red=True
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With REQUIRE_EVERYTHING, a run that skipped what CI must test fails (exit 1)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and _untested(reporter) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
