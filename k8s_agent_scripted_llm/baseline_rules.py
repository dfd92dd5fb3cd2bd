"""`baseline:rules`: an events reader, the floor a model must clear by reasoning rather than reading.

One pass, on either tool surface (`baseline_surfaces`), each request answered from what the
conversation has read so far:

1. List the pods the question scopes: the namespace it names (`in the X namespace`), else all
   namespaces, narrowed to the namespaces the listing shows whose name is a word of the question. A
   question about nodes lists the nodes and all pods, describes every node, and keeps the pods on a
   node that is not Ready or is under pressure.
2. For every unhealthy pod (STATUS not Running, Completed or Succeeded; or Running and not ready), up
   to ten: describe it and read the Warning events of its namespace.
3. For a crashing one (restarts, or CrashLoopBackOff, Error, OOMKilled in STATUS) whose cause is not
   yet read: the logs of its container that restarted most, the previous instance's when it
   restarted (the current one's when there is no previous).

The cause of a pod is the first of: a container's `Reason: OOMKilled`; the first Warning event about
the pod, then about its controller (a Job, ReplicaSet, ... whose generated name it carries), that is
not a plain back-off or a bare status word; the last line of its logs that says error, exception,
fatal or panic; its STATUS. That line is quoted exactly as the tool printed it, and mapped to the
taxonomy by its words (`baseline_causes`). A node's cause is NotReady or pressure, its evidence the
last event that reports the condition, else its first Warning, else the condition as described.

It never follows a dependency, never reads one resource to judge another, and never reads a listing
beyond its rows: what a model adds on top of it is reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from k8s_agent_scripted_llm import baseline_causes as causes
from k8s_agent_scripted_llm.baseline_surfaces import (
    Container,
    Event,
    Node,
    NodeDetails,
    Pod,
    PodDetails,
    Surface,
    nodes,
    pods,
    surface_for,
)
from k8s_agent_scripted_llm.baseline_wire import Call, Conversation, Read, report
from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Reply, Step

RULES = "baseline:rules"
MAX_PODS = 10
"""Unhealthy pods investigated; the others are reported from their STATUS, and said so."""
MAX_NODES = 10
MAX_CALLS = 20
"""Tool calls in one turn (the harness runs 24 at most)."""
MAX_QUOTE = 1000
"""The report schema's longest quote, as its JSON schema on the wire says (the model side knows the
harness only by the wire: k8s_agent_harness.evidence.report.MAX_QUOTE_CHARACTERS)."""
_NODE_QUESTION = re.compile(r"(?i)\bnodes?\b")
_CRASHING = re.compile(r"CrashLoopBackOff|Error|OOMKilled")
_ERROR_LINE = re.compile(r"(?i)error|exception|fatal|panic")
_BARE_STATUS = re.compile(r"^Error: [A-Za-z]+$")
"""An event that only repeats a status word (`Error: ErrImagePull`): it tells no cause."""
_BAD_CONDITION = re.compile(r"NotReady|Has(?:Disk|Memory|PID)Pressure|HasInsufficient\w*|NetworkUnavailable")
_CONTROLLED = {
    "job": r"[a-z0-9]{5}",
    "replicaset": r"[a-z0-9]{5}",
    "daemonset": r"[a-z0-9]{5}",
    "statefulset": r"[0-9]+",
    "deployment": r"[a-z0-9]{6,10}-[a-z0-9]{5}",
}
"""The suffix a controller of each kind gives the names of its pods."""
FIXES = {
    "oom_killed": "Raise the container's memory limit, or find what uses the memory.",
    "crash_config": "Fix the configuration the container reads at start-up, then restart it.",
    "crash_application": "Read the crash in the logs and fix the application, or roll back.",
    "dependency_down": "Bring back what it connects to.",
    "image_not_found": "Point the workload at an image and tag that exist.",
    "image_unauthorized": "Give the pod pull credentials for the registry (imagePullSecrets).",
    "image_pull_failed": "Make the registry reachable from the node, or use another registry.",
    "insufficient_resources": "Lower the pod's requests or add capacity.",
    "node_selector_mismatch": "Fix the pod's node selector or affinity, or label a node to match.",
    "untolerated_taint": "Add a toleration for the taint, or untaint a node.",
    "unbound_volume": "Provision a volume for the claim (its storage class).",
    "unschedulable": "Read the scheduler's message and change what it names.",
    "quota_exceeded": "Raise the namespace's quota or lower the requests.",
    "missing_config_reference": "Create the ConfigMap or Secret (or the key) the pod refers to.",
    "readiness_probe_failure": "Fix the readiness probe or what it checks.",
    "liveness_probe_failure": "Fix the liveness probe or what makes the container hang.",
    "init_container_failure": "Fix what the init container does (its logs say why it fails).",
    "job_backoff_limit": "Fix why the Job's pods fail, then run it again.",
    "evicted": "Give the pod the resources it uses (limits, ephemeral storage); delete the evicted pods.",
    "node_not_ready": "Bring the node back (kubelet, network), or drain it.",
    "node_pressure": "Free the node's resources or move workloads off it.",
    "service_no_endpoints": "Make the Service's selector and target port match ready pods.",
    "network_policy": "Allow the traffic in the NetworkPolicy that drops it.",
    "autoscaler_limit": "Raise the autoscaler's maximum, or make its metrics readable.",
    "unknown": "Look at its events and logs.",
}


@dataclass(frozen=True)
class Evidence:
    """The line a cause is read from, where it was read, and what it says."""

    text: str
    read: Read
    cause: str
    said_by: str
    """What the line is: `a Warning event (FailedScheduling)`, `its logs`, ..."""


def rules(body: dict[str, Any]) -> Step:
    """The next step of the events reader: the calls it still needs, else its report."""
    talk = Conversation(chat_request(body))
    surface = surface_for(talk.tools | {read.call.tool for read in talk.reads})
    if surface is None:
        return report(talk, "nothing listed: no tool this reader knows", [], [])
    reader = Reader(talk, surface)
    wanted = list(dict.fromkeys(call for call in reader.plan() if talk.read(call) is None))
    if wanted and talk.tools:
        return talk.ask(wanted[:MAX_CALLS])
    return reader.report()


class Reader:
    """What the reader wants to read next, and what it has read, for one request."""

    def __init__(self, talk: Conversation, surface: Surface) -> None:
        self.talk = talk
        self.surface = surface
        self._pod_details: dict[Pod, tuple[PodDetails, Read | None]] = {}
        self._namespace_events: dict[str, tuple[list[Event], Read | None]] = {}
        self._described_nodes: dict[str, tuple[NodeDetails, Read | None]] = {}

    # -- the plan: each step's calls, once the step before has its answers -----------------------

    def plan(self) -> list[Call]:
        """Every call of the steps so far: a step's calls are known once the step before has its
        answers (the pods to describe once the listing came back, the logs once their details did)."""
        planned: list[Call] = []
        for step in (self._listing_calls, self._node_calls, self._pod_calls, self._log_calls):
            calls = step()
            planned += calls
            if any(self.talk.read(call) is None for call in calls):
                break
        return planned

    @cached_property
    def about_nodes(self) -> bool:
        return bool(_NODE_QUESTION.search(self.talk.question))

    def _pod_listing(self) -> Call:
        return self.surface.list_pods(None if self.about_nodes else self.talk.namespace)

    def _listing_calls(self) -> list[Call]:
        if self.about_nodes:
            return [self.surface.list_nodes(), self._pod_listing()]
        return [self._pod_listing()]

    def _node_calls(self) -> list[Call]:
        if not self.about_nodes:
            return []
        calls = [self.surface.describe_node(node.name) for node in self.node_rows[:MAX_NODES]]
        events = self.surface.node_events()
        return calls + ([events] if events is not None and calls else [])

    def _pod_calls(self) -> list[Call]:
        calls = [self.surface.describe_pod(pod) for pod in self.investigated]
        namespaces = dict.fromkeys(pod.namespace for pod in self.investigated if pod.namespace)
        return calls + [self.surface.warning_events(namespace) for namespace in namespaces]

    def _log_calls(self) -> list[Call]:
        calls = []
        for pod in self.investigated:
            if self._told_without_logs(pod) or not self._crashing(pod):
                continue
            calls += self._logs_of(pod)
        return calls

    # -- what has been read ------------------------------------------------------------------------

    def _text(self, call: Call | None) -> Read | None:
        """The call's answer when it came back with the cluster's answer."""
        read = self.talk.read(call) if call is not None else None
        return read if read is not None and read.ok else None

    @cached_property
    def listing(self) -> Read | None:
        return self._text(self._pod_listing())

    @cached_property
    def node_listing(self) -> Read | None:
        return self._text(self.surface.list_nodes()) if self.about_nodes else None

    @cached_property
    def node_rows(self) -> list[Node]:
        return nodes(self.node_listing.text) if self.node_listing else []

    @cached_property
    def listed(self) -> list[Pod]:
        return pods(self.listing.text) if self.listing else []

    @cached_property
    def named_namespaces(self) -> list[str]:
        """The namespaces the listing shows whose name is a word of the question (when the question
        names no namespace in so many words and is not about nodes)."""
        if self.about_nodes or self.talk.namespace:
            return []
        words = set(re.findall(r"[a-z0-9][a-z0-9-]*", self.talk.question.lower()))
        return sorted({pod.namespace for pod in self.listed if pod.namespace in words})

    @cached_property
    def rows(self) -> list[Pod]:
        """The pods in the question's scope, as listed."""
        if self.about_nodes:
            troubled = {node.name for node, _ in self.troubled_nodes}
            return [pod for pod in self.listed if pod.node in troubled]
        if self.named_namespaces:
            return [pod for pod in self.listed if pod.namespace in self.named_namespaces]
        return self.listed

    @cached_property
    def unhealthy(self) -> list[Pod]:
        return [pod for pod in self.rows if pod.unhealthy]

    @cached_property
    def investigated(self) -> list[Pod]:
        return self.unhealthy[:MAX_PODS]

    def _details(self, pod: Pod) -> tuple[PodDetails, Read | None]:
        if pod not in self._pod_details:
            read = self._text(self.surface.describe_pod(pod))
            self._pod_details[pod] = (
                (self.surface.pod_details(read.text), read) if read else (PodDetails(), None)
            )
        return self._pod_details[pod]

    def _events(self, namespace: str) -> tuple[list[Event], Read | None]:
        if namespace not in self._namespace_events:
            read = self._text(self.surface.warning_events(namespace)) if namespace else None
            self._namespace_events[namespace] = (self.surface.events(read.text), read) if read else ([], None)
        return self._namespace_events[namespace]

    def _node_details(self, name: str) -> tuple[NodeDetails, Read | None]:
        if name not in self._described_nodes:
            read = self._text(self.surface.describe_node(name))
            self._described_nodes[name] = (
                (self.surface.node_details(read.text), read) if read else (NodeDetails(), None)
            )
        return self._described_nodes[name]

    def _node_events(self, node: Node) -> tuple[list[Event], Read | None]:
        """The node's events: in its details on one surface, a listing of every node's on the other."""
        separate = self.surface.node_events()
        if separate is None:
            details, read = self._node_details(node.name)
            return list(details.events), read
        read = self._text(separate)
        if read is None:
            return [], None
        return [event for event in self.surface.events(read.text) if event.name == node.name], read

    # -- pods ------------------------------------------------------------------------------------------

    def _crashing(self, pod: Pod) -> bool:
        return pod.restarts > 0 or bool(_CRASHING.search(pod.status))

    def _logs_container(self, pod: Pod) -> Container | None:
        """The container whose logs tell: the one that restarted most, else the first that ran and is
        not ready, else the first that ran (a container that restarted has run)."""
        started = [c for c in self._details(pod)[0].containers if c.started or c.restarts]
        if not started:
            return None
        most = max(started, key=lambda c: c.restarts)
        if most.restarts:
            return most
        return next((c for c in started if not c.ready), started[0])

    def _logs_of(self, pod: Pod) -> list[Call]:
        container = self._logs_container(pod)
        if container is None:
            return []
        if not container.restarts:
            return [self.surface.logs(pod, container.name, False)]
        previous = self.surface.logs(pod, container.name, True)
        read = self.talk.read(previous)
        if read is not None and not read.ok:  # no previous instance to read: the current one
            return [previous, self.surface.logs(pod, container.name, False)]
        return [previous]

    def _told_without_logs(self, pod: Pod) -> bool:
        return self._oom(pod) is not None or self._warning(pod) is not None

    def _oom(self, pod: Pod) -> Evidence | None:
        details, read = self._details(pod)
        if read is None or details.oom_quote is None:
            return None
        return Evidence(details.oom_quote, read, "oom_killed", "a container's last state")

    def _warning(self, pod: Pod) -> Evidence | None:
        events, read = self._events(pod.namespace)
        if read is None:
            return None
        warnings = [e for e in events if e.type == "Warning" and _tells(e)]
        own = [e for e in warnings if e.kind == "pod" and e.name == pod.name]
        controllers = [e for e in warnings if _controls(e, pod.name)]
        event = next(iter(own + controllers), None)
        if event is None:
            return None
        cause = causes.of_event(event.reason, event.message) or causes.of_status(pod.status)
        return Evidence(event.quote, read, cause, f"a Warning event ({event.reason})")

    def _log_line(self, pod: Pod) -> Evidence | None:
        for call in self._logs_of(pod):
            read = self._text(call)
            if read is None:
                continue
            lines = [line for line in read.text.splitlines() if _ERROR_LINE.search(line)]
            if lines:
                return Evidence(lines[-1].strip(), read, causes.of_log(lines[-1]), "its logs")
            return None
        return None

    def _status(self, pod: Pod) -> Evidence | None:
        if self.listing is None:
            return None
        return Evidence(pod.line, self.listing, causes.of_status(pod.status), "the listing's STATUS column")

    def pod_evidence(self, pod: Pod, investigated: bool) -> Evidence | None:
        """Where the pod's cause is read: its OOMKilled line, a Warning, its logs, its STATUS."""
        readers: tuple[Callable[[Pod], Evidence | None], ...] = (
            (self._oom, self._warning, self._log_line, self._status) if investigated else (self._status,)
        )
        return next((found for read in readers if (found := read(pod)) is not None), None)

    def pod_finding(self, pod: Pod, investigated: bool) -> dict[str, Any] | None:
        evidence = self.pod_evidence(pod, investigated)
        if evidence is None:
            return None
        cause = causes.for_pod(evidence.cause, pod.status)
        return _finding("pod", pod.name, pod.namespace, pod.shown_status, cause, evidence)

    # -- nodes -----------------------------------------------------------------------------------------

    @cached_property
    def troubled_nodes(self) -> list[tuple[Node, str]]:
        """The nodes not Ready or under pressure, with their cause."""
        found = []
        for node in self.node_rows[:MAX_NODES]:
            details, _ = self._node_details(node.name)
            ready = node.status.split(",")[0] == "Ready" and all(
                status == "True" for kind, status, _ in details.conditions if kind == "Ready"
            )
            pressure = any(kind != "Ready" and status == "True" for kind, status, _ in details.conditions)
            if not ready or pressure:
                found.append((node, "node_not_ready" if not ready else "node_pressure"))
        return found

    def node_evidence(self, node: Node, cause: str) -> Evidence:
        """The last event that reports the node's condition, else its first Warning, else the condition
        as described, else its listing row."""
        events, read = self._node_events(node)
        told = [e for e in events if _BAD_CONDITION.search(f"{e.reason} {e.message}")]
        warnings = [e for e in events if e.type == "Warning"]
        event = told[-1] if told else next(iter(warnings), None)
        if event is not None and read is not None:
            return Evidence(event.quote, read, cause, f"an event ({event.reason})")
        details, described = self._node_details(node.name)
        condition = _condition_quote(details, cause)
        if condition and described is not None:
            return Evidence(condition, described, cause, "its conditions")
        assert self.node_listing is not None  # a node in trouble was listed
        return Evidence(node.line, self.node_listing, cause, "the node listing's STATUS column")

    # -- the report ------------------------------------------------------------------------------------

    def report(self) -> Reply:
        findings: list[dict[str, Any]] = []
        if self.about_nodes:
            for node, cause in self.troubled_nodes:
                evidence = self.node_evidence(node, cause)
                findings.append(_finding("node", node.name, None, node.status, cause, evidence))
        for number, pod in enumerate(self.unhealthy):
            finding = self.pod_finding(pod, number < MAX_PODS)
            if finding is not None:
                findings.append(finding)
        return report(self.talk, self._scope(), findings[:30], self._healthy(), self._unchecked())

    def _scope(self) -> str:
        if self.about_nodes:
            return "nodes, and the pods on the nodes in trouble"
        namespaces = [self.talk.namespace] if self.talk.namespace else self.named_namespaces
        if namespaces:
            return "pods in namespace " + ", ".join(namespaces)
        return "pods in all namespaces"

    def _healthy(self) -> list[str]:
        troubled = {node.name for node, _ in self.troubled_nodes} if self.about_nodes else set()
        healthy_nodes = [node.name for node in self.node_rows if node.name not in troubled]
        return healthy_nodes + [pod.name for pod in self.rows if not pod.unhealthy]

    def _unchecked(self) -> list[str]:
        notes = [
            f"{read.call.tool} {dict(read.call.arguments)}: {read.text.splitlines()[0][:300] if read.text else ''}"
            for read in self.talk.reads
            if read.run and not read.ok
        ]
        beyond = len(self.unhealthy) - MAX_PODS
        if beyond > 0:
            notes.append(
                f"{beyond} more unhealthy pods beyond the first {MAX_PODS} were not investigated: their "
                "cause is read off the STATUS column"
            )
        return notes[:20]


def _condition_quote(details: NodeDetails, cause: str) -> str | None:
    """The condition that puts the node in trouble, as described: Ready when it is not ready, else the
    first pressure condition that holds."""
    for kind, status, quote in details.conditions:
        wanted = kind == "Ready" if cause == "node_not_ready" else kind != "Ready" and status == "True"
        if quote and wanted:
            return quote
    return None


def _tells(event: Event) -> bool:
    """Whether an event's words can tell a cause: not a back-off, not a bare status word."""
    return event.reason != "BackOff" and not _BARE_STATUS.match(event.message.strip())


def _controls(event: Event, pod: str) -> bool:
    """Whether the event is about the pod's controller: a Job, ReplicaSet, ... whose name plus the
    suffix it generates is the pod's name."""
    suffix = _CONTROLLED.get(event.kind)
    return suffix is not None and re.fullmatch(re.escape(event.name) + "-" + suffix, pod) is not None


def _finding(
    kind: str, name: str, namespace: str | None, status: str, cause: str, evidence: Evidence
) -> dict[str, Any]:
    quote = evidence.text[:MAX_QUOTE]
    return {
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": cause,
        "explanation": f"{evidence.said_by[:1].upper()}{evidence.said_by[1:]} says: {' '.join(quote.split())}"[
            :MAX_QUOTE
        ],
        "evidence": [{"text": quote, "call_id": evidence.read.call_id, "tool": evidence.read.call.tool}],
        "fix": FIXES.get(cause, FIXES["unknown"]),
    }
