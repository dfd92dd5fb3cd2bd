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
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

REPORT_SCHEMA_VERSION = 1


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
    UNKNOWN = "unknown"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Quote(_Model):
    """A line of evidence, copied verbatim from a tool result of this run."""

    text: str = Field(description="The exact text as it appears in the tool result.")
    call_id: str | None = Field(default=None, description="The id of the tool call whose result it is from.")
    tool: str | None = Field(default=None, description="That tool's name.")
    verified: bool | None = Field(default=None, description="Set by the harness, not by the model.")


class Finding(_Model):
    """One unhealthy resource."""

    kind: Literal["pod", "node", "deployment", "job", "pvc", "service", "other"] = "pod"
    name: str
    namespace: str | None = None
    status: str = Field(
        description="As the tools show it: CrashLoopBackOff, Pending, NotReady, READY 0/1, ..."
    )
    cause: Cause
    explanation: str = Field(description="One sentence: why, in the evidence's terms.")
    evidence: list[Quote] = Field(min_length=1)
    fix: str
    name_verified: bool | None = Field(default=None, description="Set by the harness, not by the model.")


class Healthy(_Model):
    """The healthy resources: how many, and a few names at most."""

    count: int = Field(ge=0)
    examples: list[str] = Field(default_factory=list, max_length=5)


class HealthReport(_Model):
    """The final report of an investigation."""

    schema_version: int = Field(
        default=REPORT_SCHEMA_VERSION, description="Set by the harness: the version of this schema."
    )
    scope: str = Field(description="What was checked, e.g. 'pods in namespace production'.")
    findings: list[Finding] = Field(default_factory=list)
    healthy: Healthy = Field(default_factory=lambda: Healthy(count=0))
    unchecked: list[str] = Field(default_factory=list, description="What could not be checked, and why.")


REPORT_ADAPTER: TypeAdapter[HealthReport] = TypeAdapter(HealthReport)
REPORT_JSON_SCHEMA: dict[str, Any] = REPORT_ADAPTER.json_schema()


def response_format() -> dict[str, Any]:
    """The `response_format` of a request that wants the report (as the SDK writes it for an
    output type with a non-strict schema, so both agents send the same)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "final_output", "strict": False, "schema": REPORT_JSON_SCHEMA},
    }


# -- reading the model's answer ---------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


def parse_report(text: str) -> tuple[HealthReport | None, str | None]:
    """The report in an answer (bare JSON, or JSON in a ``` fence), or why there is none."""
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


def normalised(text: str) -> str:
    """Whitespace collapsed, for comparing a quote with the tool results it claims to come from."""
    return " ".join(text.split())


@dataclass
class Verification:
    """The harness's check of a report: what is verified, and what is not (with the reason)."""

    report: HealthReport
    problems: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        """Whether every quote and every finding's name checked out."""
        return not self.problems

    @property
    def unverified_names(self) -> list[str]:
        """The findings' names that no tool returned."""
        return [finding.name for finding in self.report.findings if finding.name_verified is False]


def _readings(text: str) -> list[str]:
    """A result as the model may read it: the text, and for JSON the decoded strings in it (a quote
    of a JSON value is of its text, not of its escapes), each whitespace-normalised."""
    readings = [normalised(text)]
    if text.lstrip()[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except ValueError:
            return readings
        leaves: list[str] = []
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, str):
                leaves.append(normalised(item))
        readings.append("\n".join(reversed(leaves)))
    return readings


def _names(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9-]){re.escape(name)}(?![A-Za-z0-9-])")


def verify(report: HealthReport, results: Sequence[Any]) -> Verification:
    """Check every quote and every finding's name against the tool results of the run.

    `results` are the run's tool results (`grounding.ToolText`: call id, tool, text). A quote is
    verified when its text, whitespace normalised, appears in one of them; its `call_id` and
    `tool` are then set to the result it was found in (the cited call first), so the report shows
    where the text really is. A finding's name is verified when a result, or the arguments of a
    successful call, name it as a whole word.
    Each failure is listed, in words the correction turn can send back.
    """
    sources = [(str(r.call_id), str(r.tool), _readings(str(r.text))) for r in results]
    named = [
        *(reading for _, _, readings in sources for reading in readings),
        *(r.arguments for r in results),
    ]
    checked = report.model_copy(deep=True, update={"schema_version": REPORT_SCHEMA_VERSION})
    problems: list[str] = []
    for finding in checked.findings:
        pattern = _names(finding.name.strip()) if finding.name.strip() else None
        finding.name_verified = pattern is not None and any(pattern.search(text) for text in named if text)
        if not finding.name_verified:
            problems.append(f"finding {finding.name!r} names a {finding.kind} that no tool returned")
        for quote in finding.evidence:
            text = normalised(quote.text)
            found = None
            if text:
                cited = [s for s in sources if s[0] == quote.call_id]
                others = [s for s in sources if s[0] != quote.call_id]
                found = next((s for s in [*cited, *others] if any(text in reading for reading in s[2])), None)
            quote.verified = found is not None
            if found is not None:
                quote.call_id, quote.tool = found[0] or quote.call_id, found[1] or quote.tool
            else:
                problems.append(
                    f"the quote {_clip(quote.text)!r} (finding {finding.name}) appears in no tool result of this run"
                )
    return Verification(checked, problems)


def _clip(text: str, width: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


# -- rendering ----------------------------------------------------------------------------------------


def _mark(verified: bool | None) -> str:
    return "✓" if verified else "✗ unverified"


def render_text(report: HealthReport, header: str = "") -> str:
    """The report for the terminal: each quote marked verified (✓) or not."""
    lines = [header or f"Health report: {report.scope}", ""]
    lines.append(f"{len(report.findings):,} unhealthy, {report.healthy.count:,} healthy.")
    for number, finding in enumerate(report.findings, start=1):
        where = f" ({finding.namespace})" if finding.namespace else ""
        name_note = "" if finding.name_verified is not False else "  [no tool returned this name]"
        lines += ["", f"{number}. {finding.kind} {finding.name}{where}: {finding.status}{name_note}"]
        for quote in finding.evidence:
            source = f"{quote.tool}" if quote.tool else "tool result"
            lines.append(f"   Evidence ({source}) {_mark(quote.verified)}: {quote.text}")
        lines += [f"   Cause: {finding.cause.value}: {finding.explanation}", f"   Fix: {finding.fix}"]
    if report.healthy.count:
        examples = f", for example {', '.join(report.healthy.examples)}" if report.healthy.examples else ""
        lines += ["", f"Healthy: {report.healthy.count:,}{examples}."]
    if report.unchecked:
        lines += ["", "Not checked:", *[f"- {item}" for item in report.unchecked]]
    return "\n".join(lines)


def render_markdown(report: HealthReport, title: str = "Health report") -> str:
    """The report as markdown, for a ticket."""
    lines = [f"## {title}: {report.scope}", ""]
    lines.append(f"**{len(report.findings):,} unhealthy**, {report.healthy.count:,} healthy.")
    for finding in report.findings:
        where = f" in `{finding.namespace}`" if finding.namespace else ""
        lines += ["", f"### {finding.kind} `{finding.name}`{where}: {finding.status}", ""]
        lines.append(f"- **Cause**: `{finding.cause.value}`: {finding.explanation}")
        for quote in finding.evidence:
            mark = "verified" if quote.verified else "**unverified**"
            lines.append(f"- **Evidence** ({quote.tool or 'tool result'}, {mark}): {_code(quote.text)}")
        lines.append(f"- **Fix**: {finding.fix}")
    if report.healthy.count:
        examples = (
            f" (e.g. {', '.join(f'`{e}`' for e in report.healthy.examples)})"
            if report.healthy.examples
            else ""
        )
        lines += ["", f"Healthy: {report.healthy.count:,}{examples}."]
    if report.unchecked:
        lines += ["", "Not checked:", *[f"- {item}" for item in report.unchecked]]
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    """A markdown code span of a quote, on one line, fenced with more backticks than it holds."""
    line = normalised(text)
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
