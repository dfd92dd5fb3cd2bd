"""`k8s-agent contract`: the loop contract run black-box against any agent (ours, the plain SDK, HolmesGPT, a command).

The CLI imports this module to register the command; subjects, runs and renderers load in the handler.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from k8s_agent.outputs import add_output_flags
from k8s_agent_harness.errors import ConfigError, McpServerError

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_FAILS = 5
"""Some item fails for some subject."""

EPILOG = """\
subjects (default: handwritten and sdk; the others by --subject NAME):
  handwritten, sdk   this project's two agents (in this process)
  plain-sdk          openai-agents as documented: Agent + MCPServerStdio + Runner, defaults everywhere
  holmesgpt          HolmesGPT 0.45.0, installed on first use into a cached venv (about 3 minutes, 800 MB)
  reference          an independent agent, written apart from ours, that keeps every item its own way
  reference-prose    the same, asking for prose reports only (C11, C12: not observable)
  reference-stateful the same, stateful on the Responses API (previous_response_id): --api responses only
  mutant:NAME        the reference agent with one break (--mutants lists and judges them all)
  variant:NAME       the reference agent with one legitimate variation (--mutants judges them too)

--agent-cmd runs any CLI agent; its placeholders are filled per run and each stays one argument
(no shell): {base_url} {api_key} {model} {mcp_command} ({mcp_url} with --mcp-transport
streamable-http) {question} {max_steps} {max_repeats} {report_format} (prose, json_schema or
json_text) {workdir} {answer_file}. The answer is the
command's stdout, or the file {answer_file} when the template names it. --agent-report structured
declares that the command asks for a structured report when {report_format} says json_* (C11 and
C12 are judged only then). Example:

  k8s-agent contract --agent-cmd 'my-agent --endpoint {base_url} --model {model} --mcp {mcp_command} {question}'

Each item is judged on every scenario it applies to, from what crossed the wire (the scripted
model server's requests and replies) and what reached the mock cluster (its call log, written
before any validation, and its result log): holds, fails (with every violation and its evidence)
or not observable (with the reason). Exit status 5 when an item fails for a subject, or, with
--mutants, when the reference agent does not hold or a mutant is not caught on its item alone.
--api responses runs the contract on the Responses wire (POST /v1/responses): our two agents with
--api responses, plain-sdk on the SDK's default model (OpenAIResponsesModel), the reference agent
and its mutants (--mutants --api responses) and --agent-cmd subjects; HolmesGPT speaks Chat
Completions only and is refused (exit 2). The scorecard names each subject's wire.
With no --subject, the subjects are our two agents: exit 0 means both hold every item, so the
command gates CI. plain-sdk fails some items by design (the SDK's defaults): judge it by name.
"""


def register(commands: Any) -> None:
    """Add `contract` to the CLI's subcommands."""
    parser = commands.add_parser(
        "contract",
        help="run the loop contract black-box against agents (ours, the plain SDK, HolmesGPT, any command)",
        description="Run every contract scenario against each subject and judge each contract item "
        "(C1-C14) from the wire and the MCP server's call and result logs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--subject",
        action="append",
        metavar="NAME",
        help="a shipped subject (repeatable; default: handwritten and sdk, this project's agents, so that the "
        "exit status gates CI; name plain-sdk, holmesgpt and the others to judge them)",
    )
    parser.add_argument("--agent-cmd", action="append", metavar="TEMPLATE", help="any CLI agent (repeatable)")
    parser.add_argument(
        "--agent-name", action="append", metavar="NAME", help="names for the --agent-cmd subjects, in order"
    )
    parser.add_argument(
        "--agent-report",
        choices=("prose", "structured"),
        default="prose",
        help="what the --agent-cmd subjects ask for: prose (default; C11, C12 not observable) or a "
        "structured report when {report_format} is json_*",
    )
    parser.add_argument(
        "--mutants",
        action="store_true",
        help="judge the judge: run the reference agent and each of its mutants (one break each), in "
        "this process, and print which mutant the judge caught on its item alone",
    )
    parser.add_argument(
        "--scenario", action="append", metavar="NAME", help="run only this scenario (repeatable)"
    )
    add_output_flags(parser)
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument(
        "--api",
        choices=("chat", "responses"),
        default="chat",
        help="the wire the subjects speak to the model: chat (Chat Completions, default) or responses "
        "(the Responses API: plain-sdk on the SDK's default OpenAIResponsesModel, --agent-cmd as its "
        "template says); the judge reads either",
    )
    parser.add_argument(
        "--stream",
        choices=("yes", "no"),
        default="no",
        help="ask the subjects to stream the model's answers (handwritten and sdk only); the scripted "
        "model then streams every answer (default no)",
    )
    parser.add_argument(
        "--mcp-transport",
        choices=("stdio", "streamable-http"),
        default="stdio",
        help="how the subjects reach the mock cluster: stdio (default; each run starts its own) or "
        "streamable-http (one server for every run, each run at its own URL, {mcp_url} for --agent-cmd)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        help="keep each run's files here (traces, call and result logs); by default they go to a "
        "temporary folder removed when the command ends",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="where holmesgpt's venv is built (default: $K8S_AGENT_CACHE or ~/.cache/k8s-agent)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(handler=cmd_contract)


def cmd_contract(args: argparse.Namespace) -> int:
    """`k8s-agent contract`."""
    import asyncio

    from k8s_agent.contract.render import html, markdown
    from k8s_agent.contract.run import as_json, run_contract, select_scenarios
    from k8s_agent.contract.subjects import (
        DEFAULT_SUBJECTS,
        ON_RESPONSES,
        RESPONSES_ONLY,
        STREAMING,
        CommandAgent,
        builtin,
    )
    from k8s_agent.outputs import emit
    from k8s_agent_harness.printout import plural

    if args.mutants:
        return _mutants(args)
    try:
        if args.jobs < 1:
            raise ConfigError("--jobs must be at least 1")
        names = list(args.agent_name or [])
        commands = list(args.agent_cmd or [])
        if len(names) > len(commands):
            raise ConfigError("--agent-name names more subjects than there are --agent-cmd")
        chosen = args.subject or ([] if commands else list(DEFAULT_SUBJECTS))
        chat_only = [name for name in dict.fromkeys(chosen) if name not in ON_RESPONSES]
        if args.api == "responses" and chat_only:
            raise ConfigError(
                f"--api responses: not for {', '.join(chat_only)} (Chat Completions only); on the "
                f"Responses wire run {', '.join(ON_RESPONSES)} or --agent-cmd"
            )
        responses_only = [name for name in dict.fromkeys(chosen) if name in RESPONSES_ONLY]
        if args.api == "chat" and responses_only:
            raise ConfigError(
                f"--api chat: not for {', '.join(responses_only)} (the Responses API only): give --api responses"
            )
        not_streaming = [name for name in dict.fromkeys(chosen) if name not in STREAMING]
        if args.stream == "yes" and (not_streaming or commands):
            others = [*not_streaming, *(["--agent-cmd"] if commands else [])]
            raise ConfigError(
                f"--stream yes: not for {', '.join(others)}; it asks {' and '.join(STREAMING)} to stream"
            )
        subjects = [builtin(name, args.cache_dir) for name in dict.fromkeys(chosen)]
        for number, template in enumerate(commands):
            name = names[number] if number < len(names) else f"agent-cmd-{number + 1}"
            command = CommandAgent(template, name=name, structured=args.agent_report == "structured")
            command.argv(_probe_setup(args.mcp_transport))  # a bad template is a usage error now, not per run
            subjects.append(command)
        if len({s.name for s in subjects}) != len(subjects):
            raise ConfigError("two subjects have the same name: give --agent-name")
        scenarios = select_scenarios(args.scenario)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    for subject in subjects:
        prepare = getattr(subject, "prepare", None)
        if prepare is not None:
            try:
                prepare(say)
            except ConfigError as error:
                print(f"error: {subject.name}: {error}", file=sys.stderr)
                return EXIT_USAGE
    listed = ", ".join(s.name for s in subjects)
    with _workdir(args.work_dir, "k8s-agent-contract-") as workdir:
        kept = f"; files in {workdir}" if args.work_dir else ""
        say(
            f"contract: {plural(len(scenarios), 'scenario')} x {plural(len(subjects), 'subject')} ({listed}){kept}"
        )
        try:
            report = asyncio.run(
                run_contract(
                    subjects,
                    scenarios,
                    workdir,
                    jobs=args.jobs,
                    progress=say,
                    transport=args.mcp_transport,
                    api=args.api,
                    stream=args.stream == "yes",
                )
            )
        except McpServerError as error:
            print(f"error: {error}", file=sys.stderr)
            return error.exit_code
    if args.work_dir is None:  # the temporary folder is gone: the report names no path in it
        report.forget_files()

    def rendered(kind: str) -> str:
        if kind == "json":
            import json

            return json.dumps(as_json(report), indent=2, ensure_ascii=False) + "\n"
        return html(report) if kind == "html" else markdown(report)

    status = emit(rendered, args.format, args.out or [], say)
    return status or (EXIT_FAILS if report.any_failed else EXIT_OK)


def _mutants(args: argparse.Namespace) -> int:
    """`k8s-agent contract --mutants`: the judge's mutation test."""
    import asyncio

    from k8s_agent.contract.mutation import mutation_json, render_table, run_mutation
    from k8s_agent.outputs import emit

    if args.subject or args.agent_cmd or args.scenario:
        print(
            "error: --mutants runs its own subjects on every scenario: drop --subject, --agent-cmd, --scenario",
            file=sys.stderr,
        )
        return EXIT_USAGE

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    with _workdir(args.work_dir, "k8s-agent-mutants-") as workdir:
        kept = f"; files in {workdir}" if args.work_dir else ""
        say(
            f"contract --mutants: the reference agent and its mutants on every scenario, --api {args.api}{kept}"
        )
        report = asyncio.run(run_mutation(workdir, jobs=max(1, args.jobs), progress=say, api=args.api))

    def rendered(kind: str) -> str:
        if kind == "json":
            import json

            return json.dumps(mutation_json(report), indent=2, ensure_ascii=False) + "\n"
        table = render_table(report)
        if kind == "html":
            from html import escape

            return (
                f"<!doctype html>\n<html lang='en'><meta charset='utf-8'><pre>{escape(table)}</pre></html>\n"
            )
        return table

    status = emit(rendered, args.format, args.out or [], say)
    return status or (EXIT_OK if report.passed else EXIT_FAILS)


def _probe_setup(transport: str = "stdio") -> Any:
    from k8s_agent.contract.launch import Setup

    if transport == "streamable-http":
        return Setup(
            "http://127.0.0.1:1/v1", "k", "m", (), "q", Path("."), mcp_url="http://127.0.0.1:1/mcp/x"
        )
    return Setup("http://127.0.0.1:1/v1", "k", "m", ("server",), "q", Path("."))


@contextlib.contextmanager
def _workdir(chosen: Path | None, prefix: str) -> Iterator[Path]:
    """The runs' files: in --work-dir, kept; else in a temporary folder removed at the end (also at
    Ctrl-C or an error)."""
    if chosen is not None:
        yield chosen
        return
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
