"""A chain of dependencies: the Services a pod's own logs fail to reach, followed to their pods (in
any namespace: the one the host names is listed when it was not) and on from those, up to
MAX_CHAIN_DEPTH; the dependents reported as dependency_down, the dependency with its own cause.

It starts from the pods of the workload a question names (even those that look healthy), or, in a
question about a namespace, from its failing pods whose own finding a failed call may explain
(start_of_chain).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from k8s_agent_scripted_llm.playbook.causes import diagnose
from k8s_agent_scripted_llm.playbook.conversation import Conversation, all_listed, namespace_listed
from k8s_agent_scripted_llm.playbook.dependencies import (
    CONNECTION_ERROR,
    FailedCall,
    failed_calls_of,
    service_pods,
)
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.investigation import container_calls, investigation_calls
from k8s_agent_scripted_llm.playbook.logs import signature
from k8s_agent_scripted_llm.playbook.pods import judged_unhealthy
from k8s_agent_scripted_llm.playbook.questions import workload_of
from k8s_agent_scripted_llm.playbook.report import MAX_INVESTIGATED
from k8s_agent_scripted_llm.playbook.tables import Pod
from k8s_agent_scripted_llm.script import ToolCall

MORE_LINES = 2
"""Other lines of a failed call a dependent's finding quotes beside the first (the one that says why)."""

MAX_CHAIN_DEPTH = 3
"""How far the playbook follows Services from the asked workload's pods (a calls b calls c)."""


@dataclass(frozen=True)
class Link:
    """A pod whose own logs fail to reach a Service, and the pods found for that Service."""

    caller: Pod
    call: FailedCall
    call_id: str | None
    """The get_pod_logs call whose result holds the line."""
    pods: tuple[Pod, ...]
    """The Service's pods, by name, in the listings (none: no pod is named after it)."""


def follow_chain(chat: Conversation, start: Sequence[Pod]) -> tuple[list[Link], list[ToolCall]]:
    """Follow the failed calls of the workload's pods to the pods of the Services they name, and
    on from those (up to MAX_CHAIN_DEPTH): the links found, and the calls still needed (a listing
    of a namespace the host names, then a describe and logs of each pod found)."""
    listed = all_listed(chat)
    workloads = {workload_of(pod.name) for pod in listed}
    links: list[Link] = []
    calls: list[ToolCall] = []
    seen = {pod.name for pod in start}
    frontier = [pod for pod in start if chat.latest("describe_pod", pod.name) is not None]
    for _ in range(MAX_CHAIN_DEPTH):
        following: list[Pod] = []
        for caller in frontier:
            for call, call_id in failed_calls_of(chat, caller, workloads - {workload_of(caller.name)}):
                if call.namespace and not namespace_listed(chat, call.namespace):
                    calls.append(ToolCall("list_pods", json.dumps({"namespace": call.namespace})))
                    continue
                found = service_pods(call, caller, listed)
                links.append(Link(caller, call, call_id, tuple(found)))
                for pod in found:
                    if pod.name in seen:
                        continue
                    seen.add(pod.name)
                    if chat.latest("describe_pod", pod.name) is None:
                        calls += investigation_calls(chat, [pod])
                    else:
                        calls += container_calls(chat, [pod])
                        following.append(pod)
        frontier = following
    return links, list({(call.name, call.arguments): call for call in calls}.values())


def chain_findings(
    chat: Conversation, pods: Sequence[Pod], suspects: Sequence[Pod], links: Sequence[Link]
) -> tuple[list[Finding], list[Pod], list[Pod]]:
    """The findings of a workload and the Services it calls, in the chain's order (the workload's
    pods, then each Service's pods as they were reached), the pods of the report, and the unhealthy
    ones. A pod whose calls fail on a Service whose pods are unhealthy is dependency_down, even when
    it looks healthy itself; the Service's pods keep their own cause."""
    reached = list({pod.name: pod for link in links for pod in link.pods if pod not in pods}.values())
    everyone = [*pods, *reached]
    unhealthy = judged_unhealthy(chat, pods, suspects) + judged_unhealthy(
        chat, reached, [pod for pod in reached if not pod.unhealthy and pod.status == "Running"]
    )
    broken = unhealthy + [pod for pod in all_listed(chat) if pod.unhealthy and pod not in everyone]
    down = {pod.name for pod in broken}
    findings: list[Finding] = []
    for pod in everyone:
        mine = [link for link in links if link.caller.name == pod.name]
        failing = [link for link in mine if any(other.name in down for other in link.pods)]
        if pod in unhealthy or failing:
            finding = diagnose(chat, pod, broken) if pod in unhealthy else Finding(pod)
            if failing and explained_by_its_calls(finding):
                _blame(chat, finding, failing[0], down)
            findings.append(finding)
        for link in mine:
            if not link.pods:
                _not_found(chat, link, findings[-1] if findings and findings[-1].pod is pod else None)
            elif link not in failing and pod not in unhealthy:
                chat.healthy_notes.append(
                    f"{pod.name}: its logs say {link.call.line!r}, but {link.call.service}'s pods "
                    f"({', '.join(p.name for p in link.pods)}) are healthy now (describe_pod)"
                )
    findings = findings[:MAX_INVESTIGATED]
    named = tuple(f"{finding.pod.name}:" for finding in findings)
    chat.healthy_notes = [note for note in chat.healthy_notes if not note.startswith(named)]
    return findings, everyone, [finding.pod for finding in findings]


def start_of_chain(chat: Conversation, pods: Sequence[Pod], suspects: Sequence[Pod]) -> list[Pod]:
    """Rule: in a question about a namespace, a dependency is followed from the failing pods whose
    own finding a failed call may explain (explained_by_its_calls), judged as the report judges them."""
    unhealthy = judged_unhealthy(chat, pods, suspects, note=False)
    broken = unhealthy + [pod for pod in all_listed(chat) if pod.unhealthy and pod not in pods]
    return [
        pod for pod in unhealthy[:MAX_INVESTIGATED] if explained_by_its_calls(diagnose(chat, pod, broken))
    ]


def reaches_a_broken_pod(links: Sequence[Link]) -> bool:
    """Whether a link of the chain ends on a pod the listing shows unhealthy."""
    return any(pod.unhealthy for link in links for pod in link.pods)


def explained_by_its_calls(finding: Finding) -> bool:
    """Rule: a failed call to an unhealthy Service explains a pod better than its own finding when
    the pod looks healthy, fails its readiness probe, or crashes with no cause of its own (an
    application crash: a process that exits on a dependency it cannot reach says so that way)."""
    return finding.category in ("unknown", "readiness_probe_failure", "dependency_down", "crash_application")


def _blame(chat: Conversation, finding: Finding, link: Link, down: set[str]) -> None:
    """Make the finding dependency_down: its evidence the failed call's line, its cause the Service's
    unhealthy pods (each reported below with its own cause)."""
    before = (finding.evidence, finding.source, finding.call_id)
    cite(chat, finding, "get_pod_logs", link.call.line, link.call_id)
    said = {signature(link.call.line)}
    for line in link.call.lines:
        if len(said) > MORE_LINES or signature(line) in said:
            continue
        said.add(signature(line))
        finding.also(line, "get_pod_logs", link.call_id, f"its logs (get_pod_logs): {line}")
    if before[0] and before[0] != link.call.line:
        finding.also(before[0], before[1], before[2], f"{before[1]}: {before[0]}")
    failure = CONNECTION_ERROR.search(link.call.line)
    how = f" ({failure[0].lower()})" if failure else ""
    bad = [pod for pod in link.pods if pod.name in down]
    where = f" of namespace {bad[0].namespace}" if bad[0].namespace != finding.pod.namespace else ""
    states = "; ".join(f"{pod.name} is {pod.status}, READY {pod.ready}" for pod in bad)
    running = [pod.name for pod in link.pods if pod.name not in down]
    finding.category = "dependency_down"
    finding.cause = (
        f"its calls to {link.call.host} fail{how}: the Service {link.call.service}{where} is unhealthy, "
        f"{'its pods' if len(bad) > 1 else 'its pod'} {states}"
        + (f" ({', '.join(running)} runs)" if running else "")
        + " (its own cause is reported below)"
    )
    finding.fix = f"fix {link.call.service} first (below); {workload_of(finding.pod.name)} recovers once its calls succeed"


def _not_found(chat: Conversation, link: Link, finding: Finding | None) -> None:
    """Say that no pod was found for a Service a pod fails to reach (its selector is not readable here)."""
    where = f"namespace {link.call.namespace or link.caller.namespace}"
    said = (
        f"{link.caller.name}'s logs fail to reach {link.call.host}, but no pod named after the Service "
        f"{link.call.service} is in {where} (list_pods): the pods behind it were not checked"
    )
    if finding is not None:
        finding.unchecked.append(said)
    elif said not in chat.scope_notes:
        chat.scope_notes.append(said)
