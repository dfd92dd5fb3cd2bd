"""The rules past the pods (objects.py investigates, these decide): each reads the objects the tools
returned and says whether one of them is itself the problem, with its cause and its quotes.

    service_routes_nowhere     a Service whose selector matches no pod: no endpoints      service_no_endpoints
    service_port_unserved      a Service whose targetPort no container of its pods serves service_no_endpoints
    ingress_backend_missing    an Ingress whose backend Service (or its port) is not there service_no_endpoints
    claim_unbound              a claim Pending on a class that does not exist, or failing unbound_volume
    workload_cannot_create     a controller whose FailedCreate says why it has no pods    quota_exceeded, ...
    rollout_stuck              a Deployment past its progress deadline                    its pods' cause
    autoscaler_limited         an autoscaler at its maximum above target, or blind        autoscaler_limit
    policy_cuts_traffic        a NetworkPolicy that selects a pod whose calls time out    network_policy
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.playbook.object_views import (
    Event,
    Shown,
    conditions_of,
    event_quote,
    labels_match,
)

TIMEOUT = re.compile(
    r"(?i)i/o timeout|timed? ?out|timeout (?:after|exceeded|while)|deadline exceeded|"
    r"temporary failure in name resolution|no such host|could not resolve|name or service not known"
)


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
            event_quote(e) for e in warnings if e.object == f"ingress/{ingress.name}" and e.type == "Warning"
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
    quotes = [event_quote(e) for e in told[:2]]
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
            [event_quote(event)],
            _CREATE_FIXES[cause],
        )
    return list(found.values())


def rollout_stuck(deployment: Shown, pod_causes: dict[str, str]) -> ObjectFinding | None:
    """Rule: A Deployment past its progress deadline (Progressing False, ProgressDeadlineExceeded): reported
    with the cause of its unhealthy pods (else unknown), quoted from the condition's message."""
    progressing = conditions_of(deployment.data).get("Progressing") or {}
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
    conditions = conditions_of(hpa.data)
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
        if not pod.logs or not TIMEOUT.search(pod.logs):
            continue
        if "Egress" in types and labels_match(selector, pod.labels) and _egress_blocks(spec, pod.logs):
            hit.add(pod.name)
    if "Ingress" in types:
        targets = [p for p in pods if labels_match(selector, p.labels)]
        rules = spec.get("ingress") or []
        for caller in pods:
            others = [t for t in targets if t.name != caller.name]
            if not others or not caller.logs or not TIMEOUT.search(caller.logs):
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
            if labels_match(source.get("podSelector") or {}, labels) and "namespaceSelector" not in source:
                return True
    return False
