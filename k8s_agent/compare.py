"""`k8s-agent compare`: two sides do the same work, side by side.

A side is an implementation on a wire: by default the hand-written loop and the SDK port, both on
`--api`; `--side IMPL[:API]`, given twice, picks any other pair (`handwritten:chat` vs
`sdk:responses`, `sdk:chat` vs `sdk:responses`). Two modes. The scenario library (every contract
misbehaviour as a scripted model, the offline model on the default fixture, and any `--cluster`
fixture) runs each scenario once per side against the mock cluster. With `--question`, one
question runs `--repeat` times per side against the configured endpoint (or the offline model),
and each metric is reported as a median and a range.

Start-up stays light: the CLI imports this module to register the command; the runs
(`compare_runs`), the agents and the renderers load in the handler.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k8s_agent.cli import add_run_options, config_from
from k8s_agent.outputs import add_output_flags
from k8s_agent_harness.config import BUDGET_SETTINGS, CLUSTER, MODEL, SETTINGS, flag_of, trace_folder
from k8s_agent_harness.config_load import checked_settings
from k8s_agent_harness.errors import ConfigError

if TYPE_CHECKING:
    from k8s_agent.compare_report import Comparison, Side
    from k8s_agent.compare_runs import Progress

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_BROKEN = 5
"""A run failed or broke a contract invariant."""

DEFAULT_JOBS = 2
"""Scenario runs at a time: both sides of one scenario run together, so they share the load."""

ENDPOINT_SETTINGS = tuple(
    name
    for name, setting in SETTINGS.items()
    if setting.group in (MODEL, CLUSTER) and name not in ("cluster", "api", "stream")
)
"""Settings that only a `--question` comparison uses: the scenario library brings its own model and
cluster (`--api`, `--stream` and `--cluster` apply to it too)."""

EPILOG = """\
modes:
  k8s-agent compare                      every built-in scenario, both implementations (scripted models,
                                         the offline model, the mock cluster: no key, no network)
  k8s-agent compare list                 the scenarios, one line each
  k8s-agent compare --cluster FILE       ... plus the offline model on that fixture (scenario cluster-NAME)
  k8s-agent compare --question Q --repeat N --base-url URL --model M
                                         one question N times per side on a real endpoint
                                         (against the mock cluster or --mcp-command): median [min-max]

sides (any mode): an implementation (handwritten, sdk) on a wire (chat, responses)
  k8s-agent compare                      handwritten vs sdk, both on --api (default chat)
  k8s-agent compare --api responses      handwritten vs sdk, both on the Responses API
  k8s-agent compare --side handwritten:chat --side sdk:responses
                                         the hand-written loop on Chat vs the SDK on its default wire
  k8s-agent compare --side sdk:chat --side sdk:responses
                                         what changes when the SDK keeps its default wire
  --side is given twice, first side first; IMPL alone is IMPL on the --api wire. Bytes and tokens
  differ by wire (costs); differences in behaviour (requests, tool calls, outcomes, guardrails,
  answers) are listed. In the scenario library --api and --side come from the command line only,
  like the budgets (the environment and .env choose a wire for --question runs and for ask).
  k8s-agent compare --stream yes         both sides ask for streamed answers (the scripted models
                                         stream them): the same rows as without it

Budget flags apply to every scenario except where a scenario sets its own (c4: max-repeats,
c7: max-steps). Traces of every run are kept in a compare-TIME-... folder of the trace folder
(--trace-dir, default ask's: ~/.local/state/k8s-agent/traces); the newest --keep-traces such folders
stay.

exit codes: 0 every run kept the contract, 5 a run failed or broke a contract invariant,
            2 bad input or configuration
"""


def register(commands: Any) -> None:
    """Add `compare` to the CLI's subcommands."""
    parser = commands.add_parser(
        "compare",
        help="run both implementations (or any two sides IMPL:API) side by side and compare them",
        description="Run two sides on the same work and compare outcome, contract invariants, requests, "
        "tool calls, tokens, bytes and time. A side is an implementation on a wire; by default the "
        "hand-written and the SDK implementation, both on --api.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "action", nargs="?", choices=("run", "list"), default="run", help="list: the scenarios, one line each"
    )
    parser.add_argument(
        "--scenario", action="append", metavar="NAME", help="run only this scenario (repeatable)"
    )
    add_output_flags(parser)  # as `contract` and `eval`: --format is stdout's, each --out file its suffix's
    parser.add_argument(
        "--jobs", type=int, help=f"runs at a time (default {DEFAULT_JOBS} for scenarios, 1 for --question)"
    )
    parser.add_argument("--question", help="compare on this question instead of the scenario library")
    parser.add_argument("--repeat", type=int, help="runs per side with --question (default 3)")
    parser.add_argument(
        "--side",
        action="append",
        metavar="IMPL[:API]",
        help="one side of the comparison: an implementation (handwritten, sdk) on a wire (chat, "
        "responses; default --api); give it twice, first side first. Default: handwritten and sdk, "
        "both on --api",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    add_run_options(
        parser,
        skip=("impl",),
        notes={MODEL: "with --question; --api, --stream: any mode", CLUSTER: "--cluster: any mode"},
    )
    # Not in --help (compare runs two sides), but named in the error when given.
    parser.add_argument("--impl", help=argparse.SUPPRESS)
    parser.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """`k8s-agent compare [list]`."""
    try:
        if args.impl:
            raise ConfigError(
                "compare always runs two sides, both implementations by default: drop --impl "
                "(to pick the sides: --side IMPL[:API], twice)"
            )
        for out in args.out or []:
            check_out(out)
        if args.question is None:
            return _compare_scenarios(args)
        return _compare_question(args)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _compare_scenarios(args: argparse.Namespace) -> int:
    from k8s_agent.compare_runs import Progress, listing, run_comparison, select_cases
    from k8s_agent_harness.printout import plural

    given = [flag_of(name) for name in ENDPOINT_SETTINGS if getattr(args, name, None)]
    if given or args.repeat is not None:
        raise ConfigError(
            f"{', '.join(given) or '--repeat'} needs --question: the scenario library runs scripted "
            "models against the mock cluster"
        )
    cases = select_cases(Path(args.cluster).expanduser() if args.cluster else None, args.scenario)
    api = checked_settings({"api": args.api})["api"] if args.api is not None else "chat"
    pair = _sides(args.side, api)
    if args.action == "list":
        for line in listing(cases):
            print(line)
        return EXIT_OK
    jobs = _jobs(args.jobs, DEFAULT_JOBS)
    settings = checked_settings(
        {
            name: getattr(args, name)
            for name in (*BUDGET_SETTINGS, "stream")
            if getattr(args, name, None) is not None
        }
    )
    keep = checked_settings({"keep_traces": args.keep_traces})["keep_traces"] if args.keep_traces else None
    root = _run_folder(args.trace_dir)
    progress = Progress(len(cases) * len(pair), quiet=args.quiet)
    progress.say(
        f"compare {_describe(pair)}: {plural(len(cases), 'scenario')}, {jobs} at a time; traces in {root}"
    )
    try:
        comparison = run_comparison(cases, root, jobs=jobs, settings=settings, progress=progress, sides=pair)
    finally:
        _prune(root, keep)
    return _emit(comparison, args, progress)


def _compare_question(args: argparse.Namespace) -> int:
    from k8s_agent.compare_runs import Progress, run_repeated

    if args.action == "list":
        raise ConfigError("compare list shows the scenario library; it takes no --question")
    if args.scenario:
        raise ConfigError(
            "--scenario selects from the scenario library; it cannot be combined with --question"
        )
    repeat = 3 if args.repeat is None else args.repeat
    if repeat < 1:
        raise ConfigError("--repeat must be at least 1")
    config = config_from(args)
    pair = _sides(args.side, config.api)
    jobs = _jobs(args.jobs, 1)
    root = _run_folder(config.trace_dir)
    progress = Progress(repeat * len(pair), quiet=args.quiet)
    progress.say(
        f"compare {_describe(pair)}: {args.question!r} x {repeat} per side, model {config.model}, "
        f"{jobs} at a time; traces in {root}"
    )
    try:
        comparison = run_repeated(
            args.question, config, repeat, root, jobs=jobs, progress=progress, sides=pair
        )
    finally:
        _prune(root, config.keep_traces)
    return _emit(comparison, args, progress)


def _sides(given: list[str] | None, api: str) -> tuple[Side, ...]:
    """The two sides: each `--side IMPL[:API]` (API defaults to `api`), or both implementations on `api`."""
    from k8s_agent.compare_report import parse_side, sides

    if not given:
        return sides(api=api)
    return sides([parse_side(text, api) for text in given])


def _describe(pair: tuple[Side, ...]) -> str:
    from k8s_agent.compare_report import describe_sides

    return describe_sides(pair)


def _prune(root: Path, keep: int | None) -> None:
    """Keep the newest comparisons' folders in the trace folder (--keep-traces, as `ask` does its
    traces); this one stays."""
    from k8s_agent_harness.config import Config
    from k8s_agent_harness.traces.trace import prune_folders

    prune_folders(root.parent, "compare-", Config.keep_traces if keep is None else keep, current=root)


def check_out(out: Path | None) -> None:
    """Before any run: the report can be written where --out says (its folder made if need be, 0700)."""
    from k8s_agent_harness.traces.private import private_dirs

    if out is None:
        return
    try:
        private_dirs(out.parent)
    except OSError as error:
        raise ConfigError(f"cannot write the report to {out}: {error.strerror or error}") from None
    if out.is_dir() or not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ConfigError(f"cannot write the report to {out}: not a writable file")


def _jobs(flag: int | None, default: int) -> int:
    if flag is not None and flag < 1:
        raise ConfigError("--jobs must be at least 1")
    return flag or default


def _run_folder(trace_dir: str | Path | None) -> Path:
    """A new folder for this comparison's traces and call logs, named after its start time."""
    import tempfile
    import time

    from k8s_agent_harness.traces.private import private_dirs

    folder = trace_folder(trace_dir)
    try:
        private_dirs(folder)
    except OSError as error:
        raise ConfigError(f"cannot create the trace folder {folder}: {error.strerror or error}") from None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Path(tempfile.mkdtemp(prefix=f"compare-{stamp}-", dir=folder))


def _emit(comparison: Comparison, args: argparse.Namespace, progress: Progress) -> int:
    """Write the report where asked, as `contract` and `eval` do (k8s_agent/outputs.py): each `--out`
    file in the format its suffix names (0600: it quotes what the cluster showed), then stdout in
    `--format` (md unless told), whatever happened to the files. The exit code says whether every
    run kept the contract (2 when a file could not be written)."""
    import functools

    from k8s_agent.outputs import emit
    from k8s_agent.uptime import command_seconds
    from k8s_agent_harness.printout import plural

    @functools.cache
    def rendered(fmt: str) -> str:
        text = render(comparison, fmt)
        return text if text.endswith("\n") else text + "\n"

    if emit(rendered, args.format, args.out or [], progress.say) is not None:
        return EXIT_USAGE
    broken = [
        run
        for row in comparison.rows
        for run in row.runs.values()
        if run.metrics["status"] != "ok" or not run.metrics["invariants_held"]
    ]
    # What the user waited: the runs, and the loading before them and the report after them.
    progress.say(
        f"done in {max(command_seconds(), comparison.wall_seconds):.1f} s (the runs took "
        f"{comparison.wall_seconds:.1f} s)"
        + (f"; {plural(len(broken), 'run')} failed or broke the contract" if broken else "")
    )
    return EXIT_BROKEN if broken else EXIT_OK


def render(comparison: Comparison, fmt: str) -> str:
    """The comparison as markdown, JSON or a self-contained HTML page."""
    if fmt == "json":
        import json

        from k8s_agent.compare_report import to_json

        return json.dumps(to_json(comparison), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        from k8s_agent.compare_html import html_report

        return html_report(comparison)
    from k8s_agent.compare_report import markdown

    return markdown(comparison)
