"""The agents the contract is run against: small adapters that say how to launch each and where its answer is.

- `handwritten`, `sdk`: ours, run in this process (`ask` on a Config pointed at the servers);
- `plain-sdk`: the OpenAI Agents SDK as its documentation shows it: Agent + MCPServerStdio +
  Runner, defaults everywhere (our system prompt, `max_turns` the scenario's step budget);
- `holmesgpt`: HolmesGPT, pinned, installed on demand into a cached venv (holmes.py);
- `--agent-cmd TEMPLATE`: any CLI agent, launched with the placeholders filled in.

Each adapter gets a `Setup` (the model endpoint, the MCP server's command, the question, the
scenario's budgets) and returns an `Outcome` (the answer, or how the run failed). The judge never
sees an adapter's internals: only the wire and the server's call log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shlex
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from k8s_agent_harness.config import did_you_mean
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import Impl

DEFAULT_MAX_STEPS = 10
COMMAND_TIMEOUT = 300.0
DEFAULT_MAX_REPEATS = 2
PLACEHOLDERS = (
    "base_url",
    "api_key",
    "model",
    "mcp_command",
    "mcp_url",
    "question",
    "max_steps",
    "max_repeats",
    "report_format",
    "workdir",
    "answer_file",
)


@dataclass(frozen=True)
class MockCluster:
    """The mock cluster of one run, for a subject that runs it in its own process (the reference
    agent in the mutation test): the same server `mcp_command` starts, with the same logs."""

    call_log: Path
    result_log: Path
    write_tools: bool = False
    cluster: Path | None = None
    """The fixture it serves (None: the default one)."""

    async def schemas(self) -> dict[str, Any]:
        """The argument schemas of the server's tools, by name (what the judge checks calls against):
        the same for every run with the same tools, so listed once."""
        known = _SCHEMAS.get(self.write_tools)
        if known is None:
            known = {tool.name: tool.input_schema for tool in await self.server().list_tools()}
            _SCHEMAS[self.write_tools] = known
        return dict(known)

    def server(self) -> Any:
        """The MCP server object, to talk to in memory (the fixture read once, each run its own copy)."""
        import copy

        from k8s_agent_mock_cluster.cluster import Cluster
        from k8s_agent_mock_cluster.server import build_server

        fixture = copy.deepcopy(_fixture(self.cluster))
        return build_server(
            Cluster(fixture), self.call_log, write_tools=self.write_tools, result_log=self.result_log
        )


_SCHEMAS: dict[bool, dict[str, Any]] = {}


@functools.lru_cache(maxsize=4)
def _fixture(path: Path | None) -> dict[str, Any]:
    """A fixture, read and checked once per process."""
    from k8s_agent_mock_cluster.fixture import load_fixture

    return load_fixture(path)


@dataclass(frozen=True)
class Setup:
    """What a subject is launched against, for one scenario."""

    base_url: str
    api_key: str
    model: str
    mcp_command: tuple[str, ...]
    question: str
    workdir: Path
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """The scenario's settings (max_steps, max_repeats, report_format): each adapter passes what its agent has."""
    mock: MockCluster | None = None
    mcp_url: str | None = None
    """The mock cluster's Streamable HTTP URL when the contract serves it over HTTP (one server for
    many runs); `mcp_command` is then empty."""
    api: str = "chat"
    """The wire the subject is asked to speak (`contract --api`): `chat` or `responses`."""
    stream: bool = False
    """Whether the subject is asked to stream the model's answers (`contract --stream yes`: our agents)."""

    @property
    def max_steps(self) -> int:
        """The scenario's step budget, or our default."""
        return int(self.overrides.get("max_steps", DEFAULT_MAX_STEPS))

    @property
    def max_repeats(self) -> int:
        """The scenario's repeat limit, or our default."""
        return int(self.overrides.get("max_repeats", DEFAULT_MAX_REPEATS))

    @property
    def report_format(self) -> str:
        """The report the scenario asks for: `prose`, or `json_schema` / `json_text`."""
        return str(self.overrides.get("report_format", "prose"))


@dataclass(frozen=True)
class Outcome:
    """How a subject's run ended: its answer, or why there is none."""

    answer: str | None = None
    error: str | None = None
    seconds: float = 0.0


class Subject(Protocol):
    """An agent the contract can be run against."""

    @property
    def name(self) -> str:
        """How the report names it."""
        ...

    @property
    def description(self) -> str:
        """One line: what it is and how it is launched."""
        ...

    @property
    def structured(self) -> bool | None:
        """Whether it asks for a structured report where a scenario says (C11, C12 are judged only
        then); None when it does not say."""
        ...

    async def run(self, setup: Setup) -> Outcome:
        """Run the agent once against the setup's servers."""
        ...


@dataclass(frozen=True)
class OurAgent:
    """One of this project's agents, in this process."""

    impl: Impl

    @property
    def name(self) -> str:
        return self.impl.value

    @property
    def description(self) -> str:
        return f"this project's {self.impl.value} agent (report format prose, or the scenario's)"

    @property
    def structured(self) -> bool:
        return True

    async def run(self, setup: Setup) -> Outcome:
        from k8s_agent.implementations import ask_function
        from k8s_agent_harness.config import Config
        from k8s_agent_harness.errors import AgentError

        started = time.perf_counter()
        settings = {
            k: v for k, v in setup.overrides.items() if k in ("max_steps", "max_repeats", "report_format")
        }
        config = Config(
            impl=self.impl,
            api=setup.api,
            stream=setup.stream,
            model=setup.model,
            base_url=setup.base_url,
            api_key=setup.api_key,
            mcp_command=setup.mcp_command,
            mcp_url=setup.mcp_url,
            trace_dir=setup.workdir,
            max_retries=0,  # the time budgets are a user's run's: a busy machine must not fail an item
            # The C1-C10 scripts answer in prose: a JSON report is asked for only where a scenario says.
            **{"report_format": "prose", **settings},
        )
        try:
            result = await ask_function(self.impl)(config, setup.question)
        except AgentError as error:
            return Outcome(error=f"{type(error).__name__}: {error}", seconds=time.perf_counter() - started)
        return Outcome(answer=result.answer, seconds=time.perf_counter() - started)


@dataclass(frozen=True)
class PlainSdk:
    """The OpenAI Agents SDK with its native MCP integration and its defaults."""

    name: str = "plain-sdk"
    description: str = (
        "openai-agents as documented: Agent + MCPServerStdio (or MCPServerStreamableHttp) + Runner, "
        "defaults everywhere"
    )
    structured: bool = False

    async def run(self, setup: Setup) -> Outcome:
        from k8s_agent.bench.plain_sdk import run_documented

        started = time.perf_counter()
        try:
            answer = await run_documented(
                setup.base_url,
                setup.api_key,
                setup.model,
                setup.mcp_command,
                setup.question,
                setup.max_steps,
                url=setup.mcp_url,
                api=setup.api,
            )
        except Exception as error:  # boundary: however the SDK fails, it is this subject's outcome
            return Outcome(error=f"{type(error).__name__}: {error}", seconds=time.perf_counter() - started)
        return Outcome(answer=answer, seconds=time.perf_counter() - started)


@dataclass(frozen=True)
class CommandAgent:
    """Any CLI agent: a command template with placeholders, run without a shell.

    Placeholders: {base_url} {api_key} {model} {mcp_command} (one shell-quoted string; over HTTP
    {mcp_url} instead, the server's Streamable HTTP URL) {question}
    {max_steps} {max_repeats} {report_format} (prose, json_schema or json_text) {workdir} (a scratch
    folder of the run, for config files) {answer_file} (when the template names it, the answer is
    read from that file; else from stdout).
    """

    template: str
    name: str = "agent-cmd"
    environ: Mapping[str, str] | None = None
    timeout: float = COMMAND_TIMEOUT
    structured: bool = False
    """Whether the agent asks for a structured report when `{report_format}` says json_*."""

    @property
    def description(self) -> str:
        return f"command: {self.template}"

    def argv(self, setup: Setup) -> list[str]:
        """The command line for one run (each placeholder one argument, never split by the shell)."""
        values = placeholder_values(setup)
        wanted, other = ("mcp_url", "mcp_command") if setup.mcp_url else ("mcp_command", "mcp_url")
        if "{" + other + "}" in self.template and "{" + wanted + "}" not in self.template:
            over = "over Streamable HTTP" if setup.mcp_url else "as a command (stdio)"
            raise ConfigError(
                f"--agent-cmd names {{{other}}}, but this contract serves the mock cluster {over}: "
                f"name {{{wanted}}}"
            )
        try:
            words = shlex.split(self.template)
        except ValueError as error:
            raise ConfigError(f"--agent-cmd is not a valid command line: {error}") from None
        try:
            return [word.format(**values) for word in words]
        except (KeyError, IndexError) as error:
            raise ConfigError(
                f"--agent-cmd names an unknown placeholder {error}; known: "
                + ", ".join("{" + name + "}" for name in PLACEHOLDERS)
            ) from None

    async def run(self, setup: Setup) -> Outcome:
        argv = self.argv(setup)
        return await run_command(argv, setup, self.environ, self.timeout, "{answer_file}" in self.template)


def placeholder_values(setup: Setup) -> dict[str, str]:
    """The values of a command template's placeholders for one run."""
    return {
        "base_url": setup.base_url,
        "api_key": setup.api_key,
        "model": setup.model,
        "mcp_command": shlex.join(setup.mcp_command),
        "mcp_url": setup.mcp_url or "",
        "question": setup.question,
        "max_steps": str(setup.max_steps),
        "max_repeats": str(setup.max_repeats),
        "report_format": setup.report_format,
        "workdir": str(setup.workdir),
        "answer_file": str(setup.workdir / "answer.txt"),
    }


async def run_command(
    argv: list[str], setup: Setup, environ: Mapping[str, str] | None, limit: float, answer_in_file: bool
) -> Outcome:
    """Run one command to its end (or its timeout: the whole process group is killed)."""
    started = time.perf_counter()
    env = dict(os.environ if environ is None else environ)
    env.pop("OPENAI_API_KEY", None)  # never a real key: the subject talks to the scripted model only
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=setup.workdir,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        return Outcome(error=f"cannot start {argv[0]}: {error.strerror or error}", seconds=0.0)
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), limit)
    except TimeoutError:
        _kill_group(process.pid)
        await process.wait()
        return Outcome(error=f"timed out after {limit:.0f} s", seconds=time.perf_counter() - started)
    finally:
        if process.returncode is None:  # cancelled (Ctrl-C): its own session would outlive us otherwise
            _kill_group(process.pid)
            # Reaped here, while the event loop runs: a process left to the garbage collector after
            # the loop has closed prints a traceback on the user's terminal.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(process.wait()), 5)
    seconds = time.perf_counter() - started
    (setup.workdir / "stdout.txt").write_bytes(stdout)
    (setup.workdir / "stderr.txt").write_bytes(stderr)
    answer = stdout.decode("utf-8", "replace")
    if answer_in_file:
        path = setup.workdir / "answer.txt"
        answer = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    if process.returncode != 0:
        tail = " | ".join(stderr.decode("utf-8", "replace").strip().splitlines()[-3:])
        return Outcome(answer=answer or None, error=f"exit {process.returncode}: {tail}", seconds=seconds)
    return Outcome(answer=answer, seconds=seconds)


def _kill_group(pid: int) -> None:
    """Kill a subject's whole process group (it runs in its own session, with its MCP servers)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


BUILTIN = (
    "handwritten",
    "sdk",
    "plain-sdk",
    "holmesgpt",
    "reference",
    "reference-prose",
    "reference-stateful",
)
APIS = ("chat", "responses")
"""The wires the contract runs on (`--api`): Chat Completions, or the Responses API."""
ON_RESPONSES = ("handwritten", "sdk", "plain-sdk", "reference", "reference-prose", "reference-stateful")
"""The shipped subjects that can speak the Responses API (`--agent-cmd` too: its template says how)."""
RESPONSES_ONLY = ("reference-stateful",)
"""The shipped subjects that speak the Responses API only (`--api chat` refuses them)."""
DEFAULT_SUBJECTS = ("handwritten", "sdk")
STREAMING = ("handwritten", "sdk")
"""The subjects that can be asked to stream (`--stream yes`)."""
"""Our two agents: the contract with no --subject is a gate (exit 0 when both hold every item)."""
MUTANT_PREFIX = "mutant:"
VARIANT_PREFIX = "variant:"


def builtin(name: str, cache_dir: Path | None = None) -> Subject:
    """A shipped subject by name (`mutant:NAME` for one of the reference agent's mutants,
    `variant:NAME` for one of its legitimate variations)."""
    if name in ("handwritten", "sdk"):
        return OurAgent(Impl(name))
    if name == "plain-sdk":
        return PlainSdk()
    if name == "holmesgpt":
        from k8s_agent.contract.holmes import HolmesGPT

        return HolmesGPT(cache_dir=cache_dir)
    if name in ("reference", "reference-prose", "reference-stateful") or name.startswith(
        (MUTANT_PREFIX, VARIANT_PREFIX)
    ):
        from k8s_agent.contract.reference import MUTANTS, VARIANTS, ReferenceAgent

        for prefix, known in ((MUTANT_PREFIX, MUTANTS), (VARIANT_PREFIX, VARIANTS)):
            if name.startswith(prefix):
                wanted = name.removeprefix(prefix)
                names = [m.name for m in known]
                if wanted not in names:
                    kind = prefix.rstrip(":")
                    raise ConfigError(
                        f"unknown {kind} {wanted!r}: choose from {', '.join(names)}{did_you_mean(wanted, names)}"
                    )
                return ReferenceAgent(frozenset({wanted}))
        return ReferenceAgent(prose_only=name == "reference-prose", stateful=name == "reference-stateful")
    raise ConfigError(
        f"unknown subject {name!r}: choose from {', '.join(BUILTIN)}, mutant:NAME, variant:NAME, or give --agent-cmd"
        + did_you_mean(name, BUILTIN)
    )
