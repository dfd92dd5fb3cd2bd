"""A pod's cause: the rules that settle one from a single kind of evidence, in the order an SRE checks
them (CAUSE_RULES), else the most telling event or log line mapped to the taxonomy (taxonomy.py).

    cut_off_by_its_node           a "Node is not ready" event                      node_not_ready
    evicted_by_the_kubelet        an Evicted event or status                       node_pressure, evicted
    refused_by_quota              an "exceeded quota" event of the pod or owner    quota_exceeded
    job_gave_up                   a BackoffLimitExceeded event of its Job          job_backoff_limit
    init_container_failed         an `Init:` status                                init_container_failure
    killed_for_memory             a container terminated OOMKilled                 oom_killed
    killed_by_its_liveness_probe  liveness failures, restarts, no crash of its own liveness_probe_failure
    waits_on_a_broken_dependency  not ready, its logs fail on an unhealthy pod     dependency_down

Otherwise the most telling line: a crash's deciding log line (logs.py) beats the kubelet's back-off;
a scheduler, pull, mount or probe Warning beats a log line of a pod that does not crash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8s_agent_scripted_llm.playbook.conversation import Conversation, listing_row
from k8s_agent_scripted_llm.playbook.dependencies import waits_on_a_broken_dependency
from k8s_agent_scripted_llm.playbook.evidence import CauseRule, PodEvidence
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.init_containers import init_container_failed
from k8s_agent_scripted_llm.playbook.logs import ERRORISH, first_error, log_text, read_logs
from k8s_agent_scripted_llm.playbook.nodes import cut_off_by_its_node, evicted_by_the_kubelet
from k8s_agent_scripted_llm.playbook.tables import CRASHING, WARNING_PRIORITY, Container, Event, Pod
from k8s_agent_scripted_llm.playbook.taxonomy import cause_and_fix

_QUOTA = re.compile(r"(?i)\bexceeded quota\b")

LIVENESS = re.compile(r"(?i)\bliveness probe failed\b")

_OOM_STATE = (
    re.compile(r"Last State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
    re.compile(r"State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
)

_MEMORY_WORDS = re.compile(
    r"(?i)\bmem(?:ory)?\b|\bheap\b|\bbuffer\w*|\bspool\w*|\bcache[ds]?\b|\bqueue[ds]?\b|\bbacklog\b"
    r"|\bkeeping\b|\bretain\w*|\baccumulat\w*|\bgrow\w*|\ballocat\w*"
    r"|\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|[KMGT]i)\b|(?<![:.\w])\d{4,}(?![\w.:])"
)
"""Words of a log line about what fills memory: a buffer, a spool, a cache, a size, a count in thousands."""
_TIMESTAMP = re.compile(
    r"\d{4}[-/]\d\d[-/]\d\d[T ]?[\d:.,]*Z?|\d{1,2} [A-Z][a-z]{2} \d{4}|\d\d:\d\d:\d\d(?:[.,]\d+)?|\b\d+:[A-Z]\b"
)
MEMORY_LINES = 3
"""How many of a killed container's lines about its memory the report quotes."""


def diagnose(chat: Conversation, pod: Pod, broken: Sequence[Pod] = ()) -> Finding:
    """Pick the evidence line for a pod and match it to a cause and a fix.

    `broken` are the unhealthy pods of the listing: a pod that cannot reach one of them is
    down because of it (dependency_down).
    """
    finding = Finding(pod)
    description = chat.latest("describe_pod", pod.name)
    described = description if description and not description.startswith("Tool call failed") else ""
    if description and not described:
        finding.notes.append(f"describe_pod failed: {description}")
        finding.unchecked.append(f"{pod.name}: describe_pod failed: {description}")
    logs = read_logs(chat, finding)
    if not pod.node:
        on = re.search(r"^Node:\s+([^\s/]+)", described, re.M)
        pod.node = on[1] if on and on[1] not in ("<none>", "<unknown>") else ""
    evidence = PodEvidence(chat, pod, described, logs, broken)
    if not any(rule(evidence, finding) for rule in CAUSE_RULES):
        most_telling_line(evidence, finding)
    return finding


def most_telling_line(evidence: PodEvidence, finding: Finding) -> None:
    """When no rule settles it: the most telling line of the pod's Warning events and its crash's
    logs, mapped to the taxonomy; the logs' first error, or their deciding line, quoted beside it."""
    chat, pod, logs = evidence.chat, evidence.pod, evidence.logs
    candidates: list[tuple[int, str, str]] = []  # (rank, source, line); lower rank wins
    warnings = [event for event in evidence.timeline if event.kind == "Warning"]
    recent = sorted(range(len(warnings)), key=lambda i: (warnings[i].age is None, warnings[i].age or 0, i))
    for order, index in enumerate(recent):
        event = warnings[index]
        reason, message = event.reason, event.message
        priority = WARNING_PRIORITY.index(reason) if reason in WARNING_PRIORITY else len(WARNING_PRIORITY)
        if reason == "Failed" and message.startswith("Error: "):
            priority += 5  # "Error: ErrImagePull" says less than "Failed to pull image ...: manifest unknown"
        if is_history(event, evidence):
            priority += 100
        candidates.append((10 + priority * 10 + min(order, 9), "describe_pod", message))
    if logs.telling:
        # A crash's own words beat the kubelet's back-off notice; a probe failure is best told by its event.
        rank = 5 if CRASHING.search(pod.status) or pod.restarts else 60
        candidates.append((rank, "get_pod_logs", logs.telling))
    if not candidates:
        cite(chat, finding, "list_pods", listing_row(chat, pod))
    else:
        _, source, line = min(candidates)
        cite(chat, finding, source, line, logs.crash_id if source == "get_pod_logs" else None)
    finding.category, finding.cause, finding.fix = cause_and_fix(pod, finding.evidence, evidence.described)
    if finding.source == "get_pod_logs":
        first_error(finding, logs)
    elif finding.source == "describe_pod" and logs.telling and ERRORISH.search(logs.telling):
        hint = logs.telling
        finding.also(hint, "get_pod_logs", logs.crash_id, f"the logs (get_pod_logs) say: {hint}")


_SUCCEEDED_AFTER = {"FailedAttachVolume": "SuccessfulAttachVolume", "FailedMount": "SuccessfulMountVolume"}


def is_history(event: Event, evidence: PodEvidence) -> bool:
    """Rule: a Warning whose trouble has passed is history, not the cause: a scheduling failure of a
    pod that has a node since; a volume's attach or mount failure once a later event says it
    attached or mounted, or once the pod's containers have started; a sandbox failure once they
    have started. Among Warnings of one kind, the most recent tells the pod's state now."""
    if event.reason == "FailedScheduling":
        return bool(evidence.pod.node)
    if event.reason in _SUCCEEDED_AFTER:
        done = _SUCCEEDED_AFTER[event.reason]
        later = any(
            other.reason == done and (other.age is None or event.age is None or other.age <= event.age)
            for other in evidence.timeline
        )
        return later or evidence.started
    return event.reason == "FailedCreatePodSandBox" and evidence.started


def refused_by_quota(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a pod (or its ReplicaSet or Job) refused for exceeding the namespace's
    ResourceQuota is quota_exceeded, quoted from that event."""
    chat, pod = evidence.chat, evidence.pod
    quota = evidence.warning(_QUOTA)
    owner_quota = None if quota else _owner_event(chat, pod, _QUOTA)
    if quota:
        cite(chat, finding, "describe_pod", quota)
    elif owner_quota:
        cite(chat, finding, "get_events", *owner_quota)
    else:
        return False
    name = re.search(r"exceeded quota: ([\w.-]+)", finding.evidence)
    finding.category = "quota_exceeded"
    finding.cause = f"the namespace's ResourceQuota{' ' + name[1] if name else ''} refuses the pod's requests"
    finding.fix = "raise the quota, lower the pod's requests, or free quota by scaling down other workloads"
    return True


def job_gave_up(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a pod of a Job whose events say BackoffLimitExceeded is job_backoff_limit, quoted
    from the Job's event, with the pod's own last words beside it."""
    job = _owner_event(evidence.chat, evidence.pod, re.compile(r"\bBackoffLimitExceeded\b"))
    if not job:
        return False
    cite(evidence.chat, finding, "get_events", *job)
    owner = re.search(r"\bjob/(\S+)", job[0], re.I)
    finding.category = "job_backoff_limit"
    finding.cause = (
        f"the Job{' ' + owner[1] if owner else ''} gave up: its pods failed as many times as its backoffLimit "
        "allows"
    )
    finding.fix = "fix the error its pods' logs show, then run the Job again (or wait for its next schedule)"
    telling = evidence.logs.telling
    if telling:  # the pod failed: its last words say why
        finding.also(
            telling, "get_pod_logs", evidence.logs.crash_id, f"the logs (get_pod_logs) say: {telling}"
        )
    return True


def killed_for_memory(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a container terminated OOMKilled (now or last time) makes the pod oom_killed,
    whichever container it is: quoted from describe_pod, and from the killed container's own log
    (its killed instance's, read by name) the lines about what filled its memory, so a sidecar's
    OOM is told by the sidecar's evidence, not the app container's."""
    oom = next((found for pattern in _OOM_STATE if (found := pattern.search(evidence.described))), None)
    if oom is None:
        return False
    chat = evidence.chat
    cite(chat, finding, "describe_pod", " ".join(oom[0].split()))
    killed = next((container for container in evidence.containers if container.oom_killed), None)
    finding.category = "oom_killed"
    if killed is None or len(evidence.containers) < 2:
        found = re.search(r"Limits:.*memory=(\S+)", evidence.described)
        current = f" (now {found[1]})" if found else ""
        finding.cause = "the container exceeds its memory limit and is killed (OOMKilled)"
        finding.fix = (
            f"raise the container's memory limit{current} or reduce its memory use, then roll it out again"
        )
    else:
        others = [container.name for container in evidence.containers if container is not killed]
        limit = f" of {killed.memory_limit}" if killed.memory_limit else ""
        finding.cause = (
            f"its container {killed.name} exceeds its memory limit{limit} and is killed (OOMKilled); "
            f"{', '.join(others)} {'is' if len(others) == 1 else 'are'} not the one killed"
        )
        finding.fix = (
            f"stop what fills {killed.name}'s memory (its log below), or raise {killed.name}'s memory limit"
            f"{limit and f' (now {killed.memory_limit})'}; the other containers' limits change nothing"
        )
    if killed is not None:
        for line, call_id in what_filled_memory(evidence, killed):
            finding.also(line, "get_pod_logs", call_id, f"{killed.name}'s log (get_pod_logs): {line}")
    telling = evidence.logs.telling  # the pod's default read: the killed container's when it is the first
    first = killed is None or not evidence.containers or killed is evidence.containers[0]
    if first and telling and ERRORISH.search(telling):
        finding.also(
            telling, "get_pod_logs", evidence.logs.crash_id, f"the logs (get_pod_logs) say: {telling}"
        )
    return True


def what_filled_memory(evidence: PodEvidence, killed: Container) -> list[tuple[str, str | None]]:
    """The killed container's log lines (its previous instance's when it restarted, else its
    current ones) about what fills its memory: the last MEMORY_LINES of them, else its last line."""
    for previous in (True, False):
        log, call_id = evidence.container_logs(killed, previous)
        lines = [line.strip() for line in log.splitlines() if line.strip()]
        if not lines:
            continue
        about = [line for line in lines if _MEMORY_WORDS.search(_TIMESTAMP.sub(" ", log_text(line)))]
        return [(line, call_id) for line in (about[-MEMORY_LINES:] or lines[-1:])]
    return []


def killed_by_its_liveness_probe(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a restarting pod with "Liveness probe failed" events whose logs show no crash of
    their own is liveness_probe_failure, quoted from the probe's event and the kill."""
    pod, logs = evidence.pod, evidence.logs
    liveness = evidence.warning(LIVENESS)
    restarting = pod.restarts > 0 or bool(CRASHING.search(pod.status))
    if not liveness or not restarting or logs.crashes_by_itself:
        return False
    cite(evidence.chat, finding, "describe_pod", liveness)
    finding.category = "liveness_probe_failure"
    finding.cause = (
        "the container fails its liveness probe and is restarted by the kubelet; its logs show no crash of "
        "its own"
    )
    finding.fix = "find why the health endpoint stalls (or is slow), or give the probe a realistic timeout"
    killed = next((m for _, _, m in evidence.events if re.search(r"(?i)failed liveness probe", m)), None)
    if killed:
        finding.also(killed, "describe_pod", finding.call_id)
    telling = logs.telling
    if telling and ERRORISH.search(telling):
        finding.also(telling, "get_pod_logs", logs.crash_id, f"the logs (get_pod_logs) say: {telling}")
    return True


CAUSE_RULES: tuple[CauseRule, ...] = (
    cut_off_by_its_node,
    evicted_by_the_kubelet,
    refused_by_quota,
    job_gave_up,
    init_container_failed,
    killed_for_memory,
    killed_by_its_liveness_probe,
    waits_on_a_broken_dependency,
)
"""The rules that settle a cause from one kind of evidence, in the order an SRE checks them."""


def _owner_event(chat: Conversation, pod: Pod, wanted: re.Pattern[str]) -> tuple[str, str | None] | None:
    """A get_events line about the pod's owner (job/NAME or replicaset/NAME, NAME its name without
    its last part) that matches `wanted`, with its call id."""
    owner = pod.name.rsplit("-", 1)[0]
    if owner == pod.name:
        return None
    objects = {f"job/{owner}", f"replicaset/{owner}"}
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if tool != "get_events" or content.startswith("Tool call failed"):
            continue
        namespace = arguments.get("namespace")
        if namespace not in (None, "", pod.namespace):
            continue
        for line in content.splitlines():
            cells = line.split()
            if not any(cell.lower() in objects for cell in cells) or not wanted.search(line):
                continue
            if not namespace and pod.namespace and cells[:1] != [pod.namespace]:
                continue
            return line.strip(), chat.id_of(index)
    return None
