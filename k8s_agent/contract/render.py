"""The contract report as markdown (a matrix, then the evidence of every failure) and as one HTML file."""

from __future__ import annotations

from html import escape
from pathlib import Path

from k8s_agent.contract.judge import FAILS, HOLDS, ITEMS, UNOBSERVABLE, Judgement
from k8s_agent.contract.run import ContractReport, SubjectResult
from k8s_agent_harness.printout import plural

MARKS = {HOLDS: "✓ holds", FAILS: "✗ fails", UNOBSERVABLE: "○ not observable"}


def heading(result: SubjectResult) -> str:
    """A subject's column: its name, and the wire its requests came on when that is not Chat
    Completions (`plain-sdk (responses)`)."""
    return result.subject if result.wire == "chat" else f"{result.subject} ({result.wire})"


def wires_line(report: ContractReport) -> str:
    """Which wire was asked for and which each subject's requests came on."""
    seen = ", ".join(f"{result.subject} {result.wire}" for result in report.results)
    streamed = ", answers streamed (--stream yes)" if report.stream else ""
    return f"Wire: --api {report.api}{streamed}; the requests came on: {seen}."


def markdown(report: ContractReport) -> str:
    """The matrix (items x subjects), then per subject each failing item with its evidence."""
    names = [result.subject for result in report.results]
    lines = [
        "| item | behaviour | " + " | ".join(heading(result) for result in report.results) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    by_subject = {result.subject: {j.item: j for j in result.judgements} for result in report.results}
    for item, behaviour in ITEMS.items():
        cells = [MARKS[by_subject[name][item].verdict] for name in names]
        lines.append(f"| {item} | {behaviour} | " + " | ".join(cells) + " |")
    failures = [
        (result.subject, j) for result in report.results for j in result.judgements if j.verdict == FAILS
    ]
    if failures:
        lines += ["", "Where an item fails, and the evidence:", ""]
        for subject, judgement in failures:
            lines.append(f"- **{subject} {judgement.item}** ({ITEMS[judgement.item]}): {judgement.summary}")
            for violation in judgement.violations:
                lines.append(f"  - {_md(violation.scenario)}: {_md(violation.summary)}")
                lines += [f"    - {_md(line)}" for line in violation.evidence]
            if not judgement.violations:
                lines += [f"  - {_md(line)}" for line in judgement.evidence]
    unobservable = [
        (result.subject, j)
        for result in report.results
        for j in result.judgements
        if j.verdict == UNOBSERVABLE
    ]
    if unobservable:
        lines += ["", "Not observable:", ""]
        lines += [f"- {subject} {j.item}: {j.summary}" for subject, j in unobservable]
    lines += [
        "",
        f"{plural(len(report.scenarios), 'scenario')} x {plural(len(names), 'subject')} in {report.wall_seconds:.1f} s; "
        + files_line(report.workdir),
        wires_line(report),
    ]
    return "\n".join(lines) + "\n"


def files_line(workdir: Path | None) -> str:
    """Where each run's files are, or how to keep them."""
    if workdir is None:
        return "the runs' files were not kept (--work-dir DIR keeps them)."
    return f"each run's files in {workdir}."


def _md(text: str) -> str:
    return text.replace("|", "\\|")


STYLE = """
:root { color-scheme: light dark; --fg: #1d1d1f; --line: #ccc; --head: #f4f4f6; --ok: #137333;
        --bad: #b3261e; --bad-bg: #fdecea; --muted: #6b6b70; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --line: #30363d; --head: #161b22; --ok: #3fb950; --bad: #f85149;
          --bad-bg: #42171b; --muted: #9198a1; }
}
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: var(--fg); }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 6px 10px; vertical-align: top; text-align: left; }
th { background: var(--head); }
td.holds summary { color: var(--ok); }
td.fails { background: var(--bad-bg); }
td.fails summary { color: var(--bad); font-weight: 600; }
td.not-observable summary { color: var(--muted); }
details p, details li { max-width: 42em; font-size: 13px; }
code { font-size: 12px; }
"""


def html(report: ContractReport) -> str:
    """One self-contained HTML file: the matrix, each cell opening its verdict's evidence."""
    names = [result.subject for result in report.results]
    by_subject = {result.subject: {j.item: j for j in result.judgements} for result in report.results}
    head = "".join(
        f'<th data-wire="{escape(result.wire)}">{escape(heading(result))}</th>' for result in report.results
    )
    rows = []
    for item, behaviour in ITEMS.items():
        cells = "".join(_cell(by_subject[name][item], name) for name in names)
        rows.append(f'<tr data-item="{item}"><th>{item}</th><td>{escape(behaviour)}</td>{cells}</tr>')
    subjects = "".join(
        f"<li><b>{escape(result.subject)}</b>: {escape(result.description)}</li>" for result in report.results
    )
    failed = sum(1 for result in report.results for j in result.judgements if j.verdict == FAILS)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>k8s-agent contract</title>"
        f"<style>{STYLE}</style></head><body>"
        "<h1>The loop contract, black-box</h1>"
        f"<p>{plural(len(report.scenarios), 'scenario')} x {plural(len(names), 'subject')} in {report.wall_seconds:.1f} s; "
        f'<span id="failed">{failed}</span> failing items. Open a cell for its evidence.</p>'
        f'<p id="wire">{escape(wires_line(report))}</p>'
        f"<ul>{subjects}</ul>"
        f'<table id="matrix"><tr><th>item</th><th>behaviour</th>{head}</tr>{"".join(rows)}</table>'
        "</body></html>\n"
    )


def _cell(judgement: Judgement, subject: str) -> str:
    css = judgement.verdict.replace(" ", "-")
    evidence = "".join(f"<li><code>{escape(line)}</code></li>" for line in judgement.evidence)
    scenarios = ", ".join(judgement.scenarios)
    return (
        f'<td class="{css}" data-subject="{escape(subject)}" data-verdict="{escape(judgement.verdict)}">'
        f"<details><summary>{escape(MARKS[judgement.verdict])}</summary>"
        f"<p>{escape(judgement.summary)}</p>"
        + (f"<ul>{evidence}</ul>" if evidence else "")
        + (f"<p>scenarios: {escape(scenarios)}</p>" if scenarios else "")
        + "</details></td>"
    )
