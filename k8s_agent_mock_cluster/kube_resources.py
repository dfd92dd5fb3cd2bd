"""The resources the fake Kubernetes API serves (kube_api.py): each kind's group, version, plural
and scope, the discovery lists, the API's key of a fixture object, and label and field selectors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


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
