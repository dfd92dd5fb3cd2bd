"""`k8s-agent bench --eval N`: N offline investigations of the eval corpus in one process, C at a time.

It runs what `k8s-agent eval` runs (the same pool, one mock cluster process per investigation, the
offline model from one shared server, both implementations alternating over the corpus) and
measures, from /proc: the process's resident memory after warm-up and at the end, its open file
descriptors before and after, and its child processes left alive (the MCP servers must all be
reaped); then the throughput against one `k8s-agent ask` process per investigation, at the same
concurrency, side by side in the same run.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from k8s_agent.eval.corpus import load_corpus
from k8s_agent.eval.runner import Job, Progress, Results, model_endpoints, run_jobs
from k8s_agent_harness.config import OFFLINE_MODEL, Config
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS

WARM_UP = 100
TARGET_GROWTH_MB = 8.0


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


def in_process(runs: int, concurrency: int, workdir: Path, say: Any) -> dict[str, Any]:
    """`runs` investigations in this process; memory, descriptors, children and throughput."""
    incidents, _ = load_corpus()
    jobs = [
        Job(
            IMPLEMENTATIONS[number % len(IMPLEMENTATIONS)],
            OFFLINE_MODEL,
            incidents[(number // 2) % len(incidents)],
            number + 1,
        )
        for number in range(runs)
    ]
    config = Config(model=OFFLINE_MODEL, trace_dir=workdir, keep_traces=0)
    results = Results(workdir / "results.jsonl")
    samples: list[tuple[int, float]] = []
    fds_before = open_fds()
    progress = Progress(runs, quiet=True)

    def sampled(record: dict[str, Any]) -> None:
        done = len(samples) + 1
        samples.append((done, rss_mb()))
        if done % 100 == 0 or done == runs:
            say(f"in process: {done}/{runs} runs, RSS {samples[-1][1]:.1f} MB, {open_fds()} fds")

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
            )
        )
    seconds = time.perf_counter() - started
    records, _ = results.read()
    warm = next((rss for done, rss in samples if done >= min(WARM_UP, runs)), samples[0][1])
    peak_after = max(rss for done, rss in samples if done >= min(WARM_UP, runs))
    return {
        "runs": runs,
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


def one_process_per_run(runs: int, concurrency: int, workdir: Path) -> dict[str, Any]:
    """The same investigations, each its own `k8s-agent ask` process, `concurrency` at a time."""
    incidents, _ = load_corpus()
    commands = [
        [
            sys.executable, "-m", "k8s_agent", "ask", incidents[(number // 2) % len(incidents)].question,
            "--impl", IMPLEMENTATIONS[number % len(IMPLEMENTATIONS)].value, "--model", OFFLINE_MODEL,
            "--cluster", str(incidents[(number // 2) % len(incidents)].cluster),
            "--trace-dir", str(workdir / "traces-cli"), "--keep-traces", "0", "-q", "--json",
        ]
        for number in range(runs)
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

    with tempfile.TemporaryDirectory(prefix="k8s-agent-bench-eval-") as folder:
        workdir = Path(folder)
        say(f"{runs} offline investigations in one process, {concurrency} at a time")
        inside = in_process(runs, concurrency, workdir, say)
        say(f"{baseline_runs} investigations as one `k8s-agent ask` process each, {concurrency} at a time")
        outside = one_process_per_run(baseline_runs, concurrency, workdir)
    figures = {
        "in_process": inside,
        "process_per_run": outside,
        "throughput_ratio": round(inside["runs_per_second"] / outside["runs_per_second"], 2)
        if outside["runs_per_second"]
        else None,
        "target_growth_mb": TARGET_GROWTH_MB,
    }
    missed = []
    if inside["rss_growth_mb"] > TARGET_GROWTH_MB:
        missed.append(f"memory grew {inside['rss_growth_mb']} MB after warm-up (target {TARGET_GROWTH_MB})")
    if inside["fds_after"] > inside["fds_before"] + 2:
        missed.append(f"file descriptors {inside['fds_before']} -> {inside['fds_after']}")
    if inside["children_left"]:
        missed.append(f"{len(inside['children_left'])} child processes left running")
    if inside["errors"]:
        missed.append(f"{inside['errors']} runs ended in an error")
    if as_json:
        print(json.dumps({**figures, "missed": missed}, indent=2))
    else:
        print(
            f"in one process: {inside['runs']} runs in {inside['seconds']} s = {inside['runs_per_second']} runs/s "
            f"({inside['errors']} errors, {inside['solved']} solved)\n"
            f"  RSS after {min(WARM_UP, runs)} runs {inside['rss_after_warm_up_mb']} MB, at the end "
            f"{inside['rss_end_mb']} MB (growth {inside['rss_growth_mb']} MB, peak {inside['rss_peak_after_warm_up_mb']} MB)\n"
            f"  file descriptors {inside['fds_before']} before, {inside['fds_after']} after; "
            f"child processes left: {len(inside['children_left'])}\n"
            f"one process per run: {outside['runs']} runs in {outside['seconds']} s = {outside['runs_per_second']} runs/s "
            f"({outside['errors']} errors)\n"
            f"throughput in one process / one process per run: {figures['throughput_ratio']}x"
        )
        for line in missed:
            print(f"MISSED: {line}")
    return 1 if missed else 0
