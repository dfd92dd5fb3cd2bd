"""Run configuration: one frozen dataclass, read once at the entry point.

Precedence, highest first: command-line flags, the process environment, a `.env` file,
the defaults below. Nothing here reads the environment at import time.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.errors import ConfigError

IMPLEMENTATIONS = ("handwritten", "sdk")
OFFLINE_MODEL = "offline"
CLUSTER_SERVERS = ("kubernetes-mcp-server", "mcp-server-kubernetes", "mock")
"""Presets of `--cluster-server`; `harness.servers` turns one into a command and its environment."""
DEFAULT_ENDPOINT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True, kw_only=True)
class Config:
    """Everything a run needs; both agents receive the same object."""

    impl: str = "handwritten"
    """Which loop drives the run: `handwritten` or `sdk`."""
    model: str = OFFLINE_MODEL
    """Model name sent to the endpoint; `offline` selects the embedded deterministic playbook."""
    base_url: str | None = None
    """OpenAI-compatible endpoint (`.../v1`); None means api.openai.com (or the offline model)."""
    api_key: str | None = field(default=None, repr=False)
    """Key for the endpoint; never written to traces, reports or logs."""
    mcp_command: tuple[str, ...] = ()
    """Stdio MCP server command; empty means the embedded mock cluster."""
    mcp_env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Extra environment for the MCP server (the stdio client passes only a few variables)."""
    cluster_server: str | None = None
    """A preset MCP server for a real cluster (one of CLUSTER_SERVERS); None means the mock cluster."""
    cluster: Path | None = None
    """Mock cluster fixture (JSON); None means the shipped default."""
    max_steps: int = 10
    """Model turns that may call tools before a tool-less summary is forced."""
    max_repeats: int = 2
    """Repeats of one identical tool call (one fingerprint) before a summary is forced."""
    max_seconds: float = 300.0
    """Wall-clock budget of the investigation; when spent, a summary is forced."""
    tool_timeout: float = 30.0
    """Seconds one MCP tool call may take."""
    request_timeout: float = 120.0
    """Seconds one model request may take before it is abandoned (and retried)."""
    max_retries: int = 2
    """Retries of a failed model request (408/409/429/5xx, connection errors), by the openai client."""
    allow_write: tuple[str, ...] = ()
    """Tools allowed even though their MCP annotations do not say read-only."""
    trace_dir: Path = Path("traces")
    """Folder for the JSONL trace of each run."""

    @property
    def offline(self) -> bool:
        """Whether the embedded offline model answers instead of a real endpoint."""
        return self.model == OFFLINE_MODEL

    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in a trace, report or log."""
        return tuple(value for value in (self.api_key,) if value)


# field name -> environment variables that set it, first found wins
_ENVIRONMENT: dict[str, tuple[str, ...]] = {
    "impl": ("K8S_AGENT_IMPL",),
    "model": ("K8S_AGENT_MODEL", "OPENAI_MODEL"),
    "base_url": ("OPENAI_BASE_URL",),
    "api_key": ("OPENAI_API_KEY",),
    "mcp_command": ("K8S_AGENT_MCP_COMMAND",),
    "cluster_server": ("K8S_AGENT_CLUSTER_SERVER",),
    "cluster": ("K8S_AGENT_CLUSTER",),
    "max_steps": ("K8S_AGENT_MAX_STEPS",),
    "max_repeats": ("K8S_AGENT_MAX_REPEATS",),
    "max_seconds": ("K8S_AGENT_MAX_SECONDS",),
    "tool_timeout": ("K8S_AGENT_TOOL_TIMEOUT",),
    "request_timeout": ("K8S_AGENT_REQUEST_TIMEOUT",),
    "max_retries": ("K8S_AGENT_MAX_RETRIES",),
    "trace_dir": ("K8S_AGENT_TRACE_DIR",),
}

# Passed on to the MCP server when set: the stdio client would drop them.
PASSED_TO_MCP_SERVER = ("KUBECONFIG", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse a `.env` file: `KEY=VALUE` lines, optional `export`, quotes and `#` comments."""
    values: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return values
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from error
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            raise ConfigError(f"{path}:{number}: expected KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def load_config(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    dotenv: Path | None = Path(".env"),
) -> Config:
    """Build the run's Config; `flags` holds command-line values, None where not given."""
    environ = os.environ if environ is None else environ
    file_values = read_dotenv(dotenv) if dotenv is not None else {}
    raw: dict[str, Any] = {}
    for name, variables in _ENVIRONMENT.items():
        for source in (environ, file_values):
            found = next((source[v] for v in variables if source.get(v)), None)
            if found is not None:
                raw[name] = found
                break
    _flag_picks_the_cluster(raw, flags)
    raw.update({name: value for name, value in flags.items() if value is not None})

    # An endpoint or a key means the user wants a real model unless they name one.
    if "model" not in raw and ("base_url" in raw or "api_key" in raw):
        raw["model"] = DEFAULT_ENDPOINT_MODEL

    mcp_env = {k: environ[k] for k in PASSED_TO_MCP_SERVER if environ.get(k)}
    mcp_env.update(raw.pop("mcp_env", None) or {})
    raw["mcp_env"] = mcp_env
    return _validated(raw)


def _flag_picks_the_cluster(raw: dict[str, Any], flags: Mapping[str, Any]) -> None:
    """A flag naming the cluster (--cluster-server, or --mcp-command / --cluster) overrides the
    environment's other way of naming it, instead of clashing with it."""
    flagged = {name for name in ("cluster_server", "mcp_command", "cluster") if flags.get(name) is not None}
    if "cluster_server" in flagged:
        raw.pop("mcp_command", None)
        if flags["cluster_server"] != "mock":
            raw.pop("cluster", None)
    elif flagged:
        raw.pop("cluster_server", None)


def _validated(raw: dict[str, Any]) -> Config:
    known = {f.name for f in fields(Config)}
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in known:
            raise ConfigError(f"unknown setting {name!r}")
        values[name] = _coerce(name, value)
    config = Config(**values)
    if config.impl not in IMPLEMENTATIONS:
        raise ConfigError(
            f"unknown implementation {config.impl!r}: choose one of {', '.join(IMPLEMENTATIONS)}"
        )
    for name in ("max_steps", "max_repeats"):
        if getattr(config, name) < 1:
            raise ConfigError(f"{name.replace('_', '-')} must be at least 1")
    if config.max_retries < 0:
        raise ConfigError("max-retries must not be negative")
    for name in ("max_seconds", "tool_timeout", "request_timeout"):
        if getattr(config, name) <= 0:
            raise ConfigError(f"{name.replace('_', '-')} must be positive")
    if config.cluster is not None and config.mcp_command:
        raise ConfigError(
            "--cluster selects a mock cluster fixture; it cannot be combined with --mcp-command"
        )
    if config.cluster_server is not None:
        _check_cluster_server(config)
    if config.cluster is not None and not config.cluster.is_file():
        raise ConfigError(f"cluster fixture not found: {config.cluster}")
    if not config.offline and config.base_url is None and not config.api_key:
        raise ConfigError(
            f"model {config.model!r} needs an endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
            "non-OpenAI server), or use --model offline"
        )
    return config


def _check_cluster_server(config: Config) -> None:
    if config.cluster_server not in CLUSTER_SERVERS:
        raise ConfigError(
            f"unknown cluster server {config.cluster_server!r}: choose one of {', '.join(CLUSTER_SERVERS)}"
            " (or give any stdio MCP server with --mcp-command)"
        )
    if config.mcp_command:
        raise ConfigError("--cluster-server and --mcp-command both name the MCP server: give one of them")
    if config.cluster is not None and config.cluster_server != "mock":
        raise ConfigError(
            f"--cluster selects a mock cluster fixture; it cannot be combined with --cluster-server "
            f"{config.cluster_server}"
        )
    if config.offline and config.cluster_server != "mock":
        raise ConfigError(
            f"the offline model (a deterministic playbook, not an LLM) knows only the mock cluster's tools: "
            f"set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) to use --cluster-server "
            f"{config.cluster_server}"
        )


def _coerce(name: str, value: Any) -> Any:
    try:
        if name in ("max_steps", "max_repeats", "max_retries"):
            return int(value)
        if name in ("max_seconds", "tool_timeout", "request_timeout"):
            return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name.replace('_', '-')} must be a number, got {value!r}") from None
    if name == "mcp_command":
        parts = tuple(shlex.split(value)) if isinstance(value, str) else tuple(value)
        if not parts:
            raise ConfigError("mcp-command is empty")
        return parts
    if name in ("cluster", "trace_dir"):
        return Path(value)
    if name == "allow_write":
        return tuple(value)
    if name == "base_url":
        return str(value).rstrip("/") or None
    if name == "cluster_server":
        return str(value).strip().lower() or None
    return value
