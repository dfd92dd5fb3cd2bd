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
import os
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
            object.__setattr__(self, "impl", implementation_of(impl))
        report_format: Any = self.report_format
        if not isinstance(report_format, ReportFormat):
            object.__setattr__(self, "report_format", report_format_of(report_format))

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
FIELD_TYPES = typing.get_type_hints(Config)
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
    return FIELD_TYPES[name] is bool


def flag_type(name: str) -> Any:
    """What argparse should turn a flag's text into (int, float, Path), or None for plain text."""
    hint = FIELD_TYPES[name]
    for kind in (int, float, Path):
        if hint is kind or kind in typing.get_args(hint):
            return kind
    return None


def did_you_mean(value: Any, choices: Any) -> str:
    """`; did you mean 'sdk'?` when one of `choices` is close to a misspelt `value`, else ''."""
    words = [str(choice) for choice in choices]
    close = difflib.get_close_matches(str(value).strip().lower(), words, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def implementation_of(value: Any) -> Impl:
    try:
        return Impl(str(value).strip().lower())
    except ValueError:
        raise ConfigError(
            f"unknown implementation {value!r}: choose one of {', '.join(IMPLEMENTATIONS)}"
            + did_you_mean(value, IMPLEMENTATIONS)
        ) from None


def report_format_of(value: Any) -> ReportFormat:
    try:
        return ReportFormat(str(value).strip().lower())
    except ValueError:
        formats = [f.value for f in ReportFormat]
        raise ConfigError(
            f"unknown report format {value!r}: choose one of {', '.join(formats)}"
            + did_you_mean(value, formats)
        ) from None
