"""The tools' tables and describe blocks as the playbook reads them: a pod listing's rows, a node
listing's, the events of a describe_pod result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

HEALTHY = frozenset({"Running", "Completed", "Succeeded"})

# Statuses of containers that started and died: their logs exist. (CreateContainerConfigError and the
# image-pull errors are not among them: those containers never started.)
CRASHING = re.compile(r"CrashLoop|OOMKilled|RunContainerError|^Error$|^Unknown$")


@dataclass
class Pod:
    """One row of list_pods."""

    namespace: str
    name: str
    ready: str
    status: str
    restarts: int
    node: str = ""
    """The NODE column (empty when absent or `<none>`)."""
    age: str = ""
    """The AGE column."""
    last_restart: str = ""
    """When it last restarted, when the RESTARTS column says it ("3 (5m ago)": `5m ago`)."""

    @property
    def unhealthy(self) -> bool:
        """Not Running/Completed, or Running without every container ready."""
        if self.status not in HEALTHY:
            return True
        have, _, want = self.ready.partition("/")
        return self.status == "Running" and have != want

    @property
    def runs_code(self) -> bool:
        """Whether its containers started, so logs can exist."""
        return (
            self.status == "Running"
            or bool(CRASHING.search(self.status))
            or self.status.startswith("Init:")
            or self.restarts > 0
        )


def node_row(listing: str, name: str) -> str:
    return next((line.strip() for line in listing.splitlines() if line.split()[:1] == [name]), "")


def parse_table(listing: str) -> list[dict[str, str]]:
    """Rows of a kubectl-like table as dicts by header name (columns split on runs of spaces); only
    rows that look like the header's columns."""
    lines = [line for line in listing.splitlines() if line.strip() and not line.lstrip().startswith("[")]
    if not lines:
        return []
    return _table_rows(lines[1:], lines[0].split())


_ROW_NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$")

_ROW_CELLS = {
    "NAMESPACE": _ROW_NAME,
    "NAME": _ROW_NAME,
    "READY": re.compile(r"^\d+/\d+$"),
    "RESTARTS": re.compile(r"^\d+$"),
    "STATUS": re.compile(r"^[A-Za-z][\w:/,-]*$"),
    "ROLES": re.compile(r"^[\w<>,./-]+$"),
}
"""What a cell of a table row looks like, per column: a row whose cells do not is no row (an
excerpt's "[... 12 lines not shown ...]", a note, a log line that happens to have as many words)."""


def _table_rows(lines: Sequence[str], columns: Sequence[str]) -> list[dict[str, str]]:
    """The rows of a kubectl-like table under `columns`, each cell checked against its column."""
    rows = []
    for line in lines:
        if line.lstrip().startswith("[") or not line.strip():
            continue
        cells = line.split()
        if len(cells) < len(columns):
            continue
        since = ""
        if len(cells) > len(columns) and "RESTARTS" in columns:  # "3 (5m ago)": the restarts' age
            at = columns.index("RESTARTS")
            extra = len(cells) - len(columns)
            if re.fullmatch(r"\(\S+", cells[at + 1]) and cells[at + extra].endswith(")"):
                since = " ".join(cells[at + 1 : at + 1 + extra])[1:-1]
                cells = cells[: at + 1] + cells[at + 1 + extra :]
        row = dict(zip(columns, cells, strict=False))
        if since and len(cells) == len(columns):
            row["LAST RESTART"] = since
        if all(
            pattern.match(row.get(column, "x")) for column, pattern in _ROW_CELLS.items() if column in row
        ):
            rows.append(row)
    return rows


def parse_pod_table(listing: str) -> list[Pod]:
    """Rows of a list_pods table, by header name (any column order); only rows that look like the
    header's columns (see _ROW_CELLS)."""
    lines = [line for line in listing.splitlines() if line.strip()]
    header_index = next(
        (i for i, line in enumerate(lines) if line.split()[:1] in (["NAMESPACE"], ["NAME"])), None
    )
    if header_index is None:
        return []
    columns = lines[header_index].split()
    pods = []
    for row in _table_rows(lines[header_index + 1 :], columns):
        if "NAME" not in row:
            continue
        node = row.get("NODE", "")
        pods.append(
            Pod(
                row.get("NAMESPACE", ""),
                row["NAME"],
                row.get("READY", "1/1"),
                row.get("STATUS", ""),
                int(row.get("RESTARTS", "0")),
                "" if node in ("<none>", "<unknown>") else node,
                row.get("AGE", ""),
                row.get("LAST RESTART", ""),
            )
        )
    return pods


def describe_events(description: str) -> list[tuple[str, str, str]]:
    """(type, reason, message) of every event in a describe_pod result."""
    section = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    found = []
    for line in section.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 5 and cells[0] in ("Warning", "Normal"):
            found.append((cells[0], cells[1], cells[4]))
    return found


@dataclass(frozen=True)
class Event:
    """One event of a describe_pod result."""

    kind: str
    """Normal or Warning."""
    reason: str
    message: str
    age: int | None
    """Seconds since it was last seen (the Age column's first part), None when not shown."""


def pod_events(description: str) -> list[Event]:
    """The events of a describe_pod result, in the order listed, with how long ago each was last seen."""
    section = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    found = []
    for line in section.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 5 and cells[0] in ("Warning", "Normal"):
            age = age_seconds(cells[2].split()[0]) if cells[2].strip() else None
            found.append(Event(cells[0], cells[1], cells[4], age))
    return found


def warning_events(description: str) -> list[tuple[str, str]]:
    """(reason, message) of every Warning event in a describe_pod result."""
    return [(reason, message) for kind, reason, message in describe_events(description) if kind == "Warning"]


@dataclass(frozen=True)
class Container:
    """One container of a describe_pod result, as its block shows it."""

    name: str
    init: bool
    """An init container: listed under `Init Containers:`, or, in one `Containers:` list, before the
    first container that waits in PodInitializing (the app containers wait for the init ones)."""
    state: str = ""
    """Running, Waiting or Terminated."""
    reason: str = ""
    exit_code: str = ""
    last_state: str = ""
    last_reason: str = ""
    last_exit_code: str = ""
    ready: bool = False
    restarts: int = 0
    limits: str = ""
    """The `Limits:` line's value (`memory=256Mi`), or ""."""

    @property
    def completed(self) -> bool:
        """It ran to its end and succeeded (an init container that did its work)."""
        return self.state == "Terminated" and (self.reason == "Completed" or self.exit_code == "0")

    @property
    def ran(self) -> bool:
        """It started at least once, so it has logs."""
        return self.state in ("Running", "Terminated") or bool(self.last_state) or self.restarts > 0

    @property
    def restarted(self) -> bool:
        """An earlier instance of it ended: its previous logs exist."""
        return self.restarts > 0 or self.last_state == "Terminated"

    @property
    def oom_killed(self) -> bool:
        """It was killed for going over its memory limit, now or last time."""
        return "OOMKilled" in (self.reason, self.last_reason)

    @property
    def memory_limit(self) -> str:
        found = re.search(r"\bmemory=(\S+?)(?:,|$)", self.limits)
        return found[1] if found else ""


_SECTION = re.compile(r"^(Init Containers|Containers):\s*$")
_CONTAINER_HEADING = re.compile(r"^  ([A-Za-z0-9][\w.-]*):\s*$")
_CONTAINER_FIELD = re.compile(r"^    (State|Last State|Ready|Restart Count|Limits):\s+(.*?)\s*$")
_STATE_DETAIL = re.compile(r"^      (Reason|Exit Code):\s+(.*?)\s*$")


def containers_of(description: str) -> list[Container]:
    """The containers of a describe_pod result, init containers first, in the order listed."""
    found: list[dict[str, Any]] = []
    section, state_key = "", ""
    for line in description.split("\nEvents:", 1)[0].splitlines():
        if re.match(r"^\S", line):
            heading = _SECTION.match(line)
            section = heading[1] if heading else ""
            continue
        if not section:
            continue
        named = _CONTAINER_HEADING.match(line)
        if named:
            found.append({"name": named[1], "init": section == "Init Containers"})
            state_key = ""
            continue
        if not found:
            continue
        current = found[-1]
        field_match = _CONTAINER_FIELD.match(line)
        if field_match:
            title, value = field_match[1], field_match[2]
            if title in ("State", "Last State"):
                state_key = "" if title == "State" else "last_"
                current[f"{state_key}state"] = value
            elif title == "Ready":
                current["ready"] = value == "True"
            elif title == "Restart Count":
                current["restarts"] = int(value) if value.isdigit() else 0
            else:
                current["limits"] = value
            continue
        detail = _STATE_DETAIL.match(line)
        if detail:
            key = "reason" if detail[1] == "Reason" else "exit_code"
            current[f"{state_key}{key}"] = detail[2]
    containers = [Container(**entry) for entry in found]
    waiting = [
        index
        for index, container in enumerate(containers)
        if not container.init and container.state == "Waiting" and container.reason == "PodInitializing"
    ]
    if waiting and waiting[0] > 0 and not any(container.init for container in containers):
        containers = [
            replace(container, init=index < waiting[0]) for index, container in enumerate(containers)
        ]
    return containers


_AGE_PART = re.compile(r"(\d+)([dhms])")
_AGE_SECONDS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}


def age_seconds(age: str) -> int | None:
    """An AGE cell in seconds (`52m`, `2h`, `3d4h`, `45s`, kubectl's `120m`), or None when it is not one."""
    if not age or _AGE_PART.sub("", age):
        return None
    return sum(int(number) * _AGE_SECONDS[unit] for number, unit in _AGE_PART.findall(age))


WARNING_PRIORITY = (
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
"""Warning reasons, the most telling first: what the scheduler or kubelet says before its back-off."""


def warning_priority(event: tuple[str, str]) -> int:
    """The rank of a (reason, message) Warning in WARNING_PRIORITY (unknown reasons last)."""
    reason = event[0]
    return WARNING_PRIORITY.index(reason) if reason in WARNING_PRIORITY else len(WARNING_PRIORITY)
