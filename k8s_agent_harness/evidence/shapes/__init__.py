"""The shapes a tool result comes in, each read into records by a parser of its own.

A record is one resource as the result shows it: its kind, name and namespace taken from the record
itself (a table row's columns, a describe block's header, a JSON or YAML object's `kind` and
`metadata`, an event's object), the span of text it covers, its status fields (label and value:
`STATUS CrashLoopBackOff`, `restartCount 14`) and the owners it names (`ownerReferences`). What a
parser does not read into a record is free text: it shows no resource.

- `tables`: kubectl-style tables (a header naming NAME or OBJECT; each row a record);
- `describe`: `kubectl describe` blocks (from a `Name:` line to the next);
- `documents`: JSON and YAML, each object a record (list items, documents of a `---` stream,
  events by their `involvedObject`); a reference inside another object (`ownerReferences`,
  `scaleTargetRef`, `claimRef`, volumes) is no record;
- `lines`: a node's pods as `namespace/name` lines, a log search's `namespace/pod:N:` hits;
- `naming`: the names Kubernetes' controllers generate, and so which workload a pod belongs to;
- `status`: the words of a status claim and whether a record shows a resource healthy.

`provenance` decides, from these records, what a quote is about.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Kinds as the report names them, from what tools and kubectl call them.
_KIND_ALIASES = {
    "po": "pod",
    "pod": "pod",
    "pods": "pod",
    "log": "pod",
    "logs": "pod",
    "no": "node",
    "node": "node",
    "nodes": "node",
    "deploy": "deployment",
    "deployment": "deployment",
    "deployments": "deployment",
    "job": "job",
    "jobs": "job",
    "pvc": "pvc",
    "pvcs": "pvc",
    "persistentvolumeclaim": "pvc",
    "persistentvolumeclaims": "pvc",
    "svc": "service",
    "service": "service",
    "services": "service",
    "rs": "replicaset",
    "replicaset": "replicaset",
    "replicasets": "replicaset",
    "sts": "statefulset",
    "statefulset": "statefulset",
    "statefulsets": "statefulset",
    "ds": "daemonset",
    "daemonset": "daemonset",
    "daemonsets": "daemonset",
    "cj": "cronjob",
    "cronjob": "cronjob",
    "cronjobs": "cronjob",
    "ns": "namespace",
    "namespace": "namespace",
    "namespaces": "namespace",
    "cm": "configmap",
    "configmap": "configmap",
    "configmaps": "configmap",
    "secret": "secret",
    "secrets": "secret",
    "pv": "persistentvolume",
    "persistentvolume": "persistentvolume",
    "persistentvolumes": "persistentvolume",
    "ing": "ingress",
    "ingress": "ingress",
    "ingresses": "ingress",
    "hpa": "horizontalpodautoscaler",
    "horizontalpodautoscaler": "horizontalpodautoscaler",
    "horizontalpodautoscalers": "horizontalpodautoscaler",
    "event": "event",
    "events": "event",
    "ev": "event",
    "ep": "endpoints",
    "endpoints": "endpoints",
    "endpointslice": "endpointslice",
    "endpointslices": "endpointslice",
    "netpol": "networkpolicy",
    "networkpolicy": "networkpolicy",
    "networkpolicies": "networkpolicy",
    "sc": "storageclass",
    "storageclass": "storageclass",
    "storageclasses": "storageclass",
    "quota": "resourcequota",
    "resourcequota": "resourcequota",
    "resourcequotas": "resourcequota",
    "limits": "limitrange",
    "limitrange": "limitrange",
    "limitranges": "limitrange",
    "pdb": "poddisruptionbudget",
    "poddisruptionbudget": "poddisruptionbudget",
    "poddisruptionbudgets": "poddisruptionbudget",
    "sa": "serviceaccount",
    "serviceaccount": "serviceaccount",
    "serviceaccounts": "serviceaccount",
}

STATUSLESS = frozenset(
    {
        "service",
        "endpoints",
        "endpointslice",
        "ingress",
        "networkpolicy",
        "configmap",
        "secret",
        "serviceaccount",
        "storageclass",
        "limitrange",
        "namespace",
    }
)
"""Kinds whose objects have no status of their own (what a Service routes to is its Endpoints'): a
finding's status for one is said, not checked."""

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
MAX_NAME = 253
"""The longest object name Kubernetes allows (a DNS subdomain): a longer cell names nothing."""
RESOURCE_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
"""A Kubernetes object name: lowercase ASCII letters, digits, `-` and `.`."""


def kind_of(word: str | None) -> str | None:
    """A resource kind as the report names it (`Pod`, `pods`, `po` -> `pod`), or None when unknown."""
    if not word:
        return None
    key = re.sub(r"[^a-z]", "", word.lower())
    return _KIND_ALIASES.get(key)


def is_name(text: str) -> bool:
    """Whether `text` can be a Kubernetes object's name (ASCII, as Kubernetes allows)."""
    return len(text) <= MAX_NAME and RESOURCE_NAME.fullmatch(text) is not None


def folded(text: str) -> str:
    """NFKC-normalised: what a look-alike written as a compatibility character really is."""
    return unicodedata.normalize("NFKC", text)


@dataclass(frozen=True)
class Resource:
    """A resource a tool result shows: its kind (None when the result does not say), name, namespace."""

    kind: str | None
    name: str
    namespace: str | None

    def __str__(self) -> str:
        where = f" in namespace {self.namespace}" if self.namespace else ""
        return f"{self.kind or 'resource'} {self.name}{where}"


@dataclass(frozen=True)
class Record:
    """One resource as a result shows it, over the span [start, end) of the text the parser read."""

    resource: Resource
    start: int
    end: int
    status: tuple[tuple[str, str], ...] = ()
    """Its status fields as (label, value): `("STATUS", "CrashLoopBackOff")`, `("restartCount", "14")`."""
    owners: tuple[tuple[str, str], ...] = ()
    """The (kind, name) of the controllers it names as its owners (`ownerReferences`)."""
    event: bool = False
    """An event about the resource (not the resource's own row or object): it says what happened,
    not whether the resource is healthy now."""
    template_hash: str | None = None
    """The `pod-template-hash` label it shows, when it shows one."""
    whole_object: bool = False
    """The whole object (an API object with its metadata, a describe block): it would show its
    owners had it any. A table row shows none whatever it has."""
    disputed: bool = False
    """Shown otherwise by the text of the same result (structured content that says the resource
    is unhealthy where the text the model read says healthy, or the reverse): evidence of nothing."""

    def moved(self, start: int, end: int) -> Record:
        """The same record over another span (of a normalised text)."""
        return Record(
            self.resource, start, end, self.status, self.owners, self.event, self.template_hash,
            self.whole_object, self.disputed,
        )  # fmt: skip
