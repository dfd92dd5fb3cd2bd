"""`k8s-agent bench --eval N`: N offline investigations of the eval corpus in one process, C at a time.

It runs what `k8s-agent eval` runs (its plan: incident by incident, both implementations, as many
repeats as N needs; the same pool; the offline model from one shared server) three ways, in one run,
at the same concurrency:

1. one process, each incident's cluster served by one shared mock cluster over Streamable HTTP (the
   default of `eval`), N runs: throughput, and from /proc the process's resident memory after
   warm-up and at the end, its open file descriptors before and after, its child processes left
   alive (every server must be reaped);
2. one process, each run starting its own stdio mock cluster (`eval --server-per-run`), the first M
   runs of the same plan;
3. one `k8s-agent ask` process per run, the same M runs.

The ratios are runs per second of 1 over 2 (what sharing the server buys) and of 1 over 3.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from k8s_agent.bench import EXIT_TARGET_MISSED
from k8s_agent.eval.corpus import load_corpus
from k8s_agent.eval.hosting import serve_mock_cluster
from k8s_agent.eval.runner import Job, Progress, Results, model_endpoints, plan, run_jobs
from k8s_agent_harness.config import OFFLINE_MODEL, Config
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS

WARM_UP = 100
TARGET_GROWTH_MB = 8.0
TARGET_SHARED_RATIO = 3.0
"""Runs per second with one shared server per incident over runs per second with a server per run."""


def rss_mb() -> float:
    """This process's resident set size, in MB (VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def live_children() -> list[str]:
    """The command lines of this process's children that are still running (zombies are not)."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == me and fields[0] != "Z":
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip())
        except (OSError, IndexError, ValueError):
            continue
    return found


def jobs_of(runs: int) -> list[Job]:
    """The first `runs` jobs of an offline eval of the corpus with as many repeats as that takes."""
    incidents, _ = load_corpus()
    repeat = math.ceil(runs / (len(incidents) * len(IMPLEMENTATIONS)))
    return plan(IMPLEMENTATIONS, [OFFLINE_MODEL], incidents, repeat)[:runs]


def in_process(jobs: list[Job], concurrency: int, workdir: Path, say: Any, *, shared: bool) -> dict[str, Any]:
    """The jobs in this process; memory, descriptors, children and throughput."""
    runs = len(jobs)
    workdir.mkdir(parents=True, exist_ok=True)
    config = Config(model=OFFLINE_MODEL, trace_dir=workdir, keep_traces=0)
    results = Results(workdir / "results.jsonl")
    samples: list[tuple[int, float]] = []
    fds_before = open_fds()
    progress = Progress(runs, quiet=True)

    def sampled(record: dict[str, Any]) -> None:
        done = len(samples) + 1
        samples.append((done, rss_mb()))
        if done % 100 == 0 or done == runs:
            mode = "shared servers" if shared else "a server per run"
            say(f"in process, {mode}: {done}/{runs} runs, RSS {samples[-1][1]:.1f} MB, {open_fds()} fds")

    started = time.perf_counter()
    with model_endpoints({OFFLINE_MODEL: config}) as (pointed, _):
        asyncio.run(
            run_jobs(
                jobs,
                pointed,
                results,
                workdir / "traces",
                concurrency=concurrency,
                progress=progress,
                on_record=sampled,
                serve=serve_mock_cluster if shared else None,
            )
        )
    seconds = time.perf_counter() - started
    records, _ = results.read()
    warm = next((rss for done, rss in samples if done >= min(WARM_UP, runs)), samples[0][1])
    peak_after = max(rss for done, rss in samples if done >= min(WARM_UP, runs))
    return {
        "runs": runs,
        "incidents": len({job.incident.id for job in jobs}),
        "concurrency": concurrency,
        "seconds": round(seconds, 1),
        "runs_per_second": round(runs / seconds, 2),
        "errors": sum(1 for r in records.values() if r.get("error")),
        "solved": sum(1 for r in records.values() if r["score"].get("solved")),
        "rss_after_warm_up_mb": round(warm, 1),
        "rss_end_mb": round(samples[-1][1], 1),
        "rss_peak_after_warm_up_mb": round(peak_after, 1),
        "rss_growth_mb": round(samples[-1][1] - warm, 1),
        "fds_before": fds_before,
        "fds_after": open_fds(),
        "children_left": live_children(),
    }


def one_process_per_run(jobs: list[Job], concurrency: int, workdir: Path) -> dict[str, Any]:
    """The same investigations, each its own `k8s-agent ask` process, `concurrency` at a time."""
    runs = len(jobs)
    commands = [
        [
            sys.executable, "-m", "k8s_agent", "ask", job.incident.question,
            "--impl", job.impl.value, "--model", OFFLINE_MODEL,
            "--cluster", str(job.incident.cluster),
            "--trace-dir", str(workdir / "traces-cli"), "--keep-traces", "0", "-q", "--json",
        ]
        for job in jobs
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}
    started = time.perf_counter()
    running: list[subprocess.Popen[bytes]] = []
    failed = 0
    for command in commands:
        while len(running) >= concurrency:
            for process in list(running):
                if process.poll() is not None:
                    failed += process.returncode != 0
                    running.remove(process)
            time.sleep(0.01)
        running.append(
            subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    for process in running:
        failed += process.wait() != 0
    seconds = time.perf_counter() - started
    return {
        "runs": runs,
        "seconds": round(seconds, 1),
        "runs_per_second": round(runs / seconds, 2),
        "errors": failed,
    }


def main(runs: int, concurrency: int, baseline_runs: int, as_json: bool) -> int:
    def say(line: str) -> None:
        print(f"bench: {line}", file=sys.stderr, flush=True)

    jobs = jobs_of(runs)
    some = jobs[: min(baseline_runs, runs)]
    with tempfile.TemporaryDirectory(prefix="k8s-agent-bench-eval-") as folder:
        workdir = Path(folder)
        say(
            f"{runs} offline investigations in one process, {concurrency} at a time, one shared server per incident"
        )
        shared = in_process(jobs, concurrency, workdir / "shared", say, shared=True)
        say(f"the first {len(some)} in one process, {concurrency} at a time, each starting its own server")
        per_run = in_process(some, concurrency, workdir / "per-run", say, shared=False)
        say(f"the first {len(some)} as one `k8s-agent ask` process each, {concurrency} at a time")
        outside = one_process_per_run(some, concurrency, workdir)
    shared_ratio = _ratio(shared, per_run)
    figures: dict[str, Any] = {
        "in_process": shared,
        "server_per_run": per_run,
        "process_per_run": outside,
        "shared_ratio": shared_ratio,
        "throughput_ratio": _ratio(shared, outside),
        "target_shared_ratio": TARGET_SHARED_RATIO,
        "target_growth_mb": TARGET_GROWTH_MB,
    }
    missed = []
    if shared["rss_growth_mb"] > TARGET_GROWTH_MB:
        missed.append(f"memory grew {shared['rss_growth_mb']} MB after warm-up (target {TARGET_GROWTH_MB})")
    if shared["fds_after"] > shared["fds_before"] + 2:
        missed.append(f"file descriptors {shared['fds_before']} -> {shared['fds_after']}")
    for name, figure in (("shared servers", shared), ("a server per run", per_run)):
        if figure["children_left"]:
            left = len(figure["children_left"])
            missed.append(f"{left} child {'process' if left == 1 else 'processes'} left running ({name})")
    errors = shared["errors"] + per_run["errors"] + outside["errors"]
    if errors:
        missed.append(f"{errors} {'run' if errors == 1 else 'runs'} ended in an error")
    if (shared_ratio or 0) < TARGET_SHARED_RATIO:
        missed.append(
            f"shared servers ran {figures['shared_ratio']}x the runs per second of a server per run "
            f"(target {TARGET_SHARED_RATIO:g}x)"
        )
    if as_json:
        print(json.dumps({**figures, "missed": missed}, indent=2))
    else:
        print(
            f"in one process, one shared server per incident: {shared['runs']} runs of {shared['incidents']} "
            f"incidents in {shared['seconds']} s = {shared['runs_per_second']} runs/s "
            f"({shared['errors']} errors, {shared['solved']} solved)\n"
            f"  RSS after {min(WARM_UP, runs)} runs {shared['rss_after_warm_up_mb']} MB, at the end "
            f"{shared['rss_end_mb']} MB (growth {shared['rss_growth_mb']} MB, peak {shared['rss_peak_after_warm_up_mb']} MB)\n"
            f"  file descriptors {shared['fds_before']} before, {shared['fds_after']} after; "
            f"child processes left: {len(shared['children_left'])}\n"
            f"in one process, a server per run: {per_run['runs']} runs in {per_run['seconds']} s = "
            f"{per_run['runs_per_second']} runs/s ({per_run['errors']} errors)\n"
            f"one process per run: {outside['runs']} runs in {outside['seconds']} s = {outside['runs_per_second']} runs/s "
            f"({outside['errors']} errors)\n"
            f"throughput, shared servers / a server per run: {figures['shared_ratio']}x "
            f"(target {TARGET_SHARED_RATIO:g}x)\n"
            f"throughput, shared servers / one process per run: {figures['throughput_ratio']}x"
        )
        for line in missed:
            print(f"MISSED: {line}")
    return EXIT_TARGET_MISSED if missed else 0


def _ratio(faster: dict[str, Any], slower: dict[str, Any]) -> float | None:
    return (
        round(faster["runs_per_second"] / slower["runs_per_second"], 2) if slower["runs_per_second"] else None
    )
