"""A report rendered for people: for the terminal (each quote marked verified or not) and as markdown
for a ticket.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from k8s_agent_harness.evidence.provenance import normalised
from k8s_agent_harness.evidence.redact import one_line
from k8s_agent_harness.evidence.report import (
    Finding,
    HealthReport,
    Healthy,
    Quote,
    QuoteCheck,
)


def _mark(quote: Quote) -> str:
    """How a quote is marked: ✓, or ✗ unverified with what it was found to be."""
    if quote.verified:
        return "✓"
    match quote.check:
        case QuoteCheck.NOT_FOUND:
            why = "in no tool result"
        case QuoteCheck.ERROR_TEXT:
            why = "error text of a failed call, not evidence"
        case QuoteCheck.OTHER_RESOURCE:
            why = f"about {one_line(quote.about or 'another resource')}, not this one"
        case QuoteCheck.TOO_SHORT:
            why = "too short to be evidence"
        case _:
            return "✗ unverified"
    return f"✗ unverified ({why})"


def _notes(finding: Finding) -> str:
    """What did not check out about a finding's resource, after its line."""
    notes = []
    if finding.name_verified is False:
        notes.append(
            f"[no tool showed this {finding.kind}" + (" in this namespace]" if finding.namespace else "]")
        )
    if finding.status_verified is False:
        notes.append("[status not what the tools showed]")
    return "".join(f"  {note}" for note in notes)


def _quoted(text: str) -> str:
    """A quote on one line, as written: line breaks, control and invisible characters escaped."""
    return one_line(text.strip())


def render_text(report: HealthReport, header: str = "", server_names: Mapping[str, str] | None = None) -> str:
    """The report for the terminal: each quote marked verified (✓) or not; every field on its line.
    `server_names` gives the server's name of each tool the model knows by an alias: both are shown."""
    server_names = server_names or {}
    lines = [one_line(header or f"Health report: {report.scope}"), ""]
    lines.append(f"{len(report.findings):,} unhealthy, {report.healthy.count:,} healthy.")
    for number, finding in enumerate(report.findings, start=1):
        where = f" ({one_line(finding.namespace)})" if finding.namespace else ""
        lines += [
            "",
            f"{number}. {finding.kind} {one_line(finding.name)}{where}: {one_line(finding.status)}{_notes(finding)}",
        ]
        for quote in finding.evidence:
            source = one_line(quote.tool) if quote.tool else "tool result"
            if quote.tool and quote.tool in server_names:
                source += f" [{one_line(server_names[quote.tool])}]"
            lines.append(f"   Evidence ({source}) {_mark(quote)}: {_quoted(quote.text)}")
        lines += [
            f"   Cause: {finding.cause.value}: {one_line(finding.explanation)}",
            f"   Fix: {one_line(finding.fix)}",
        ]
    if report.healthy.count:
        examples = _examples(report.healthy, one_line)
        lines += ["", f"Healthy: {report.healthy.count:,}{f', for example {examples}' if examples else ''}."]
    if report.unchecked:
        lines += ["", "Not checked:", *[f"- {one_line(item)}" for item in report.unchecked]]
    return "\n".join(lines)


def _examples(healthy: Healthy, shown: Callable[[str], str]) -> str:
    """The healthy examples, each as `shown` writes a name, marked when no tool showed it."""
    unknown = set(healthy.unverified_examples or ())
    return ", ".join(
        shown(example) + (" [no tool showed it]" if example in unknown else "")
        for example in healthy.examples
    )


def render_markdown(report: HealthReport, title: str = "Health report") -> str:
    """The report as markdown, for a ticket (every field on its line, as in the terminal)."""
    lines = [f"## {one_line(title)}: {one_line(report.scope)}", ""]
    lines.append(f"**{len(report.findings):,} unhealthy**, {report.healthy.count:,} healthy.")
    for finding in report.findings:
        where = f" in {_code(finding.namespace)}" if finding.namespace else ""
        lines += [
            "",
            f"### {finding.kind} {_code(finding.name)}{where}: {one_line(finding.status)}{_notes(finding)}",
            "",
        ]
        lines.append(f"- **Cause**: `{finding.cause.value}`: {one_line(finding.explanation)}")
        for quote in finding.evidence:
            mark = (
                "verified" if quote.verified else f"**unverified**{_mark(quote).removeprefix('✗ unverified')}"
            )
            lines.append(
                f"- **Evidence** ({one_line(quote.tool or 'tool result')}, {mark}): {_code(quote.text)}"
            )
        lines.append(f"- **Fix**: {one_line(finding.fix)}")
    if report.healthy.count:
        examples = _examples(report.healthy, _code)
        lines += ["", f"Healthy: {report.healthy.count:,}{f' (e.g. {examples})' if examples else ''}."]
    if report.unchecked:
        lines += ["", "Not checked:", *[f"- {one_line(item)}" for item in report.unchecked]]
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    """A markdown code span of a quote, on one line, fenced with more backticks than it holds."""
    line = one_line(normalised(text))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{fence}{pad}{line}{pad}{fence}"
