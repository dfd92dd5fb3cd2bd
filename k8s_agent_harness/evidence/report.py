"""The verifiable report: structured findings whose every quote is checked against the tool results.

The model writes its final report as a `HealthReport` (JSON): the scope, one finding per unhealthy
resource (kind, name, namespace, status, a cause from a fixed taxonomy with a sentence, the evidence
as verbatim quotes each tied to the tool call it came from, the fix), the healthy resources as a
count with a few names, and what could not be checked. The harness does not trust it: every quote
must appear in a tool result of this run (whitespace normalised) and every finding must name a
resource a tool returned. A report that does not parse, does not validate or does not verify gets
one correction turn that names exactly what is wrong; what is still unverified after it is kept
and marked so, never dropped and never shown as fact.

Report formats (`--report-format`): `json_schema` (the request carries `response_format` with the
schema: OpenAI, and the offline model), `json_text` (the schema is described in the instructions
and the answer parsed from the text: any endpoint), `prose` (today's free text, checked by name
grounding only), `auto` (json_schema for api.openai.com and the offline model, json_text elsewhere).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

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
    informative,
    kinds_match,
    normalised,
    sources_of,
    span_about,
    span_subject,
)
from k8s_agent_harness.evidence.redact import one_line
from k8s_agent_harness.evidence.shapes import STATUSLESS, is_name
from k8s_agent_harness.evidence.shapes.status import healthy, unshown
from k8s_agent_harness.vocabulary import ReportFormat

REPORT_SCHEMA_VERSION = 2

# Limits of the report, so that an oversized one is a schema error the correction turn names.
MAX_FINDINGS = 30
MAX_QUOTES = 8
MAX_QUOTE_CHARACTERS = 1000
MAX_NAME_CHARACTERS = 253
"""A Kubernetes object name (a DNS subdomain) is at most 253 characters."""
MAX_NAMESPACE_CHARACTERS = 63
MAX_STATUS_CHARACTERS = 200
MAX_SENTENCE_CHARACTERS = 1000
"""An explanation or a fix."""
MAX_SCOPE_CHARACTERS = 300
MAX_UNCHECKED = 20
MAX_UNCHECKED_CHARACTERS = 1000
MAX_REPORT_BYTES = 32_768
"""The report as the model writes it (UTF-8), whatever its fields: one bound for the terminal, the
trace and the correction turn's context (where a longer answer is cut to it)."""


class Cause(StrEnum):
    """Why a resource is unhealthy: the fixed taxonomy the report (and the eval) speaks."""

    CRASH_CONFIG = "crash_config"
    """The application exits at start-up: a missing setting, a bad flag or config file."""
    CRASH_APPLICATION = "crash_application"
    """The application crashes for another reason its logs show."""
    OOM_KILLED = "oom_killed"
    """The container exceeds its memory limit and is killed."""
    IMAGE_NOT_FOUND = "image_not_found"
    """The image or its tag does not exist in the registry."""
    IMAGE_UNAUTHORIZED = "image_unauthorized"
    """The registry refuses the image without (the right) credentials."""
    IMAGE_PULL_FAILED = "image_pull_failed"
    """The image cannot be pulled for another reason (registry unreachable, rate limited)."""
    INSUFFICIENT_RESOURCES = "insufficient_resources"
    """No node has the free CPU, memory or pod slots the pod requests."""
    NODE_SELECTOR_MISMATCH = "node_selector_mismatch"
    """No node matches the pod's node selector or affinity."""
    UNTOLERATED_TAINT = "untolerated_taint"
    UNBOUND_VOLUME = "unbound_volume"
    """The pod waits for a PersistentVolumeClaim that is not bound."""
    UNSCHEDULABLE = "unschedulable"
    """The scheduler cannot place the pod for another reason."""
    QUOTA_EXCEEDED = "quota_exceeded"
    MISSING_CONFIG_REFERENCE = "missing_config_reference"
    """CreateContainerConfigError: a ConfigMap or Secret (or a key of one) that does not exist."""
    READINESS_PROBE_FAILURE = "readiness_probe_failure"
    LIVENESS_PROBE_FAILURE = "liveness_probe_failure"
    INIT_CONTAINER_FAILURE = "init_container_failure"
    JOB_BACKOFF_LIMIT = "job_backoff_limit"
    EVICTED = "evicted"
    NODE_NOT_READY = "node_not_ready"
    NODE_PRESSURE = "node_pressure"
    """Memory, disk or PID pressure, or the network unavailable."""
    DEPENDENCY_DOWN = "dependency_down"
    """Healthy itself, failing because something it needs is down."""
    SERVICE_NO_ENDPOINTS = "service_no_endpoints"
    """A Service routes to no ready pod: its selector or port matches none, or none of them is ready."""
    NETWORK_POLICY = "network_policy"
    """A NetworkPolicy drops traffic the workload needs."""
    AUTOSCALER_LIMIT = "autoscaler_limit"
    """An autoscaler is held at its maximum replicas, or cannot read the metrics it scales on."""
    UNKNOWN = "unknown"


class QuoteCheck(StrEnum):
    """What the harness found a quote to be (set by the harness)."""

    VERIFIED = "verified"
    """In a successful result of a cluster tool, about this finding's resource, with information of its own."""
    NOT_FOUND = "not_found"
    """In no tool result of this run."""
    ERROR_TEXT = "error_text"
    """Only in the error message of a failed call: what the call was asked, not the cluster's state."""
    OTHER_RESOURCE = "other_resource"
    """In a result, but one about another resource than the finding's."""
    TOO_SHORT = "too_short"
    """Too little of its own to be evidence (`ok`, `1`), or only what the call itself was asked."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _without(data: Any, *harness_fields: str) -> Any:
    """The model's input without the fields only the harness sets (a model cannot mark itself verified)."""
    if isinstance(data, dict):
        return {key: value for key, value in data.items() if key not in harness_fields}
    return data


class Quote(_Model):
    """A line of evidence, copied verbatim from a tool result of this run."""

    text: str = Field(
        max_length=MAX_QUOTE_CHARACTERS, description="The exact text as it appears in the tool result."
    )
    call_id: str | None = Field(
        default=None, max_length=200, description="The id of the tool call whose result it is from."
    )
    tool: str | None = Field(default=None, max_length=200, description="That tool's name.")
    verified: SkipJsonSchema[bool | None] = None
    """Set by the harness: whether the quote is evidence for its finding."""
    check: SkipJsonSchema[QuoteCheck | None] = None
    """Set by the harness: what the quote was found to be."""
    about: SkipJsonSchema[str | None] = None
    """Set by the harness: the resource a quote of another resource's result is about."""

    _harness = model_validator(mode="before")(lambda data: _without(data, "verified", "check", "about"))


class Finding(_Model):
    """One unhealthy resource."""

    kind: Literal["pod", "node", "deployment", "job", "pvc", "service", "other"] = "pod"
    name: str = Field(max_length=MAX_NAME_CHARACTERS)
    namespace: str | None = Field(default=None, max_length=MAX_NAMESPACE_CHARACTERS)
    status: str = Field(
        max_length=MAX_STATUS_CHARACTERS,
        description="As the tools show it: CrashLoopBackOff, Pending, NotReady, READY 0/1, ...",
    )
    cause: Cause
    explanation: str = Field(
        max_length=MAX_SENTENCE_CHARACTERS, description="One sentence: why, in the evidence's terms."
    )
    evidence: list[Quote] = Field(min_length=1, max_length=MAX_QUOTES)
    fix: str = Field(max_length=MAX_SENTENCE_CHARACTERS)
    name_verified: SkipJsonSchema[bool | None] = None
    """Set by the harness: whether a tool showed this resource, of this kind, in this namespace."""
    status_verified: SkipJsonSchema[bool | None] = None
    """Set by the harness: whether the status is what the tools showed for it."""

    _harness = model_validator(mode="before")(lambda data: _without(data, "name_verified", "status_verified"))


class Healthy(_Model):
    """The healthy resources: how many, and a few names at most."""

    count: int = Field(ge=0)
    examples: list[Annotated[str, Field(max_length=MAX_NAME_CHARACTERS)]] = Field(
        default_factory=list, max_length=5
    )
    unverified_examples: SkipJsonSchema[list[str] | None] = None
    """Set by the harness: the examples that name nothing a tool showed."""

    _harness = model_validator(mode="before")(lambda data: _without(data, "unverified_examples"))


class HealthReport(_Model):
    """The final report of an investigation."""

    schema_version: int = Field(
        default=REPORT_SCHEMA_VERSION, description="Set by the harness: the version of this schema."
    )
    scope: str = Field(
        max_length=MAX_SCOPE_CHARACTERS, description="What was checked, e.g. 'pods in namespace production'."
    )
    findings: list[Finding] = Field(default_factory=list, max_length=MAX_FINDINGS)
    healthy: Healthy = Field(default_factory=lambda: Healthy(count=0))
    unchecked: list[Annotated[str, Field(max_length=MAX_UNCHECKED_CHARACTERS)]] = Field(
        default_factory=list, max_length=MAX_UNCHECKED, description="What could not be checked, and why."
    )


REPORT_ADAPTER: TypeAdapter[HealthReport] = TypeAdapter(HealthReport)
REPORT_JSON_SCHEMA: dict[str, Any] = REPORT_ADAPTER.json_schema()


def response_format() -> dict[str, Any]:
    """The `response_format` of a request that wants the report (as the SDK writes it for an
    output type with a non-strict schema, so both agents send the same)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "final_output", "strict": False, "schema": REPORT_JSON_SCHEMA},
    }


def report_fields(report_mode: ReportFormat, api: str) -> dict[str, Any]:
    """What every request of a run adds to ask for the report: on Chat Completions `response_format`,
    on the Responses API `text.format` (as the SDK writes each for its output type); nothing
    unless the report is asked for by its schema."""
    if report_mode is not ReportFormat.JSON_SCHEMA:
        return {}
    if api == "responses":
        return {
            "text": {
                "format": {
                    "type": "json_schema",
                    "name": "final_output",
                    "schema": REPORT_JSON_SCHEMA,
                    "strict": False,
                }
            }
        }
    return {"response_format": response_format()}


# -- reading the model's answer ---------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


def parse_report(text: str) -> tuple[HealthReport | None, str | None]:
    """The report in an answer (bare JSON, or JSON in a ``` fence), or why there is none."""
    size = len(text.encode("utf-8", "replace"))
    if size > MAX_REPORT_BYTES:
        return None, (
            f"the report is {size:,} bytes, more than the limit of {MAX_REPORT_BYTES:,}: at most "
            f"{MAX_FINDINGS} findings, each with a one-sentence explanation and fix and at most {MAX_QUOTES} "
            "quotes of a line each"
        )
    candidate = text.strip()
    fenced = _FENCE.search(candidate)
    if fenced:
        candidate = fenced[1]
    elif not candidate.startswith("{") and "{" in candidate and "}" in candidate:
        candidate = candidate[candidate.index("{") : candidate.rindex("}") + 1]
    try:
        data = json.loads(candidate)
    except ValueError as error:
        return None, f"the report is not valid JSON: {error}"
    try:
        return REPORT_ADAPTER.validate_python(data), None
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(part) for part in problem['loc']) or '<root>'}: {problem['msg']}"
            for problem in error.errors()[:8]
        ]
        more = f" (and {error.error_count() - 8} more)" if error.error_count() > 8 else ""
        return None, "the report does not fit the schema: " + "; ".join(problems) + more


# -- verification -------------------------------------------------------------------------------------


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
                # Short, but about the resource: its whole line would do; the correction says so.
                line = reading.line_of(start)
                useful = (
                    span_about(source, reading, start, end, subject, owners)
                    and len(line) <= MAX_SUGGESTED_LINE
                )
                found = (QuoteCheck.TOO_SHORT, line if useful and _informative_line(line) else None)
            elif span_about(source, reading, start, end, subject, owners):
                return QuoteCheck.VERIFIED, None
            else:
                found = (QuoteCheck.OTHER_RESOURCE, span_subject(source, reading, start, end, owners))
            if best is None or _RANK[found[0]] < _RANK[best[0]] or (found[0] is best[0] and not best[1]):
                best = found
    return best


MAX_SUGGESTED_LINE = 300


def _informative_line(line: str) -> bool:
    return informative(line) >= MIN_QUOTE_CHARACTERS


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


# -- rendering ----------------------------------------------------------------------------------------


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


def instructions() -> str:
    """How to write the report, for the system prompt of the json modes (and the correction turn)."""
    causes = ", ".join(cause.value for cause in Cause)
    return (
        "Write the final report as one JSON object, and nothing else, with these fields: "
        '"scope" (what was checked); "findings": one per unhealthy resource, each with "kind" (pod, node, '
        'deployment, job, pvc, service, other), "name", "namespace", "status", "cause" (one of: '
        f'{causes}), "explanation" (one sentence), "evidence": a list of quotes, each {{"text": a line '
        'copied exactly from a tool result, "call_id": the id of that tool call, "tool": its name}, and '
        '"fix"; "healthy": {"count", "examples": at most five names}; "unchecked": what could not be '
        "checked. Quote only text that appears in a tool result of this conversation."
    )
