"""How a subject is launched and how its run ends, for every adapter: the mock cluster it is pointed
at, its `Setup` (the model endpoint, the MCP server, the question, the scenario's budgets), its
`Outcome` (the answer, or how the run failed), and a command run to its end in a process group of
its own."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_MAX_STEPS = 10


COMMAND_TIMEOUT = 300.0


DEFAULT_MAX_REPEATS = 2


_SCHEMAS: dict[bool, dict[str, Any]] = {}


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
