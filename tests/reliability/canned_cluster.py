"""A small cluster as the real Kubernetes MCP servers show it, for tests/reliability/canned_server.py.

One set of pods (two namespaces, a Deployment's pods, a Job's, a CronJob's, an Indexed Job's, two
StatefulSets', one name in both namespaces), printed in every shape the servers use:
kubernetes-mcp-server's wide table with NAMESPACE, KIND and LABELS columns and its YAML (keys sorted,
strings quoted its way, `''` inside), mcp-server-kubernetes's JSON (the full objects indented, its pod
summary on one line, events with their `involvedObject`), `kubectl` tables without a NAMESPACE or
KIND column, `kubectl describe` blocks, `kubectl events`, a multi-document YAML stream, Helm
releases and an HPA. Each tool declares in its input schema exactly the arguments it honours.

Generated names are names Kubernetes could produce: a pod-template hash and a random suffix from
`ALPHABET` (`GENERATED` says how each pod's name was made; a test checks them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""What Kubernetes generates names from (k8s.io/apimachinery rand.String): no vowels, no 0, 1, 3."""
PRODUCTION, STAGING = "production", "staging"
NODE_A, NODE_B = "ip-10-0-17-14.eu-west-1.compute.internal", "ip-10-0-42-73.eu-west-1.compute.internal"

CART = "cart-7c9d5b8f6-h4xkq"
CHECKOUT = "checkout-5b7d9f6c8-zt4wm"
WORKER = "checkout-worker-x7k2p"
"""A pod of Job `checkout-worker`: its name starts with Deployment `checkout`'s."""
INVENTORY = "inventory-6f8c7d9b5-rl2tn"
ORDERS = "orders-8d6c9f7b4-m2kxw"
PAYMENTS = "payments-6c9f8d7b5-k8vxn"
PAYMENTS_DB = "payments-db-0"
"""A pod of StatefulSet `payments-db`: its first word is Deployment `payments`."""
PAYMENTS_DB_PENDING = "payments-db-1"
NIGHTLY = "nightly-report-29948485-jsgmc"
SHARD = "shard-import-2-x9qkd"
"""A pod of Indexed Job `shard-import` (index 2): only its ownerReferences name its Job."""
REDIS = "redis-0"
"""In both namespaces: healthy in production, OOM-killed in staging."""
SEARCH_API = "search-api-7d9b8c6f5-wq4xn"
SEARCH_INDEXER = "search-indexer-5c8d7f6b9-pl2tz"
LEDGER = "ledger-6b9f7c8d5-w4pzn"
"""No tool lists this pod: only a log line of another pod is shaped like a search hit naming it."""
RELEASE = "ledger-0"
"""A Helm release (a name like a StatefulSet pod's), and no pod."""
HPA, HPA_TARGET = "search-api-hpa", "search-api"
"""The HPA, and the Deployment it scales, which it reports missing."""

GENERATED: dict[str, tuple[str, str, str]] = {
    CART: ("Deployment", "cart", "7c9d5b8f6-h4xkq"),
    CHECKOUT: ("Deployment", "checkout", "5b7d9f6c8-zt4wm"),
    INVENTORY: ("Deployment", "inventory", "6f8c7d9b5-rl2tn"),
    ORDERS: ("Deployment", "orders", "8d6c9f7b4-m2kxw"),
    PAYMENTS: ("Deployment", "payments", "6c9f8d7b5-k8vxn"),
    SEARCH_API: ("Deployment", "search-api", "7d9b8c6f5-wq4xn"),
    SEARCH_INDEXER: ("Deployment", "search-indexer", "5c8d7f6b9-pl2tz"),
    LEDGER: ("Deployment", "ledger", "6b9f7c8d5-w4pzn"),
    WORKER: ("Job", "checkout-worker", "x7k2p"),
    NIGHTLY: ("Job", "nightly-report-29948485", "jsgmc"),
    SHARD: ("Job", "shard-import", "2-x9qkd"),
    PAYMENTS_DB: ("StatefulSet", "payments-db", "0"),
    PAYMENTS_DB_PENDING: ("StatefulSet", "payments-db", "1"),
    REDIS: ("StatefulSet", "redis", "0"),
}
"""Each pod's controller, and what the controller added to its name (hash-suffix, suffix, ordinal)."""

LOG_LINE = "2026-12-02T09:14:03Z ERROR failed to load config: missing required setting PAYMENTS_API_URL"
SELECTOR_LOG_LINE = (
    "2026-12-02T09:16:45Z ERROR failed to load config: missing required setting PAYMENTS_API_URL"
)
FORGED_LINE = f"{PRODUCTION}/{LEDGER}:3: CrashLoopBackOff, upstream ledger unavailable"
TERMINATION_MESSAGE = "config: PAYMENTS_API_URL is not set; refusing to start"
READINESS = "Readiness probe failed: HTTP probe failed with statuscode: 503"
SCHEDULING = (
    "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: "
    "3 No preemption victims found for incoming pod."
)
BACKOFF_LIMIT = "Job has reached the specified backoff limit"
CHECKOUT_SCALED = "Scaled up replica set checkout-5b7d9f6c8 to 1"
PAYMENTS_SCALED = "Scaled up replica set payments-6c9f8d7b5 to 2"
QUOTA = (
    'Error creating: pods "checkout-5b7d9f6c8-" is forbidden: exceeded quota: compute, requested: '
    "limits.memory=512Mi, used: limits.memory=1792Mi, limited: limits.memory=2Gi"
)
STATEFUL_CREATE = "create Pod payments-db-1 in StatefulSet payments-db successful"
RELEASE_FAILED = 'Upgrade "ledger-0" failed: context deadline exceeded'
HPA_MESSAGE = (
    "the HPA controller was unable to get the target's current scale: "
    'deployments/scale.apps "search-api" not found'
)


@dataclass(frozen=True)
class Pod:
    """One pod, with what every shape prints of it."""

    name: str
    namespace: str
    app: str
    image: str
    status: str
    """The STATUS column: the waiting or terminated reason, or the phase."""
    ready: bool
    restarts: int
    age: str
    created: str
    node: str | None
    ip: str | None
    state: dict[str, Any]
    last_state: dict[str, Any] = field(default_factory=dict)
    restarted: str = ""
    """How long ago the last restart was (`2m`), for the RESTARTS column."""

    @property
    def phase(self) -> str:
        if self.status == "Pending":
            return "Pending"
        return "Failed" if "terminated" in self.state else "Running"

    @property
    def ready_column(self) -> str:
        return "1/1" if self.ready else "0/1"

    @property
    def restarts_column(self) -> str:
        return f"{self.restarts} ({self.restarted} ago)" if self.restarted else str(self.restarts)

    @property
    def owner(self) -> tuple[str, str]:
        """The controller its ownerReferences name: a Deployment's pod is its ReplicaSet's."""
        kind, name, generated = GENERATED[self.name]
        if kind == "Deployment":
            return "ReplicaSet", f"{name}-{generated.split('-')[0]}"
        return kind, name

    @property
    def labels(self) -> dict[str, str]:
        kind, name, generated = GENERATED[self.name]
        if kind == "Deployment":
            return {"app": self.app, "pod-template-hash": generated.split("-")[0]}
        if kind == "Job":
            labels = {"batch.kubernetes.io/job-name": name, "job-name": name}
            if "-" in generated:  # an Indexed Job's pod
                labels["batch.kubernetes.io/job-completion-index"] = generated.split("-")[0]
            return labels
        return {
            "app": self.app,
            "apps.kubernetes.io/pod-index": generated,
            "statefulset.kubernetes.io/pod-name": self.name,
        }


def running(since: str) -> dict[str, Any]:
    return {"running": {"startedAt": since}}


def terminated(reason: str, code: int, started: str, finished: str, message: str = "") -> dict[str, Any]:
    state: dict[str, Any] = {"exitCode": code, "finishedAt": finished, "reason": reason, "startedAt": started}
    if message:
        state["message"] = message
    return {"terminated": state}


def back_off(pod: str, namespace: str, container: str) -> dict[str, Any]:
    message = f"back-off 5m0s restarting failed container={container} pod={pod}_{namespace}(2f0c5b1e-8d4a-4c1e-9b7a-3e6f1d2c4b5a)"
    return {"waiting": {"message": message, "reason": "CrashLoopBackOff"}}


def image(app: str, version: str) -> str:
    return f"registry.example.com/shop/{app}:{version}"


PODS = [
    Pod(CART, PRODUCTION, "cart", image("cart", "2.4.1"), "Running", True, 0, "3d", "2026-11-29T09:11:58Z",
        NODE_A, "10.244.1.12", running("2026-11-29T09:12:05Z")),
    Pod(CHECKOUT, PRODUCTION, "checkout", image("checkout", "3.0.2"), "CrashLoopBackOff", False, 9, "41m",
        "2026-12-02T08:31:40Z", NODE_A, "10.244.1.17", back_off(CHECKOUT, PRODUCTION, "checkout"),
        terminated("Error", 1, "2026-12-02T09:14:02Z", "2026-12-02T09:14:03Z", TERMINATION_MESSAGE), "2m"),
    Pod(WORKER, PRODUCTION, "checkout-worker", image("checkout-worker", "3.0.2"), "Error", False, 0, "12m",
        "2026-12-02T09:00:12Z", NODE_B, "10.244.2.40",
        terminated("Error", 2, "2026-12-02T09:00:15Z", "2026-12-02T09:00:47Z")),
    Pod(INVENTORY, PRODUCTION, "inventory", image("inventory", "1.9.0"), "Running", True, 4, "2d",
        "2026-11-30T10:02:33Z", NODE_B, "10.244.2.31", running("2026-12-02T09:02:14Z"),
        terminated("OOMKilled", 137, "2026-12-02T08:55:40Z", "2026-12-02T09:02:11Z"), "6m"),
    Pod(ORDERS, PRODUCTION, "orders", image("orders", "5.1.0"), "CrashLoopBackOff", False, 6, "25m",
        "2026-12-02T08:47:05Z", NODE_B, "10.244.2.44", back_off(ORDERS, PRODUCTION, "orders"),
        terminated("Error", 2, "2026-12-02T09:20:11Z", "2026-12-02T09:20:12Z"), "1m"),
    Pod(PAYMENTS, PRODUCTION, "payments", image("payments", "4.2.0"), "Running", False, 0, "18m",
        "2026-12-02T08:54:20Z", NODE_A, "10.244.1.23", running("2026-12-02T08:54:31Z")),
    Pod(PAYMENTS_DB, PRODUCTION, "payments-db", "docker.io/library/postgres:16.4", "Running", True, 0, "9d",
        "2026-11-23T07:40:00Z", NODE_B, "10.244.2.8", running("2026-11-23T07:40:09Z")),
    Pod(PAYMENTS_DB_PENDING, PRODUCTION, "payments-db", "docker.io/library/postgres:16.4", "Pending", False,
        0, "14m", "2026-12-02T08:58:30Z", None, None, {"waiting": {"reason": "ContainerCreating"}}),
    Pod(NIGHTLY, PRODUCTION, "nightly-report", image("nightly-report", "1.3.0"), "Error", False, 0, "54m",
        "2026-12-02T08:18:00Z", NODE_A, "10.244.1.30",
        terminated("Error", 1, "2026-12-02T08:18:04Z", "2026-12-02T08:24:10Z")),
    Pod(SHARD, PRODUCTION, "shard-import", image("shard-import", "0.8.1"), "Error", False, 0, "33m",
        "2026-12-02T08:39:00Z", NODE_B, "10.244.2.51",
        terminated("Error", 3, "2026-12-02T08:39:05Z", "2026-12-02T08:41:19Z")),
    Pod(REDIS, PRODUCTION, "redis", "docker.io/library/redis:7.2.5", "Running", True, 0, "9d",
        "2026-11-23T07:41:00Z", NODE_A, "10.244.1.9", running("2026-11-23T07:41:06Z")),
    Pod(REDIS, STAGING, "redis", "docker.io/library/redis:7.2.5", "Running", True, 4, "6d",
        "2026-11-26T12:00:00Z", NODE_B, "10.244.2.19", running("2026-12-02T07:12:30Z"),
        terminated("OOMKilled", 137, "2026-12-02T05:20:02Z", "2026-12-02T07:12:27Z"), "2h"),
    Pod(SEARCH_API, STAGING, "search-api", image("search-api", "2.0.0"), "CrashLoopBackOff", False, 6, "20m",
        "2026-12-02T08:52:00Z", NODE_A, "10.244.1.40", back_off(SEARCH_API, STAGING, "search-api"),
        terminated("Error", 1, "2026-12-02T09:10:01Z", "2026-12-02T09:10:02Z"), "1m"),
    Pod(SEARCH_INDEXER, STAGING, "search-indexer", image("search-indexer", "2.0.0"), "Running", True, 0,
        "20m", "2026-12-02T08:52:00Z", NODE_B, "10.244.2.60", running("2026-12-02T08:52:08Z")),
]  # fmt: skip


def pods(namespace: str | None = None, *names: str) -> list[Pod]:
    """The pods of a namespace (all, with None), by name; or those named, in that order."""
    if names:
        return [next(p for p in PODS if p.name == name and p.namespace == namespace) for name in names]
    chosen = [p for p in PODS if namespace in (None, p.namespace)]
    return sorted(chosen, key=lambda p: (p.namespace, p.name))


def the_pod(name: str, namespace: str = PRODUCTION) -> Pod:
    return pods(namespace, name)[0]


# -- tables ----------------------------------------------------------------------------------------


def table(header: list[str], rows: list[list[str]]) -> str:
    """Columns as kubectl prints them: each as wide as its widest cell, three spaces apart."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def wide_table(listed: list[Pod]) -> str:
    """kubernetes-mcp-server's pods_list / pods_list_in_namespace (its "table" output)."""
    header = ["NAMESPACE", "APIVERSION", "KIND", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
              "NOMINATED NODE", "READINESS GATES", "LABELS"]  # fmt: skip
    rows = [
        [p.namespace, "v1", "Pod", p.name, p.ready_column, p.status, p.restarts_column, p.age,
         p.ip or "<none>", p.node or "<none>", "<none>", "<none>",
         ",".join(f"{k}={v}" for k, v in sorted(p.labels.items()))]
        for p in listed
    ]  # fmt: skip
    return table(header, rows)


def plain_table(listed: list[Pod]) -> str:
    """`kubectl get pods`: no NAMESPACE, no KIND column."""
    rows = [[p.name, p.ready_column, p.status, p.restarts_column, p.age] for p in listed]
    return table(["NAME", "READY", "STATUS", "RESTARTS", "AGE"], rows)


def row_of(listing: str, name: str) -> str:
    """The line of a table that is `name`'s row."""
    return next(line for line in listing.splitlines() if f" {name} " in f" {line} ")


def between(text: str, start: str, end: str) -> str:
    """The text from the first `start` through the first `end` after it, exactly as it stands."""
    first = text.index(start)
    return text[first : text.index(end, first) + len(end)]


# -- objects: JSON and YAML ------------------------------------------------------------------------


def pod_object(pod: Pod) -> dict[str, Any]:
    """The pod as the API returns it (what `-o json` and `-o yaml` print)."""
    kind, owner = pod.owner
    metadata: dict[str, Any] = {
        "creationTimestamp": pod.created,
        "labels": pod.labels,
        "name": pod.name,
        "namespace": pod.namespace,
        "ownerReferences": [
            {"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "blockOwnerDeletion": True,
             "controller": True, "kind": kind, "name": owner, "uid": "8e1f2a4b-7c3d-4e5f-9a6b-1c2d3e4f5a6b"}
        ],
    }  # fmt: skip
    if kind == "ReplicaSet":
        metadata["generateName"] = f"{owner}-"
    container_status: dict[str, Any] = {
        "image": pod.image,
        "lastState": pod.last_state,
        "name": pod.app,
        "ready": pod.ready,
        "restartCount": pod.restarts,
        "started": "running" in pod.state,
        "state": pod.state,
    }
    status: dict[str, Any] = {"containerStatuses": [container_status], "phase": pod.phase}
    if pod.ip:
        status |= {"hostIP": pod.ip.replace("244", "0"), "podIP": pod.ip}
    spec: dict[str, Any] = {"containers": [{"image": pod.image, "name": pod.app}]}
    if pod.node:
        spec["nodeName"] = pod.node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def json_list(listed: list[Pod]) -> str:
    """mcp-server-kubernetes's kubectl_get with output json: `kubectl get pods -o json`, indented."""
    items = [pod_object(p) for p in listed]
    return json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
                      indent=4)  # fmt: skip


def summary(listed: list[Pod]) -> dict[str, Any]:
    """mcp-server-kubernetes's pod summary: name, namespace, kind, status, createdAt per item."""
    return {
        "items": [
            {
                "name": p.name,
                "namespace": p.namespace,
                "kind": "Pod",
                "status": p.status,
                "createdAt": p.created,
            }
            for p in listed
        ]
    }


def one_line(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def as_yaml(data: Any) -> str:
    """YAML as kubernetes-mcp-server writes it: keys sorted, long lines kept whole, `''` in quoted strings."""
    return yaml.safe_dump(data, sort_keys=True, width=1_000_000, default_flow_style=False)


def yaml_stream(listed: list[Pod]) -> str:
    """One YAML document per pod, `---` between them."""
    return "---\n".join(as_yaml(pod_object(p)) for p in listed)


# -- describe, events, logs ------------------------------------------------------------------------


def describe(pod: Pod) -> str:
    """`kubectl describe pod`."""
    kind, owner = pod.owner
    labels = [f"{k}={v}" for k, v in sorted(pod.labels.items())]
    state = next(iter(pod.state))
    lines = [
        f"Name:             {pod.name}",
        f"Namespace:        {pod.namespace}",
        "Priority:         0",
        "Service Account:  default",
        f"Node:             {pod.node}/{pod.ip.replace('244', '0')}"
        if pod.node and pod.ip
        else "Node:             <none>",
        f"Labels:           {labels[0]}",
        *[f"                  {label}" for label in labels[1:]],
        "Annotations:      <none>",
        f"Status:           {pod.phase}",
        f"IP:               {pod.ip or ''}",
        f"Controlled By:  {kind}/{owner}",
        "Containers:",
        f"  {pod.app}:",
        f"    Image:          {pod.image}",
        "    Port:           8080/TCP",
        f"    State:          {state.capitalize()}",
        *state_lines(pod.state[state]),
    ]
    if pod.last_state:
        lines += ["    Last State:     Terminated", *state_lines(pod.last_state["terminated"])]
    lines += [
        f"    Ready:          {pod.ready}",
        f"    Restart Count:  {pod.restarts}",
        "    Limits:",
        "      memory:  256Mi",
        "Conditions:",
        "  Type              Status",
        f"  Ready             {pod.ready}",
        f"  ContainersReady   {pod.ready}",
        "  PodScheduled      True",
        "QoS Class:       Burstable",
        "Events:",
        "  Type     Reason   Age                From     Message",
        "  ----     ------   ----               ----     -------",
    ]
    if pod.restarts:
        lines.append(
            f"  Warning  BackOff  {pod.restarted} (x{pod.restarts} over {pod.age})   kubelet  "
            f"Back-off restarting failed container {pod.app} in pod {pod.name}_{pod.namespace}(2f0c5b1e-8d4a-4c1e-9b7a-3e6f1d2c4b5a)"
        )
    return "\n".join(lines)


def state_lines(state: dict[str, Any]) -> list[str]:
    """A container state's lines in `kubectl describe` (its message left out, as describe does)."""
    labels = {"reason": "Reason", "exitCode": "Exit Code", "startedAt": "Started", "finishedAt": "Finished"}
    return [f"      {label + ':':<14}{state[key]}" for key, label in labels.items() if key in state]


EVENTS = [
    ("2m", "Warning", "BackOff", f"pod/{CHECKOUT}",
     f"Back-off restarting failed container checkout in pod {CHECKOUT}_production(2f0c5b1e-8d4a-4c1e-9b7a-3e6f1d2c4b5a)"),
    ("40m", "Normal", "ScalingReplicaSet", "deployment/checkout", CHECKOUT_SCALED),
    ("38m", "Warning", "FailedCreate", "replicaset/checkout-5b7d9f6c8", QUOTA),
    ("12m", "Warning", "BackoffLimitExceeded", "job/checkout-worker", BACKOFF_LIMIT),
    ("18m", "Normal", "ScalingReplicaSet", "deployment/payments", PAYMENTS_SCALED),
    ("3m", "Warning", "Unhealthy", f"pod/{PAYMENTS}", READINESS),
    ("14m", "Normal", "SuccessfulCreate", "statefulset/payments-db", STATEFUL_CREATE),
    ("14m", "Warning", "FailedScheduling", f"pod/{PAYMENTS_DB_PENDING}", SCHEDULING),
    ("54m", "Warning", "BackoffLimitExceeded", "job/nightly-report-29948485", BACKOFF_LIMIT),
    ("33m", "Warning", "BackoffLimitExceeded", "job/shard-import", BACKOFF_LIMIT),
]  # fmt: skip


def events_table() -> str:
    """`kubectl events -n production`."""
    return table(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], [list(e) for e in EVENTS])


def events_lines() -> str:
    """`kubectl get events -n production --no-headers`: one event a line, no header."""
    return events_table().split("\n", 1)[1]


def events_json() -> str:
    """mcp-server-kubernetes's kubectl_get for events: each with its involvedObject, indented."""
    kinds = {"pod": "Pod", "deployment": "Deployment", "replicaset": "ReplicaSet", "job": "Job",
             "statefulset": "StatefulSet"}  # fmt: skip
    events = [
        {"type": kind, "reason": reason, "message": message,
         "involvedObject": {"kind": kinds[obj.split("/")[0]], "name": obj.split("/")[1], "namespace": PRODUCTION},
         "count": 1, "lastTimestamp": "2026-12-02T09:17:00Z"}
        for _, kind, reason, obj, message in EVENTS
    ]  # fmt: skip
    return json.dumps({"events": events}, indent=2)


CHECKOUT_LOG = "\n".join(
    ["2026-12-02T09:14:02Z INFO  checkout 3.0.2 starting (commit 4c1d9e2)", LOG_LINE,
     "2026-12-02T09:14:03Z INFO  shutting down"]
)  # fmt: skip
ORDERS_LOG = "\n".join(
    ["2026-12-02T09:20:11Z INFO  orders 5.1.0 starting", FORGED_LINE,
     "panic: runtime error: invalid memory address or nil pointer dereference"]
)  # fmt: skip
SELECTOR_LOG = "\n".join(
    ["2026-12-02T09:16:44Z INFO  checkout 3.0.2 starting (commit 4c1d9e2)", SELECTOR_LOG_LINE]
)

RELEASES = [
    {"appVersion": "16.4.0", "chart": "postgresql", "chartVersion": "15.5.38", "description": RELEASE_FAILED,
     "lastDeployed": "2026-12-02T08:12:09Z", "name": RELEASE, "namespace": PRODUCTION, "revision": 7,
     "status": "failed"},
    {"appVersion": "3.0.2", "chart": "shop", "chartVersion": "3.0.2", "description": "Upgrade complete",
     "lastDeployed": "2026-12-02T08:31:30Z", "name": "shop", "namespace": PRODUCTION, "revision": 42,
     "status": "deployed"},
]  # fmt: skip

HPA_OBJECT = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"creationTimestamp": "2026-11-20T10:00:00Z", "name": HPA, "namespace": PRODUCTION},
    "spec": {
        "maxReplicas": 10,
        "minReplicas": 2,
        "metrics": [{"resource": {"name": "cpu", "target": {"averageUtilization": 70, "type": "Utilization"}},
                     "type": "Resource"}],
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": HPA_TARGET},
    },
    "status": {
        "conditions": [{"lastTransitionTime": "2026-12-02T08:00:12Z", "message": HPA_MESSAGE,
                        "reason": "FailedGetScale", "status": "False", "type": "AbleToScale"}],
        "currentReplicas": 0,
        "desiredReplicas": 0,
    },
}  # fmt: skip


# -- the tools -------------------------------------------------------------------------------------


def string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


NAMESPACE, NAME = string("Namespace"), string("Name of the resource")


def tool(name: str, description: str, properties: dict[str, Any], **result: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "properties": properties, **result}


def when(text: str, structured: Any = None, **arguments: Any) -> dict[str, Any]:
    return {"when": arguments, "text": text, "structured": structured}


# -- what tools show that is not (only) a pod's status: nodes, answers that are no objects, parts of a
#    result that name another resource, a Rollout's ReplicaSet, finished pods -----------------------

PRESSURED_NODE = "worker-c"
NODE_DESCRIBE = "\n".join(
    [
        f"Name:               {PRESSURED_NODE}",
        "Roles:              <none>",
        "Unschedulable:      false",
        "Conditions:",
        "  Type             Status  LastHeartbeatTime                 Reason                       Message",
        "  ----             ------  -----------------                 ------                       -------",
        "  MemoryPressure   False   Wed, 02 Dec 2026 09:20:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available",
        "  DiskPressure     True    Wed, 02 Dec 2026 09:20:00 +0000   KubeletHasDiskPressure       kubelet has disk pressure",
        "  PIDPressure      False   Wed, 02 Dec 2026 09:20:00 +0000   KubeletHasSufficientPID      kubelet has sufficient PID available",
        "  Ready            True    Wed, 02 Dec 2026 09:20:00 +0000   KubeletReady                 kubelet is posting ready status",
    ]
)  # fmt: skip
"""`kubectl describe node`: disk pressure; memory fine; ready."""
NODE_OBJECT = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": PRESSURED_NODE},
    "status": {
        "conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"},
            {"type": "DiskPressure", "status": "True", "reason": "KubeletHasDiskPressure"},
            {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady"},
        ]
    },
}
GHOST = "checkout-5b7d9f6c8-gh2st"
"""A pod nothing shows: asked for, answered with an API Status body or a lookup that found nothing."""
GHOST_STATUS = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": f'pods "{GHOST}" not found',
    "reason": "NotFound",
    "details": {"name": GHOST, "kind": "pods"},
    "code": 404,
}
GHOST_LOOKUP = {"kind": "Pod", "name": GHOST, "namespace": PRODUCTION, "found": False}
SIDECAR = "istio-proxy"
TOP_CONTAINERS = "\n".join(
    [
        "POD                        NAME          CPU(cores)   MEMORY(bytes)",
        f"{CART}       cart          3m           61Mi",
        f"{CART}       {SIDECAR}   2m           40Mi",
        f"{CHECKOUT}   checkout      0m           0Mi",
    ]
)
"""`kubectl top pod --containers`: NAME holds containers, POD the pods."""
STALE_STATUS = "CrashLoopBackOff"
"""What a stale structured content says of redis-0, which the text shows Running and ready."""
CSV_LISTING = "\n".join(
    [
        "name,ready,status,restarts",
        f"{CART},1/1,Running,0",
        f"{ORDERS},0/1,CrashLoopBackOff,6",
        f"{INVENTORY},1/1,Running,4",
    ]
)
"""A pod's neighbours as CSV (the call names cart): rows of other pods in text no parser reads."""
ANNOTATION = f"on-call note: {ORDERS} exits with code 2 after the upstream timeout"
NEIGHBOUR_STATE = "Error: back-off 5m0s restarting the failed container"
NEIGHBOUR_STATES = {"pods": {CART: "Running", ORDERS: NEIGHBOUR_STATE}}
"""The states of a pod and its neighbours, keyed by pod name (the call names cart)."""
ROLLOUT_REPLICASET = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {
        "name": "checkout-5b7d9f6c8",
        "namespace": PRODUCTION,
        "labels": {"app": "checkout", "rollouts-pod-template-hash": "5b7d9f6c8"},
        "ownerReferences": [{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "checkout"}],
    },
    "status": {"replicas": 1, "readyReplicas": 0},
}
"""checkout's ReplicaSet, owned by an Argo Rollout called checkout (no Deployment)."""
BATCH = "batch"
FINISHED_DEPLOYMENT_POD = "reports-6d8f7b9c5-q2w4z"
FINISHED_JOB_POD = "export-2024-x7k2p"
FINISHED = table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        [FINISHED_DEPLOYMENT_POD, "0/1", "Completed", "5", "3h"],
        [FINISHED_JOB_POD, "0/1", "Completed", "0", "3h"],
    ],
)
"""A Deployment's pod that finished (its container exits 0 and is restarted: not healthy) and a Job's."""
LONG_QUERY = "OOMKilled: container exceeded its 512Mi memory limit during the nightly import"
REDACTED_QUERY = "payments database rejected the login: password=hunter2"


def annotated(name: str, note: str) -> dict[str, Any]:
    """The pod's object with an annotation a person wrote."""
    found = pod_object(the_pod(name))
    found["metadata"]["annotations"] = {"example.com/on-call-note": note}
    return found


def cut_echo(query: str) -> str:
    return f'no event of pod {ORDERS} matches "{query[:40]}..."'


def whole_echo(query: str) -> str:
    return f"no event of pod {ORDERS} matches: {query}"


EXTRA_TOOLS = [
    tool("nodes_describe", "Describe a node.", {"name": NAME},
         results=[when(NODE_DESCRIBE, name=PRESSURED_NODE)]),
    tool("nodes_get", "Get a node as JSON.", {"name": NAME},
         results=[when(json.dumps(NODE_OBJECT, indent=2), name=PRESSURED_NODE)]),
    tool("pods_lookup", "Look a pod up by name (JSON).", {"namespace": NAMESPACE, "name": NAME},
         results=[when(json.dumps(GHOST_STATUS), namespace=PRODUCTION, name=GHOST)]),
    tool("pods_exists", "Whether a pod exists (JSON).", {"namespace": NAMESPACE, "name": NAME},
         results=[when(json.dumps(GHOST_LOOKUP), namespace=PRODUCTION, name=GHOST)]),
    tool("pods_top", "`kubectl top pod --containers` in a namespace.", {"namespace": NAMESPACE},
         results=[when(TOP_CONTAINERS, namespace=PRODUCTION)]),
    tool("pods_status", "`kubectl get pod` of a StatefulSet's pods, with structured content.",
         {"namespace": NAMESPACE},
         results=[when(plain_table(pods(PRODUCTION, REDIS)),
                       {"items": [{"name": REDIS, "namespace": PRODUCTION, "kind": "Pod", "status": STALE_STATUS,
                                   "ready": "0/1", "restarts": 7}]}, namespace=PRODUCTION)]),
    tool("pod_neighbours", "The pods beside a pod, as CSV.", {"namespace": NAMESPACE, "name": NAME},
         results=[when(CSV_LISTING, namespace=PRODUCTION, name=CART)]),
    tool("pod_states", "The states of a pod and its neighbours, as JSON keyed by pod name.",
         {"namespace": NAMESPACE, "name": NAME},
         results=[when(json.dumps(NEIGHBOUR_STATES, indent=2), namespace=PRODUCTION, name=CART)]),
    tool("pods_get_annotated", "Get a pod as YAML, annotations included.", {"namespace": NAMESPACE, "name": NAME},
         results=[when(as_yaml(annotated(CART, ANNOTATION)), namespace=PRODUCTION, name=CART)]),
    tool("replicasets_get", "Get a ReplicaSet as YAML.", {"namespace": NAMESPACE, "name": NAME},
         results=[when(as_yaml(ROLLOUT_REPLICASET), namespace=PRODUCTION, name="checkout-5b7d9f6c8")]),
    tool("pods_list_batch", "`kubectl get pods` in the batch namespace.", {}, text=FINISHED),
    tool("pod_events_search", "Search a pod's events.", {"namespace": NAMESPACE, "name": NAME, "query": string("Text")},
         results=[when(cut_echo(LONG_QUERY), namespace=PRODUCTION, name=ORDERS, query=LONG_QUERY),
                  when(whole_echo(REDACTED_QUERY), namespace=PRODUCTION, name=ORDERS, query=REDACTED_QUERY)]),
]  # fmt: skip


TOOLS = [
    # kubernetes-mcp-server
    tool("pods_list", "List the pods of all namespaces.", {"labelSelector": string("Label selector")},
         text=wide_table(pods())),
    tool("pods_list_in_namespace", "List the pods of a namespace.",
         {"namespace": NAMESPACE, "labelSelector": string("Label selector")},
         results=[when(wide_table(pods(ns)), namespace=ns) for ns in (PRODUCTION, STAGING)]),
    tool("pods_get", "Get a pod as YAML.", {"namespace": NAMESPACE, "name": NAME},
         results=[when(as_yaml(pod_object(p)), namespace=p.namespace, name=p.name) for p in PODS]),
    tool("pods_log", "Get the logs of a pod.", {"namespace": NAMESPACE, "name": NAME},
         results=[when(CHECKOUT_LOG, namespace=PRODUCTION, name=CHECKOUT),
                  when(ORDERS_LOG, namespace=PRODUCTION, name=ORDERS)]),
    tool("events_list", "List the events of a namespace.", {"namespace": NAMESPACE},
         results=[when(events_table(), namespace=PRODUCTION)]),
    tool("helm_list", "List the Helm releases.",
         {"namespace": NAMESPACE, "all_namespaces": {"type": "boolean"}}, text=as_yaml(RELEASES)),
    tool("resources_get", "Get a Kubernetes resource as YAML.",
         {"apiVersion": string("apiVersion"), "kind": string("kind"), "namespace": NAMESPACE, "name": NAME},
         results=[when(as_yaml(HPA_OBJECT), kind="HorizontalPodAutoscaler", namespace=PRODUCTION, name=HPA)]),
    # mcp-server-kubernetes
    tool("kubectl_get", "Get or list resources (pods: a summary; output json: the objects).",
         {"resourceType": string("Resource type"), "name": NAME, "namespace": NAMESPACE,
          "output": string("json, yaml or wide")},
         results=[when(json_list(pods(PRODUCTION, CART, CHECKOUT, INVENTORY)), resourceType="pods",
                       namespace=PRODUCTION, output="json"),
                  when(one_line(summary(pods(PRODUCTION))), summary(pods(PRODUCTION)), resourceType="pods",
                       namespace=PRODUCTION),
                  when(events_json(), resourceType="events", namespace=PRODUCTION),
                  when(json.dumps(HPA_OBJECT, indent=2), resourceType="hpa", name=HPA, namespace=PRODUCTION,
                       output="json")]),
    tool("kubectl_describe", "Describe a resource.",
         {"resourceType": string("Resource type"), "name": NAME, "namespace": NAMESPACE},
         results=[when(describe(p), resourceType="pods", name=p.name, namespace=p.namespace) for p in PODS]),
    # tools other servers have
    tool("kubectl_get_events", "`kubectl get events --no-headers` in a namespace.", {"namespace": NAMESPACE},
         results=[when(events_lines(), namespace=PRODUCTION)]),
    tool("kubectl_get_pods", "`kubectl get pods` in a namespace.", {"namespace": NAMESPACE},
         results=[when(plain_table(pods(ns)), namespace=ns) for ns in (PRODUCTION, STAGING)]),
    tool("pods_list_current_namespace", "`kubectl get pods` in the kubeconfig context's namespace.",
         {"labelSelector": string("Label selector")}, text=plain_table(pods(STAGING))),
    tool("logs_by_label", "The merged logs of the pods a label selector matches.",
         {"namespace": NAMESPACE, "labelSelector": string("Label selector")},
         results=[when(SELECTOR_LOG, namespace=PRODUCTION, labelSelector="app=checkout")]),
    tool("pods_get_many", "Get several pods of a namespace as one YAML stream, a document each.",
         {"namespace": NAMESPACE, "names": {"type": "array", "items": {"type": "string"}}},
         results=[when(yaml_stream(pods(PRODUCTION, CART, INVENTORY)), namespace=PRODUCTION,
                       names=[CART, INVENTORY])]),
    *EXTRA_TOOLS,
]  # fmt: skip
"""The spec's tools: `{"tools": TOOLS}`."""
