"""Cluster fixtures the tests write themselves: other names and other failures than the shipped one."""

from __future__ import annotations

from typing import Any


def shop_fixture() -> dict[str, Any]:
    """A cluster with other names and other failures than the shipped one."""

    def pod(
        name: str, status: str, *, ready: bool = False, node: str | None = "node-b", **container: Any
    ) -> dict[str, Any]:
        return {
            "name": name,
            "namespace": "shop",
            "status": status,
            "node": node,
            "phase": "Pending" if node is None else "Running",
            "containers": [
                {
                    "name": name.split("-")[0],
                    "image": f"ghcr.io/acme/{name.split('-')[0]}:1.0",
                    "ready": ready,
                    **container,
                }
            ],
        }

    def warning(pod_name: str, reason: str, message: str) -> dict[str, Any]:
        return {
            "namespace": "shop",
            "object": f"pod/{pod_name}",
            "type": "Warning",
            "reason": reason,
            "message": message,
            "count": 3,
        }

    nodes = [
        {"name": f"node-{x}", "status": "Ready", "allocatable": {"cpu": "2", "memory": "8Gi"}} for x in "abc"
    ]
    return {
        "nodes": nodes,
        "pods": [
            pod(
                "cart-api-6d5f7c8b9-k2m4p",
                "CrashLoopBackOff",
                restarts=7,
                state={"waiting": {"reason": "CrashLoopBackOff"}},
                last_state={"terminated": {"reason": "OOMKilled", "exit_code": 137}},
                limits={"memory": "256Mi"},
                logs=["loading catalogue", "allocating 2048MB index buffer"],
            ),
            pod(
                "pricing-engine-84c9d7f6b-q8r2t",
                "ErrImagePull",
                state={"waiting": {"reason": "ErrImagePull"}},
            ),
            pod("search-api-5b7c9d8e7-w3x5y", "Pending", node=None),
            pod(
                "mailer-7f8e9d6c5-h4j6k",
                "CreateContainerConfigError",
                state={"waiting": {"reason": "CreateContainerConfigError"}},
            ),
            pod("storefront-5c6d7e8f9-a1b2c", "Running", ready=True, logs=["GET / 200"]),
            {**pod("metrics-agent-9x8y7", "Running", ready=True), "namespace": "ops"},
        ],
        "events": [
            warning(
                "pricing-engine-84c9d7f6b-q8r2t",
                "Failed",
                'Failed to pull image "ghcr.io/acme/pricing:3.2.0": failed to authorize: 401 Unauthorized',
            ),
            warning(
                "search-api-5b7c9d8e7-w3x5y",
                "FailedScheduling",
                "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
            ),
            warning("mailer-7f8e9d6c5-h4j6k", "Failed", 'Error: secret "smtp-credentials" not found'),
        ],
    }


def node_trouble_fixture() -> dict[str, Any]:
    """Four nodes: one NotReady, one under disk pressure, two healthy; a pod on each."""

    def node(name: str, status: str = "Ready", **conditions: str) -> dict[str, Any]:
        return {
            "name": name,
            "status": status,
            "allocatable": {"cpu": "4", "memory": "16Gi"},
            "conditions": {
                "Ready": "True" if status == "Ready" else "Unknown",
                "MemoryPressure": "False",
                "DiskPressure": "False",
                "PIDPressure": "False",
                **conditions,
            },
        }

    nodes = [
        node("edge-node-a"),
        node("edge-node-b", "NotReady"),
        node("edge-node-c", DiskPressure="True"),
        node("edge-node-d"),
    ]
    pods = [
        {
            "name": f"agent-{n['name']}",
            "namespace": "ops",
            "status": "Running",
            "node": n["name"],
            "containers": [{"name": "agent", "image": "ghcr.io/acme/agent:1", "ready": True}],
        }
        for n in nodes
    ]
    return {"nodes": nodes, "pods": pods, "events": []}
