"""How the playbook reads a pod's logs: the lines that tell how it crashed, and which of them decides.

The deciding line of a crash is not simply its last error line. Read in this order:

- noise is never the cause: a line that says it is harmless (`(ignored)`, "will be dropped"), that
  reports the process's own telemetry failing to ship (metrics, traces, error reports), that is the
  logging framework talking about itself, that is a runtime's advice on seeing more of a crash ("run
  with ... to display a backtrace"), or whose words a healthy pod logs too (`noise_signatures`);
- a configuration error (a setting, flag, option, file, credential or licence the process refuses,
  or a value it cannot use) decides, wherever it is in the log (a framework may print its failure
  report after it says the start failed); a configuration warning counts too, unless it says the
  process goes on with a default;
- else, what a process logs once it says it is stopping ("shutting down", "exiting", "Application
  run failed", a panic on the way out) is a consequence: before the first such line, an exception or
  an error-level line beats any other error-like line;
- when nothing before the stop decides, the whole log is read the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from k8s_agent_scripted_llm.playbook.conversation import Conversation, all_listed, logs_of, readable
from k8s_agent_scripted_llm.playbook.finding import Finding

ERRORISH = re.compile(
    r"(?i)\b(error|fatal|panic|exception|failed|failure|missing|refused|denied|killed|timed? ?out|unreachable|not reachable)\b"
)

CONFIG_ERROR = re.compile(
    r"(?i)missing required|\bnot set\b|is required|undefined variable|no such env|environment variable"
    r"|flag provided but not defined|unknown (?:flag|option|directive|command|field|variable|parameter"
    r"|setting|property|key)|unrecogni[sz]ed (?:vm )?(?:option|argument|parameter|setting|field)"
    r"|invalid value for|invalid (?:argument|configuration|config|setting|option)|contains errors"
    r"|validation error|scannererror|parsererror|config(?:uration)? (?:file )?(?:is )?invalid"
    r"|is not a valid\b|no configurations? (?:file )?found|no such file or directory"
    r"|invalid credentials|authentication failed|password authentication failed|access denied for user"
    r"|licen[cs]e (?:check failed|expired|is invalid|invalid|not valid)|failed to find attribute"
    r"|KeyError: '[A-Z][A-Z0-9]*_[A-Z0-9_]+'|has no entry for key|no such key\b"
    r"|is not an? (?:valid |whole |positive |non-negative )?(?:number|integer|int|float|boolean|bool"
    r"|duration|size|byte size|port|url)\b|\((?:known|valid|allowed|supported|available)(?: values"
    r"| options| choices| names)?: |(?:must|should) be one of\b|expected one of\b"
    r"|\bno [\w-]+(?: [\w-]+)? (?:is )?registered (?:under|as|for|with)\b"
)
"""Log words of a process that exits at start-up on its configuration: a setting, a flag, an option, a
file, a credential or a licence it was given (a KeyError on an UPPER_SNAKE key is an environment
variable read that found nothing; a template's key lookup that finds nothing is a setting missing);
or a value it was given that it cannot use: not a number (or the type it needs), not one of the
names it knows ("(known: a, b)", "must be one of", "no driver registered under 'x'")."""

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

_INFORMATIONAL = re.compile(r"\b(?:INFO|DEBUG|TRACE|NOTICE)\b|\[\s*(?:info|debug)\s*\]")
_GOES_ON = re.compile(r"(?i)using (?:the )?default|falling back|fall(?:s|ing)? back to|defaulting to")
"""Words of a warning that the process goes on without the setting: not why it stopped."""

_HARMLESS = re.compile(
    r"(?i)\((?:ignored|ignoring|non-?fatal)\)|\bignor(?:ed|ing)\b|will be dropped|\bnon-?fatal\b|harmless"
    r"|safe to ignore"
)
_TELEMETRY = re.compile(
    r"(?i)\b(?:metrics?|trac(?:e|es|ing|er)|spans?|telemetry|sentry\w*|statsd|pushgateway|otel\w*"
    r"|opentelemetry|otlp|dd-trace|datadog|jaeger|zipkin|apm)\b"
)
_SHIPPING = re.compile(
    r"(?i)\b(?:export\w*|send\w*|sent|push\w*|report\w*|flush\w*|ship\w*|upload\w*|dropp?\w*)\b"
)
_LOGGING_ITSELF = re.compile(r"\bStatusLogger\b|^SLF4J:|\blog4j:(?:WARN|ERROR)\b|No appenders could be found")
_RUNTIME_HINT = re.compile(
    r"(?i)\bto (?:display|see|get|show|print|enable) (?:a |the |full |more |complete )*(?:back ?trace|stack ?trace"
    r"|traceback)s?\b|\bfor (?:a |the )?(?:more )?(?:verbose|detailed) (?:back ?trace|stack ?trace|output)\b"
)
"""A runtime's advice on how to see more of a crash ("run with `RUST_BACKTRACE=1` environment variable
to display a backtrace"): it follows every crash of its kind and says nothing about this one."""

_STOPPING = re.compile(
    r"(?i)\b(?:exiting|exited with (?:code|status)|exit(?:ing)? with status|shutting down"
    r"|shutdown (?:initiated|complete[d]?)|aborting|(?:startup|start-up|start) aborted"
    r"|application run failed|app(?:lication)? failed to (?:load|start)|application startup failed"
    r"|failed to start (?:the )?(?:application|server|service|app)|could not create the java virtual machine"
    r"|a fatal exception has occurred|program will exit|server closed|has been stopped"
    r"|event loop is closed|stopping)\b|^npm err(?:or\b|!)"
)
"""Words of a process saying it stops: what it logs from there on is the consequence of the cause."""

_DECIDING = re.compile(
    r"(?i)^(?:\S+\s+){0,3}?(?:\[?(?:fatal|error|err|crit(?:ical)?|panic|emerg)\]?:?\s)|\bpanic:|\bfatal\b"
    r"|\b(?:[A-Z]\w*(?:Error|Exception)|Error|Exception)\b(?::|$)|\bcaused by\b"
)
"""A line that says what failed: its level is error/fatal, or it is the exception, panic or `Error:`
itself (not a line around it: a stack frame, "shutting down", "exiting after failure")."""

_MESSAGE_FIELDS = ("error", "err", "exception", "msg", "message", "reason", "detail", "event")

_LEVEL_FIELDS = ("level", "lvl", "severity", "log.level")
_LOGFMT_LEVEL = re.compile(r"(?:^|\s)(?:level|lvl|severity)=\"?(\w+)")
_ERROR_LEVELS = ("error", "err", "fatal", "critical", "crit", "panic", "emerg")
_CALM_LEVELS = ("warn", "warning", "info", "debug", "trace", "notice")


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
    noise: frozenset[str] = field(default_factory=frozenset)
    """Signatures of error lines healthy pods log too (see noise_signatures)."""

    @property
    def telling(self) -> str:
        return deciding_line(self.crash, self.noise) if self.crash else ""

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
    logs = Logs(readable(current), current_id, noise=noise_signatures(chat))
    logs.crash, logs.crash_id = logs.current, logs.current_id
    before, before_id = logs_of(chat, pod.name, previous=True)
    earlier = readable(before)
    if earlier and pod.restarts:
        line = deciding_line(earlier, logs.noise)
        if ERRORISH.search(line) or CONFIG_ERROR.search(line) or not logs.current:
            logs.crash, logs.crash_id = earlier, before_id
    return logs


def first_error(finding: Finding, logs: Logs) -> None:
    """Quote the first error of the crash's logs too, when it comes before the deciding one and is
    not noise: the first is often the cause, the last its consequence."""
    first = first_error_line(logs.crash, logs.noise)
    if first and first != finding.evidence:
        finding.also(first, "get_pod_logs", logs.crash_id, f"the first error in the logs: {first}")


def first_error_line(log: str, healthy: frozenset[str] = frozenset()) -> str:
    """The first error-like line of a log that is neither calm nor noise, or ""."""
    return next(
        (
            line.strip()
            for line in log.splitlines()
            if ERRORISH.search(log_text(line)) and not is_calm(line) and not is_noise(line, healthy)
        ),
        "",
    )


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


def log_level(line: str) -> str:
    """The level a structured log line gives itself (a JSON field, or logfmt's `level=`), lower-cased,
    or ""."""
    text = line.strip()
    if not text.startswith("{"):
        found = _LOGFMT_LEVEL.search(text)
        return found[1].lower() if found else ""
    try:
        record = json.loads(text)
    except ValueError:
        return ""
    if not isinstance(record, dict):
        return ""
    return next((str(record[key]).lower() for key in _LEVEL_FIELDS if key in record), "")


def is_calm(line: str) -> bool:
    """Whether a log line says itself it is not an error (its level, or words such as "using the default")."""
    level = log_level(line)
    if level:
        return level in _CALM_LEVELS
    return bool(_CALM.search(line))


def is_noise(line: str, healthy: frozenset[str] = frozenset()) -> bool:
    """Rule: a line that says it is harmless (but for a setting it ignores: a setting ignored is a
    setting missing), that reports the process's own telemetry failing to ship, that is the logging
    framework talking about itself, that is a runtime's advice on seeing more of a crash, or that
    healthy pods log too, is not why a pod fails."""
    text = log_text(line)
    return (
        (bool(_HARMLESS.search(text)) and not CONFIG_ERROR.search(text))
        or (bool(_TELEMETRY.search(text)) and bool(_SHIPPING.search(text)))
        or bool(_LOGGING_ITSELF.search(text))
        or bool(_RUNTIME_HINT.search(text))
        or signature(line) in healthy
    )


def is_stopping(line: str) -> bool:
    """Rule: a line saying the process stops (exiting, shutting down, its start aborted, a runtime's
    generic exit) marks where the consequences begin."""
    return bool(_STOPPING.search(log_text(line)))


def says_what_failed(line: str) -> bool:
    """An error-level line, or the exception, panic or `Error:` itself."""
    return not is_calm(line) and (bool(_DECIDING.search(log_text(line))) or log_level(line) in _ERROR_LEVELS)


def is_config_error(line: str) -> bool:
    """Rule: a configuration error refused at start-up decides a crash, even said as a warning, unless
    the warning says the process goes on with a default."""
    if not CONFIG_ERROR.search(log_text(line)):
        return False
    level = log_level(line)
    if level in ("info", "debug", "trace", "notice") or (not level and _INFORMATIONAL.search(line)):
        return False
    return not _GOES_ON.search(line)


def deciding_line(logs: str, healthy: frozenset[str] = frozenset()) -> str:
    """The line that decides a crash (see the module's docstring): the last configuration error of
    the log, wherever it is (a framework may print its failure report after it says the start
    failed); else, before the first line that says the process stops, the last line that says what
    failed, else the last error-like line; when none is there, the same over the whole log; else
    the last line that is not noise."""
    lines = [line.strip() for line in logs.splitlines() if line.strip()]
    config = [line for line in lines if is_config_error(line) and not is_noise(line, healthy)]
    if config:
        return config[-1]
    stop = next((index for index, line in enumerate(lines) if is_stopping(line)), None)
    if stop:
        found = _decides(lines[:stop], healthy)
        if found:
            return found
    return _decides(lines, healthy) or _last_resort(lines, healthy)


def _decides(lines: list[str], healthy: frozenset[str]) -> str:
    kept = [line for line in lines if not is_noise(line, healthy)]
    config = [line for line in kept if is_config_error(line)]
    deciding = [line for line in kept if says_what_failed(line)]
    errorish = [line for line in kept if ERRORISH.search(log_text(line)) and not is_calm(line)]
    return (config or deciding or errorish or [""])[-1]


def _last_resort(lines: list[str], healthy: frozenset[str]) -> str:
    lines = [line for line in lines if not is_noise(line, healthy)] or lines
    errorish = [line for line in lines if ERRORISH.search(line)]
    return (errorish or lines or [""])[-1]


_VARIABLE = re.compile(
    r"\b\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\b|\b[0-9a-f]{8,}\b|0x[0-9a-f]+|\d+",
    re.I,
)


def signature(line: str) -> str:
    """A log line with what changes between occurrences (times, numbers, ids) taken out."""
    return " ".join(_VARIABLE.sub("#", log_text(line)).lower().split())


def noise_signatures(chat: Conversation) -> frozenset[str]:
    """Rule: error lines that pods the listing shows healthy (running, ready, never restarted) log
    too are noise; their signatures, from the logs the conversation read of such pods."""
    healthy = {
        pod.name
        for pod in all_listed(chat)
        if pod.status == "Running" and not pod.unhealthy and pod.restarts == 0
    }
    return frozenset(_error_signatures(chat, healthy))


def _error_signatures(chat: Conversation, pods: set[str]) -> Iterable[str]:
    for tool, arguments, content in chat.results:
        if tool != "get_pod_logs" or arguments.get("name") not in pods:
            continue
        for line in readable(content).splitlines():
            if ERRORISH.search(log_text(line)) and not is_calm(line):
                yield signature(line)
