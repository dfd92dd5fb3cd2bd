"""`k8s-agent probe` (and `python -m poc`): run the probes here, or across SDK versions.

    python -m poc                      table: probe, observed value, verdict; then the scorecard
    python -m poc --json               one object: versions and every probe's observations
    python -m poc --versions 0.18.3 0.24.0
                                       build (and cache) a venv per version, probe each, print the
                                       version matrix and the scorecards

Importing this module imports no SDK code: `run` does, so the main CLI starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Probe the installed OpenAI Agents SDK (openai-agents) against a scripted model on loopback:
no API key, no network, tracing disabled. Each probe records the wire (request bodies) and the
SDK's return values, and a verdict relative to what the SDK port relies on.
"""

EPILOG = """\
Every probe runs on both wires (--wire): the Chat Completions model and the Responses model, against
  the same scripted server and script; the table shows both and marks where they differ.
--scorecard-md prints the scorecard of the first --wire (chat unless told).
--versions builds one virtual environment per SDK version (needs the package registry) under
  ${K8S_AGENT_CACHE:-~/.cache/k8s-agent}/sdk-venvs/, finds the openai release each one works with
  by probing, caches both, and runs the probes there in a subprocess. A version that cannot be
  installed or probed is a column saying why, its half-built environment is removed, and the exit
  status is 5 (0 when every version was probed).
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `probe` command to a subparsers object (`parser.add_subparsers()`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "probe",
        help="probe the OpenAI Agents SDK's behaviour (installed version, or several)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The probe command's flags."""
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--only", nargs="+", metavar="PROBE", default=[], help="run only these probes")
    parser.add_argument(
        "--wire",
        nargs="+",
        choices=("chat", "responses"),
        default=["chat", "responses"],
        help="the SDK models to probe: chat (OpenAIChatCompletionsModel), responses (OpenAIResponsesModel,"
        " the SDK's default); default both",
    )
    parser.add_argument(
        "--versions",
        nargs="+",
        metavar="VERSION",
        help="openai-agents versions to build and probe side by side (e.g. 0.18.3 0.22.3 0.24.0)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="cache root (default: $K8S_AGENT_CACHE or ~/.cache/k8s-agent)"
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="with --versions: forget cached venvs and openai findings"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--scorecard-md", action="store_true", help="print only the migration scorecard, as a markdown table"
    )


def run(args: argparse.Namespace) -> int:
    """Run the command: probe here, or build and probe each of --versions. Returns the exit code."""
    if args.versions:
        return _run_versions(args)
    # Imported here: the probes import the SDK, which the rest of the CLI must not pay for.
    from poc.probes import PROBES
    from poc.render import probe_table
    from poc.report import collect

    known = [probe.name for probe in PROBES]
    unknown = sorted(set(args.only) - set(known))
    if unknown:
        import difflib

        close = [difflib.get_close_matches(name, known, n=1) for name in unknown]
        hints = "".join(f"; did you mean {match[0]!r}?" for match in close if match)
        print(
            f"error: unknown {'probe' if len(unknown) == 1 else 'probes'} {', '.join(unknown)}; known: "
            f"{', '.join(known)}{hints}",
            file=sys.stderr,
        )
        return 2
    _disable_tracing()
    report = collect(args.only, tuple(dict.fromkeys(args.wire)))
    if args.scorecard_md:
        from poc.render import scorecard_markdown
        from poc.report import observations_of
        from poc.scorecard import scorecard

        first = next(iter(report["wires"].values()))
        print(scorecard_markdown(scorecard(observations_of(first["probes"]))))
        return 0
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else probe_table(report))
    return 0


def _run_versions(args: argparse.Namespace) -> int:
    from poc.matrix import MatrixConfig, run_matrix

    cache = args.cache_dir or Path(os.environ.get("K8S_AGENT_CACHE") or Path.home() / ".cache" / "k8s-agent")
    config = MatrixConfig(
        versions=tuple(args.versions),
        cache_dir=Path(cache).expanduser() / "sdk-venvs",
        rebuild=args.rebuild,
        quiet=args.quiet,
        environ=dict(os.environ),
    )
    return run_matrix(config, as_json=args.json)


def _disable_tracing() -> None:
    """Never upload: every probe run also says tracing_disabled, this covers anything else."""
    from agents import set_tracing_disabled

    set_tracing_disabled(True)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m poc`."""
    parser = argparse.ArgumentParser(
        prog="python -m poc",
        allow_abbrev=False,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
