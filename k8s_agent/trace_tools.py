"""`k8s-agent trace show FILE` and `k8s-agent trace replay FILE --impl IMPL`.

`show` prints a trace as the timeline the run's progress lines drew, with times, the counters
and the answer (`--full`: every model text and tool result too). `replay` plays the recorded
model responses against either implementation and reports the first divergence.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.config import IMPLEMENTATIONS
from harness.errors import ConfigError

if TYPE_CHECKING:
    from harness.trace import Event
    from k8s_agent.replay import Replay

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_DIVERGED = 5

REPLAY_EPILOG = """\
The recorded model responses (each request's successful answer, with its tool-call ids and
argument strings; HTTP errors as errors) are served by a scripted model; the budgets are the
trace's, and so is the MCP server (a recorded mock cluster runs again with its fixture and
fault plan). Then the new trace is compared with the recorded one, turn by turn: the tool
outcomes and results, the guardrails, what the model was asked and said, the number of requests,
and how the run ended. Times, bytes and tokens are not compared, nor tool_choice "auto" against
an omitted tool_choice (the one accepted wire difference between the implementations).

exit codes: 0 no divergence, 5 the replay diverged, 2 bad input
"""


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
    show.add_argument("file", type=Path, help="a JSONL trace (traces/*.jsonl)")
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
    replay.add_argument("file", type=Path, help="a JSONL trace (traces/*.jsonl)")
    replay.add_argument(
        "--impl", choices=IMPLEMENTATIONS, required=True, help="the implementation to replay on"
    )
    replay.add_argument("--cluster", type=Path, help="mock cluster fixture instead of the recorded one")
    replay.add_argument("--mcp-command", help="MCP server command instead of the recorded one")
    replay.add_argument("--max-steps", type=int, help="instead of the recorded step budget")
    replay.add_argument("--max-repeats", type=int, help="instead of the recorded repeat budget")
    replay.add_argument(
        "--trace-dir", type=Path, default=Path("traces"), help="folder for the replay's trace"
    )
    replay.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    replay.set_defaults(handler=cmd_replay)


def read_trace(path: Path) -> list[Event]:
    """The events of a trace file; a line that is not JSON (a run killed mid-write) is skipped."""

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read trace {path}: {error.strerror or error}") from error
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            print(f"warning: {path}:{number} is not JSON; skipped", file=sys.stderr)
            continue
        if isinstance(event, dict) and "kind" in event:
            events.append(event)
    if not events:
        raise ConfigError(f"{path} holds no trace events")
    return events


def cmd_show(args: argparse.Namespace) -> int:
    """`k8s-agent trace show FILE`."""

    try:
        events = read_trace(args.file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(show(events, full=args.full), end="")
    return EXIT_OK


def show(events: list[Event], *, full: bool = False) -> str:
    """A trace as lines: time since start, then what happened (the progress printer's words)."""
    from k8s_agent.progress import ProgressPrinter

    printer = ProgressPrinter()
    started = float(events[0].get("ts") or 0.0)
    lines = []
    for event in events:
        stamp = f"+{float(event.get('ts') or started) - started:7.3f}s "
        kind = event["kind"]
        line = printer.line(event)
        if kind == "run_start":
            lines.append(f"{stamp}{line}")
            lines.append(
                " " * len(stamp) + f"  trace {event.get('run_id')} · started {event.get('started_at')}"
            )
            if event.get("mcp_command"):
                lines.append(" " * len(stamp) + f"  MCP server: {' '.join(event['mcp_command'])}")
            if event.get("budgets"):
                budgets = ", ".join(f"{k} {v}" for k, v in event["budgets"].items())
                lines.append(" " * len(stamp) + f"  budgets: {budgets}")
            continue
        if kind == "run_end":
            lines += _end_lines(event, stamp)
            continue
        if line:
            lines.append(stamp + line)
        if full:
            lines += _details(event, " " * (len(stamp) + 6))
    return "\n".join(lines) + "\n"


def _details(event: Event, indent: str) -> list[str]:
    kind = event["kind"]
    text = ""
    if kind == "model_response" and event.get("text"):
        text = str(event["text"])
    elif kind == "model_response":
        text = "\n".join(
            f"{c.get('id')}: {c.get('name')}({c.get('arguments')})" for c in event.get("tool_calls") or []
        )
    elif kind == "tool_call":
        text = str(event.get("result") or "")
    elif kind == "guardrail" and event.get("message"):
        text = str(event["message"])
    return [indent + line for line in text.splitlines()]


def _end_lines(event: Event, stamp: str) -> list[str]:
    counts = event.get("counts") or {}
    wall = event.get("wall_seconds")
    if event.get("status") != "ok":
        head = f"run failed after {wall} s: {event.get('error_type')}: {event.get('error')}"
    else:
        head = f"run ended ok after {wall} s"
    summary = (
        f"{counts.get('model_requests', 0)} requests, {counts.get('tool_calls_executed', 0)} tool calls executed, "
        f"{counts.get('tool_calls_rejected', 0)} rejected, {counts.get('pushbacks', 0)} pushbacks, "
        f"forced summary: {counts.get('forced_summary_reason') or 'no'}, "
        f"{counts.get('prompt_tokens', 0)}+{counts.get('completion_tokens', 0)} tokens, "
        f"{counts.get('bytes_sent', 0)} bytes sent"
    )
    lines = [f"{stamp}{head}", " " * len(stamp) + summary]
    if event.get("ungrounded_names"):
        lines.append(" " * len(stamp) + "ungrounded names: " + ", ".join(event["ungrounded_names"]))
    if event.get("answer") is not None:
        lines.append("answer:")
        lines += ["  " + line for line in str(event["answer"]).splitlines()]
    return lines


def cmd_replay(args: argparse.Namespace) -> int:
    """`k8s-agent trace replay FILE --impl IMPL`."""
    import asyncio
    import shlex
    import tempfile
    import time

    from k8s_agent.replay import replay, run_start

    try:
        events = read_trace(args.file)
        run_start(events)  # before any folder is made: is it replayable at all?
        if args.cluster is not None and args.mcp_command:
            raise ConfigError(
                "--cluster selects a mock cluster fixture; it cannot be combined with --mcp-command"
            )
        if args.cluster is not None and not args.cluster.is_file():
            raise ConfigError(f"cluster fixture not found: {args.cluster}")
        for name in ("max_steps", "max_repeats"):
            if getattr(args, name) is not None and getattr(args, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        args.trace_dir.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix=f"replay-{stamp}-{args.impl}-", dir=args.trace_dir))
        result = asyncio.run(
            replay(
                events,
                args.impl,
                workdir,
                cluster=args.cluster,
                mcp_command=tuple(shlex.split(args.mcp_command)) if args.mcp_command else (),
                budgets={"max_steps": args.max_steps, "max_repeats": args.max_repeats},
            )
        )
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(replay_json(result, args.file), indent=2, ensure_ascii=False))
    else:
        print(replay_report(result, args.file))
    return EXIT_DIVERGED if result.divergence else EXIT_OK


def replay_json(result: Replay, source: Path) -> dict[str, Any]:
    """The replay as one JSON object (`trace replay --json`)."""
    divergence = result.divergence
    return {
        "trace": str(source),
        "recorded_impl": result.recorded[0].get("impl"),
        "impl": result.impl,
        "replay_trace": str(result.replay_trace) if result.replay_trace else None,
        "mcp_command": list(result.mcp_command),
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
        "script_problems": result.script_problems,
    }


def replay_report(result: Replay, source: Path) -> str:
    """The replay in a few lines: what ran, the invariants, and the verdict."""
    from k8s_agent.timeline import timeline

    before, after = timeline(result.recorded), timeline(result.replayed)
    budgets = ", ".join(f"{k} {v}" for k, v in result.settings.items() if k != "model")
    broken = [
        f"{c.name} ({c.detail})"
        for c in result.checks
        if c.held is False and c.name != "script_played_exactly"
    ]
    lines = [
        f"replay of {source} ({before.start.get('impl')}, {len(before.turns)} requests, {before.status}) "
        f"on {result.impl}: {len(after.turns)} requests, {after.status}",
        f"  budgets: {budgets}",
        f"  MCP server: {' '.join(result.mcp_command)}",
        f"  replay trace: {result.replay_trace}",
        "  contract invariants: " + ("held" if not broken else "BROKEN: " + "; ".join(broken)),
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
