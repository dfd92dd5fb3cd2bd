"""Past the pods: the workloads, Services, claims, autoscalers and policies of a namespace.

When the offered tools can list any kind (`resources_list`, `resources_get`) and the question or
what the pods showed calls for it, the playbook lists the namespace's objects of the kinds an SRE
checks (`objects_wanted`, `listing_calls`), reads the ones that can be wrong (`detail_calls`: every
Service with its Endpoints, every claim, autoscaler, policy and Ingress, the workloads that are short
of replicas), and reports each object that is itself the problem, quoted from its own YAML or from
the events about it:

    service_routes_nowhere     a Service whose selector matches no pod: no endpoints      service_no_endpoints
    service_port_unserved      a Service whose targetPort no container of its pods serves service_no_endpoints
    ingress_backend_missing    an Ingress whose backend Service (or its port) is not there service_no_endpoints
    claim_unbound              a claim Pending on a class that does not exist, or failing unbound_volume
    workload_cannot_create     a controller whose FailedCreate says why it has no pods    quota_exceeded, ...
    rollout_stuck              a Deployment past its progress deadline                    its pods' cause
    autoscaler_limited         an autoscaler at its maximum above target, or blind        autoscaler_limit
    policy_cuts_traffic        a NetworkPolicy that selects a pod whose calls time out    network_policy

A Service whose pods exist but none is ready is not reported for itself: the pods are (their own
cause). A claim waiting for its first consumer, an autoscaler at its maximum within its target, a
Deployment scaled to zero on purpose are healthy. Nothing here names an incident, a pod or a
namespace: every rule reads the objects the tools returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from k8s_agent_scripted_llm.playbook.conversation import Conversation
from k8s_agent_scripted_llm.playbook.dependencies import failed_calls
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
_TIMEOUT = re.compile(
    r"(?i)i/o timeout|timed? ?out|timeout (?:after|exceeded|while)|deadline exceeded|"
    r"temporary failure in name resolution|no such host|could not resolve|name or service not known"
)


_OBJECT_WORDS = re.compile(
    r"(?i)\b(services?|svc|endpoints?|ingress(?:es)?|5\d\d|traffic|reach\w*|time[sd]? ?out|timing out|"
    r"pvcs?|claims?|volumes?|storage|jobs?|cron\w*|deployments?|roll-?outs?|releases?|ship(?:ped)?|"
    r"scal\w*|replicas?|autoscal\w*|hpas?|quotas?|polic\w*|network\w*|dns|statefulsets?|daemonsets?|"
    r"limits?|limitranges?|stuck|missing|no pods?)\b"
)
"""Words of a question that name something past the pods."""
_EXPLAINED_ELSEWHERE = frozenset({"dependency_down", "unknown", "unbound_volume"})
"""Causes of a pod that an object may be behind (a Service that routes nowhere, a claim)."""


def objects_wanted(chat: Conversation, causes: Sequence[str], pods: Sequence[str], listed: int = 1) -> bool:
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
    if (not causes and listed) or _EXPLAINED_ELSEWHERE & set(causes):
        return True
    return any(
        failed_calls(content) or _TIMEOUT.search(content)
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


def _listed(chat: Conversation, kind: str, namespace: str | None) -> str | None:
    for tool, arguments, content in reversed(chat.results):
        if (
            tool == "resources_list"
            and arguments.get("kind") == kind
            and (arguments.get("namespace") or None) == namespace
        ):
            return str(content)
    return None


def _got(chat: Conversation, kind: str, name: str, namespace: str | None) -> tuple[str, str | None] | None:
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if (
            tool == "resources_get"
            and arguments.get("kind") == kind
            and arguments.get("name") == name
            and (arguments.get("namespace") or None) == namespace
        ):
            return content, chat.id_of(index)
    return None


def listing_calls(chat: Conversation, namespace: str | None) -> list[ToolCall]:
    """The first round past the pods: each kind listed in the namespace (StorageClasses cluster-wide
    when claims are asked about), and the namespace's Warning events when not read yet."""
    calls = [
        ToolCall("resources_list", json.dumps(_args(kind, namespace)))
        for kind in LISTED
        if _listed(chat, kind, namespace) is None
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
        content = _listed(chat, kind, namespace)
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
        if _got(chat, kind, name, ns) is None
    ][:MAX_DETAILS]
    if (
        any(row.kind == "PersistentVolumeClaim" for row in rows)
        and _listed(chat, "StorageClass", None) is None
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
    content = _listed(chat, "Endpoints", namespace)
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


# -- the objects as the YAML shows them --------------------------------------------------------


@dataclass
class Shown:
    """An object as resources_get returned it: its data, its text and the call it came from."""

    kind: str
    name: str
    namespace: str | None
    data: dict[str, Any]
    text: str
    call_id: str | None

    def line(self, pattern: str) -> str | None:
        """The first line of the YAML (stripped) that matches `pattern`."""
        found = re.compile(pattern)
        return next((line.strip() for line in self.text.splitlines() if found.search(line)), None)

    def quote(self, text: str) -> dict[str, Any]:
        return {"text": text, "call_id": self.call_id, "tool": "resources_get"}

    def said(self, message: str) -> str | None:
        """How to quote a field's value: its whole line when the line holds it all, else the value
        itself (a server that folds a long YAML string over lines: the harness reads it decoded)."""
        if not message:
            return None
        line = self.line(re.escape(message[:40]))
        return line if line is not None and message in line else message


def shown(chat: Conversation, kind: str, name: str, namespace: str | None) -> Shown | None:
    got = _got(chat, kind, name, namespace)
    if got is None or got[0].startswith("Tool call failed"):
        return None
    try:
        data = yaml.safe_load(got[0])
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    return Shown(kind, name, namespace, data, got[0], got[1])


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(c.get("type")): c
        for c in (obj.get("status") or {}).get("conditions") or []
        if isinstance(c, dict) and c.get("type")
    }


def _labels_match(selector: dict[str, Any] | None, labels: dict[str, Any]) -> bool:
    """Whether labels satisfy a label selector (a flat map, or matchLabels and matchExpressions)."""
    if not isinstance(selector, dict):
        return False
    flat = selector.get("matchLabels") if {"matchLabels", "matchExpressions"} & set(selector) else selector
    if any(str(labels.get(k)) != str(v) for k, v in (flat or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, op = expression.get("key"), expression.get("operator")
        values = [str(v) for v in expression.get("values") or []]
        if op == "In" and str(labels.get(key)) not in values:
            return False
        if op == "NotIn" and key in labels and str(labels[key]) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


@dataclass
class Event:
    """A Warning or Normal event a get_events result listed: its object, reason, message, call."""

    object: str
    type: str
    reason: str
    message: str
    line: str
    call_id: str | None
    namespace: str | None = None


def events(chat: Conversation) -> list[Event]:
    """Every event row of the conversation's get_events results (mock cluster's table)."""
    found: dict[str, Event] = {}
    for index, (tool, arguments, content) in enumerate(chat.results):
        if tool != "get_events" or content.startswith("Tool call failed"):
            continue
        header = content.splitlines()[0].split() if content.strip() else []
        for line in content.splitlines():
            match = re.match(r"^\s*(\S+\s+)?(?:\S+\s+)?(Normal|Warning)\s+(\S+)\s+([a-z]+/\S+)\s+(.*)$", line)
            if match:
                first, kind, reason, obj, message = match.groups()
                place = (first or "").strip() if header[:1] == ["NAMESPACE"] else arguments.get("namespace")
                found.setdefault(
                    line.strip(),
                    Event(obj, kind, reason, message.strip(), line.strip(), chat.id_of(index), place or None),
                )
    return list(found.values())


def _event_quote(event: Event) -> dict[str, Any]:
    return {"text": event.message, "call_id": event.call_id, "tool": "get_events"}


# -- the rules ----------------------------------------------------------------------------------


@dataclass
class ObjectFinding:
    """One object the report names: its kind (the report's), name, namespace, status, cause, why,
    its quotes and a fix; `explains` are the pods whose trouble it is the cause of."""

    kind: str
    name: str
    namespace: str | None
    status: str
    cause: str
    explanation: str
    evidence: list[dict[str, Any]]
    fix: str
    explains: set[str] = field(default_factory=set)

    def report(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            "status": self.status,
            "cause": self.cause,
            "explanation": self.explanation,
            "evidence": self.evidence[:4],
            "fix": self.fix,
        }


@dataclass
class PodView:
    """What the playbook knows of a pod for these rules: its name, labels, readiness, log lines."""

    name: str
    namespace: str | None
    labels: dict[str, str]
    ready: bool
    logs: str = ""
    probe_ports: set[str] = field(default_factory=set)


def service_routes_nowhere(service: Shown, endpoints: Shown | None) -> ObjectFinding | None:
    """Rule: A Service with a selector whose Endpoints hold no address, ready or not: its selector matches
    no pod (a label renamed, a selector widened): service_no_endpoints, quoted from its selector."""
    spec = service.data.get("spec") or {}
    selector = spec.get("selector")
    if not isinstance(selector, dict) or not selector or endpoints is None:
        return None
    subsets = endpoints.data.get("subsets") or []
    if any((s.get("addresses") or s.get("notReadyAddresses")) for s in subsets if isinstance(s, dict)):
        return None
    quotes = [service.quote(line) for line in _selector_lines(service)[:3]]
    shown_selector = ",".join(f"{k}={v}" for k, v in selector.items())
    return ObjectFinding(
        "service",
        service.name,
        service.namespace,
        "no endpoints",
        "service_no_endpoints",
        f"Service {service.name} selects {shown_selector}, and no pod has those labels: its Endpoints "
        "hold no address, so every request to it fails (resources_get).",
        quotes,
        f"Make Service {service.name}'s selector match its pods' labels (or the pods' labels match it).",
    )


def _selector_lines(service: Shown) -> list[str]:
    """The selector's lines as the YAML writes them (`app: payments-api`)."""
    lines = service.text.splitlines()
    out: list[str] = []
    for index, line in enumerate(lines):
        if line.strip().startswith("selector:"):
            inline = line.split("selector:", 1)[1].strip()
            if inline:
                return [line.strip()]
            indent = len(line) - len(line.lstrip())
            for following in lines[index + 1 :]:
                if not following.strip() or len(following) - len(following.lstrip()) <= indent:
                    break
                out.append(following.strip())
            break
    return out


def service_port_unserved(
    service: Shown, routes: bool | None, ports: set[str], declared_ports: bool = True
) -> ObjectFinding | None:
    """Rule: A Service whose Endpoints hold addresses, whose targetPort (a number or a port's name) none of
    its pods' containers declares while they declare others (or, for a Service of one port, that its
    pods' probes or logs say they serve another: `declared_ports` False): every connection is
    refused. service_no_endpoints, quoted from its `targetPort:` line."""
    if not routes or not ports:
        return None
    declared = [p for p in (service.data.get("spec") or {}).get("ports") or [] if isinstance(p, dict)]
    if not declared_ports and len(declared) != 1:
        return None  # the ports its pods probe are not all they serve: one port, or nothing to say
    for port in declared:
        target = str(port.get("targetPort") if port.get("targetPort") is not None else port.get("port"))
        if target in ports:
            continue
        line = service.line(rf"^\s*targetPort:\s*['\"]?{re.escape(target)}['\"]?\s*$") or service.line(
            rf"^\s*-?\s*port:\s*{re.escape(target)}\s*$"
        )
        if line is None:
            continue
        serves = ", ".join(sorted(ports))
        return ObjectFinding(
            "service",
            service.name,
            service.namespace,
            f"targetPort {target} not served",
            "service_no_endpoints",
            f"Service {service.name} sends traffic to port {target}, but its pods serve {serves}: every "
            "connection through it is refused (resources_get).",
            [service.quote(line)],
            f"Set Service {service.name}'s targetPort to the port its pods listen on ({serves}).",
        )
    return None


def ingress_backend_missing(
    ingress: Shown, services: dict[str, Shown], listed: set[str], warnings: list[Event]
) -> ObjectFinding | None:
    """Rule: an Ingress whose backend names a Service the namespace does not have, or a port (by name or
    number) that Service does not have: service_no_endpoints, quoted from the backend's line and the
    Ingress's own Warning event."""
    for backend in _backends(ingress.data):
        service = backend.get("name")
        if not service:
            continue
        port = backend.get("port") or {}
        problem = None
        if service not in listed:
            problem = f"names Service {service}, which does not exist"
            line = ingress.line(rf"^\s*name:\s*['\"]?{re.escape(str(service))}['\"]?\s*$")
        elif service in services:
            ports = (services[service].data.get("spec") or {}).get("ports") or []
            names = {str(p.get("name")) for p in ports if isinstance(p, dict) and p.get("name")}
            numbers = {str(p.get("port")) for p in ports if isinstance(p, dict)}
            if port.get("name") and str(port["name"]) not in names:
                problem = f"asks Service {service} for port {port['name']}, which it does not have"
                line = ingress.line(rf"^\s*name:\s*['\"]?{re.escape(str(port['name']))}['\"]?\s*$")
            elif port.get("number") and str(port["number"]) not in numbers:
                problem = f"asks Service {service} for port {port['number']}, which it does not have"
                line = ingress.line(rf"^\s*number:\s*{re.escape(str(port['number']))}\s*$")
        if problem is None:
            continue
        quotes = [
            _event_quote(e) for e in warnings if e.object == f"ingress/{ingress.name}" and e.type == "Warning"
        ][:2]
        if line:
            quotes.append(ingress.quote(line))
        return ObjectFinding(
            "other",
            ingress.name,
            ingress.namespace,
            "backend not found",
            "service_no_endpoints",
            f"Ingress {ingress.name} {problem}: its requests have nowhere to go (resources_get).",
            quotes,
            f"Point Ingress {ingress.name}'s backend at the Service and port that serve it.",
        )
    return None


def _backends(ingress: dict[str, Any]) -> Iterable[dict[str, Any]]:
    spec = ingress.get("spec") or {}
    default = (spec.get("defaultBackend") or {}).get("service")
    if isinstance(default, dict):
        yield default
    for rule in spec.get("rules") or []:
        for path in ((rule or {}).get("http") or {}).get("paths") or []:
            service = ((path or {}).get("backend") or {}).get("service")
            if isinstance(service, dict):
                yield service


def claim_unbound(
    claim: Shown, classes: set[str] | None, warnings: list[Event], consumers: int
) -> ObjectFinding | None:
    """Rule: A claim Pending on a StorageClass the cluster does not have, or with a Warning about it
    (ProvisioningFailed): unbound_volume, quoted from the event and its `storageClassName:` line. A
    claim waiting for its first consumer with no pod waiting for it is healthy."""
    if str((claim.data.get("status") or {}).get("phase") or "Pending") != "Pending":
        return None
    wanted = (claim.data.get("spec") or {}).get("storageClassName")
    told = [e for e in warnings if e.object == f"persistentvolumeclaim/{claim.name}" and e.type == "Warning"]
    waiting = [
        e
        for e in warnings
        if e.object == f"persistentvolumeclaim/{claim.name}" and e.reason == "WaitForFirstConsumer"
    ]
    missing_class = bool(wanted) and classes is not None and str(wanted) not in classes
    if not told and not missing_class:
        return None
    if waiting and not told and not consumers:
        return None
    quotes = [_event_quote(e) for e in told[:2]]
    line = claim.line(r"^\s*storageClassName:")
    if line:
        quotes.append(claim.quote(line))
    why = f"StorageClass {wanted} does not exist" if missing_class else (told[0].message if told else "")
    return ObjectFinding(
        "pvc",
        claim.name,
        claim.namespace,
        "Pending",
        "unbound_volume",
        f"Claim {claim.name} stays Pending: {why}.",
        quotes,
        "Give the claim a StorageClass that exists (or create the class it names).",
    )


_CREATE_CAUSES = (
    (
        re.compile(
            r"(?i)exceeded quota|maximum .*usage per|minimum .*usage per|limitrange|must be less than or equal"
        ),
        "quota_exceeded",
    ),
    (
        re.compile(r"(?i)serviceaccount .*not found|configmap .*not found|secret .*not found"),
        "missing_config_reference",
    ),
)
_CREATE_FIXES = {
    "quota_exceeded": "Raise the namespace's quota or limit range, or lower what the workload asks for.",
    "missing_config_reference": "Create what the pod template refers to (its service account, ConfigMap or Secret).",
    "unknown": "Read the controller's FailedCreate message and change what it names.",
}


def workload_cannot_create(
    warnings: list[Event], deployments: set[str], namespace: str | None
) -> list[ObjectFinding]:
    """Rule: A controller that cannot create its pods (FailedCreate on a ReplicaSet, StatefulSet, Job or
    DaemonSet): reported as its workload (a ReplicaSet as its Deployment), its cause read from the
    message (a quota or limit range: quota_exceeded; a service account, ConfigMap or Secret not
    found: missing_config_reference), quoted from the event."""
    found: dict[tuple[str, str], ObjectFinding] = {}
    for event in warnings:
        if event.reason != "FailedCreate" or event.type != "Warning":
            continue
        kind, _, name = event.object.partition("/")
        if kind == "replicaset":
            owner = re.sub(r"-[a-z0-9]{6,10}$", "", name)
            kind, name = ("deployment", owner) if owner in deployments or owner != name else ("other", name)
        elif kind == "job":
            kind = "job"
        elif kind in ("statefulset", "daemonset", "cronjob"):
            kind = "other"
        else:
            continue
        cause = next((c for pattern, c in _CREATE_CAUSES if pattern.search(event.message)), "unknown")
        if (kind, name) in found:
            continue
        found[(kind, name)] = ObjectFinding(
            kind,
            name,
            event.namespace or namespace,
            "cannot create pods",
            cause,
            f"{kind.capitalize() if kind != 'other' else 'The controller'} {name} cannot create its pods: "
            f"{event.message[:200]} (get_events).",
            [_event_quote(event)],
            _CREATE_FIXES[cause],
        )
    return list(found.values())


def rollout_stuck(deployment: Shown, pod_causes: dict[str, str]) -> ObjectFinding | None:
    """Rule: A Deployment past its progress deadline (Progressing False, ProgressDeadlineExceeded): reported
    with the cause of its unhealthy pods (else unknown), quoted from the condition's message."""
    progressing = _conditions(deployment.data).get("Progressing") or {}
    if progressing.get("status") != "False":
        return None
    mine = {pod: cause for pod, cause in pod_causes.items() if pod.startswith(f"{deployment.name}-")}
    cause = next(iter(mine.values()), "unknown")
    message = str(progressing.get("message") or progressing.get("reason") or "")
    quotes = [deployment.quote(text)] if (text := deployment.said(message)) else []
    reason = deployment.line(r"reason:\s*ProgressDeadlineExceeded")
    if reason:
        quotes.append(deployment.quote(reason))
    return ObjectFinding(
        "deployment",
        deployment.name,
        deployment.namespace,
        "rollout stuck",
        cause,
        f"Deployment {deployment.name}'s rollout has stopped: {message or 'past its progress deadline'} "
        "(resources_get); its new pods do not become ready.",
        quotes,
        "Fix what keeps the new pods from becoming ready, or roll back.",
        explains=set(mine),
    )


def autoscaler_limited(hpa: Shown) -> ObjectFinding | None:
    """Rule: an autoscaler that cannot scale as load asks: unable to read its metrics (ScalingActive False,
    a FailedGetResourceMetric), or held at its maximum (ScalingLimited True, TooManyReplicas) with a
    metric above its target: autoscaler_limit, quoted from the condition's message. At its maximum
    within its target it is healthy."""
    conditions = _conditions(hpa.data)
    active, limited = conditions.get("ScalingActive") or {}, conditions.get("ScalingLimited") or {}
    spec, status = hpa.data.get("spec") or {}, hpa.data.get("status") or {}
    problem = None
    if active.get("status") == "False":
        problem = active
    elif (
        limited.get("status") == "True"
        and str(limited.get("reason")) == "TooManyReplicas"
        and _above_target(spec, status)
    ):
        problem = limited
    if problem is None:
        return None
    message = str(problem.get("message") or problem.get("reason") or "")
    quotes = [hpa.quote(text)] if (text := hpa.said(message)) else []
    target = (spec.get("scaleTargetRef") or {}).get("name", "")
    blind = problem is active
    return ObjectFinding(
        "other",
        hpa.name,
        hpa.namespace,
        f"{problem.get('type')} {problem.get('status')}",
        "autoscaler_limit",
        (
            f"Autoscaler {hpa.name} cannot scale {target}: {message} (resources_get)."
            if blind
            else f"Autoscaler {hpa.name} holds {target} at its maximum of {spec.get('maxReplicas')} "
            f"replicas while its load is above target: {message} (resources_get)."
        ),
        quotes,
        (
            f"Give every container of {target} the resource request the autoscaler divides by."
            if blind
            else f"Raise {hpa.name}'s maxReplicas (or make {target} cheaper per request)."
        ),
    )


def _above_target(spec: dict[str, Any], status: dict[str, Any]) -> bool:
    wanted = {
        str((m.get("resource") or {}).get("name")): ((m.get("resource") or {}).get("target") or {}).get(
            "averageUtilization"
        )
        for m in spec.get("metrics") or []
        if isinstance(m, dict)
    }
    for metric in status.get("currentMetrics") or []:
        resource = (metric or {}).get("resource") or {}
        now = (resource.get("current") or {}).get("averageUtilization")
        target = wanted.get(str(resource.get("name")))
        if isinstance(now, int | float) and isinstance(target, int | float) and now > target:
            return True
    return not status.get("currentMetrics")


def policy_cuts_traffic(policy: Shown, pods: Sequence[PodView]) -> ObjectFinding | None:
    """Rule: A NetworkPolicy that selects a pod whose logs say its calls time out or cannot resolve a name,
    and whose rules of that direction admit nothing for it (no rule, or only rules for other pods or
    namespaces; egress without port 53 where names do not resolve): network_policy, quoted from its
    podSelector and policy types. The pods it cuts off are its to explain."""
    spec = policy.data.get("spec") or {}
    selector = spec.get("podSelector") or {}
    types = [str(t) for t in spec.get("policyTypes") or ["Ingress"]]
    hit: set[str] = set()
    for pod in pods:
        if not pod.logs or not _TIMEOUT.search(pod.logs):
            continue
        if "Egress" in types and _labels_match(selector, pod.labels) and _egress_blocks(spec, pod.logs):
            hit.add(pod.name)
    if "Ingress" in types:
        targets = [p for p in pods if _labels_match(selector, p.labels)]
        rules = spec.get("ingress") or []
        for caller in pods:
            others = [t for t in targets if t.name != caller.name]
            if not others or not caller.logs or not _TIMEOUT.search(caller.logs):
                continue
            named = _flat(selector)
            calls_them = not named or any(
                len(value) >= 4 and value in caller.logs for t in others for value in t.labels.values()
            )
            if calls_them and not _admitted(rules, caller.labels):
                hit.add(caller.name)
    if not hit:
        return None
    quotes = [policy.quote(line) for line in _rule_lines(policy)[:2]]
    for pattern in (r"^\s*podSelector:", r"^\s*-\s*(Ingress|Egress)\s*$"):
        line = policy.line(pattern)
        if line:
            quotes.append(policy.quote(line))
    return ObjectFinding(
        "other",
        policy.name,
        policy.namespace,
        "drops traffic",
        "network_policy",
        f"NetworkPolicy {policy.name} admits no traffic for {', '.join(sorted(hit))}, whose calls time out "
        "(resources_get, get_pod_logs).",
        quotes,
        f"Add a rule to NetworkPolicy {policy.name} that allows the traffic {', '.join(sorted(hit))} needs.",
        explains=hit,
    )


def _rule_lines(policy: Shown) -> list[str]:
    """The lines of a policy's rules that say what they admit (`kubernetes.io/metadata.name: x`,
    `app: web`, `port: 5432`), in order: the leaves under `ingress:` or `egress:` with a value."""
    lines, out, inside = policy.text.splitlines(), [], None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if re.match(r"^(ingress|egress):", stripped) and not stripped.endswith("[]"):
            inside = indent
            continue
        if inside is not None:
            if indent <= inside and not stripped.startswith("-"):
                inside = None
                continue
            _key, colon, value = stripped.lstrip("- ").partition(":")
            if colon and value.strip() and value.strip() not in ("{}", "[]"):
                out.append(stripped.lstrip("- ").strip())
    return out


def _flat(selector: dict[str, Any]) -> dict[str, Any]:
    if {"matchLabels", "matchExpressions"} & set(selector):
        return dict(selector.get("matchLabels") or {}) or {
            e.get("key"): "" for e in selector.get("matchExpressions") or []
        }
    return dict(selector)


def _egress_blocks(spec: dict[str, Any], logs: str) -> bool:
    rules = spec.get("egress") or []
    if not rules:
        return True
    if re.search(r"(?i)name resolution|no such host|could not resolve|name or service not known", logs):
        return not any(
            str(port.get("port")) == "53"
            for rule in rules
            if isinstance(rule, dict)
            for port in rule.get("ports") or []
            if isinstance(port, dict)
        ) and not any(not (rule or {}).get("to") for rule in rules)
    return False


def _admitted(rules: list[Any], labels: dict[str, str]) -> bool:
    for rule in rules:
        if not isinstance(rule, dict):
            continue
        sources = rule.get("from")
        if not sources:
            return True
        for source in sources:
            if not isinstance(source, dict):
                continue
            if "namespaceSelector" in source and "podSelector" not in source:
                continue  # another namespace's pods: not this one's
            if _labels_match(source.get("podSelector") or {}, labels) and "namespaceSelector" not in source:
                return True
    return False


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
        if _got(chat, kind, name, where) is None
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
    content = _listed(chat, "StorageClass", None)
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
        if not selector or not _labels_match(selector, labels):
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
