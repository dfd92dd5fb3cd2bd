"""Property tests of evidence attribution (docs/report.md, "The verification rule").

A claim about a resource verifies only when that resource's record holds it: its table row, its
`describe` block, its JSON item, its YAML document, its events (or its owner's, by Kubernetes' owner
rules), never a neighbour's. The generator below builds small clusters (pods of Deployments, Jobs and
StatefulSets; names and namespaces that share prefixes; the same pod name in two namespaces) and
renders them as the real servers do: kubectl and kubernetes-mcp-server tables, `kubectl get all`,
`kubectl describe`, JSON lists (indented and one-line, whole objects and mcp-server-kubernetes' flat
items), multi-document YAML, an events table and a pod's logs. Each renderer also says where each
resource's record lies in its text: that, the cluster's own facts, is the oracle, never the
verifier's rule.

Written against the public API only (`verify`, `HealthReport`, `ToolText`), without reading the
verifier, so that these tests do not share its blind spots.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.report import HealthReport
from k8s_agent_harness.evidence.verification import Verification, verify

EXAMPLES = 12
"""Examples per shape and property: about 140 per property over the twelve shapes."""

# -- Names Kubernetes could produce ---------------------------------------------------------------

ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""What Kubernetes draws a pod-template hash and a pod's random suffix from: no vowels, no 0, 1 or 3."""
LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOWELS = "aeiou"
APP_NAMES = (
    "api",
    "api-gateway",
    "checkout",
    "checkout-worker",
    "payments",
    "payments-db",
    "web",
    "web-frontend",
    "etl",
    "etl-nightly",
)
"""Workload names in families that share a prefix (a Deployment `checkout`, a Job `checkout-worker`)."""
FAMILIES = tuple(zip(APP_NAMES[::2], APP_NAMES[1::2], strict=True))
NAMESPACES = ("prod", "prod-eu", "production", "staging")
REFERENCED_NAMES = ("ledger", "inventory", "billing-cache", "notifier")
"""Names that only another object's reference uses: no workload of the generator is named so."""
WORKLOAD_KINDS = ("Deployment", "Deployment", "Job", "StatefulSet")
NODES = ("node-a", "node-b")


def generated(length: int) -> st.SearchStrategy[str]:
    """A name part Kubernetes generates: a ReplicaSet's pod-template hash, a pod's random suffix."""
    return st.text(alphabet=ALPHABET, min_size=length, max_size=length)


@st.composite
def word_like(draw: st.DrawFn, length: int) -> str:
    """A name part a person chose, of this length: it has a vowel, so it is never a generated part."""
    rest = draw(st.text(alphabet=LETTERS, min_size=length - 1, max_size=length - 1))
    at = draw(st.integers(0, length - 1))
    return rest[:at] + draw(st.sampled_from(VOWELS)) + rest[at:]


# -- The cluster: pods and the workloads that own them --------------------------------------------


@dataclass(frozen=True)
class Key:
    """A resource: its kind, namespace ("" when cluster-scoped) and name."""

    kind: str
    namespace: str
    name: str

    def __repr__(self) -> str:
        return f"{self.kind.lower()}/{self.name} ({self.namespace})"


@dataclass(frozen=True)
class PodState:
    """How a pod in one condition looks to the tools."""

    word: str
    """What kubectl's STATUS column shows."""
    phase: str
    container: str = "running"
    """The container's state: running, waiting, terminated, or "" (it has none)."""
    reason: str = ""
    """That state's reason (or the pod's own, for an eviction or an unscheduled pod)."""
    exit_code: int = 0
    last: str = ""
    """The reason of the container's last termination, when it restarted."""
    event: tuple[str, str, str] = ("Normal", "Started", "Started container app")
    detail: str = ""
    """Its own line: a container message, the last line of its log ({seq} makes it the pod's own)."""


BACK_OFF = ("Warning", "BackOff", "Back-off restarting failed container app in pod {pod}_{namespace}({uid})")
STATES = {
    state.word: state
    for state in (
        PodState("Running", "Running"),
        PodState(
            "CrashLoopBackOff",
            "Running",
            "waiting",
            "CrashLoopBackOff",
            1,
            "Error",
            BACK_OFF,
            "dial tcp 10.0.{seq}.7:5432: connect: connection refused",
        ),
        PodState(
            "OOMKilled",
            "Running",
            "terminated",
            "OOMKilled",
            137,
            "OOMKilled",
            BACK_OFF,
            "java.lang.OutOfMemoryError: Java heap space after {seq} requests",
        ),
        PodState(
            "ImagePullBackOff",
            "Pending",
            "waiting",
            "ImagePullBackOff",
            event=(
                "Warning",
                "Failed",
                "Failed to pull image registry.example.com/shop/app:1.{seq}: not found",
            ),
            detail="Back-off pulling image registry.example.com/shop/app:1.{seq}",
        ),
        PodState(
            "CreateContainerConfigError",
            "Pending",
            "waiting",
            "CreateContainerConfigError",
            event=("Warning", "Failed", "Error: {detail}"),
            detail="secret db-credentials-{seq} not found",
        ),
        PodState(
            "Pending",
            "Pending",
            "",
            "Unschedulable",
            event=("Warning", "FailedScheduling", "{detail}"),
            detail="0/{seq} nodes are available: {seq} Insufficient memory.",
        ),
        PodState(
            "Error",
            "Failed",
            "terminated",
            "Error",
            1,
            detail="Traceback (most recent call last): KeyError: batch_{seq}",
        ),
        PodState("Completed", "Succeeded", "terminated", "Completed"),
        PodState(
            "Evicted",
            "Failed",
            "",
            "Evicted",
            event=("Warning", "Evicted", "{detail}"),
            detail="The node was low on resource: memory. Threshold quantity: 100Mi, available: {seq}Ki.",
        ),
    )
}
STATES_BY_KIND = {
    "Deployment": (
        "Running",
        "Running",
        "CrashLoopBackOff",
        "OOMKilled",
        "ImagePullBackOff",
        "CreateContainerConfigError",
        "Pending",
        "Evicted",
    ),
    "Job": ("Running", "Error", "Completed", "OOMKilled", "Pending"),
    "StatefulSet": ("Running", "Running", "CrashLoopBackOff", "OOMKilled", "Pending"),
}
API_VERSIONS = {
    "Pod": "v1",
    "ReplicaSet": "apps/v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "Job": "batch/v1",
}


@dataclass(frozen=True)
class Pod:
    """A pod, named as its controller names it: `app-hash-suffix`, `job-suffix`, `statefulset-ordinal`."""

    app: str
    namespace: str
    owner_kind: str
    template_hash: str
    suffix: str
    state: str
    restarts: int
    seq: int
    """A number of its own: its uid, its IP, its messages."""

    def __repr__(self) -> str:
        return f"pod {self.namespace}/{self.name} {self.state}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    @property
    def name(self) -> str:
        return "-".join(part for part in (self.app, self.template_hash, self.suffix) if part)

    @property
    def key(self) -> Key:
        return Key("Pod", self.namespace, self.name)

    @property
    def look(self) -> PodState:
        return STATES[self.state]

    @property
    def owners(self) -> tuple[Key, ...]:
        """Its controller, and the Deployment above a ReplicaSet."""
        if self.owner_kind == "Deployment":
            return (
                Key("ReplicaSet", self.namespace, f"{self.app}-{self.template_hash}"),
                Key("Deployment", self.namespace, self.app),
            )
        return (Key(self.owner_kind, self.namespace, self.app),)

    @property
    def healthy(self) -> bool:
        """Running (and ready), or Completed: a finished Job's pod is no trouble."""
        return self.state in ("Running", "Completed")

    @property
    def ready(self) -> str:
        return "1/1" if self.healthy else "0/1"

    @property
    def scheduled(self) -> bool:
        return self.state != "Pending"

    @property
    def node(self) -> str:
        return NODES[self.seq % 2] if self.scheduled else "<none>"

    @property
    def ip(self) -> str:
        return f"10.244.{self.seq % 3}.{self.seq}" if self.scheduled else "<none>"

    @property
    def age(self) -> str:
        return f"{self.seq % 50 + 5}m"

    @property
    def uid(self) -> str:
        return f"{self.seq:08x}-7a1c-4e2b-9f3d-{self.seq:012x}"

    @property
    def image(self) -> str:
        return f"registry.example.com/shop/app:1.{self.seq}"

    @property
    def detail(self) -> str:
        return self.look.detail.format(seq=self.seq)

    @property
    def event(self) -> tuple[str, str, str]:
        kind, reason, message = self.look.event
        return (
            kind,
            reason,
            message.format(
                pod=self.name, namespace=self.namespace, uid=self.uid, detail=self.detail, seq=self.seq
            ),
        )

    @property
    def labels(self) -> dict[str, str]:
        if self.owner_kind == "Deployment":
            return {"app": self.app, "pod-template-hash": self.template_hash}
        if self.owner_kind == "Job":
            return {"batch.kubernetes.io/job-name": self.app, "job-name": self.app}
        return {"app": self.app, "statefulset.kubernetes.io/pod-name": self.name}


@dataclass(frozen=True)
class Workload:
    """A Deployment, Job or StatefulSet."""

    kind: str
    name: str
    namespace: str
    template_hash: str
    seq: int

    @property
    def key(self) -> Key:
        return Key(self.kind, self.namespace, self.name)


@dataclass(frozen=True)
class Cluster:
    """Workloads and their pods, in the order the tools list them."""

    workloads: tuple[Workload, ...]
    pods: tuple[Pod, ...]

    def __repr__(self) -> str:
        return (
            "Cluster("
            + "; ".join(f"{w.kind} {w.namespace}/{w.name}: {self.pods_of(w)}" for w in self.workloads)
            + ")"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def pods_of(self, workload: Workload) -> list[Pod]:
        return [p for p in self.pods if (p.namespace, p.app) == (workload.namespace, workload.name)]

    def namespaces(self) -> list[str]:
        return list(dict.fromkeys(w.namespace for w in self.workloads))

    def ready(self, workload: Workload) -> int:
        return sum(p.healthy for p in self.pods_of(workload))

    def job_status(self, workload: Workload) -> str:
        states = {p.state for p in self.pods_of(workload)}
        return "Failed" if "Error" in states else "Complete" if states == {"Completed"} else "Running"

    def pod(self, key: Key) -> Pod | None:
        return next((p for p in self.pods if p.key == key), None)


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    """Two to four workloads with one to three pods each, one family of names that share a prefix
    among them, in one or two namespaces; half the time one of them again, with the same pod names,
    in another namespace (and states of its own)."""
    names = [*draw(st.sampled_from(FAMILIES)), *draw(st.lists(st.sampled_from(APP_NAMES), max_size=2))]
    names = draw(st.permutations(list(dict.fromkeys(names))))
    namespaces = draw(st.lists(st.sampled_from(NAMESPACES), min_size=1, max_size=2, unique=True))
    layouts = []
    for name in names:
        kind = draw(st.sampled_from(WORKLOAD_KINDS))
        count = draw(st.integers(1, 3))
        if kind == "StatefulSet":
            template_hash, suffixes = "", [str(ordinal) for ordinal in range(count)]
        else:
            template_hash = draw(st.integers(8, 10).flatmap(generated)) if kind == "Deployment" else ""
            suffixes = draw(st.lists(generated(5), min_size=count, max_size=count, unique=True))
        layouts.append((kind, name, draw(st.sampled_from(namespaces)), template_hash, suffixes))
    if draw(st.booleans()):
        kind, name, namespace, template_hash, suffixes = draw(st.sampled_from(layouts))
        layouts.append(
            (
                kind,
                name,
                draw(st.sampled_from([n for n in NAMESPACES if n != namespace])),
                template_hash,
                suffixes,
            )
        )
    workloads: list[Workload] = []
    pods: list[Pod] = []
    for kind, name, namespace, template_hash, suffixes in layouts:
        workloads.append(Workload(kind, name, namespace, template_hash, 13 + 7 * len(workloads)))
        for suffix in suffixes:
            state = draw(st.sampled_from(STATES_BY_KIND[kind]))
            restarts = draw(st.integers(1, 40)) if STATES[state].last else 0
            pods.append(
                Pod(name, namespace, kind, template_hash, suffix, state, restarts, 11 + 7 * len(pods))
            )
    return Cluster(tuple(workloads), tuple(pods))


# -- Shapes: a cluster as a tool's result, with where each resource's record lies in it -----------


@dataclass(frozen=True)
class Record:
    """The span of a result's text that is about one resource."""

    subject: Key
    start: int
    end: int


@dataclass(frozen=True)
class Shown:
    """One successful tool result: the call that asked for it and the records in its text."""

    tool: str
    arguments: dict[str, Any]
    parameters: tuple[str, ...]
    text: str
    records: tuple[Record, ...] = ()

    def result(self, number: int) -> ToolText:
        return ToolText(
            f"call_{number}", self.tool, self.text, json.dumps(self.arguments), parameters=self.parameters
        )

    def record_text(self, record: Record) -> str:
        return self.text[record.start : record.end]


@dataclass
class Text:
    """A result's text built piece by piece, remembering which pieces are a resource's record."""

    parts: list[str] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    length: int = 0

    def add(self, text: str, subject: Key | None = None) -> None:
        if subject is not None:
            self.records.append(Record(subject, self.length, self.length + len(text)))
        self.parts.append(text)
        self.length += len(text)

    def shown(self, tool: str, arguments: dict[str, Any], parameters: tuple[str, ...]) -> Shown:
        return Shown(tool, arguments, parameters, "".join(self.parts), tuple(self.records))


KUBECTL_GET = (
    "resourceType",
    "name",
    "namespace",
    "output",
    "allNamespaces",
    "labelSelector",
    "fieldSelector",
)
KUBECTL_DESCRIBE = ("resourceType", "name", "namespace", "allNamespaces")
PODS_LIST = ("labelSelector",)
PODS_LOG = ("name", "namespace", "container", "previous", "tail")


def add_table(out: Text, header: Sequence[str], rows: Sequence[tuple[Key, Sequence[str]]]) -> None:
    """Columns as kubectl aligns them: each as wide as its widest cell, three spaces apart."""
    widths = [
        max(len(cell) for cell in column)
        for column in zip(header, *(cells for _, cells in rows), strict=True)
    ]

    def line(cells: Sequence[str]) -> str:
        return "   ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()

    out.add(line(header) + "\n")
    for subject, cells in rows:
        out.add(line(cells), subject)
        out.add("\n")


def pod_cells(pod: Pod, columns: Sequence[str], name_prefix: str = "") -> list[str]:
    """A pod's row: kubectl's columns, and kubernetes-mcp-server's wider ones."""
    cells = {
        "NAMESPACE": pod.namespace,
        "APIVERSION": "v1",
        "KIND": "Pod",
        "NAME": name_prefix + pod.name,
        "READY": pod.ready,
        "STATUS": pod.state,
        "RESTARTS": str(pod.restarts),
        "AGE": pod.age,
        "IP": pod.ip,
        "NODE": pod.node,
        "NOMINATED NODE": "<none>",
        "READINESS GATES": "<none>",
        "LABELS": ",".join(f"{k}={v}" for k, v in pod.labels.items()),
    }
    return [cells[column] for column in columns]


POD_COLUMNS = ("NAME", "READY", "STATUS", "RESTARTS", "AGE")
WIDE_POD_COLUMNS = (
    "NAMESPACE",
    "APIVERSION",
    "KIND",
    "NAME",
    "READY",
    "STATUS",
    "RESTARTS",
    "AGE",
    "IP",
    "NODE",
    "NOMINATED NODE",
    "READINESS GATES",
    "LABELS",
)


def kubectl_tables(cluster: Cluster) -> list[Shown]:
    """`kubectl get pods -n NS`, one call per namespace: no NAMESPACE column (the tool declares it)."""
    shown = []
    for namespace in cluster.namespaces():
        out = Text()
        pods = [p for p in cluster.pods if p.namespace == namespace]
        add_table(out, POD_COLUMNS, [(p.key, pod_cells(p, POD_COLUMNS)) for p in pods])
        shown.append(out.shown("kubectl_get", {"resourceType": "pods", "namespace": namespace}, KUBECTL_GET))
    return shown


def kubectl_table_all(cluster: Cluster) -> list[Shown]:
    """`kubectl get pods -A`: a NAMESPACE column."""
    out = Text()
    columns = ("NAMESPACE", *POD_COLUMNS)
    add_table(out, columns, [(p.key, pod_cells(p, columns)) for p in cluster.pods])
    return [out.shown("kubectl_get", {"resourceType": "pods", "allNamespaces": True}, KUBECTL_GET)]


def server_table(cluster: Cluster) -> list[Shown]:
    """kubernetes-mcp-server's `pods_list`: NAMESPACE, APIVERSION and KIND columns, and labels."""
    out = Text()
    add_table(out, WIDE_POD_COLUMNS, [(p.key, pod_cells(p, WIDE_POD_COLUMNS)) for p in cluster.pods])
    return [out.shown("pods_list", {}, PODS_LIST)]


def get_all(cluster: Cluster) -> list[Shown]:
    """`kubectl get all -n NS`: a section per kind, names written `kind/name`."""
    shown = []
    for namespace in cluster.namespaces():
        out = Text()
        workloads = [w for w in cluster.workloads if w.namespace == namespace]
        pods = [p for p in cluster.pods if p.namespace == namespace]
        add_table(out, POD_COLUMNS, [(p.key, pod_cells(p, POD_COLUMNS, "pod/")) for p in pods])
        sections: list[tuple[Sequence[str], Sequence[tuple[Key, Sequence[str]]]]] = []
        for w in (w for w in workloads if w.kind == "Deployment"):
            ready, count = cluster.ready(w), len(cluster.pods_of(w))
            rows = [(w.key, [f"deployment.apps/{w.name}", f"{ready}/{count}", str(count), str(ready), "3d"])]
            sections.append((("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"), rows))
            rs = Key("ReplicaSet", namespace, f"{w.name}-{w.template_hash}")
            rows = [(rs, [f"replicaset.apps/{rs.name}", str(count), str(count), str(ready), "3d"])]
            sections.append((("NAME", "DESIRED", "CURRENT", "READY", "AGE"), rows))
        for w in (w for w in workloads if w.kind == "StatefulSet"):
            rows = [
                (w.key, [f"statefulset.apps/{w.name}", f"{cluster.ready(w)}/{len(cluster.pods_of(w))}", "3d"])
            ]
            sections.append((("NAME", "READY", "AGE"), rows))
        for w in (w for w in workloads if w.kind == "Job"):
            done = sum(p.state == "Completed" for p in cluster.pods_of(w))
            cells = [
                f"job.batch/{w.name}",
                cluster.job_status(w),
                f"{done}/{len(cluster.pods_of(w))}",
                "12m",
                "3d",
            ]
            sections.append((("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"), [(w.key, cells)]))
        for header, section in sections:
            out.add("\n")
            add_table(out, header, section)
        shown.append(out.shown("kubectl_get", {"resourceType": "all", "namespace": namespace}, KUBECTL_GET))
    return shown


def describe_pod(pod: Pod, volume: tuple[str, str] | None = None) -> str:
    """`kubectl describe pod`'s block for one pod (and a volume it mounts, when given)."""
    look = pod.look
    owner = pod.owners[0]
    labels = [f"{k}={v}" for k, v in pod.labels.items()]
    node = f"{pod.node}/10.0.0.{pod.seq % 200}" if pod.scheduled else "<none>"
    lines = [
        f"Name:             {pod.name}",
        f"Namespace:        {pod.namespace}",
        "Priority:         0",
        "Service Account:  default",
        f"Node:             {node}",
        f"Labels:           {labels[0]}",
        *(f"                  {label}" for label in labels[1:]),
        "Annotations:      <none>",
        f"Status:           {look.phase}",
    ]
    if look.reason == "Evicted":
        lines += ["Reason:           Evicted", f"Message:          {pod.detail}"]
    lines += [
        f"IP:               {pod.ip}",
        f"Controlled By:    {owner.kind}/{owner.name}",
        "Containers:",
        "  app:",
        f"    Image:          {pod.image}",
    ]
    if look.container == "running":
        lines += ["    State:          Running", "      Started:      Mon, 01 Dec 2025 10:00:00 +0000"]
    elif look.container == "waiting":
        lines += ["    State:          Waiting", f"      Reason:       {look.reason}"]
    elif look.container == "terminated":
        lines += ["    State:          Terminated", f"      Reason:       {look.reason}"]
        if pod.detail and not look.last:
            lines.append(f"      Message:      {pod.detail}")
        lines.append(f"      Exit Code:    {look.exit_code}")
    if look.last:
        lines += [
            "    Last State:     Terminated",
            f"      Reason:       {look.last}",
            f"      Message:      {pod.detail}",
            f"      Exit Code:    {look.exit_code}",
        ]
    if look.container:
        lines += [f"    Ready:          {pod.healthy}", f"    Restart Count:  {pod.restarts}"]
    lines += ["Conditions:", "  Type              Status"]
    lines.append("  Ready             " + str(pod.healthy) if pod.scheduled else "  PodScheduled      False")
    if volume is not None:
        kind, name = volume
        if kind == "pvc":
            lines += [
                "Volumes:",
                "  data:",
                "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
                f"    ClaimName:  {name}",
                "    ReadOnly:   false",
            ]
        else:
            lines += [
                "Volumes:",
                "  config:",
                "    Type:      ConfigMap (a volume populated by a ConfigMap)",
                f"    Name:      {name}",
                "    Optional:  false",
            ]
    lines += [
        "Events:",
        "  Type     Reason     Age   From               Message",
        "  ----     ------     ----  ----               -------",
    ]
    if pod.scheduled:
        lines.append(
            f"  Normal   Scheduled  {pod.age}   default-scheduler  Successfully assigned {pod.namespace}/{pod.name} to {pod.node}"
        )
    kind, reason, message = pod.event
    source = "default-scheduler" if reason == "FailedScheduling" else "kubelet"
    lines.append(f"  {kind:<8} {reason:<10} {pod.age}   {source:<18} {message}")
    return "\n".join(lines)


def add_blocks(out: Text, blocks: Sequence[tuple[Key, str]]) -> None:
    """`describe` blocks, one after another with a blank line between them."""
    for number, (subject, block) in enumerate(blocks):
        if number:
            out.add("\n\n")
        out.add(block, subject)
    out.add("\n")


def describe(cluster: Cluster) -> list[Shown]:
    """`kubectl describe pods -n NS`, one call per namespace."""
    shown = []
    for namespace in cluster.namespaces():
        out = Text()
        add_blocks(out, [(p.key, describe_pod(p)) for p in cluster.pods if p.namespace == namespace])
        shown.append(
            out.shown("kubectl_describe", {"resourceType": "pods", "namespace": namespace}, KUBECTL_DESCRIBE)
        )
    return shown


def container_status(pod: Pod) -> dict[str, Any]:
    """The pod's `status.containerStatuses[0]`."""
    look = pod.look
    state: dict[str, Any]
    if look.container == "running":
        state = {"running": {"startedAt": "2025-12-01T10:00:00Z"}}
    elif look.container == "waiting":
        message = pod.detail
        if look.reason == "CrashLoopBackOff":
            message = (
                f"back-off 5m0s restarting failed container=app pod={pod.name}_{pod.namespace}({pod.uid})"
            )
        state = {"waiting": {"reason": look.reason, "message": message}}
    else:
        state = {"terminated": {"reason": look.reason, "exitCode": look.exit_code}}
        if pod.detail and not look.last:
            state["terminated"]["message"] = pod.detail
    status: dict[str, Any] = {
        "name": "app",
        "image": pod.image,
        "ready": pod.healthy,
        "restartCount": pod.restarts,
        "state": state,
    }
    if look.last:
        status["lastState"] = {
            "terminated": {"reason": look.last, "exitCode": look.exit_code, "message": pod.detail}
        }
    return status


def volume_object(volume: tuple[str, str]) -> dict[str, Any]:
    kind, name = volume
    if kind == "pvc":
        return {"name": "data", "persistentVolumeClaim": {"claimName": name}}
    return {"name": "config", "configMap": {"name": name}}


def pod_object(pod: Pod, volume: tuple[str, str] | None = None) -> dict[str, Any]:
    """The pod as the API server returns it."""
    look = pod.look
    owner = pod.owners[0]
    reference = {
        "apiVersion": API_VERSIONS[owner.kind],
        "kind": owner.kind,
        "name": owner.name,
        "uid": f"{pod.seq:08x}-0d0e-4c1b-8a2f-{pod.seq + 1:012x}",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": pod.image}]}
    if pod.scheduled:
        spec["nodeName"] = pod.node
    if volume is not None:
        spec["volumes"] = [volume_object(volume)]
    status: dict[str, Any] = {"phase": look.phase}
    if look.reason == "Evicted":
        status |= {"reason": "Evicted", "message": pod.detail}
    if pod.scheduled:
        status["conditions"] = [{"type": "Ready", "status": str(pod.healthy)}]
    else:
        status["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": pod.detail}
        ]
    if look.container:
        status["containerStatuses"] = [container_status(pod)]
    if pod.scheduled:
        status["podIP"] = pod.ip
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod.name,
            "namespace": pod.namespace,
            "uid": pod.uid,
            "labels": pod.labels,
            "ownerReferences": [reference],
        },
        "spec": spec,
        "status": status,
    }


def workload_object(cluster: Cluster, workload: Workload) -> dict[str, Any]:
    """A Deployment, Job or StatefulSet as the API server returns it."""
    count, ready = len(cluster.pods_of(workload)), cluster.ready(workload)
    metadata = {
        "name": workload.name,
        "namespace": workload.namespace,
        "uid": f"{workload.seq:08x}-1f2e-4d3c-8b4a",
    }
    status: dict[str, Any]
    if workload.kind == "Job":
        job_status = cluster.job_status(workload)
        status = {"active": sum(p.state == "Running" for p in cluster.pods_of(workload))}
        if job_status == "Failed":
            status["conditions"] = [
                {
                    "type": "Failed",
                    "status": "True",
                    "reason": "BackoffLimitExceeded",
                    "message": "Job has reached the specified backoff limit",
                }
            ]
        spec: dict[str, Any] = {"backoffLimit": 6, "completions": count}
    else:
        status = {"replicas": count, "readyReplicas": ready}
        spec = {"replicas": count, "selector": {"matchLabels": {"app": workload.name}}}
        if workload.kind == "Deployment":
            available = ready == count
            status["conditions"] = [
                {
                    "type": "Available",
                    "status": str(available),
                    "reason": "MinimumReplicasAvailable" if available else "MinimumReplicasUnavailable",
                    "message": f"Deployment {'has' if available else 'does not have'} minimum availability.",
                }
            ]
    return {
        "apiVersion": API_VERSIONS[workload.kind],
        "kind": workload.kind,
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }


def objects(cluster: Cluster) -> list[tuple[Key, dict[str, Any]]]:
    """Every pod, then every workload, as objects."""
    return [(p.key, pod_object(p)) for p in cluster.pods] + [
        (w.key, workload_object(cluster, w)) for w in cluster.workloads
    ]


def json_shown(
    tool: str,
    arguments: dict[str, Any],
    parameters: tuple[str, ...],
    items: Sequence[tuple[Key, Any]],
    *,
    compact: bool,
    wrapper: dict[str, Any] | None,
) -> Shown:
    """A JSON list (in `wrapper["items"]`, or bare) as json.dumps writes it; each item a record."""
    listed = [item for _, item in items]
    whole = listed if wrapper is None else {**wrapper, "items": listed}
    depth = 1 if wrapper is None else 2
    if compact:
        text = json.dumps(whole, separators=(",", ":"))
    else:
        text = json.dumps(whole, indent=2)
    records, position = [], 0
    for subject, item in items:
        if compact:
            item_text = json.dumps(item, separators=(",", ":"))
        else:
            item_text = json.dumps(item, indent=2).replace("\n", "\n" + "  " * depth)
        start = text.index(item_text, position)
        position = start + len(item_text)
        records.append(Record(subject, start, position))
    return Shown(tool, arguments, parameters, text, tuple(records))


def json_list(cluster: Cluster, *, compact: bool) -> list[Shown]:
    """`kubectl get all -A -o json`: a List of whole objects."""
    arguments = {"resourceType": "all", "allNamespaces": True, "output": "json"}
    return [
        json_shown(
            "kubectl_get",
            arguments,
            KUBECTL_GET,
            objects(cluster),
            compact=compact,
            wrapper={"apiVersion": "v1"},
        )
    ]


def flat_items(cluster: Cluster) -> list[Shown]:
    """mcp-server-kubernetes' `kubectl_get`: `{"items": [{name, namespace, kind, status, createdAt}]}`."""
    items = [
        (
            p.key,
            {
                "name": p.name,
                "namespace": p.namespace,
                "kind": "Pod",
                "status": p.state,
                "createdAt": f"2025-12-01T10:{p.seq % 60:02d}:00Z",
            },
        )
        for p in cluster.pods
    ]
    arguments = {"resourceType": "pods", "allNamespaces": True, "output": "json"}
    return [json_shown("kubectl_get", arguments, KUBECTL_GET, items, compact=False, wrapper={})]


def flat_list(cluster: Cluster) -> list[Shown]:
    """A bare one-line list `[{name, namespace, status}]` (the kind is the declared `resourceType`)."""
    items = [(p.key, {"name": p.name, "namespace": p.namespace, "status": p.state}) for p in cluster.pods]
    arguments = {"resourceType": "pods", "allNamespaces": True, "output": "json"}
    return [json_shown("kubectl_get", arguments, KUBECTL_GET, items, compact=True, wrapper=None)]


def yaml_shown(
    tool: str, arguments: dict[str, Any], parameters: tuple[str, ...], items: Sequence[tuple[Key, Any]]
) -> Shown:
    """A multi-document YAML stream: `---` before each object, each document a record."""
    out = Text()
    for subject, item in items:
        out.add("---\n")
        out.add(yaml.safe_dump(item, sort_keys=False, default_flow_style=False, width=1000), subject)
    return out.shown(tool, arguments, parameters)


def yaml_documents(cluster: Cluster) -> list[Shown]:
    """`kubectl get all -A -o yaml`, as a stream of documents."""
    arguments = {"resourceType": "all", "allNamespaces": True, "output": "yaml"}
    return [yaml_shown("kubectl_get", arguments, KUBECTL_GET, objects(cluster))]


def event_rows(cluster: Cluster) -> Iterator[tuple[Key, tuple[str, str, str]]]:
    """Each workload's events, then its pods': the object each is about, and (type, reason, message)."""
    for w in cluster.workloads:
        pods = cluster.pods_of(w)
        if w.kind == "Deployment":
            rs = Key("ReplicaSet", w.namespace, f"{w.name}-{w.template_hash}")
            yield w.key, ("Normal", "ScalingReplicaSet", f"Scaled up replica set {rs.name} to {len(pods)}")
            for p in pods:
                yield rs, ("Normal", "SuccessfulCreate", f"Created pod: {p.name}")
        elif w.kind == "Job":
            for p in pods:
                yield w.key, ("Normal", "SuccessfulCreate", f"Created pod: {p.name}")
            if cluster.job_status(w) == "Failed":
                yield (
                    w.key,
                    ("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
                )
        else:
            for p in pods:
                yield (
                    w.key,
                    ("Normal", "SuccessfulCreate", f"create Pod {p.name} in StatefulSet {w.name} successful"),
                )
        for p in pods:
            yield p.key, p.event


EVENT_OBJECTS = {"Pod": "pod", "ReplicaSet": "replicaset", "Deployment": "deployment", "Job": "job"}


def events(cluster: Cluster) -> list[Shown]:
    """`kubectl get events -A` (an OBJECT column: `pod/x`, `replicaset/x-hash`), beside `get pods -A`."""
    out = Text()
    rows = [
        (
            subject,
            [
                subject.namespace,
                "2m",
                kind,
                reason,
                f"{EVENT_OBJECTS.get(subject.kind, 'statefulset')}/{subject.name}",
                message,
            ],
        )
        for subject, (kind, reason, message) in event_rows(cluster)
    ]
    add_table(out, ("NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"), rows)
    listing = kubectl_table_all(cluster)
    return [
        *listing,
        out.shown("kubectl_get", {"resourceType": "events", "allNamespaces": True}, KUBECTL_GET),
    ]


def logs(cluster: Cluster) -> list[Shown]:
    """kubernetes-mcp-server's `pods_list`, then `pods_log` of each pod whose troubles left a line:
    a log is no structure; it is about the pod the call (with its declared arguments) named."""
    shown = server_table(cluster)
    for pod in cluster.pods:
        if not (pod.detail and (pod.look.last or pod.look.container == "terminated")):
            continue  # only a container that ran has a log
        minute = f"2025-12-01T10:{pod.seq % 60:02d}"
        text = (
            f"{minute}:00Z INFO starting app version 1.{pod.seq}\n"
            f"{minute}:01Z INFO connecting to the database\n"
            f"{minute}:02Z ERROR {pod.detail}\n"
        )
        arguments = {"name": pod.name, "namespace": pod.namespace}
        shown.append(Shown("pods_log", arguments, PODS_LOG, text, (Record(pod.key, 0, len(text)),)))
    return shown


SHAPES: dict[str, Callable[[Cluster], list[Shown]]] = {
    "kubectl table": kubectl_tables,
    "kubectl table, all namespaces": kubectl_table_all,
    "kubernetes-mcp-server table": server_table,
    "kubectl get all": get_all,
    "describe": describe,
    "JSON list, indented": lambda cluster: json_list(cluster, compact=False),
    "JSON list, one line": lambda cluster: json_list(cluster, compact=True),
    "flat JSON items": flat_items,
    "flat JSON list, one line": flat_list,
    "multi-document YAML": yaml_documents,
    "events": events,
    "logs": logs,
}
TABLE_LISTED = {
    "kubectl table",
    "kubectl table, all namespaces",
    "kubernetes-mcp-server table",
    "kubectl get all",
    "events",
    "logs",
}
"""Shapes whose pods are listed in a table with READY and RESTARTS columns."""
OWNER_SHAPES = (
    "kubectl get all",
    "JSON list, indented",
    "JSON list, one line",
    "multi-document YAML",
    "events",
)
"""Shapes that show the pods' owners too."""


# -- The oracle: what the cluster's own facts say --------------------------------------------------

Span = tuple[int, int, int]
"""A quote: (which result, start, end) in that result's text."""

SEPARATORS = re.compile(r"\s{2,}|,(?=\")")
"""Between a table's columns, between a compact JSON item's fields."""


def collapse(text: str) -> str:
    return " ".join(text.split())


def fragments(text: str, record: Record) -> list[tuple[int, int]]:
    """What a model would copy from inside a record: each of its lines or, in a record of one line,
    any run of its cells (a table's columns, a compact JSON item's fields)."""
    lines = []
    position = record.start
    for line in text[record.start : record.end].split("\n"):
        stripped = line.strip()
        if stripped:
            start = position + line.index(stripped)
            lines.append((start, start + len(stripped)))
        position += len(line) + 1
    if len(lines) != 1:
        return lines
    start, end = lines[0]
    pieces, at = [], start
    for match in SEPARATORS.finditer(text, start, end):
        pieces.append((at, match.start()))
        at = match.end()
    pieces.append((at, end))
    return [(a, b) for i, (a, _) in enumerate(pieces) for (_, b) in pieces[i:]]


def informative(quote: str, arguments: dict[str, Any]) -> bool:
    """At least 12 letters or digits that are not the call's own arguments repeated."""
    rest = quote.lower()
    for value in arguments.values():
        if isinstance(value, str) and value:
            rest = rest.replace(value.lower(), " ")
    return sum(c.isalnum() for c in rest) >= 12


def quotes_in(shown: Sequence[Shown], about: Callable[[Key], bool]) -> list[Span]:
    """Every informative fragment of every record whose subject `about` accepts."""
    return [
        (number, a, b)
        for number, result in enumerate(shown)
        for record in result.records
        if about(record.subject)
        for a, b in fragments(result.text, record)
        if informative(result.text[a:b], result.arguments)
    ]


def is_about(subject: Key, pod: Pod) -> bool:
    """A record is about a pod when it is the pod's own or its owner's."""
    return subject == pod.key or subject in pod.owners


def texts_about(shown: Sequence[Shown], pod: Pod) -> list[str]:
    return [r.record_text(record) for r in shown for record in r.records if is_about(record.subject, pod)]


def held_by(quote: str, texts: Sequence[str]) -> bool:
    """Whether one of these record texts holds the quote (whitespace collapsed)."""
    return any(collapse(quote) in collapse(text) for text in texts)


def shows_word(texts: Sequence[str], word: str) -> bool:
    """Whether a record shows this word, whole, in any case, after NFKC normalisation."""
    pattern = re.compile(rf"(?<![a-z0-9]){re.escape(normalised(word))}(?![a-z0-9])")
    return any(pattern.search(normalised(text)) for text in texts)


def normalised(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def spanning_quotes(shown: Sequence[Shown]) -> list[tuple[Span, Key, Key]]:
    """Quotes that run from the end of one record into the start of the next one: each with a few
    letters of both, and held by no single record."""
    every = [r.record_text(record) for r in shown for record in r.records]
    found = []
    for number, result in enumerate(shown):
        records = sorted(result.records, key=lambda record: record.start)
        for first, second in itertools.pairwise(records):
            starts = [a for a, _ in fragments(result.text, first)][-6:]
            ends = [b for _, b in fragments(result.text, second)][:6]
            for a in starts:
                for b in ends:
                    quote = result.text[a:b]
                    if (
                        alnum(result.text[a : first.end]) >= 4
                        and alnum(result.text[second.start : b]) >= 4
                        and informative(quote, result.arguments)
                        and not held_by(quote, every)
                    ):
                        found.append(((number, a, b), first.subject, second.subject))
    return found


def alnum(text: str) -> int:
    return sum(c.isalnum() for c in text)


def honest_statuses(shape: str, pod: Pod) -> list[str]:
    """What a careful model writes as the pod's status: its STATUS word, and in a table READY and
    RESTARTS as the columns show them."""
    statuses = [pod.state]
    if shape in TABLE_LISTED:
        statuses += [
            f"{pod.state}, READY {pod.ready}",
            f"{pod.state}, {pod.restarts} restarts",
            f"{pod.state}, READY {pod.ready}, {pod.restarts} restarts",
        ]
    return statuses


def healthy_examples(cluster: Cluster, but: Pod) -> list[str]:
    """Up to two pods shown healthy under every namespace their name is in."""
    names = [
        p.name
        for p in cluster.pods
        if p.name != but.name and all(q.healthy for q in cluster.pods if q.name == p.name)
    ]
    return list(dict.fromkeys(names))[:2]


# -- Reports ---------------------------------------------------------------------------------------


def cite(shown: Sequence[Shown], spans: Sequence[Span]) -> list[dict[str, Any]]:
    """Quotes of these spans, each citing the call it came from."""
    return [
        {"text": shown[number].text[a:b], "call_id": f"call_{number + 1}", "tool": shown[number].tool}
        for number, a, b in spans
    ]


def finding(
    name: str, namespace: str, status: str, evidence: list[dict[str, Any]], kind: str = "pod"
) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": "unknown",
        "explanation": "As the quotes show.",
        "evidence": evidence,
        "fix": "Look into it.",
    }


def report(findings: list[dict[str, Any]], healthy: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "scope": "pods in every namespace",
        "findings": findings,
        "healthy": {"count": len(healthy), "examples": list(healthy)},
        "unchecked": [],
    }


def checked(written: dict[str, Any], shown: Sequence[Shown]) -> Verification:
    """The harness's verification of the report against these results."""
    return verify(HealthReport.model_validate(written), [r.result(n) for n, r in enumerate(shown, 1)])


def marks(verification: Verification, *, kinds: bool = True) -> list[tuple[str, Any]]:
    """What the verification made of the report, each finding and the examples (not its wording):
    each quote's check (`kinds`) or only whether it verified."""
    return [
        ("report", verification.verified),
        *(
            (
                f"finding {f.kind} {f.namespace}/{f.name}",
                (
                    f.name_verified,
                    f.status_verified,
                    tuple(str(q.check) if kinds else q.verified for q in f.evidence),
                ),
            )
            for f in verification.report.findings
        ),
        ("unverified examples", tuple(verification.report.healthy.unverified_examples or ())),
    ]


def changed(before: list[tuple[str, Any]], after: list[tuple[str, Any]]) -> list[tuple[str, Any, Any]]:
    """The marks that differ: (what, before, after)."""
    return [(what, was, now) for (what, was), (_, now) in zip(before, after, strict=True) if was != now]


def mixed_finding(
    data: st.DataObject, shape: str, cluster: Cluster, shown: list[Shown], pod: Pod
) -> tuple[str, list[Span]]:
    """A finding about `pod`, honest or not: its own status or another pod's, and quotes from its own
    records, anyone's records, or across two records."""
    pods = [p for p in cluster.pods if p.key != pod.key] or [pod]
    whose = data.draw(st.sampled_from([pod, *pods]), label="whose status")
    status = data.draw(st.sampled_from(honest_statuses(shape, whose)), label="status")
    sources = [
        quotes_in(shown, lambda subject: is_about(subject, pod)),
        quotes_in(shown, lambda subject: True),
        [span for span, _, _ in spanning_quotes(shown)],
    ]
    candidates = sorted({span for source in sources for span in source})
    assume(candidates)
    return status, data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True))


def shape_examples(test: Callable[..., None]) -> Callable[..., None]:
    return settings(max_examples=EXAMPLES)(test)


# -- The generator's own checks ----------------------------------------------------------------------


@settings(max_examples=40)
@given(cluster=clusters())
def test_generated_names_are_ones_kubernetes_could_produce(cluster: Cluster) -> None:
    """Pod names are a controller's: hash of 8-10 and suffix of 5 from the vowel-free alphabet, or an ordinal."""
    generated_part = f"[{ALPHABET}]"
    patterns = {
        "Deployment": rf"{generated_part}{{8,10}}-{generated_part}{{5}}",
        "Job": rf"{generated_part}{{5}}",
        "StatefulSet": r"[0-9]+",
    }
    for pod in cluster.pods:
        assert re.fullmatch(rf"{re.escape(pod.app)}-{patterns[pod.owner_kind]}", pod.name), pod
    keys = [p.key for p in cluster.pods]
    assert len(keys) == len(set(keys))


@settings(max_examples=40)
@given(cluster=clusters())
def test_each_record_is_the_resource_it_says(cluster: Cluster) -> None:
    """The oracle's spans: each JSON or YAML record parses to its object, each row and block names it."""
    for shape, render in SHAPES.items():
        for result in render(cluster):
            if result.text.startswith(("{", "[")):
                json.loads(result.text)
            for record in result.records:
                text = result.record_text(record)
                if shape.startswith(("JSON", "flat")):
                    item = json.loads(text)
                    assert item.get("metadata", item)["name"] == record.subject.name
                elif shape == "multi-document YAML":
                    assert yaml.safe_load(text)["metadata"]["name"] == record.subject.name
                elif result.tool != "pods_log":
                    assert re.search(rf"(^|[\s/]){re.escape(record.subject.name)}(\s|$)", text), (shape, text)


# -- 1. Honest reports verify --------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_an_honest_finding_verifies_in_every_shape(shape: str) -> None:
    """A finding whose status, quotes and namespace are exactly what one pod's own record holds
    verifies: name, status and every quote, and the report with its healthy examples."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        pod = data.draw(st.sampled_from(cluster.pods), label="pod")
        candidates = quotes_in(shown, lambda subject: subject == pod.key)
        assume(candidates)
        spans = data.draw(
            st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True), label="quotes"
        )
        status = data.draw(st.sampled_from(honest_statuses(shape, pod)), label="status")
        healthy = healthy_examples(cluster, pod)
        written = report([finding(pod.name, pod.namespace, status, cite(shown, spans))], healthy)
        verification = checked(written, shown)
        found = verification.report.findings[0]
        assert found.name_verified, verification.problems
        assert found.status_verified, verification.problems
        assert [str(q.check) for q in found.evidence] == ["verified"] * len(spans), verification.problems
        assert verification.verified, verification.problems

    check()


@pytest.mark.parametrize("shape", OWNER_SHAPES)
def test_an_owner_s_record_is_evidence_for_its_pods(shape: str) -> None:
    """A quote from the record of a pod's own ReplicaSet, Deployment, Job or StatefulSet (its
    events, its object) verifies for the pod: a Job through its pod, a pod through its Deployment."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        pod = data.draw(st.sampled_from(cluster.pods), label="pod")
        candidates = quotes_in(shown, lambda subject: subject in pod.owners)
        assume(candidates)
        span = data.draw(st.sampled_from(candidates), label="quote")
        status = data.draw(st.sampled_from(honest_statuses(shape, pod)), label="status")
        verification = checked(report([finding(pod.name, pod.namespace, status, cite(shown, [span]))]), shown)
        found = verification.report.findings[0]
        assert [str(q.check) for q in found.evidence] == ["verified"], verification.problems
        assert verification.verified, verification.problems

    check()


# -- 2. One resource's words are not another's -----------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_one_pod_s_status_or_quote_never_verifies_for_another(shape: str) -> None:
    """Pod A's status words, or a quote from A's record that no record about B holds, attributed to
    pod B (shown with another status; possibly B of the same name in another namespace) do not
    verify; nor does a pod shown only unhealthy as a healthy example."""

    @shape_examples
    @given(cluster=clusters(), data=st.data(), way=st.sampled_from(["status", "quote", "healthy example"]))
    def check(cluster: Cluster, data: st.DataObject, way: str) -> None:
        shown = SHAPES[shape](cluster)
        a = data.draw(st.sampled_from(cluster.pods), label="A")
        others = [p for p in cluster.pods if p.state != a.state]
        assume(others)
        b = data.draw(st.sampled_from(others), label="B")
        about_b = texts_about(shown, b)
        own_quotes = quotes_in(shown, lambda subject: subject == b.key)
        if way == "healthy example":
            assume(not any(p.healthy for p in cluster.pods if p.name == b.name))
            written = report([], [b.name])
            assert b.name in (checked(written, shown).report.healthy.unverified_examples or [])
            return
        if way == "status":
            assume(own_quotes and not shows_word(about_b, a.state))
            status = data.draw(st.sampled_from(honest_statuses(shape, a)), label="A's status")
            spans = [data.draw(st.sampled_from(own_quotes), label="B's quote")]
        else:
            borrowed = [
                s
                for s in quotes_in(shown, lambda subject: subject == a.key)
                if not held_by(shown[s[0]].text[s[1] : s[2]], about_b)
            ]
            assume(borrowed)
            status = b.state
            spans = [data.draw(st.sampled_from(borrowed), label="A's quote")]
        verification = checked(report([finding(b.name, b.namespace, status, cite(shown, spans))]), shown)
        found = verification.report.findings[0]
        if way == "status":
            assert found.status_verified is not True, (status, verification.problems)
        else:
            assert str(found.evidence[0].check) != "verified", found.evidence[0]
        assert not verification.verified

    check()


@pytest.mark.parametrize("shape", OWNER_SHAPES)
def test_a_workload_that_does_not_own_a_pod_is_no_evidence_for_it(shape: str) -> None:
    """A quote from a workload whose name begins the pod's but which does not own it (Deployment
    `checkout` for the Job pod `checkout-worker-x7k2p`, `deployment/payments` for the StatefulSet pod
    `payments-db-0`, the same Deployment in another namespace), held by no record about the pod, does
    not verify for the pod."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        pod = data.draw(st.sampled_from(cluster.pods), label="pod")
        about_pod = texts_about(shown, pod)

        def lookalike_owner(subject: Key) -> bool:
            return subject.kind != "Pod" and subject not in pod.owners and pod.name.startswith(subject.name)

        candidates = [
            span
            for span in quotes_in(shown, lookalike_owner)
            if not held_by(shown[span[0]].text[span[1] : span[2]], about_pod)
        ]
        assume(candidates)
        span = data.draw(st.sampled_from(candidates), label="quote")
        verification = checked(
            report([finding(pod.name, pod.namespace, pod.state, cite(shown, [span]))]), shown
        )
        quote = verification.report.findings[0].evidence[0]
        assert str(quote.check) != "verified", quote.text

    check()


# -- 3. A quote across two records is evidence for neither -----------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_a_quote_across_two_records_verifies_for_neither(shape: str) -> None:
    """A quote that runs from the end of one item into the start of the next (table rows, describe
    blocks, JSON items, YAML documents, events) verifies for neither pod."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        spans = spanning_quotes(shown)
        assume(spans)
        span, first, second = data.draw(st.sampled_from(spans), label="quote")
        pods = []
        for subject, other in ((first, second), (second, first)):
            pod = cluster.pod(subject)
            if pod is not None and not is_about(other, pod):
                pods.append(pod)
        assume(pods)
        findings = [finding(p.name, p.namespace, p.state, cite(shown, [span])) for p in pods]
        verification = checked(report(findings), shown)
        for pod, found in zip(pods, verification.report.findings, strict=True):
            assert str(found.evidence[0].check) != "verified", (pod, found.evidence[0].text)

    check()


# -- 4. The other resources' names do not matter ---------------------------------------------------


def regenerated(data: st.DataObject, part: str) -> str:
    """A fresh generated part like `part`: as long, and all digits only if it was (YAML quotes a
    string of digits, which would move every quote after it)."""
    digits = "".join(c for c in ALPHABET if c.isdigit())
    if part.isdigit():
        return data.draw(st.text(alphabet=digits, min_size=len(part), max_size=len(part)))
    return data.draw(generated(len(part)).filter(lambda fresh: not fresh.isdigit()))


def renamed(data: st.DataObject, cluster: Cluster, keep: Pod) -> Cluster:
    """The cluster with every resource but `keep` and its owners renamed: each other workload and its
    pods get fresh names of the same lengths (every result keeps its layout, so a quote keeps its
    place), `keep`'s siblings fresh suffixes. No new name is `keep`'s, its owner's, or one of theirs
    with a part added."""
    taken = set(APP_NAMES) | set(REFERENCED_NAMES)
    apps: dict[tuple[str, str], str] = {}
    hashes: dict[tuple[str, str], str] = {}
    for workload in cluster.workloads:
        group = (workload.namespace, workload.name)
        if group == (keep.namespace, keep.app):
            apps[group], hashes[group] = keep.app, keep.template_hash
            continue
        name = "-".join(data.draw(word_like(len(part))) for part in workload.name.split("-"))
        assume(
            name not in taken and not keep.name.startswith(name + "-") and not name.startswith(keep.app + "-")
        )
        taken.add(name)
        apps[group] = name
        hashes[group] = regenerated(data, workload.template_hash)
    pods = []
    for pod in cluster.pods:
        group = (pod.namespace, pod.app)
        if pod.key == keep.key:
            pods.append(pod)
            continue
        suffix = pod.suffix if pod.owner_kind == "StatefulSet" else regenerated(data, pod.suffix)
        pods.append(replace(pod, app=apps[group], template_hash=hashes[group], suffix=suffix))
    assume(len({p.key for p in pods}) == len(pods) and [p.name for p in pods].count(keep.name) == 1)
    workloads = tuple(
        replace(w, name=apps[(w.namespace, w.name)], template_hash=hashes[(w.namespace, w.name)])
        for w in cluster.workloads
    )
    return Cluster(workloads, tuple(pods))


@pytest.mark.parametrize("shape", SHAPES)
def test_renaming_the_other_resources_never_changes_the_verdict(shape: str) -> None:
    """Whatever a finding about pod A says (true or not), renaming every other resource (valid
    names, no collision) leaves its name, status and quotes verified or not as they were."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        pod = data.draw(st.sampled_from(cluster.pods), label="A")
        status, spans = mixed_finding(data, shape, cluster, shown, pod)
        # A quote whose very words are written twice (the other resource's row word for word like
        # A's) is changed by renaming: the same report is then another report.
        assume(all(sum(r.text.count(quote["text"]) for r in shown) == 1 for quote in cite(shown, spans)))
        other = renamed(data, cluster, pod)
        shown_again = SHAPES[shape](other)
        assert [len(r.text) for r in shown_again] == [len(r.text) for r in shown]  # the layout kept
        before = checked(report([finding(pod.name, pod.namespace, status, cite(shown, spans))]), shown)
        after = checked(
            report([finding(pod.name, pod.namespace, status, cite(shown_again, spans))]), shown_again
        )
        assert not changed(marks(before)[1:2], marks(after)[1:2]), other

    check()


# -- 5. Arguments the tool does not declare say nothing ---------------------------------------------

UNDECLARED = ("name", "namespace", "kind", "pod", "resourceType")
"""Argument names a model may pass; any of the call's own may also be one its tool does not declare."""
NAMED = ("name", "pod")
KINDS = {
    "Service": "service",
    "Deployment": "deployment",
    "Job": "job",
    "Node": "node",
    "services": "service",
    "deployments": "deployment",
    "jobs": "job",
    "nodes": "node",
}
"""A kind argument's value, as a finding's kind."""


@pytest.mark.parametrize("shape", SHAPES)
def test_an_argument_the_tool_does_not_declare_changes_nothing(shape: str) -> None:
    """An argument that is not in the tool's declared parameters (a server ignores it) never makes a
    result about that name, never places a resource in that namespace, never changes kinds: the
    verification is what it is without the argument."""

    @shape_examples
    @given(cluster=clusters(), data=st.data())
    def check(cluster: Cluster, data: st.DataObject) -> None:
        shown = SHAPES[shape](cluster)
        number = data.draw(st.integers(0, len(shown) - 1), label="result")
        result = shown[number]
        key = data.draw(st.sampled_from(sorted(set(UNDECLARED) | set(result.arguments))), label="argument")
        pod = data.draw(st.sampled_from(cluster.pods), label="pod")
        phantom = f"{data.draw(st.sampled_from(REFERENCED_NAMES))}-{data.draw(generated(5))}"
        values = {
            "namespace": st.sampled_from(NAMESPACES),
            "kind": st.sampled_from([k for k in KINDS if k[0].isupper()]),
            "resourceType": st.sampled_from([k for k in KINDS if k[0].islower()]),
            **dict.fromkeys(NAMED, st.sampled_from([pod.name, phantom])),
        }
        value = data.draw(values.get(key, st.just(result.arguments.get(key, "x"))), label="value")
        parameters = tuple(p for p in result.parameters if p != key)
        without = {k: v for k, v in result.arguments.items() if k != key}
        baseline = [
            *shown[:number],
            replace(result, arguments=without, parameters=parameters),
            *shown[number + 1 :],
        ]
        variant = [
            *shown[:number],
            replace(result, arguments={**without, key: value}, parameters=parameters),
            *shown[number + 1 :],
        ]

        status, spans = mixed_finding(data, shape, cluster, shown, pod)
        findings = [finding(pod.name, pod.namespace, status, cite(shown, spans))]
        quotes = [(number, a, b) for record in result.records for a, b in fragments(result.text, record)]
        claimed = cite(shown, [data.draw(st.sampled_from(quotes), label="quote of that result")])
        if key in NAMED:  # a finding about the name the argument gives
            findings.append(finding(value, pod.namespace, pod.state, claimed))
        elif key == "namespace":  # the pod, placed in the argument's namespace
            findings.append(finding(pod.name, value, pod.state, claimed))
        elif key in ("kind", "resourceType"):  # the pod, as the kind the argument gives
            findings.append(finding(pod.name, pod.namespace, pod.state, claimed, kind=KINDS[value]))
        healthy = [value] if key in NAMED else []
        without_it = marks(checked(report(findings, healthy), baseline), kinds=False)
        with_it = marks(checked(report(findings, healthy), variant), kinds=False)
        assert not changed(without_it, with_it), f"{key}={value!r} undeclared by {result.tool}"

    check()


# -- 6. A reference is not a sighting ---------------------------------------------------------------

REFERENCE_SHAPES = ("describe", "JSON list, indented", "JSON list, one line", "multi-document YAML")
REFERENCE_KINDS = {
    "scaleTargetRef": "deployment",
    "claimRef": "pvc",
    "claimName": "pvc",
    "configMap": "other",
}


def referring(
    shape: str, tool: str, arguments: dict[str, Any], blocks: list[tuple[Key, str, dict[str, Any]]]
) -> Shown:
    """Objects in one of the reference shapes: (key, its describe block, its object)."""
    if shape == "describe":
        out = Text()
        add_blocks(out, [(key, block) for key, block, _ in blocks])
        return out.shown(tool, arguments, KUBECTL_DESCRIBE)
    items = [(key, item) for key, _, item in blocks]
    if shape == "multi-document YAML":
        return yaml_shown(tool, {**arguments, "output": "yaml"}, KUBECTL_GET, items)
    compact = shape == "JSON list, one line"
    return json_shown(
        tool,
        {**arguments, "output": "json"},
        KUBECTL_GET,
        items,
        compact=compact,
        wrapper={"apiVersion": "v1"},
    )


def referrer(reference: str, target: str, namespace: str, hpa: str) -> tuple[Key, str, dict[str, Any]]:
    """An HPA whose scaleTargetRef, or a PV whose claimRef, names `target`."""
    if reference == "scaleTargetRef":
        message = f'the HPA controller was unable to get the target\'s current scale: deployments.apps "{target}" not found'
        block = "\n".join(
            [
                f"Name:                                                  {hpa}",
                f"Namespace:                                             {namespace}",
                f"Reference:                                             Deployment/{target}",
                "Min replicas:                                          2",
                "Max replicas:                                          10",
                "Conditions:",
                "  Type         Status  Reason          Message",
                "  ----         ------  ------          -------",
                f"  AbleToScale  False   FailedGetScale  {message}",
            ]
        )
        item = {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": hpa, "namespace": namespace},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
                "minReplicas": 2,
                "maxReplicas": 10,
            },
            "status": {
                "conditions": [
                    {"type": "AbleToScale", "status": "False", "reason": "FailedGetScale", "message": message}
                ]
            },
        }
        return Key("HorizontalPodAutoscaler", namespace, hpa), block, item
    volume = f"pvc-{len(target):08x}-3c2b-4a19-8e7d-5f6a7b8c9d0e"
    block = "\n".join(
        [
            f"Name:            {volume}",
            "StorageClass:    standard",
            "Status:          Released",
            f"Claim:           {namespace}/{target}",
            "Reclaim Policy:  Retain",
            "Capacity:        10Gi",
        ]
    )
    item = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": volume},
        "spec": {
            "capacity": {"storage": "10Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": namespace, "name": target},
            "persistentVolumeReclaimPolicy": "Retain",
        },
        "status": {"phase": "Released"},
    }
    return Key("PersistentVolume", "", volume), block, item


LISTINGS = {
    "scaleTargetRef": (
        "deployments",
        ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"),
        ["2/2", "2", "2", "3d"],
    ),
    "claimRef": (
        "persistentvolumeclaims",
        ("NAME", "STATUS", "VOLUME", "CAPACITY", "AGE"),
        ["Bound", "pv-7f3e", "10Gi", "3d"],
    ),
    "claimName": (
        "persistentvolumeclaims",
        ("NAME", "STATUS", "VOLUME", "CAPACITY", "AGE"),
        ["Bound", "pv-7f3e", "10Gi", "3d"],
    ),
    "configMap": ("configmaps", ("NAME", "DATA", "AGE"), ["2", "3d"]),
    "ReplicaSet": ("replicasets", ("NAME", "DESIRED", "CURRENT", "READY", "AGE"), ["1", "1", "0", "3d"]),
    "Job": ("jobs", ("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"), ["Failed", "0/1", "9m", "3d"]),
    "StatefulSet": ("statefulsets", ("NAME", "READY", "AGE"), ["0/1", "3d"]),
}
"""A listing of the referenced object itself, by the reference (or the owner's kind): its row."""


def listing(listed: str, target: str, namespace: str) -> Shown:
    """`kubectl get KIND -n NS` showing the target as a resource of its own."""
    resource, header, cells = LISTINGS[listed]
    out = Text()
    add_table(out, header, [(Key(resource, namespace, target), [target, *cells])])
    return out.shown("kubectl_get", {"resourceType": resource, "namespace": namespace}, KUBECTL_GET)


@pytest.mark.parametrize("shape", REFERENCE_SHAPES)
def test_a_name_inside_another_object_s_reference_is_no_sighting(shape: str) -> None:
    """A name that appears only in another object's reference (an HPA's scaleTargetRef, a PV's
    claimRef, a pod's volume, a pod's ownerReferences) is not a resource a tool showed: as a healthy
    example it is unverified, as a finding's name it is not verified (nor by an HPA of that name: a
    Deployment's finding needs a Deployment); shown by a listing of its own, it is."""

    @shape_examples
    @given(
        cluster=clusters(),
        data=st.data(),
        reference=st.sampled_from([*REFERENCE_KINDS, "ownerReferences"]),
        listed=st.booleans(),
    )
    def check(cluster: Cluster, data: st.DataObject, reference: str, listed: bool) -> None:
        holder = data.draw(st.sampled_from(cluster.pods), label="pod with the reference")
        namespace = holder.namespace
        if reference == "ownerReferences":
            owner = holder.owners[0]
            target, kind, listed_as = owner.name, "job" if owner.kind == "Job" else "other", owner.kind
        else:
            target, kind, listed_as = (
                data.draw(st.sampled_from(REFERENCED_NAMES)),
                REFERENCE_KINDS[reference],
                reference,
            )
        volume = (kind, target) if reference in ("claimName", "configMap") else None
        pods = [
            (
                p.key,
                describe_pod(p, volume if p == holder else None),
                pod_object(p, volume if p == holder else None),
            )
            for p in cluster.pods
            if p.namespace == namespace
        ]
        tool = "kubectl_describe" if shape == "describe" else "kubectl_get"
        shown = [referring(shape, tool, {"resourceType": "pods", "namespace": namespace}, pods)]
        subject = holder.key
        if reference in ("scaleTargetRef", "claimRef"):
            resource = "hpa" if reference == "scaleTargetRef" else "pv"
            hpa = data.draw(st.sampled_from([target, f"{target}-hpa"]), label="HPA name")
            subject, block, item = referrer(reference, target, namespace, hpa)
            shown.append(
                referring(
                    shape, tool, {"resourceType": resource, "namespace": namespace}, [(subject, block, item)]
                )
            )
        quotes = [
            (number, a, b)
            for number, result in enumerate(shown)
            for record in result.records
            if record.subject == subject
            for a, b in fragments(result.text, record)
            if re.search(rf"(?<![\w-]){re.escape(target)}(?![\w-])", result.text[a:b])
        ]
        assume(quotes)
        quote = data.draw(st.sampled_from(quotes), label="quote")
        if listed:
            shown.append(listing(listed_as, target, namespace))
        written = report([finding(target, namespace, "NotFound", cite(shown, [quote]), kind=kind)], [target])
        verification = checked(written, shown)
        if listed:
            assert verification.report.findings[0].name_verified, verification.problems
        else:
            assert not verification.report.findings[0].name_verified, verification.problems
            if subject.name != target:  # no HPA of that name
                assert target in (verification.report.healthy.unverified_examples or []), (
                    verification.problems
                )

    check()


# -- 7. A status is the record's, word for word ------------------------------------------------------

EXTRA_WORDS = (
    "oom-killed",
    "crash-looping",
    "oomkilled",
    "crashloopbackoff",
    "evicted",
    "failed",
    "pending",
    "back-off",
    "terminated",
    "error",
    "unschedulable",
    "notready",
    "completed",
    "running",
    "OOMKilled",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "Evicted",
    "Error",
)
LOOKALIKES = {
    "a": "\u0430",
    "c": "\u0441",
    "e": "\u0435",
    "o": "\u043e",
    "p": "\u0440",
    "x": "\u0445",
    "y": "\u0443",
    "i": "\u0456",
    "A": "\u0410",
    "B": "\u0412",
    "C": "\u0421",
    "E": "\u0415",
    "K": "\u041a",
    "M": "\u041c",
    "O": "\u041e",
    "P": "\u0420",
}
"""Cyrillic letters that look like Latin ones; NFKC leaves them as they are."""


def lookalike(data: st.DataObject, word: str) -> str:
    """The word with one of its letters replaced by a Cyrillic look-alike."""
    places = [i for i, c in enumerate(word) if c in LOOKALIKES]
    at = data.draw(st.sampled_from(places), label="letter replaced")
    return word[:at] + LOOKALIKES[word[at]] + word[at + 1 :]


def fullwidth(text: str) -> str:
    """The same text in fullwidth forms (NFKC turns them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_word_of_a_status_is_the_record_s(shape: str) -> None:
    """A status claim verifies only when every word of it, after NFKC normalisation and in any case,
    is in the pod's own records: an added word the record does not show (lowercase or hyphenated:
    `oom-killed`) fails, a Cyrillic look-alike letter in the status or the name never verifies, and
    the same claim in other case or fullwidth forms verifies as the plain one does."""

    @shape_examples
    @given(
        cluster=clusters(),
        data=st.data(),
        way=st.sampled_from(
            ["added word", "look-alike in the status", "look-alike in the name", "case and width"]
        ),
    )
    def check(cluster: Cluster, data: st.DataObject, way: str) -> None:
        shown = SHAPES[shape](cluster)
        pod = data.draw(st.sampled_from(cluster.pods), label="pod")
        own = quotes_in(shown, lambda subject: subject == pod.key)
        assume(own)
        quote = cite(shown, [data.draw(st.sampled_from(own), label="quote")])
        status = data.draw(st.sampled_from(honest_statuses(shape, pod)), label="honest status")
        name = pod.name
        about = texts_about(shown, pod)
        if way == "added word":
            absent = [
                w
                for w in EXTRA_WORDS
                if not any(shows_word(about, part) for part in {w, w.replace("-", ""), *w.split("-")})
            ]
            status = f"{status}, {data.draw(st.sampled_from(absent), label='added word')}"
        elif way == "look-alike in the status":
            status = status.replace(pod.state, lookalike(data, pod.state), 1)
        elif way == "look-alike in the name":
            name = lookalike(data, name)
        else:
            status = data.draw(
                st.sampled_from([status.lower(), status.upper(), fullwidth(status)]), label="written"
            )
        verification = checked(report([finding(name, pod.namespace, status, quote)]), shown)
        found = verification.report.findings[0]
        if way == "look-alike in the name":
            assert not found.name_verified, name
        elif way == "case and width":
            assert found.status_verified, (status, verification.problems)
        else:
            assert found.status_verified is not True, status

    check()
