"""The fixture's pods, namespaces and events as the Kubernetes API holds them (for the fake API,
kube_api.py), with the API's timestamps and ages."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from typing import Any

from k8s_agent_mock_cluster.kube_resources import JSON


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
