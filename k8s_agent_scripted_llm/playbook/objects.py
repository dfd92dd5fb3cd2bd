"""Past the pods: the workloads, Services, claims, autoscalers and policies of a namespace.

When the offered tools can list any kind (`resources_list`, `resources_get`) and the question or
what the pods showed calls for it, the playbook lists the namespace's objects of the kinds an SRE
checks (`objects_wanted`, `listing_calls`), reads the ones that can be wrong (`detail_calls`: every
Service with its Endpoints, every claim, autoscaler, policy and Ingress, the workloads that are short
of replicas), and reports each object that is itself the problem (object_rules.py: its rules, one
a kind of trouble), quoted from its own YAML or from the events about it (object_views.py reads both).

A Service whose pods exist but none is ready is not reported for itself: the pods are (their own
cause). A claim waiting for its first consumer, an autoscaler at its maximum within its target, a
Deployment scaled to zero on purpose are healthy. Nothing here names an incident, a pod or a
namespace: every rule reads the objects the tools returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.playbook.conversation import Conversation
from k8s_agent_scripted_llm.playbook.dependencies import failed_calls
from k8s_agent_scripted_llm.playbook.object_rules import (
    TIMEOUT,
    ObjectFinding,
    PodView,
    autoscaler_limited,
    claim_unbound,
    ingress_backend_missing,
    policy_cuts_traffic,
    rollout_stuck,
    service_port_unserved,
    service_routes_nowhere,
    workload_cannot_create,
)
from k8s_agent_scripted_llm.playbook.object_views import Shown, events, got, labels_match, listed, shown
from k8s_agent_scripted_llm.playbook.tables import parse_table
from k8s_agent_scripted_llm.script import ToolCall

API_VERSIONS = {
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicaSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "Service": "v1",
    "Endpoints": "v1",
    "PersistentVolumeClaim": "v1",
    "StorageClass": "storage.k8s.io/v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "NetworkPolicy": "networking.k8s.io/v1",
    "Ingress": "networking.k8s.io/v1",
    "ResourceQuota": "v1",
    "Pod": "v1",
}
LISTED = (
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "Service",
    "Endpoints",
    "Ingress",
    "PersistentVolumeClaim",
    "HorizontalPodAutoscaler",
    "NetworkPolicy",
)
"""The kinds listed in a namespace, in the order an SRE reads them."""
DETAILED = ("Service", "Ingress", "PersistentVolumeClaim", "HorizontalPodAutoscaler", "NetworkPolicy")
"""The kinds read whole, every object of them: what is wrong with one is in its spec or status."""
MAX_DETAILS = 20


_OBJECT_WORDS = re.compile(
    r"(?i)\b(services?|svc|endpoints?|ingress(?:es)?|5\d\d|traffic|reach\w*|time[sd]? ?out|timing out|"
    r"pvcs?|claims?|volumes?|storage|jobs?|cron\w*|deployments?|roll-?outs?|releases?|ship(?:ped)?|"
    r"scal\w*|replicas?|autoscal\w*|hpas?|quotas?|polic\w*|network\w*|dns|statefulsets?|daemonsets?|"
    r"limits?|limitranges?|stuck|missing|no pods?)\b"
)
"""Words of a question that name something past the pods."""
_EXPLAINED_ELSEWHERE = frozenset({"dependency_down", "unknown", "unbound_volume"})
"""Causes of a pod that an object may be behind (a Service that routes nowhere, a claim)."""


def objects_wanted(
    chat: Conversation, causes: Sequence[str], pods: Sequence[str], pods_listed: int = 1
) -> bool:
    """Rule: whether to look past the pods, when the tools can list any kind: the question names
    something past them (a Service, a claim, a Job, a rollout, traffic, scaling); nothing in the
    scope looks unhealthy (the trouble is elsewhere: a Deployment that cannot create its pods, a
    Service that routes nowhere); or an unhealthy pod's cause may be an object's (`dependency_down`,
    `unknown`, an unbound claim) or its logs say its calls fail (a policy, a Service). A scope with no
    pod at all (a namespace that does not exist) is said as it is, unless the question names a kind."""
    if not {"resources_list", "resources_get"} <= chat.offered:
        return False
    if _OBJECT_WORDS.search(chat.question):
        return True
    if (not causes and pods_listed) or _EXPLAINED_ELSEWHERE & set(causes):
        return True
    return any(
        failed_calls(content) or TIMEOUT.search(content)
        for tool, arguments, content in chat.results
        if tool == "get_pod_logs"
        and arguments.get("name") in pods
        and not content.startswith("Tool call failed")
    )


def _args(kind: str, namespace: str | None, name: str | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"apiVersion": API_VERSIONS.get(kind, "v1"), "kind": kind}
    if name is not None:
        arguments["name"] = name
    if namespace:
        arguments["namespace"] = namespace
    return arguments


def listing_calls(chat: Conversation, namespace: str | None) -> list[ToolCall]:
    """The first round past the pods: each kind listed in the namespace (StorageClasses cluster-wide
    when claims are asked about), and the namespace's Warning events when not read yet."""
    calls = [
        ToolCall("resources_list", json.dumps(_args(kind, namespace)))
        for kind in LISTED
        if listed(chat, kind, namespace) is None
    ]
    if calls and "get_events" in chat.offered and not _events_read(chat, namespace):
        calls.append(ToolCall("get_events", json.dumps({"namespace": namespace} if namespace else {})))
    return calls


def _events_read(chat: Conversation, namespace: str | None) -> bool:
    return any(
        tool == "get_events"
        and not arguments.get("pod")
        and (arguments.get("namespace") or None) in (None, namespace)
        for tool, arguments, _ in chat.results
    )


@dataclass
class Row:
    """One object of a listing: its kind, name, namespace and the listing's cells."""

    kind: str
    name: str
    namespace: str | None
    cells: dict[str, str] = field(default_factory=dict)


def listed_objects(chat: Conversation, namespace: str | None) -> list[Row]:
    """The objects the listings of the namespace showed, kind by kind."""
    rows = []
    for kind in LISTED:
        content = listed(chat, kind, namespace)
        if not content or content.startswith(("Tool call failed", "No resources found")):
            continue
        for cells in aligned_table(content):
            name = cells.get("NAME")
            if name:
                rows.append(Row(kind, name, cells.get("NAMESPACE") or namespace, cells))
    return rows


def aligned_table(text: str) -> list[dict[str, str]]:
    """The rows of a kubectl table by its header's columns, each cell cut where its column starts
    (a header may hold spaces: `ACCESS MODES`, `LAST SCHEDULE`; a cell may be empty)."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines or "NAME" not in lines[0].split():
        return []
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"(?:(?<=^)|(?<=\s\s))\S", header)]
    names = [header[a:b].strip() for a, b in zip(starts, [*starts[1:], len(header) + 1], strict=True)]
    rows = []
    for line in lines[1:]:
        if line.startswith((" ", "[")) or len(line) < starts[-1]:
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1], strict=True)]
        rows.append(dict(zip(names, cells, strict=True)))
    return rows


def detail_calls(chat: Conversation, namespace: str | None) -> list[ToolCall]:
    """The second round: every object of the kinds read whole, each Service's Endpoints, the
    workloads short of replicas, then the others (the ports their pods serve), and the StorageClasses
    when a claim is listed; at most MAX_DETAILS objects."""
    wanted: list[tuple[str, str, str | None]] = []
    rows = listed_objects(chat, namespace)
    workloads = [row for row in rows if row.kind in ("Deployment", "StatefulSet", "DaemonSet", "Job")]
    for row in rows:
        if row.kind in DETAILED:
            wanted.append((row.kind, row.name, row.namespace))
            if row.kind == "Service" and _routes(chat, row.name, row.namespace) is not True:
                wanted.append(("Endpoints", row.name, row.namespace))  # none ready: any not ready?
    wanted += [(row.kind, row.name, row.namespace) for row in workloads if _short(row)]
    wanted += [
        (row.kind, row.name, row.namespace) for row in workloads if not _short(row) and row.kind != "Job"
    ]
    calls = [
        ToolCall("resources_get", json.dumps(_args(kind, ns, name)))
        for kind, name, ns in wanted
        if got(chat, kind, name, ns) is None
    ][:MAX_DETAILS]
    if (
        any(row.kind == "PersistentVolumeClaim" for row in rows)
        and listed(chat, "StorageClass", None) is None
    ):
        calls.append(ToolCall("resources_list", json.dumps(_args("StorageClass", None))))
    return calls


def _routes(chat: Conversation, service: str, namespace: str | None) -> bool | None:
    """Whether the Service's Endpoints hold a ready address: as their listing shows it (ENDPOINTS not
    `<none>`), or their YAML; None when neither was read."""
    endpoints = shown(chat, "Endpoints", service, namespace)
    if endpoints is not None:
        subsets = [s for s in endpoints.data.get("subsets") or [] if isinstance(s, dict)]
        return any(s.get("addresses") for s in subsets)
    content = listed(chat, "Endpoints", namespace)
    if content is None or content.startswith("Tool call failed"):
        return None
    for row in aligned_table(content):
        if row.get("NAME") == service and (row.get("NAMESPACE") or namespace) == namespace:
            return row.get("ENDPOINTS", "<none>") not in ("", "<none>")
    return False


def _short(row: Row) -> bool:
    """A workload whose listing shows fewer ready than desired, a Job not complete, or a DaemonSet
    with fewer pods than nodes it should run on (anything a listing cannot tell is read whole)."""
    ready = row.cells.get("READY", "")
    if re.fullmatch(r"\d+/\d+", ready):
        have, want = (int(n) for n in ready.split("/"))
        updated = row.cells.get("UP-TO-DATE", str(want))
        return have < want or (updated.isdigit() and int(updated) < want)
    if row.kind == "Job":
        return row.cells.get("STATUS", "") not in ("Complete",)
    if row.kind == "DaemonSet":
        cells = row.cells
        return cells.get("DESIRED") != cells.get("READY") or cells.get("DESIRED") in (None, "")
    return True


# -- the investigation --------------------------------------------------------------------------


def object_calls(chat: Conversation, namespace: str | None) -> list[ToolCall]:
    """The next calls past the pods: the listings first, then the objects to read whole, with the
    Services of other namespaces the pods' failed calls name (and their Endpoints)."""
    first = listing_calls(chat, namespace)
    if first:
        return first
    wanted = [
        ToolCall("resources_get", json.dumps(_args(kind, where, name)))
        for name, where in _called_elsewhere(chat, namespace)
        for kind in ("Service", "Endpoints")
        if got(chat, kind, name, where) is None
    ]
    return detail_calls(chat, namespace) + wanted


def _called_elsewhere(chat: Conversation, namespace: str | None) -> list[tuple[str, str]]:
    """The Services of another namespace than the scope's that a pod's logs or events fail to reach."""
    found: dict[tuple[str, str], None] = {}
    for tool, _, content in chat.results:
        if tool not in ("get_pod_logs", "describe_pod") or content.startswith("Tool call failed"):
            continue
        for call in failed_calls(content):
            if call.namespace and call.namespace != namespace:
                found[(call.service, call.namespace)] = None
    return list(found)[:4]


def object_findings(
    chat: Conversation, namespace: str | None, pod_causes: dict[str, str]
) -> list[ObjectFinding]:
    """The objects of the namespace that are themselves the problem, by the rules above."""
    rows = listed_objects(chat, namespace)
    warnings = events(chat)
    names = {kind: {r.name for r in rows if r.kind == kind} for kind in LISTED}
    services = {
        r.name: s for r in rows if r.kind == "Service" and (s := shown(chat, "Service", r.name, r.namespace))
    }
    elsewhere = {
        f"{name}.{where}": s
        for name, where in _called_elsewhere(chat, namespace)
        if (s := shown(chat, "Service", name, where))
    }
    pods = _pod_views(chat, namespace, services)
    found: list[ObjectFinding] = []
    for service in [*services.values(), *elsewhere.values()]:
        endpoints = shown(chat, "Endpoints", service.name, service.namespace)
        ports, declared = _served_ports(chat, service, endpoints, rows, pods)
        routes = _routes(chat, service.name, service.namespace)
        finding = (
            service_routes_nowhere(service, endpoints) if routes is False else None
        ) or service_port_unserved(service, routes, ports, declared)
        if finding:
            finding.explains = _callers(pods, service, namespace)
            found.append(finding)
    for row in rows:
        obj = shown(chat, row.kind, row.name, row.namespace)
        if obj is None:
            continue
        finding = None
        if row.kind == "Ingress":
            finding = ingress_backend_missing(obj, services, names["Service"], warnings)
        elif row.kind == "PersistentVolumeClaim":
            consumers = sum(1 for pod in pods if not pod.ready)
            finding = claim_unbound(obj, _classes(chat), warnings, consumers)
        elif row.kind == "Deployment":
            finding = rollout_stuck(obj, pod_causes)
        elif row.kind == "HorizontalPodAutoscaler":
            finding = autoscaler_limited(obj)
        elif row.kind == "NetworkPolicy":
            finding = policy_cuts_traffic(obj, pods)
        if finding:
            found.append(finding)
    created = workload_cannot_create(warnings, names["Deployment"], namespace)
    for finding in [*found, *created]:
        _status_as_listed(finding, rows)
    for finding in created:
        stuck = next((f for f in found if (f.kind, f.name) == (finding.kind, finding.name)), None)
        if stuck is not None:  # past its deadline because it cannot create pods: that is its cause
            finding.evidence += stuck.evidence
            finding.explains |= stuck.explains
            found.remove(stuck)
    return found + created


_LISTED_KINDS = {"deployment": ("Deployment",), "job": ("Job",), "other": ("StatefulSet", "DaemonSet")}


def _status_as_listed(finding: ObjectFinding, rows: Sequence[Row]) -> None:
    """A workload's status as its listing shows it (`READY 2/3`, `Running, COMPLETIONS 0/1`)."""
    row = next(
        (
            r
            for r in rows
            if r.name == finding.name
            and r.kind in _LISTED_KINDS.get(finding.kind, ())
            and (r.namespace or finding.namespace) == finding.namespace
        ),
        None,
    )
    if row is None:
        return
    if row.cells.get("COMPLETIONS"):
        finding.status = f"{row.cells.get('STATUS') or 'Running'}, COMPLETIONS {row.cells['COMPLETIONS']}"
    elif row.cells.get("READY"):
        finding.status = f"READY {row.cells['READY']}"


def _callers(pods: Sequence[PodView], service: Shown, namespace: str | None) -> set[str]:
    """The pods whose logs or events fail to reach the Service (by its name, in its namespace)."""
    callers = set()
    for pod in pods:
        for call in failed_calls(pod.logs):
            if (
                call.service == service.name
                and (call.namespace or pod.namespace or namespace) == service.namespace
            ):
                callers.add(pod.name)
    return callers


def _classes(chat: Conversation) -> set[str] | None:
    content = listed(chat, "StorageClass", None)
    if content is None or content.startswith("Tool call failed"):
        return None
    if content.startswith("No resources found"):
        return set()
    return {row["NAME"] for row in aligned_table(content) if row.get("NAME")}


def _pod_views(chat: Conversation, namespace: str | None, services: dict[str, Shown]) -> list[PodView]:
    """Each pod the conversation showed: labels from describe_pod, and the selector of each Service
    whose Endpoints hold it; its log lines; its probes' ports."""
    views: dict[str, PodView] = {}
    for tool, arguments, content in chat.results:
        if tool == "list_pods" and not content.startswith("Tool call failed"):
            for row in parse_table(content):
                name = row.get("NAME")
                if name and (row.get("NAMESPACE") or arguments.get("namespace") or namespace) in (
                    namespace,
                    None,
                ):
                    ready = row.get("READY", "0/1")
                    have, _, want = ready.partition("/")
                    views.setdefault(
                        name, PodView(name, namespace, {}, have == want and row.get("STATUS") == "Running")
                    )
    for name, view in views.items():
        described = chat.latest("describe_pod", name) or ""
        view.labels.update(_described_labels(described))
        view.probe_ports |= set(re.findall(r"(?:http-get|tcp-socket) [a-z]*:?/*[^:\s]*:(\d+)", described))
        view.logs = "\n".join(
            content
            for tool, arguments, content in chat.results
            if tool in ("get_pod_logs", "describe_pod")
            and arguments.get("name") == name
            and not content.startswith("Tool call failed")
        )
    for service in services.values():
        endpoints = shown(chat, "Endpoints", service.name, service.namespace)
        selector = (service.data.get("spec") or {}).get("selector") or {}
        for subset in (endpoints.data.get("subsets") or []) if endpoints else []:
            for address in [*(subset.get("addresses") or []), *(subset.get("notReadyAddresses") or [])]:
                pod = ((address or {}).get("targetRef") or {}).get("name")
                if pod in views:
                    for key, value in selector.items():
                        views[pod].labels.setdefault(str(key), str(value))
    return list(views.values())


def _described_labels(described: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    lines = described.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("Labels:"):
            rest = [line[len("Labels:") :]]
            for following in lines[index + 1 :]:
                if following.startswith(" ") and ":" not in following.split("=", 1)[0]:
                    rest.append(following)
                else:
                    break
            for part in rest:
                for pair in part.replace(",", " ").split():
                    key, eq, value = pair.partition("=")
                    if eq:
                        labels[key] = value
            break
    return labels


def _served_ports(
    chat: Conversation, service: Shown, endpoints: Shown | None, rows: list[Row], pods: Sequence[PodView]
) -> tuple[set[str], bool]:
    """The ports the Service's pods serve: the containerPorts (numbers and names) of the workloads
    whose template its selector matches, else the ports their probes check."""
    selector = (service.data.get("spec") or {}).get("selector") or {}
    ports: set[str] = set()
    for row in rows:
        if row.kind not in ("Deployment", "StatefulSet", "DaemonSet"):
            continue
        workload = shown(chat, row.kind, row.name, row.namespace)
        template = ((workload.data.get("spec") or {}).get("template") or {}) if workload else {}
        labels = (template.get("metadata") or {}).get("labels") or {}
        if not selector or not labels_match(selector, labels):
            continue
        for container in (template.get("spec") or {}).get("containers") or []:
            for port in (container or {}).get("ports") or []:
                if isinstance(port, dict):
                    ports |= {str(port[k]) for k in ("containerPort", "name") if port.get(k) is not None}
    if ports:
        return ports, True
    members = set()
    for subset in (endpoints.data.get("subsets") or []) if endpoints else []:
        for address in subset.get("addresses") or []:
            members.add(((address or {}).get("targetRef") or {}).get("name"))
    for pod in pods:
        if pod.name in members:  # a port its probes check and its log says it listens on
            ports |= pod.probe_ports & set(_LISTENING.findall(pod.logs))
    return ports, False


_LISTENING = re.compile(r"(?i)(?:listening|serving|started|bound)\b[^\n]{0,40}?(?:port |:)(\d{2,5})\b")
"""A log line that says which port the process serves (`listening on :3000`, `started on port 9000`)."""


def object_lines(found: Sequence[ObjectFinding]) -> list[str]:
    """The prose report's lines for the objects that are the problem."""
    lines = ["", "Past the pods:"] if found else []
    for number, finding in enumerate(found, 1):
        where = f" ({finding.namespace})" if finding.namespace else ""
        lines += [
            f"{number}. {finding.kind} {finding.name}{where}: {finding.status}",
            *[f"   Evidence ({quote['tool']}): {quote['text']}" for quote in finding.evidence[:2]],
            f"   Cause: {finding.cause}: {finding.explanation}",
            f"   Fix: {finding.fix}",
        ]
    return lines


def explained(finding: Any, found: ObjectFinding) -> None:
    """Rule: A pod whose trouble an object explains takes the object's part in its cause: cut off by a
    policy, network_policy; calling a Service that routes nowhere, dependency_down (its own evidence
    stays: the failed call)."""
    if found.cause == "network_policy":
        finding.category = "network_policy"
    elif found.cause == "service_no_endpoints" and finding.category in (
        "readiness_probe_failure",
        "crash_application",
        "unknown",
        "liveness_probe_failure",
    ):
        finding.category = "dependency_down"
        finding.cause = f"{finding.cause}; {found.kind} {found.name} it calls has no endpoints"
        finding.fix = found.fix
