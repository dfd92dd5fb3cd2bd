"""`k8s-agent bench --verify`: how long the harness takes to check a report against large results.

A synthetic cluster's pod listing (5,000 pods by default) in each shape a server returns it: the mock
cluster's kubectl table, a Kubernetes JSON list (`kubectl get pods -o json`, indented and on one
line) and its YAML; a report of the five unhealthy pods, each with its status and its row or object
quoted, checked by `findings.verify` from scratch (results read, records built, quotes placed).
Target: under one second at 5,000 pods for the listings as the servers return them (a table, JSON);
YAML, which servers return for single objects and events, is measured without a target (it is read
at about 2.5 MB a second: 5,000 whole pod objects are 7 MB). Rounds are interleaved; min, median
and max."""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import yaml

from k8s_agent.bench import EXIT_TARGET_MISSED
from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.report import HealthReport
from k8s_agent_harness.evidence.verification import verify
from k8s_agent_mock_cluster import Cluster
from k8s_agent_mock_cluster.kube_objects import kube_objects
from k8s_agent_mock_cluster.synthetic import PLANTED, cluster

TARGET_SECONDS = 1.0
UNTARGETED = frozenset({"YAML stream"})


def shapes(pods: int) -> dict[str, tuple[ToolText, Callable[[dict[str, Any]], str]]]:
    """Each shape's result, and how a quote about a pod is taken from it."""
    fixture = cluster(pods)
    mock = Cluster(fixture)
    listing = mock.list_pods("production")
    objects = kube_objects(fixture, datetime(2026, 1, 1, tzinfo=UTC))["pods"]
    document = {"apiVersion": "v1", "kind": "List", "items": objects}
    indented, compact = json.dumps(document, indent=2), json.dumps(document, separators=(",", ":"))
    stream = yaml.safe_dump_all(objects, sort_keys=False)
    by_name = {line.split()[1]: line for line in listing.splitlines()[1:] if len(line.split()) > 1}

    def row(pod: dict[str, Any]) -> str:
        return " ".join(by_name[pod["name"]].split())

    def uid(pod: dict[str, Any]) -> str:
        return str(next(o for o in objects if o["metadata"]["name"] == pod["name"])["metadata"]["uid"])

    table = ToolText("call_1", "list_pods", listing, '{"namespace": "production"}', parameters=("namespace",))
    return {
        "kubectl table": (table, row),
        "JSON list, indented": (ToolText("call_1", "pods_list", indented), uid),
        "JSON list, one line": (ToolText("call_1", "pods_list", compact), uid),
        "YAML stream": (ToolText("call_1", "pods_list", stream), uid),
    }


def report(fixture_pods: list[dict[str, Any]], quote: Callable[[dict[str, Any]], str]) -> HealthReport:
    findings = [
        {
            "kind": "pod",
            "name": pod["name"],
            "namespace": "production",
            "status": pod["status"],
            "cause": "unknown",
            "explanation": "As listed.",
            "evidence": [{"text": quote(pod), "call_id": "call_1", "tool": "list_pods"}],
            "fix": "Look into it.",
        }
        for pod in fixture_pods
        if pod["name"] in PLANTED
    ]
    return HealthReport.model_validate({"scope": "pods", "findings": findings, "healthy": {"count": 0}})


def main(pods: int = 5000, rounds: int = 5, as_json: bool = False) -> int:
    fixture = cluster(pods)
    cases = shapes(pods)
    reports = {name: report(fixture["pods"], quote) for name, (_, quote) in cases.items()}
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    verified: dict[str, bool] = {}
    for number in range(rounds):
        print(f"bench --verify: round {number + 1} of {rounds}", file=sys.stderr)
        for name, (result, _) in cases.items():
            fresh = ToolText(
                result.call_id, result.tool, result.text, result.arguments, parameters=result.parameters
            )
            started = time.perf_counter()
            checked = verify(reports[name], [fresh])
            seconds[name].append(time.perf_counter() - started)
            verified[name] = checked.verified
    figures: dict[str, Any] = {
        "pods": pods,
        "target_seconds": TARGET_SECONDS,
        "shapes": {
            name: {
                "bytes": len(cases[name][0].text.encode()),
                "seconds": {"min": min(v), "median": statistics.median(v), "max": max(v)},
                "verified": verified[name],
                "target": name not in UNTARGETED,
            }
            for name, v in seconds.items()
        },
    }
    met = all(
        s["verified"] and (not s["target"] or s["seconds"]["median"] < TARGET_SECONDS)
        for s in figures["shapes"].values()
    )
    if as_json:
        print(json.dumps({**figures, "met": met}, indent=2))
    else:
        print(f"Verifying a report of 5 findings against one listing of {pods:,} pods ({rounds} rounds):\n")
        print("| shape | result bytes | seconds (min-max) | report verified |")
        print("|---|---|---|---|")
        for name, shape in figures["shapes"].items():
            s = shape["seconds"]
            print(
                f"| {name} | {shape['bytes']:,} | {s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f}) | "
                f"{'yes' if shape['verified'] else 'NO'} |" + ("" if shape["target"] else " (no target)")
            )
        print(
            f"\nTarget: every report verified, under {TARGET_SECONDS:.0f} s (median) for a table and JSON: "
            f"{'met' if met else 'MISSED'}."
        )
    return 0 if met else EXIT_TARGET_MISSED
