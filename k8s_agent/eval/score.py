"""Scoring one run against its incident's truth, from the run's `ask --json` object.

The rule (this is what `score` does, exactly):

Matching. A finding matches a truth (or allowed) resource when:

- namespace: for a pod or job resource, the finding gives a namespace and it is the resource's (a
  finding without a namespace matches no pod or job); a node ignores the finding's namespace;
- node resource: a finding of kind `node` with its name, nothing else;
- pod resource: a finding of kind `pod` with its exact name; or a workload finding whose name plus the
  suffix its controller generates is exactly the pod's name, never a bare prefix:
  `deployment` NAME-<replicaset hash, 6-10 of [a-z0-9]>-<5 of [a-z0-9]>; `job` NAME-<5>; `other`
  (a daemonset NAME-<5>, or a statefulset NAME-<ordinal digits>);
- job resource: a finding of kind `job` with its name; or a finding of kind `pod` naming one of the
  Job's pods (NAME-<5>): the Job fails where its pods fail, and a pod finding must still hold the
  verified fact to solve; a deployment resource likewise (`deployment` with its name, or a pod
  NAME-<hash>-<5>);
- service, pvc and other resources: a finding of that kind with its exact name (a Service is not its
  pods: a Service with no endpoints is reported as the Service).

One finding may match several resources (a deployment finding matches each of its pods). A finding
that matches a truth resource is graded; one that matches only allowed resources is neutral; one
that matches neither is `extra`.

Per truth resource: `found` when some finding matches it; its cause is right when the matching
findings give exactly one cause and the truth accepts it (its cause or an `accept` one): several
findings of one resource with different causes are `contradictory` and count as a wrong cause; its
fact is proven when one of the first FACT_QUOTES quotes of a matching finding is marked `verified`
by the harness and holds one of the resource's `facts` (whitespace collapsed, case folded, the fact
contained in the quote as written or with its YAML and JSON strings decoded: `decoded`, so a quote of
kubernetes-mcp-server's YAML, `'didn''t match'`, holds the fact as the mock cluster prints it,
`didn't match`), within a run of lines that leaves at most CONTEXT_LINES other lines in the quote (a
whole log quoted holds every fact and points at none).

Scores of a run with structured findings:

- `recall` = found / truth; `cause` = resources found with a right, non-contradictory cause / truth;
  `fact` = resources with a verified fact quote / truth; all three None when the truth is empty;
- `precision` = findings matching a truth resource / graded findings (None when there are none);
- `evidence` = quotes marked verified / quotes (None when there are none);
- `solved`: the run ended well (a result, no error) and
  - with a truth: nothing missed, no wrong or contradictory cause, every resource's fact proven,
    no extra finding;
  - with an empty truth (all healthy): no finding besides allowed ones, and at least one
    successful tool call (`tool_calls_executed` - `tool_calls_failed` > 0): a report made without
    looking at the cluster is not solved.

A failed run (no result, or an error) scores recall, cause and fact 0 (None with an empty truth),
the rest None, unsolved. A prose report (no structured findings) is not scorable: recall,
precision, cause, evidence and fact are None (never recall from names it mentions), unsolved, and
`why_not` says why. In the report's means (`counted`), a failed or prose run counts as 0 for recall,
cause and fact on an incident with a truth: the means are over every run, not only those that found
something. The run's costs come along: requests, tool calls, tokens, bytes, guardrail firings,
forced summary, time.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from k8s_agent.eval.corpus import Incident, Resource
from k8s_agent_harness.evidence.shapes.naming import pod_of

METRICS = ("recall", "precision", "cause", "evidence", "fact")
ZERO_WHEN_UNSCORED = ("recall", "cause", "fact")
"""Metrics a failed or prose run counts as 0 in the means, on an incident with a truth."""


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
    """`label: reported cause(s) (want truth cause)`, contradictory ones included."""
    contradictory: list[str] = field(default_factory=list)
    """Truth resources several findings give different causes: `label: cause, cause`."""
    fact_missing: list[str] = field(default_factory=list)
    """Truth resources found without a verified quote that holds their fact."""
    successful_tool_calls: int = 0
    ungrounded: int = 0
    scorable: bool = True
    why_not: str = ""
    """When something cannot be scored: why; when a run is unsolved for another reason than the
    lists above say (no tool call on an all-healthy incident): that reason."""
    costs: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def matches(finding: dict[str, Any], resource: Resource) -> bool:
    """Whether a finding names the resource (the module's rule)."""
    name = str(finding.get("name") or "")
    kind = str(finding.get("kind") or "pod")
    if not name:
        return False
    if resource.kind == "node":
        return kind == "node" and name == resource.name
    if resource.namespace is not None and finding.get("namespace") != resource.namespace:
        return False
    if resource.kind in ("job", "deployment"):
        return (kind == resource.kind and name == resource.name) or (
            kind == "pod" and pod_of(name, resource.name, resource.kind)
        )
    if resource.kind in ("service", "pvc", "other"):
        return kind == resource.kind and name == resource.name
    if kind == "pod":
        return name == resource.name
    return pod_of(resource.name, name, kind)


FACT_QUOTES = 4
"""A finding's first quotes read for its fact: its evidence points at the deciding line, it does not
list every line that might be it."""
CONTEXT_LINES = 2
"""Lines a quote may hold beside the lines of its fact: the fact's line with its neighbours, not the
whole result it was read from."""


def proves_fact(finding_quotes: list[dict[str, Any]], facts: tuple[str, ...]) -> bool:
    """Whether one of a finding's first FACT_QUOTES quotes holds one of the facts (quotes_fact)."""
    return any(quotes_fact(quote, facts) for quote in finding_quotes[:FACT_QUOTES])


def quotes_fact(quote: dict[str, Any], facts: tuple[str, ...]) -> bool:
    """Whether a quote the harness verified holds one of the facts (normalised containment), as
    written or with its YAML and JSON strings decoded, with at most CONTEXT_LINES lines beside the
    lines that hold it (a whole log or listing quoted holds every fact in it, and points at none)."""
    if quote.get("verified") is not True:
        return False
    forms = decoded(str(quote.get("text") or ""))
    return any(_norm(fact) and any(_holds(form, _norm(fact)) for form in forms) for fact in facts)


def _holds(form: str, fact: str) -> bool:
    """Whether the fact is in the form, the fewest consecutive lines that hold it leaving at most
    CONTEXT_LINES other lines."""
    lines = [_norm(line) for line in form.splitlines() if line.strip()]
    if fact not in " ".join(lines):
        return False
    fewest = min(
        next(end - start for end in range(start + 1, len(lines) + 1) if fact in " ".join(lines[start:end]))
        for start in range(len(lines))
        if fact in " ".join(lines[start:])
    )
    return len(lines) - fewest <= CONTEXT_LINES


_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"", re.DOTALL)
"""A single-quoted YAML scalar (`'it''s'`) or a double-quoted YAML or JSON string (`"say \\"hi\\""`)."""
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[\"\\/bfnrt])")


def decoded(text: str) -> list[str]:
    """A quote as written, and as its YAML and JSON strings mean it.

    A tool result printed as YAML or JSON holds a message encoded: kubernetes-mcp-server doubles the
    apostrophes of a single-quoted scalar (`'didn''t match'`), a JSON string escapes its quotes
    (`secret \\"x\\" not found`). A quote copied from it verbatim holds the encoding; the fact is
    written as the cluster said it. So the same quote on the mock cluster (plain text) and through a
    server that prints YAML or JSON holds the same fact. The forms: the quote; each quoted string in
    it decoded in place; the quote read as the inside of a single-quoted scalar (`''` is `'`); and as
    the inside of a double-quoted one (its escapes decoded): a quote may be a piece of a string.
    """
    return [
        text,
        _QUOTED.sub(lambda match: _scalar(match.group()), text),
        text.replace("''", "'"),
        _ESCAPE.sub(lambda match: _unescape(match.group(1)), text),
    ]


def _scalar(token: str) -> str:
    """A quoted YAML scalar or JSON string's value (the token itself when it does not decode)."""
    if token.startswith("'"):  # a flow scalar: its line breaks and their indentation folded to a space
        return " ".join(line.strip() for line in token[1:-1].splitlines()).replace("''", "'")
    try:
        value = json.loads(token)
    except ValueError:
        value = None
    if isinstance(value, str):
        return value
    import yaml

    try:
        value = yaml.safe_load(token)
    except yaml.YAMLError:
        return token
    return value if isinstance(value, str) else token


def _unescape(escape: str) -> str:
    if escape.startswith("u"):
        return chr(int(escape[1:], 16))
    return {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.get(escape, escape)


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


def _successful_calls(run: dict[str, Any]) -> int:
    return max(0, int(run.get("tool_calls_executed") or 0) - int(run.get("tool_calls_failed") or 0))


def _label(finding: dict[str, Any]) -> str:
    namespace = finding.get("namespace")
    return f"{finding.get('kind', 'pod')}/{finding.get('name')}" + (f" ({namespace})" if namespace else "")


def score(run: dict[str, Any] | None, incident: Incident, error: str | None = None) -> Score:
    """Score one run (`ask --json` object, or None when the run failed with `error`)."""
    truth = incident.unhealthy
    if run is None or run.get("error"):
        why = f"the run failed: {error or (run or {}).get('error') or 'no result'}"
        return _unscorable(run, incident, why, failed=True)
    report = run.get("report")
    spent = costs(run)
    if not isinstance(report, dict):
        return _unscorable(
            run,
            incident,
            "a prose report is not scored: resources found, cause, evidence and fact need structured findings "
            "(--report-format json_schema or json_text)",
            failed=False,
        )
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    found, missed, wrong, contradictory, fact_missing = [], [], [], [], []
    causes_right = facts_proven = 0
    graded: set[int] = set()
    for resource in truth:
        mine = [i for i, f in enumerate(findings) if matches(f, resource)]
        if not mine:
            missed.append(resource.label)
            continue
        graded.update(mine)
        found.append(resource.label)
        reported = list(dict.fromkeys(str(findings[i].get("cause")) for i in mine))
        if len(reported) > 1:
            contradictory.append(f"{resource.label}: {', '.join(reported)}")
            wrong.append(f"{resource.label}: {' / '.join(reported)} (want {resource.cause})")
        elif reported[0] in resource.causes:
            causes_right += 1
        else:
            wrong.append(f"{resource.label}: {reported[0]} (want {resource.cause})")
        if any(
            proves_fact([q for q in findings[i].get("evidence") or [] if isinstance(q, dict)], resource.facts)
            for i in mine
        ):
            facts_proven += 1
        else:
            fact_missing.append(resource.label)
    allowed = {i for i, f in enumerate(findings) if any(matches(f, r) for r in incident.allowed)}
    extra = [_label(f) for i, f in enumerate(findings) if i not in graded and i not in allowed]
    scored = len(graded) + len(extra)
    quotes = [q for f in findings for q in f.get("evidence") or [] if isinstance(q, dict)]
    calls = _successful_calls(run)
    why = ""
    if truth:
        solved = not (missed or wrong or fact_missing or extra)
    else:
        solved = not extra and calls > 0
        if not extra and not calls:
            why = "no successful tool call: a report made without looking at the cluster is not solved"
    return Score(
        recall=len(found) / len(truth) if truth else None,
        precision=len(graded) / scored if scored else None,
        cause=causes_right / len(truth) if truth else None,
        evidence=sum(1 for q in quotes if q.get("verified") is True) / len(quotes) if quotes else None,
        fact=facts_proven / len(truth) if truth else None,
        solved=solved,
        found=found,
        missed=missed,
        extra=extra,
        wrong_cause=wrong,
        contradictory=contradictory,
        fact_missing=fact_missing,
        successful_tool_calls=calls,
        ungrounded=len(run.get("ungrounded_names") or [])
        + sum(1 for f in findings if f.get("name_verified") is False),
        why_not=why,
        costs=spent,
    )


def _unscorable(run: dict[str, Any] | None, incident: Incident, why: str, *, failed: bool) -> Score:
    """A run that cannot be scored (it failed, or wrote prose): unsolved, every truth resource missed;
    a failed run scores 0 for recall, cause and fact on an incident with a truth, a prose one None (the
    means count both as 0: `counted`)."""
    zero = 0.0 if failed and incident.unhealthy else None
    return Score(
        recall=zero,
        precision=None,
        cause=zero,
        evidence=None,
        fact=zero,
        solved=False,
        missed=[r.label for r in incident.unhealthy],
        successful_tool_calls=_successful_calls(run or {}),
        ungrounded=len((run or {}).get("ungrounded_names") or []),
        scorable=False,
        why_not=why,
        costs=costs(run) if run else {},
    )


def counted(scored: dict[str, Any], metric: str, incident: Incident) -> float | None:
    """A run's value of `metric` in the report's means: a failed or prose run counts as 0 for recall,
    cause and fact on an incident with a truth; otherwise the score's value (None: not counted)."""
    value = scored.get(metric)
    if value is None and metric in ZERO_WHEN_UNSCORED and incident.unhealthy:
        return 0.0
    return None if value is None else float(value)


def run_of(record: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """The `ask --json` object a results line holds, to score it again: (run, rescorable).

    A line holds the object's counters under `run` and its `report` and `answer` beside them; a
    line written before `run` was recorded is rebuilt from its report, answer and stored costs. A
    failed run is (None, True). A line with none of these cannot be rescored: (None, False)."""
    if record.get("error"):
        return None, True
    stored = record.get("run")
    if isinstance(stored, dict):
        return {**stored, "report": record.get("report"), "answer": record.get("answer")}, True
    if "report" not in record and "answer" not in record:
        return None, False
    spent = (record.get("score") or {}).get("costs") or {}
    return {
        "report": record.get("report"),
        "answer": record.get("answer"),
        "model_requests": spent.get("requests", 0),
        "tool_calls_executed": spent.get("tool_calls", 0),
        "tool_calls_failed": spent.get("tool_failures", 0),
        "prompt_tokens": spent.get("prompt_tokens", 0),
        "completion_tokens": spent.get("completion_tokens", 0),
        "bytes_sent": spent.get("bytes_sent", 0),
        "tool_calls_rejected": spent.get("guardrails", 0),
        "forced_summary": spent.get("forced_summary", False),
        "wall_seconds": spent.get("wall_seconds", 0.0),
    }, True


def rescore(record: dict[str, Any], incident: Incident) -> dict[str, Any] | None:
    """The record's run scored against the incident as it is now (a `Score` dict), or None when
    the record does not hold what scoring needs."""
    run, rescorable = run_of(record)
    if not rescorable:
        return None
    scored = score(run, incident, record.get("error"))
    if run is not None and "run" not in record:
        scored.ungrounded = int((record.get("score") or {}).get("ungrounded", scored.ungrounded))
    return scored.as_dict()
