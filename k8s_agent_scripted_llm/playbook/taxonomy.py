"""A deciding line mapped to the report's cause (findings.Cause), with an explanation and a fix."""

from __future__ import annotations

import re

from k8s_agent_scripted_llm.playbook.logs import is_config_error, log_text
from k8s_agent_scripted_llm.playbook.tables import CRASHING, Pod

_CONDITION_TAINT = re.compile(
    r"node\.kubernetes\.io/(not-ready|unreachable|disk-pressure|memory-pressure|pid-pressure)\b"
)
"""Taints the node controller and kubelet put on a node for its condition: the scheduler naming one
tells the node's condition (not ready, unreachable, under pressure), not a taint someone set."""

_MISSING_SETTING = re.compile(r"(?i)missing required|not set|is required|undefined variable|no such env")


def cause_and_fix(pod: Pod, quoted_line: str, description: str, logs: str) -> tuple[str, str, str]:
    evidence = log_text(quoted_line)  # of a JSON log line, its message, not its level or time
    quoted = re.search(r"'([^']+)'|\"([^\"]+)\"", evidence)
    subject = (quoted[1] or quoted[2]) if quoted else None
    limit = re.search(r"Limits:.*memory=(\S+)", description)
    requests = re.search(r"Requests:\s*(.+)", description)
    if "OOMKilled" in evidence:
        current = f" (now {limit[1]})" if limit else ""
        return (
            "oom_killed",
            "the container exceeds its memory limit and is killed (OOMKilled)",
            f"raise the container's memory limit{current} or reduce its memory use, then roll it out again",
        )
    if _MISSING_SETTING.search(evidence):
        what = f"'{subject}'" if subject else "a required setting"
        return (
            "crash_config",
            f"the application exits at start-up because its configuration lacks {what}",
            f"provide {what} to the container (e.g. an env entry from its Secret) and roll the deployment out again",
        )
    if re.search(r"(?i)(secret|configmap) .* not found|CreateContainerConfigError", evidence + pod.status):
        return (
            "missing_config_reference",
            "the container cannot be created: it references a Secret or ConfigMap that does not exist",
            "create the missing object in this namespace, or fix the reference in the pod spec",
        )
    if (CRASHING.search(pod.status) or pod.restarts) and is_config_error(quoted_line):
        return (
            "crash_config",
            "the application exits at start-up on its configuration (a flag, a config file or a setting it reads)",
            "correct what the log line names (the flags in the pod spec, the ConfigMap or the mounted file), "
            "then roll it out again",
        )
    if re.search(r"(?i)pull|image", evidence) or "Image" in pod.status:
        image = re.search(r'image "([^"]+)"', evidence)
        name = f" {image[1]}" if image else ""
        if re.search(r"(?i)manifest unknown|not found", evidence):
            return (
                "image_not_found",
                f"the image{name} does not exist in the registry (wrong or unpublished tag)",
                "push that tag, or set the image to a published tag and roll out again",
            )
        if re.search(r"(?i)unauthorized|denied|authentication required|forbidden", evidence):
            return (
                "image_unauthorized",
                f"the registry refuses to serve the image{name} without credentials",
                "add or fix the imagePullSecrets of the pod's service account",
            )
        return (
            "image_pull_failed",
            f"the image{name} cannot be pulled",
            "check the image name, the registry's reachability and credentials",
        )
    if "FailedScheduling" in description and re.search(r"nodes are available", evidence):
        short = re.findall(r"Insufficient (\w+)", evidence)
        if short:
            wanted = f" (requests: {requests[1].strip()})" if requests else ""
            return (
                "insufficient_resources",
                f"no node has enough free {' and '.join(sorted(set(short)))} for the pod's requests{wanted}",
                "lower the pod's requests, free capacity on the nodes, or add a node (or let the autoscaler)",
            )
        condition = _CONDITION_TAINT.search(evidence)
        if condition:
            down = condition[1] in ("not-ready", "unreachable")
            return (
                "node_not_ready" if down else "node_pressure",
                f"the node the pod could run on is {'not ready' if down else 'under ' + condition[1]}: the "
                f"node's own condition taint ({condition[0]}) keeps the pod off it",
                "recover the node (kubelet, network) or give the pod another node it may run on"
                if down
                else f"relieve the node's {condition[1].removesuffix('-pressure')} (free it, move heavy pods) or add capacity",
            )
        if re.search(r"(?i)affinity|selector", evidence):
            return (
                "node_selector_mismatch",
                "no node matches the pod's node selector or affinity",
                "fix the selector/affinity or label a node",
            )
        if re.search(r"(?i)taint", evidence):
            return (
                "untolerated_taint",
                "every node has a taint the pod does not tolerate",
                "add the toleration or remove the taint",
            )
        if re.search(r"(?i)persistentvolumeclaim", evidence):
            return (
                "unbound_volume",
                "the pod waits for a PersistentVolumeClaim that is not bound",
                "create or fix the PVC and its storage class",
            )
        return (
            "unschedulable",
            "the scheduler cannot place the pod",
            "read the scheduler's message above and adjust the pod spec",
        )
    if re.search(r"(?i)readiness probe failed", evidence):
        return (
            "readiness_probe_failure",
            "the container runs but fails its readiness probe, so it receives no traffic",
            "fix what the probe checks (see the logs: a dependency may be down) or correct the probe's path/port",
        )
    if re.search(r"(?i)liveness probe failed", evidence):
        return (
            "liveness_probe_failure",
            "the container fails its liveness probe and is restarted by the kubelet",
            "fix the health endpoint or give the probe a realistic delay and timeout",
        )
    if CRASHING.search(pod.status) or pod.restarts:
        return (
            "crash_application",
            "the container crashes shortly after start",
            "fix the error the logs show, then roll the deployment out again",
        )
    return ("unknown", f"the pod is {pod.status}", "inspect the pod's events and logs further")
