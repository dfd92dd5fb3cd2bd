"""What the fake Kubernetes API serves, built once from a fixture: every object by resource, and
the requests it received (for tests)."""

from __future__ import annotations

import copy
import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_mock_cluster.kube_pods import _now, _ts, _uid, make_namespace
from k8s_agent_mock_cluster.kube_resources import JSON, RESOURCES, _Res

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
"""What `/version` answers."""


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
