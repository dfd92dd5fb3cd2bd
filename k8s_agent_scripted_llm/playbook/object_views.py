"""What the generic tools returned, as the playbook reads it past the pods: a listing's objects, an
object's YAML (`Shown`), the events of a namespace, label selectors and conditions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from k8s_agent_scripted_llm.playbook.conversation import Conversation


def listed(chat: Conversation, kind: str, namespace: str | None) -> str | None:
    for tool, arguments, content in reversed(chat.results):
        if (
            tool == "resources_list"
            and arguments.get("kind") == kind
            and (arguments.get("namespace") or None) == namespace
        ):
            return str(content)
    return None


def got(chat: Conversation, kind: str, name: str, namespace: str | None) -> tuple[str, str | None] | None:
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if (
            tool == "resources_get"
            and arguments.get("kind") == kind
            and arguments.get("name") == name
            and (arguments.get("namespace") or None) == namespace
        ):
            return content, chat.id_of(index)
    return None


@dataclass
class Shown:
    """An object as resources_get returned it: its data, its text and the call it came from."""

    kind: str
    name: str
    namespace: str | None
    data: dict[str, Any]
    text: str
    call_id: str | None

    def line(self, pattern: str) -> str | None:
        """The first line of the YAML (stripped) that matches `pattern`."""
        found = re.compile(pattern)
        return next((line.strip() for line in self.text.splitlines() if found.search(line)), None)

    def quote(self, text: str) -> dict[str, Any]:
        return {"text": text, "call_id": self.call_id, "tool": "resources_get"}

    def said(self, message: str) -> str | None:
        """How to quote a field's value: its whole line when the line holds it all, else the value
        itself (a server that folds a long YAML string over lines: the harness reads it decoded)."""
        if not message:
            return None
        line = self.line(re.escape(message[:40]))
        return line if line is not None and message in line else message


def shown(chat: Conversation, kind: str, name: str, namespace: str | None) -> Shown | None:
    found = got(chat, kind, name, namespace)
    if found is None or found[0].startswith("Tool call failed"):
        return None
    try:
        data = yaml.safe_load(found[0])
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    return Shown(kind, name, namespace, data, found[0], found[1])


def conditions_of(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(c.get("type")): c
        for c in (obj.get("status") or {}).get("conditions") or []
        if isinstance(c, dict) and c.get("type")
    }


def labels_match(selector: dict[str, Any] | None, labels: dict[str, Any]) -> bool:
    """Whether labels satisfy a label selector (a flat map, or matchLabels and matchExpressions)."""
    if not isinstance(selector, dict):
        return False
    flat = selector.get("matchLabels") if {"matchLabels", "matchExpressions"} & set(selector) else selector
    if any(str(labels.get(k)) != str(v) for k, v in (flat or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, op = expression.get("key"), expression.get("operator")
        values = [str(v) for v in expression.get("values") or []]
        if op == "In" and str(labels.get(key)) not in values:
            return False
        if op == "NotIn" and key in labels and str(labels[key]) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


@dataclass
class Event:
    """A Warning or Normal event a get_events result listed: its object, reason, message, call."""

    object: str
    type: str
    reason: str
    message: str
    line: str
    call_id: str | None
    namespace: str | None = None


def events(chat: Conversation) -> list[Event]:
    """Every event row of the conversation's get_events results (mock cluster's table)."""
    found: dict[str, Event] = {}
    for index, (tool, arguments, content) in enumerate(chat.results):
        if tool != "get_events" or content.startswith("Tool call failed"):
            continue
        header = content.splitlines()[0].split() if content.strip() else []
        for line in content.splitlines():
            match = re.match(r"^\s*(\S+\s+)?(?:\S+\s+)?(Normal|Warning)\s+(\S+)\s+([a-z]+/\S+)\s+(.*)$", line)
            if match:
                first, kind, reason, obj, message = match.groups()
                place = (first or "").strip() if header[:1] == ["NAMESPACE"] else arguments.get("namespace")
                found.setdefault(
                    line.strip(),
                    Event(obj, kind, reason, message.strip(), line.strip(), chat.id_of(index), place or None),
                )
    return list(found.values())


def event_quote(event: Event) -> dict[str, Any]:
    return {"text": event.message, "call_id": event.call_id, "tool": "get_events"}
