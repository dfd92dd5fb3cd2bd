"""Reading the configuration: command-line flags, the process environment and a `.env` file, each value
checked and coerced to its field's type, into one `Config`.

Precedence, highest first: command-line flags, the process environment, a `.env` file, the
defaults. Nothing here reads the environment at import time.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from k8s_agent_harness.config import (
    APIS,
    CLUSTER_SERVERS,
    DEFAULT_ENDPOINT_MODEL,
    EMBEDDED_MODEL_SERVERS,
    FIELD_TYPES,
    FIXTURE_SERVERS,
    MCP_TRANSPORTS,
    MIN_CONTEXT_BUDGET,
    OFFLINE_MODEL,
    PASSED_TO_MCP_SERVER,
    SETTINGS,
    Config,
    default_trace_dir,
    did_you_mean,
    flag_of,
    implementation_of,
    report_format_of,
)
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import Impl, ReportFormat


def read_dotenv(path: Path, *, required: bool = False) -> dict[str, str]:
    """Read a `.env` file as docker compose and python-dotenv do: `KEY=VALUE` lines, an optional
    `export`, `#` comments, single and double quotes (a quoted value may span lines; `\n`, `\t`,
    `\"` and `\\` are escapes in double quotes), `KEY=value # comment`.

    A `.env` that happens to be in the folder is read for the settings it has: a line this reader
    cannot read (an unterminated quote, a line without `=`) is skipped, as is a file that cannot be
    read. A file the user named (`required`, `--env-file`) must exist and be readable to the end:
    otherwise ConfigError, naming the line.
    """
    try:
        # A stray Latin-1 byte in a file found by chance costs that value, not the file.
        text = path.read_bytes().decode("utf-8", errors="strict" if required else "replace")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"env file not found: {path}") from None
        return {}
    except (OSError, UnicodeDecodeError) as error:
        if required:
            raise ConfigError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from error
        return {}  # a folder or an unreadable file named .env: not ours to judge
    values, problems = parse_dotenv(text)
    if problems and required:
        number, problem = problems[0]
        raise ConfigError(f"{path}:{number}: {problem}")
    return values


_DOTENV_ASSIGNMENT = re.compile(r"[ \t]*(?:export[ \t]+)?(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*")
_DOTENV_NAME_ALONE = re.compile(r"(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]*")
_DOTENV_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "$": "$"}
_DOTENV_AFTER_VALUE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|$)")


def parse_dotenv(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """The values of a `.env` text, and the lines that could not be read (number, why)."""
    text = text.replace("\r\n", "\n")
    values: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    at, number = 0, 1
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end].strip()
        next_line = (end + 1, number + 1)
        assignment = _DOTENV_ASSIGNMENT.match(text, at, end)
        if not line or line.startswith("#"):
            pass
        elif assignment is None and not _DOTENV_NAME_ALONE.fullmatch(line):
            problems.append((number, "expected KEY=VALUE"))
        elif assignment is None:
            pass  # `KEY` alone: compose takes it from the environment, which we read anyway
        elif text[assignment.end() : assignment.end() + 1] in ("'", '"'):
            quote = text[assignment.end()]
            closing = _closing_quote(text, assignment.end() + 1, quote)
            after = _DOTENV_AFTER_VALUE.match(text, closing + 1) if closing >= 0 else None
            if closing < 0:
                problems.append(
                    (number, f"the {quote} quote that opens the value of {assignment['key']} is never closed")
                )
            elif after is None:
                problems.append((number, f"unexpected text after the quoted value of {assignment['key']}"))
            else:
                raw = text[assignment.end() + 1 : closing]
                values[assignment["key"]] = _unescaped(raw, quote)
                next_line = (after.end(), number + text.count("\n", at, after.end()))
        else:
            value = text[assignment.end() : end]
            values[assignment["key"]] = re.sub(r"[ \t]+#.*", "", value).strip()
        at, number = next_line
    return values, problems


def _closing_quote(text: str, start: int, quote: str) -> int:
    """Where the quote that opened a value at `start` closes (a backslash escapes it), or -1."""
    at = start
    while at < len(text):
        character = text[at]
        if character == "\\" and at + 1 < len(text):
            at += 2
            continue
        if character == quote:
            return at
        at += 1
    return -1


def _unescaped(raw: str, quote: str) -> str:
    if quote == "'":  # literal, but for an escaped quote or backslash (as python-dotenv reads it)
        return re.sub(r"\\([\\'])", r"\1", raw)
    return re.sub(r"\\(.)", lambda match: _DOTENV_ESCAPES.get(match[1], match[0]), raw, flags=re.DOTALL)


def load_config(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    dotenv: Path | None = Path(".env"),
    *,
    dotenv_required: bool = False,
) -> Config:
    """Build the run's Config; `flags` holds command-line values, None where not given."""
    environ = os.environ if environ is None else environ
    file_values = read_dotenv(dotenv, required=dotenv_required) if dotenv is not None else {}
    raw: dict[str, Any] = {}
    origins: dict[str, str] = {}  # where a value that is not a flag's came from, for its error
    for name, setting in SETTINGS.items():
        for source, where in ((environ, "in the environment"), (file_values, f"in {dotenv}")):
            variable = next((v for v in setting.env if source.get(v)), None)
            if variable is not None:
                raw[name] = source[variable]
                origins[name] = f"{variable} {where}"
                break
    _flag_picks_the_cluster(raw, flags)
    raw.update({name: value for name, value in flags.items() if value is not None})
    for name in flags:
        if flags[name] is not None:
            origins.pop(name, None)

    # An endpoint or a key means the user wants a real model unless they name one.
    if "model" not in raw and ("base_url" in raw or "api_key" in raw):
        raw["model"] = DEFAULT_ENDPOINT_MODEL

    if "trace_dir" not in raw:
        raw["trace_dir"] = default_trace_dir(environ)

    mcp_env = {k: environ[k] for k in PASSED_TO_MCP_SERVER if environ.get(k)}
    mcp_env.update(raw.pop("mcp_env", None) or {})
    if raw.get("kubeconfig"):
        mcp_env["KUBECONFIG"] = str(Path(raw["kubeconfig"]).expanduser())
    raw["mcp_env"] = mcp_env
    return _validated(raw, origins)


def checked_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """Settings given on their own (e.g. the budgets `compare` applies), coerced and checked as a
    run's Config would check them; raises ConfigError."""
    config = _validated(dict(values))
    return {name: getattr(config, name) for name in values}


def _flag_picks_the_cluster(raw: dict[str, Any], flags: Mapping[str, Any]) -> None:
    """A flag naming the cluster (--cluster-server, or --mcp-command / --cluster) overrides the
    environment's other way of naming it, instead of clashing with it."""
    flagged = {
        name
        for name in ("cluster_server", "mcp_command", "cluster", "mcp_url")
        if flags.get(name) is not None
    }
    if flagged:
        raw.pop("mcp_url", None)  # a flag that names the cluster another way wins over the environment's URL
    if "mcp_url" in flagged:
        for name in ("cluster_server", "mcp_command", "cluster"):
            raw.pop(name, None)
    elif "cluster_server" in flagged:
        raw.pop("mcp_command", None)
        if flags["cluster_server"] != "mock":
            raw.pop("cluster", None)
    elif flagged:
        raw.pop("cluster_server", None)


def _validated(raw: dict[str, Any], origins: Mapping[str, str] | None = None) -> Config:
    """The Config of `raw`; a value's error names the variable that set it, from `origins`
    (`max-steps must be a number, got 'x' (from K8S_AGENT_MAX_STEPS in the environment; flag
    --max-steps)`)."""
    origins = origins or {}

    def wrong(name: str, problem: str) -> ConfigError:
        origin = origins.get(name)
        return ConfigError(f"{problem} (from {origin}; flag {flag_of(name)})" if origin else problem)

    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in FIELD_TYPES:
            raise ConfigError(f"unknown setting {name!r}")
        try:
            values[name] = _coerce(name, value)
        except ConfigError as error:
            raise wrong(name, str(error)) from None
    config = Config(**values)
    for name in ("max_steps", "max_repeats", "max_calls_per_turn"):
        if getattr(config, name) < 1:
            raise wrong(name, f"{name.replace('_', '-')} must be at least 1")
    if 0 < config.context_budget < MIN_CONTEXT_BUDGET:
        raise wrong(
            "context_budget",
            f"context-budget must be 0 (no budget) or at least {MIN_CONTEXT_BUDGET} tokens: the system prompt "
            "and the tool definitions alone take about 2,500",
        )
    for name in ("max_retries", "keep_traces", "context_budget"):
        if getattr(config, name) < 0:
            raise wrong(name, f"{name.replace('_', '-')} must not be negative")
    for name in ("max_seconds", "tool_timeout", "mcp_start_timeout", "request_timeout", "tool_max_seconds"):
        if not getattr(config, name) > 0:
            raise wrong(name, f"{name.replace('_', '-')} must be positive")
    if config.cluster is not None and config.mcp_command:
        raise ConfigError(
            "--cluster selects a mock cluster fixture; it cannot be combined with --mcp-command"
        )
    if config.mcp_url is not None:
        _check_mcp_url(config)
    elif config.mcp_token or config.mcp_header or config.mcp_ca_file is not None:
        flag = "--mcp-token" if config.mcp_token else "--mcp-header" if config.mcp_header else "--mcp-ca-file"
        raise ConfigError(f"{flag} is for a deployed MCP server: give --mcp-url too")
    if config.cluster_server is not None:
        _check_cluster_server(config)
    if config.mcp_transport is not None:
        _check_mcp_transport(config)
    if config.api not in APIS:
        raise ConfigError(_unknown_api(config.api))
    if config.cluster is not None and not config.cluster.is_file():
        raise ConfigError(f"cluster fixture not found: {config.cluster}")
    if config.kubeconfig is not None and not config.kubeconfig.is_file():
        raise ConfigError(f"kubeconfig not found: {config.kubeconfig}")
    on_mock = not config.mcp_command and config.mcp_url is None and config.cluster_server in (None, "mock")
    if on_mock and (config.kubeconfig is not None or config.context):
        flag = "--kubeconfig" if config.kubeconfig is not None else "--context"
        raise ConfigError(
            f"{flag} is for a real cluster: give --cluster-server or --mcp-command too (the mock cluster "
            "reads no kubeconfig)"
        )
    if not config.offline and config.base_url is None and not config.api_key:
        raise wrong(
            "model",
            f"model {config.model!r} needs an endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
            "non-OpenAI server), or use --model offline" + did_you_mean(config.model, EMBEDDED_MODEL_SERVERS),
        )
    return config


def _check_mcp_url(config: Config) -> None:
    from urllib.parse import urlsplit

    url = config.mcp_url or ""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"--mcp-url must be an http:// or https:// URL, got {_clip(url)!r}")
    if parts.username or parts.password:
        raise ConfigError("--mcp-url must not carry a user or password: give a token with --mcp-token")
    others = [
        flag
        for flag, given in (
            ("--mcp-command", bool(config.mcp_command)),
            ("--cluster-server", config.cluster_server is not None),
            ("--cluster", config.cluster is not None),
            ("--kubeconfig", config.kubeconfig is not None),
            ("--context", bool(config.context)),
        )
        if given
    ]
    if others:
        raise ConfigError(
            f"--mcp-url names a server that is already running; it cannot be combined with {others[0]} "
            "(the deployed server has its own cluster and credentials)"
        )
    if config.mcp_ca_file is not None and not config.mcp_ca_file.is_file():
        raise ConfigError(f"CA file not found: {config.mcp_ca_file}")


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _check_cluster_server(config: Config) -> None:
    if config.cluster_server not in CLUSTER_SERVERS:
        raise ConfigError(_unknown_cluster_server(config.cluster_server))
    if config.mcp_command:
        raise ConfigError("--cluster-server and --mcp-command both name the MCP server: give one of them")
    if config.cluster is not None:
        _check_fixture_server(config)
    if config.offline:
        _check_embedded_model_server(config)


def _check_embedded_model_server(config: Config) -> None:
    """An embedded model plays on the tools it knows: refuse a server whose tools it does not."""
    known = EMBEDDED_MODEL_SERVERS.get(config.model, ("mock",))
    if config.cluster_server in known:
        return
    model = (
        "the offline model (a deterministic playbook, not an LLM)"
        if config.model == OFFLINE_MODEL
        else config.model
    )
    servers = " and ".join("the mock cluster" if name == "mock" else name for name in known)
    other = next((name for name in known if name != "mock"), None)
    instead = f"use --cluster-server {other}, or " if other else ""
    raise ConfigError(
        f"{model} knows the tools of {servers} only, not those of {config.cluster_server}: {instead}set "
        f"OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) for a model that can use "
        f"--cluster-server {config.cluster_server}"
    )


def _check_fixture_server(config: Config) -> None:
    """--cluster FILE is served by the mock cluster, or by kubernetes-mcp-server over a fake
    Kubernetes API holding it; either way the fixture is the whole cluster."""
    if config.cluster_server not in FIXTURE_SERVERS:
        raise ConfigError(
            f"--cluster serves a mock cluster fixture through the mock cluster or kubernetes-mcp-server; it "
            f"cannot be combined with --cluster-server {config.cluster_server}"
        )
    if config.cluster_server != "mock" and (config.kubeconfig is not None or config.context):
        flag = "--kubeconfig" if config.kubeconfig is not None else "--context"
        raise ConfigError(
            f"--cluster is the cluster kubernetes-mcp-server reads (a fake Kubernetes API serves it); {flag} "
            "names another: give one of them"
        )


def _check_mcp_transport(config: Config) -> None:
    if config.mcp_transport not in MCP_TRANSPORTS:
        raise ConfigError(_unknown_mcp_transport(config.mcp_transport))
    if config.mcp_transport == "stdio" and config.mcp_url is not None:
        raise ConfigError(
            "--mcp-transport stdio talks to a server the run starts; --mcp-url names one to reach over HTTP: "
            "use --mcp-transport streamable-http or sse (or leave it unset)"
        )
    if config.mcp_transport != "stdio" and config.mcp_command:
        raise ConfigError(
            f"--mcp-transport {config.mcp_transport} cannot start an --mcp-command server in HTTP mode (how it "
            "listens is the command's own business): start it yourself and give its URL with --mcp-url"
        )


_CHOICES = {"cluster_server": CLUSTER_SERVERS, "mcp_transport": MCP_TRANSPORTS, "api": APIS}


def _unknown_api(value: Any) -> str:
    return (
        f"unknown API {value!r}: choose chat (Chat Completions) or responses (the Responses API)"
        + did_you_mean(value, APIS)
    )


def _unknown_cluster_server(value: Any) -> str:
    return (
        f"unknown cluster server {value!r}: choose one of {', '.join(CLUSTER_SERVERS)} (or give any stdio "
        f"MCP server with --mcp-command){did_you_mean(value, CLUSTER_SERVERS)}"
    )


def _unknown_mcp_transport(value: Any) -> str:
    return f"unknown MCP transport {value!r}: choose one of {', '.join(MCP_TRANSPORTS)}" + did_you_mean(
        value, MCP_TRANSPORTS
    )


def _finite(label: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{label} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ConfigError(f"{label} must be a finite number, got {value!r}")
    return number


def command_words(value: Any, label: str = "mcp-command") -> tuple[str, ...]:
    """A command line (a string split as a shell would, or a list) as its words; ConfigError when it
    is not one (an unterminated quote) or is empty."""
    try:
        words = tuple(shlex.split(value)) if isinstance(value, str) else tuple(value)
    except ValueError as error:  # "No closing quotation", "No escaped character"
        raise ConfigError(f"{label} is not a command line ({str(error).lower()}): {value!r}") from None
    if not words:
        raise ConfigError(f"{label} is empty")
    return words


def _whole_number(label: str, value: Any) -> int:
    """`10`, or a whole number written as a float (`1e3`, `10.0`); `1.5` is refused."""
    if not isinstance(value, float):  # int(2.7) would be 2: a float is checked below
        try:
            return int(value)
        except (TypeError, ValueError):
            pass
    number = _finite(label, value)
    if not number.is_integer():
        raise ConfigError(f"{label} must be a whole number, got {value!r}")
    return int(number)


YES = ("yes", "true", "on", "1")
NO = ("no", "false", "off", "0")


def _yes_or_no(label: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in YES or word in NO:
        return word in YES
    raise ConfigError(f"{label} must be yes or no, got {value!r}" + did_you_mean(word, ("yes", "no")))


def _coerce(name: str, value: Any) -> Any:
    hint = FIELD_TYPES[name]
    label = name.replace("_", "-")
    if hint is Impl:
        return implementation_of(value)
    if hint is ReportFormat:
        return report_format_of(value)
    if hint is bool:
        return _yes_or_no(label, value)
    if hint is int:
        return _whole_number(label, value)
    if hint is float:
        return _finite(label, value)
    if name == "mcp_command":
        return command_words(value, label)
    if hint is Path or Path in typing.get_args(hint):
        return Path(value).expanduser()
    if name in ("allow_write", "allow_read"):
        names = value.split(",") if isinstance(value, str) else value
        return tuple(str(item).strip() for item in names if str(item).strip())
    if name == "base_url":
        return str(value).rstrip("/") or None
    if name in ("mcp_url", "mcp_token"):
        return str(value).strip() or None
    if name in ("cluster_server", "mcp_transport", "api"):
        chosen = str(value).strip().lower() or None
        if chosen not in _CHOICES[name] and (chosen is not None or name == "api"):  # only the API is required
            unknown = {"cluster_server": _unknown_cluster_server, "mcp_transport": _unknown_mcp_transport}
            raise ConfigError(unknown.get(name, _unknown_api)(value))
        return chosen
    if name == "context":
        return str(value).strip() or None
    return value
