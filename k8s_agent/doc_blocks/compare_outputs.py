"""The blocks of docs/compare.md: the scenario library side by side, and the pairs of sides on two wires."""

from __future__ import annotations

import json
from typing import Any

from k8s_agent.doc_blocks.ask_outputs import SAMPLE_COMPARE
from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import Shell
from k8s_agent.doc_blocks.tables import table

PAGE = "docs/compare.md"
LIBRARY = ("compare", "--format", "md")
SIDES = (
    ("--side", "handwritten:chat", "--side", "sdk:responses"),
    ("--side", "sdk:chat", "--side", "sdk:responses"),
    ("--side", "handwritten:chat", "--side", "handwritten:responses"),
    ("--api", "responses"),
)


def library(shell: Shell) -> str:
    """`compare` over the whole scenario library, as it prints it."""
    return shell.shown(shell.k8s_agent(*LIBRARY).stdout).rstrip()


def sample_rows(shell: Shell) -> str:
    """The table's header and the rows of the sample comparison's scenarios (the offline model's
    two, and a caught fabrication), from a comparison of those alone."""
    lines = shell.k8s_agent(*SAMPLE_COMPARE).stdout.split("\n")
    return "\n".join(line for line in lines if line.startswith(("Each cell", "|")))


def sides(shell: Shell) -> str:
    """Each pair of sides over the whole library: contract kept, same answers, behaviour, bytes."""
    rows = []
    for flags in SIDES:
        report = json.loads(shell.k8s_agent("compare", *flags, "--format", "json").stdout)
        rows.append([_named(flags), *_summary(report)])
    header = [
        "sides",
        "runs kept the contract",
        "rows with the same answer",
        "rows differing in behaviour",
        "bytes, second side vs first",
    ]
    return table(header, rows)


def _named(flags: tuple[str, ...]) -> str:
    shown = f"`{' '.join(flags)}`"
    return shown + (" (hand-written vs SDK, both on Responses)" if flags[0] == "--api" else "")


def _summary(report: dict[str, Any]) -> list[str]:
    first, second = (side["key"] for side in report["sides"])
    runs = [run for row in report["rows"] for run in row["runs"].values()]
    kept = sum(1 for run in runs if run["status"] == "ok" and run["invariants_held"])
    same = sum(1 for row in report["rows"] if row["answers_identical"])
    changes = [
        100 * (row["runs"][second]["bytes_sent"] / row["runs"][first]["bytes_sent"] - 1)
        for row in report["rows"]
        if row["runs"][first]["bytes_sent"]
    ]
    differing = ", ".join(sorted(report["behaviour_differences"])) or "none"
    spread = f"{min(changes):+.1f} to {max(changes):+.1f} %" if changes else "-"
    rows = len(report["rows"])
    return [f"{kept}/{len(runs)}", f"{same}/{rows}", differing, spread]


BLOCKS = (
    Block(
        "compare-library",
        PAGE,
        "k8s-agent compare --format md",
        "compare: the scenario library",
        library,
        Check(sample_rows, whole=False, how="compare of three scenarios: their rows"),
    ),
    Block(
        "compare-sides",
        PAGE,
        "k8s-agent compare --format json, once per pair of sides: " + "; ".join(" ".join(f) for f in SIDES),
        "compare: four pairs of sides on two wires",
        sides,
    ),
)
