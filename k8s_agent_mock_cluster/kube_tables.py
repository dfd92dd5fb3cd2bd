"""The server-side Tables the fake Kubernetes API answers `kubectl get` with (Accept: as=Table):
kubectl's columns for pods, events and the other kinds (printers.py), and events as events.k8s.io/v1."""

from __future__ import annotations

import copy
import datetime as _dt
from typing import Any

from k8s_agent_mock_cluster.kube_pods import _age
from k8s_agent_mock_cluster.kube_resources import JSON, _Res
from k8s_agent_mock_cluster.printers import columns


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
