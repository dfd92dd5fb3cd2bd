"""The eval report: scores per implementation and model with confidence intervals, the paired
comparison of the implementations on the same incidents, and a drill-down per incident.

Built from the results file's records and the corpus: every stored run is scored again against its
incident's truth as the corpus has it now (`score.rescore`), an incident whose files changed since a
run is named, and results for incidents the corpus does not have are listed. Models named
`baseline:...` (a model that calls no tool, one that reads one listing's STATUS column, one that reads
the events and logs of each unhealthy pod) are floor rows: shown apart from the real models, each real
model with its margin over the best of them of its implementation (and cluster server).
Rendered as markdown, JSON or a self-contained HTML page (no script, no network).
"""

from __future__ import annotations

import html as escape
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_agent import charts
from k8s_agent.eval.corpus import Incident
from k8s_agent.eval.score import METRICS, counted, rescore
from k8s_agent.eval.stats import bootstrap_mean, mean, sign_test, solved_interval
from k8s_agent_harness.evidence.redact import one_line
from k8s_agent_harness.printout import plural

ALPHA = 0.05
BASELINE = "baseline:"
"""A model named so is a floor, not a model under test."""
NO_BASELINES = (
    "No baselines in these results (models named baseline:..., e.g. baseline:parrot): nothing shows "
    "what a scripted answer scores here."
)
SOLVED_CI = "cluster bootstrap over incidents; Wilson over incidents where every incident has the same rate"
COSTS = ("requests", "tool_calls", "prompt_tokens", "completion_tokens", "bytes_sent", "wall_seconds")


@dataclass
class Group:
    """Every run of one implementation on one model."""

    impl: str
    model: str
    runs: int = 0
    errors: int = 0
    solved: int = 0
    solved_ci: tuple[float, float] = (0.0, 1.0)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    """metric -> {mean, ci, runs (scored)}"""
    costs: dict[str, float] = field(default_factory=dict)
    """cost -> median per run"""
    guardrails: int = 0
    forced_summaries: int = 0
    unscorable: int = 0
    margin: float | None = None
    """Solved rate minus the best baseline's, in percentage points (real models, when there is one)."""
    margin_over: str = ""
    """That baseline's label."""

    @property
    def label(self) -> str:
        return f"{self.impl} · {self.model}"

    @property
    def baseline(self) -> bool:
        return is_baseline(self.model)

    @property
    def rate(self) -> float | None:
        return self.solved / self.runs if self.runs else None


def is_baseline(model: str) -> bool:
    return model.startswith(BASELINE)


@dataclass
class Pair:
    """Two implementations on the same incidents and model: where they differ, and whether beyond noise."""

    model: str
    first: str
    second: str
    incidents: int
    wins: list[str]
    """Incidents the first solves more often."""
    losses: list[str]
    p_value: float
    rates: dict[str, tuple[float, float]] = field(default_factory=dict)
    """incident -> (first's solved rate, second's)"""

    @property
    def beyond_noise(self) -> bool:
        return self.p_value < ALPHA


@dataclass
class EvalReport:
    groups: list[Group]
    pairs: list[Pair]
    incidents: list[Incident]
    cells: dict[str, dict[str, list[dict[str, Any]]]]
    """incident -> group label -> its records"""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    repeat: int = 1
    unknown: dict[str, int] = field(default_factory=dict)
    """Incidents the results name that the corpus does not have -> their runs (not scored)."""
    changed: dict[str, str] = field(default_factory=dict)
    """Incident -> how it changed since (some of) its runs: their digest differs from its files' now."""
    rescored: int = 0
    """Runs scored again against the truth as it is now."""
    verdicts_changed: int = 0
    """Of those, the runs whose solved verdict differs from the one stored with them."""
    stored: int = 0
    """Runs that do not hold what scoring needs: their stored scores are shown."""

    @property
    def real(self) -> list[Group]:
        return [g for g in self.groups if not g.baseline]

    @property
    def baselines(self) -> list[Group]:
        return [g for g in self.groups if g.baseline]


SURFACE_JOIN = " via "


WIRE_JOIN = " on "


def model_label(record: dict[str, Any]) -> str:
    """The model a run is grouped under: its name, the wire unless Chat Completions, and the server of
    its cluster unless the mock's (the same model on the Responses API, or through
    kubernetes-mcp-server, is scored apart): `offline on responses via kubernetes-mcp-server`."""
    surface = record.get("cluster_server") or "mock"
    api = record.get("api") or "chat"
    label = str(record["model"]) if api == "chat" else f"{record['model']}{WIRE_JOIN}{api}"
    return label if surface == "mock" else f"{label}{SURFACE_JOIN}{surface}"


def build(
    records: Sequence[dict[str, Any]],
    incidents: Sequence[Incident],
    skipped: Sequence[tuple[str, str]] = (),
    notes: Sequence[str] = (),
) -> EvalReport:
    """Score every record of a known incident again against its truth now, and aggregate."""
    known = {incident.id: incident for incident in incidents}
    by_group: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    cells: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    unknown = Counter(str(r["incident"]) for r in records if r["incident"] not in known)
    digests: dict[str, list[str | None]] = defaultdict(list)
    rescored = verdicts_changed = stored = 0
    for record in records:
        incident = known.get(record["incident"])
        if incident is None:
            continue
        fresh = rescore(record, incident)
        if fresh is None:
            stored += 1
        else:
            rescored += 1
            verdicts_changed += bool(fresh["solved"]) != bool((record.get("score") or {}).get("solved"))
            record = {**record, "score": fresh}
        digests[incident.id].append(record.get("incident_digest"))
        model = model_label(record)
        by_group[(record["impl"], model)].append(record)
        cells[record["incident"]][f"{record['impl']} · {model}"].append(record)
    order = sorted(by_group, key=lambda key: (is_baseline(key[1]), key))
    groups = [_group(impl, model, by_group[(impl, model)], known) for impl, model in order]
    _margins(groups)
    pairs = []
    models = sorted({g.model for g in groups if not g.baseline})
    for model in models:
        impls = [g.impl for g in groups if g.model == model]
        for number, first in enumerate(impls):
            for second in impls[number + 1 :]:
                pairs.append(_pair(model, first, second, by_group[(first, model)], by_group[(second, model)]))
    used = [incident for incident in incidents if incident.id in cells]
    changed = {}
    unrecorded = []
    for incident in used:
        seen = digests[incident.id]
        other = sorted({d for d in seen if d and d != incident.digest})
        if other:
            runs = sum(1 for d in seen if d and d != incident.digest)
            changed[incident.id] = (
                f"the incident changed since {runs} of its {plural(len(seen), 'run')} (digest {', '.join(other)} "
                f"then, {incident.digest} now): they are scored against its truth as it is now"
            )
        if any(not d for d in seen):
            unrecorded.append(incident.id)
    extra_notes = list(notes)
    if rescored and (verdicts_changed or changed):
        extra_notes.append(
            f"{plural(rescored, 'run')} scored again against the corpus's truth as it is now; "
            f"{plural(verdicts_changed, 'solved verdict')} {'differs' if verdicts_changed == 1 else 'differ'} from "
            "those stored with the results"
        )
    if stored:
        extra_notes.append(
            f"{plural(stored, 'run')} {'does' if stored == 1 else 'do'} not hold {'its' if stored == 1 else 'their'} "
            f"report: the scores stored with {'it' if stored == 1 else 'them'} are shown, not rescored"
        )
    if unrecorded:
        extra_notes.append(
            "results recorded without the incident's digest (whether the truth changed since cannot be "
            f"told): {', '.join(unrecorded)}"
        )
    repeat = max((int(r.get("repeat", 1)) for r in records), default=1)
    return EvalReport(
        groups, pairs, used, cells, list(skipped), extra_notes, repeat,
        unknown=dict(sorted(unknown.items())), changed=changed, rescored=rescored,
        verdicts_changed=verdicts_changed, stored=stored,
    )  # fmt: skip


def _group(impl: str, model: str, runs: list[dict[str, Any]], known: dict[str, Incident]) -> Group:
    group = Group(impl, model, runs=len(runs))
    group.errors = sum(1 for r in runs if r.get("error"))
    group.solved = sum(1 for r in runs if r["score"].get("solved"))
    solved: dict[str, list[float]] = defaultdict(list)
    for record in runs:
        solved[record["incident"]].append(1.0 if record["score"].get("solved") else 0.0)
    group.solved_ci = solved_interval(solved)
    group.unscorable = sum(1 for r in runs if not r["score"].get("scorable", True))
    for metric in METRICS:
        per_incident: dict[str, list[float]] = defaultdict(list)
        for record in runs:
            value = counted(record["score"], metric, known[record["incident"]])
            if value is not None:
                per_incident[record["incident"]].append(value)
        values = [v for vs in per_incident.values() for v in vs]
        group.metrics[metric] = {
            "mean": mean(values),
            "ci": bootstrap_mean(per_incident),
            "runs": len(values),
        }
    for cost in COSTS:
        values = [float(r["score"]["costs"].get(cost, 0)) for r in runs if r["score"].get("costs")]
        group.costs[cost] = statistics.median(values) if values else 0.0
    group.guardrails = sum(int(r["score"].get("costs", {}).get("guardrails", 0)) for r in runs)
    group.forced_summaries = sum(1 for r in runs if r["score"].get("costs", {}).get("forced_summary"))
    return group


def _margins(groups: list[Group]) -> None:
    """Each real group's solved rate over the best baseline's: of its implementation and its cluster
    server when there is one (a model through kubernetes-mcp-server against the floor there)."""
    floors = [g for g in groups if g.baseline and g.runs]
    for group in groups:
        if group.baseline or not floors or group.rate is None:
            continue
        here = [g for g in floors if _surface(g.model) == _surface(group.model)] or floors
        mine = [g for g in here if g.impl == group.impl] or here
        best = max(mine, key=lambda g: (g.rate or 0.0, g.label))
        group.margin = 100 * (group.rate - (best.rate or 0.0))
        group.margin_over = best.label


def _surface(model: str) -> str:
    """The cluster server a group's label names (`offline via kubernetes-mcp-server`), "" for the mock."""
    return model.partition(SURFACE_JOIN)[2]


def _rates(runs: list[dict[str, Any]]) -> dict[str, float]:
    solved: dict[str, list[bool]] = defaultdict(list)
    for record in runs:
        solved[record["incident"]].append(bool(record["score"].get("solved")))
    return {incident: sum(values) / len(values) for incident, values in solved.items()}


def _pair(model: str, first: str, second: str, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> Pair:
    left, right = _rates(a), _rates(b)
    shared = sorted(set(left) & set(right))
    wins = [i for i in shared if left[i] > right[i]]
    losses = [i for i in shared if left[i] < right[i]]
    rates = {i: (left[i], right[i]) for i in shared}
    return Pair(model, first, second, len(shared), wins, losses, sign_test(len(wins), len(losses)), rates)


# -- rendering ------------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{100 * ci[0]:.0f}-{100 * ci[1]:.0f}]"


def _metric(group: Group, name: str) -> str:
    found = group.metrics[name]
    if found["mean"] is None:
        return "n/a"
    return _pct(found["mean"]) + _ci(found["ci"])


def _cost(value: float, kind: str) -> str:
    if kind == "bytes_sent":
        return f"{value / 1000:.1f} KB"
    if kind == "wall_seconds":
        return f"{value:.1f} s"
    return f"{value:,.0f}" if value >= 100 else f"{value:g}"


def verdict(pair: Pair) -> str:
    """One sentence on a pair."""
    if not pair.wins and not pair.losses:
        return (
            f"{pair.first} and {pair.second} solve the same incidents equally often on {pair.model} "
            f"({plural(pair.incidents, 'incident')} compared)."
        )
    where = "beyond noise" if pair.beyond_noise else "within noise"
    return (
        f"On {pair.model}, {pair.first} does better on {plural(len(pair.wins), 'incident')} and {pair.second} on "
        f"{len(pair.losses)} of {pair.incidents}; exact sign test p = {pair.p_value:.3f}: {where} "
        f"(at {ALPHA:g})."
    )


def margin_text(group: Group) -> str:
    """A real model's margin over the best baseline: `+62 pts over handwritten · baseline:status`."""
    if group.margin is None:
        return "n/a"
    return f"{group.margin:+.0f} pts over {group.margin_over}"


def cell_text(records: list[dict[str, Any]]) -> str:
    """A drill-down cell: solved k/n, and what went wrong in the first unsolved run."""
    solved = sum(1 for r in records if r["score"].get("solved"))
    head = f"{'✓' if solved == len(records) else '✗'} {solved}/{len(records)}"
    wrong = next((r for r in records if not r["score"].get("solved")), None)
    if wrong is None:
        return head
    scored = wrong["score"]
    parts = []
    if wrong.get("error"):
        parts.append(f"error: {str(wrong['error'])[:100]}")
    if scored.get("missed") and scored.get("scorable", True):
        parts.append("missed " + ", ".join(scored["missed"]))
    if scored.get("extra"):
        parts.append("extra " + ", ".join(scored["extra"]))
    if scored.get("contradictory"):
        parts.append("contradictory " + "; ".join(scored["contradictory"]))
    elif scored.get("wrong_cause"):
        parts.append("cause " + "; ".join(scored["wrong_cause"]))
    if scored.get("fact_missing"):
        parts.append("no verified fact for " + ", ".join(scored["fact_missing"]))
    if scored.get("why_not") and not wrong.get("error"):
        parts.append(str(scored["why_not"]))
    return one_line(head + (": " + "; ".join(parts) if parts else ""))  # names the model wrote, on one line


def _truth(incident: Incident) -> str:
    if not incident.unhealthy:
        return "all healthy"
    return ", ".join(f"{r.name} ({r.cause})" for r in incident.unhealthy)


_COLUMNS = (
    "| implementation | model | runs | solved [95% CI] | {margin}recall | precision | cause | evidence | fact "
    "| errors | requests | tool calls | prompt tokens | sent | time | guardrails | forced summaries |"
)


def _markdown_row(g: Group, margin: bool) -> str:
    return (
        f"| {g.impl} | {g.model} | {g.runs} | {_pct(g.rate)}{_ci(g.solved_ci)} | "
        + (f"{margin_text(g)} | " if margin else "")
        + " | ".join(_metric(g, m) for m in METRICS)
        + f" | {g.errors} | {_cost(g.costs['requests'], 'requests')} | {_cost(g.costs['tool_calls'], 'n')} "
        f"| {_cost(g.costs['prompt_tokens'], 'n')} | {_cost(g.costs['bytes_sent'], 'bytes_sent')} "
        f"| {_cost(g.costs['wall_seconds'], 'wall_seconds')} | {g.guardrails} | {g.forced_summaries} |"
    )


def _markdown_table(groups: list[Group], margin: bool) -> list[str]:
    columns = 17 + margin
    return [
        _COLUMNS.format(margin="over the best baseline | " if margin else ""),
        "|" + "---|" * columns,
        *(_markdown_row(g, margin) for g in groups),
    ]


def markdown(report: EvalReport) -> str:
    labels = [g.label for g in report.groups]
    floors = bool(report.baselines)
    lines = [f"# Eval: {plural(len(report.incidents), 'incident')}, {plural(report.repeat, 'repeat')}", ""]
    lines += _markdown_table(report.real, floors)
    lines.append("")
    if floors:
        lines += ["Floor: the baselines (scripts, not models under test):", ""]
        lines += _markdown_table(report.baselines, False)
        lines.append("")
    else:
        lines += [NO_BASELINES, ""]
    lines.append(
        "Solved: every unhealthy resource found in its namespace, with its kind, a right cause and a "
        "verified quote holding its fact, nothing else reported (all healthy: no finding, after a "
        "successful tool call). Scores are means over every run (a failed or prose run counts 0 for "
        f"recall, cause and fact) with 95% intervals (solved: {SOLVED_CI}; the others: bootstrap over "
        "incidents); costs are medians per run; guardrails and forced summaries are totals."
    )
    if any(g.unscorable for g in report.groups):
        lines.append(
            "Runs with a prose report or no result cannot be solved "
            f"({', '.join(f'{g.label}: {g.unscorable}' for g in report.groups if g.unscorable)})."
        )
    for pair in report.pairs:
        lines += ["", f"## {pair.first} vs {pair.second} on {pair.model}", "", verdict(pair)]
        differing = pair.wins + pair.losses
        if differing:
            lines += ["", f"| incident | {pair.first} solved | {pair.second} solved |", "|---|---|---|"]
            for name in sorted(differing):
                first, second = pair.rates[name]
                lines.append(f"| {name} | {_pct(first)} | {_pct(second)} |")
    lines += ["", "## Per incident", "", "| incident | truth | " + " | ".join(labels) + " |"]
    lines.append("|---|---|" + "---|" * len(labels))
    for incident in report.incidents:
        row = report.cells.get(incident.id, {})
        cells = [cell_text(row[label]).replace("|", "\\|") if label in row else "" for label in labels]
        mark = " (changed since run)" if incident.id in report.changed else ""
        lines.append(f"| {incident.id}{mark} | {_truth(incident)} | " + " | ".join(cells) + " |")
    if report.changed:
        lines += ["", "## Incidents changed since their runs", ""]
        lines += [f"- {name}: {why}" for name, why in report.changed.items()]
    if report.unknown:
        lines += ["", "## Results for incidents not in the corpus (not scored)", ""]
        lines += [f"- {name}: {plural(runs, 'run')}" for name, runs in report.unknown.items()]
    if report.skipped:
        lines += ["", "## Skipped corpus entries", ""]
        lines += [f"- {name}: {why}" for name, why in report.skipped]
    if report.notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def as_json(report: EvalReport) -> dict[str, Any]:
    return {
        "kind": "k8s-agent-eval-report",
        "incidents": len(report.incidents),
        "repeat": report.repeat,
        "groups": [
            {
                "impl": g.impl,
                "model": g.model,
                "baseline": g.baseline,
                "runs": g.runs,
                "errors": g.errors,
                "solved": g.solved,
                "solved_rate": g.rate,
                "solved_ci": list(g.solved_ci),
                "margin_over_best_baseline": None
                if g.margin is None
                else {"baseline": g.margin_over, "points": g.margin},
                "metrics": {k: {**v, "ci": list(v["ci"]) if v["ci"] else None} for k, v in g.metrics.items()},
                "median_costs": g.costs,
                "guardrails": g.guardrails,
                "forced_summaries": g.forced_summaries,
                "unscorable": g.unscorable,
            }
            for g in report.groups
        ],
        "baselines": [g.label for g in report.baselines],
        "baselines_note": None if report.baselines else NO_BASELINES,
        "solved_interval": SOLVED_CI,
        "pairs": [
            {
                "model": p.model,
                "first": p.first,
                "second": p.second,
                "incidents": p.incidents,
                "first_better": p.wins,
                "second_better": p.losses,
                "p_value": p.p_value,
                "beyond_noise": p.beyond_noise,
                "verdict": verdict(p),
            }
            for p in report.pairs
        ],
        "per_incident": {
            incident.id: {
                "truth": [r.label + f": {r.cause}" for r in incident.unhealthy],
                "digest": incident.digest,
                "changed_since_run": report.changed.get(incident.id),
                "runs": {
                    label: [
                        {
                            "repeat": r["repeat"],
                            "error": r.get("error"),
                            "trace": r.get("trace"),
                            "incident_digest": r.get("incident_digest"),
                            **r["score"],
                        }
                        for r in records
                    ]
                    for label, records in report.cells.get(incident.id, {}).items()
                },
            }
            for incident in report.incidents
        },
        "rescored": {
            "runs": report.rescored,
            "verdicts_changed": report.verdicts_changed,
            "stored_scores_shown": report.stored,
        },
        "changed_since_run": report.changed,
        "unknown_incidents": report.unknown,
        "skipped": [{"incident": name, "problem": why} for name, why in report.skipped],
        "notes": report.notes,
    }


_STYLE = """
:root { color-scheme: light dark; --ok: #1a7f37; --bad: #b42318; --muted: #6b7280; --line: #d0d7de; }
@media (prefers-color-scheme: dark) { :root { --ok: #3fb950; --bad: #f85149; --muted: #9ca3af; --line: #30363d; } }
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; max-width: 1400px; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: color-mix(in srgb, var(--line) 35%, transparent); }
td.ok { color: var(--ok); } td.bad { color: var(--bad); }
.muted { color: var(--muted); } details { margin: 2px 0; } code { font-size: 12px; }
figure.chart { margin: 12px 0; max-width: 760px; } figure.chart figcaption { color: var(--muted); font-size: 12px; }
.charts-missing { color: var(--muted); font-style: italic; }
.changed { color: var(--bad); }
#floor td { color: var(--muted); }
"""


def _scores(report: EvalReport) -> list[charts.Score]:
    """The chart's points: solved, then each metric, per group (metrics with no score left out);
    the baselines' points are floor points."""
    points = []
    for g in report.groups:
        if g.runs:
            low, high = g.solved_ci
            points.append(charts.Score(g.label, g.impl, "solved", g.solved / g.runs, low, high, g.baseline))
        for name in METRICS:
            found = g.metrics[name]
            if found["mean"] is None:
                continue
            low, high = found["ci"] or (found["mean"], found["mean"])
            points.append(
                charts.Score(g.label, g.impl, name, float(found["mean"]), float(low), float(high), g.baseline)
            )
    return points


def _html_table(report: EvalReport, groups: list[Group], *, floor: bool) -> str:
    h = escape.escape
    margin = not floor and bool(report.baselines)
    head = (
        f"<table id='{'floor' if floor else 'scores'}'><tr><th>implementation</th><th>model</th><th>runs</th>"
        "<th>solved [95% CI]</th>"
        + ("<th>over the best baseline</th>" if margin else "")
        + "".join(f"<th>{m}</th>" for m in METRICS)
        + "<th>errors</th><th>requests</th><th>tool calls</th><th>sent</th><th>time</th>"
        "<th>guardrails</th><th>forced summaries</th></tr>"
    )
    rows = [
        f"<tr data-{'floor' if floor else 'group'}='{h(g.label)}'><td>{h(g.impl)}</td><td>{h(g.model)}</td>"
        f"<td>{g.runs}</td><td>{_pct(g.rate)}{_ci(g.solved_ci)}</td>"
        + (f"<td class='margin'>{h(margin_text(g))}</td>" if margin else "")
        + "".join(f"<td>{_metric(g, m)}</td>" for m in METRICS)
        + f"<td>{g.errors}</td><td>{_cost(g.costs['requests'], 'n')}</td><td>{_cost(g.costs['tool_calls'], 'n')}</td>"
        f"<td>{_cost(g.costs['bytes_sent'], 'bytes_sent')}</td><td>{_cost(g.costs['wall_seconds'], 'wall_seconds')}</td>"
        f"<td>{g.guardrails}</td><td>{g.forced_summaries}</td></tr>"
        for g in groups
    ]
    return head + "".join(rows) + "</table>"


def html(report: EvalReport) -> str:
    h = escape.escape
    labels = [g.label for g in report.groups]
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>k8s-agent eval</title><style>" + _STYLE + "</style></head><body>",
        f"<h1>Eval: {plural(len(report.incidents), 'incident')}, {plural(report.repeat, 'repeat')}</h1>",
        _html_table(report, report.real, floor=False),
    ]
    if report.baselines:
        out.append("<h3>Floor: the baselines (scripts, not models under test)</h3>")
        out.append(_html_table(report, report.baselines, floor=True))
    else:
        out.append(f"<p class='no-baselines'>{h(NO_BASELINES)}</p>")
    out.append(
        "<p class='muted'>Solved: every unhealthy resource found in its namespace, with its kind, a right "
        "cause and a verified quote holding its fact, nothing else reported (all healthy: no finding, after "
        "a successful tool call). Means over every run with 95% intervals (solved: "
        f"{h(SOLVED_CI)}; others: bootstrap over incidents); costs are medians per run.</p>"
    )
    drawing = charts.available()
    if drawing and report.groups:
        out.append(
            "<figure class='chart' id='scores-chart'>"
            + charts.scores_chart(_scores(report))
            + "<figcaption>Each score per implementation and model: the dot is the mean, the whisker its 95% "
            f"interval (solved: {h(SOLVED_CI)}; the others: bootstrap over incidents); hollow grey rings: "
            "the baselines, the floor.</figcaption></figure>"
        )
    elif not drawing:
        out.append(f"<p class='charts-missing'>{h(charts.NOTE, quote=False)}</p>")
    for pair in report.pairs:
        out.append(
            f"<h2>{h(pair.first)} vs {h(pair.second)} on {h(pair.model)}</h2><p class='pair'>{h(verdict(pair))}</p>"
        )
        if drawing and pair.rates:
            differences = {incident: a - b for incident, (a, b) in pair.rates.items()}
            out.append(
                f"<figure class='chart pair-chart' data-pair='{h(pair.first)} vs {h(pair.second)} on {h(pair.model)}'>"
                + charts.pair_chart(pair.first, pair.second, differences)
                + f"<figcaption>Per incident: {h(pair.first)}'s solved rate minus {h(pair.second)}'s, in "
                "percentage points (a dot on 0: the same). The sign test above counts the bars on each side."
                "</figcaption></figure>"
            )
    out.append(
        "<h2>Per incident</h2><table id='incidents'><tr><th>incident</th><th>truth</th>"
        + "".join(f"<th>{h(label)}</th>" for label in labels)
        + "</tr>"
    )
    for incident in report.incidents:
        row = report.cells.get(incident.id, {})
        out.append(
            f"<tr data-incident='{h(incident.id)}'><td><b>{h(incident.id)}</b><br>"
            f"<span class='muted'>{h(incident.summary)}</span>"
            + (
                f"<br><span class='changed'>{h(report.changed[incident.id])}</span>"
                if incident.id in report.changed
                else ""
            )
            + f"</td><td>{h(_truth(incident))}</td>"
        )
        for label in labels:
            records = row.get(label, [])
            if not records:
                out.append("<td></td>")
                continue
            solved = all(r["score"].get("solved") for r in records)
            traces = "".join(
                f"<li>#{r['repeat']}: <a href='{h(Path(r['trace']).as_uri())}'>trace</a></li>"
                if r.get("trace") and Path(r["trace"]).is_absolute()
                else f"<li>#{r['repeat']}: no trace</li>"
                for r in records
            )
            findings = "".join(
                f"<li><code>{h(one_line(str(f.get('name'))))}</code>: {h(str(f.get('cause')))}</li>"
                for f in ((records[0].get("report") or {}).get("findings") or [])
            )
            out.append(
                f"<td class='{'ok' if solved else 'bad'}' data-solved='{str(solved).lower()}'>"
                f"<details><summary>{h(cell_text(records))}</summary>"
                f"<p>findings of #1:</p><ul>{findings or '<li>none</li>'}</ul><ul>{traces}</ul></details></td>"
            )
        out.append("</tr>")
    out.append("</table>")
    if report.changed:
        out.append(
            "<h2>Incidents changed since their runs</h2><ul id='changed'>"
            + "".join(f"<li>{h(name)}: {h(why)}</li>" for name, why in report.changed.items())
            + "</ul>"
        )
    if report.unknown:
        out.append(
            "<h2>Results for incidents not in the corpus (not scored)</h2><ul id='unknown'>"
            + "".join(f"<li>{h(name)}: {plural(runs, 'run')}</li>" for name, runs in report.unknown.items())
            + "</ul>"
        )
    if report.skipped:
        out.append(
            "<h2>Skipped corpus entries</h2><ul>"
            + "".join(f"<li>{h(name)}: {h(why)}</li>" for name, why in report.skipped)
            + "</ul>"
        )
    if report.notes:
        out.append("<ul class='muted'>" + "".join(f"<li>{h(n)}</li>" for n in report.notes) + "</ul>")
    out.append("</body></html>\n")
    return "\n".join(out)
