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
            pod("search-api-5b7c9d8x7-w4x5w", "Pending", node=None),
            pod(
                "mailer-7f8x9d6c5-h4j6k",
                "CreateContainerConfigError",
                state={"waiting": {"reason": "CreateContainerConfigError"}},
            ),
            pod("storefront-5c6d7x8f9-z7b2c", "Running", ready=True, logs=["GET / 200"]),
            {**pod("metrics-agent-9x8w7", "Running", ready=True), "namespace": "ops"},
        ],
        "events": [
            warning(
                "pricing-engine-84c9d7f6b-q8r2t",
                "Failed",
                'Failed to pull image "ghcr.io/acme/pricing:3.2.0": failed to authorize: 401 Unauthorized',
            ),
            warning(
                "search-api-5b7c9d8x7-w4x5w",
                "FailedScheduling",
                "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
            ),
            warning("mailer-7f8x9d6c5-h4j6k", "Failed", 'Error: secret "smtp-credentials" not found'),
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


def _pod(name: str, namespace: str, status: str, **container: Any) -> dict[str, Any]:
    """A one-container pod on node-a (Running unless its status says it is Pending)."""
    return {
        "name": name,
        "namespace": namespace,
        "status": status,
        "phase": "Pending" if status == "Pending" else "Running",
        "node": "node-a",
        "age": "2d",
        "containers": [
            {
                "name": name.rsplit("-", 1)[0] if name[-1].isdigit() else name.split("-")[0],
                "image": f"ghcr.io/acme/{name.split('-')[0]}:1.0",
                **container,
            }
        ],
    }


def _warning(namespace: str, pod: str, reason: str, message: str) -> dict[str, Any]:
    return {
        "namespace": namespace,
        "object": f"pod/{pod}",
        "type": "Warning",
        "reason": reason,
        "message": message,
        "count": 12,
        "last_seen": "1m",
        "first_seen": "40m",
    }


LEDGER_TIMEOUT = "ERROR flush batch 8813: connect to postgres.db.svc.cluster.local:5432 timed out after 10s"
LEDGER_RETRY = (
    "WARN flush batch 8810 retried: connect to postgres.db.svc.cluster.local:5432 timed out after 10s"
)


def ledger_chain_fixture() -> dict[str, Any]:
    """A StatefulSet (ledger-writer, namespace billing) whose pods time out on the Service postgres of
    namespace db, whose only pod is OOMKilled in a loop; a broken neighbour in billing that a question
    about ledger-writer is not about."""
    nodes = [{"name": "node-a", "status": "Ready", "allocatable": {"cpu": "4", "memory": "16Gi"}}]
    return {
        "nodes": nodes,
        "pods": [
            _pod(
                "ledger-writer-0",
                "billing",
                "Running",
                ready=False,
                readiness_probe="http-get http://:8080/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
                logs=[
                    "ledger-writer 3.2 starting",
                    "ERROR flush batch 8812: connect timed out",
                    LEDGER_TIMEOUT,
                ],
            ),
            _pod(
                "ledger-writer-1",
                "billing",
                "Running",
                ready=True,
                logs=["ledger-writer 3.2 starting", LEDGER_RETRY, "INFO flush batch 8811 written"],
            ),
            _pod(
                "invoice-api-6c5d4b4z2-q8r2t",
                "billing",
                "ImagePullBackOff",
                ready=False,
                state={"waiting": {"reason": "ImagePullBackOff"}},
            ),
            _pod(
                "postgres-0",
                "db",
                "CrashLoopBackOff",
                ready=False,
                restarts=6,
                limits={"memory": "1Gi"},
                state={"waiting": {"reason": "CrashLoopBackOff"}},
                last_state={
                    "terminated": {
                        "reason": "OOMKilled",
                        "exit_code": 137,
                        "started_at": "2027-03-04T08:10:02Z",
                        "finished_at": "2027-03-04T08:11:40Z",
                    }
                },
                logs=["LOG:  database system is ready to accept connections"],
            ),
        ],
        "events": [
            _warning(
                "billing",
                "ledger-writer-0",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            _warning(
                "billing",
                "invoice-api-6c5d4b4z2-q8r2t",
                "Failed",
                'Failed to pull image "ghcr.io/acme/invoice:1.0": not found: manifest unknown',
            ),
            _warning(
                "db",
                "postgres-0",
                "BackOff",
                "Back-off restarting failed container postgres in pod postgres-0_db",
            ),
        ],
    }


def restarts_fixture() -> dict[str, Any]:
    """Pods that restarted for different reasons in two namespaces, and pods that never did."""

    def ended(reason: str, code: int, finished: str) -> dict[str, Any]:
        started = finished[:-3] + "00Z"
        return {
            "terminated": {
                "reason": reason,
                "exit_code": code,
                "started_at": started,
                "finished_at": finished,
            }
        }

    nodes = [{"name": "node-a", "status": "Ready", "allocatable": {"cpu": "4", "memory": "16Gi"}}]
    return {
        "nodes": nodes,
        "pods": [
            _pod(
                "api-6c5d4b4z2-zzzzz",
                "web",
                "Running",
                ready=True,
                restarts=3,
                limits={"memory": "512Mi"},
                last_state=ended("OOMKilled", 137, "2027-03-04T06:42:17Z"),
                logs=["serving on :8080"],
                previous_logs=["serving on :8080", "cache warmed: 498Mi"],
            ),
            _pod(
                "worker-7f6x5d4c4-bbbbb",
                "web",
                "Running",
                ready=True,
                restarts=1,
                last_state=ended("Completed", 0, "2027-03-03T23:05:09Z"),
                logs=["consuming orders"],
                previous_logs=["consuming orders", "SIGTERM received: draining"],
            ),
            _pod(
                "cache-0",
                "web",
                "Running",
                ready=False,
                restarts=7,
                last_state=ended("Error", 137, "2027-03-04T09:58:31Z"),
                liveness_probe="http-get http://:6379/health delay=5s timeout=1s period=10s #success=1 #failure=3",
                logs=["cache 7.2 ready"],
                previous_logs=["cache 7.2 ready", "slow command: KEYS * (2.8s)"],
            ),
            _pod("web-5d4c4b2z7-ccccc", "web", "Running", ready=True, logs=["GET / 200"]),
            _pod(
                "api-5b4c4d2x7-ddddd",
                "staging",
                "Running",
                ready=True,
                restarts=2,
                last_state=ended("Error", 2, "2027-03-04T07:30:55Z"),
                logs=["serving on :8080"],
                previous_logs=["panic: runtime error: invalid memory address or nil pointer dereference"],
            ),
            _pod("report-29986323-xshxj", "staging", "Pending", ready=False),
        ],
        "events": [
            _warning(
                "web",
                "cache-0",
                "Unhealthy",
                'Liveness probe failed: Get "http://10.0.0.9:6379/health": context deadline exceeded',
            ),
            _warning(
                "web", "cache-0", "BackOff", "Back-off restarting failed container cache in pod cache-0_web"
            ),
        ],
    }


# -- clusters for the events reader (baseline:rules): one pod per way it reads a cause ---------------

READER_LIVENESS = "Liveness probe failed: HTTP probe failed with statuscode: 503"
READER_LOG_LINE = "ERROR reading settings.toml: unknown key 'retry_count' at line 3"
READER_SCHEDULING = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
READER_JOB = "Job has reached the specified backoff limit"


def _backoff(namespace: str, pod: str, container: str) -> dict[str, Any]:
    return _warning(
        namespace, pod, "BackOff", f"Back-off restarting failed container {container} in pod {pod}"
    )


def events_reader_fixture() -> dict[str, Any]:
    """Namespace orders: an OOMKilled pod (with an error line in its logs), a pod with a back-off and
    then a liveness Warning (and a fatal line in its logs), a pod whose only Warning is the back-off and
    whose previous logs tell, a pod whose image pull has no event, a pod the scheduler cannot place, a
    failed Job's pod whose Job has the Warning; two healthy pods; a broken pod in another namespace."""
    crashed = {"waiting": {"reason": "CrashLoopBackOff"}}

    def ended(reason: str, code: int) -> dict[str, Any]:
        return {"terminated": {"reason": reason, "exit_code": code}}

    nodes = [
        {"name": f"worker-{x}", "status": "Ready", "allocatable": {"cpu": "4", "memory": "16Gi"}}
        for x in "12"
    ]
    pods = [
        _pod(
            "basket-6c7d8e9f0-q2w4x",
            "orders",
            "CrashLoopBackOff",
            restarts=6,
            state=crashed,
            last_state=ended("OOMKilled", 137),
            limits={"memory": "256Mi"},
            logs=["basket up"],
            previous_logs=["basket up", "ERROR cache warm-up aborted"],
        ),
        _pod(
            "courier-5b6c7d8e9-k8m2n",
            "orders",
            "CrashLoopBackOff",
            restarts=3,
            state=crashed,
            last_state=ended("Error", 137),
            logs=["courier up"],
            previous_logs=["courier up", "FATAL watchdog fired"],
        ),
        _pod(
            "ledger-4a5b6c7d8-r7t9v",
            "orders",
            "CrashLoopBackOff",
            restarts=4,
            state=crashed,
            last_state=ended("Error", 1),
            logs=["starting ledger"],
            previous_logs=["starting ledger", READER_LOG_LINE, "shutting down"],
        ),
        _pod(
            "receipts-3f4d5c6b7-h3j5k",
            "orders",
            "ImagePullBackOff",
            state={"waiting": {"reason": "ImagePullBackOff"}},
        ),
        {**_pod("pricing-2b3c4d5e6-z6x8c", "orders", "Pending"), "node": None},
        {
            **_pod("settle-28861440-x7k2p", "orders", "Error", state=ended("Error", 2), logs=["settling"]),
            "labels": {"job-name": "settle-28861440"},
        },
        _pod("web-1a2b3c4d5-p4l6m", "orders", "Running", ready=True, logs=["GET / 200"]),
        _pod("export-28861380-q9w8e", "orders", "Completed", state=ended("Completed", 0)),
        _pod("stray-9z8y7x6w5-w2e4r", "tools", "CrashLoopBackOff", restarts=2, state=crashed),
    ]
    return {
        "nodes": nodes,
        "pods": [{**pod, "node": "worker-1"} if pod["node"] else pod for pod in pods],
        "events": [
            _backoff("orders", "basket-6c7d8e9f0-q2w4x", "basket"),
            _backoff("orders", "courier-5b6c7d8e9-k8m2n", "courier"),
            _warning("orders", "courier-5b6c7d8e9-k8m2n", "Unhealthy", READER_LIVENESS),
            _backoff("orders", "ledger-4a5b6c7d8-r7t9v", "ledger"),
            _warning("orders", "pricing-2b3c4d5e6-z6x8c", "FailedScheduling", READER_SCHEDULING),
            {
                **_warning("orders", "settle-28861440", "BackoffLimitExceeded", READER_JOB),
                "object": "job/settle-28861440",
            },
            _backoff("tools", "stray-9z8y7x6w5-w2e4r", "stray"),
        ],
    }


def nodes_in_trouble_fixture() -> dict[str, Any]:
    """Three nodes: rack-a healthy (with a crashing pod on it), rack-b NotReady (a pod on it cut off),
    rack-c under disk pressure (a pod on it evicted)."""

    def node(name: str, status: str = "Ready", **conditions: str) -> dict[str, Any]:
        return {
            "name": name,
            "status": status,
            "allocatable": {"cpu": "4", "memory": "16Gi"},
            "conditions": {"Ready": "True" if status == "Ready" else "Unknown", **conditions},
        }

    def on(name: str, node_name: str, status: str, **container: Any) -> dict[str, Any]:
        return {**_pod(name, "shop", status, **container), "node": node_name}

    def node_event(name: str, reason: str, message: str, kind: str = "Normal") -> dict[str, Any]:
        return {
            "namespace": "default",
            "object": f"node/{name}",
            "type": kind,
            "reason": reason,
            "message": message,
        }

    return {
        "nodes": [node("rack-a"), node("rack-b", "NotReady"), node("rack-c", DiskPressure="True")],
        "pods": [
            on("cart-7c8d9e0f1-f5g7h", "rack-a", "CrashLoopBackOff", restarts=3),
            on("cart-7c8d9e0f1-n3b5v", "rack-b", "Running", ready=False),
            on("thumbs-6b7c8d9e0-s8d2f", "rack-c", "Evicted"),
            on("web-5a6b7c8d9-y6u8i", "rack-c", "Running", ready=True),
        ],
        "events": [
            node_event("rack-b", "NodeNotReady", "Node rack-b status is now: NodeNotReady"),
            node_event("rack-c", "NodeHasDiskPressure", "Node rack-c status is now: NodeHasDiskPressure"),
            node_event(
                "rack-c", "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage", "Warning"
            ),
            _warning("shop", "cart-7c8d9e0f1-n3b5v", "NodeNotReady", "Node is not ready"),
            _warning(
                "shop",
                "thumbs-6b7c8d9e0-s8d2f",
                "Evicted",
                "The node was low on resource: ephemeral-storage.",
            ),
            _backoff("shop", "cart-7c8d9e0f1-f5g7h", "cart"),
        ],
    }


MOCK_TOOLS = (
    "list_pods",
    "describe_pod",
    "get_pod_logs",
    "get_events",
    "list_nodes",
    "describe_node",
    "search_logs",
    "resources_list",
    "resources_get",
)
"""The mock cluster's read-only tools by name, in the order an agent offers them."""


def offered_tools() -> list[dict[str, Any]]:
    """The mock cluster's tools as a request offers them to a model (names only, no schemas)."""
    return [{"type": "function", "function": {"name": name, "parameters": {}}} for name in MOCK_TOOLS]
