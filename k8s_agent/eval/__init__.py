"""`k8s-agent eval`: the graded incident corpus, run and scored per implementation and per model.

The CLI imports this module to register the command; the corpus, runs and reports load in the handlers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from k8s_agent.outputs import add_output_flags
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces.private import write_private

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_RUNS_FAILED = 5
"""Some investigation ended in an error (its record says which); the scores are still written."""

DEFAULT_RESULTS = Path("eval-results.jsonl")
DEFAULT_CONCURRENCY = 4

EPILOG = """\
examples:
  k8s-agent eval                                   the whole corpus, both implementations, offline model
                                                   (and the baselines, as in every eval: --no-baselines)
  k8s-agent eval --incident 'pending-*' --repeat 3 --out eval.html
  k8s-agent eval --model gpt-4o-mini --repeat 5 --concurrency 8 --results gpt.jsonl --out gpt.html
                                                   a real model (OPENAI_API_KEY, OPENAI_BASE_URL or the flags)
  k8s-agent eval --cluster-server kubernetes-mcp-server
                                                   the corpus through kubernetes-mcp-server's tools
  k8s-agent eval --shard 2/4 --results part2.jsonl one quarter of the corpus (CI jobs, machines)
  k8s-agent eval merge part*.jsonl --out all.jsonl then: k8s-agent eval report all.jsonl --out all.html
  k8s-agent eval list                              the incidents, one line each

Results append to --results (default eval-results.jsonl), one line per finished run; --resume
continues an interrupted eval where it stopped, --fresh replaces the file. A 429 from the endpoint
pauses every run for its Retry-After. Traces of every run go to --traces (default: RESULTS-traces/).
Each incident's cluster is one MCP server shared by all its runs (--server-per-run: one per run).

exit codes: 0 done, 5 some run ended in an error (scored as failed), 2 bad input, 130 interrupted
"""


def _listed(values: list[str] | None, default: list[str]) -> list[str]:
    found = [part.strip() for value in values or [] for part in value.split(",") if part.strip()]
    return list(dict.fromkeys(found)) or default


def register(commands: Any) -> None:
    """Add `eval` (and eval list / merge / report) to the CLI's subcommands."""
    from k8s_agent.cli import add_run_options
    from k8s_agent_harness.config import CLUSTER, SETTINGS

    parser = commands.add_parser(
        "eval",
        help="run the graded incident corpus and score each implementation and model",
        description="Investigate every incident of the graded corpus with each implementation and model, "
        "score each report against the incident's truth (resources found, cause, evidence quoted), and "
        "report the scores with confidence intervals and the paired comparison of the implementations.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="eval_action", metavar="[list | merge | report]")
    listing = actions.add_parser("list", help="the incidents, one line each")
    listing.add_argument("--corpus", type=Path, help="a corpus folder (default: the shipped one)")
    listing.add_argument("--incident", action="append", metavar="PATTERN")
    listing.set_defaults(handler=cmd_list)
    merging = actions.add_parser("merge", help="join results files (shards) into one")
    merging.add_argument("files", nargs="+", type=Path, metavar="RESULTS")
    merging.add_argument("--out", type=Path, required=True, help="the merged results file")
    merging.set_defaults(handler=cmd_merge)
    reporting = actions.add_parser(
        "report",
        help="the report of a results file, every run scored again against the corpus's truth as it is now",
    )
    reporting.add_argument("results", type=Path, metavar="RESULTS")
    reporting.add_argument("--corpus", type=Path, help="a corpus folder (default: the shipped one)")
    _output_flags(reporting)
    reporting.set_defaults(handler=cmd_report)

    parser.add_argument(
        "--impl", dest="impls", action="append", metavar="LIST", help="handwritten,sdk (default both)"
    )
    parser.add_argument(
        "--model",
        dest="models",
        action="append",
        metavar="LIST",
        help="model names, comma-separated (default offline)",
    )
    parser.add_argument(
        "--no-baselines",
        action="store_true",
        help="leave out the floor every report is read against (baseline:parrot, baseline:status and "
        "baseline:rules: models that are not LLMs, run once per incident beside the models asked for)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="runs per incident, implementation and model (default 1)",
    )
    parser.add_argument(
        "--incident", action="append", metavar="PATTERN", help="only these incidents ('pending-*' or a part)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"investigations at a time (default {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument("--shard", metavar="I/N", help="run only the I-th of N slices of the corpus")
    parser.add_argument(
        "--cluster-server",
        dest="served_by",
        choices=("mock", "kubernetes-mcp-server"),
        default="mock",
        help="what serves each incident's cluster: the mock cluster (default) or kubernetes-mcp-server over "
        "a fake Kubernetes API holding the same cluster (the real server's tool names and output formats; "
        "the binary as `ask --cluster-server` finds it)",
    )
    parser.add_argument(
        "--server-per-run",
        action="store_true",
        help="start a stdio MCP server for each run, as `ask` does (default: one server per incident, "
        "shared by all its runs over Streamable HTTP, each run its own connection)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=DEFAULT_RESULTS,
        metavar="FILE",
        help=f"the JSONL results file (default {DEFAULT_RESULTS})",
    )
    parser.add_argument("--resume", action="store_true", help="continue the results file: skip runs it has")
    parser.add_argument("--fresh", action="store_true", help="replace the results file")
    parser.add_argument(
        "--traces", type=Path, metavar="DIR", help="where the runs' traces go (default RESULTS-traces/)"
    )
    parser.add_argument(
        "--corpus", type=Path, metavar="DIR", help="a corpus folder (default: the shipped one)"
    )
    _output_flags(parser)
    skip = [name for name, setting in SETTINGS.items() if setting.group == CLUSTER]
    add_run_options(parser, skip=("impl", "model", "trace_dir", "keep_traces", *skip))
    parser.set_defaults(handler=cmd_eval)


def _same_incidents(done: dict[str, Any], incidents: list[Any], results: Path) -> None:
    """Refuse to continue a results file whose runs were made against other versions of the
    incidents to run (their digests differ): the file would mix two truths."""
    from k8s_agent_harness.printout import plural

    digests = {incident.id: incident.digest for incident in incidents}
    changed = sorted(
        {
            str(record.get("incident"))
            for record in done.values()
            if record.get("incident") in digests
            and record.get("incident_digest")
            and record.get("incident_digest") != digests[record.get("incident")]
        }
    )
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise ConfigError(
            f"{results} holds runs of another version of {plural(len(changed), 'incident')} ({shown}): their files "
            "changed since; --fresh starts the file again (or write to another --results file; "
            "`k8s-agent eval report` rescores the old runs against the incidents as they are now)"
        )


def _serve(args: argparse.Namespace) -> Any:
    """How the eval serves each incident (None: a stdio mock cluster per run)."""
    import os

    from k8s_agent.eval.hosting import serve_mock_cluster, serve_through_kubernetes_mcp_server

    if args.served_by == "kubernetes-mcp-server":
        from k8s_agent_harness.cluster.discovery import find_kubernetes_mcp_server

        if args.server_per_run:
            raise ConfigError(
                "--server-per-run starts a stdio mock cluster per run; kubernetes-mcp-server is served once "
                "per incident: leave out one of them"
            )
        return serve_through_kubernetes_mcp_server(
            find_kubernetes_mcp_server(os.environ, os.environ.get("PATH", os.defpath))
        )
    return None if args.server_per_run else serve_mock_cluster


def _output_flags(parser: argparse.ArgumentParser) -> None:
    add_output_flags(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def _corpus(args: argparse.Namespace) -> tuple[list[Any], list[tuple[str, str]]]:
    from k8s_agent.eval.corpus import CORPUS, CorpusError, load_corpus

    try:
        incidents, problems = load_corpus(args.corpus or CORPUS, getattr(args, "incident", None))
    except CorpusError as error:
        raise ConfigError(str(error)) from None
    return incidents, problems


def cmd_list(args: argparse.Namespace) -> int:
    try:
        incidents, problems = _corpus(args)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    for incident in incidents:
        causes = ", ".join(sorted({str(r.cause) for r in incident.unhealthy})) or "all healthy"
        print(f"{incident.id:<40} {len(incident.unhealthy):>2} unhealthy  {causes}")
    for name, why in problems:
        print(f"skipped {name}: {why}", file=sys.stderr)
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from k8s_agent.eval.runner import read_results
    from k8s_agent_harness.printout import plural

    merged: dict[str, dict[str, Any]] = {}
    repeated = 0
    digests: dict[str, set[str]] = {}
    try:
        files = list({path.resolve(): path for path in args.files}.values())
        if len(files) < len(args.files):
            print("note: a file named twice is read once", file=sys.stderr)
        for path in files:
            if not path.is_file():
                raise ConfigError(f"results file not found: {path}")
            records, notes = read_results(path)
            for note in notes:
                print(f"note: {note}", file=sys.stderr)
            for key, record in records.items():
                if record.get("incident_digest"):
                    digests.setdefault(str(record.get("incident")), set()).add(str(record["incident_digest"]))
                if key in merged:
                    repeated += 1
                    continue
                merged[key] = record
        if repeated:
            print(
                f"note: {plural(repeated, 'result')} {'is' if repeated == 1 else 'are'} in more than one file: the "
                f"first of {'it' if repeated == 1 else 'each'} is kept",
                file=sys.stderr,
            )
        mixed = sorted(incident for incident, seen in digests.items() if len(seen) > 1)
        if mixed:
            print(
                f"note: the files hold runs of different versions of {plural(len(mixed), 'incident')} "
                f"({', '.join(mixed[:5])}{' ...' if len(mixed) > 5 else ''}): `eval report` scores every run "
                "against the incidents as they are now and names what changed",
                file=sys.stderr,
            )
        if args.out.exists() and args.out.resolve() in {p.resolve() for p in files}:
            raise ConfigError("--out must not be one of the files merged")
        import json

        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in merged.values())
        try:
            write_private(args.out, text)
        except OSError as error:
            raise ConfigError(f"cannot write {args.out}: {error.strerror or error}") from None
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"merged {plural(len(merged), 'result')} from {plural(len(files), 'file')} into {args.out}",
        file=sys.stderr,
    )
    return EXIT_OK


def _emit(report: Any, args: argparse.Namespace) -> int | None:
    """Write the report where asked and print it; EXIT_USAGE when a file cannot be written."""
    import json

    from k8s_agent.eval.report import as_json, html, markdown
    from k8s_agent.outputs import emit

    def rendered(kind: str) -> str:
        if kind == "json":
            return json.dumps(as_json(report), indent=2, ensure_ascii=False) + "\n"
        return html(report) if kind == "html" else markdown(report)

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr)

    return emit(rendered, args.format, args.out or [], say)


def cmd_report(args: argparse.Namespace) -> int:
    from k8s_agent.eval.report import build
    from k8s_agent.eval.runner import read_results
    from k8s_agent_harness.printout import plural

    try:
        if not args.results.is_file():
            raise ConfigError(f"results file not found: {args.results}")
        records, notes = read_results(args.results)
        if not records:
            raise ConfigError(f"{args.results} holds no eval results")
        incidents, problems = _corpus(args)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    report = build(list(records.values()), incidents, problems, notes)
    if not args.quiet:
        for name, why in report.changed.items():
            print(f"note: {name}: {why}", file=sys.stderr)
        if report.unknown:
            listed = ", ".join(f"{name} ({plural(runs, 'run')})" for name, runs in report.unknown.items())
            print(
                f"note: results for incidents the corpus does not have (not scored): {listed}",
                file=sys.stderr,
            )
    return _emit(report, args) or EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    import asyncio

    from k8s_agent.cli import config_from
    from k8s_agent.eval.report import build
    from k8s_agent.eval.runner import MadeFolders, Progress, Results, model_endpoints, plan, run_jobs, shard
    from k8s_agent_harness.printout import plural
    from k8s_agent_harness.vocabulary import Impl

    folders = MadeFolders()  # the results' and the traces' folders: removed again if left empty
    try:
        if args.repeat < 1:
            raise ConfigError("--repeat must be at least 1")
        if args.concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        if args.resume and args.fresh:
            raise ConfigError("--resume continues the results file, --fresh replaces it: give one")
        impls = []
        for name in _listed(args.impls, ["handwritten", "sdk"]):
            try:
                impls.append(Impl(name))
            except ValueError:
                from k8s_agent_harness.config import did_you_mean
                from k8s_agent_harness.vocabulary import IMPLEMENTATIONS

                raise ConfigError(
                    f"unknown implementation {name!r}: choose handwritten, sdk{did_you_mean(name, IMPLEMENTATIONS)}"
                ) from None
        models = _listed(args.models, ["offline"])
        from k8s_agent_harness.config import BASELINE_MODELS

        if not args.no_baselines:
            models += [baseline for baseline in BASELINE_MODELS if baseline not in models]
        configs = {}
        for model in models:
            args.model = model
            configs[model] = config_from(args)
        incidents, problems = _corpus(args)
        incidents = shard(incidents, args.shard)
        if not incidents:
            raise ConfigError("no incident matches " + (" ".join(args.incident or []) or "the corpus"))
        serve = _serve(args)
        results = Results(args.results)
        done, notes = results.read()
        if done and not args.resume and not args.fresh:
            raise ConfigError(
                f"{args.results} already holds {plural(len(done), 'result')}: --resume continues it, --fresh "
                "replaces it"
            )
        if done and args.resume:
            _same_incidents(done, incidents, args.results)
        folders.make(args.results.parent)
        if args.fresh:
            write_private(args.results, "")
            done, notes = {}, []
        results.end_torn_line()
        traces = (args.traces or args.results.with_name(args.results.stem + "-traces")).absolute()
        folders.make(traces)
    except ConfigError as error:
        folders.remove_empty()
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        folders.remove_empty()
        print(f"error: {error.strerror or error}: {getattr(error, 'filename', '')}", file=sys.stderr)
        return EXIT_USAGE

    for name, why in problems:
        print(f"skipped corpus entry {name}: {why}", file=sys.stderr)
    api = next(iter(configs.values())).api
    jobs = [
        job for job in plan(impls, models, incidents, args.repeat, args.served_by, api) if job.key not in done
    ]
    progress = Progress(len(jobs), quiet=args.quiet, jobs=args.concurrency)
    progress.say(
        f"eval: {plural(len(incidents), 'incident')} x {plural(len(impls), 'implementation')} x "
        f"{plural(len(models), 'model')} x {plural(args.repeat, 'repeat')} = {plural(len(jobs), 'run')}"
        + (f" ({len(done)} already in {args.results})" if done else "")
        + f", {args.concurrency} at a time, "
        + ("each run its own MCP server" if args.server_per_run else "one MCP server per incident")
        + (" (kubernetes-mcp-server)" if args.served_by != "mock" else "")
        + (f", the model on the {api} API" if api != "chat" else "")
        + f"; results in {args.results}, traces in {traces}"
    )
    try:
        with model_endpoints(configs) as (pointed, gates):
            asyncio.run(
                run_jobs(
                    jobs,
                    pointed,
                    results,
                    traces,
                    concurrency=args.concurrency,
                    progress=progress,
                    serve=serve,
                )
            )
            for gate in gates:
                if gate.rate_limited:
                    progress.say(
                        f"rate limited {plural(gate.rate_limited, 'time')} by {gate.upstream}: the pool paused "
                        f"{gate.paused_seconds:.0f} s in all"
                    )
    finally:
        folders.remove_empty()
    records, notes = results.read()
    wanted = {job.key for job in plan(impls, models, incidents, args.repeat, args.served_by, api)}
    chosen = [record for key, record in records.items() if key in wanted]
    report = build(chosen, incidents, problems, notes)
    status = _emit(report, args)
    failed = sum(1 for record in chosen if record.get("error"))
    if failed:
        progress.say(
            f"{plural(failed, 'run')} ended in an error: see the errors column and {'its' if failed == 1 else 'their'} "
            f"{'trace' if failed == 1 else 'traces'}"
        )
    return status or (EXIT_RUNS_FAILED if failed else EXIT_OK)
