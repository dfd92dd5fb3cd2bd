"""Run configuration: one frozen dataclass, each field defined once, read once at the entry point.

Every field carries its `Setting`: the help text, the environment variables, the CLI group and
whether it is a budget. The command line (flags and help, with the defaults filled in), the
environment lookup, the trace's `run_start.budgets`, `compare` and `trace replay` all derive
from `SETTINGS`, so adding a setting is one field here.

Precedence, highest first: command-line flags, the process environment, a `.env` file, the
defaults. Nothing here reads the environment at import time.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shlex
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl, ReportFormat

OFFLINE_MODEL = "offline"
BASELINE_MODELS = ("baseline:parrot", "baseline:status", "baseline:rules")
"""Models that are not LLMs, served in process like the offline model: the floor an eval is read against."""
CLUSTER_SERVERS = ("kubernetes-mcp-server", "mcp-server-kubernetes", "mock")
"""Presets of `--cluster-server`; `servers` turns one into a command and its environment."""
FIXTURE_SERVERS = ("mock", "kubernetes-mcp-server")
"""The presets that can serve a mock cluster fixture (`--cluster FILE`): kubernetes-mcp-server
reads it from a fake Kubernetes API that holds it."""
EMBEDDED_MODEL_SERVERS = dict.fromkeys((OFFLINE_MODEL, *BASELINE_MODELS), ("mock", "kubernetes-mcp-server"))
"""The presets whose tools an embedded model knows: the offline playbook and the baselines play on the
mock cluster's tools and on kubernetes-mcp-server's."""
APIS = ("chat", "responses")
"""The wire to the model endpoint: Chat Completions (every OpenAI-compatible endpoint) or the
Responses API (the OpenAI Agents SDK's default)."""
MCP_TRANSPORTS = ("stdio", "streamable-http", "sse")
"""How the run talks to its MCP server; unset: stdio to a started server, Streamable HTTP (falling
back to SSE) to --mcp-url."""
DEFAULT_ENDPOINT_MODEL = "gpt-4o-mini"
MIN_CONTEXT_BUDGET = 4_000

# CLI groups, in the order `--help` shows them.
AGENT, MODEL, CLUSTER, BUDGETS, OUTPUT = "agent", "model", "cluster", "budgets", "output"
GROUPS = (AGENT, MODEL, CLUSTER, BUDGETS, OUTPUT)


@dataclass(frozen=True)
class Setting:
    """How one Config field is set and explained."""

    help: str
    """One line for `--help`; the default is appended unless `show_default` is False."""
    env: tuple[str, ...] = ()
    """Environment (or `.env`) variables that set it, first found wins."""
    group: str = AGENT
    budget: bool = False
    """A budget: recorded in the trace's run_start, reused by `trace replay`, applied by `compare`."""
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    repeatable: bool = False
    show_default: bool = True


def _setting(default: Any, help: str, *, secret: bool = False, **options: Any) -> Any:
    return field(default=default, repr=not secret, metadata={"setting": Setting(help, **options)})


def _pairs_setting(help: str, metavar: str) -> Any:
    """A repeatable flag of named values (a mapping), for the MCP server; never shown in a repr."""
    setting = Setting(help, group=CLUSTER, metavar=metavar, repeatable=True, show_default=False)
    return field(default_factory=dict, repr=False, metadata={"setting": setting})


@dataclass(frozen=True, kw_only=True)
class Config:
    """Everything a run needs; both agents receive the same object."""

    impl: Impl = _setting(
        Impl.HANDWRITTEN,
        "the loop that drives the run: handwritten, or sdk (the OpenAI Agents SDK port)",
        env=("K8S_AGENT_IMPL",),
        metavar="{handwritten,sdk}",
    )
    model: str = _setting(
        OFFLINE_MODEL,
        f"model name; '{OFFLINE_MODEL}' is the deterministic offline playbook, not an LLM (the default "
        f"when no endpoint or key is configured; with one, the default is {DEFAULT_ENDPOINT_MODEL}); "
        "'baseline:parrot', 'baseline:status' and 'baseline:rules' are the eval's floor (docs/eval.md)",
        env=("K8S_AGENT_MODEL", "OPENAI_MODEL"),
        group=MODEL,
        metavar="NAME",
        show_default=False,
    )
    report_format: ReportFormat = _setting(
        ReportFormat.AUTO,
        "how the final report is asked for: json_schema (response_format), json_text (JSON described in "
        "the instructions, for endpoints without response_format), prose (free text), or auto: json_schema "
        "for api.openai.com and the offline model, json_text elsewhere",
        env=("K8S_AGENT_REPORT_FORMAT",),
        group=MODEL,
        metavar="{auto,json_schema,json_text,prose}",
    )
    api: str = _setting(
        "chat",
        "the model endpoint's API: chat (Chat Completions, which every OpenAI-compatible endpoint "
        "speaks) or responses (the Responses API, /v1/responses: the OpenAI Agents SDK's default; "
        "reasoning items carry across turns). Both agents keep every guardrail on either",
        env=("K8S_AGENT_API",),
        group=MODEL,
        choices=APIS,
    )
    stream: bool = _setting(
        False,
        "ask the model endpoint to stream its answers (yes or no; --stream alone is yes): the text shows "
        "as it comes, a structured report finding by finding; the guardrails and the trace see each "
        "streamed answer as the one response it amounts to",
        env=("K8S_AGENT_STREAM",),
        group=MODEL,
        metavar="{yes,no}",
    )
    base_url: str | None = _setting(
        None,
        "OpenAI-compatible endpoint (`.../v1`), e.g. http://localhost:11434/v1; unset means api.openai.com",
        env=("OPENAI_BASE_URL",),
        group=MODEL,
        metavar="URL",
        show_default=False,
    )
    api_key: str | None = _setting(
        None,
        "API key for the endpoint (prefer the environment: flags show in process lists); never written "
        "to traces, reports or logs",
        env=("OPENAI_API_KEY",),
        group=MODEL,
        metavar="KEY",
        secret=True,
        show_default=False,
    )
    cluster_server: str | None = _setting(
        None,
        "MCP server for a real cluster, read-only, with KUBECONFIG passed on: kubernetes-mcp-server or "
        "mcp-server-kubernetes (install: npm, or .ci/install-k8s-mcp-servers.sh); mock is the embedded "
        "mock cluster (the default)",
        env=("K8S_AGENT_CLUSTER_SERVER",),
        group=CLUSTER,
        choices=CLUSTER_SERVERS,
        show_default=False,
    )
    mcp_command: tuple[str, ...] = _setting(
        (),
        'any stdio MCP server for a real cluster, e.g. "kubernetes-mcp-server --read-only"',
        env=("K8S_AGENT_MCP_COMMAND",),
        group=CLUSTER,
        metavar="COMMAND",
        show_default=False,
    )
    mcp_env: Mapping[str, str] = _pairs_setting(
        "environment for the MCP server (repeatable); KUBECONFIG and the proxy variables are passed on "
        "by themselves",
        "KEY=VALUE",
    )
    mcp_url: str | None = _setting(
        None,
        "a deployed MCP server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp, reached instead "
        "of starting one (TLS verified)",
        env=("K8S_AGENT_MCP_URL",),
        group=CLUSTER,
        metavar="URL",
        show_default=False,
    )
    mcp_token: str | None = _setting(
        None,
        "bearer token for --mcp-url, sent as `Authorization: Bearer TOKEN` (prefer the environment: flags "
        "show in process lists); never written to traces, reports or logs",
        env=("K8S_AGENT_MCP_TOKEN",),
        group=CLUSTER,
        metavar="TOKEN",
        secret=True,
        show_default=False,
    )
    mcp_header: Mapping[str, str] = _pairs_setting(
        "an HTTP header for --mcp-url (repeatable); its value is treated as a secret", "'NAME: VALUE'"
    )
    mcp_ca_file: Path | None = _setting(
        None,
        "CA bundle (PEM) that --mcp-url's certificate must chain to, instead of the system's",
        env=("K8S_AGENT_MCP_CA_FILE",),
        group=CLUSTER,
        metavar="FILE",
        show_default=False,
    )
    mcp_transport: str | None = _setting(
        None,
        "how to talk to the MCP server: stdio, streamable-http or sse. With --mcp-url the default is "
        "Streamable HTTP, falling back to SSE when the server does not speak it; sse forces SSE. With "
        "the mock or --cluster-server kubernetes-mcp-server, streamable-http (sse: the mock only) starts "
        "the server listening on a loopback port instead of on stdio",
        env=("K8S_AGENT_MCP_TRANSPORT",),
        group=CLUSTER,
        choices=MCP_TRANSPORTS,
        show_default=False,
    )
    cluster: Path | None = _setting(
        None,
        "mock cluster fixture (JSON) instead of the shipped one; with --cluster-server kubernetes-mcp-server, "
        "served to it by a fake Kubernetes API",
        env=("K8S_AGENT_CLUSTER",),
        group=CLUSTER,
        metavar="FILE",
        show_default=False,
    )
    kubeconfig: Path | None = _setting(
        None,
        "kubeconfig for a real cluster's MCP server (instead of $KUBECONFIG, else ~/.kube/config)",
        group=CLUSTER,
        metavar="FILE",
        show_default=False,
    )
    context: str | None = _setting(
        None,
        "the kubeconfig context the MCP server uses (instead of the current context)",
        env=("K8S_AGENT_CONTEXT",),
        group=CLUSTER,
        metavar="NAME",
        show_default=False,
    )
    allow_read: tuple[str, ...] = _setting(
        (),
        "offer a tool that you know only reads, of a server k8s-agent does not know (repeatable; in the "
        "environment, names separated by commas): such a server's tools are possible writes until "
        "allowed by name, whatever its hints say",
        env=("K8S_AGENT_ALLOW_READ",),
        group=CLUSTER,
        metavar="TOOL",
        repeatable=True,
        show_default=False,
    )
    trust_server_hints: bool = _setting(
        False,
        "take a server's readOnlyHint as the truth for the tools k8s-agent has no vetted word on (yes or "
        "no): you vouch for the server; a known server's vetted tools are judged by their table anyway",
        env=("K8S_AGENT_TRUST_SERVER_HINTS",),
        group=CLUSTER,
        metavar="{yes,no}",
    )
    allow_write: tuple[str, ...] = _setting(
        (),
        "allow a tool that may write (repeatable; asks on the terminal before each call)",
        group=CLUSTER,
        metavar="TOOL",
        repeatable=True,
        show_default=False,
    )
    max_steps: int = _setting(
        10,
        "model turns that may call tools before a tool-less summary is forced",
        env=("K8S_AGENT_MAX_STEPS",),
        group=BUDGETS,
        budget=True,
        metavar="N",
    )
    max_repeats: int = _setting(
        2,
        "repeats of one identical tool call before a summary is forced",
        env=("K8S_AGENT_MAX_REPEATS",),
        group=BUDGETS,
        budget=True,
        metavar="N",
    )
    max_seconds: float = _setting(
        300.0,
        "wall-clock budget of the investigation in seconds; when spent, a summary is forced",
        env=("K8S_AGENT_MAX_SECONDS",),
        group=BUDGETS,
        budget=True,
        metavar="SECONDS",
    )
    context_budget: int = _setting(
        32_000,
        "tokens one model request may take (estimated from bytes, 4 a token): larger tool results reach "
        "the model as an excerpt and stay searchable, older ones are compacted; 0 means no budget",
        env=("K8S_AGENT_CONTEXT_BUDGET",),
        group=BUDGETS,
        budget=True,
        metavar="TOKENS",
    )
    max_calls_per_turn: int = _setting(
        24,
        "tool calls one model turn may run; the calls beyond are not run and are left out of the conversation (the model is told)",
        env=("K8S_AGENT_MAX_CALLS_PER_TURN",),
        group=BUDGETS,
        budget=True,
        metavar="N",
    )
    tool_timeout: float = _setting(
        30.0,
        "seconds one MCP tool call may take",
        env=("K8S_AGENT_TOOL_TIMEOUT",),
        group=BUDGETS,
        budget=True,
        metavar="SECONDS",
    )
    mcp_start_timeout: float = _setting(
        30.0,
        "seconds the MCP server may take to start and answer the initialize request",
        env=("K8S_AGENT_MCP_START_TIMEOUT",),
        group=BUDGETS,
        budget=True,
        metavar="SECONDS",
    )
    request_timeout: float = _setting(
        120.0,
        "seconds one model request may take in all, from sending it to the last byte of its answer "
        "(streamed or not), before it is abandoned (and retried)",
        env=("K8S_AGENT_REQUEST_TIMEOUT",),
        group=BUDGETS,
        budget=True,
        metavar="SECONDS",
    )
    max_retries: int = _setting(
        2,
        "retries of a failed model request (408/409/429/5xx, connection errors)",
        env=("K8S_AGENT_MAX_RETRIES",),
        group=BUDGETS,
        budget=True,
        metavar="N",
    )
    trace_dir: Path = _setting(
        Path("~/.local/state/k8s-agent/traces"),
        "folder for the JSONL trace of each run (default $XDG_STATE_HOME/k8s-agent/traces, else "
        "~/.local/state/k8s-agent/traces)",
        env=("K8S_AGENT_TRACE_DIR",),
        group=OUTPUT,
        metavar="DIR",
        show_default=False,
    )
    keep_traces: int = _setting(
        500,
        "traces of `ask` the trace folder keeps: after each run the oldest beyond this many are deleted "
        "(0 keeps every one)",
        env=("K8S_AGENT_KEEP_TRACES",),
        group=OUTPUT,
        metavar="N",
    )
    tool_max_seconds: float = _setting(
        300.0,
        "seconds one MCP tool call may take at most while the server keeps reporting progress (each "
        "progress notification gives the call another --tool-timeout, up to this; never less than "
        "--tool-timeout)",
        env=("K8S_AGENT_TOOL_MAX_SECONDS",),
        group=BUDGETS,
        budget=True,
        metavar="SECONDS",
    )

    def __post_init__(self) -> None:
        impl: Any = self.impl
        if not isinstance(impl, Impl):  # Config(impl="sdk") in code: the enum, or a clear error
            object.__setattr__(self, "impl", _implementation(impl))
        report_format: Any = self.report_format
        if not isinstance(report_format, ReportFormat):
            object.__setattr__(self, "report_format", _report_format(report_format))

    @property
    def report_mode(self) -> ReportFormat:
        """The report format this run uses (`auto` decided by the endpoint)."""
        if self.report_format is not ReportFormat.AUTO:
            return self.report_format
        if self.offline or self.base_url is None or "api.openai.com" in (self.base_url or ""):
            return ReportFormat.JSON_SCHEMA
        return ReportFormat.JSON_TEXT

    @property
    def offline(self) -> bool:
        """Whether an embedded model (the offline playbook or a baseline) answers instead of a real endpoint."""
        return self.model == OFFLINE_MODEL or self.model in BASELINE_MODELS

    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in a trace, report or log."""
        return tuple(value for value in (self.api_key, self.mcp_token, *self.mcp_header.values()) if value)

    def mcp_http_headers(self) -> dict[str, str]:
        """The headers every request to --mcp-url carries."""
        headers = dict(self.mcp_header)
        if self.mcp_token:
            headers["Authorization"] = f"Bearer {self.mcp_token}"
        return headers

    def budgets(self) -> dict[str, int | float]:
        """The budget settings, as the trace's run_start records them."""
        return {name: getattr(self, name) for name in BUDGET_SETTINGS}


SETTINGS: dict[str, Setting] = {
    f.name: f.metadata["setting"] for f in fields(Config) if "setting" in f.metadata
}
"""Every setting by field name, in definition order."""
BUDGET_SETTINGS: tuple[str, ...] = tuple(name for name, s in SETTINGS.items() if s.budget)
_TYPES = typing.get_type_hints(Config)
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Config)}


def default_trace_dir(environ: Mapping[str, str]) -> Path:
    """Where traces go unless told otherwise: `$XDG_STATE_HOME/k8s-agent/traces`, else
    `~/.local/state/k8s-agent/traces`."""
    state = environ.get("XDG_STATE_HOME")
    if state and Path(state).is_absolute():
        return Path(state) / "k8s-agent" / "traces"
    home = environ.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "state" / "k8s-agent" / "traces"


def trace_folder(flag: str | Path | None, environ: Mapping[str, str] | None = None) -> Path:
    """The trace folder a command uses: the flag, else $K8S_AGENT_TRACE_DIR, else the default."""
    environ = os.environ if environ is None else environ
    chosen = flag or environ.get("K8S_AGENT_TRACE_DIR")
    return Path(chosen).expanduser() if chosen else default_trace_dir(environ)


# Passed on to the MCP server when set: the stdio client would drop them.
PASSED_TO_MCP_SERVER = ("KUBECONFIG", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")


def flag_of(name: str) -> str:
    """The command-line flag of a setting: `max_steps` is `--max-steps`."""
    return "--" + name.replace("_", "-")


def help_of(name: str) -> str:
    """A setting's help text, with its default and its environment variables."""
    setting = SETTINGS[name]
    text = setting.help
    if setting.show_default:
        default = _DEFAULTS[name]
        if isinstance(default, bool):
            shown = "yes" if default else "no"
        else:
            shown = f"{default:g}" if isinstance(default, float) else str(default)
        text += f" (default {shown})"
    if setting.env:
        text += f" [env {' or '.join(setting.env)}]"
    return text


def is_yes_no(name: str) -> bool:
    """Whether a setting is yes or no (its flag alone means yes: `--stream`)."""
    return _TYPES[name] is bool


def flag_type(name: str) -> Any:
    """What argparse should turn a flag's text into (int, float, Path), or None for plain text."""
    hint = _TYPES[name]
    for kind in (int, float, Path):
        if hint is kind or kind in typing.get_args(hint):
            return kind
    return None


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
        if name not in _TYPES:
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


def did_you_mean(value: Any, choices: Any) -> str:
    """`; did you mean 'sdk'?` when one of `choices` is close to a misspelt `value`, else ''."""
    words = [str(choice) for choice in choices]
    close = difflib.get_close_matches(str(value).strip().lower(), words, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


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


def _implementation(value: Any) -> Impl:
    try:
        return Impl(str(value).strip().lower())
    except ValueError:
        raise ConfigError(
            f"unknown implementation {value!r}: choose one of {', '.join(IMPLEMENTATIONS)}"
            + did_you_mean(value, IMPLEMENTATIONS)
        ) from None


def _report_format(value: Any) -> ReportFormat:
    try:
        return ReportFormat(str(value).strip().lower())
    except ValueError:
        formats = [f.value for f in ReportFormat]
        raise ConfigError(
            f"unknown report format {value!r}: choose one of {', '.join(formats)}"
            + did_you_mean(value, formats)
        ) from None


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
    hint = _TYPES[name]
    label = name.replace("_", "-")
    if hint is Impl:
        return _implementation(value)
    if hint is ReportFormat:
        return _report_format(value)
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
