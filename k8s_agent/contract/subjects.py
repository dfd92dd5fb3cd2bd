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

import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from k8s_agent.contract.launch import (
    COMMAND_TIMEOUT,
    Outcome,
    Setup,
    run_command,
)
from k8s_agent_harness.config import did_you_mean
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import Impl

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
        from k8s_agent.contract.mutants import MUTANTS, VARIANTS
        from k8s_agent.contract.reference import ReferenceAgent

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
