"""How the playbook reads a pod's logs: the lines that tell how it crashed, and which of them decides."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from k8s_agent_scripted_llm.playbook.conversation import Conversation, logs_of, readable
from k8s_agent_scripted_llm.playbook.finding import Finding

ERRORISH = re.compile(
    r"(?i)\b(error|fatal|panic|exception|failed|failure|missing|refused|denied|killed|timed? ?out|unreachable|not reachable)\b"
)

CONFIG_ERROR = re.compile(
    r"(?i)missing required|\bnot set\b|is required|undefined variable|no such env|environment variable"
    r"|flag provided but not defined|unknown (?:flag|option|directive|command|field)|invalid value for"
    r"|invalid (?:argument|configuration|config)|contains errors|validation error|scannererror|parsererror"
    r"|config(?:uration)? (?:file )?(?:is )?invalid|no such file or directory"
    r"|KeyError: '[A-Z][A-Z0-9]*_[A-Z0-9_]+'"
)
"""Log words of a process that exits at start-up on its configuration: a setting, a flag, a file."""

_CRASH_SIGNATURE = re.compile(
    r"(?i)\b(?:panic|fatal|exception|traceback|segmentation fault|sigsegv|nil pointer|unhandled|uncaught"
    r"|out of memory)\b"
)
"""Log words of a process that crashes by itself (with a config error): not a probe's victim."""

_CALM = re.compile(
    r"\b(?:WARN(?:ING)?|INFO|DEBUG|TRACE|NOTICE)\b|\[\s*(?:warn|info|debug)\s*\]"
    r"|\"level\":\s*\"(?:warn|warning|info|debug)\"|using (?:the )?default"
)
"""A log line's own level or words saying it is not an error."""


@dataclass
class Logs:
    """A pod's logs as the playbook read them."""

    current: str = ""
    """The current container's lines (empty when unread, failed or empty)."""
    current_id: str | None = None
    crash: str = ""
    """The lines that tell how it crashed: the previous container's when the pod restarted while
    running and they show an error, else the current ones."""
    crash_id: str | None = None

    @property
    def telling(self) -> str:
        return _telling_log_line(self.crash) if self.crash else ""

    @property
    def crashes_by_itself(self) -> bool:
        """Whether a line, not a calm one, shows the process crashing or refusing its configuration."""
        return any(
            (_CRASH_SIGNATURE.search(line) or CONFIG_ERROR.search(line)) and not _CALM.search(line)
            for line in f"{self.current}\n{self.crash}".splitlines()
        )


def read_logs(chat: Conversation, finding: Finding) -> Logs:
    """The pod's current logs, and the ones that tell its crash (see Logs)."""
    pod = finding.pod
    current, current_id = logs_of(chat, pod.name)
    if current and current.startswith("Tool call failed"):
        finding.notes.append(f"logs unavailable: {current}")
        finding.unchecked.append(f"{pod.name}: logs unavailable: {current}")
    logs = Logs(readable(current), current_id)
    logs.crash, logs.crash_id = logs.current, logs.current_id
    before, before_id = logs_of(chat, pod.name, previous=True)
    earlier = readable(before)
    if earlier and pod.restarts:
        line = _telling_log_line(earlier)
        if ERRORISH.search(line) or CONFIG_ERROR.search(line) or not logs.current:
            logs.crash, logs.crash_id = earlier, before_id
    return logs


def first_error(finding: Finding, logs: Logs) -> None:
    """Quote the first error of the crash's logs too, when it comes before the telling (last) one:
    the first is often the cause, the last its consequence."""
    first = next(
        (
            line.strip()
            for line in logs.crash.splitlines()
            if ERRORISH.search(log_text(line)) and not is_calm(line)
        ),
        "",
    )
    if first and first != finding.evidence:
        finding.also(first, "get_pod_logs", logs.crash_id, f"the first error in the logs: {first}")


_DECIDING = re.compile(
    r"(?i)^(?:\S+\s+){0,3}?(?:\[?(?:fatal|error|err|crit(?:ical)?|panic|emerg)\]?:?\s)|\bpanic:|\bfatal\b"
    r"|\b(?:[A-Z]\w*(?:Error|Exception)|Error|Exception)\b(?::|$)|\bcaused by\b"
)
"""A line that says what failed: its level is error/fatal, or it is the exception, panic or `Error:`
itself (not a line around it: a stack frame, "shutting down", "exiting after failure")."""

_MESSAGE_FIELDS = ("error", "err", "exception", "msg", "message", "reason", "detail", "event")

_LEVEL_FIELDS = ("level", "lvl", "severity", "log.level")


def log_text(line: str) -> str:
    """What a log line says: of a JSON line, its error and message fields (not its level, time or
    caller); else the line itself."""
    text = line.strip()
    if not text.startswith("{"):
        return text
    try:
        record = json.loads(text)
    except ValueError:
        return text
    if not isinstance(record, dict):
        return text
    parts = [str(record[key]) for key in _MESSAGE_FIELDS if isinstance(record.get(key), str | int | float)]
    return "; ".join(dict.fromkeys(parts)) or text


def _log_level(line: str) -> str:
    """The level a JSON log line gives itself, lower-cased, or ""."""
    text = line.strip()
    if not text.startswith("{"):
        return ""
    try:
        record = json.loads(text)
    except ValueError:
        return ""
    if not isinstance(record, dict):
        return ""
    return next((str(record[key]).lower() for key in _LEVEL_FIELDS if key in record), "")


def is_calm(line: str) -> bool:
    """Whether a log line says itself it is not an error (its level, or words such as "using the default")."""
    level = _log_level(line)
    if level:
        return level in ("warn", "warning", "info", "debug", "trace", "notice")
    return bool(_CALM.search(line))


def _telling_log_line(logs: str) -> str:
    """The line that tells most: the last configuration error (not a calm line), else the last line
    that says what failed (the exception, the panic, an `Error:`/FATAL line, a JSON line of level
    error), else the last error-like line, else the last line."""
    lines = [line.strip() for line in logs.splitlines() if line.strip()]
    config = [line for line in lines if CONFIG_ERROR.search(log_text(line)) and not is_calm(line)]
    deciding = [
        line
        for line in lines
        if not is_calm(line)
        and (_DECIDING.search(log_text(line)) or _log_level(line) in ("error", "fatal", "critical", "panic"))
    ]
    errorish = [line for line in lines if ERRORISH.search(log_text(line)) and not is_calm(line)]
    errorish = errorish or [line for line in lines if ERRORISH.search(line)]
    return (config or deciding or errorish or lines or [""])[-1]
