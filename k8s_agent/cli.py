"""The `k8s-agent` command line."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import json
import os
import platform
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from k8s_agent import uptime
from k8s_agent_harness import interrupts
from k8s_agent_harness.config import GROUPS, SETTINGS, Config, flag_of, help_of, is_yes_no
from k8s_agent_harness.config_load import load_config
from k8s_agent_harness.errors import AgentError, ConfigError

EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT); SIGTERM and SIGHUP end a command the same way, with 143 and 129."""
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE, as a shell reports a command whose reader went away."""

# Modules that add a subcommand: each has `register(commands)`, which only declares its flags;
# the work (and any heavy import) happens in its handler.
SUBCOMMANDS: tuple[str, ...] = (
    "k8s_agent.compare",
    "k8s_agent.contract",
    "k8s_agent.eval",
    "k8s_agent.trace_tools",
    "poc.cli",
    "k8s_agent.bench.cli",
)

DESCRIPTION = """\
A Kubernetes diagnosis agent: one question in, one grounded health report out.

With no model configured it answers with the embedded OFFLINE MODEL, a deterministic SRE
playbook (not an LLM), against the embedded mock cluster: no API key, no cluster needed.
"""

GROUP_TITLES = {
    "agent": "agent",
    "model": "model endpoint",
    "cluster": "cluster (MCP server)",
    "budgets": "budgets",
    "output": "output",
}

EXIT_UNVERIFIED = 6
"""`ask`: the report was written, but stayed unverified after its correction turn."""
EXIT_UNREAD = 7
"""`ask`: the report was written, but nothing could be read from the cluster (every tool call failed,
or none reached it): it says nothing of the cluster's health."""

EXIT_CODES = """\
exit codes: 0 report written and verified, 6 report written but not verified (0 with
            --accept-unverified), 7 report written but nothing could be read from the
            cluster (every tool call failed), 2 bad input or configuration, 3 model endpoint failed,
            4 MCP server failed to start, 1 internal error, 130 interrupted (Ctrl-C; 143 on
            SIGTERM, 129 on SIGHUP)"""


def environment_help() -> str:
    """The environment variables the run settings read, derived from the settings themselves."""
    lines = ["configuration (flags > environment > .env file > defaults):"]
    for name, setting in SETTINGS.items():
        if setting.env:
            lines.append(f"  {' or '.join(setting.env):<34} {flag_of(name)}")
    lines += [
        f"  {'KUBECONFIG, HTTPS_PROXY, HTTP_PROXY, NO_PROXY':<34} passed on to the MCP server",
        f"  {'KUBERNETES_MCP_SERVER_BIN':<34} where kubernetes-mcp-server is (else the cache, PATH)",
        f"  {'MCP_SERVER_KUBERNETES_JS':<34} where mcp-server-kubernetes is (else the cache, PATH)",
        f"  {'K8S_AGENT_CACHE':<34} the cache folder (default ~/.cache/k8s-agent)",
    ]
    return "\n".join(lines)


def version_line() -> str:
    """`k8s-agent 0.2.0 (Python 3.11.7; openai-agents 0.24.0, openai 3.57.0, mcp 2.3.0)`."""
    from importlib import metadata

    def version(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "not installed"

    pinned = ", ".join(f"{package} {version(package)}" for package in ("openai-agents", "openai", "mcp"))
    return f"k8s-agent {version('k8s-agent')} (Python {platform.python_version()}; {pinned})"


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2, never a traceback, and no abbreviations; a
    misspelt subcommand, choice or flag gets the closest one this parser knows as a hint.

    An argument the top-level parser cannot place (`k8s-agent ask Q --bogus`) is reported by the
    subcommand it was given to, so the hint names that subcommand's `--help`. A flag is taken only
    as spelled in full: argparse would otherwise read `--api X` as `--api-key X` (any unique
    prefix), and a mistyped or newer flag would quietly set another one. An unknown flag is reported
    as itself, whatever argparse made of the words around it (`--max-step 3 Q` takes 3 for the
    question and Q for a stray word: the error names `--max-step` alone).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        unknown = self._unknown_flags()
        # An unknown flag is the mistake, whatever argparse tripped on next: a flag's value taken for
        # the question (`--max-step 3 Q`), for a subcommand (`--scen X`), or a question left missing.
        derived = (
            message.startswith(("unrecognized arguments: ", "the following arguments are required"))
            or "invalid choice" in message
        )
        if unknown and derived:
            message = f"unrecognized arguments: {' '.join(unknown)}"
        hint = self._did_you_mean(message)
        self.exit(2, f"error: {message}{hint}\n(see '{self.prog} --help')\n")

    def _unknown_flags(self) -> list[str]:
        """The words given to this parser that look like flags it does not know, as given
        (`--max-step`, `--repeats=1`). A parser with subcommands looks only before its subcommand:
        what follows is the subcommand's to judge."""
        unknown = []
        for word in getattr(self, "_given", []):
            if word == "--":
                break
            if self._subparsers is not None and not word.startswith("-"):
                break
            if (
                word.startswith("-")
                and word != "-"
                and not self._negative_number_matcher.match(word)
                and word.split("=", 1)[0] not in self._option_string_actions
            ):
                unknown.append(word)
        return unknown

    def _did_you_mean(self, message: str) -> str:
        """`; did you mean 'ask'?` for a misspelt choice (a subcommand), `; did you mean --repeat?`
        for a misspelt flag: the closest spelling this parser knows, if one is close; else ''."""
        choice = re.search(r"^argument (.+?): invalid choice: ('[^']*'|\"[^\"]*\")", message)
        if choice is not None:
            value = choice[2][1:-1]
            close = difflib.get_close_matches(value, self._choices_of(choice[1]), n=1)
            return f"; did you mean {close[0]!r}?" if close else ""
        if not message.startswith("unrecognized arguments: "):
            return ""
        # Compared without their dashes, which every flag shares and would make any two look alike.
        flags = {flag.lstrip("-"): flag for flag in self._option_string_actions}
        guesses = []
        for word in message.removeprefix("unrecognized arguments: ").split():
            name = word.split("=", 1)[0]
            close = difflib.get_close_matches(name.lstrip("-"), flags, n=1) if name.startswith("-") else []
            if close and flags[close[0]] not in guesses:
                guesses.append(flags[close[0]])
        return f"; did you mean {' or '.join(guesses)}?" if guesses else ""

    def _choices_of(self, argument: str) -> list[str]:
        """The choices of the argument argparse names `argument` in its message (its flags, its
        metavar or its name)."""
        for action in self._actions:
            name = "/".join(action.option_strings) or action.metavar or action.dest
            if action.choices is not None and name == argument:
                return [str(choice) for choice in action.choices]
        return []

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = self._bare_yes_no(list(sys.argv[1:] if args is None else args))
        parsed, extras = super().parse_known_args(self._given, namespace)
        if extras and self._subparsers is not None:
            self._innermost(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def _bare_yes_no(self, words: list[str]) -> list[str]:
        """`--stream` given alone means `--stream yes`: written out, so that the word after it (the
        question) is never taken for its value. A yes or no word after it (or a word close to one, which
        the setting then refuses with the closest) is its value."""
        flags = {
            flag for action in self._actions if isinstance(action, _YesNo) for flag in action.option_strings
        }
        if not flags:
            return words
        written: list[str] = []
        for index, word in enumerate(words):
            if word == "--":
                return written + words[index:]
            following = words[index + 1] if index + 1 < len(words) else None
            if word in flags and (following is None or not _yes_no_word(following)):
                word = f"{word}=yes"
            written.append(word)
        return written

    def _innermost(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self
        while parser._subparsers is not None:
            choices = next(
                (a for a in parser._subparsers._group_actions if isinstance(a, argparse._SubParsersAction)),
                None,
            )
            chosen = getattr(parsed, choices.dest, None) if choices is not None else None
            if choices is None or chosen not in choices.choices:
                break
            parser = choices.choices[chosen]
        return parser


class _YesNo(argparse.Action):
    """A yes-or-no setting whose value may be left out: `--stream` alone is `--stream yes`."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs="?", const="yes", **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)


def _yes_no_word(word: str) -> bool:
    """Whether a word is a yes or no value (`yes`, `off`, ...), or close to one (`yse`)."""
    from k8s_agent_harness.config_load import NO, YES

    word = word.strip().lower()
    return word in YES + NO or (len(word) <= 5 and bool(difflib.get_close_matches(word, YES + NO, n=1)))


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = _Parser(
        prog="k8s-agent", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=version_line())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    ask = commands.add_parser(
        "ask",
        help="investigate a question and print a health report",
        description="Investigate a question about the cluster and print a grounded health report.",
        epilog=environment_help() + "\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ask.add_argument("question", help='e.g. "Which pods in the production namespace are unhealthy, and why?"')
    ask.add_argument(
        "-n",
        "--namespace",
        metavar="NS",
        help="scope the question to this namespace (added to it as a line the model reads)",
    )
    add_run_options(ask)
    shown = ask.add_mutually_exclusive_group()
    shown.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object instead of the report: the answer, the structured report with each "
        "quote's verification (json report formats), counts, trace",
    )
    shown.add_argument(
        "--markdown",
        action="store_true",
        help="print the report as markdown, for a ticket (each quote marked verified or not)",
    )
    ask.add_argument(
        "--accept-unverified",
        action="store_true",
        help=f"exit 0 even when the report stays unverified after its correction turn (by default: exit "
        f"{EXIT_UNVERIFIED}, the report still printed, marked, and in the trace)",
    )
    ask.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    ask.set_defaults(handler=cmd_ask)

    for module in SUBCOMMANDS:
        importlib.import_module(module).register(commands)
    for name in OTEL_COMMANDS:
        add_otel_option(commands.choices[name])
    return parser


OTEL_COMMANDS = ("ask", "compare", "eval", "contract")
"""The commands whose runs can be sent as OpenTelemetry spans (docs/traces.md)."""


def add_otel_option(parser: argparse.ArgumentParser) -> None:
    """`--otel-endpoint URL`: send the runs as OpenTelemetry spans (OTLP over HTTP)."""
    parser.add_argument(
        "--otel-endpoint",
        metavar="URL",
        help="send each run as OpenTelemetry GenAI spans to this OTLP/HTTP receiver (e.g. "
        "http://127.0.0.1:6006 for Phoenix; /v1/traces is added); also on when OTEL_EXPORTER_OTLP_ENDPOINT "
        "or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. Needs: pip install 'k8s-agent[otel]'",
    )


def start_otel(args: argparse.Namespace) -> bool:
    """Open the span exporter when the command asked for one (flag or environment); ConfigError for
    settings that cannot be used or a missing extra. True when it was opened."""
    if getattr(args, "command", None) not in OTEL_COMMANDS:
        return False
    from k8s_agent_harness.traces import otel

    settings = otel.OtelSettings.read(getattr(args, "otel_endpoint", None), os.environ)
    if settings is None:
        return False
    otel.start(settings)
    return True


def add_run_options(
    parser: argparse.ArgumentParser, *, skip: Iterable[str] = (), notes: dict[str, str] | None = None
) -> None:
    """One flag per run setting (config.SETTINGS), grouped, with its default and environment
    variables in the help; `skip` leaves settings out, `notes` adds a word to a group's title."""
    skipped = set(skip)
    notes = notes or {}
    groups = {
        name: parser.add_argument_group(GROUP_TITLES[name] + (f" ({notes[name]})" if name in notes else ""))
        for name in GROUPS
    }
    for name, setting in SETTINGS.items():
        if name in skipped:
            continue
        # Values stay text here: the settings check them (one message, a trace), not argparse.
        options: dict[str, Any] = {"dest": name, "help": help_of(name)}
        if setting.repeatable:
            options["action"] = "append"
        elif is_yes_no(name):
            options["action"] = _YesNo
        metavar = setting.metavar or ("{" + ",".join(setting.choices) + "}" if setting.choices else None)
        if metavar:
            options["metavar"] = metavar
        groups[setting.group].add_argument(flag_of(name), **options)
        if name == "api_key":
            groups[setting.group].add_argument(
                "--env-file",
                type=Path,
                metavar="FILE",
                help="read settings from this file (default .env in the current folder, if there is one)",
            )


def config_from(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The run's Config from parsed flags, the environment and the .env file."""
    flags: dict[str, Any] = {name: getattr(args, name, None) for name in SETTINGS}
    mcp_env: dict[str, str] = {}
    for item in flags.pop("mcp_env") or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--mcp-env expects KEY=VALUE, got {item!r}")
        mcp_env[key] = value
    flags["mcp_env"] = mcp_env or None
    headers: dict[str, str] = {}
    for item in flags.pop("mcp_header") or []:
        name, sep, value = item.partition(":")
        if not sep or not name.strip() or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip()):
            raise ConfigError(f"--mcp-header expects 'NAME: VALUE', got {item.partition(':')[0]!r}")
        headers[name.strip()] = value.strip()
    flags["mcp_header"] = headers or None
    for name in ("allow_write", "allow_read"):
        if flags[name] is not None:
            flags[name] = tuple(flags[name])
    env_file = getattr(args, "env_file", None)
    return load_config(flags, environ, env_file or Path(".env"), dotenv_required=env_file is not None)


def cmd_ask(args: argparse.Namespace) -> int:
    """`k8s-agent ask QUESTION`.

    The request is checked first (settings, files, the question, the server to start), with nothing
    heavy imported and nothing written: a refusal is one line and exit 2, at once. A run starts only
    for a request that passes, and from then on its trace records how it ends, Ctrl-C included.
    """
    try:
        config = checked_request(args)
    except ConfigError as error:
        return fail(error, None, as_json=args.json, impl=args.impl)
    return _run(args, config)


def checked_request(args: argparse.Namespace) -> Config:
    """The run's Config, its question scoped (`args.question`) and checked; ConfigError if refused."""
    from k8s_agent.implementations import check_inputs, scoped_question

    config = config_from(args)
    args.question = scoped_question(args.question, args.namespace)
    check_inputs(config, args.question)
    return config


def _run(args: argparse.Namespace, config: Config) -> int:
    import asyncio

    from k8s_agent.implementations import ask
    from k8s_agent.progress import ProgressPrinter
    from k8s_agent_harness.evidence.redact import json_printable
    from k8s_agent_harness.guards.approval import TerminalApprover, deny_all
    from k8s_agent_harness.printout import render, render_markdown
    from k8s_agent_harness.traces.trace import prune_traces

    observer = None if args.quiet else ProgressPrinter()
    approver = TerminalApprover() if config.allow_write else deny_all
    try:
        result = asyncio.run(ask(config, args.question, observer=observer, approver=approver))
    except AgentError as error:
        return fail(error, error.trace_path, as_json=args.json, impl=config.impl)
    finally:
        if observer is not None:
            observer.close()
        prune_traces(config.trace_dir, config.keep_traces)
    if args.json:
        print(json_printable(json.dumps(result.as_json(), indent=2, ensure_ascii=False)))
    elif args.markdown:
        print(render_markdown(result), end="")
    else:
        print(render(result))
    if result.read_nothing:
        print(
            f"k8s-agent: the cluster could not be read (exit {EXIT_UNREAD}): no tool call returned a result, "
            "so the report says nothing of the cluster's health; see the failures in the report and the trace",
            file=sys.stderr,
        )
        return EXIT_UNREAD
    if result.unverified and not args.accept_unverified:
        print(
            f"k8s-agent: the report is not verified (exit {EXIT_UNVERIFIED}): what did not check out is "
            "marked in it; --accept-unverified exits 0 for such reports",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    return 0


def fail(error: AgentError, trace: Path | None, *, as_json: bool = False, impl: str | None = None) -> int:
    """Report a refusal or a run's failure in one line (plus the MCP server's stderr tail) and return
    its exit code. The trace is named only when it was written: a refused request has none."""
    tail = getattr(error, "stderr_tail", "")
    if trace is not None and not trace.is_file():
        trace = None
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
    from k8s_agent_harness.evidence.redact import printable

    # An error can quote a value or what a server wrote: no terminal escapes, no bidi controls.
    print(printable(f"error: {error}"), file=sys.stderr)
    if tail:
        print(printable("MCP server stderr (last lines):\n  " + tail.replace("\n", "\n  ")), file=sys.stderr)
    if trace:
        print(f"trace: {trace}", file=sys.stderr)
    return error.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `k8s-agent` console script. SIGTERM and SIGHUP end a command as Ctrl-C
    does (interrupts.py): the run's trace ends with `run_end`, its processes are stopped, one line
    names the signal, and the exit code is 128 + its number."""
    with interrupts.forwarded():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    uptime.begin(own_process=argv is None or list(argv) == sys.argv[1:])
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            exporting = start_otel(args)
        except ConfigError as error:
            print(f"error: {error}", file=sys.stderr)
            return error.exit_code
        try:
            return int(args.handler(args))
        finally:
            if exporting:
                from k8s_agent_harness.traces import otel

                otel.finish()
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM or SIGHUP taken down its path
        interrupts.handled()
        print(interrupts.reason(), file=sys.stderr)
        return interrupts.exit_code()
    except BrokenPipeError:  # `k8s-agent eval list | head`: the reader left; say nothing more
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as error:  # boundary: a bug must still end in one line and a pointer to the trace
        if interrupts.signalled():  # SIGTERM or SIGHUP came: what broke after it broke because of it
            interrupts.handled()
            print(interrupts.reason(), file=sys.stderr)
            return interrupts.exit_code()
        if os.environ.get("K8S_AGENT_DEBUG"):
            raise
        print(
            f"internal error: {type(error).__name__}: {error} (set K8S_AGENT_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
