"""The names Kubernetes' controllers generate, and so which controller a pod's name says it belongs to.

- A ReplicaSet of a Deployment is `<deployment>-<pod-template-hash>`; the hash is the template's
  hash written in Kubernetes' "safe" alphabet (no vowels, no `0`, `1`, `3`: no words, nothing
  confusable), up to ten characters.
- A pod of a ReplicaSet, a Job or a DaemonSet is `<owner>-<5 characters of that alphabet>`
  (`generateName`).
- A pod of a StatefulSet is `<statefulset>-<ordinal>`.
- A Job of a CronJob is `<cronjob>-<scheduled time in minutes>`.

No cut of name parts: `checkout-worker-x7k2p` is no pod of Deployment `checkout` (`worker` is no
hash), `payments-db-0` no pod of anything called `payments`. Where a result shows a pod's owners
(`ownerReferences`) or its `pod-template-hash` label, those say it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""The characters Kubernetes generates names from (k8s.io/apimachinery `util/rand`)."""
_SAFE = f"[{SAFE_ALPHABET}]"
_RANDOM_SUFFIX = re.compile(rf"(.+)-{_SAFE}{{5}}")
_TEMPLATE_HASH = re.compile(rf"(.+)-{_SAFE}{{6,10}}")
_ORDINAL = re.compile(r"(.+)-(?:0|[1-9][0-9]*)")
_SCHEDULED = re.compile(r"(.+)-[0-9]{8,10}")

OWNER_KINDS = frozenset({"replicaset", "deployment", "job", "statefulset", "daemonset", "cronjob"})
"""The controllers whose names a pod's name is made from."""
WORKLOAD_KINDS = frozenset({"deployment", "job", "other"})
"""Finding kinds that may name a workload through the pods the tools showed (`other`: a StatefulSet
or a DaemonSet; a Deployment and a Job have finding kinds of their own, and a ReplicaSet or a CronJob
is no workload a report names by its pods)."""
_OTHER_WORKLOADS = frozenset({"statefulset", "daemonset"})


def owns(owner_kind: str, finding_kind: str) -> bool:
    """Whether a controller of this kind is what a workload finding of this kind names (`other`: a
    StatefulSet, a DaemonSet, or a controller of a kind Kubernetes itself has none of, an Argo
    Rollout's)."""
    if finding_kind == "other":
        return owner_kind in _OTHER_WORKLOADS or owner_kind not in OWNER_KINDS
    return owner_kind == finding_kind


def owners(
    pod: str, shown: Sequence[tuple[str, str]] = (), template_hash: str | None = None
) -> list[tuple[str, str]]:
    """The (kind, name) of the controllers a pod of this name belongs to, nearest first: what the
    result shows (`ownerReferences`, then a Deployment by its `pod-template-hash` label), else what
    the name's generated parts say it may be."""
    found: dict[tuple[str, str], None] = {}
    for kind, name in shown:
        found[(kind, name)] = None
        if kind == "replicaset" and template_hash and name.endswith(f"-{template_hash}"):
            found[("deployment", name[: -len(template_hash) - 1])] = None
        elif (
            kind == "replicaset" and pod.startswith(f"{name}-") and (hashed := _TEMPLATE_HASH.fullmatch(name))
        ):
            found[("deployment", hashed[1])] = (
                None  # `Controlled By: ReplicaSet/web-7d9f8c6b5`, no label shown
            )
        if kind == "job" and (scheduled := _SCHEDULED.fullmatch(name)):
            found[("cronjob", scheduled[1])] = None
    if shown:
        return list(found)
    if template_hash and f"-{template_hash}-" in pod:
        replicaset = pod[: pod.rindex(f"-{template_hash}-") + len(template_hash) + 1]
        return [("replicaset", replicaset), ("deployment", replicaset[: -len(template_hash) - 1])]
    if generated := _RANDOM_SUFFIX.fullmatch(pod):
        owner = generated[1]
        found[("replicaset", owner)] = None
        if hashed := _TEMPLATE_HASH.fullmatch(owner):
            found[("deployment", hashed[1])] = None
        found[("job", owner)] = None
        if scheduled := _SCHEDULED.fullmatch(owner):
            found[("cronjob", scheduled[1])] = None
        found[("daemonset", owner)] = None
    if ordinal := _ORDINAL.fullmatch(pod):
        found[("statefulset", ordinal[1])] = None
    return list(found)


def controllers_of(kind: str, name: str) -> list[tuple[str, str]]:
    """The (kind, name) of the controller a controller of this name belongs to, by the name it was
    generated with: a ReplicaSet `<deployment>-<template hash>`'s Deployment, a Job
    `<cronjob>-<scheduled minute>`'s CronJob."""
    if kind == "replicaset" and (hashed := _TEMPLATE_HASH.fullmatch(name)):
        return [("deployment", hashed[1])]
    if kind == "job" and (scheduled := _SCHEDULED.fullmatch(name)):
        return [("cronjob", scheduled[1])]
    return []


def pod_of(pod: str, workload: str, kind: str) -> bool:
    """Whether a pod of this name is a pod of the workload of this finding kind (`deployment`,
    `job`, or `other`: any controller) by the names its controllers generate."""
    if kind not in WORKLOAD_KINDS or not workload:
        return False
    return any(name == workload and owns(owner_kind, kind) for owner_kind, name in owners(pod))


LONG_RUNNING = frozenset({"replicaset", "deployment", "statefulset", "daemonset"})
"""Controllers whose pods run until replaced: one of their pods that finished is not healthy."""


def long_running(pod: str, shown: Sequence[tuple[str, str]] = (), template_hash: str | None = None) -> bool:
    """Whether the pod is a pod that should keep running: its owners say so (`ownerReferences`), or,
    shown none, its name is a Deployment's pod's (`<deployment>-<template hash>-<5 characters>`)."""
    if shown:
        return any(kind in LONG_RUNNING for kind, _ in shown)
    if template_hash:
        return f"-{template_hash}-" in pod
    generated = _RANDOM_SUFFIX.fullmatch(pod)
    # A CronJob's Job is `<cronjob>-<minutes>`: digits that may all be of the alphabet, no template hash.
    return bool(
        generated and _TEMPLATE_HASH.fullmatch(generated[1]) and not _SCHEDULED.fullmatch(generated[1])
    )


def generated_name(name: str) -> bool:
    """Whether a name is one a controller generated for a pod (`<owner>-<5 characters of the alphabet>`)."""
    return _RANDOM_SUFFIX.fullmatch(name) is not None
