"""The two tool surfaces a baseline may be offered, and how each prints what the baselines read.

- The mock cluster's tools: `list_pods`, `list_nodes`, `describe_pod`, `describe_node`, `get_events`,
  `get_pod_logs`, printed as kubectl prints them (tables, describe blocks).
- kubernetes-mcp-server's: `pods_list`, `pods_list_in_namespace`, `resources_list` (Nodes),
  `pods_get` and `resources_get` (one object as YAML), `events_list` (YAML), `pods_log`.

Each surface says which call reads what (the pods of a namespace, the Warning events of one, a pod's
details, a container's logs) and reads its own answers into the same few facts: the listing's rows,
a pod's containers and its `OOMKilled` line, the events, a node's conditions. Every quote a reader
takes is a span of the tool's text exactly as it came (a YAML key and its value, a table cell, a
describe line), so the harness finds it where it was printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from k8s_agent_scripted_llm.baseline_tables import Row, restarts, rows
from k8s_agent_scripted_llm.baseline_wire import Call

HEALTHY_STATUSES = frozenset({"Running", "Completed", "Succeeded"})


@dataclass(frozen=True)
class Pod:
    """A pod as its listing row shows it."""

    namespace: str
    name: str
    ready: str
    status: str
    restarts: int
    node: str
    line: str

    @property
    def unhealthy(self) -> bool:
        """Not Running, Completed or Succeeded; or Running with a container not ready."""
        if self.status not in HEALTHY_STATUSES:
            return True
        ready, _, total = self.ready.partition("/")
        return self.status == "Running" and bool(total) and ready != total

    @property
    def shown_status(self) -> str:
        """The status as the listing shows it: `CrashLoopBackOff, READY 0/1, 14 restarts`."""
        parts = [self.status] + ([f"READY {self.ready}"] if self.ready else [])
        return ", ".join(parts + ([f"{self.restarts} restarts"] if self.restarts else []))


@dataclass(frozen=True)
class Node:
    """A node as its listing row shows it."""

    name: str
    status: str
    line: str


@dataclass(frozen=True)
class Event:
    """One event: what it is about, its type, reason and message, and the text to quote for it."""

    kind: str
    name: str
    namespace: str | None
    type: str
    reason: str
    message: str
    quote: str


@dataclass(frozen=True)
class Container:
    """A container of a pod, as its details show it."""

    name: str
    restarts: int
    started: bool
    """It ran at some point (running or terminated now, or a last termination): it has logs."""
    ready: bool


@dataclass(frozen=True)
class PodDetails:
    containers: tuple[Container, ...] = ()
    oom_quote: str | None = None
    """The line that says a container was OOMKilled, as printed."""


@dataclass(frozen=True)
class NodeDetails:
    conditions: tuple[tuple[str, str, str], ...] = ()
    """(type, status, the text to quote for it) of each condition."""
    events: tuple[Event, ...] = ()
    """The node's events, when its details hold them."""


class Surface(Protocol):
    """The calls that read the cluster on one tool surface, and readers of their answers."""

    name: str

    def list_pods(self, namespace: str | None) -> Call: ...
    def list_nodes(self) -> Call: ...
    def describe_pod(self, pod: Pod) -> Call: ...
    def warning_events(self, namespace: str) -> Call: ...
    def node_events(self) -> Call | None: ...
    def describe_node(self, name: str) -> Call: ...
    def logs(self, pod: Pod, container: str, previous: bool) -> Call: ...
    def events(self, text: str) -> list[Event]: ...
    def pod_details(self, text: str) -> PodDetails: ...
    def node_details(self, text: str) -> NodeDetails: ...


def surface_for(tools: frozenset[str]) -> Surface | None:
    """The surface whose tools the request offers, or None when it offers neither's."""
    if {"list_pods", "describe_pod"} <= tools:
        return MockSurface()
    if {"pods_list", "pods_list_in_namespace", "pods_get"} <= tools:
        return KubeSurface()
    return None


def pods(text: str) -> list[Pod]:
    """The rows of a pod listing (either surface's)."""
    return [
        Pod(
            row.get("NAMESPACE"),
            row.get("NAME"),
            row.get("READY"),
            row.get("STATUS"),
            restarts(row.get("RESTARTS")),
            row.get("NODE"),
            row.line.strip(),
        )
        for row in rows(text, "NAME", "STATUS")
    ]


def nodes(text: str) -> list[Node]:
    """The rows of a node listing (either surface's)."""
    return [
        Node(row.get("NAME"), row.get("STATUS"), row.line.strip()) for row in rows(text, "NAME", "STATUS")
    ]


# -- the mock cluster ----------------------------------------------------------------------------------

_CONTAINER = re.compile(r"^  (\S+):$")
_FIELD = re.compile(r"^\s+([A-Z][A-Za-z ]*):\s+(.*)$")


class MockSurface:
    """The mock cluster's tools: kubectl's tables and describe blocks."""

    name = "mock"

    def list_pods(self, namespace: str | None) -> Call:
        return Call.of("list_pods", namespace=namespace)

    def list_nodes(self) -> Call:
        return Call.of("list_nodes")

    def describe_pod(self, pod: Pod) -> Call:
        return Call.of("describe_pod", name=pod.name, namespace=pod.namespace)

    def warning_events(self, namespace: str) -> Call:
        return Call.of("get_events", namespace=namespace, type="Warning")

    def node_events(self) -> Call | None:
        return None  # describe_node shows a node's events

    def describe_node(self, name: str) -> Call:
        return Call.of("describe_node", name=name)

    def logs(self, pod: Pod, container: str, previous: bool) -> Call:
        return Call.of(
            "get_pod_logs",
            name=pod.name,
            namespace=pod.namespace,
            container=container,
            previous=previous or None,
        )

    def events(self, text: str) -> list[Event]:
        found = []
        for row in rows(text, "TYPE", "REASON", "OBJECT", "MESSAGE"):
            kind, _, name = row.get("OBJECT").partition("/")
            found.append(_table_event(row, kind, name))
        return found

    def pod_details(self, text: str) -> PodDetails:
        containers: list[Container] = []
        oom = None
        current: dict[str, Any] | None = None
        section = ""
        for line in text.splitlines():
            if line and not line.startswith(" "):
                section = line.split(":", 1)[0]
                continue
            if section != "Containers":
                continue
            header = _CONTAINER.match(line)
            if header:
                current = {"name": header.group(1), "restarts": 0, "started": False, "ready": False}
                containers.append(current)  # type: ignore[arg-type]
                continue
            field = _FIELD.match(line)
            if current is None or field is None:
                continue
            key, value = field.group(1), field.group(2).strip()
            if key in ("State", "Last State") and value in ("Running", "Terminated"):
                current["started"] = True
            elif key == "Restart Count":
                current["restarts"] = int(value) if value.isdigit() else 0
            elif key == "Ready":
                current["ready"] = value == "True"
            elif key == "Reason" and value == "OOMKilled" and oom is None:
                oom = line.strip()
        return PodDetails(tuple(Container(**c) for c in containers), oom)  # type: ignore[arg-type]

    def node_details(self, text: str) -> NodeDetails:
        conditions, events = [], []
        section = ""
        for line in text.splitlines():
            if line and not line.startswith(" "):
                section = line.split(":", 1)[0]
                continue
            if section == "Conditions" and len(line.split()) == 2:
                kind, status = line.split()
                conditions.append((kind, status, line.strip()))
            elif section == "Events" and line.strip() != "<none>":
                parts = line.strip().split("  ", 2)
                if len(parts) == 3:
                    kind, reason, message = (part.strip() for part in parts)
                    events.append(Event("node", "", None, kind, reason, message, message))
        return NodeDetails(tuple(conditions), tuple(events))


def _table_event(row: Row, kind: str, name: str) -> Event:
    message = row.get("MESSAGE")
    return Event(
        kind.lower(), name, row.get("NAMESPACE") or None, row.get("TYPE"), row.get("REASON"), message, message
    )


# -- kubernetes-mcp-server --------------------------------------------------------------------------------


class KubeSurface:
    """kubernetes-mcp-server's tools: kubectl's tables for listings, YAML for objects and events."""

    name = "kubernetes-mcp-server"

    def list_pods(self, namespace: str | None) -> Call:
        if namespace:
            return Call.of("pods_list_in_namespace", namespace=namespace)
        return Call.of("pods_list")

    def list_nodes(self) -> Call:
        return Call.of("resources_list", apiVersion="v1", kind="Node")

    def describe_pod(self, pod: Pod) -> Call:
        return Call.of("pods_get", name=pod.name, namespace=pod.namespace)

    def warning_events(self, namespace: str) -> Call:
        return Call.of("events_list", namespace=namespace, fieldSelector="type=Warning")

    def node_events(self) -> Call | None:
        return Call.of("events_list", fieldSelector="involvedObject.kind=Node")

    def describe_node(self, name: str) -> Call:
        return Call.of("resources_get", apiVersion="v1", kind="Node", name=name)

    def logs(self, pod: Pod, container: str, previous: bool) -> Call:
        return Call.of(
            "pods_log", name=pod.name, namespace=pod.namespace, container=container, previous=previous or None
        )

    def events(self, text: str) -> list[Event]:
        document = _compose(text)
        found = []
        for item in _items(document):
            fields = _mapping(item)
            involved = _mapping(fields["InvolvedObject"][1]) if "InvolvedObject" in fields else {}
            message = fields.get("Message")
            found.append(
                Event(
                    _scalar(involved.get("Kind")).lower(),
                    _scalar(involved.get("Name")),
                    _scalar(fields.get("Namespace")) or None,
                    _scalar(fields.get("Type")),
                    _scalar(fields.get("Reason")),
                    _scalar(message),
                    _span(text, message) if message else "",
                )
            )
        return found

    def pod_details(self, text: str) -> PodDetails:
        document = _compose(text)
        status = _mapping(_mapping(document).get("status", (None, None))[1])
        containers = []
        for key in ("initContainerStatuses", "containerStatuses"):
            for item in _items(status.get(key, (None, None))[1]):
                fields = _mapping(item)
                state = _mapping(fields.get("state", (None, None))[1])
                last = _mapping(fields.get("lastState", (None, None))[1])
                containers.append(
                    Container(
                        _scalar(fields.get("name")),
                        int(_scalar(fields.get("restartCount")) or 0),
                        "running" in state or "terminated" in state or "terminated" in last,
                        _scalar(fields.get("ready")) == "true",
                    )
                )
        oom = next(
            (
                text[key.start_mark.index : value.end_mark.index]
                for key, value in _pairs(document)
                if key.value == "reason" and getattr(value, "value", None) == "OOMKilled"
            ),
            None,
        )
        return PodDetails(tuple(containers), oom)

    def node_details(self, text: str) -> NodeDetails:
        document = _compose(text)
        status = _mapping(_mapping(document).get("status", (None, None))[1])
        conditions = []
        for item in _items(status.get("conditions", (None, None))[1]):
            fields = _mapping(item)
            said = fields.get("message") or fields.get("type")
            conditions.append(
                (
                    _scalar(fields.get("type")),
                    _scalar(fields.get("status")),
                    _span(text, said) if said else "",
                )
            )
        return NodeDetails(tuple(conditions))


# -- YAML as kubernetes-mcp-server prints it: parsed with the positions of every key and value ----------


def _compose(text: str) -> Any:
    """The YAML document's node tree (positions kept), or None when the text is no YAML."""
    import yaml

    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def _mapping(node: Any) -> dict[str, tuple[Any, Any]]:
    """A mapping node's (key node, value node) by key."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(key.value): (key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def _items(node: Any) -> list[Any]:
    import yaml

    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _scalar(pair: tuple[Any, Any] | None) -> str:
    """A pair's value as the YAML means it (a scalar's decoded text), "" when it is none."""
    import yaml

    if pair is None or not isinstance(pair[1], yaml.ScalarNode):
        return ""
    return str(pair[1].value)


def _span(text: str, pair: tuple[Any, Any]) -> str:
    """The key and its value exactly as the YAML text prints them (`Message: '... didn''t ...'`)."""
    key, value = pair
    return text[key.start_mark.index : value.end_mark.index]


def _pairs(node: Any) -> Iterator[tuple[Any, Any]]:
    """Every (key node, value node) of the tree, depth first."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key, value
            yield from _pairs(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _pairs(item)
