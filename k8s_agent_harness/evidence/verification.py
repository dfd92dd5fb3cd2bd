"""The verification of a report against the run's tool results: each quote found in a result and about
its finding's resource, each finding's resource and status as a tool showed them, the healthy examples
among what the tools showed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_harness.evidence.provenance import (
    MIN_LINE_CHARACTERS,
    MIN_QUOTE_CHARACTERS,
    NAMING_ARGUMENTS,
    WORKLOAD_KINDS,
    Owners,
    Reading,
    Record,
    Resource,
    Source,
    Subject,
    kinds_match,
    normalised,
    sources_of,
    span_about,
    span_subject,
)
from k8s_agent_harness.evidence.redact import one_line
from k8s_agent_harness.evidence.report import (
    REPORT_SCHEMA_VERSION,
    Finding,
    HealthReport,
    Quote,
    QuoteCheck,
)
from k8s_agent_harness.evidence.shapes import STATUSLESS, is_name
from k8s_agent_harness.evidence.shapes.status import healthy, unshown


@dataclass(frozen=True)
class Shown:
    """The resources of one kind that the run's successful tool results showed: how many distinct
    ones, in which namespaces (none for cluster-scoped ones), and which tools showed them. What a
    report with no findings rests on."""

    kind: str | None
    """`pod`, `node`, ...; None for resources a result showed without saying their kind."""
    count: int
    namespaces: tuple[str, ...]
    tools: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """The `--json` form."""
        return {
            "kind": self.kind,
            "count": self.count,
            "namespaces": list(self.namespaces),
            "tools": list(self.tools),
        }


def shown_resources(sources: Sequence[Source]) -> list[Shown]:
    """What the successful results showed, by kind (the most shown first); namespaces are not
    counted as resources. A resource shown once with its kind (or namespace) and once without is
    one resource."""
    tools: dict[Resource, set[str]] = {}
    for source in sources:
        for record in source.records:
            if record.resource.kind != "namespace":
                tools.setdefault(record.resource, set()).add(source.tool)
    kinded = {(r.name, r.namespace) for r in tools if r.kind is not None}
    placed = {(r.kind, r.name) for r in tools if r.namespace is not None}
    groups: dict[str | None, list[Resource]] = {}
    for resource in tools:
        if resource.kind is None and (resource.name, resource.namespace) in kinded:
            continue
        if resource.namespace is None and (resource.kind, resource.name) in placed:
            continue
        groups.setdefault(resource.kind, []).append(resource)
    shown = [
        Shown(
            kind,
            len(resources),
            tuple(sorted({r.namespace for r in resources if r.namespace})),
            tuple(sorted({tool for r in resources for tool in tools[r]})),
        )
        for kind, resources in groups.items()
    ]
    return sorted(shown, key=lambda group: (-group.count, group.kind or "~"))


@dataclass
class Verification:
    """The harness's check of a report: what is verified, and what is not (with the reason)."""

    report: HealthReport
    problems: list[str] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    """What the run's tool results showed, by kind: what a report with no findings rests on."""

    @property
    def verified(self) -> bool:
        """Whether every quote, name, namespace, status and example checked out."""
        return not self.problems

    @property
    def unverified_names(self) -> list[str]:
        """The findings' names that no tool showed as a resource of their kind and namespace."""
        return [finding.name for finding in self.report.findings if finding.name_verified is False]


_RANK = {
    QuoteCheck.VERIFIED: 0,
    QuoteCheck.OTHER_RESOURCE: 1,
    QuoteCheck.TOO_SHORT: 2,
    QuoteCheck.ERROR_TEXT: 3,
    QuoteCheck.NOT_FOUND: 4,
}


def verify(report: HealthReport, results: Sequence[Any]) -> Verification:
    """Check a report against the run's tool results, by their provenance (provenance.py).

    `results` are `provenance.Source`s, or the `grounding.ToolText`s they are made from. For each
    finding: its name must be a resource a successful result showed, of its kind, in the
    namespace it claims; its status, word for word, what those records' status fields showed; each
    quote must be text of a successful result (never a failed call's error, never the harness's
    search tool's own words) inside a record about that resource (or free text of a call that named
    it), with information beyond what the call was asked. A quote's `call_id` and `tool` are set to
    where the text really is. The healthy examples must be resources a tool showed, and showed
    healthy. Each failure is listed, in words the correction turn sends back.
    """
    known = (
        [r for r in results if isinstance(r, Source)]
        if all(isinstance(r, Source) for r in results)
        else sources_of(results)
    )
    owners = Owners(known)
    checked = report.model_copy(deep=True, update={"schema_version": REPORT_SCHEMA_VERSION})
    problems: list[str] = []
    for finding in checked.findings:
        problems += _check_resource(finding, known, owners)
        for quote in finding.evidence:
            problem = _check_quote(quote, finding, known, owners)
            if problem:
                problems.append(problem)
    examples = _healthy_examples(checked.healthy.examples, known, owners)
    checked.healthy.unverified_examples = [example for example, _ in examples]
    problems += [problem for _, problem in examples]
    return Verification(checked, problems, shown_resources(known))


def _healthy_examples(
    examples: Sequence[str], sources: Sequence[Source], owners: Owners
) -> list[tuple[str, str]]:
    """The healthy examples that are not a resource a tool showed, and showed healthy, each with why
    (a finished pod of a controller that keeps its pods running is not healthy)."""
    shown: dict[str, list[bool | None]] = {}
    wanted = {example.strip() for example in examples}
    for source in sources:
        for record in source.records:
            resource = record.resource
            if resource.kind != "namespace" and resource.name in wanted:
                keeps = resource.kind == "pod" and owners.long_running(resource.name, resource.namespace)
                shown.setdefault(resource.name, []).append(healthy(record, keeps))
    found = []
    for example in examples:
        seen = shown.get(example.strip())
        if seen is None or not is_name(example.strip()):
            found.append((example, f"the healthy example {_clip(example)!r} names nothing a tool showed"))
        elif False in seen:
            found.append(
                (
                    example,
                    f"the healthy example {_clip(example)!r} is not healthy: the tools showed it unhealthy",
                )
            )
        elif True not in seen:
            found.append(
                (
                    example,
                    f"the healthy example {_clip(example)!r} is not shown healthy by any tool (no status)",
                )
            )
    return found


def _subject(finding: Finding) -> Subject:
    return Subject(finding.kind, finding.name.strip(), (finding.namespace or "").strip() or None)


def _check_resource(finding: Finding, sources: Sequence[Source], owners: Owners) -> list[str]:
    """The finding's name, namespace and status against what the results showed; its marks set."""
    subject = _subject(finding)
    name, namespace = subject.name, subject.namespace
    label = f"finding {_clip(finding.name)!r}"
    named = [
        record
        for source in sources
        for record in source.records
        if record.resource.name == name and kinds_match(finding.kind, record.resource.kind)
    ]
    if not named and finding.kind in WORKLOAD_KINDS:
        # A workload named by its pods: the tools showed pods its controller generated.
        named = [
            record
            for source in sources
            for record in source.records
            if record.resource.kind == "pod"
            and owners.pod_of(record.resource.name, record.resource.namespace, subject)
        ]
    finding.status_verified = None
    if not name or not is_name(name) or not named:
        finding.name_verified = False
        return [
            f"{label} names a {finding.kind} that no tool returned as a resource (a listing row, a describe header or an "
            "event's object)"
        ]
    seen = named
    if namespace is not None and finding.kind != "node":
        seen = [record for record in named if record.resource.namespace in (namespace, None)]
        if not any(record.resource.namespace == namespace for record in seen):
            finding.name_verified = False
            elsewhere = sorted({r.resource.namespace for r in named if r.resource.namespace})
            shown = f"only in namespace {', '.join(elsewhere)}" if elsewhere else "with no namespace"
            return [f"{label} says namespace {_clip(namespace)!r}, but the tools showed {name} {shown}"]
    finding.name_verified = True
    problems = _check_status(finding, label, seen)
    if problems:
        unread = [
            record
            for source in sources
            for record in source.unread_records
            if record.resource.name == name and kinds_match(finding.kind, record.resource.kind)
        ]
        checked = unshown(finding.status, unread) if unread else None
        if checked is not None and checked.stated and not checked.missing and not checked.past:
            problems.append(
                f"the status {_clip(finding.status)!r} of {label} is what a result's structured content "
                "says, but not its text, which is what the model was shown: the two views of that result "
                "disagree; write what the text shows"
            )
    return problems


def _check_status(finding: Finding, label: str, records: Sequence[Record]) -> list[str]:
    """The status, field by field, against the status fields of the records that show the resource;
    a resource of a kind with no status of its own (a Service, a NetworkPolicy) has none to check."""
    if records and all(record.resource.kind in STATUSLESS for record in records):
        finding.status_verified = None
        return []
    checked = unshown(finding.status, records)
    missing, stated = checked.missing, checked.stated
    finding.status_verified = stated and not missing and not checked.past
    problems = []
    if not stated and not missing and not checked.past:
        problems.append(
            f"the status {_clip(finding.status)!r} of {label} states nothing the tools showed: write it as "
            "they show it (e.g. CrashLoopBackOff, READY 0/1, 14 restarts)"
        )
    if missing:
        listed = ", ".join(repr(word) for word in missing)
        problems.append(
            f"the status {_clip(finding.status)!r} of {label} is not what the tools showed for it: {listed} "
            f"in none of its status fields as the tools showed them for {finding.kind} {finding.name.strip()} "
            "(a value written after a field's name must be that field's, a number beside the field it counts)"
        )
    if checked.past:
        listed = ", ".join(repr(word) for word in checked.past)
        problems.append(
            f"the status {_clip(finding.status)!r} of {label} gives its history as its status: {listed} only "
            f"in its last state or its events, which say what {finding.kind} {finding.name.strip()} was, not how "
            "it is now: write how it is now as the tools show it, and say 'last' of what it was"
        )
    return problems


def _check_quote(quote: Quote, finding: Finding, sources: Sequence[Source], owners: Owners) -> str | None:
    """Find the quote where it is evidence for this finding; mark it; the problem, if any."""
    text = normalised(quote.text)
    best: tuple[QuoteCheck, Source | None, str | None] = (QuoteCheck.NOT_FOUND, None, None)
    where: Source | None
    if text:
        cited = [source for source in sources if source.call_id == quote.call_id]
        others = [source for source in sources if source.call_id != quote.call_id]
        for source in [*cited, *others]:
            found = _find(text, source, _subject(finding), owners)
            if found is not None and _RANK[found[0]] < _RANK[best[0]]:
                best = (found[0], source, found[1])
                if found[0] is QuoteCheck.VERIFIED:
                    break
    check, where, detail = best
    quote.check, quote.verified = check, check is QuoteCheck.VERIFIED
    quote.about = detail if check is QuoteCheck.OTHER_RESOURCE else None
    if where is not None:
        quote.call_id, quote.tool = where.call_id or quote.call_id, where.tool or quote.tool
    said = f"the quote {_clip(quote.text)!r} (finding {_clip(finding.name, 80)})"
    if check is QuoteCheck.VERIFIED:
        return None
    if check is QuoteCheck.NOT_FOUND:
        return f"{said} appears in no tool result of this run"
    if check is QuoteCheck.ERROR_TEXT:
        return (
            f"{said} is only in the error of a failed call ({quote.tool}): an error says what the call was "
            "asked, not what the cluster shows; quote a successful result"
        )
    if check is QuoteCheck.TOO_SHORT:
        return (
            f"{said} is too short to be evidence: quote a whole line of the result, or at least "
            f"{MIN_QUOTE_CHARACTERS} letters or digits of it beyond what the call itself was asked"
            + (f" (here, the line {_clip(detail, MAX_SUGGESTED_LINE)!r})" if detail else "")
        )
    resource = f"{finding.kind} {_clip(finding.name, 80)}"
    origin = (
        f"a result about {detail}, not about {resource}"
        if detail
        else f"no one resource's record (it is free text of a call that named no resource, or it runs across "
        f"the records of several), not about {resource}"
    )
    return f"{said} is from {origin}: quote what the tools showed for it"


def _find(
    text: str, source: Source, subject: Subject, owners: Owners
) -> tuple[QuoteCheck, str | None] | None:
    """The best the quote can be in this source for this finding, or None if it is not there."""
    best: tuple[QuoteCheck, str | None] | None = None
    for reading in source.readings:
        for start, end in reading.occurrences(text):
            if not source.ok:
                found: tuple[QuoteCheck, str | None] = (QuoteCheck.ERROR_TEXT, None)
            elif not _informative(reading, start, end):
                # Short, but about the resource: its whole line would do, when a quote of that line
                # would be evidence itself; the correction says so.
                line, span = reading.line_of(start), reading.line_span(start)
                useful = (
                    span is not None
                    and span_about(source, reading, start, end, subject, owners)
                    and len(line) <= MAX_SUGGESTED_LINE
                    and _informative(reading, *span)
                )
                found = (QuoteCheck.TOO_SHORT, line if useful else None)
            elif span_about(source, reading, start, end, subject, owners):
                return QuoteCheck.VERIFIED, None
            else:
                found = (QuoteCheck.OTHER_RESOURCE, span_subject(source, reading, start, end, owners))
            if best is None or _RANK[found[0]] < _RANK[best[0]] or (found[0] is best[0] and not best[1]):
                best = found
    return best


MAX_SUGGESTED_LINE = 300


_KEY = re.compile(r"\s*-?\s*\"?([A-Za-z][\w ./-]*)\"?\s*[:=]")
"""A field's name at the start of a line (`Name:`, `"name":`, `- name:`)."""
_NAMING_KEYS = frozenset(
    {
        *NAMING_ARGUMENTS,
        "service",
        "deployment",
        "statefulset",
        "daemonset",
        "replicaset",
        "job",
        "cronjob",
        "ingress",
        "pvc",
        "claim",
        "claimname",
        "id",
        "uid",
        "pattern",
        "query",
        "search",
        "filter",
        "target",
        "host",
        "hostname",
    }
)
"""Keys that name what a line is about: a line of one of them whose value is only the argument given
back says nothing (`Name: web-1`, `pod: web-1`)."""


def _informative(reading: Reading, start: int, end: int) -> bool:
    """Whether text[start:end] says more than the call asked: enough letters or digits of its own, or a
    whole line with a few of its own, where a field's value is not just the argument given back
    (`Name: web-1` for a call about web-1 says nothing)."""
    own = reading.own_characters(start, end)
    if own >= MIN_QUOTE_CHARACTERS:
        return True
    if not reading.whole_line(start, end):
        return False
    key = _KEY.match(reading.text, start, end)
    if key is not None and reading.own_characters(key.end(), end) == 0:
        # The value is the argument given back: a field that names the object says nothing; one
        # that relates the object to another (a Service selector's `app: payments-api`) says how,
        # inside an API object (free text that repeats the name under some key is still echo).
        label = key[1].strip()
        word = re.sub(r"[_-]", "", label.rsplit("/", 1)[-1].rsplit(".", 1)[-1]).lower()
        record, _ = reading.place(start, end)
        inside = record is not None and record.whole_object
        return inside and own >= 3 and " " not in label and word not in _NAMING_KEYS
    return own >= MIN_LINE_CHARACTERS


def _clip(text: str, width: int = 160) -> str:
    """A text on one line, cut to `width` characters (control characters escaped)."""
    line = one_line(normalised(text))
    return line if len(line) <= width else line[: width - 1] + "…"
