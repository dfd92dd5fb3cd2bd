"""kubernetes-mcp-server's results read as the playbook's views (kube.py): its calls, their pod,
node and event listings, its tables and YAML, each line remembering the result it was read from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml

from k8s_agent_scripted_llm.script import ToolCall

_FAILED = "Tool call failed"


@dataclass(frozen=True)
class Call:
    """One call the conversation made to a kube tool, with its result."""

    id: str
    tool: str
    arguments: dict[str, Any]
    content: str
    round: int

    @property
    def failed(self) -> bool:
        return self.content.startswith((_FAILED, "[Duplicate call]"))

    def signature(self) -> str:
        return call_signature(self.tool, self.arguments)


@dataclass(frozen=True)
class Known:
    """A call of the playbook whose result the conversation already has: shown to it again."""

    call: ToolCall
    content: str
    call_id: str
    """The kube call whose result it is (the quotes of it are that call's)."""


@dataclass(frozen=True)
class Line:
    """A line of a view: its text as the playbook reads it, and where it came from."""

    text: str
    original: str
    """Text the result of `call_id` holds (whitespace aside)."""
    call_id: str
    tool: str
    message: str = ""
    """An event's message, decoded from the YAML: quoted alone when the result holds it as is."""


@dataclass
class View:
    """A kube result (or several) as one result of the playbook's tool."""

    tool: str
    arguments: dict[str, Any]
    lines: list[Line] = field(default_factory=list)
    text: str | None = None
    """The view's text when it is not its lines' (a failure, a log)."""

    def content(self) -> str:
        return self.text if self.text is not None else "\n".join(line.text for line in self.lines)


# -- views of single results -----------------------------------------------------------------------


def pod_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("list_pods", arguments)
    rows = _table(call.content)
    if not rows:
        where = f"namespace {arguments['namespace']}" if arguments.get("namespace") else "any namespace"
        view.text = f"No pods found in {where}."
        return view
    header = "NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE   NODE"
    view.lines.append(Line(header, call.content.splitlines()[0], call.id, call.tool))
    for row, original in rows:
        cells = [row.get(key) or "-" for key in ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE")]
        cells.append(row.get("NODE") or "<none>")
        view.lines.append(Line("   ".join(cells), original, call.id, call.tool))
    return view


def node_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("list_nodes", arguments)
    rows = _table(call.content)
    view.lines.append(
        Line(
            "NAME   STATUS   ROLES   AGE   VERSION",
            call.content.splitlines()[0] if rows else "",
            call.id,
            call.tool,
        )
    )
    for row, original in rows:
        cells = [row.get(key) or "-" for key in ("NAME", "STATUS", "ROLES", "AGE", "VERSION")]
        view.lines.append(Line("   ".join(cells), original, call.id, call.tool))
    return view


def event_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("get_events", arguments)
    view.lines.append(
        Line("NAMESPACE   LAST SEEN   TYPE   REASON   OBJECT   MESSAGE", "", call.id, call.tool)
    )
    for event, line in events_of(call):
        if arguments.get("type") and event.get("type") != arguments["type"]:
            continue
        cells = [event.get("namespace") or "-", "-", event.get("type") or "-", event.get("reason") or "-"]
        cells += [f"{str(event.get('kind', '')).lower()}/{event.get('name', '')}", line.message]
        view.lines.append(Line("   ".join(cells), line.original, line.call_id, line.tool, line.message))
    if len(view.lines) == 1:
        view.text = "No events found."
    return view


def events_of(call: Call) -> list[tuple[dict[str, Any], Line]]:
    """Each event of an events_list result, and its line in describe_pod's form."""
    document = Yaml.parse(call.content)
    items = document.data if isinstance(document.data, list) else []
    times = [_when(item) for item in items if isinstance(item, dict)]
    latest = max((time for time in times if time is not None), default=None)
    found = []
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        when = _when(item)
        # The Go server gives each event its time, not its age: the age in describe's column is
        # counted back from the latest event of the result, which keeps their order.
        age = f"{int((latest - when).total_seconds())}s" if latest and when else "-"
        involved = item.get("InvolvedObject") or {}
        message = str(item.get("Message") or "")
        event = {
            "kind": involved.get("Kind"),
            "name": involved.get("Name"),
            "namespace": item.get("Namespace"),
            "type": item.get("Type"),
            "reason": item.get("Reason"),
        }
        text = "  " + "   ".join(
            [str(item.get("Type") or "-"), str(item.get("Reason") or "-"), age, "-", message]
        )
        original = document.span([(number, "Message")]) or message
        found.append((event, Line(text, original, call.id, call.tool, message)))
    return found


def _when(event: dict[str, Any]) -> datetime | None:
    """When an event of an events_list result was last seen (its Timestamp), or None."""
    stamp = event.get("LastTimestamp") or event.get("Timestamp")
    if isinstance(stamp, datetime):
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
    try:
        return datetime.strptime(str(stamp), "%Y-%m-%d %H:%M:%S %z %Z")
    except ValueError:
        return None


def container_lines(
    container: dict[str, Any], status: dict[str, Any], where: tuple[Any, ...] | None
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """describe_pod's lines of one container, each with the YAML path of the field it shows."""

    def at(*path: Any) -> tuple[Any, ...]:
        return (*where, *path) if where is not None else ()

    yield f"  {container.get('name', '')}:", at("name")
    yield f"    Image:          {container.get('image', '')}", at("image")
    for label, key in (("State", "state"), ("Last State", "lastState")):
        state = status.get(key) or {}
        if not state:
            continue
        kind, detail = next(iter(state.items()))
        detail = detail or {}
        reason_path = at(key, kind, "reason") if "reason" in detail else at(key)
        yield f"    {label + ':':<16}{str(kind).capitalize()}", reason_path
        for field_key, title in (
            ("reason", "Reason"),
            ("message", "Message"),
            ("exitCode", "Exit Code"),
            ("startedAt", "Started"),
            ("finishedAt", "Finished"),
        ):
            if field_key in detail:
                yield f"      {title + ':':<14}{detail[field_key]}", at(key, kind, field_key)
    yield f"    Ready:          {'True' if status.get('ready') else 'False'}", at("ready")
    yield f"    Restart Count:  {status.get('restartCount', 0)}", at("restartCount")
    resources = container.get("resources") or {}
    for label, key in (("Limits", "limits"), ("Requests", "requests")):
        if resources.get(key):
            values = ", ".join(f"{k}={v}" for k, v in resources[key].items())
            yield f"    {label + ':':<16}{values}", ()
    for label, key in (
        ("Liveness", "livenessProbe"),
        ("Readiness", "readinessProbe"),
        ("Startup", "startupProbe"),
    ):
        if container.get(key):
            yield f"    {label + ':':<16}{_probe_text(container[key])}", ()
    ports = [f"{p.get('containerPort')}/{p.get('protocol', 'TCP')}" for p in container.get("ports") or []]
    if ports:
        yield f"    Ports:          {', '.join(ports)}", ()
    env = container.get("env") or []
    yield "    Environment:" + ("" if env else "    <none>"), ()
    for variable in env:
        source = variable.get("valueFrom") or {}
        reference = source.get("secretKeyRef") or source.get("configMapKeyRef")
        if reference:
            what = "secret" if "secretKeyRef" in source else "config map"
            value = f"<set to the key '{reference.get('key')}' in {what} '{reference.get('name')}'>"
        else:
            value = str(variable.get("value", ""))
        yield f"      {variable.get('name')}:  {value}", ()


def _probe_text(probe: dict[str, Any]) -> str:
    """A probe as `kubectl describe` writes it."""
    if probe.get("httpGet"):
        get = probe["httpGet"]
        what = f"http-get {str(get.get('scheme', 'HTTP')).lower()}://:{get.get('port')}{get.get('path', '/')}"
    elif probe.get("tcpSocket"):
        what = f"tcp-socket :{probe['tcpSocket'].get('port')}"
    elif probe.get("exec"):
        what = f"exec [{' '.join(map(str, probe['exec'].get('command') or []))}]"
    else:
        what = "unknown"
    timing = (
        f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 1)}s "
        f"period={probe.get('periodSeconds', 10)}s #success={probe.get('successThreshold', 1)} "
        f"#failure={probe.get('failureThreshold', 3)}"
    )
    return f"{what} {timing}"


# -- tables and YAML -------------------------------------------------------------------------------


def _table(text: str) -> list[tuple[dict[str, str], str]]:
    """The rows of a table the Go server printed (columns aligned, names of several words), each
    with its line: cells are cut at the header's column starts."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not re.match(r"^[A-Z]", lines[0]):
        return []
    header = lines[0]
    starts = [match.start() for match in re.finditer(r"(?:^|(?<=\s{2}))\S", header)]
    names = [header[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
    rows = []
    for line in lines[1:]:
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
        rows.append((dict(zip(names, cells, strict=True)), line))
    return rows


@dataclass(frozen=True)
class Yaml:
    """A YAML result, its data and where each value is in its text."""

    text: str
    data: Any
    node: Any

    @classmethod
    def parse(cls, text: str) -> Yaml:
        try:
            return cls(text, yaml.safe_load(text), yaml.compose(text))
        except yaml.YAMLError:
            return cls(text, None, None)

    def span(self, paths: Sequence[Sequence[Any]]) -> str:
        """The text of the lines that hold these fields (each a path of keys and indexes), from the
        first key to the last value; "" when one is not there."""
        lines = self.text.splitlines()
        first, last = len(lines), -1
        for path in paths:
            found = _yaml_node(self.node, path)
            if found is None:
                return ""
            key, value = found
            first = min(first, key.start_mark.line)
            end = value.end_mark.line if value.end_mark.column == 0 else value.end_mark.line + 1
            last = max(last, end - 1, key.start_mark.line)
        return "\n".join(lines[first : last + 1]).strip() if last >= first else ""


def _yaml_node(node: Any, path: Sequence[Any]) -> tuple[Any, Any] | None:
    """(key node, value node) at `path` in a composed YAML tree (for a sequence item, the item twice)."""
    key = node
    for step in path:
        if isinstance(node, yaml.MappingNode):
            pair = next((pair for pair in node.value if pair[0].value == step), None)
            if pair is None:
                return None
            key, node = pair
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            key = node = node.value[step]
        else:
            return None
    return (key, node) if node is not None else None


def statuses_of(pod: Any) -> list[dict[str, Any]]:
    status = (pod or {}).get("status") or {} if isinstance(pod, dict) else {}
    return [
        s
        for s in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        if isinstance(s, dict)
    ]


def call_signature(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool}:{json.dumps(arguments, sort_keys=True)}"
