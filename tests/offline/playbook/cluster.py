"""Small clusters the playbook's rule tests build for themselves, and the report the playbook writes
on one: every rule is tested on a fixture of its own, never on an incident of the eval's corpus."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from k8s_agent_harness.evidence.verification import verify
from k8s_agent_mock_cluster import Cluster
from k8s_agent_mock_cluster.fixture import SCHEMA
from tests.offline.test_offline_model import play, play_structured

READY_NODE = {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False"}


def container(name: str, *, image: str = "", **fields: Any) -> dict[str, Any]:
    """One container of a pod (`logs`, `previous_logs`, `state`, `last_state`, `restarts`, ...)."""
    return {"name": name, "image": image or f"registry.example.org/{name}:1.0", **fields}


def pod(
    name: str,
    namespace: str,
    status: str,
    *containers: dict[str, Any],
    node: str | None = "worker-1",
    age: str = "3d",
    ready: bool | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A pod with its containers (one named after the pod's first word when none is given); a
    container is ready when the pod is Running and `ready` does not say otherwise."""
    phase = "Running" if status in ("Running", "CrashLoopBackOff", "OOMKilled") else "Pending"
    if status == "Completed":
        phase = "Succeeded"
    listed = list(containers) or [container(name.split("-")[0])]
    running = status == "Running"
    return {
        "name": name,
        "namespace": namespace,
        "status": status,
        "phase": phase,
        "node": node,
        "age": age,
        "containers": [
            {"ready": running if ready is None else ready, "restarts": 0, **one} for one in listed
        ],
        **fields,
    }


def event(
    namespace: str,
    obj: str,
    reason: str,
    message: str,
    *,
    kind: str = "Warning",
    last_seen: str = "1m",
    count: int = 1,
    first_seen: str | None = None,
) -> dict[str, Any]:
    found = {
        "namespace": namespace,
        "object": obj,
        "type": kind,
        "reason": reason,
        "message": message,
        "count": count,
        "last_seen": last_seen,
    }
    if first_seen:
        found["first_seen"] = first_seen
    return found


def cluster(
    pods: list[dict[str, Any]],
    events: list[dict[str, Any]] | None = None,
    nodes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A valid fixture: the pods and events, on two Ready nodes unless others are given."""
    fixture = {
        "cluster": {"name": "test-cluster", "version": "v1.30.2"},
        "nodes": nodes
        or [{"name": f"worker-{n}", "status": "Ready", "conditions": dict(READY_NODE)} for n in (1, 2)],
        "pods": pods,
        "events": events or [],
    }
    Draft202012Validator(SCHEMA).validate(fixture)
    return fixture


def report_on(fixture: dict[str, Any], question: str) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    """The playbook's JSON report on the cluster, every quote checked against the tool results (a
    quote no tool returned fails the test), and the calls it made."""
    report, results, _ = play_structured(Cluster(fixture), question)
    checked = verify(report, results)
    assert checked.problems == [], checked.problems
    calls, _, _ = play(Cluster(fixture), question)
    return checked.report, calls


def causes(report: Any) -> dict[str, str]:
    """`kind/name` of each finding, with its cause."""
    return {f"{f.kind}/{f.name}": f.cause.value for f in report.findings}


def quotes(report: Any, name: str) -> list[str]:
    """The texts a finding of that resource quotes, in order."""
    (finding,) = [f for f in report.findings if f.name == name]
    return [quote.text for quote in finding.evidence]
