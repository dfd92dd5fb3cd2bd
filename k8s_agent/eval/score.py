"""Scoring one run against its incident's truth, from the run's `ask --json` object.

What is scored, per run:

- `recall`: the share of the truth's unhealthy resources the report names (1.0 when there are none);
- `precision`: the share of the report's findings that name a truth resource (1.0 for a report with
  no findings); a finding of a resource the truth only allows counts neither way;
- `cause`: among the resources found, the share whose cause is right (the truth's, or one it accepts);
- `evidence`: the share of the report's quotes the harness found verbatim in the run's tool results;
- `fact`: among the resources found, the share whose evidence quotes the truth's fact (the fact in a
  quote, or a quote of 15 characters or more in the fact);
- `ungrounded`: names the report gives that no tool returned;
- `solved`: every unhealthy resource found with a right cause, nothing else reported, the run ended well.

A prose report (no structured findings) is scored on what prose allows: recall from the names it
mentions; precision, cause, evidence and fact are None ("cannot be scored"), and the reason says so.
The run's costs come along: requests, tool calls, tokens, bytes, guardrail firings, forced summary, time.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from k8s_agent.eval.corpus import Incident, Resource

MIN_QUOTE = 15
METRICS = ("recall", "precision", "cause", "evidence", "fact")


@dataclass
class Score:
    """One run's scores and costs."""

    recall: float | None
    precision: float | None
    cause: float | None
    evidence: float | None
    fact: float | None
    solved: bool
    found: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    """Findings the truth neither requires nor allows."""
    wrong_cause: list[str] = field(default_factory=list)
    """`name: reported cause (want truth cause)`."""
    ungrounded: int = 0
    scorable: bool = True
    why_not: str = ""
    """When something cannot be scored: why."""
    costs: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _matches(finding: dict[str, Any], resource: Resource) -> bool:
    """Whether a finding names the resource (its name; its namespace when both give one; a
    deployment-level finding names its pods)."""
    name = str(finding.get("name") or "")
    namespace = finding.get("namespace")
    if resource.namespace and namespace and namespace != resource.namespace:
        return False
    if name == resource.name:
        return True
    return finding.get("kind") in ("deployment", "other") and resource.name.startswith(name + "-")


def _quotes_fact(finding: dict[str, Any], fact: str | None) -> bool:
    if not fact:
        return False
    wanted = _norm(fact)
    for quote in finding.get("evidence") or []:
        text = _norm(str(quote.get("text") or ""))
        if wanted in text or (len(text) >= MIN_QUOTE and text in wanted):
            return True
    return False


def costs(run: dict[str, Any]) -> dict[str, Any]:
    """What the run cost, from its `ask --json` counters."""
    rejected = run.get("rejected") or {}
    return {
        "requests": run.get("model_requests", 0),
        "tool_calls": run.get("tool_calls_executed", 0),
        "tool_failures": run.get("tool_calls_failed", 0),
        "prompt_tokens": run.get("prompt_tokens", 0),
        "completion_tokens": run.get("completion_tokens", 0),
        "bytes_sent": run.get("bytes_sent", 0),
        "guardrails": int(run.get("tool_calls_rejected", sum(rejected.values()) if rejected else 0))
        + int(run.get("pushbacks", 0)),
        "forced_summary": bool(run.get("forced_summary")),
        "wall_seconds": run.get("wall_seconds", 0.0),
    }


def score(run: dict[str, Any] | None, incident: Incident, error: str | None = None) -> Score:
    """Score one run (`ask --json` object, or None when the run failed with `error`)."""
    truth = incident.unhealthy
    if run is None:
        return Score(
            recall=0.0 if truth else None,
            precision=None,
            cause=None,
            evidence=None,
            fact=None,
            solved=False,
            missed=[r.label for r in truth],
            scorable=False,
            why_not=f"the run failed: {error or 'no result'}",
        )
    report = run.get("report")
    spent = costs(run)
    if not isinstance(report, dict):
        return _prose(str(run.get("answer") or ""), incident, spent, run)
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    found, missed, wrong, causes_right, facts = [], [], [], 0, 0
    used: set[int] = set()
    for resource in truth:
        index = next((i for i, f in enumerate(findings) if _matches(f, resource)), None)
        if index is None:
            missed.append(resource.label)
            continue
        finding = findings[index]
        used.update(i for i, f in enumerate(findings) if _matches(f, resource))
        found.append(resource.label)
        reported = str(finding.get("cause"))
        if reported in resource.causes:
            causes_right += 1
        else:
            wrong.append(f"{resource.label}: {reported} (want {resource.cause})")
        facts += _quotes_fact(finding, resource.fact)
    allowed = [i for i, f in enumerate(findings) if any(_matches(f, r) for r in incident.allowed)]
    extra = [
        f"{f.get('kind', 'pod')}/{f.get('name')}" + (f" ({f['namespace']})" if f.get("namespace") else "")
        for i, f in enumerate(findings)
        if i not in used and i not in allowed
    ]
    quotes = [q for f in findings for q in f.get("evidence") or [] if isinstance(q, dict)]
    graded = len(findings) - len([i for i in allowed if i not in used])
    ungrounded = len(run.get("ungrounded_names") or []) + sum(
        1 for f in findings if f.get("name_verified") is False
    )
    recall = len(found) / len(truth) if truth else 1.0
    precision = (graded - len(extra)) / graded if graded else 1.0
    ended_well = not run.get("error")
    return Score(
        recall=recall,
        precision=precision,
        cause=causes_right / len(found) if found else None,
        evidence=sum(1 for q in quotes if q.get("verified")) / len(quotes) if quotes else None,
        fact=facts / len(found) if found else None,
        solved=ended_well and not missed and not extra and not wrong,
        found=found,
        missed=missed,
        extra=extra,
        wrong_cause=wrong,
        ungrounded=ungrounded,
        costs=spent,
    )


def _prose(answer: str, incident: Incident, spent: dict[str, Any], run: dict[str, Any]) -> Score:
    """A prose report: only the names it mentions can be checked."""
    found = [
        r.label for r in incident.unhealthy if re.search(rf"(?<![\w-]){re.escape(r.name)}(?![\w-])", answer)
    ]
    missed = [r.label for r in incident.unhealthy if r.label not in found]
    return Score(
        recall=len(found) / len(incident.unhealthy) if incident.unhealthy else None,
        precision=None,
        cause=None,
        evidence=None,
        fact=None,
        solved=False,
        found=found,
        missed=missed,
        ungrounded=len(run.get("ungrounded_names") or []),
        scorable=False,
        why_not="a prose report: recall from the names it mentions; precision, cause, evidence and fact "
        "need structured findings (--report-format json_schema or json_text)",
        costs=spent,
    )
