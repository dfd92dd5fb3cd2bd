"""A deciding line mapped to the report's cause (findings.Cause), with an explanation and a fix.

The rules of TAXONOMY are tried in order on the line a finding quotes (of a JSON log line, its
message), the pod's status and its describe_pod result; the first that names a cause gives it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from k8s_agent_scripted_llm.playbook.logs import is_config_error, log_text
from k8s_agent_scripted_llm.playbook.tables import CRASHING, Pod

Cause = tuple[str, str, str]
"""(category of findings.Cause, explanation, fix)."""

_CONDITION_TAINT = re.compile(
    r"node\.kubernetes\.io/(not-ready|unreachable|disk-pressure|memory-pressure|pid-pressure)\b"
)
"""Taints the node controller and kubelet put on a node for its condition: the scheduler naming one
tells the node's condition (not ready, unreachable, under pressure), not a taint someone set."""

_MISSING_SETTING = re.compile(r"(?i)missing required|not set|is required|undefined variable|no such env")


@dataclass(frozen=True)
class Quoted:
    """The line a finding quotes, and what the rules read beside it."""

    pod: Pod
    line: str
    """The line as quoted."""
    text: str
    """What it says (of a JSON log line, its message fields: not its level or time)."""
    description: str
    """describe_pod's result ("" when not read)."""

    @property
    def crashed(self) -> bool:
        return bool(CRASHING.search(self.pod.status)) or self.pod.restarts > 0

    @property
    def subject(self) -> str | None:
        """The first quoted name in the line ('DB_PASSWORD')."""
        quoted = re.search(r"'([^']+)'|\"([^\"]+)\"", self.text)
        return (quoted[1] or quoted[2]) if quoted else None


def killed_for_memory(quoted: Quoted) -> Cause | None:
    """A line saying OOMKilled: the container went over its memory limit."""
    if "OOMKilled" not in quoted.text:
        return None
    limit = re.search(r"Limits:.*memory=(\S+)", quoted.description)
    current = f" (now {limit[1]})" if limit else ""
    return (
        "oom_killed",
        "the container exceeds its memory limit and is killed (OOMKilled)",
        f"raise the container's memory limit{current} or reduce its memory use, then roll it out again",
    )


def lacks_a_setting(quoted: Quoted) -> Cause | None:
    """A line saying a required setting is missing or not set: crash_config, naming the setting."""
    if not _MISSING_SETTING.search(quoted.text):
        return None
    what = f"'{quoted.subject}'" if quoted.subject else "a required setting"
    return (
        "crash_config",
        f"the application exits at start-up because its configuration lacks {what}",
        f"provide {what} to the container (e.g. an env entry from its Secret) and roll the deployment out again",
    )


def references_a_missing_object(quoted: Quoted) -> Cause | None:
    """A Secret or ConfigMap not found, or CreateContainerConfigError: missing_config_reference."""
    if not re.search(
        r"(?i)(secret|configmap) .* not found|CreateContainerConfigError", quoted.text + quoted.pod.status
    ):
        return None
    return (
        "missing_config_reference",
        "the container cannot be created: it references a Secret or ConfigMap that does not exist",
        "create the missing object in this namespace, or fix the reference in the pod spec",
    )


def refuses_its_configuration(quoted: Quoted) -> Cause | None:
    """A crashed container's configuration error (logs.is_config_error): crash_config."""
    if not (quoted.crashed and is_config_error(quoted.line)):
        return None
    return (
        "crash_config",
        "the application exits at start-up on its configuration (a flag, a config file or a setting it reads)",
        "correct what the log line names (the flags in the pod spec, the ConfigMap or the mounted file), "
        "then roll it out again",
    )


def cannot_pull_its_image(quoted: Quoted) -> Cause | None:
    """An image that cannot be pulled: not found (a tag or manifest unknown), unauthorized (refused
    without credentials), else a pull failure."""
    if not (re.search(r"(?i)pull|image", quoted.text) or "Image" in quoted.pod.status):
        return None
    image = re.search(r'image "([^"]+)"', quoted.text)
    name = f" {image[1]}" if image else ""
    if re.search(r"(?i)manifest unknown|not found", quoted.text):
        return (
            "image_not_found",
            f"the image{name} does not exist in the registry (wrong or unpublished tag)",
            "push that tag, or set the image to a published tag and roll out again",
        )
    if re.search(r"(?i)unauthorized|denied|authentication required|forbidden", quoted.text):
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


def cannot_be_scheduled(quoted: Quoted) -> Cause | None:
    """The scheduler's message, by its first telling reason: a shortage of a resource, a node's
    condition taint (the node's condition), a volume bound where no node is left, a selector or
    affinity, another taint, an unbound claim; else unschedulable."""
    if "FailedScheduling" not in quoted.description or not re.search(r"nodes are available", quoted.text):
        return None
    text = quoted.text
    short = re.findall(r"Insufficient (\w+)", text)
    if short:
        requests = re.search(r"Requests:\s*(.+)", quoted.description)
        wanted = f" (requests: {requests[1].strip()})" if requests else ""
        return (
            "insufficient_resources",
            f"no node has enough free {' and '.join(sorted(set(short)))} for the pod's requests{wanted}",
            "lower the pod's requests, free capacity on the nodes, or add a node (or let the autoscaler)",
        )
    condition = _CONDITION_TAINT.search(text)
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
    if re.search(r"(?i)volume node affinity conflict", text):
        return (
            "unschedulable",
            "the pod's volume can be attached only where no node is left (its PersistentVolume's node "
            "affinity: a zone or node that is gone)",
            "bring back a node where the volume lives (its zone), or move the data to a volume where nodes are",
        )
    if re.search(r"(?i)affinity|selector", text):
        return (
            "node_selector_mismatch",
            "no node matches the pod's node selector or affinity",
            "fix the selector/affinity or label a node",
        )
    if re.search(r"(?i)taint", text):
        return (
            "untolerated_taint",
            "every node has a taint the pod does not tolerate",
            "add the toleration or remove the taint",
        )
    if re.search(r"(?i)persistentvolumeclaim", text):
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


def fails_its_readiness_probe(quoted: Quoted) -> Cause | None:
    """A readiness probe's failure: the pod gets no traffic."""
    if not re.search(r"(?i)readiness probe failed", quoted.text):
        return None
    return (
        "readiness_probe_failure",
        "the container runs but fails its readiness probe, so it receives no traffic",
        "fix what the probe checks (see the logs: a dependency may be down) or correct the probe's path/port",
    )


def fails_its_liveness_probe(quoted: Quoted) -> Cause | None:
    """A liveness probe's failure: the kubelet restarts the container."""
    if not re.search(r"(?i)liveness probe failed", quoted.text):
        return None
    return (
        "liveness_probe_failure",
        "the container fails its liveness probe and is restarted by the kubelet",
        "fix the health endpoint or give the probe a realistic delay and timeout",
    )


def crashes(quoted: Quoted) -> Cause | None:
    """Any other line of a container that crashed: crash_application."""
    if not quoted.crashed:
        return None
    return (
        "crash_application",
        "the container crashes shortly after start",
        "fix the error the logs show, then roll the deployment out again",
    )


TAXONOMY: tuple[Callable[[Quoted], Cause | None], ...] = (
    killed_for_memory,
    lacks_a_setting,
    references_a_missing_object,
    refuses_its_configuration,
    cannot_pull_its_image,
    cannot_be_scheduled,
    fails_its_readiness_probe,
    fails_its_liveness_probe,
    crashes,
)
"""The mapping rules, in the order they are tried."""


def cause_and_fix(pod: Pod, quoted_line: str, description: str) -> Cause:
    """The cause the first rule of TAXONOMY names for the quoted line, else unknown."""
    quoted = Quoted(pod, quoted_line, log_text(quoted_line), description)
    found = next((cause for rule in TAXONOMY if (cause := rule(quoted)) is not None), None)
    return found or ("unknown", f"the pod is {pod.status}", "inspect the pod's events and logs further")
