"""The `k8s-agent` command line."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from harness.config import CLUSTER_SERVERS, OFFLINE_MODEL, Config, load_config
from harness.errors import AgentError, ConfigError

EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130

# Modules that add a subcommand: each has `register(commands)`, which only declares its flags;
# the work (and any heavy import) happens in its handler.
SUBCOMMANDS: tuple[str, ...] = ("k8s_agent.compare", "k8s_agent.trace_tools", "poc.cli", "bench.cli")

DESCRIPTION = """\
A Kubernetes diagnosis agent: one question in, one grounded health report out.

With no model configured it answers with the embedded OFFLINE MODEL, a deterministic SRE
playbook (not an LLM), against the embedded mock cluster: no API key, no cluster needed.
"""

ASK_EPILOG = """\
configuration (flags > environment > .env file > defaults):
  OPENAI_API_KEY, OPENAI_BASE_URL   a real OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, ...)
  K8S_AGENT_MODEL (or OPENAI_MODEL) the model name; 'offline' is the deterministic playbook
  K8S_AGENT_MCP_COMMAND             a stdio MCP server command for a real cluster
  K8S_AGENT_CLUSTER_SERVER          kubernetes-mcp-server | mcp-server-kubernetes | mock
  KUBERNETES_MCP_SERVER_BIN, MCP_SERVER_KUBERNETES_JS   where those servers are (else ~/.cache/k8s-agent/npm, PATH)
  K8S_AGENT_MAX_STEPS, K8S_AGENT_MAX_REPEATS, K8S_AGENT_MAX_SECONDS, K8S_AGENT_TRACE_DIR, ...
  KUBECONFIG                        passed on to the MCP server

exit codes: 0 report written, 2 bad input or configuration, 3 model endpoint failed,
            4 MCP server failed to start, 1 internal error, 130 interrupted
"""


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2, never a traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n(see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = _Parser(
        prog="k8s-agent", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    ask = commands.add_parser(
        "ask",
        help="investigate a question and print a health report",
        description="Investigate a question about the cluster and print a grounded health report.",
        epilog=ASK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ask.add_argument("question", help='e.g. "Which pods in the production namespace are unhealthy, and why?"')
    add_run_options(ask)
    ask.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (answer, counts, trace) instead of the report",
    )
    ask.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    ask.set_defaults(handler=cmd_ask)

    for module in SUBCOMMANDS:
        importlib.import_module(module).register(commands)
    return parser


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Flags shared by every command that runs the agent."""
    group = parser.add_argument_group("agent")
    group.add_argument("--impl", help="handwritten (default) or sdk (the OpenAI Agents SDK port)")
    group.add_argument(
        "--model",
        help=f"model name; '{OFFLINE_MODEL}' = deterministic offline playbook, not an LLM "
        "(the default when no endpoint is configured)",
    )
    group.add_argument(
        "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL)"
    )
    group.add_argument("--api-key", help="API key (prefer env OPENAI_API_KEY: flags show in process lists)")
    group.add_argument(
        "--env-file", type=Path, default=Path(".env"), help="read settings from this file (default .env)"
    )
    cluster = parser.add_argument_group("cluster")
    cluster.add_argument(
        "--cluster-server",
        choices=CLUSTER_SERVERS,
        help="MCP server for a real cluster, read-only, with KUBECONFIG passed on: kubernetes-mcp-server "
        "or mcp-server-kubernetes (install: npm, or .ci/install-k8s-mcp-servers.sh); mock (the default) is "
        "the embedded mock cluster (env K8S_AGENT_CLUSTER_SERVER)",
    )
    cluster.add_argument(
        "--mcp-command", help='stdio MCP server for a real cluster, e.g. "kubernetes-mcp-server --read-only"'
    )
    cluster.add_argument(
        "--mcp-env", action="append", metavar="KEY=VALUE", help="environment for the MCP server (repeatable)"
    )
    cluster.add_argument(
        "--cluster", type=Path, help="mock cluster fixture (JSON) instead of the shipped one"
    )
    cluster.add_argument(
        "--allow-write",
        action="append",
        metavar="TOOL",
        help="allow a tool that is not annotated read-only (repeatable; asks before each call)",
    )
    budgets = parser.add_argument_group("budgets")
    budgets.add_argument(
        "--max-steps", type=int, help="model turns with tools before a forced summary (default 10)"
    )
    budgets.add_argument(
        "--max-repeats",
        type=int,
        help="repeats of one identical tool call before a forced summary (default 2)",
    )
    budgets.add_argument(
        "--max-seconds", type=float, help="wall-clock budget of the investigation (default 300)"
    )
    budgets.add_argument("--tool-timeout", type=float, help="seconds per MCP tool call (default 30)")
    budgets.add_argument("--request-timeout", type=float, help="seconds per model request (default 120)")
    budgets.add_argument("--max-retries", type=int, help="retries of a failed model request (default 2)")
    parser.add_argument("--trace-dir", type=Path, help="folder for JSONL traces (default traces/)")


def config_from(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The run's Config from parsed flags, the environment and the .env file."""
    mcp_env: dict[str, str] = {}
    for item in args.mcp_env or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--mcp-env expects KEY=VALUE, got {item!r}")
        mcp_env[key] = value
    flags: dict[str, Any] = {
        "impl": args.impl,
        "model": args.model,
        "base_url": args.base_url,
        "api_key": args.api_key,
        "mcp_command": args.mcp_command,
        "cluster_server": args.cluster_server,
        "cluster": args.cluster,
        "max_steps": args.max_steps,
        "max_repeats": args.max_repeats,
        "max_seconds": args.max_seconds,
        "tool_timeout": args.tool_timeout,
        "request_timeout": args.request_timeout,
        "max_retries": args.max_retries,
        "trace_dir": args.trace_dir,
        "allow_write": tuple(args.allow_write) if args.allow_write else None,
        "mcp_env": mcp_env or None,
    }
    return load_config(flags, environ, args.env_file)


def cmd_ask(args: argparse.Namespace) -> int:
    """`k8s-agent ask QUESTION`."""
    from harness.approval import TerminalApprover, deny_all
    from harness.report import render
    from harness.session import record_failed_start
    from k8s_agent.progress import ProgressPrinter
    from k8s_agent.runner import run_question

    try:
        config = config_from(args)
    except ConfigError as error:
        trace = record_failed_start(
            args.trace_dir or Path("traces"), args.impl or Config.impl, args.question, error
        )
        return fail(error, trace, as_json=args.json, impl=args.impl)
    observer = None if args.quiet else ProgressPrinter()
    approver = TerminalApprover() if config.allow_write else deny_all
    try:
        result = asyncio.run(run_question(config, args.question, observer=observer, approver=approver))
    except AgentError as error:
        return fail(error, error.trace_path, as_json=args.json, impl=config.impl)
    if args.json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
    else:
        print(render(result))
    return 0


def fail(error: AgentError, trace: Path | None, *, as_json: bool = False, impl: str | None = None) -> int:
    """Report a run failure in one line (plus the MCP server's stderr tail) and return its exit code."""
    tail = getattr(error, "stderr_tail", "")
    if as_json:
        payload = {
            "error": str(error),
            "error_type": type(error).__name__,
            "exit_code": error.exit_code,
            "impl": impl,
            "trace": str(trace) if trace else None,
        }
        if tail:
            payload["stderr_tail"] = tail
        print(json.dumps(payload, indent=2))
    print(f"error: {error}", file=sys.stderr)
    if tail:
        print("MCP server stderr (last lines):\n  " + tail.replace("\n", "\n  "), file=sys.stderr)
    if trace:
        print(f"trace: {trace}", file=sys.stderr)
    return error.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `k8s-agent` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # boundary: a bug must still end in one line and a pointer to the trace
        if os.environ.get("K8S_AGENT_DEBUG"):
            raise
        print(
            f"internal error: {type(error).__name__}: {error} (set K8S_AGENT_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
