"""How a pod's cause is read, in this order (each from a line the report quotes verbatim):
a "Node is not ready" event (node_not_ready); an Evicted event or status (node_pressure when the
node was low on a resource, else evicted); an "exceeded quota" event of the pod or its owner
(quota_exceeded); a BackoffLimitExceeded event of the pod's Job in get_events (job_backoff_limit);
an `Init:` status (init_container_failure); a container terminated OOMKilled, now or last time
(oom_killed); restarts with "Liveness probe failed" events and logs that show no crash of their
own (liveness_probe_failure); a Running pod that fails its readiness probe while its logs show a
connection error to a workload that is itself unhealthy in the listing, named by host, by words
or by a port its probes use (dependency_down, the dependency keeping its own cause); else the
most telling event or log line (scheduling, image pulls, missing config references, probes, and
for a crash its logs' last configuration error, a bad flag, file or setting, as crash_config, or
their last error as crash_application, quoted with their first error when that differs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8s_agent_scripted_llm.playbook.conversation import Conversation, listing_row
from k8s_agent_scripted_llm.playbook.dependencies import broken_dependency_in
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.logs import ERRORISH, Logs, first_error, read_logs
from k8s_agent_scripted_llm.playbook.questions import workload_of
from k8s_agent_scripted_llm.playbook.tables import CRASHING, Pod, describe_events, warning_events
from k8s_agent_scripted_llm.playbook.taxonomy import cause_and_fix

_WARNING_PRIORITY = (
    "FailedScheduling",
    "Failed",
    "FailedMount",
    "FailedAttachVolume",
    "Unhealthy",
    "FailedCreatePodSandBox",
    "Evicted",
    "OOMKilling",
    "FailedCreate",
    "BackOff",
)

_NODE_LOW = re.compile(r"(?i)\bthe node was low on resource: ([\w-]+)")

_QUOTA = re.compile(r"(?i)\bexceeded quota\b")

LIVENESS = re.compile(r"(?i)\bliveness probe failed\b")

_READINESS = re.compile(r"(?i)\breadiness probe failed\b")

_OOM_STATE = (
    re.compile(r"Last State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
    re.compile(r"State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
)


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
    if settled_by_one_line(chat, finding, described, logs, broken):
        return finding
    candidates: list[tuple[int, str, str]] = []  # (rank, source, line); lower rank wins
    if described:
        oom = next((match for pattern in _OOM_STATE if (match := pattern.search(described))), None)
        if oom:
            candidates.append((0, "describe_pod", " ".join(oom[0].split())))
        for rank, (reason, message) in enumerate(warning_events(described), start=10):
            priority = (
                _WARNING_PRIORITY.index(reason) if reason in _WARNING_PRIORITY else len(_WARNING_PRIORITY)
            )
            if reason == "Failed" and message.startswith("Error: "):
                priority += (
                    5  # "Error: ErrImagePull" says less than "Failed to pull image ...: manifest unknown"
                )
            candidates.append((10 + priority * 10 + rank % 10, "describe_pod", message))
    if logs.telling:
        # A crash's own words beat the kubelet's back-off notice; a probe failure is best told by its event.
        rank = 5 if CRASHING.search(pod.status) or pod.restarts else 60
        candidates.append((rank, "get_pod_logs", logs.telling))
    if not candidates:
        cite(chat, finding, "list_pods", listing_row(chat, pod))
    else:
        _, source, line = min(candidates)
        cite(chat, finding, source, line, logs.crash_id if source == "get_pod_logs" else None)
    finding.category, finding.cause, finding.fix = cause_and_fix(pod, finding.evidence, described, logs.crash)
    if finding.source == "get_pod_logs":
        first_error(finding, logs)
    elif finding.source == "describe_pod" and logs.telling and ERRORISH.search(logs.telling):
        hint = logs.telling
        finding.also(hint, "get_pod_logs", logs.crash_id, f"the logs (get_pod_logs) say: {hint}")
    return finding


def settled_by_one_line(
    chat: Conversation, finding: Finding, described: str, logs: Logs, broken: Sequence[Pod]
) -> bool:
    """The causes one line settles, in the order an SRE checks them (see the module's docstring).
    Fills the finding and says True when one applies."""
    pod = finding.pod
    events = describe_events(described)
    warnings = [(reason, message) for kind, reason, message in events if kind == "Warning"]
    logs_id, telling = logs.crash_id, logs.telling
    crash_note = f"the logs (get_pod_logs) say: {telling}"
    node = f" {pod.node}" if pod.node else ""

    lost = next(
        (m for r, m in warnings if r == "NodeNotReady" or m.lower().startswith("node is not ready")), None
    )
    if lost:
        cite(chat, finding, "describe_pod", lost)
        finding.category = "node_not_ready"
        finding.cause = f"the pod's node{node} is not ready: the node controller marks its pods not ready"
        finding.fix = "recover the node (kubelet, network) or drain it so its pods are scheduled elsewhere"
        return True

    evicted = next((m for r, m in warnings if r == "Evicted"), None)
    if evicted is not None:
        cite(chat, finding, "describe_pod", evicted)
    elif pod.status == "Evicted" or re.search(r"^Reason:\s+Evicted\s*$", described, re.M):
        message = re.search(r"^Message:\s+(.+)$", described, re.M)
        evicted = message[0].strip() if message else ""
        if message:
            cite(chat, finding, "describe_pod", evicted)
        else:
            cite(chat, finding, "list_pods", listing_row(chat, pod))
    if evicted is not None:
        low = _NODE_LOW.search(evicted or "")
        if low:
            finding.category = "node_pressure"
            finding.cause = f"the kubelet evicted the pod because its node{node} ran low on {low[1]}"
            finding.fix = (
                f"relieve the node's {low[1]} (find the heaviest consumers, set their requests and limits) or "
                "add capacity; delete the Evicted pod once its replacement runs"
            )
        else:
            finding.category = "evicted"
            finding.cause = "the kubelet evicted the pod" + (f": {evicted}" if evicted else "")
            finding.fix = (
                "raise the limit it exceeded or make it use less (e.g. write to a volume, not the container's "
                "local storage); delete the Evicted pod once its replacement runs"
            )
        return True

    quota = next((m for _, m in warnings if _QUOTA.search(m)), None)
    owner_quota = None if quota else _owner_event(chat, pod, _QUOTA)
    if quota or owner_quota:
        if quota:
            cite(chat, finding, "describe_pod", quota)
        elif owner_quota:
            cite(chat, finding, "get_events", *owner_quota)
        name = re.search(r"exceeded quota: ([\w.-]+)", finding.evidence)
        finding.category = "quota_exceeded"
        finding.cause = (
            f"the namespace's ResourceQuota{' ' + name[1] if name else ''} refuses the pod's requests"
        )
        finding.fix = (
            "raise the quota, lower the pod's requests, or free quota by scaling down other workloads"
        )
        return True

    job = _owner_event(chat, pod, re.compile(r"\bBackoffLimitExceeded\b"))
    if job:
        cite(chat, finding, "get_events", *job)
        owner = re.search(r"\bjob/(\S+)", job[0], re.I)
        finding.category = "job_backoff_limit"
        finding.cause = (
            f"the Job{' ' + owner[1] if owner else ''} gave up: its pods failed as many times as its backoffLimit "
            "allows"
        )
        finding.fix = (
            "fix the error its pods' logs show, then run the Job again (or wait for its next schedule)"
        )
        if telling:  # the pod failed: its last words say why
            finding.also(telling, "get_pod_logs", logs_id, crash_note)
        return True

    if pod.status.startswith("Init:"):
        container = next(
            (m[1] for _, message in warnings if (m := re.search(r"failed container (\S+)", message))), None
        )
        if telling:
            cite(chat, finding, "get_pod_logs", telling, logs_id)
            first_error(finding, logs)
        elif warnings:
            cite(chat, finding, "describe_pod", min(warnings, key=warning_priority)[1])
        else:
            cite(chat, finding, "list_pods", listing_row(chat, pod))
        finding.category = "init_container_failure"
        which = f"the init container {container}" if container else "an init container"
        finding.cause = f"{which} fails, so the pod's app containers never start"
        finding.fix = "fix the error the init container's logs show; the pod starts once it succeeds"
        return True

    oom = any(pattern.search(described) for pattern in _OOM_STATE) or "OOMKilled" in pod.status
    liveness = next((m for _, m in warnings if LIVENESS.search(m)), None)
    restarting = pod.restarts > 0 or bool(CRASHING.search(pod.status))
    if liveness and restarting and not oom and not logs.crashes_by_itself:
        cite(chat, finding, "describe_pod", liveness)
        finding.category = "liveness_probe_failure"
        finding.cause = (
            "the container fails its liveness probe and is restarted by the kubelet; its logs show no crash of "
            "its own"
        )
        finding.fix = (
            "find why the health endpoint stalls (or is slow), or give the probe a realistic timeout"
        )
        killed = next((m for _, _, m in events if re.search(r"(?i)failed liveness probe", m)), None)
        if killed:
            finding.also(killed, "describe_pod", finding.call_id)
        if telling and ERRORISH.search(telling):
            finding.also(telling, "get_pod_logs", logs_id, crash_note)
        return True

    readiness = next((m for _, m in warnings if _READINESS.search(m)), None)
    if readiness and pod.status == "Running" and pod.restarts == 0 and logs.current:
        found = broken_dependency_in(chat, pod, logs.current, broken)
        if found:
            line, other = found
            cite(chat, finding, "get_pod_logs", line, logs.current_id)
            finding.category = "dependency_down"
            finding.cause = (
                f"the container runs but is not ready: it cannot reach {workload_of(other.name)}, whose pod "
                f"{other.name} is itself unhealthy ({other.status}, READY {other.ready})"
            )
            finding.fix = f"fix {other.name} first (see its entry); this pod becomes ready once it is back"
            finding.depends_on = other
            finding.also(
                readiness,
                "describe_pod",
                chat.latest_id("describe_pod", pod.name),
                f"describe_pod: {readiness}",
            )
            return True
    return False


def warning_priority(event: tuple[str, str]) -> int:
    reason = event[0]
    return _WARNING_PRIORITY.index(reason) if reason in _WARNING_PRIORITY else len(_WARNING_PRIORITY)


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
