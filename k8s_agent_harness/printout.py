"""Rendering a run's report for the terminal."""

from __future__ import annotations

from collections.abc import Sequence

from k8s_agent_harness.config import OFFLINE_MODEL
from k8s_agent_harness.evidence.redact import one_line, printable
from k8s_agent_harness.evidence.verification import Shown
from k8s_agent_harness.model.prompts import MAX_PROBLEMS_LISTED
from k8s_agent_harness.session import RunResult

OFFLINE_NOTE = "offline (deterministic playbook, not an LLM)"
RULE = "─" * 78


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 tool call`, `2 tool calls`."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def render(result: RunResult) -> str:
    """The report as printed by `k8s-agent ask`: a header, the model's answer, and a footer."""
    stats = result.stats
    model = OFFLINE_NOTE if result.model == OFFLINE_MODEL else result.model
    rejected = sum(stats.rejected.values())
    facts = [
        plural(stats.model_requests, "model request"),
        plural(stats.tool_calls_executed, "tool call"),
    ]
    if rejected:
        facts.append(f"{rejected} rejected")
    if stats.forced_summary:
        facts.append(f"summary forced ({stats.forced_summary.value.replace('_', ' ')})")
    facts.append(f"{result.wall_seconds:.1f} s")
    lines = [
        f"k8s-agent report · {result.impl} agent · model {model}",
        " · ".join(facts),
        RULE,
        *([unread_line(result)] if result.read_nothing else []),
        result.answer.strip(),
        RULE,
    ]
    verification = verification_line(result)
    if verification:
        lines.append(verification)
    if result.ungrounded:
        lines.append(f"Unverified names (in no tool result): {one_line(', '.join(result.ungrounded))}")
    lines.append(f"Trace: {result.trace}")
    return printable("\n".join(lines))


def unread_line(result: RunResult) -> str:
    """The headline of a run that read nothing of the cluster: what follows says nothing of its health."""
    if not result.failures:
        why = "no tool call reached it"
    else:
        first = result.failures[0]
        first = first if len(first) <= 200 else first[:199] + "…"
        why = f"every tool call failed ({plural(len(result.failures), 'call')}; the first: {one_line(first)})"
    return (
        f"THE CLUSTER COULD NOT BE READ: {why}. Nothing below is evidence of the cluster's health: a "
        "report of no unhealthy resource here means nothing was seen, not that all is well."
    )


def verification_line(result: RunResult) -> str | None:
    """What the harness checked of a structured report, in one line; None for prose."""
    if result.verified is None:
        return None
    if result.report is None:
        return "Verification: the answer is not a structured report: nothing in it is verified."
    if not result.report.findings:
        return _no_findings_line(result)
    quotes = [quote for finding in result.report.findings for quote in finding.evidence]
    verified = sum(1 for quote in quotes if quote.verified)
    counted = f"{verified} of {plural(len(quotes), 'quote')} verified against this run's tool results"
    if result.verified:
        return (
            f"Verification: {counted}; every finding names a resource a tool showed, in its namespace, "
            "with the status it showed."
        )
    return f"Verification: {counted}; UNVERIFIED: {_problems(result)}"


def _no_findings_line(result: RunResult) -> str:
    """A report with no findings has nothing to verify but what it rests on: what the tools showed,
    that the report (on its scope) names none of it unhealthy, and the healthy examples among it."""
    assert result.report is not None
    checked = f"Verification: no findings to verify; {shown_phrase(result.shown)}"
    if not result.verified:
        return f"{checked}; UNVERIFIED: {_problems(result)}"
    if result.shown:  # what the tools showed may hold unhealthy resources outside the report's scope
        checked += f"; the report, on {one_line(result.report.scope)}, names none of them unhealthy"
    examples = len(result.report.healthy.examples)
    if examples:
        checked += (
            f"; the {plural(examples, 'healthy example')} {'is' if examples == 1 else 'are'} among them"
        )
    return checked + "."


MAX_KINDS_SHOWN = 4
"""Kinds of resources named in a no-findings footer; the others are counted."""


def shown_phrase(shown: Sequence[Shown]) -> str:
    """`the tools showed 2 pods in namespace staging (list_pods), 3 nodes (list_nodes)`."""
    if not shown:
        return "the tools showed no resources"
    parts = []
    for group in shown[:MAX_KINDS_SHOWN]:
        namespaces = group.namespaces
        where = (
            f" in namespace {namespaces[0]}"
            if len(namespaces) == 1
            else f" in {len(namespaces)} namespaces"
            if namespaces
            else ""
        )
        parts.append(f"{plural(group.count, group.kind or 'resource')}{where} ({', '.join(group.tools)})")
    more = len(shown) - MAX_KINDS_SHOWN
    if more > 0:
        parts.append(f"and resources of {plural(more, 'other kind')}")
    return "the tools showed " + ", ".join(parts)


def _problems(result: RunResult) -> str:
    problems = [one_line(problem) for problem in result.report_problems[:MAX_PROBLEMS_LISTED]]
    more = len(result.report_problems) - len(problems)
    return "; ".join(problems) + (f"; and {more} more (--json lists them all)" if more > 0 else "")


def render_markdown(result: RunResult) -> str:
    """The report as markdown for a ticket: the findings, what was verified, and where the run is."""
    from k8s_agent_harness.evidence.rendering import render_markdown as findings_markdown

    model = OFFLINE_NOTE if result.model == OFFLINE_MODEL else result.model
    if result.report is not None:
        body = findings_markdown(result.report)
    else:
        body = (
            "## Health report\n\n"
            + "\n".join(f"    {line}" for line in result.answer.strip().splitlines())
            + "\n"
        )
    if result.read_nothing:
        body = f"**{unread_line(result)}**\n\n{body}"
    footer = [f"_k8s-agent, {result.impl} agent, model {model}; trace `{result.trace.name}`._"]
    verification = verification_line(result)
    if verification:
        footer.insert(0, f"_{verification}_")
    return printable(body + "\n" + "\n\n".join(footer) + "\n")
