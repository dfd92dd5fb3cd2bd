"""`k8s-agent trace show FILE`, `k8s-agent trace replay FILE [--impl IMPL]` and `k8s-agent trace
export FILE`.

`show` prints a trace as the timeline the run's progress lines drew, with times, the counters
and the answer (`--full`: every model text and tool result too). `replay` plays the recorded
model responses against either implementation and reports the first divergence. `export` sends a
recorded run as the OpenTelemetry spans a live run sends, with the recorded times.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k8s_agent_harness.config import APIS
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl

if TYPE_CHECKING:
    from k8s_agent.replay import Replay
    from k8s_agent_harness.traces import events

EXIT_OK = 0
EXIT_NOT_SENT = 1
EXIT_USAGE = 2
EXIT_DIVERGED = 5

REPLAY_EPILOG = """\
The recorded model responses (each request's successful answer, with its tool-call ids and
argument strings; HTTP errors as errors) are served by a scripted model; the budgets are the
trace's. The MCP server is never the trace's: a trace is data, not a command. It is the embedded
mock cluster (with the recorded fixture and fault plan when the run was on the mock cluster, or
--cluster FILE), or the server you name with --mcp-command. The replay runs on the wire the trace
was recorded on (Chat Completions or the Responses API), or on the one --api names. Then the new
trace is compared with the recorded one, turn by turn: the tool outcomes and results, the
guardrails, what the model was asked and said, the number of requests, and how the run ended.
Times, bytes and tokens are not compared, nor tool_choice "auto" against an omitted tool_choice
(the one accepted wire difference between the implementations). Replayed on the other wire, each
request is compared as the Chat Completions request it amounts to (the Responses API's
instructions and input items read as messages): the change of wire is no divergence.

exit codes: 0 no divergence, 5 the replay diverged, 2 bad input
"""


LAST_HELP = (
    "a JSONL trace, or `last`: your newest `ask` run that has ended, in the trace folder (a run still "
    "going, or another user's, is not `last`)"
)


def register(commands: Any) -> None:
    """Add `trace show` and `trace replay` to the CLI's subcommands."""
    parser = commands.add_parser(
        "trace",
        help="show a run's trace as a timeline, or replay it",
        description="Show a run's JSONL trace as a timeline, or replay its model responses against an "
        "implementation to find where the run diverges.",
    )
    actions = parser.add_subparsers(dest="trace_action", metavar="ACTION", parser_class=type(parser))
    actions.required = True

    show = actions.add_parser("show", help="print a trace as a readable timeline")
    show.add_argument("file", help=LAST_HELP)
    show.add_argument("--trace-dir", metavar="DIR", help="the trace folder `last` looks in (default: ask's)")
    show.add_argument(
        "--full", action="store_true", help="also print every model text and tool result in full"
    )
    show.set_defaults(handler=cmd_show)

    replay = actions.add_parser(
        "replay",
        help="replay a trace's model responses against an implementation; report where it diverges",
        epilog=REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", help=LAST_HELP)
    replay.add_argument(
        "--impl",
        choices=[impl.value for impl in IMPLEMENTATIONS],
        help="the implementation to replay on (default: the one that wrote the trace)",
    )
    replay.add_argument(
        "--api",
        choices=APIS,
        help="the wire to replay on: chat (Chat Completions) or responses (the Responses API) "
        "(default: the one the trace was recorded on)",
    )
    replay.add_argument(
        "--cluster", type=Path, metavar="FILE", help="mock cluster fixture instead of the recorded one"
    )
    replay.add_argument("--mcp-command", help="an MCP server to replay against instead of the mock cluster")
    replay.add_argument(
        "--max-steps", type=whole_number, metavar="N", help="instead of the recorded step budget"
    )
    replay.add_argument(
        "--max-repeats", type=whole_number, metavar="N", help="instead of the recorded repeat budget"
    )
    replay.add_argument(
        "--trace-dir",
        metavar="DIR",
        help="the trace folder: `last` looks in it, the replay writes its trace below it (default: ask's)",
    )
    replay.add_argument(
        "--keep-traces",
        type=whole_number,
        metavar="N",
        help="replay folders (replay-TIME-...) the trace folder keeps: the newest N, 0 keeps every one "
        "(default: ask's, 500)",
    )
    replay.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    replay.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress lines on stderr (each stage, each step of the replay)",
    )
    replay.set_defaults(handler=cmd_replay)

    export = actions.add_parser(
        "export",
        help="send a recorded run to an OpenTelemetry receiver as GenAI spans",
        description="Send a recorded run (a trace of any schema version this k8s-agent reads) to an "
        "OTLP/HTTP receiver as the span tree a live run sends, with the recorded times (docs/traces.md).",
        epilog="exit codes: 0 sent, 1 the receiver did not take them, 2 bad input",
    )
    export.add_argument("file", help=LAST_HELP)
    export.add_argument(
        "--trace-dir", metavar="DIR", help="the trace folder `last` looks in (default: ask's)"
    )
    export.add_argument(
        "--otel-endpoint",
        metavar="URL",
        help="the OTLP/HTTP receiver (e.g. http://127.0.0.1:6006; /v1/traces is added); default: "
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT",
    )
    export.set_defaults(handler=cmd_export)


def trace_file(name: str, trace_dir: str | None) -> Path:
    """The trace a command names: a path, or `last`: of the run traces in the trace folder, the one
    of your own `ask` runs that ended last (its trace ends with `run_end`). A run still going (yours
    in another terminal, or a run that was killed before it could end its trace) and another user's
    run writing to the same folder are not `last`; a note on stderr says when newer traces were
    passed over, and why."""
    from k8s_agent_harness.config import trace_folder
    from k8s_agent_harness.traces.trace import run_traces

    if name != "last":
        return Path(name).expanduser()
    folder = trace_folder(trace_dir)
    traces = run_traces(folder)
    passed: dict[str, int] = {}
    for path in reversed(traces):
        why = _not_last(path)
        if why is None:
            if passed:
                skipped = "; ".join(f"{count} {why}" for why, count in passed.items())
                print(f"note: `last` is {path.name}; newer in {folder}: {skipped}", file=sys.stderr)
            return path
        passed[why] = passed.get(why, 0) + 1
    if not traces:
        raise ConfigError(
            f"no run traces in {folder} (`last` means your newest ask run there that has ended)"
        )
    skipped = "; ".join(f"{count} {why}" for why, count in passed.items())
    raise ConfigError(
        f"no trace in {folder} is of your own ask run that has ended ({skipped}): name a trace file instead"
    )


def _not_last(path: Path) -> str | None:
    """Why a run trace cannot be `last` (a phrase that follows a count), or None when it can."""
    try:
        if hasattr(os, "getuid") and path.stat().st_uid != os.getuid():
            return "of another user's run"
    except OSError:
        return "that could not be read"
    if not _started(path):
        return "of a run refused before it started"
    if not _ended(path):
        return "of a run that has not ended (still running, or stopped before it could end its trace)"
    return None


def _ended(path: Path) -> bool:
    """Whether the trace's last line is its `run_end` (read from the end of the file: a trace can be
    megabytes long). An unreadable file counts as ended: `trace show` says what is wrong with it."""
    block = 65536
    try:
        with path.open("rb") as trace:
            position = trace.seek(0, os.SEEK_END)
            line_start, at_end = 0, True
            while position > 0:  # back to the newline before the last line, a block at a time
                step = min(block, position)
                position -= step
                trace.seek(position)
                chunk = trace.read(step)
                if at_end:  # the newlines that end the file do not start its last line
                    chunk = chunk.rstrip(b"\n")
                    if not chunk:
                        continue
                    at_end = False
                newline = chunk.rfind(b"\n")
                if newline >= 0:
                    line_start = position + newline + 1
                    break
            trace.seek(line_start)
            start = trace.read(512)
    except OSError:
        return True
    return re.search(rb'"kind"\s*:\s*"run_end"', start) is not None


def _started(path: Path) -> bool:
    """Whether the trace is of a run that started: its run_start names the model. A trace folder
    may hold traces of refused runs, which earlier k8s-agent versions wrote: they are not `last`."""
    try:
        with path.open(encoding="utf-8", errors="replace") as trace:
            first = json.loads(trace.readline(65536) or "{}")
    except (OSError, ValueError, RecursionError):
        return True  # unreadable: `trace show` says why
    return not (isinstance(first, dict) and first.get("kind") == "run_start" and first.get("model") is None)


def read_trace_file(path: Path) -> events.Trace:
    """The trace in `path`, checked; ConfigError (exit 2) for anything that is not a readable trace,
    also a line of JSON nested too deep to parse (thousands of `[`), which Python's parser refuses
    with a RecursionError."""
    from k8s_agent_harness.traces.events import read_trace

    try:
        return read_trace(path)
    except RecursionError:
        raise ConfigError(f"{path} is not a readable trace: a line nests JSON values too deeply") from None


def whole_number(text: str) -> int:
    """An argparse type: `3`, and `1e3` or `10.0` (whole numbers written as floats)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if not number.is_integer():
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(number)


def mcp_command_words(command: str) -> tuple[str, ...]:
    """`--mcp-command` split as a shell would; ConfigError for an unterminated quote or nothing."""
    from k8s_agent_harness.config_load import command_words

    return command_words(command, "--mcp-command")


def cmd_show(args: argparse.Namespace) -> int:
    """`k8s-agent trace show FILE`."""
    try:
        trace = read_trace_file(trace_file(args.file, args.trace_dir))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(show(trace, full=args.full), end="")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """`k8s-agent trace export FILE`: the recorded run as spans, sent; one line says what went where."""
    from k8s_agent_harness.traces import otel

    try:
        settings = otel.OtelSettings.read(args.otel_endpoint, os.environ)
        if settings is None:
            raise ConfigError(
                "trace export needs a receiver: --otel-endpoint URL, or OTEL_EXPORTER_OTLP_ENDPOINT"
            )
        otel.require()
        trace = read_trace_file(trace_file(args.file, args.trace_dir))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    from k8s_agent_harness.printout import plural

    exporter = otel.Exporter(settings)
    exporter.builder().feed_all(trace)
    warning = exporter.finish()
    if warning is not None:
        print(warning, file=sys.stderr)
        return EXIT_NOT_SENT
    print(
        f"sent run {trace.start.run_id} ({trace.start.impl.value}): {plural(exporter.sent_spans, 'span')} to "
        f"{settings.shown_endpoint}"
    )
    return EXIT_OK


def show(trace: events.Trace, *, full: bool = False) -> str:
    """A trace as lines: time since start, then what happened (the progress printer's words)."""
    from k8s_agent.progress import ProgressPrinter
    from k8s_agent_harness.traces import events

    printer = ProgressPrinter()
    started = trace.start.ts
    lines = []
    shown_text: str | None = None  # the last model text --full printed
    for event in trace:
        stamp = f"+{event.ts - started:7.3f}s "
        indent = " " * len(stamp)
        line = printer.line(event)
        if isinstance(event, events.RunStart):
            lines.append(f"{stamp}{line}")
            lines.append(f"{indent}  trace {event.run_id} · started {event.started_at} · api {event.api}")
            over = {"streamable-http": " (Streamable HTTP)", "sse": " (SSE)"}.get(
                event.mcp_transport or "", ""
            )
            if event.mcp_command:
                lines.append(f"{indent}  MCP server: {' '.join(event.mcp_command)}{over}")
            elif event.mcp_url:
                lines.append(f"{indent}  MCP server: {event.mcp_url}{over or ' (Streamable HTTP, else SSE)'}")
            if event.budgets:
                budgets = ", ".join(f"{k} {v}" for k, v in event.budgets.items())
                lines.append(f"{indent}  budgets: {budgets}")
            continue
        if isinstance(event, events.RunEnd):
            lines += _end_lines(
                event, stamp, already_shown=event.answer is not None and event.answer == shown_text
            )
            continue
        if isinstance(event, events.HarnessWarning):  # live, the run printed it on stderr itself
            line = f"  warning: {event.message}"
        if line:
            lines.append(stamp + line)
        if full:
            lines += _details(event, " " * (len(stamp) + 6))
            if isinstance(event, events.ModelResponse) and event.text:
                shown_text = event.text
    from k8s_agent_harness.evidence.redact import printable

    return printable("\n".join(lines) + "\n")  # a trace holds what tools returned: no terminal escapes


def _details(event: events.Event, indent: str) -> list[str]:
    from k8s_agent_harness.traces import events

    text = ""
    if isinstance(event, events.ModelResponse) and event.text:
        text = event.text
    elif isinstance(event, events.ModelResponse):
        text = "\n".join(f"{c.id}: {c.name}({c.arguments})" for c in event.tool_calls)
    elif isinstance(event, events.ToolCall):
        text = event.result
    elif isinstance(event, events.GuardrailFired) and event.message:
        text = event.message
    elif isinstance(event, events.ReportChecked):
        from k8s_agent.timeline import report_fact

        text = report_fact(event)
    return [indent + line for line in text.splitlines()]


def _end_lines(event: events.RunEnd, stamp: str, *, already_shown: bool) -> list[str]:
    from k8s_agent_harness.printout import plural

    counts = event.counts
    if event.status != "ok":
        head = f"run failed after {event.wall_seconds} s: {event.error_type}: {event.error}"
    else:
        head = f"run ended ok after {event.wall_seconds} s"
    summary = (
        f"{plural(counts.model_requests, 'request')}, "
        f"{plural(counts.tool_calls_executed, 'tool call')} executed, "
        f"{counts.tool_calls_rejected} rejected, {plural(counts.pushbacks, 'pushback')}, "
        f"forced summary: {counts.forced_summary_reason or 'no'}, "
        f"{counts.prompt_tokens}+{counts.completion_tokens} tokens, "
        f"{plural(counts.bytes_sent, 'byte')} sent"
    )
    lines = [f"{stamp}{head}", " " * len(stamp) + summary]
    if event.ungrounded_names:
        lines.append(" " * len(stamp) + "ungrounded names: " + ", ".join(event.ungrounded_names))
    if event.answer is not None and already_shown:
        lines.append("answer: the model's last text, above")
    elif event.answer is not None:
        lines.append("answer:")
        lines += ["  " + line for line in event.answer.splitlines()]
    return lines


def cmd_replay(args: argparse.Namespace) -> int:
    """`k8s-agent trace replay FILE [--impl IMPL]`: progress on stderr as it goes (what it does, then
    each step of the replayed run, as `ask` shows them), the verdict on stdout."""
    import asyncio
    import tempfile
    import time

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    try:
        if args.cluster is not None and args.mcp_command:
            raise ConfigError(
                "--cluster selects a mock cluster fixture; it cannot be combined with --mcp-command"
            )
        for name in ("max_steps", "max_repeats"):
            if getattr(args, name) is not None and getattr(args, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
        if args.keep_traces is not None and args.keep_traces < 0:
            raise ConfigError("--keep-traces must be 0 or more")
        mcp_command = mcp_command_words(args.mcp_command) if args.mcp_command is not None else ()
        source = trace_file(args.file, args.trace_dir)
        trace = read_trace_file(source)  # before any folder is made: is it a trace at all?
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    say(
        f"trace {source}: recorded by the {trace.start.impl.value} agent, {_requests_recorded(trace)} on "
        f"the {trace.start.api} API; loading the agent"
    )
    from k8s_agent.progress import ProgressPrinter
    from k8s_agent.replay import replay
    from k8s_agent_harness.config import Config, trace_folder
    from k8s_agent_harness.evidence.redact import json_printable, printable
    from k8s_agent_harness.traces.private import private_dirs
    from k8s_agent_harness.traces.trace import prune_folders

    observer = None if args.quiet else ProgressPrinter()
    try:
        impl: Impl = Impl(args.impl) if args.impl else trace.start.impl
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        folder = trace_folder(args.trace_dir)
        try:
            private_dirs(folder)
        except OSError as error:
            raise ConfigError(f"cannot create the trace folder {folder}: {error.strerror or error}") from None
        workdir = Path(tempfile.mkdtemp(prefix=f"replay-{stamp}-{impl.value}-", dir=folder))
        try:
            result = asyncio.run(
                replay(
                    trace,
                    impl,
                    workdir,
                    cluster=args.cluster,
                    mcp_command=mcp_command,
                    budgets={"max_steps": args.max_steps, "max_repeats": args.max_repeats},
                    api=args.api,
                    observer=observer,
                    say=say,
                )
            )
        finally:  # the newest replays stay, as `ask` keeps its newest traces
            if observer is not None:
                observer.close()
            keep = Config.keep_traces if args.keep_traces is None else args.keep_traces
            prune_folders(folder, "replay-", keep, current=workdir)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    for note in result.notes:
        print(printable(f"note: {note}"), file=sys.stderr)
    if args.json:
        print(json_printable(json.dumps(replay_json(result, source), indent=2, ensure_ascii=False)))
    else:
        print(printable(replay_report(result, source)))  # a divergence quotes what tools returned
    return EXIT_DIVERGED if result.divergence else EXIT_OK


def _requests_recorded(trace: events.Trace) -> str:
    from k8s_agent_harness.printout import plural
    from k8s_agent_harness.traces import events

    first = sum(1 for event in trace if isinstance(event, events.ModelRequest) and event.attempt == 1)
    return plural(first, "model request")


def replay_json(result: Replay, source: Path) -> dict[str, Any]:
    """The replay as one JSON object (`trace replay --json`)."""
    divergence = result.divergence
    return {
        "trace": str(source),
        "recorded_impl": result.recorded.start.impl,
        "impl": result.impl,
        "recorded_api": result.recorded.start.api,
        "api": result.api,
        "replay_trace": str(result.replay_trace) if result.replay_trace else None,
        "mcp_command": list(result.mcp_command),
        "notes": list(result.notes),
        "settings": result.settings,
        "diverged": divergence is not None,
        "divergence": None
        if divergence is None
        else {
            "step": divergence.step,
            "what": divergence.what,
            "recorded": divergence.recorded,
            "replayed": divergence.replayed,
        },
        "invariants": {check.name: check.held for check in result.checks},
        "recorded_invariants": {check.name: check.held for check in result.recorded_checks},
        "script_problems": result.script_problems,
    }


def replay_report(result: Replay, source: Path) -> str:
    """The replay in a few lines: what ran, the invariants, and the verdict."""
    from k8s_agent.timeline import timeline
    from k8s_agent_harness.printout import plural

    before, after = timeline(result.recorded.events), timeline(result.replayed)
    budgets = ", ".join(f"{k} {v}" for k, v in result.settings.items() if k not in ("model", "api"))
    recorded_api = result.recorded.start.api
    wire = (
        f"  api: {result.api}, recorded on {recorded_api}: each request compared as the Chat Completions "
        "request it amounts to"
        if result.across_wires
        else f"  api: {result.api}, as recorded"
    )
    broken, broken_before = (
        [f"{c.name} ({c.detail})" for c in checks if c.held is False and c.name != "script_played_exactly"]
        for checks in (result.checks, result.recorded_checks)
    )
    lines = [
        f"replay of {source} ({before.start.impl}, {plural(len(before.turns), 'request')}, {before.status}) "
        f"on {result.impl}: {plural(len(after.turns), 'request')}, {after.status}",
        wire,
        f"  budgets: {budgets}",
        f"  MCP server: {' '.join(result.mcp_command)}",
        f"  replay trace: {result.replay_trace}",
        "  contract invariants: " + ("held" if not broken else "BROKEN: " + "; ".join(broken)),
        "  contract invariants of the recording: "
        + ("held" if not broken_before else "BROKEN: " + "; ".join(broken_before)),
    ]
    if result.divergence is None:
        lines.append(
            "no divergence: same requests, tool outcomes and results, guardrails and answer"
            if after.status == "ok"
            else "no divergence: the replay failed the same way"
        )
    else:
        lines.append("DIVERGED at " + result.divergence.describe())
    return "\n".join(lines)
