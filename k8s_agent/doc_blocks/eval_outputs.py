"""The blocks of `k8s-agent eval`: the offline model and the baselines on the corpus, per incident,
on the held-out set and on the Responses wire. A whole corpus takes minutes: the script regenerates
them; a test checks the per-incident rows of two incidents from an eval of those alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import BlockError, Shell
from k8s_agent.doc_blocks.tables import table, tables
from k8s_agent.doc_blocks.views import fenced

SCORES = ("recall", "precision", "cause", "evidence", "fact")
SAMPLE = ("crashloop-missing-env", "healthy-rollout-in-progress")
"""The incidents the test evaluates: one broken, one that only looks broken."""
HOLDOUT = "k8s_agent/eval/holdout"


def _holdout() -> str:
    import k8s_agent.eval

    return str(Path(k8s_agent.eval.__file__).parent / "holdout")


def _eval(shell: Shell, name: str, *flags: str) -> tuple[str, dict[str, Any]]:
    """`k8s-agent eval FLAGS` into results of its own: the markdown it prints and its JSON report."""
    out = shell.path(f"{name}.json")
    ran = shell.k8s_agent(
        "eval", *flags, "--results", f"{name}.jsonl", "--fresh", "--out", out.name, "--quiet", codes=(0, 5)
    )
    return ran.stdout, json.loads(out.read_text(encoding="utf-8"))


def summary_rows(printed: str) -> list[dict[str, str]]:
    """The models' rows, then the baselines' (their margin: `floor`), from the tables eval prints."""
    scored = [rows for rows in tables(printed) if rows and "solved [95% CI]" in rows[0]]
    if not scored:
        raise BlockError("eval printed no table of scores")
    return [{"over the best baseline": "floor", **row} for rows in scored for row in rows]


def summary(printed: str) -> str:
    """The scores per implementation and model, the baselines as the floor."""
    header = ["implementation", "model", "runs", "solved [95% CI]", "over the best baseline", *SCORES]
    return table(header, [[row[name] for name in header] for row in summary_rows(printed)])


def corpus(shell: Shell) -> str:
    """The whole corpus: scores, the paired verdict, the number of runs."""
    printed, report = _eval(shell, "corpus")
    verdicts = [pair["verdict"] for pair in report["pairs"]]
    runs = sum(int(row["runs"]) for row in summary_rows(printed))
    return "\n\n".join([summary(printed), *verdicts, f"{runs} runs of {report['incidents']} incidents."])


def readme_rows(shell: Shell) -> str:
    """The hand-written agent's rows, short and aligned: solved, the margin or the floor, recall,
    cause, fact."""
    printed, _ = _eval(shell, "corpus")
    rows = [
        [
            row["implementation"],
            row["model"],
            row["runs"],
            row["solved [95% CI]"],
            row["over the best baseline"],
            *(f"{name} {_mean(row[name])}" for name in ("recall", "cause", "fact")),
        ]
        for row in summary_rows(printed)
        if row["implementation"] == "handwritten"
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    return fenced(
        "\n".join(
            "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in rows
        )
    )


def _mean(cell: str) -> str:
    return cell.split(" ")[0]


def per_incident(report: dict[str, Any], only: tuple[str, ...] = ()) -> str:
    """One row per incident, one column per implementation and model: ✓, or ✗ and what went wrong."""
    incidents = report["per_incident"]
    labels: list[str] = []
    for entry in incidents.values():
        labels += [label for label in entry["runs"] if label not in labels]
    labels.sort(key=lambda label: ("baseline:" in label, label.split(" · ")[1], label))
    rows = [
        [name, *(_cell(entry["runs"].get(label, [])) for label in labels)]
        for name, entry in sorted(incidents.items())
        if not only or name in only
    ]
    return table(["incident", *labels], rows)


def _cell(runs: list[dict[str, Any]]) -> str:
    """✓ when every run solved it; else ✗ and what the first unsolved run got wrong."""
    if not runs:
        return ""
    wrong = next((run for run in runs if not run["solved"]), None)
    if wrong is None:
        return "✓"
    found = [
        ("error", bool(wrong.get("error"))),
        ("missed", bool(wrong["missed"]) and wrong.get("scorable", True)),
        ("extra", bool(wrong["extra"])),
        ("contradictory", bool(wrong["contradictory"])),
        ("cause", bool(wrong["wrong_cause"]) and not wrong["contradictory"]),
        ("no fact", bool(wrong["fact_missing"])),
        ("no tool call", not wrong["successful_tool_calls"] and not wrong["missed"] and not wrong["extra"]),
    ]
    return "✗ " + ", ".join(name for name, holds in found if holds)


def incidents(shell: Shell) -> str:
    """Every incident of the corpus run, in a collapsed section."""
    _, report = _eval(shell, "corpus")
    rows = len(report["per_incident"])
    return "\n".join(
        [
            f"<details><summary>Per incident, the whole corpus ({rows} rows)</summary>",
            "",
            per_incident(report),
            "",
            "</details>",
        ]
    )


def sample_incidents(shell: Shell) -> str:
    """The per-incident rows of the sample incidents, from an eval of those alone."""
    flags = [flag for name in SAMPLE for flag in ("--incident", name)]
    _, report = _eval(shell, "sample", *flags)
    return per_incident(report, SAMPLE)


def holdout(shell: Shell) -> str:
    """The held-out set: scores, the paired verdict."""
    printed, report = _eval(shell, "holdout", "--corpus", _holdout())
    return "\n\n".join([summary(printed), *(pair["verdict"] for pair in report["pairs"])])


def on_responses(shell: Shell) -> str:
    """The corpus with both agents on the Responses wire."""
    printed, report = _eval(shell, "responses", "--api", "responses")
    return "\n\n".join([summary(printed), *(pair["verdict"] for pair in report["pairs"])])


BLOCKS = (
    Block(
        "readme-eval",
        "README.md",
        "k8s-agent eval (the hand-written agent's rows)",
        "eval: the corpus, short",
        readme_rows,
    ),
    Block("eval-corpus", "docs/eval.md", "k8s-agent eval --out full.json", "eval: the corpus", corpus),
    Block(
        "eval-incidents",
        "docs/eval.md",
        "k8s-agent eval --out full.json (its incidents)",
        "eval: per incident",
        incidents,
        Check(sample_incidents, whole=False, how="eval of two incidents: their rows"),
    ),
    Block(
        "eval-holdout",
        "docs/eval.md",
        f"k8s-agent eval --corpus {HOLDOUT} --out holdout.json",
        "eval: the held-out set",
        holdout,
    ),
    Block(
        "migration-eval-responses",
        "docs/migration.md",
        "k8s-agent eval --api responses --out responses.json",
        "eval on the Responses wire",
        on_responses,
    ),
)
