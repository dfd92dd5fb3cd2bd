"""Synthetic clusters of any size, for the scale benchmark and the tests: many healthy pods (each
workload's Deployment and Service among the cluster's objects), and the same five planted failures
whatever the size. Deterministic: the same size gives the same cluster.

    python -m k8s_agent_mock_cluster.synthetic 20000 > big.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

SERVICES = (
    "checkout",
    "cart",
    "catalog",
    "search",
    "payments",
    "shipping",
    "accounts",
    "reviews",
    "pricing",
    "inventory",
    "gateway",
    "notifier",
)
PLANTED = (
    "billing-api-6c9d8x7f5-q2w4x",
    "thumbnailer-5b8c7d6x4-r4t5w",
    "report-builder-7z6b5c4d4-v6j7q",
    "session-cache-4d4c2b7z8-p8z9s",
    "ledger-writer-8x7d6c5b4-d8f7g",
)
"""The unhealthy pods: CrashLoopBackOff, ImagePullBackOff, Pending (memory), not ready, OOMKilled."""


_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""The characters Kubernetes generates names from (no vowels, no 0, 1, 3)."""


def _suffix(*parts: object) -> str:
    """A pod-template hash and a pod suffix, as a Deployment's pods are named (stable per `parts`)."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    letters = "".join(_ALPHABET[byte % len(_ALPHABET)] for byte in digest[:14])
    return f"{letters[:9]}-{letters[9:14]}"


def cluster(pods: int, namespace: str = "production") -> dict[str, Any]:
    """A fixture with `pods` pods in `namespace` (five of them unhealthy) and one node per 100 pods."""
    if pods < len(PLANTED):
        raise ValueError(f"a synthetic cluster has at least {len(PLANTED)} pods")
    nodes: list[dict[str, Any]] = [
        {
            "name": f"node-{number:04d}",
            "status": "Ready",
            "roles": ["worker"],
            "allocatable": {"cpu": "16", "memory": "64Gi"},
            "conditions": {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False"},
        }
        for number in range(max(3, pods // 100))
    ]

    def healthy(number: int) -> dict[str, Any]:
        service = SERVICES[number % len(SERVICES)]
        name = f"{service}-{_suffix(namespace, number)}"
        return {
            "name": name,
            "namespace": namespace,
            "status": "Running",
            "phase": "Running",
            "node": nodes[number % len(nodes)]["name"],
            "age": "2d",
            "ip": f"10.{(number >> 16) % 256}.{(number >> 8) % 256}.{number % 256}",
            "labels": {"app": service},
            "containers": [
                {"name": service, "image": f"registry.example.com/{service}:1.{number % 9}", "ready": True}
            ],
        }

    crash, pull, pending, unready, oom = PLANTED
    node = str(nodes[0]["name"])
    planted: list[dict[str, Any]] = [
        _pod(
            crash,
            namespace,
            "CrashLoopBackOff",
            node,
            restarts=23,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=["starting billing-api", "FATAL missing required setting BILLING_DB_URL"],
        ),
        _pod(pull, namespace, "ImagePullBackOff", node, state={"waiting": {"reason": "ImagePullBackOff"}}),
        _pod(pending, namespace, "Pending", None, requests={"cpu": "500m", "memory": "96Gi"}),
        _pod(
            unready,
            namespace,
            "Running",
            node,
            readiness_probe="http-get http://:6379/ready",
            logs=["cache warming", "ERROR upstream redis-primary not reachable"],
        ),
        _pod(
            oom,
            namespace,
            "CrashLoopBackOff",
            node,
            restarts=9,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "OOMKilled", "exit_code": 137}},
            limits={"memory": "128Mi"},
            logs=["loading ledger", "allocating 900MB"],
        ),
    ]
    everyone = [healthy(number) for number in range(pods - len(planted))]
    for index, pod in enumerate(planted):  # spread through the listing, not all at the end
        everyone.insert(min(len(everyone), (index + 1) * len(everyone) // (len(planted) + 1)), pod)

    def warning(pod: str, reason: str, message: str) -> dict[str, Any]:
        return {
            "namespace": namespace,
            "object": f"pod/{pod}",
            "type": "Warning",
            "reason": reason,
            "message": message,
            "count": 7,
        }

    events = [
        warning(crash, "BackOff", f"Back-off restarting failed container billing-api in pod {crash}"),
        warning(
            pull,
            "Failed",
            'Failed to pull image "registry.example.com/thumbnailer:9.9.9": not found: manifest unknown',
        ),
        warning(
            pending,
            "FailedScheduling",
            f"0/{len(nodes)} nodes are available: {len(nodes)} Insufficient memory.",
        ),
        warning(unready, "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
        warning(oom, "BackOff", f"Back-off restarting failed container ledger-writer in pod {oom}"),
    ]
    replicas = {
        service: sum(1 for n in range(pods - len(planted)) if n % len(SERVICES) == i)
        for i, service in enumerate(SERVICES)
    }
    objects: list[dict[str, Any]] = []
    for service in SERVICES:  # each workload's Deployment and Service: what a cluster past its pods holds
        count = replicas[service]
        objects.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": service, "namespace": namespace},
                "spec": {"replicas": count, "selector": {"matchLabels": {"app": service}}},
                "status": {
                    "replicas": count,
                    "readyReplicas": count,
                    "availableReplicas": count,
                    "updatedReplicas": count,
                },
            }
        )
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": service, "namespace": namespace},
                "spec": {"selector": {"app": service}, "ports": [{"port": 80, "targetPort": 8080}]},
            }
        )
    return {
        "cluster": {"name": f"synthetic-{pods}"},
        "nodes": nodes,
        "pods": everyone,
        "events": events,
        "objects": objects,
    }


def _pod(name: str, namespace: str, status: str, node: str | None, **container: Any) -> dict[str, Any]:
    ready = status == "Running" and "readiness_probe" not in container
    return {
        "name": name,
        "namespace": namespace,
        "status": status,
        "phase": "Pending" if node is None else "Running",
        "node": node,
        "age": "1h",
        "containers": [
            {
                "name": name.rsplit("-", 2)[0],
                "image": f"registry.example.com/{name.rsplit('-', 2)[0]}:2.0",
                "ready": ready,
                **container,
            }
        ],
    }


if __name__ == "__main__":
    json.dump(cluster(int(sys.argv[1]) if len(sys.argv) > 1 else 5000), sys.stdout)
