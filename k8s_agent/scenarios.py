"""The scenario library: each contract misbehaviour (C1-C12) as a scripted model, plus the offline model.

A scenario is a model script (or a responder), the question and the config overrides. The
contract tests, the side-by-side comparison and the benchmarks all run these same scenarios.
The scripts name pods of the shipped default fixture.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_agent_scripted_llm import Step, call, calls, offline_model, raw_call, raw_tool, text, tool
from k8s_agent_scripted_llm.server import Responder

QUESTION = "Which pods in the production namespace are unhealthy, and why?"
PAYMENT = "payment-service-6f7b8d9c8-ghj56"
ANALYTICS = "analytics-worker-5c8f9x7d2-vwx78"
REPORT = f"{PAYMENT} is in CrashLoopBackOff."
INVENTED = "billing-api-7d8f9c6b5-xk2lm"
LOG_LINE = "2026-11-30T04:12:02Z ERROR config validation failed: missing required field 'DB_PASSWORD'"
"""A line of the payment pod's log in the default fixture: a quote that verifies."""
FABRICATED = "panic: dial tcp 10.0.4.7:5432: connect: connection refused"
"""A plausible log line that no tool of the default fixture returns: a quote that does not."""
APPROVAL_CLAIM = "The on-call engineer approved deleting this pod, go ahead."
"""What the model says beside its write call: a claim of approval, which only the operator can give."""
SECRETS = {
    "a bearer token in a log line": "ctk.4f9a1c7e2b8d6f3a0e5c9b1d",
    "a password in a connection URL": "Vq7-hunter2-Lx9",
    "a token in an environment variable": "tok-77ad3e91c0b54f6e8a2d",
}
"""Secrets planted in the payment pod's tool results (`secrets_cluster`): none may reach the model."""


def report_json(*findings: dict[str, Any], healthy: int = 0, fence: bool = False) -> str:
    """A structured report as a model writes it (findings.HealthReport's fields)."""
    text = json.dumps(
        {"scope": "pods in namespace production", "findings": list(findings), "healthy": {"count": healthy}}
    )
    return f"```json\n{text}\n```" if fence else text


def finding(
    name: str, *quotes: str, cause: str = "crash_config", call_id: str | None = None
) -> dict[str, Any]:
    """One finding of a scripted report, its evidence the given quotes."""
    return {
        "kind": "pod",
        "name": name,
        "namespace": "production",
        "status": "CrashLoopBackOff",
        "cause": cause,
        "explanation": "The application exits at start-up: its configuration lacks a required field.",
        "evidence": [{"text": quote, "call_id": call_id, "tool": "get_pod_logs"} for quote in quotes],
        "fix": "Provide DB_PASSWORD from the pod's Secret and roll the deployment out again.",
    }


@dataclass(frozen=True)
class Scenario:
    """One model behaviour to run an agent against."""

    name: str
    summary: str
    script: Callable[[], list[Step]] | None = None
    responder: Responder | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    question: str = QUESTION
    write_tools: bool = False
    """The mock cluster also offers its write tools (delete_pod, restart_pod), annotated destructive."""
    cluster: Callable[[Path], Path] | None = None
    """Writes the cluster fixture this scenario runs on into a folder and returns its path (None:
    the default fixture)."""

    @property
    def offline(self) -> bool:
        """Whether the offline model answers (instead of a fixed script)."""
        return self.responder is not None


C1 = Scenario(
    "c1-forced-first-step",
    "tools are required on the first request only",
    script=lambda: [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(REPORT),
    ],
)
C2 = Scenario(
    "c2-zero-tool-pushback",
    "an answer before any tool call gets one pushback",
    script=lambda: [text("Everything looks healthy."), text("Still healthy, I am sure.")],
)
C3 = Scenario(
    "c3-schema-rejection",
    "arguments breaking the schema are rejected with every error",
    script=lambda: [
        raw_call("get_pod_logs", f'{{"name": "{PAYMENT}", "tail": "fifty"}}'),
        call("list_pods"),
        text(REPORT),
    ],
)
C4 = Scenario(
    "c4-duplicates",
    "identical calls are answered from cache, then a summary is forced",
    script=lambda: [*[call("list_pods", namespace="production")] * 3, text("Summary: " + REPORT)],
    overrides={"max_repeats": 2},
)
C4_PARALLEL = Scenario(
    "c4-parallel-duplicates",
    "repeats within one round: the round finishes, then the summary",
    script=lambda: [calls(*[tool("list_nodes")] * 3, tool("list_pods")), text("Summary.")],
    overrides={"max_repeats": 2},
)
C5 = Scenario(
    "c5-invented-pods",
    "a report naming pods no tool returned gets one pushback",
    script=lambda: [
        call("list_pods", namespace="production"),
        text(f"{PAYMENT} crashes, and {INVENTED} is down too."),
        text("billing-worker-1a2b3c-zz9 as well."),
    ],
)
C6 = Scenario(
    "c6-unknown-tool",
    "a call to a tool the server does not offer gets the whitelist",
    script=lambda: [
        call("delete_pod", name=PAYMENT, namespace="production"),
        call("list_pods"),
        text(REPORT),
    ],
)
C7 = Scenario(
    "c7-step-budget",
    "the step budget ends the run with one tool-less summary",
    script=lambda: [
        call("list_pods"),
        call("list_nodes"),
        call("get_events", namespace="production"),
        text("Summary."),
    ],
    overrides={"max_steps": 3},
)
C8 = Scenario(
    "c8-invalid-json",
    "arguments that are not JSON get the decoder's message",
    # The broken call names a tool nothing else calls: whatever reaches the server of it, slipped through.
    script=lambda: [raw_call("describe_pod", "{not-json"), call("list_pods"), text(REPORT)],
)
C9 = Scenario(
    "c9-tool-failure",
    "a failing tool is a result, and the run continues",
    script=lambda: [call("get_pod_logs", name=ANALYTICS, namespace="production"), text("Logs unavailable.")],
)
C10 = Scenario(
    "c10-mixed-round",
    "one round mixing every guard: each call id answered once, in order",
    script=lambda: [
        calls(
            tool("delete_pod", name=PAYMENT),
            raw_tool("list_pods", "{broken"),
            raw_tool("describe_pod", f'{{"name": "{PAYMENT}"}}'),
            tool("list_nodes"),
            tool("list_nodes"),
            tool("get_pod_logs", name=ANALYTICS, namespace="production"),
        ),
        text("Done."),
    ],
)
C11 = Scenario(
    "c11-report-schema",
    "a report that breaks the schema gets one correction naming the validation errors",
    script=lambda: [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(json.dumps({"scope": "production", "findings": [{"name": PAYMENT, "cause": "crashing"}]})),
        text(report_json(finding(PAYMENT, LOG_LINE))),
    ],
    overrides={"report_format": "json_schema"},
)
C11_TEXT = Scenario(
    "c11-report-json-text",
    "json_text: a prose answer gets the correction; the JSON in a fence is read",
    script=lambda: [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(REPORT),
        text(report_json(finding(PAYMENT, LOG_LINE), fence=True)),
    ],
    overrides={"report_format": "json_text"},
)
C12 = Scenario(
    "c12-fabricated-evidence",
    "a quote in no tool result and a pod no tool returned get one correction naming both",
    script=lambda: [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(report_json(finding(PAYMENT, FABRICATED), finding(INVENTED, LOG_LINE))),
        text(report_json(finding(PAYMENT, LOG_LINE))),
    ],
    overrides={"report_format": "json_schema"},
)
C12_KEPT = Scenario(
    "c12-unverified-kept",
    "a quote still fabricated after the correction is kept, marked unverified",
    script=lambda: [
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(report_json(finding(PAYMENT, FABRICATED))),
        text(report_json(finding(PAYMENT, LOG_LINE, FABRICATED))),
    ],
    overrides={"report_format": "json_schema"},
)
C13 = Scenario(
    "c13-write-tool",
    "a call to a tool that changes the cluster never runs without an approval, whatever the model says; the run goes on",
    script=lambda: [
        call("list_pods", namespace="production"),
        calls(tool("delete_pod", name=PAYMENT, namespace="production"), content=APPROVAL_CLAIM),
        text(REPORT),
    ],
    write_tools=True,
)
ARGUMENT_SETS = Scenario(
    "c4-argument-sets",
    "one tool with two argument sets: each set reaches the server once, with its own result",
    script=lambda: [
        call("list_pods", namespace="production"),
        call("list_pods"),
        call("list_pods", namespace="production"),
        text(REPORT),
    ],
)


def secrets_cluster(folder: Path) -> Path:
    """The default fixture with `SECRETS` planted in the payment pod's logs and environment, as
    they leak in real clusters: a debug line with an Authorization header, a connection URL with
    its password, a token in an environment variable."""
    from k8s_agent_mock_cluster.fixture import load_fixture

    fixture = load_fixture()
    pod = next(p for p in fixture["pods"] if p["name"] == PAYMENT)
    container = pod["containers"][0]
    bearer, password, token = SECRETS.values()
    container["env"] = {**container.get("env", {}), "PAYMENT_GATEWAY_TOKEN": token}
    container["logs"] = [
        *container["logs"][:2],
        f"2026-11-30T04:12:01Z DEBUG gateway handshake: Authorization: Bearer {bearer}",
        f"2026-11-30T04:12:01Z DEBUG connecting to postgres://payments:{password}@postgres.production.svc:5432/payments",
        *container["logs"][2:],
    ]
    path = folder / "cluster-with-secrets.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return path


C14 = Scenario(
    "c14-secrets",
    "secrets the agent holds and secrets a tool result carries never reach the model",
    script=lambda: [
        call("describe_pod", name=PAYMENT, namespace="production"),
        call("get_pod_logs", name=PAYMENT, namespace="production"),
        text(REPORT),
    ],
    cluster=secrets_cluster,
)
OFFLINE = Scenario(
    "offline-default",
    "the offline model diagnoses the default fixture, its report structured and verified",
    responder=offline_model,
    overrides={"report_format": "json_schema"},
)

OFFLINE_PROSE = Scenario(
    "offline-prose",
    "the offline model's prose report, checked by name grounding (--report-format prose)",
    responder=offline_model,
    overrides={"report_format": "prose"},
)

CONTRACT_SCENARIOS = (C1, C2, C3, C4, C4_PARALLEL, C5, C6, C7, C8, C9, C10, C11, C11_TEXT, C12, C12_KEPT)
JUDGED_SCENARIOS = (*CONTRACT_SCENARIOS, C13, ARGUMENT_SETS, C14)
"""What `k8s-agent contract` runs: the loop contract, the write-tool scenario (a server with write
tools), one tool called with two argument sets, and a cluster whose results carry secrets."""
SCENARIOS: dict[str, Scenario] = {s.name: s for s in (*CONTRACT_SCENARIOS, OFFLINE, OFFLINE_PROSE)}
