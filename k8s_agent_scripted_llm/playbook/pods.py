"""Whether a pod the listing shows is unhealthy: a pod starting up, a Job attempt retried to
completion, a Running pod that restarted or that the question names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8s_agent_scripted_llm.playbook.conversation import Conversation
from k8s_agent_scripted_llm.playbook.evidence import PodEvidence
from k8s_agent_scripted_llm.playbook.init_containers import STARTING_GRACE_SECONDS, still_initialising
from k8s_agent_scripted_llm.playbook.logs import Logs
from k8s_agent_scripted_llm.playbook.tables import Pod, age_seconds, warning_events

FAILED_AND_STOPPED = frozenset({"Error", "Failed", "BackoffLimitExceeded", "DeadlineExceeded"})
"""Statuses of a pod that failed and is not restarted: a Job's pod, whose Job's events say more."""

NODE_LOST = frozenset({"Unknown", "NodeLost", "Terminating"})
"""Statuses a pod shows when its node stopped reporting."""

MAX_SUSPECTS = 5
"""Pods that look healthy in the listing and are described all the same (see _suspects)."""

_STARTING = re.compile(r"^(?:ContainerCreating|PodInitializing|Init:\d+/\d+)$")
"""Statuses of a pod on its way up: not a failure while it is young and no Warning event says otherwise."""

_YOUNG = re.compile(r"^\d+s$")

_TROUBLE = frozenset({"BackOff", "Unhealthy", "OOMKilling", "Failed", "Killing", "Evicted", "FailedMount"})
"""Warning reasons that make a Running, ready pod with restarts unhealthy now (events expire: these are recent)."""


def suspect_pods(chat: Conversation, pods: Sequence[Pod]) -> list[Pod]:
    """Pods that look healthy in STATUS but are judged from describe_pod (and logs) all the same: a
    Running pod that restarted, and the pods of a workload the question names."""
    found = [
        pod
        for pod in pods
        if not pod.unhealthy and pod.status == "Running" and (pod.restarts > 0 or pod.name in chat.focus)
    ]
    return found[:MAX_SUSPECTS]


def judged_unhealthy(
    chat: Conversation, pods: Sequence[Pod], suspects: Sequence[Pod], *, note: bool = True
) -> list[Pod]:
    """The unhealthy pods, judged from what describe_pod shows when it was read: a pod starting up
    with no Warning event is not (it is said, unless `note` is False), a suspect with a recent
    Warning event of trouble is."""
    if not note:
        said = (list(chat.scope_notes), list(chat.healthy_notes))
        found = judged_unhealthy(chat, pods, suspects)
        chat.scope_notes[:], chat.healthy_notes[:] = said
        return found
    unhealthy = []
    for pod in pods:
        description = chat.latest("describe_pod", pod.name) or ""
        described = "" if description.startswith("Tool call failed") else description
        warnings = warning_events(described)
        if pod in suspects:
            if described and any(reason in _TROUBLE for reason, _ in warnings):
                unhealthy.append(pod)
            elif described:
                chat.healthy_notes.append(
                    f"{pod.name}: {pod.status}, READY {pod.ready}"
                    + (f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else "")
                    + ", and describe_pod shows no Warning event: healthy now"
                )
            continue
        if not pod.unhealthy:
            continue
        retry = _completed_retry(pod, pods)
        if retry is not None:
            chat.scope_notes.append(
                f"{pod.name} ({pod.status}) is an attempt of a Job whose later attempt {retry.name} is "
                "Completed: the Job retried it and succeeded; not counted as unhealthy."
            )
            continue
        if described and is_starting(chat, pod, described):
            chat.scope_notes.append(
                f"{pod.name} is starting ({pod.status}, age {pod.age or 'unknown'}) and describe_pod shows no "
                "Warning event: not counted as unhealthy; check it again if it stays so."
            )
            continue
        unhealthy.append(pod)
    return unhealthy


def is_starting(chat: Conversation, pod: Pod, described: str) -> bool:
    """Rule: a pod on its way up with no Warning event is starting, not unhealthy: one creating its
    containers or in Init while it is younger than STARTING_GRACE_SECONDS (in Init, only while its
    running init container's log does not loop on a failure: still_initialising), one Pending or
    Running and not ready yet while it is seconds old."""
    if warning_events(described):
        return False
    if pod.status.startswith("Init:"):
        return bool(_STARTING.match(pod.status)) and still_initialising(
            pod, PodEvidence(chat, pod, described, Logs())
        )
    if _STARTING.match(pod.status):
        age = age_seconds(pod.age)
        return age is None or age < STARTING_GRACE_SECONDS
    return pod.status in ("Pending", "Running") and bool(_YOUNG.match(pod.age))


_JOB_POD = re.compile(r"^(.+)-[a-z0-9]{5}$")
"""A Job's pod: the Job's name and a generated suffix."""


def _job_of(name: str) -> str | None:
    match = _JOB_POD.match(name)
    return match.group(1) if match else None


def _completed_retry(pod: Pod, pods: Sequence[Pod]) -> Pod | None:
    """For a Job's pod that failed and stopped, another pod of the same Job that Completed (the Job
    retried the attempt and succeeded), if the listing shows one."""
    job = _job_of(pod.name)
    if pod.status not in FAILED_AND_STOPPED or job is None:
        return None
    return next(
        (
            other
            for other in pods
            if other.name != pod.name
            and other.namespace == pod.namespace
            and other.status == "Completed"
            and _job_of(other.name) == job
        ),
        None,
    )
