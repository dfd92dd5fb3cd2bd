"""The blocks `k8s-agent bench` prints: the harness's costs, the context budget at scale, and many
eval investigations in one process. Their times and memory are the machine's own: the script
regenerates them; a test checks only what does not vary (counts and bytes) with a cheaper run."""

from __future__ import annotations

import json
from typing import Any

from k8s_agent.doc_blocks.ask_outputs import ask_json
from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import Shell
from k8s_agent.doc_blocks.tables import table

MISSED_TARGET = (0, 1)
"""`bench` exits 1 when a target is missed, and prints its figures all the same."""
EVAL_RUNS = (1000, 324)
"""`bench --eval N` runs: 20 per incident (10 repeats), and 6 per incident (as `eval --repeat 3`)."""


def bench(shell: Shell) -> str:
    """`k8s-agent bench`, as it prints it."""
    return shell.k8s_agent("bench", codes=MISSED_TARGET).stdout.rstrip()


def investigations(shell: Shell) -> str:
    """The investigation table of `bench`, from `ask --json` of each implementation (the run bench
    makes of each, without its rounds of timing)."""
    from k8s_agent.bench.run import investigation_table

    figures: dict[str, Any] = {}
    for impl in ("handwritten", "sdk"):
        output = ask_json(shell, impl)
        figures[impl] = {key: output[key] for key in ("model_requests", "tool_calls_executed", "bytes_sent")}
    return "\n".join(investigation_table(figures))


def scale(shell: Shell) -> str:
    """`k8s-agent bench --scale`, as it prints it."""
    return shell.k8s_agent("bench", "--scale", codes=MISSED_TARGET).stdout.rstrip()


def smallest_size(shell: Shell) -> str:
    """The scale table's header and its rows for 50 pods, from a run of that size alone."""
    printed = shell.k8s_agent("bench", "--scale", "--sizes", "50", codes=MISSED_TARGET).stdout
    return "\n".join(line for line in printed.split("\n") if not line.startswith("Targets"))


def eval_scale(shell: Shell) -> str:
    """Two runs of `bench --eval N --json`, side by side."""
    from k8s_agent.bench.eval_scale import WARM_UP

    runs = [
        json.loads(
            shell.k8s_agent(
                "bench",
                "--eval",
                str(n),
                "--concurrency",
                "16",
                "--baseline-runs",
                "64",
                "--json",
                codes=MISSED_TARGET,
            ).stdout
        )
        for n in EVAL_RUNS
    ]
    shared = [run["in_process"] for run in runs]
    baseline = runs[0]["server_per_run"]["runs"]
    rows = [
        [
            "one process, one shared mock cluster per incident",
            *(
                f"{s['runs']:,} runs of {s['incidents']} incidents in {s['seconds']:.0f} s = "
                f"{s['runs_per_second']} per second, {s['errors']} errors, {s['solved']:,} solved"
                for s in shared
            ),
        ],
        [
            f"resident memory after {WARM_UP} runs (warm-up) / at the end / peak after warm-up",
            *(
                f"{s['rss_after_warm_up_mb']} / {s['rss_end_mb']} / {s['rss_peak_after_warm_up_mb']} MB: "
                f"{s['rss_growth_mb']} MB growth"
                for s in shared
            ),
        ],
        [
            "file descriptors before / after; child processes left running",
            *(f"{s['fds_before']} / {s['fds_after']}; {len(s['children_left'])}" for s in shared),
        ],
        [
            f"one process, a stdio mock cluster per run (`--server-per-run`), the first {baseline}",
            *(f"{run['server_per_run']['runs_per_second']} per second" for run in runs),
        ],
        [
            f"one `k8s-agent ask` process per run, the first {baseline}",
            *(f"{run['process_per_run']['runs_per_second']} per second" for run in runs),
        ],
        ["**shared servers / a server per run**", *(f"**{run['shared_ratio']}x**" for run in runs)],
        ["shared servers / one process per run", *(f"{run['throughput_ratio']}x" for run in runs)],
    ]
    return table(["figure", *(f"{n:,} runs" for n in EVAL_RUNS)], rows)


BLOCKS = (
    Block(
        "bench",
        "docs/benchmarks.md",
        "k8s-agent bench",
        "bench: per turn, per call, start-up, the investigation",
        bench,
        Check(investigations, whole=False, how="ask --json of each implementation: the investigation rows"),
    ),
    Block(
        "bench-scale",
        "docs/context-budget.md",
        "k8s-agent bench --scale",
        "bench --scale: 50 to 50,000 pods",
        scale,
        Check(smallest_size, whole=False, how="bench --scale --sizes 50: its rows"),
    ),
    Block(
        "bench-eval",
        "docs/eval.md",
        "k8s-agent bench --eval N --concurrency 16 --baseline-runs 64 --json, for N = "
        + " and ".join(str(n) for n in EVAL_RUNS),
        "bench --eval: many investigations in one process",
        eval_scale,
    ),
)
