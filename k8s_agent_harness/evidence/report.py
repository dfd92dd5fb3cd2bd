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
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

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
    elif "{" in candidate and "}" in candidate:  # prose before or after the report
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
