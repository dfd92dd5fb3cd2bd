"""Nodes that are not Ready or under pressure, and the pods they cut off."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from k8s_agent_scripted_llm.playbook.conversation import Conversation, listing_row
from k8s_agent_scripted_llm.playbook.evidence import PodEvidence
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.pods import NODE_LOST
from k8s_agent_scripted_llm.playbook.tables import node_row

_PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")

NODES_DESCRIBED_ALL_UP_TO = 10
"""Up to this many nodes the playbook describes every one (pressure shows only there); beyond, the not-Ready ones."""

NODE_CAUSES = ("node_not_ready", "node_pressure")

_NODE_EVENT = re.compile(r"(?i)NotReady|Pressure|Insufficient|EvictionThreshold|ImageGCFailed")


@dataclass
class NodeState:
    """What describe_node (and list_nodes) say about one node."""

    name: str
    status: str
    category: str
    """node_not_ready, node_pressure, or empty when the node is healthy."""
    lines: list[str]
    """describe_node's lines that show it: the conditions that are wrong, then the events about them."""
    conditions: list[str]
    """The condition lines alone."""
    row: str = ""
    """The list_nodes row, when there is one."""


def nodes_behind(chat: Conversation, findings: Sequence[Finding]) -> list[str]:
    """The nodes, not described yet, that the findings say cut their pods off."""
    wanted = [
        finding.pod.node
        for finding in findings
        if finding.pod.node
        and (finding.category in NODE_CAUSES or finding.pod.status in NODE_LOST)
        and chat.latest("describe_node", finding.pod.node) is None
    ]
    return list(dict.fromkeys(wanted))[:NODES_DESCRIBED_ALL_UP_TO]


def nodes_to_describe(nodes: list[dict[str, str]]) -> list[dict[str, str]]:
    return [n for n in nodes if len(nodes) <= NODES_DESCRIBED_ALL_UP_TO or n.get("STATUS") != "Ready"]


def node_state(chat: Conversation, name: str, listed: str | None = None, row: str = "") -> NodeState:
    """A node as describe_node shows it (and list_nodes, when `listed` is its STATUS)."""
    description = chat.latest("describe_node", name, key="name") or ""
    if description.startswith("Tool call failed"):
        description = ""
    pressures = _true_pressures(description)
    ready = next(
        (
            cells[1]
            for line in description.splitlines()
            if len(cells := line.split()) >= 2 and cells[0] == "Ready"
        ),
        None,
    )
    # The status as a tool showed it: list_nodes' STATUS, else describe_node's Ready condition.
    status = listed or ("Ready" if ready in (None, "True") else f"Ready condition {ready}")
    not_ready = status != "Ready" or ready not in (None, "True")
    category = "node_not_ready" if not_ready else "node_pressure" if pressures else ""
    conditions = [line.strip() for line in description.splitlines() if _condition_line(line, pressures)]
    events = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    told = [line.strip() for line in events.splitlines() if _NODE_EVENT.search(line)] if category else []
    return NodeState(name, status, category, conditions + told, conditions, row)


def node_states(chat: Conversation, listing: str, nodes: list[dict[str, str]]) -> list[NodeState]:
    return [node_state(chat, n["NAME"], n.get("STATUS", ""), node_row(listing, n["NAME"])) for n in nodes]


def _true_pressures(description: str) -> list[str]:
    found = []
    for line in description.splitlines():
        cells = line.split()
        if len(cells) >= 2 and cells[0] in _PRESSURES and cells[1] == "True":
            found.append(cells[0])
    return found


def _condition_line(line: str, pressures: list[str]) -> bool:
    cells = line.split()
    if len(cells) < 2:
        return False
    return (cells[0] == "Ready" and cells[1] != "True") or (cells[0] in pressures and cells[1] == "True")


def node_cause_and_fix(status: str, evidence: list[str]) -> tuple[str, str]:
    text = " ".join(evidence)
    if "MemoryPressure" in text:
        return (
            "the node is short of memory: the kubelet evicts pods and refuses new ones",
            "find the pods using the memory (describe the node, top its pods), set limits, or add capacity",
        )
    if "DiskPressure" in text:
        return (
            "the node is short of disk: the kubelet evicts pods and garbage-collects images",
            "free disk on the node (images, logs, emptyDir volumes) or give it a larger disk",
        )
    if "PIDPressure" in text:
        return ("the node is running out of process ids", "find the pod that forks too many processes")
    if "NetworkUnavailable" in text:
        return ("the node's network is not configured", "check the CNI plugin on the node")
    return (
        f"the node is {_not_ready(status)}: the kubelet does not report healthy",
        "check the kubelet and the node's connectivity (describe_node's events), then cordon and drain "
        "it if it does not recover",
    )


def _not_ready(status: str) -> str:
    """`NotReady`, or `not ready (Ready condition Unknown)` when describe_node alone said so."""
    return (
        status
        if status == "NotReady" or not status.startswith("Ready condition")
        else f"not ready ({status})"
    )


def attribute(chat: Conversation, finding: Finding, state: NodeState | None) -> None:
    """A pod on a bad node: when it has no cause of its own (or its node cut it off), the node's."""
    if state is None or not state.category:
        return
    pod = finding.pod
    lost = state.category == "node_not_ready" and pod.status in NODE_LOST
    if finding.category not in ("unknown", *NODE_CAUSES) and not lost:
        return
    if finding.category == "unknown" or lost:
        finding.category = state.category
        if state.category == "node_not_ready":
            finding.cause = (
                f"the pod's node {state.name} is {_not_ready(state.status)}: the pod is cut off with it"
            )
            finding.fix = "recover the node (kubelet, network) or drain it so the pod is scheduled elsewhere"
        else:
            finding.cause = f"the pod's node {state.name} is under pressure ({', '.join(state.conditions)})"
            finding.fix = "relieve the node (free the resource, move its heaviest pods) or add capacity"
    if state.lines:  # the node's own lines are its finding's evidence, not the pod's: a note here
        finding.notes.append(f"its node {state.name} (describe_node): {state.lines[0]}")


_NODE_LOW = re.compile(r"(?i)\bthe node was low on resource: ([\w-]+)")


def cut_off_by_its_node(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a pod whose events say its node is not ready (NodeNotReady, "Node is not ready")
    is node_not_ready, quoted from that event."""
    lost = next(
        (m for r, m in evidence.warnings if r == "NodeNotReady" or m.lower().startswith("node is not ready")),
        None,
    )
    if not lost:
        return False
    node = f" {finding.pod.node}" if finding.pod.node else ""
    cite(evidence.chat, finding, "describe_pod", lost)
    finding.category = "node_not_ready"
    finding.cause = f"the pod's node{node} is not ready: the node controller marks its pods not ready"
    finding.fix = "recover the node (kubelet, network) or drain it so its pods are scheduled elsewhere"
    return True


def evicted_by_the_kubelet(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: an evicted pod (an Evicted event, status or describe reason) is node_pressure when
    the eviction says its node ran low on a resource, else evicted; quoted from the eviction."""
    chat, pod, described = evidence.chat, evidence.pod, evidence.described
    evicted = next((m for r, m in evidence.warnings if r == "Evicted"), None)
    if evicted is not None:
        cite(chat, finding, "describe_pod", evicted)
    elif pod.status == "Evicted" or re.search(r"^Reason:\s+Evicted\s*$", described, re.M):
        message = re.search(r"^Message:\s+(.+)$", described, re.M)
        evicted = message[0].strip() if message else ""
        if message:
            cite(chat, finding, "describe_pod", evicted)
        else:
            cite(chat, finding, "list_pods", listing_row(chat, pod))
    if evicted is None:
        return False
    node = f" {pod.node}" if pod.node else ""
    low = _NODE_LOW.search(evicted or "")
    if low:
        finding.category = "node_pressure"
        finding.cause = f"the kubelet evicted the pod because its node{node} ran low on {low[1]}"
        finding.fix = (
            f"relieve the node's {low[1]} (find the heaviest consumers, set their requests and limits) or "
            "add capacity; delete the Evicted pod once its replacement runs"
        )
    else:
        finding.category = "evicted"
        finding.cause = "the kubelet evicted the pod" + (f": {evicted}" if evicted else "")
        finding.fix = (
            "raise the limit it exceeded or make it use less (e.g. write to a volume, not the container's "
            "local storage); delete the Evicted pod once its replacement runs"
        )
    return True
