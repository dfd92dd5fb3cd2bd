"""Init containers: which one holds a pod in Init, why, and when a pod in Init is still starting.

Init containers run one after the other, each to completion, before the app containers start. The
playbook reads every one that ran, in order and by name: a later one can fail after an earlier one
succeeded, and the earlier one's log may hold error lines of its own (a retried attempt) that are
not the cause. A pod in Init with no Warning event is starting only while it is young and its init
container's log shows no loop on a failure: tens of minutes of "name does not resolve, retrying" is
not a start.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from k8s_agent_scripted_llm.playbook.conversation import listing_row
from k8s_agent_scripted_llm.playbook.dependencies import UNRESOLVED
from k8s_agent_scripted_llm.playbook.evidence import PodEvidence
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.logs import deciding_line, first_error_line, signature
from k8s_agent_scripted_llm.playbook.tables import Container, Pod, age_seconds, warning_priority

STARTING_GRACE_SECONDS = 10 * 60
"""How long a pod may take to start (its init containers running) before it is no longer starting."""

_DNS_NAME = re.compile(r"\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+\b")
"""A dotted host name: of the lines saying a name does not resolve, the one that says which name."""

_RETRY_LOOP_REPEATS = 3
"""A line said this many times (its numbers and times aside) is a loop, not a start."""


def init_containers(containers: Sequence[Container]) -> list[Container]:
    """The pod's init containers, in the order they run."""
    return [container for container in containers if container.init]


def failing_init_container(containers: Sequence[Container]) -> Container | None:
    """Rule: the init container that holds the pod is the first one that has not completed (the ones
    before it succeeded; the ones after it have not run)."""
    return next((container for container in init_containers(containers) if not container.completed), None)


def init_log_reads(containers: Sequence[Container]) -> list[tuple[str, bool]]:
    """Rule: every init container that ran is read by name, in order, and the previous instance of
    one that restarted: (container, previous) of each read."""
    reads: list[tuple[str, bool]] = []
    for container in init_containers(containers):
        if container.ran:
            reads.append((container.name, False))
        if container.restarted and not container.completed:
            reads.append((container.name, True))
    return reads


def loops_on_a_failure(log: str) -> str | None:
    """Rule: a log that says a name does not resolve, or says the same thing again and again (its
    times and numbers aside), loops on a failure: the line that says so (the last of them, one that
    names the host first), or None."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    unresolved = [line for line in lines if UNRESOLVED.search(line)]
    if unresolved:
        named = [line for line in unresolved if _DNS_NAME.search(line)]
        return (named or unresolved)[-1]
    repeated = {sig for sig, count in Counter(map(signature, lines)).items() if count >= _RETRY_LOOP_REPEATS}
    looping = [line for line in lines if signature(line) in repeated]
    return looping[-1] if looping else None


def still_initialising(pod: Pod, evidence: PodEvidence) -> bool:
    """Rule: a pod in Init with no Warning event is still starting only while it is younger than
    STARTING_GRACE_SECONDS (an unknown age counts as young) and its running init container's log
    does not loop on a failure."""
    age = age_seconds(pod.age)
    if evidence.warnings or (age is not None and age >= STARTING_GRACE_SECONDS):
        return False
    holding = failing_init_container(evidence.containers)
    if holding is None:
        return True
    log, _ = evidence.container_logs(holding)
    return loops_on_a_failure(log) is None


def init_container_failed(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a pod held in Init is init_container_failure, told by the failing init container's
    own log (the line its loop repeats, else its deciding line; its previous instance's when the
    current one has none), else its Warning event, else describe_pod's state of it; the init
    containers that completed before it are named, not quoted."""
    pod = finding.pod
    if not pod.status.startswith("Init:"):
        return False
    holding = failing_init_container(evidence.containers)
    name = holding.name if holding else _container_in_warnings(evidence)
    line, log, call_id = _init_log(evidence, holding)
    if line:
        cite(evidence.chat, finding, "get_pod_logs", line, call_id)
        _quote_around(finding, log, line, call_id, evidence, holding)
    elif evidence.warnings:
        cite(evidence.chat, finding, "describe_pod", min(evidence.warnings, key=warning_priority)[1])
    else:
        cite(evidence.chat, finding, "list_pods", listing_row(evidence.chat, pod))
    done = [c.name for c in init_containers(evidence.containers) if c.completed]
    before = f" after {', '.join(done)} completed" if done else ""
    which = f"the init container {name}" if name else "an init container"
    how = "loops on a failure" if holding and holding.state == "Running" else "fails"
    finding.category = "init_container_failure"
    finding.cause = f"{which} {how}{before}, so the pod's app containers never start"
    finding.fix = f"fix what {which}'s log shows; the pod starts once it completes"
    return True


def _init_log(evidence: PodEvidence, holding: Container | None) -> tuple[str, str, str | None]:
    """(the deciding line, the log it is from, that read's call id) of the init container holding
    the pod: its current instance's log, else its previous one's; the line its loop repeats when it
    runs. Without the containers (describe_pod not read), the pod's own crash log."""
    if holding is None:
        return evidence.logs.telling, evidence.logs.crash, evidence.logs.crash_id
    for previous in (False, True):
        log, call_id = evidence.container_logs(holding, previous)
        if log:
            line = loops_on_a_failure(log) if holding.state == "Running" else None
            return line or deciding_line(log, evidence.logs.noise), log, call_id
    return "", "", None


def _quote_around(
    finding: Finding,
    log: str,
    line: str,
    call_id: str | None,
    evidence: PodEvidence,
    holding: Container | None,
) -> None:
    """Beside the deciding line, the log's first error and, of an init container that exited and was
    restarted, its last words."""
    first = first_error_line(log, evidence.logs.noise)
    if first and first != line:
        finding.also(first, "get_pod_logs", call_id, f"the first error in its log: {first}")
    last = last_words(log) if holding and holding.restarted else ""
    if last and last != line:
        finding.also(last, "get_pod_logs", call_id, f"the last line it wrote before it exited: {last}")


def last_words(log: str) -> str:
    """Rule: an init container is most often a script, and the last line it wrote before it exited
    with an error says why; quoted beside the deciding line."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _container_in_warnings(evidence: PodEvidence) -> str | None:
    return next(
        (m[1] for _, message in evidence.warnings if (m := re.search(r"failed container (\S+)", message))),
        None,
    )
