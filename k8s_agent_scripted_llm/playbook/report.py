"""The report: prose, or the JSON object of findings.HealthReport, every conclusion quoting its tool
result, bounded whatever the cluster.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from k8s_agent_scripted_llm.playbook.causes import diagnose
from k8s_agent_scripted_llm.playbook.conversation import HEADER, Conversation, all_listed, described_pods
from k8s_agent_scripted_llm.playbook.dependencies import failed_calls_of
from k8s_agent_scripted_llm.playbook.finding import Finding
from k8s_agent_scripted_llm.playbook.nodes import (
    NODES_DESCRIBED_ALL_UP_TO,
    NodeState,
    node_cause_and_fix,
    node_states,
)
from k8s_agent_scripted_llm.playbook.questions import question_namespace, workload_of
from k8s_agent_scripted_llm.playbook.tables import Pod
from k8s_agent_scripted_llm.script import Reply

MAX_INVESTIGATED = 10
"""Unhealthy pods the playbook describes and reports in detail; the rest are named."""

MAX_NAMED = 20

MAX_REPORT_CHARS = 16_000


def pod_count(count: int) -> str:
    return "1 pod" if count == 1 else f"{count} pods"


def write_node_report(chat: Conversation, header: str, listing: str, nodes: list[dict[str, str]]) -> str:
    """Per node not Ready or under pressure: its status, the condition lines, a cause and a fix."""
    lines = [header, ""]
    if listing.startswith("Tool call failed") or not nodes:
        lines.append(f"Could not list the nodes, so nothing could be checked. {listing.strip()}")
        return "\n".join(lines)
    states = node_states(chat, listing, nodes)
    bad = [state for state in states if state.category]
    lines.append(f"{len(bad)} of {len(nodes)} nodes are unhealthy or under pressure.")
    lines += node_entries(bad)
    unchecked = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if unchecked and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        lines += ["", f"Not described (Ready in the listing; pressure not checked): {len(unchecked)} nodes."]
    healthy = [state.name for state in states if not state.category]
    if healthy:
        lines += ["", f"Healthy: {', '.join(healthy[:10])}{' and more' if len(healthy) > 10 else ''}."]
    return "\n".join(lines)


def node_entries(bad: Sequence[NodeState], start: int = 1) -> list[str]:
    lines = []
    for number, state in enumerate(bad, start=start):
        cause, fix = node_cause_and_fix(state.status, state.conditions)
        source = "describe_node" if state.lines else "list_nodes"
        lines += ["", f"{number}. node {state.name}: {state.status}"]
        lines += [f"   Evidence ({source}): {line}" for line in state.lines or [f"STATUS {state.status}"]]
        lines += [f"   Cause: {cause}", f"   Fix: {fix}"]
    return lines


def node_finding(chat: Conversation, state: NodeState) -> dict[str, Any]:
    """One node finding of the JSON report."""
    if state.lines:
        evidence = [chat.quote(line, "describe_node", state.name) for line in state.lines]
    else:
        evidence = [chat.quote(state.row or state.name, "list_nodes")]
    cause, fix = node_cause_and_fix(state.status, state.conditions)
    return {
        "kind": "node",
        "name": state.name,
        "namespace": None,
        "status": state.status,
        "cause": state.category,
        "explanation": cause,
        "evidence": evidence,
        "fix": fix,
    }


def unknown_tools(chat: Conversation) -> str:
    return (
        "This playbook knows the mock cluster's tools (list_pods, describe_pod, get_pod_logs, list_nodes, "
        f"describe_node); this server offers {', '.join(sorted(chat.offered)) or 'no tools'}. Use a real model "
        "(--model, --base-url) for this server."
    )


def write_report(
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int | None = None,
    findings: list[Finding] | None = None,
    namespaces: list[str] | None = None,
    bad_nodes: Sequence[NodeState] = (),
) -> str:
    """The health report, every conclusion quoting its tool result; bounded whatever the cluster:
    at most MAX_INVESTIGATED pods in detail, the healthy ones as a count with a few names."""
    lines = [report_header(chat, namespaces), ""]
    if findings is None:
        findings = [diagnose(chat, pod, unhealthy) for pod in unhealthy[:MAX_INVESTIGATED]]
    lines += pod_report_lines(chat, listing, pods, unhealthy, total, findings)
    if bad_nodes and not listing.startswith("Tool call failed"):
        lines += ["", "Nodes behind these pods:"]
        lines += node_entries(bad_nodes, start=len(findings) + 1)
    return bounded("\n".join(lines))


def bounded(report: str) -> str:
    return (
        report
        if len(report) <= MAX_REPORT_CHARS
        else report[: MAX_REPORT_CHARS - 40] + "\n[report cut at 16 KB]"
    )


def pod_report_lines(
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int | None,
    findings: list[Finding],
) -> list[str]:
    if listing.startswith("Tool call failed"):
        return [f"Could not list the pods, so nothing could be checked. {listing}"]
    if not pods and chat.missing:
        return chat.scope_notes
    if not pods:
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        lines = [f"list_pods returned no pods: {said}"]
        if "Namespaces with pods:" in said:
            lines.append("Check the namespace's name: the question may name one that does not exist.")
        return lines
    total = len(pods) if total is None else total
    lines = [f"{len(unhealthy):,} of {total:,} pods are unhealthy."]
    for number, finding in enumerate(findings, start=1):
        pod = finding.pod
        restarts = f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""
        lines += [
            "",
            f"{number}. {pod.name} ({pod.namespace}): {pod.status}, READY {pod.ready}{restarts}",
            f"   Evidence ({finding.source}): {finding.evidence}",
            f"   Cause: {finding.cause}",
            f"   Fix: {finding.fix}",
        ]
        lines += [f"   Note: {note}" for note in finding.notes]
    rest = unhealthy[MAX_INVESTIGATED:]
    if rest:
        names = ", ".join(pod.name for pod in rest[:MAX_NAMED])
        more = f" and {len(rest) - MAX_NAMED:,} more" if len(rest) > MAX_NAMED else ""
        lines += ["", f"Not investigated ({len(rest):,} more unhealthy pods): {names}{more}."]
    healthy = [pod.name for pod in pods if pod not in unhealthy]
    healthy_count = total - len(unhealthy)
    if healthy_count > 0 and len(healthy) == healthy_count and healthy_count <= MAX_NAMED:
        lines += ["", f"Healthy: {', '.join(healthy)}."]
    elif healthy_count > 0:
        lines += ["", f"Healthy: {healthy_count:,} pods, for example {', '.join(healthy[:3])}."]
    lines += [f"Checked: {note}." for note in chat.healthy_notes]
    named = {finding.pod.name for finding in findings} | set(
        healthy if len(healthy) <= MAX_NAMED else healthy[:3]
    )
    notes = _unchecked_notes(chat, named | described_pods(chat, pods))
    if notes:
        lines += ["", *[f"Note: {note}" for note in notes]]
    return lines


NO_RESULTS = "No tool results: the cluster could not be inspected."

MAX_EXAMPLES = 5


def nothing_to_diagnose(chat: Conversation, header: str, message: str, scope: str) -> Reply:
    """A report with nothing to diagnose: the prose line, or a report whose `unchecked` says it."""
    if chat.report_format == "prose":
        return Reply(content=f"{header}\n{message}")
    return structured(chat, report_draft(scope, unchecked=[message]))


def report_draft(
    scope: str,
    findings: list[dict[str, Any]] | None = None,
    *,
    healthy: int = 0,
    examples: list[str] | None = None,
    unchecked: list[str] | None = None,
) -> dict[str, Any]:
    """The JSON report (findings.HealthReport's fields)."""
    return {
        "scope": scope,
        "findings": findings or [],
        "healthy": {"count": healthy, "examples": (examples or [])[:MAX_EXAMPLES]},
        "unchecked": unchecked or [],
    }


def structured(chat: Conversation, draft: dict[str, Any]) -> Reply:
    """The JSON report: bare for json_schema, in a ```json fence for json_text (as many models write it)."""
    text = json.dumps(draft, ensure_ascii=False, indent=1)
    return Reply(content=text if chat.report_format == "json_schema" else f"```json\n{text}\n```")


def scope_text(namespaces: Sequence[str]) -> str:
    if not namespaces:
        return "all namespaces"
    if len(namespaces) == 1:
        return f"namespace {namespaces[0]}"
    return f"namespaces {', '.join(namespaces)}"


def pods_scope(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    if namespaces is None:
        named = question_namespace(chat.question)
        namespaces = [named] if named else []
    if chat.workloads:
        return _workload_scope_text(chat, namespaces)
    return f"pods in {scope_text(namespaces)}"


def _workload_scope_text(chat: Conversation, namespaces: Sequence[str]) -> str:
    """`workload checkout-service (pods in namespace production), and the Services its pods fail to
    reach (payment-service)`."""
    kind = "workloads" if len(chat.workloads) > 1 else "workload"
    text = f"{kind} {', '.join(chat.workloads)} (pods in {scope_text(namespaces)})"
    listed = all_listed(chat)
    workloads = {workload_of(pod.name) for pod in listed}
    mine = [pod for pod in listed if pod.name in chat.focus]
    called = list(
        dict.fromkeys(call.service for pod in mine for call, _ in failed_calls_of(chat, pod, workloads))
    )
    if called:
        text += f", and the Services its pods fail to reach ({', '.join(called)})"
    return text[:MAX_SCOPE_CHARACTERS]


MAX_SCOPE_CHARACTERS = 300


def pod_finding(chat: Conversation, finding: Finding) -> dict[str, Any]:
    """One finding of the JSON report, its evidence quoted verbatim with the call it came from."""
    pod = finding.pod
    evidence = [{"text": finding.evidence, "call_id": finding.call_id, "tool": finding.source}]
    evidence += [{"text": text, "call_id": call, "tool": tool} for text, tool, call in finding.more]
    restarts = f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""
    return {
        "kind": "pod",
        "name": pod.name,
        "namespace": pod.namespace or None,
        "status": f"{pod.status}, READY {pod.ready}{restarts}",
        "cause": finding.category,
        "explanation": finding.cause,
        "evidence": evidence,
        "fix": finding.fix,
    }


def pods_draft(
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int,
    findings: list[Finding] | None = None,
    namespaces: list[str] | None = None,
    bad_nodes: Sequence[NodeState] = (),
) -> dict[str, Any]:
    """The JSON report of the pods playbook: what write_report says, as data."""
    scope = pods_scope(chat, namespaces)
    if listing.startswith("Tool call failed"):
        return report_draft(scope, unchecked=[f"Could not list the pods: {listing}"])
    if not pods:
        if chat.missing:
            return report_draft(scope, unchecked=chat.scope_notes)
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        return report_draft(scope, unchecked=[f"list_pods returned no pods: {said}", *chat.scope_notes])
    if findings is None:
        findings = [diagnose(chat, pod, unhealthy) for pod in unhealthy[:MAX_INVESTIGATED]]
    reported, unchecked = [], []
    for finding in findings:
        reported.append(pod_finding(chat, finding))
        unchecked += finding.unchecked
    reported += [node_finding(chat, state) for state in bad_nodes]
    rest = unhealthy[MAX_INVESTIGATED:]
    if rest:
        names = ", ".join(pod.name for pod in rest[:MAX_NAMED])
        more = f" and {len(rest) - MAX_NAMED:,} more" if len(rest) > MAX_NAMED else ""
        unchecked.append(f"{len(rest):,} more unhealthy pods not investigated: {names}{more}")
    # Examples are pods the listing shows healthy; a pod starting (not unhealthy, not ready yet) is counted only.
    healthy = _healthy_first(chat, [pod.name for pod in pods if pod not in unhealthy and not pod.unhealthy])
    shown = {finding.pod.name for finding in findings} | set(healthy[:MAX_EXAMPLES])
    return report_draft(
        scope,
        reported,
        healthy=max(0, total - len(unhealthy)),
        examples=healthy,
        unchecked=[*_unchecked_notes(chat, shown), *unchecked],
    )


def _healthy_first(chat: Conversation, healthy: list[str]) -> list[str]:
    """The healthy pods, those of the workloads the question names first (the examples it shows)."""
    return sorted(healthy, key=lambda name: name not in chat.focus)


def _unchecked_notes(chat: Conversation, shown: set[str]) -> list[str]:
    """The scope notes of the report's `unchecked`: a note of what a workload's name resolved to is
    left out when the report shows each of its pods (as a finding, or a healthy example)."""
    kept = [note for note, pods in chat.focus_notes if not set(pods) <= shown]
    return [*chat.scope_notes, *kept]


def nodes_draft(chat: Conversation, listing: str, nodes: list[dict[str, str]]) -> dict[str, Any]:
    """The JSON report of the node playbook."""
    if listing.startswith("Tool call failed") or not nodes:
        return report_draft("nodes", unchecked=[f"Could not list the nodes: {listing.strip()}"])
    states = node_states(chat, listing, nodes)
    findings = [node_finding(chat, state) for state in states if state.category]
    unchecked = []
    undescribed = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if undescribed and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        unchecked.append(
            f"{len(undescribed)} nodes not described (Ready in the listing; pressure not checked)"
        )
    healthy = [state.name for state in states if not state.category]
    return report_draft("nodes", findings, healthy=len(healthy), examples=healthy, unchecked=unchecked)


def report_header(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    if namespaces is None:
        named = question_namespace(chat.question)
        namespaces = [named] if named else []
    if chat.workloads:
        return f"Health report for {pods_scope(chat, namespaces)} ({HEADER})"
    return f"Health report for {scope_text(namespaces)} ({HEADER})"
