"""A small fake Kubernetes API server (standard library only): a cluster for real Kubernetes clients.

It serves read-only GETs from a fixture dict, well enough for client-go based
tools (kubernetes-mcp-server), ``kubectl get/describe/logs`` and
@kubernetes/client-node (mcp-server-kubernetes):

* discovery: ``/version``, ``/api``, ``/api/v1``, ``/apis``, ``/apis/{g}``,
  ``/apis/{g}/{v}`` (legacy, non-aggregated JSON: clients fall back to it);
* list / get for the resources in ``RESOURCES`` (core pods, namespaces, nodes,
  events, services, ...; apps deployments, replicasets, ...; events.k8s.io/v1
  events, converted from the core v1 fixture events), cluster-wide and per
  namespace, with ``fieldSelector`` and ``labelSelector`` applied;
* server-side Tables (``Accept: ...;as=Table;g=meta.k8s.io;v=v1``), used by
  kubernetes-mcp-server's default table output and by ``kubectl get``;
* pod logs ``/api/v1/namespaces/{ns}/pods/{name}/log`` with ``container``,
  ``previous`` and ``tailLines`` (400 for a missing container name on a
  multi-container pod or missing previous logs, like the real API server);
* 404 ``Status`` objects for unknown paths and objects, 405 for writes
  (``POST`` of SelfSubjectAccessReview / SelfSubjectRulesReview is answered
  "allowed", since some clients probe permissions);
* every request is recorded (``server.requests``), so tests can check which
  endpoints were hit, that nothing wrote, and that the bearer token was sent.

Fixture format (every key optional)::

    {
        "namespaces": ["default", "shop"]          # names or Namespace objects
        "pods": [<Pod>, ...],                        # metadata.namespace required
        "events": [<core/v1 Event>, ...],
        "nodes": [<Node>, ...],
        "deployments": [...], "apps/replicasets": [...], ...   # any RESOURCES plural
        "logs": {
            "shop/web-1": "line1\\nline2\\n",        # ns/pod (single-container pod)
            "shop/web-1/app": "...",                 # ns/pod/container
            "shop/web-1/app": {"current": "...", "previous": "..."},
        },
        "version": {"major": "1", "minor": "32", "gitVersion": "v1.32.4"},
    }

Namespaces referenced by namespaced objects are added automatically, and so are
``default`` and ``kube-system``. Small builders ``make_pod``, ``make_event`` and
``make_namespace`` produce realistic objects (a node: ``kube_objects``, from a mock-cluster node).

Usage::

    with FakeKubeAPI(fixtures) as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        ...
        assert "/api/v1/namespaces/shop/pods/web-1/log" in api.paths()
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import os
import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from k8s_agent_mock_cluster.printers import columns

__all__ = [
    "FAKE_TOKEN",
    "FakeKubeAPI",
    "RecordedRequest",
    "make_event",
    "make_namespace",
    "make_pod",
    "refused_url",
    "write_kubeconfig",
]

#: Default bearer token written into kubeconfigs: distinctive, so tests can
#: assert that it never shows up in tool output or agent reports.
FAKE_TOKEN = "fake-token-DO-NOT-LEAK-6f1c2b9e"

DEFAULT_VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.4",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-04-22T00:00:00Z",
    "goVersion": "go1.23.8",
    "compiler": "gc",
    "platform": "linux/amd64",
}


@dataclass(frozen=True)
class _Res:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    short: tuple[str, ...] = ()
    list_kind: str = ""

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def singular(self) -> str:
        return self.kind.lower()


JSON = dict[str, Any]

RESOURCES: tuple[_Res, ...] = (
    _Res("", "v1", "namespaces", "Namespace", False, ("ns",)),
    _Res("", "v1", "pods", "Pod", True, ("po",)),
    _Res("", "v1", "events", "Event", True, ("ev",)),
    _Res("", "v1", "nodes", "Node", False, ("no",)),
    _Res("", "v1", "services", "Service", True, ("svc",)),
    _Res("", "v1", "endpoints", "Endpoints", True, ("ep",)),
    _Res("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    _Res("", "v1", "secrets", "Secret", True),
    _Res("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",)),
    _Res("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ("pvc",)),
    _Res("", "v1", "persistentvolumes", "PersistentVolume", False, ("pv",)),
    _Res("", "v1", "replicationcontrollers", "ReplicationController", True, ("rc",)),
    _Res("", "v1", "resourcequotas", "ResourceQuota", True, ("quota",)),
    _Res("", "v1", "limitranges", "LimitRange", True, ("limits",)),
    _Res("apps", "v1", "deployments", "Deployment", True, ("deploy",)),
    _Res("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",)),
    _Res("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",)),
    _Res("apps", "v1", "daemonsets", "DaemonSet", True, ("ds",)),
    _Res("batch", "v1", "jobs", "Job", True),
    _Res("batch", "v1", "cronjobs", "CronJob", True, ("cj",)),
    _Res("events.k8s.io", "v1", "events", "Event", True, ("ev",)),
    _Res("networking.k8s.io", "v1", "ingresses", "Ingress", True, ("ing",)),
    _Res("coordination.k8s.io", "v1", "leases", "Lease", True),
    _Res("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", True),
    _Res("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, ("netpol",)),
    _Res("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ("sc",)),
    _Res("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",)),
    _Res("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",)),
    # Create-only review resources: client-go based servers look them up in the
    # RESTMapper before POSTing (kubernetes-mcp-server's access-control round
    # tripper fails the request client-side when they are not discovered).
    _Res("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False),
    _Res("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False),
)

_CREATE_ONLY = {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}


def api_key(obj: JSON) -> str:
    """The fixture key an object of its kind is served under (`secrets`, `apps/deployments`);
    ValueError naming the kinds there are when this one is none of them."""
    kind, api_version = str(obj.get("kind") or ""), str(obj.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    served = [r for r in RESOURCES if r.kind == kind and r.plural not in _CREATE_ONLY]
    matching = [r for r in served if r.group == group] or served
    if not matching:
        kinds = sorted({r.kind for r in RESOURCES if r.plural not in _CREATE_ONLY})
        raise ValueError(f"kind {kind!r} is not one the fake Kubernetes API serves ({', '.join(kinds)})")
    res = matching[0]
    return f"{res.group}/{res.plural}" if res.group else res.plural


# Subresources advertised in discovery (name, kind, verbs).
_SUBRESOURCES = {
    ("", "pods"): (("pods/log", "Pod", ["get"]), ("pods/status", "Pod", ["get"])),
    ("", "nodes"): (("nodes/status", "Node", ["get"]),),
    ("apps", "deployments"): (("deployments/scale", "Scale", ["get"]),),
}

_CATEGORIES_ALL = {
    "pods",
    "services",
    "replicationcontrollers",
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "cronjobs",
}


def _by_group() -> dict[str, list[_Res]]:
    out: dict[str, list[_Res]] = {}
    for r in RESOURCES:
        out.setdefault(r.group, []).append(r)
    return out


# --------------------------------------------------------------------------
# helpers: time, selectors
# --------------------------------------------------------------------------


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _ts(delta_seconds: float = 0) -> str:
    t = _now() - _dt.timedelta(seconds=delta_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_ts(value: Any) -> _dt.datetime | None:
    if not value or not isinstance(value, str):
        return None
    try:
        return _dt.datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=_dt.UTC)
    except ValueError:
        return None


def _human_duration(seconds: float) -> str:
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration (simplified)."""
    s = int(seconds)
    if s < 0:
        return "<invalid>"
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = s // 3600
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    d = h // 24
    if h < 24 * 8:
        return f"{d}d{h % 24}h" if h % 24 else f"{d}d"
    if h < 24 * 365 * 2:
        return f"{d}d"
    return f"{d // 365}y"


def _age(ts: Any, now: _dt.datetime) -> str:
    t = _parse_ts(ts)
    if t is None:
        return "<unknown>"
    return _human_duration((now - t).total_seconds())


def _get_path(obj: Any, dotted: str) -> Any:
    cur = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def _split_top(s: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def _match_labels(labels: dict[str, str], selector: str) -> bool:
    for term in _split_top(selector):
        m = re.fullmatch(r"([^\s!=]+)\s+(in|notin)\s+\((.*)\)", term)
        if m:
            key, op, vals = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",") if v.strip()}
            if op == "in" and labels.get(key) not in vals:
                return False
            if op == "notin" and key in labels and labels[key] in vals:
                return False
            continue
        if term.startswith("!"):
            if term[1:].strip() in labels:
                return False
            continue
        m = re.fullmatch(r"([^!=]+?)\s*(==|!=|=)\s*(.*)", term)
        if m:
            key, op, val = m.group(1).strip(), m.group(2), m.group(3).strip()
            if op == "!=":
                if labels.get(key) == val:
                    return False
            elif labels.get(key) != val:
                return False
            continue
        if term not in labels:  # bare "key": exists
            return False
    return True


def _match_fields(obj: JSON, selector: str) -> bool:
    for term in _split_top(selector):
        m = re.fullmatch(r"([^!=]+?)\s*(==|!=|=)\s*(.*)", term)
        if not m:
            continue  # tolerate what we do not understand
        key, op, val = m.group(1).strip(), m.group(2), m.group(3).strip()
        actual = _get_path(obj, key)
        actual = "" if actual is None else str(actual)
        if op == "!=":
            if actual == val:
                return False
        elif actual != val:
            return False
    return True


# --------------------------------------------------------------------------
# object builders
# --------------------------------------------------------------------------


def _uid(*parts: str) -> str:
    import hashlib

    h = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def make_namespace(
    name: str, *, age_seconds: float = 86400, phase: str = "Active", labels: dict[str, str] | None = None
) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "uid": _uid("ns", name),
            "resourceVersion": "1",
            "creationTimestamp": _ts(age_seconds),
            "labels": {"kubernetes.io/metadata.name": name, **(labels or {})},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": phase},
    }


def make_pod(
    name: str,
    namespace: str = "default",
    *,
    containers: Iterable[str] | None = None,
    image: str = "nginx:1.27",
    phase: str = "Running",
    ready: bool | None = None,
    restarts: int = 0,
    waiting_reason: str | None = None,
    waiting_message: str | None = None,
    last_terminated_reason: str | None = None,
    last_exit_code: int = 1,
    node: str | None = "node-1",
    labels: dict[str, str] | None = None,
    age_seconds: float = 3600,
    pod_ip: str | None = "10.244.0.10",
    owner: JSON | None = None,
    conditions: list[JSON] | None = None,
    status_reason: str | None = None,
    status_message: str | None = None,
) -> JSON:
    """A Pod as the API server returns it.

    ``waiting_reason="CrashLoopBackOff", restarts=5, last_terminated_reason="Error"``
    gives a crash-looping pod; ``phase="Pending", node=None, conditions=[...]``
    an unschedulable one; ``waiting_reason="ImagePullBackOff"`` a bad image.
    """
    names = list(containers or ["app"])
    created = _ts(age_seconds)
    if ready is None:
        ready = phase == "Running" and not waiting_reason
    statuses = []
    for c in names:
        st: dict[str, Any] = {
            "name": c,
            "image": image,
            "imageID": "" if waiting_reason else f"docker.io/library/{image}@sha256:" + "0" * 64,
            "ready": ready,
            "restartCount": restarts,
            "started": bool(ready),
        }
        if waiting_reason:
            st["state"] = {"waiting": {"reason": waiting_reason}}
            if waiting_message:
                st["state"]["waiting"]["message"] = waiting_message
        elif phase == "Running":
            st["state"] = {"running": {"startedAt": created}}
        elif phase == "Succeeded":
            st["state"] = {
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": created,
                    "finishedAt": created,
                }
            }
        else:
            st["state"] = {"waiting": {"reason": "ContainerCreating"}}
        if last_terminated_reason:
            st["lastState"] = {
                "terminated": {
                    "exitCode": last_exit_code,
                    "reason": last_terminated_reason,
                    "startedAt": _ts(120),
                    "finishedAt": _ts(60),
                    "containerID": "containerd://" + "a" * 64,
                }
            }
        else:
            st["lastState"] = {}
        if not waiting_reason or restarts:
            st["containerID"] = "containerd://" + "b" * 64
        statuses.append(st)

    if conditions is None:
        conditions = [
            {
                "type": "PodScheduled",
                "status": "True" if node else "False",
                "lastProbeTime": None,
                "lastTransitionTime": created,
            },
        ]
        if node:
            conditions += [
                {
                    "type": "Initialized",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": created,
                },
                {
                    "type": "ContainersReady",
                    "status": "True" if ready else "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": created,
                },
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": created,
                },
            ]
    status: dict[str, Any] = {"phase": phase, "conditions": conditions, "qosClass": "BestEffort"}
    if node:
        status.update(
            {
                "hostIP": "172.18.0.2",
                "hostIPs": [{"ip": "172.18.0.2"}],
                "startTime": created,
                "containerStatuses": statuses,
            }
        )
        if pod_ip:
            status.update({"podIP": pod_ip, "podIPs": [{"ip": pod_ip}]})
    if status_reason:
        status["reason"] = status_reason
    if status_message:
        status["message"] = status_message

    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": _uid("pod", namespace, name),
        "resourceVersion": "1000",
        "creationTimestamp": created,
        "labels": dict(labels or {"app": name.rsplit("-", 1)[0]}),
    }
    if owner:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "uid": _uid("owner", owner.get("name", "")),
                **owner,
            }
        ]
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": c,
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
            for c in names
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
            {
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
        ],
    }
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def make_event(
    namespace: str,
    involved_name: str,
    reason: str,
    message: str,
    *,
    kind: str = "Pod",
    type: str = "Warning",
    count: int = 1,
    age_seconds: float = 60,
    first_seen_seconds: float | None = None,
    component: str = "kubelet",
    host: str | None = "node-1",
    field_path: str | None = None,
    name: str | None = None,
) -> JSON:
    """A core/v1 Event about ``kind/involved_name`` in ``namespace``."""
    first = first_seen_seconds if first_seen_seconds is not None else age_seconds
    digest = _uid(namespace, involved_name, reason, message)[:16].replace("-", "")
    ev_name = name or f"{involved_name}.{digest}"
    involved: dict[str, Any] = {
        "kind": kind,
        "namespace": namespace,
        "name": involved_name,
        "apiVersion": "v1" if kind in ("Pod", "Node", "Service") else "apps/v1",
        "uid": _uid("pod" if kind == "Pod" else kind.lower(), namespace, involved_name),
    }
    if field_path:
        involved["fieldPath"] = field_path
    source: dict[str, Any] = {"component": component}
    if host:
        source["host"] = host
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": ev_name,
            "namespace": namespace,
            "uid": _uid("event", namespace, ev_name),
            "resourceVersion": "2000",
            "creationTimestamp": _ts(first),
        },
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": _ts(first),
        "lastTimestamp": _ts(age_seconds),
        "count": count,
        "type": type,
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host or "",
    }


def _col(name: str, type_: str = "string", fmt: str = "", desc: str = "", priority: int = 0) -> JSON:
    return {"name": name, "type": type_, "format": fmt, "description": desc, "priority": priority}


def _pod_status_reason(pod: JSON) -> tuple[str, int, str]:
    """(status, restarts, ready) like kubectl's/the API server's pod printer."""
    status = pod.get("status") or {}
    spec = pod.get("spec") or {}
    reason = status.get("reason") or status.get("phase") or "Unknown"
    restarts = 0
    ready_count = 0
    total = len(spec.get("containers") or [])
    init = False
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        restarts += int(cs.get("restartCount") or 0)
        st = cs.get("state") or {}
        term = st.get("terminated")
        if term and term.get("exitCode") == 0:
            continue
        init = True
        if term:
            reason = "Init:" + (term.get("reason") or f"ExitCode:{term.get('exitCode')}")
        elif st.get("waiting", {}).get("reason") not in (None, "", "PodInitializing"):
            reason = "Init:" + st["waiting"]["reason"]
        else:
            reason = f"Init:{i}/{len(spec.get('initContainers') or [])}"
        break
    if not init:
        has_running = False
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += int(cs.get("restartCount") or 0)
            st = cs.get("state") or {}
            if st.get("waiting", {}).get("reason"):
                reason = st["waiting"]["reason"]
            elif st.get("terminated"):
                t = st["terminated"]
                reason = t.get("reason") or (
                    f"Signal:{t['signal']}" if t.get("signal") else f"ExitCode:{t.get('exitCode')}"
                )
            elif st.get("running") and cs.get("ready"):
                has_running = True
                ready_count += 1
        if reason == "Completed" and has_running:
            reason = "Running"
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        reason = "Terminating"
    return reason, restarts, f"{ready_count}/{total}"


def _table_for(res: _Res, items: list[JSON], now: _dt.datetime) -> tuple[list[JSON], list[list[Any]]]:
    if res.plural == "pods" and res.group == "":
        cols = [
            _col("Name", fmt="name"),
            _col("Ready"),
            _col("Status"),
            _col("Restarts", "string"),
            _col("Age"),
            _col("IP", priority=1),
            _col("Node", priority=1),
            _col("Nominated Node", priority=1),
            _col("Readiness Gates", priority=1),
        ]
        rows = []
        for p in items:
            reason, restarts, ready = _pod_status_reason(p)
            st = p.get("status") or {}
            rows.append(
                [
                    p["metadata"]["name"],
                    ready,
                    reason,
                    restarts,
                    _age(p["metadata"].get("creationTimestamp"), now),
                    st.get("podIP") or "<none>",
                    (p.get("spec") or {}).get("nodeName") or "<none>",
                    st.get("nominatedNodeName") or "<none>",
                    "<none>",
                ]
            )
        # Real API server: RESTARTS is an integer cell.
        cols[3]["type"] = "integer"
        return cols, rows
    if res.plural == "events":
        cols = [
            _col("Last Seen"),
            _col("Type"),
            _col("Reason"),
            _col("Object"),
            _col("Subobject", priority=1),
            _col("Source", priority=1),
            _col("Message"),
            _col("First Seen", priority=1),
            _col("Count", priority=1),
            _col("Name", fmt="name", priority=1),
        ]
        rows = []
        for e in items:
            inv = e.get("involvedObject") or e.get("regarding") or {}
            src = e.get("source") or {}
            rows.append(
                [
                    _age(
                        e.get("lastTimestamp")
                        or e.get("eventTime")
                        or e["metadata"].get("creationTimestamp"),
                        now,
                    ),
                    e.get("type", ""),
                    e.get("reason", ""),
                    f"{(inv.get('kind') or '').lower()}/{inv.get('name', '')}",
                    inv.get("fieldPath", ""),
                    ", ".join(x for x in (src.get("component"), src.get("host")) if x),
                    e.get("message") or e.get("note") or "",
                    _age(e.get("firstTimestamp") or e["metadata"].get("creationTimestamp"), now),
                    int(e.get("count") or e.get("deprecatedCount") or 1),
                    e["metadata"]["name"],
                ]
            )
        return cols, rows
    if res.plural == "nodes":
        cols = [
            _col("Name", fmt="name"),
            _col("Status"),
            _col("Roles"),
            _col("Age"),
            _col("Version"),
            _col("Internal-IP", priority=1),
            _col("External-IP", priority=1),
            _col("OS-Image", priority=1),
            _col("Kernel-Version", priority=1),
            _col("Container-Runtime", priority=1),
        ]
        rows = []
        for n in items:
            st = n.get("status") or {}
            ready_cond = next((c for c in st.get("conditions") or [] if c.get("type") == "Ready"), None)
            s = "Ready" if ready_cond and ready_cond.get("status") == "True" else "NotReady"
            if (n.get("spec") or {}).get("unschedulable"):
                s += ",SchedulingDisabled"
            roles = sorted(
                k.split("/", 1)[1]
                for k in (n["metadata"].get("labels") or {})
                if k.startswith("node-role.kubernetes.io/")
            ) or ["<none>"]
            addrs = {a.get("type"): a.get("address") for a in st.get("addresses") or []}
            info = st.get("nodeInfo") or {}
            rows.append(
                [
                    n["metadata"]["name"],
                    s,
                    ",".join(roles),
                    _age(n["metadata"].get("creationTimestamp"), now),
                    info.get("kubeletVersion", ""),
                    addrs.get("InternalIP", "<none>"),
                    addrs.get("ExternalIP", "<none>"),
                    info.get("osImage", ""),
                    info.get("kernelVersion", ""),
                    info.get("containerRuntimeVersion", ""),
                ]
            )
        return cols, rows
    if res.plural == "namespaces":
        cols = [_col("Name", fmt="name"), _col("Status"), _col("Age")]
        rows = [
            [
                n["metadata"]["name"],
                (n.get("status") or {}).get("phase", "Active"),
                _age(n["metadata"].get("creationTimestamp"), now),
            ]
            for n in items
        ]
        return cols, rows
    return columns(res.kind, items, lambda o: _age(o["metadata"].get("creationTimestamp"), now))


def _as_table(res: _Res, items: list[JSON], include: str, rv: str, now: _dt.datetime) -> JSON:
    cols, rows = _table_for(res, items, now)
    out_rows = []
    for obj, cells in zip(items, rows, strict=False):
        row: dict[str, Any] = {"cells": cells}
        if include == "Object":
            row["object"] = obj
        elif include != "None":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": obj.get("metadata", {}),
            }
        out_rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv},
        "columnDefinitions": cols,
        "rows": out_rows,
    }


def _core_event_to_events_v1(ev: JSON) -> JSON:
    md = copy.deepcopy(ev.get("metadata") or {})
    out = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": md,
        "eventTime": ev.get("eventTime"),
        "reportingController": ev.get("reportingComponent") or (ev.get("source") or {}).get("component", ""),
        "reportingInstance": ev.get("reportingInstance") or (ev.get("source") or {}).get("host", ""),
        "action": ev.get("action", ""),
        "reason": ev.get("reason", ""),
        "regarding": ev.get("involvedObject") or {},
        "note": ev.get("message", ""),
        "type": ev.get("type", ""),
        "deprecatedSource": ev.get("source") or {},
        "deprecatedFirstTimestamp": ev.get("firstTimestamp"),
        "deprecatedLastTimestamp": ev.get("lastTimestamp"),
        "deprecatedCount": ev.get("count"),
    }
    return out


# --------------------------------------------------------------------------
# the server
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    status: int = 0
    body: bytes = b""

    @property
    def raw_query(self) -> str:
        from urllib.parse import urlencode

        return urlencode(self.query, doseq=True)

    def __str__(self) -> str:  # pragma: no cover - debugging aid
        q = f"?{self.raw_query}" if self.query else ""
        return f"{self.method} {self.path}{q} -> {self.status}"


@dataclass
class _State:
    fixtures: JSON
    version: JSON = field(default_factory=lambda: dict(DEFAULT_VERSION))
    store: dict[tuple[str, str], list[JSON]] = field(default_factory=dict)
    logs: dict[str, Any] = field(default_factory=dict)
    now: _dt.datetime | None = None
    """The cluster's clock, when it is not the wall clock (ages are counted from it)."""

    def clock(self) -> _dt.datetime:
        return self.now or _now()


def _res_lookup(group: str, version: str, plural: str) -> _Res | None:
    for r in RESOURCES:
        if r.group == group and r.version == version and r.plural == plural:
            return r
    return None


def _build_state(fixtures: JSON | None, now: _dt.datetime | None = None) -> _State:
    fx = copy.deepcopy(fixtures or {})
    st = _State(fixtures=fx, now=now)
    if "version" in fx:
        st.version.update(fx["version"])
    st.logs = dict(fx.get("logs") or {})
    for key, items in fx.items():
        if key in ("version", "logs", "namespaces"):
            continue
        group, _, plural = key.rpartition("/")
        candidates = [
            r
            for r in RESOURCES
            if r.plural == plural and (not group or r.group == group) and r.group != "events.k8s.io"
        ]
        if not candidates:
            raise ValueError(f"fake_kube_api: unknown fixture key {key!r}")
        res = candidates[0]
        objs = []
        for o in items or []:
            o = copy.deepcopy(o)
            o.setdefault("apiVersion", res.api_version)
            o.setdefault("kind", res.kind)
            md = o.setdefault("metadata", {})
            if res.namespaced:
                md.setdefault("namespace", "default")
            md.setdefault("uid", _uid(res.plural, md.get("namespace", ""), md.get("name", "")))
            md.setdefault("resourceVersion", "1")
            md.setdefault("creationTimestamp", _ts(3600))
            objs.append(o)
        st.store[(res.group, res.plural)] = objs
    # namespaces: explicit + referenced + defaults
    ns_objs: dict[str, JSON] = {}
    for n in fx.get("namespaces") or []:
        obj = make_namespace(n) if isinstance(n, str) else copy.deepcopy(n)
        ns_objs[obj["metadata"]["name"]] = obj
    referenced = {"default", "kube-system"}
    for (_g, _p), objs in st.store.items():
        for o in objs:
            ns = o["metadata"].get("namespace")
            if ns:
                referenced.add(ns)
    if st.store.get(("", "nodes")):
        referenced.add("kube-node-lease")
    for n in sorted(referenced):
        ns_objs.setdefault(n, make_namespace(n))
    st.store[("", "namespaces")] = [ns_objs[k] for k in sorted(ns_objs)]
    # kubelet heartbeat leases (``kubectl describe node`` reads them)
    leases = st.store.setdefault(("coordination.k8s.io", "leases"), [])
    have = {(o["metadata"].get("namespace"), o["metadata"].get("name")) for o in leases}
    for node in st.store.get(("", "nodes"), []):
        name = node["metadata"]["name"]
        if ("kube-node-lease", name) not in have:
            leases.append(
                {
                    "apiVersion": "coordination.k8s.io/v1",
                    "kind": "Lease",
                    "metadata": {
                        "name": name,
                        "namespace": "kube-node-lease",
                        "uid": _uid("lease", name),
                        "resourceVersion": "4000",
                        "creationTimestamp": node["metadata"].get("creationTimestamp"),
                    },
                    "spec": {
                        "holderIdentity": name,
                        "leaseDurationSeconds": 40,
                        "renewTime": st.clock().strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
                    },
                }
            )
    return st


def _status(code: int, reason: str, message: str, details: JSON | None = None) -> JSON:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details is not None:
        body["details"] = details
    return body


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    # quiet
    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ---------------------------------------------------------
    def _record(self, body: bytes = b"") -> RecordedRequest:
        u = urlsplit(self.path)
        rec = RecordedRequest(
            method=self.command,
            path=u.path,
            query=parse_qs(u.query, keep_blank_values=True),
            headers=dict(self.headers.items()),
            body=body,
        )
        with self.server.lock:
            self.server.requests.append(rec)
        return rec

    def _send(
        self, rec: RecordedRequest, code: int, payload: Any, content_type: str = "application/json"
    ) -> None:
        if isinstance(payload, (dict, list)):
            data = json.dumps(payload).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload
        rec.status = code
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", _uid("audit", str(len(self.server.requests))))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _not_found(
        self, rec: RecordedRequest, what: str = "", name: str = "", kind: str = "", group: str = ""
    ) -> None:
        if what:
            details = {"name": name, "kind": kind}
            if group:
                details["group"] = group
            msg = f'{kind}{"." + group if group else ""} "{name}" not found'
            self._send(rec, 404, _status(404, "NotFound", msg, details))
        else:
            self._send(
                rec, 404, _status(404, "NotFound", "the server could not find the requested resource", {})
            )

    # -- verbs ------------------------------------------------------------
    def do_GET(self) -> None:
        rec = self._record()
        try:
            self._route_get(rec)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # pragma: no cover - keep the server alive
            self._send(rec, 500, _status(500, "InternalError", f"fake_kube_api: {exc!r}"))

    do_HEAD = do_GET

    def _read_body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _write_verb(self) -> None:
        body = self._read_body()
        rec = self._record(body)
        path = urlsplit(self.path).path
        if self.command == "POST" and path.startswith("/apis/authorization.k8s.io/v1/"):
            self._access_review(rec, path, body)
            return
        self._send(
            rec,
            405,
            _status(405, "MethodNotAllowed", f"fake_kube_api is read-only: {self.command} {path} refused"),
        )

    def _access_review(self, rec: RecordedRequest, path: str, body: bytes) -> None:
        """Answer SelfSubject{Access,Rules}Reviews: reads allowed, writes denied.

        client-go POSTs these as protobuf; the answer is JSON (clients decode by
        the response Content-Type), the verb is picked out of the protobuf bytes.
        """
        kind = (
            "SelfSubjectRulesReview"
            if path.endswith("selfsubjectrulesreviews")
            else "SelfSubjectAccessReview"
        )
        review: dict[str, Any] = {}
        verb = "get"
        if body[:1] == b"{":
            try:
                review = json.loads(body)
                ra = (review.get("spec") or {}).get("resourceAttributes") or {}
                verb = (
                    ra.get("verb")
                    or ((review.get("spec") or {}).get("nonResourceAttributes") or {}).get("verb")
                    or "get"
                )
            except ValueError:
                review = {}
        else:
            m = re.search(
                rb"\x12[\x03-\x10](get|list|watch|create|update|patch|delete"
                rb"|deletecollection|escalate|bind|impersonate|use)\x1a",
                body,
            )
            if m:
                verb = m.group(1).decode()
        review.setdefault("spec", {})
        review.update({"kind": kind, "apiVersion": "authorization.k8s.io/v1"})
        review.setdefault("metadata", {"creationTimestamp": None})
        if kind == "SelfSubjectRulesReview":
            review["status"] = {
                "resourceRules": [
                    {"verbs": ["get", "list", "watch"], "apiGroups": ["*"], "resources": ["*"]}
                ],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["*"]}],
                "incomplete": False,
            }
        else:
            allowed = verb in self.server.allowed_verbs
            review["status"] = (
                {"allowed": allowed}
                if allowed
                else {"allowed": False, "reason": f"fake_kube_api: verb {verb!r} is not allowed"}
            )
        self._send(rec, 201, review)

    do_POST = do_PUT = do_PATCH = do_DELETE = _write_verb

    # -- routing ----------------------------------------------------------
    def _route_get(self, rec: RecordedRequest) -> None:
        state = self.server.state
        path = rec.path.rstrip("/") or "/"
        parts = [p for p in path.split("/") if p]
        q = {k: v[-1] for k, v in rec.query.items()}

        if path in ("/healthz", "/livez", "/readyz"):
            self._send(rec, 200, "ok", "text/plain; charset=utf-8")
            return
        if path == "/version":
            self._send(rec, 200, state.version)
            return
        if path == "/api":
            self._send(
                rec,
                200,
                {
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        {"clientCIDR": "0.0.0.0/0", "serverAddress": self.server.hostport}
                    ],
                },
            )
            return
        if path == "/apis":
            groups = []
            for g in _by_group():
                if g == "":
                    continue
                groups.append(self._group_obj(g))
            self._send(rec, 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
            return
        if parts[:2] == ["api", "v1"]:
            self._route_resource(rec, "", "v1", parts[2:], q)
            return
        if parts and parts[0] == "apis":
            if len(parts) == 2:
                if parts[1] in _by_group() and parts[1]:
                    self._send(rec, 200, self._group_obj(parts[1]))
                    return
                self._not_found(rec)
                return
            if len(parts) >= 3:
                self._route_resource(rec, parts[1], parts[2], parts[3:], q)
                return
        self._not_found(rec)

    def _group_obj(self, g: str) -> JSON:
        versions = sorted({r.version for r in RESOURCES if r.group == g})
        vs = [{"groupVersion": f"{g}/{v}", "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": g, "versions": vs, "preferredVersion": vs[0]}

    def _resource_list(self, group: str, version: str) -> JSON | None:
        res = [r for r in RESOURCES if r.group == group and r.version == version]
        if not res:
            return None
        out = []
        for r in res:
            entry = {
                "name": r.plural,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": ["create"] if r.plural in _CREATE_ONLY else ["get", "list", "watch"],
            }
            if r.short:
                entry["shortNames"] = list(r.short)
            if r.plural in _CATEGORIES_ALL:
                entry["categories"] = ["all"]
            out.append(entry)
            for sub, kind, verbs in _SUBRESOURCES.get((r.group, r.plural), ()):
                out.append(
                    {
                        "name": sub,
                        "singularName": "",
                        "namespaced": r.namespaced,
                        "kind": kind,
                        "verbs": verbs,
                    }
                )
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}

    def _route_resource(
        self, rec: RecordedRequest, group: str, version: str, rest: list[str], q: dict[str, str]
    ) -> None:
        if not rest:
            rl = self._resource_list(group, version)
            if rl is None:
                self._not_found(rec)
            else:
                self._send(rec, 200, rl)
            return
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
            # /api/v1/namespaces/{ns} is a namespace GET
        elif rest[0] == "namespaces" and len(rest) == 2 and group == "":
            self._get_one(rec, _res_lookup("", "v1", "namespaces"), None, rest[1], q)
            return
        res = _res_lookup(group, version, rest[0])
        if res is None:
            self._not_found(rec)
            return
        if namespace is not None and not res.namespaced:
            self._not_found(rec)
            return
        if len(rest) == 1:
            self._list(rec, res, namespace, q)
        elif len(rest) == 2:
            self._get_one(rec, res, namespace, rest[1], q)
        elif len(rest) == 3 and res.plural == "pods" and rest[2] == "log":
            self._pod_log(rec, namespace or "", rest[1], q)
        elif len(rest) == 3 and rest[2] == "status":
            self._get_one(rec, res, namespace, rest[1], q)
        else:
            self._not_found(rec)

    def _objects(self, res: _Res) -> list[JSON]:
        st = self.server.state
        if res.group == "events.k8s.io":
            return [_core_event_to_events_v1(e) for e in st.store.get(("", "events"), [])]
        return st.store.get((res.group, res.plural), [])

    def _wants_table(self) -> bool:
        accept = self.headers.get("Accept") or ""
        first = accept.split(",")[0]
        return "as=Table" in first

    def _list(self, rec: RecordedRequest, res: _Res, namespace: str | None, q: dict[str, str]) -> None:
        if q.get("watch") in ("true", "1"):
            # An empty watch stream that ends at once: the client re-lists or gives up.
            rec.status = 200
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"0\r\n\r\n")
            return
        items = [
            o for o in self._objects(res) if namespace is None or o["metadata"].get("namespace") == namespace
        ]
        if q.get("labelSelector"):
            items = [o for o in items if _match_labels(o["metadata"].get("labels") or {}, q["labelSelector"])]
        if q.get("fieldSelector"):
            items = [o for o in items if _match_fields(o, q["fieldSelector"])]
        rv = str(10000 + len(self.server.requests))
        if self._wants_table():
            self._send(
                rec,
                200,
                _as_table(res, items, q.get("includeObject", "Metadata"), rv, self.server.state.clock()),
                "application/json",
            )
            return
        self._send(
            rec,
            200,
            {
                "kind": res.kind + "List",
                "apiVersion": res.api_version,
                "metadata": {"resourceVersion": rv},
                "items": items,
            },
        )

    def _find(self, res: _Res, namespace: str | None, name: str) -> JSON | None:
        for o in self._objects(res):
            if o["metadata"].get("name") == name and (
                namespace is None or o["metadata"].get("namespace") == namespace
            ):
                return o
        return None

    def _get_one(
        self, rec: RecordedRequest, res: _Res | None, namespace: str | None, name: str, q: dict[str, str]
    ) -> None:
        assert res is not None
        obj = self._find(res, namespace, name)
        if obj is None:
            self._not_found(rec, "x", name, res.plural, res.group)
            return
        if self._wants_table():
            self._send(
                rec,
                200,
                _as_table(
                    res,
                    [obj],
                    q.get("includeObject", "Metadata"),
                    obj["metadata"].get("resourceVersion", "1"),
                    self.server.state.clock(),
                ),
            )
            return
        self._send(rec, 200, obj)

    def _pod_log(self, rec: RecordedRequest, namespace: str, name: str, q: dict[str, str]) -> None:
        pods = _res_lookup("", "v1", "pods")
        assert pods is not None
        pod = self._find(pods, namespace, name)
        if pod is None:
            self._not_found(rec, "x", name, "pods")
            return
        spec = pod.get("spec") or {}
        containers = [c["name"] for c in spec.get("containers") or []]
        init_containers = [c["name"] for c in spec.get("initContainers") or []]
        container = q.get("container") or ""
        if not container:
            if len(containers) != 1:
                self._send(
                    rec,
                    400,
                    _status(
                        400,
                        "BadRequest",
                        f"a container name must be specified for pod {name}, choose one of: "
                        f"[{' '.join(containers)}]",
                    ),
                )
                return
            container = containers[0]
        elif container not in containers + init_containers:
            self._send(
                rec, 400, _status(400, "BadRequest", f"container {container} is not valid for pod {name}")
            )
            return
        previous = q.get("previous") in ("true", "1")
        waiting = _waiting_reason(pod, container)
        if waiting and not previous:
            message = f'container "{container}" in pod "{name}" is waiting to start: {waiting}'
            self._send(rec, 400, _status(400, "BadRequest", message))
            return
        logs = self.server.state.logs
        entry = logs.get(f"{namespace}/{name}/{container}")
        if entry is None and len(containers) == 1:
            entry = logs.get(f"{namespace}/{name}")
        if isinstance(entry, dict):
            text = entry.get("previous" if previous else "current")
        elif previous:
            text = None
        else:
            text = entry if entry is not None else ""
        if text is None:
            if previous:
                self._send(
                    rec,
                    400,
                    _status(
                        400,
                        "BadRequest",
                        f'previous terminated container "{container}" in pod "{name}" not found',
                    ),
                )
            else:
                self._send(rec, 200, "", "text/plain")
            return
        if q.get("tailLines"):
            try:
                n = int(q["tailLines"])
            except ValueError:
                n = -1
            if n >= 0:
                lines = text.splitlines(keepends=True)
                text = "".join(lines[-n:]) if n else ""
        if q.get("limitBytes"):
            try:
                text = text.encode()[: int(q["limitBytes"])].decode(errors="ignore")
            except ValueError:
                pass
        self._send(rec, 200, text, "text/plain")


# Waiting reasons of a container that never started: the API server has no log to give.
_NOT_STARTED = frozenset(
    {"ContainerCreating", "PodInitializing", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError"}
)


def _waiting_reason(pod: JSON, container: str) -> str | None:
    """Why `container` has not started yet (its waiting reason), or None when it has run."""
    status = pod.get("status") or {}
    for entry in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if entry.get("name") == container:
            reason = ((entry.get("state") or {}).get("waiting") or {}).get("reason")
            has_run = entry.get("restartCount") or (entry.get("lastState") or {}).get("terminated")
            return str(reason) if reason in _NOT_STARTED and not has_run else None
    return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        addr: tuple[str, int],
        state: _State,
        allowed_verbs: Iterable[str] = ("get", "list", "watch"),
        ssl_context: Any = None,
    ) -> None:
        super().__init__(addr, _Handler)
        self.state = state
        self.allowed_verbs = frozenset(allowed_verbs)
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()
        self.hostport = f"{addr[0]}:{self.server_address[1]}"
        self.ssl_context = ssl_context
        self.open_sockets: set[Any] = set()

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def close_all_connections(self) -> None:
        """Cut kept-alive client connections (else their threads keep serving)."""
        with self.lock:
            socks = list(self.open_sockets)
            self.open_sockets.clear()
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                sock.close()
            except OSError:
                pass

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = super().get_request()
        # headers and body go out in separate writes: without TCP_NODELAY,
        # Nagle + delayed ACK add ~40 ms to every request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.ssl_context is not None:
            # handshake lazily in the handler thread (do_handshake_on_connect)
            sock = self.ssl_context.wrap_socket(sock, server_side=True)
        with self.lock:
            self.open_sockets.add(sock)
        return sock, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # refused TLS handshakes, resets: nothing to report


class FakeKubeAPI:
    """The fake API server. ``start()``/``stop()`` or use as a context manager.

    ``tls=True`` serves HTTPS with a throw-away self-signed certificate (made
    with the ``openssl`` command). Only then do client-go clients (kubectl,
    kubernetes-mcp-server) send the kubeconfig's bearer token: client-go's
    clientcmd drops user credentials for plain-http servers. Kubeconfigs
    written by :meth:`write_kubeconfig` set ``insecure-skip-tls-verify``.

    ``allowed_verbs`` decides SelfSubjectAccessReview answers (reads only, by
    default). All writes (POST/PUT/PATCH/DELETE) are refused with 405.

    ``now`` stops the cluster's clock at that moment (ages in tables are counted from it), for
    objects whose times are those of another moment (an incident's ``now``).
    """

    def __init__(
        self,
        fixtures: JSON | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = FAKE_TOKEN,
        tls: bool = False,
        allowed_verbs: Iterable[str] = ("get", "list", "watch"),
        now: _dt.datetime | None = None,
    ) -> None:
        self._fixtures = fixtures or {}
        self._now = now
        self._host = host
        self._port = port
        self.token = token
        self.tls = tls
        self._allowed_verbs = tuple(allowed_verbs)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._tmpdir: Any = None

    def _ssl_context(self) -> Any:
        import ssl
        import subprocess
        import tempfile

        self._tmpdir = tempfile.TemporaryDirectory(prefix="fake-kube-api-tls-")
        cert = Path(self._tmpdir.name, "tls.crt")
        key = Path(self._tmpdir.name, "tls.key")
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=fake-kube-api",
                "-addext",
                f"subjectAltName=IP:{self._host}",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        return ctx

    # lifecycle
    def start(self) -> FakeKubeAPI:
        if self._server is not None:
            return self
        self._server = _Server(
            (self._host, self._port),
            _build_state(self._fixtures, self._now),
            allowed_verbs=self._allowed_verbs,
            ssl_context=self._ssl_context() if self.tls else None,
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-kube-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def replace(self, fixtures: JSON, *, now: _dt.datetime | None = None) -> None:
        """Serve other objects from now on (the request log is kept): another cluster behind the
        same address, certificate and token."""
        self._fixtures, self._now = fixtures, now
        if self._server is not None:
            self._server.state = _build_state(fixtures, now)

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server.close_all_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def __enter__(self) -> FakeKubeAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # info
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeKubeAPI not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self._host}:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        if self._server is None:
            return []
        with self._server.lock:
            return list(self._server.requests)

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def request_log(self) -> list[str]:
        """``"GET /api/v1/pods?limit=500 -> 200"`` strings, for debugging."""
        return [str(r) for r in self.requests]

    def mutating_requests(self) -> list[RecordedRequest]:
        """Requests that would change state (everything but GET/HEAD and access reviews)."""
        return [
            r
            for r in self.requests
            if r.method not in ("GET", "HEAD") and not r.path.startswith("/apis/authorization.k8s.io/")
        ]

    def clear_requests(self) -> None:
        if self._server is not None:
            with self._server.lock:
                self._server.requests.clear()

    def write_kubeconfig(self, path: str | Path, **kwargs: Any) -> Path:
        kwargs.setdefault("token", self.token)
        return write_kubeconfig(path, self.url, **kwargs)


def write_kubeconfig(
    path: str | Path,
    server_url: str,
    *,
    token: str = FAKE_TOKEN,
    context: str = "fake-context",
    cluster: str = "fake-cluster",
    user: str = "fake-user",
    namespace: str | None = "default",
) -> Path:
    """Write a kubeconfig (plain http, bearer token) and return its path.

    JSON is valid YAML, so no YAML library is needed.
    """
    ctx: dict[str, Any] = {"cluster": cluster, "user": user}
    if namespace:
        ctx["namespace"] = namespace
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {"server": server_url, "insecure-skip-tls-verify": True}}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
        "preferences": {},
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # 0600 from its first byte, as kubectl keeps a kubeconfig (never readable by others, whatever the umask).
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(cfg, indent=2) + "\n")
    return p


def refused_url(host: str = "127.0.0.1") -> str:
    """An http URL on a loopback port that nothing listens on (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    return f"http://{host}:{port}"


if __name__ == "__main__":  # pragma: no cover - manual experiments
    import argparse
    import sys
    import time

    ap = argparse.ArgumentParser(description="Run the fake Kubernetes API server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--kubeconfig", default="")
    ap.add_argument("--fixtures", default="", help="JSON file with a fixture dict")
    args = ap.parse_args()
    fx = json.loads(Path(args.fixtures).read_text()) if args.fixtures else {}
    api = FakeKubeAPI(fx, port=args.port).start()
    if args.kubeconfig:
        api.write_kubeconfig(args.kubeconfig)
    print(api.url, flush=True)
    seen = 0
    try:
        while True:
            time.sleep(0.2)
            reqs = api.requests
            for r in reqs[seen:]:
                print(r, file=sys.stderr, flush=True)
            seen = len(reqs)
    except KeyboardInterrupt:
        api.stop()
