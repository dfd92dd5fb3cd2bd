"""The `holmesgpt` subject: HolmesGPT, pinned, in its own cached venv, run with `holmes ask` against our servers.

HolmesGPT brings its own litellm, mcp 1.x and openai 2.x, so it cannot share this project's
environment: `prepare()` builds `<cache>/holmesgpt/py3.11/holmesgpt-0.45.0/` once (about 3 minutes
and 800 MB from the registry) and marks it ready; later runs reuse it.

Per run it gets a config file in the run's folder: the scripted model as an OpenAI-compatible
endpoint (`model: openai/scripted`, `api_base`, `api_key`), the scenario's step budget as
`max_steps`, the mock cluster as its one MCP server (stdio), and every built-in toolset switched
off, so the only tools it offers are the mock cluster's. It runs with a scratch HOME, no real key,
`LITELLM_LOCAL_MODEL_COST_MAP=True` (litellm would fetch a price list otherwise) and stdin closed;
the answer is the `result` of its `--json-output-file`.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from k8s_agent.contract.launch import Outcome, Setup, run_command
from k8s_agent_harness.cluster.discovery import cache_root
from k8s_agent_harness.errors import ConfigError

VERSION = "0.45.0"
MARKER = "k8s-agent-holmesgpt.json"
RUN_TIMEOUT = 300.0
INSTALL_TIMEOUT = 1800.0
HEARTBEAT = 30.0
DISABLED_TOOLSETS = (
    "kubernetes/core",
    "kubernetes/logs",
    "kubernetes/kube-prometheus-stack",
    "kubernetes/live-metrics",
    "core_investigation",
    "internet",
    "connectivity_check",
    "bash",
    "skills",
)
SERVER_NAME = "mock_cluster"
# `holmes` is a console script whose shebang names the venv's path; running its entry point through
# the venv's interpreter works wherever the venv is.
ENTRY = "import sys; from holmes.main import run; sys.argv[0] = 'holmes'; sys.exit(run())"
# What the child keeps of this environment: nothing that names a key, a proxy or this interpreter.
_KEPT = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR")


@dataclass(frozen=True)
class HolmesGPT:
    """HolmesGPT `holmes ask` in a cached venv."""

    cache_dir: Path | None = None
    version: str = VERSION
    timeout: float = RUN_TIMEOUT
    name: str = "holmesgpt"
    structured: bool = False

    @property
    def description(self) -> str:
        return (
            f"HolmesGPT {self.version}: `holmes ask --no-interactive`, the mock cluster as its only MCP "
            "server (stdio), built-in toolsets off"
        )

    @property
    def venv(self) -> Path:
        """Where its venv is (or will be) built."""
        root = self.cache_dir or cache_root(os.environ)
        tag = "py" + ".".join(platform.python_version_tuple()[:2])
        return root / "holmesgpt" / tag / f"holmesgpt-{self.version}"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def ready(self) -> bool:
        """Whether the venv is built and marked ready for this version."""
        try:
            marker = json.loads((self.venv / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return marker.get("holmesgpt") == self.version and self.python.exists()

    def prepare(self, say: Callable[[str], None]) -> None:
        """Build the venv unless it is ready; ConfigError (with pip's last lines) when that fails."""
        if self.ready():
            say(f"holmesgpt {self.version}: cached venv ({self.venv})")
            return
        started = time.monotonic()
        say(
            f"holmesgpt {self.version}: building its venv in {self.venv} "
            "(once; about 3 minutes and 800 MB from the package registry)"
        )
        shutil.rmtree(self.venv, ignore_errors=True)
        self.venv.parent.mkdir(parents=True, exist_ok=True)
        environ = {
            k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
        }
        steps: list[tuple[str, list[str]]] = [
            ("create venv", [sys.executable, "-m", "venv", str(self.venv)]),
            (
                f"pip install holmesgpt=={self.version}",
                [
                    str(self.python),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    f"holmesgpt=={self.version}",
                ],
            ),
            ("smoke test", [str(self.python), "-c", "import holmes.main"]),
        ]
        for label, command in steps:
            _step(label, command, environ, lambda line: say(f"holmesgpt {self.version}: {line}"))
        seconds = time.monotonic() - started
        (self.venv / MARKER).write_text(
            json.dumps({"holmesgpt": self.version, "build_seconds": round(seconds, 1)}), encoding="utf-8"
        )
        say(f"holmesgpt {self.version}: ready in {seconds:.0f} s")

    def config(self, setup: Setup) -> dict[str, Any]:
        """The config file of one run."""
        command, *args = setup.mcp_command
        return {
            "model": f"openai/{setup.model}",
            "api_base": setup.base_url,
            "api_key": setup.api_key,
            "max_steps": setup.max_steps,
            "toolsets": {name: {"enabled": False} for name in DISABLED_TOOLSETS},
            "mcp_servers": {
                SERVER_NAME: {
                    "description": "the Kubernetes cluster (read-only tools)",
                    "config": {"mode": "stdio", "command": command, "args": list(args)},
                }
            },
        }

    def environ(self, home: Path) -> dict[str, str]:
        """The child's environment: a scratch HOME, no key, no network lookups by litellm."""
        environ = {k: os.environ[k] for k in _KEPT if k in os.environ}
        environ.update(
            HOME=str(home),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            NO_COLOR="1",
            TERM="dumb",
            COLUMNS="200",
            PYTHONDONTWRITEBYTECODE="1",
        )
        return environ

    def argv(self, setup: Setup) -> list[str]:
        """`holmes ask QUESTION --config FILE --no-interactive --json-output-file FILE`."""
        return [
            str(self.python), "-c", ENTRY, "ask", setup.question,
            "--config", str(setup.workdir / "holmes-config.yaml"),
            "--no-interactive",
            "--json-output-file", str(setup.workdir / "holmes-output.json"),
        ]  # fmt: skip

    async def run(self, setup: Setup) -> Outcome:
        if setup.mcp_url:
            return Outcome(
                error="holmesgpt is run here with its MCP server over stdio only (--mcp-transport stdio)"
            )
        if not self.ready():
            return Outcome(error=f"HolmesGPT's venv is not built ({self.venv}): prepare() first")
        home = setup.workdir / "home"
        home.mkdir(parents=True, exist_ok=True)
        (setup.workdir / "holmes-config.yaml").write_text(
            yaml.safe_dump(self.config(setup), sort_keys=False), encoding="utf-8"
        )
        outcome = await run_command(self.argv(setup), setup, self.environ(home), self.timeout, False)
        answer = _answer(setup.workdir / "holmes-output.json")
        return Outcome(answer=answer, error=outcome.error, seconds=outcome.seconds)


def _step(label: str, command: list[str], environ: dict[str, str], say: Callable[[str], None]) -> None:
    """Run one build step, saying every HEARTBEAT seconds that it is still running; ConfigError if it fails."""
    say(f"{label} ...")
    started = time.monotonic()
    try:
        with tempfile.TemporaryFile() as output:
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=environ)
            while True:
                try:
                    code = process.wait(timeout=HEARTBEAT)
                    break
                except subprocess.TimeoutExpired:
                    elapsed = time.monotonic() - started
                    if elapsed > INSTALL_TIMEOUT:
                        process.kill()
                        process.wait()
                        raise ConfigError(
                            f"cannot build HolmesGPT's venv ({label}): no end after {elapsed:.0f} s"
                        ) from None
                    say(f"{label}: still running ({elapsed:.0f} s)")
            output.seek(0)
            text = output.read().decode("utf-8", "replace")
    except OSError as error:
        raise ConfigError(f"cannot build HolmesGPT's venv ({label}): {error.strerror or error}") from None
    if code != 0:
        tail = " | ".join(text.strip().splitlines()[-3:])
        raise ConfigError(f"cannot build HolmesGPT's venv ({label}, exit {code}): {tail}")


def _answer(path: Path) -> str | None:
    """The `result` of HolmesGPT's JSON output, when it wrote one."""
    try:
        output = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    result = output.get("result") if isinstance(output, dict) else None
    return result if isinstance(result, str) else None
