"""The report's cause for a line a baseline quotes, by the words in it (a keyword map, nothing more).

An event's message (with its reason), a log line, or the STATUS column each have their table; the
first pattern that matches names the cause. A scheduler's message gives its reasons node by node
(`1 node(s) had untolerated taint ..., 2 Insufficient cpu`): the reason it names first wins.
"""

from __future__ import annotations

import re

_EVENT_CAUSES = (
    (re.compile(r"(?i)oomkill|out of memory"), "oom_killed"),
    (re.compile(r"(?i)exceeded quota|forbidden: exceeded"), "quota_exceeded"),
    (
        re.compile(
            r"(?i)(?:configmap|secret)s? \"[^\"]*\" not found|couldn't find key|CreateContainerConfigError"
        ),
        "missing_config_reference",
    ),
    (re.compile(r"(?i)readiness probe"), "readiness_probe_failure"),
    (re.compile(r"(?i)liveness probe|startup probe"), "liveness_probe_failure"),
    (re.compile(r"(?i)backoff ?limit|deadline ?exceeded.*job|job has reached"), "job_backoff_limit"),
    (re.compile(r"(?i)evict|low on resource|ephemeral[ -]storage"), "evicted"),
    (re.compile(r"(?i)node is not ready|NodeNotReady|node.*unreachable|NodeLost"), "node_not_ready"),
)
_IMAGE = re.compile(r"(?i)pull|image")
_IMAGE_CAUSES = (
    (re.compile(r"(?i)unauthori[sz]ed|\b40[13]\b|forbidden|denied|authenticat"), "image_unauthorized"),
    (re.compile(r"(?i)not found|manifest unknown|\b404\b|does not exist"), "image_not_found"),
)
_SCHEDULER = re.compile(r"(?i)nodes are available|FailedScheduling|unschedulable")
_SCHEDULING_CAUSES = (
    (re.compile(r"(?i)unbound|PersistentVolumeClaim"), "unbound_volume"),
    (re.compile(r"(?i)taint"), "untolerated_taint"),
    (re.compile(r"(?i)affinity|selector"), "node_selector_mismatch"),
    (re.compile(r"(?i)insufficient|too many pods"), "insufficient_resources"),
)
_LOG_CAUSES = (
    (
        re.compile(
            r"(?i)connection refused|econnrefused|unable to connect|could not connect|no route to host|"
            r"connection reset|name or service not known"
        ),
        "dependency_down",
    ),
    (
        re.compile(r"(?i)panic:|nil pointer|null ?pointer|segmentation fault|stack overflow"),
        "crash_application",
    ),
    (
        re.compile(
            r"(?i)config|environment variable|\benv\b|\bflag\b|setting|option|not set|missing|required|"
            r"invalid (?:value|argument)|unknown directive|no such file|parse|pars(?:ing|er)|yaml|toml|validation|"
            r"certificate|key pair|permission denied"
        ),
        "crash_config",
    ),
)
_STATUS_CAUSES = (
    (re.compile(r"OOMKilled"), "oom_killed"),
    (re.compile(r"ErrImagePull|ImagePullBackOff|InvalidImageName"), "image_pull_failed"),
    (re.compile(r"CreateContainerConfigError"), "missing_config_reference"),
    (re.compile(r"^Init:"), "init_container_failure"),
    (re.compile(r"Evicted|ContainerStatusUnknown"), "evicted"),
    (re.compile(r"Pending"), "unschedulable"),
    (re.compile(r"BackoffLimitExceeded"), "job_backoff_limit"),
    (re.compile(r"NotReady|Unknown|NodeLost"), "node_not_ready"),
    (re.compile(r"^Running$"), "readiness_probe_failure"),
    (re.compile(r"CrashLoopBackOff|Error"), "crash_application"),
)
_CRASHES = frozenset({"crash_config", "crash_application", "dependency_down", "unknown"})


def of_event(reason: str, message: str) -> str | None:
    """The cause an event tells, or None when its words name none."""
    text = f"{reason}: {message}"
    found = _first(_EVENT_CAUSES, text)
    if found:
        return found
    if _SCHEDULER.search(text):
        return _earliest(_SCHEDULING_CAUSES, message) or "unschedulable"
    if _IMAGE.search(text):
        return _first(_IMAGE_CAUSES, message) or "image_pull_failed"
    return None


def of_log(line: str) -> str:
    """The cause an error line of a container's logs tells: a refused dependency, a configuration
    error, else an application crash."""
    return _first(_LOG_CAUSES, line) or "crash_application"


def of_status(status: str) -> str:
    """The cause the STATUS column alone suggests."""
    return _first(_STATUS_CAUSES, status) or "unknown"


def for_pod(cause: str, status: str) -> str:
    """A pod waiting on its init containers whose cause is a crash: its init container fails."""
    return "init_container_failure" if status.startswith("Init:") and cause in _CRASHES else cause


def _first(table: tuple[tuple[re.Pattern[str], str], ...], text: str) -> str | None:
    return next((cause for pattern, cause in table if pattern.search(text)), None)


def _earliest(table: tuple[tuple[re.Pattern[str], str], ...], text: str) -> str | None:
    """The cause whose words come first in the text."""
    found = [(match.start(), cause) for pattern, cause in table if (match := pattern.search(text))]
    return min(found)[1] if found else None
