"""`k8s-agent bench --scale`: the offline model on synthetic clusters of growing size, both
implementations, with the context budget and without it, one run each, side by side.

For each size a cluster of that many pods (five of them broken: k8s_agent_mock_cluster/synthetic.py)
is generated into a temporary folder, never checked in. Each run is a whole investigation against
the mock cluster over stdio, measured at the HTTP boundary: model requests, the largest request,
every byte sent, the report's size, wall time, and whether the report names all five broken pods.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from k8s_agent.bench import EXIT_TARGET_MISSED
from k8s_agent.scripted_run import run_scripted
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS
from k8s_agent_mock_cluster.synthetic import PLANTED, cluster
from k8s_agent_scripted_llm import offline_model

SIZES = (50, 500, 5_000, 20_000, 50_000)
QUICK_SIZES = (50, 500)
BUDGET = 32_000
TARGETS = {"largest_request_bytes": 128 * 1024, "bytes_sent": 512 * 1024, "report_bytes": 16 * 1024}
QUESTION = "Which pods in the production namespace are unhealthy, and why?"


def progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


async def one_run(impl: Any, fixture: Path, budget: int, workdir: Path) -> dict[str, Any]:
    """One investigation; its figures."""
    started = time.perf_counter()
    done = await run_scripted(
        impl,
        workdir,
        responder=offline_model,
        question=QUESTION,
        cluster=fixture,
        settings={
            "model": "offline",
            "context_budget": budget,
            "request_timeout": 300.0,
            "tool_timeout": 300.0,
            "max_seconds": 900.0,
        },
    )
    wall = time.perf_counter() - started
    answer = done.result.answer if done.result else ""
    sizes = [len(json.dumps(body, separators=(",", ":")).encode()) for body in done.requests]
    return {
        "ok": done.result is not None,
        "error": str(done.error) if done.error else None,
        "model_requests": len(done.requests),
        "largest_request_bytes": max(sizes, default=0),
        "bytes_sent": sum(sizes),
        "report_bytes": len(answer.encode()),
        "found": sum(pod in answer for pod in PLANTED),
        "wall_seconds": round(wall, 2),
    }


def run(sizes: tuple[int, ...]) -> dict[str, Any]:
    """Every size, both implementations, with and without the budget."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="k8s-agent-scale-") as folder:
        root = Path(folder)
        for pods in sizes:
            fixture = root / f"pods-{pods}.json"
            fixture.write_text(json.dumps(cluster(pods)), encoding="utf-8")
            for budget in (BUDGET, 0):
                for impl in IMPLEMENTATIONS:
                    label = f"{pods:,} pods, {impl}, {'budget' if budget else 'no budget'}"
                    progress(label)
                    figures = asyncio.run(one_run(impl, fixture, budget, root / f"{pods}-{impl}-{budget}"))
                    rows.append({"pods": pods, "impl": impl.value, "budget": budget, **figures})
    budgeted = [row for row in rows if row["budget"]]
    met = {name: all(row[name] <= limit for row in budgeted) for name, limit in TARGETS.items()} | {
        "every_failure_found": all(row["found"] == len(PLANTED) for row in budgeted),
        "wall_time_grows_no_faster_than_the_cluster": _grows_no_faster(budgeted),
    }
    return {
        "sizes": list(sizes),
        "budget_tokens": BUDGET,
        "rows": rows,
        "targets": TARGETS,
        "targets_met": met,
    }


def _grows_no_faster(rows: list[dict[str, Any]]) -> bool:
    for impl in IMPLEMENTATIONS:
        mine = sorted((row for row in rows if row["impl"] == impl.value), key=lambda row: row["pods"])
        if len(mine) >= 2:
            first, last = mine[0], mine[-1]
            if last["wall_seconds"] / first["wall_seconds"] > last["pods"] / first["pods"]:
                return False
    return True


def render(figures: dict[str, Any]) -> str:
    """The scale table."""
    lines = [
        f"Scale: the offline model on synthetic clusters (five broken pods each), context budget "
        f"{figures['budget_tokens']:,} tokens vs none, one run each.",
        "",
        "| pods | impl | budget | requests | largest request KB | sent KB | report KB | broken pods found | wall s |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in figures["rows"]:
        found = f"{row['found']}/{len(PLANTED)}" if row["ok"] else f"failed: {row['error']}"
        lines.append(
            f"| {row['pods']:,} | {row['impl']} | {'32k' if row['budget'] else 'none'} | {row['model_requests']} | "
            f"{row['largest_request_bytes'] / 1024:,.1f} | {row['bytes_sent'] / 1024:,.1f} | "
            f"{row['report_bytes'] / 1024:.1f} | {found} | {row['wall_seconds']:.2f} |"
        )
    met = figures["targets_met"]
    lines += [
        "",
        "Targets with the budget: every request <= 128 KB, the run <= 512 KB sent, the report <= 16 KB, every broken "
        "pod found, wall time growing no faster than the cluster: "
        + ", ".join(f"{name} {'met' if ok else 'MISSED'}" for name, ok in met.items())
        + ".",
    ]
    return "\n".join(lines)


def chart(figures: dict[str, Any]) -> str:
    """The scale table as a curve: an .svg file of its own (needs matplotlib: the charts extra)."""
    from k8s_agent import charts

    return charts.standalone(charts.scale_chart(figures["rows"], figures["targets"]))


def main(sizes: tuple[int, ...] = SIZES, as_json: bool = False, chart_file: Path | None = None) -> int:
    """Run the scale benchmark and print it (and draw it into `chart_file`); exit 8 if a target is missed."""
    from k8s_agent import charts

    if chart_file is not None and not charts.available():
        print(f"error: --chart: {charts.NOTE}", file=sys.stderr)
        return 2
    figures = run(sizes)
    print(json.dumps(figures, indent=2) if as_json else render(figures))
    if chart_file is not None:
        chart_file.write_text(chart(figures), encoding="utf-8")
        progress(f"chart written to {chart_file}")
    return 0 if all(figures["targets_met"].values()) else EXIT_TARGET_MISSED
