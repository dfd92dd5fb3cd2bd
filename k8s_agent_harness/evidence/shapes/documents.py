"""JSON and YAML results: each object in them a record.

An object is a record when it names itself (`metadata.name`, of its `kind`, in its
`metadata.namespace`; or a flat `name` beside a `kind` or a `namespace`, as some servers list
pods), or is an event (`involvedObject` / `regarding`: a record about that object). List items,
the documents of a `---` stream and the values of a wrapper's keys (`items`, `events`) are read in
turn; what lies inside an object's `metadata`, `spec` and `status`, and the references one object
makes to another (`ownerReferences`, `scaleTargetRef`, `claimRef`, volumes), are never records of
their own: a name there is no sighting of that object. An answer about an object is no object: an
API `Status` body, a lookup that found nothing (`found: false`), an error.

Each record's span is where its object is written in the text (JSON by the decoder's positions,
YAML by the composer's marks), and where its strings lie among the result's decoded strings (a JSON
escape undone, a YAML `''` read as `'`), so a quote is found in either form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from k8s_agent_harness.evidence.shapes import Record, Resource, is_name, kind_of

Path = tuple[Any, ...]

NOT_RECORDS = frozenset(
    {
        "metadata", "spec", "status", "ownerreferences", "scaletargetref", "claimref", "volumes",
        "volumeclaimtemplates", "involvedobject", "regarding", "related", "template", "targetref", "subjects",
        "roleref", "data", "stringdata", "annotations", "labels", "selector", "datasource", "backendrefs",
        "parentrefs", "spectemplate",
    }
)  # fmt: skip
"""Keys whose values are parts of an object or references to another: no record lies inside."""
_NOT_STATUS = frozenset(
    {
        "name", "namespace", "kind", "apiversion", "uid", "node", "nodename", "ip", "podip", "podips", "hostip",
        "hostips", "labels", "annotations", "image", "imageid", "containerid", "creationtimestamp", "message",
        "lasttransitiontime", "lastprobetime", "starttime", "startedat", "finishedat", "qosclass", "metadata",
        "spec", "involvedobject", "regarding", "resourceversion", "selflink", "generation", "allocatedresources",
        "resources", "volumemounts", "user", "lastupdatetime", "observedgeneration", "firsttimestamp",
        "lasttimestamp", "eventtime", "source", "reportingcomponent", "reportinginstance", "count",
    }
)  # fmt: skip
"""Keys that say what or where an object is, or when: not its status."""
_STATES = frozenset({"waiting", "running", "terminated"})
MAX_YAML_CHARACTERS = 16_000_000
"""A larger text is not parsed as YAML (about 2.5 MB a second): its lines are read as tables."""


@dataclass
class Document:
    """A result read as JSON or YAML: its records over the raw text, and its decoded strings with
    their records."""

    records: list[Record]
    strings: list[str]
    string_records: list[Record]
    """Each record over the (start, end) of its strings' indices in `strings`."""
    keys: list[str] = field(default_factory=list)
    """For each string, the keys that lead to it (`pods web-5c6b4d-k8m2n reason`): a map's key can
    name what its value is about, which the decoded string alone no longer shows."""
    text_keys: list[tuple[int, int, str]] = field(default_factory=list)
    """Each value's (start, end) in the raw text with the keys that lead to it."""


def read_json(text: str, value: Any, kind: str | None, namespace: str | None) -> Document:
    """A JSON result (already decoded as `value`) as records."""
    spans: dict[Path, tuple[int, int]] = {}
    try:
        _json_spans(text, _skip(text, 0), (), spans)
    except (ValueError, IndexError):
        spans = {}
    return _document([((), value)], spans, kind, namespace)


def read_value(value: Any, kind: str | None, namespace: str | None) -> Document:
    """A decoded value with no text of its own (structured content): its strings and their records."""
    return _document([((), value)], {}, kind, namespace)


def read_yaml(text: str, kind: str | None, namespace: str | None) -> Document | None:
    """A YAML result (one document or a `---` stream) as records; None when it is no YAML that holds
    a mapping or a list."""
    if len(text) > MAX_YAML_CHARACTERS:
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        nodes = list(yaml.compose_all(text, Loader=loader))
    except yaml.YAMLError:
        return None
    nodes = [node for node in nodes if node is not None]
    if not nodes or not all(isinstance(node, yaml.MappingNode | yaml.SequenceNode) for node in nodes):
        return None
    spans: dict[Path, tuple[int, int]] = {}
    roots = []
    for number, node in enumerate(nodes):
        roots.append(((number,), _yaml_value(node, (number,), spans)))
    return _document(roots, spans, kind, namespace)


def _document(
    roots: list[tuple[Path, Any]], spans: dict[Path, tuple[int, int]], kind: str | None, namespace: str | None
) -> Document:
    records: list[Record] = []
    strings: list[str] = []
    keys: list[str] = []
    string_records: list[Record] = []

    def walk(value: Any, path: Path, inside: str | None, searching: bool) -> None:
        searching = searching and not not_an_object(value)
        record = _record(value, kind, inside or namespace) if searching else None
        first = len(strings)
        if record is not None:
            inside = record.resource.namespace or inside
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key), inside, searching and str(key).lower() not in NOT_RECORDS)
        elif isinstance(value, list):
            for number, item in enumerate(value):
                walk(item, (*path, number), inside, searching)
        elif isinstance(value, str) and value.strip():
            strings.append(value)
            keys.append(" ".join(str(key) for key in path if isinstance(key, str)))
        if record is not None:
            if path in spans:
                records.append(record.moved(*spans[path]))
            if len(strings) > first:
                string_records.append(record.moved(first, len(strings)))

    for path, value in roots:
        walk(value, path, None, True)
    text_keys = [
        (start, end, words)
        for path, (start, end) in spans.items()
        if (words := " ".join(str(key) for key in path if isinstance(key, str)))
    ]
    return Document(records, strings, string_records, keys, text_keys)


_ABSENT = frozenset({"found", "exists", "exist", "present"})


def not_an_object(value: Any) -> bool:
    """Whether a mapping is an answer about an object rather than the object: an API `Status` body
    (a failure passed on as a result: its `details.name` is what was asked for), a lookup that says
    it found nothing (`found: false`: the name it holds is the question's), an error. Nothing in it
    is a record."""
    if not isinstance(value, dict):
        return False
    fields = {str(key).lower(): item for key, item in value.items()}  # one pass: this runs on every mapping
    if not fields.keys() & _ANSWER_KEYS:
        return False
    failure = (
        fields.get("code") is not None or fields.get("details") is not None or bool(fields.get("reason"))
    )
    if str(fields.get("kind") or "").lower() == "status" and failure:
        return True
    if fields.get("status") in ("Failure", "Success") and failure and fields.get("metadata") in (None, {}):
        return True  # a Status body printed without its kind
    if any(_scalar(fields.get(key)) == "false" for key in _ABSENT):
        return True
    return fields.get("error") not in (None, "", False, {}) and fields.get("metadata") is None


_ANSWER_KEYS = frozenset({"kind", "status", "error"}) | _ABSENT
"""The keys an answer about an object has (a mapping with none of them is no answer)."""


def _record(value: Any, call_kind: str | None, namespace: str | None) -> Record | None:
    """The record an object is, if it is one (its span set later)."""
    if not isinstance(value, dict):
        return None
    involved = _field(value, "involvedobject", "regarding")
    metadata = _field(value, "metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    own_namespace = _text(_field(metadata, "namespace")) or _text(_field(value, "namespace")) or namespace
    if isinstance(involved, dict):
        name = _text(_field(involved, "name"))
        if not name or not is_name(name):
            return None
        where = _text(_field(involved, "namespace")) or own_namespace
        shown = Resource(kind_of(_text(_field(involved, "kind"))), name, where)
        reason = _text(_field(value, "reason"))
        event_type = _text(_field(value, "type")) or ""
        return Record(shown, 0, 0, ((f"Event {event_type}".strip(), reason),) if reason else (), event=True)
    name = _text(_field(metadata, "name"))
    if name is None:
        flat = _text(_field(value, "name"))
        if flat is None or not (_field(value, "kind") or _field(value, "namespace")):
            return None
        name = flat
    if name is None or not is_name(name):
        return None
    kind = kind_of(_text(_field(value, "kind"))) if _field(value, "kind") else call_kind
    labels = _field(metadata, "labels")
    template_hash = _text(_field(labels, "pod-template-hash")) if isinstance(labels, dict) else None
    return Record(
        Resource(kind, name, own_namespace if own_namespace and is_name(own_namespace) else None),
        0,
        0,
        tuple(_status(value)),
        tuple(_owners(_field(metadata, "ownerreferences"))),
        template_hash=template_hash,
        whole_object=bool(metadata),
    )


def _status(value: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """An object's status fields: its flat ones (`status`, `ready`, `restarts`) and what its
    `status` holds (phase, conditions, container states and reasons, readiness); for a pod, its
    READY and RESTARTS as kubectl counts them over its containers (ready of all, restarts summed),
    in place of each container's restart count when it has several."""
    for key, item in value.items():
        lowered = str(key).lower()
        if lowered == "status" and isinstance(item, dict | list):
            containers = _field(item, "containerstatuses") if isinstance(item, dict) else None
            several = isinstance(containers, list) and len(containers) > 1
            for label, shown in _nested_status(item, ""):
                if not (several and label == "restartCount"):
                    yield label, shown
            if isinstance(containers, list) and containers and all(isinstance(c, dict) for c in containers):
                ready = sum(1 for c in containers if _scalar(_field(c, "ready")) == "true")
                yield "READY", f"{ready}/{len(containers)}"
                counts = [str(_scalar(_field(c, "restartcount"))) for c in containers]
                if all(count.isdigit() for count in counts):
                    yield "RESTARTS", str(sum(int(count) for count in counts))
        elif lowered not in _NOT_STATUS and _scalar(item) is not None:
            yield str(key), _scalar(item) or ""


def _nested_status(item: Any, label: str) -> Iterator[tuple[str, str]]:
    if isinstance(item, list):
        for element in item:
            yield from _nested_status(element, label)
        return
    if not isinstance(item, dict):
        return
    condition_type = _text(_field(item, "type"))
    condition_status = _scalar(_field(item, "status"))
    if condition_type and condition_status is not None:  # a condition: `Ready False`
        yield f"{label} {condition_type}".strip(), condition_status
    for key, value in item.items():
        lowered = str(key).lower()
        if lowered in _NOT_STATUS or (condition_type and lowered in ("type", "status")):
            continue
        if lowered in _STATES:
            yield f"{label} state".strip(), str(key)
        if isinstance(value, dict | list):
            # Under `lastState` the labels keep saying so (`lastState terminated reason`): history,
            # not how the resource is now.
            history = lowered.startswith("last") or label.startswith("last")
            yield from _nested_status(value, f"{label} {key}".strip() if history else "")
        elif (text := _scalar(value)) is not None and text != "":
            yield f"{label} {key}".strip(), text


def _owners(references: Any) -> Iterator[tuple[str, str]]:
    for reference in references if isinstance(references, list) else ():
        if isinstance(reference, dict):
            kind, name = _text(_field(reference, "kind")), _text(_field(reference, "name"))
            if kind and name:
                yield kind_of(kind) or kind.lower(), name


def _field(item: Any, *names: str) -> Any:
    if not isinstance(item, dict):
        return None
    for key, value in item.items():
        if str(key).lower() in names:
            return value
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float | str):
        return str(value)
    return None


# -- where each object is written --------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 (untyped in typeshed)


def _skip(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _json_spans(text: str, position: int, path: Path, spans: dict[Path, tuple[int, int]]) -> int:
    """Walk the JSON value at `position`, noting each value's span by its path; its end."""
    opening = text[position]
    if opening not in "{[":
        end = _DECODER.raw_decode(text, position)[1]
        spans[path] = (position, end)
        return end
    closing = "}" if opening == "{" else "]"
    start, position, number = position, _skip(text, position + 1), 0
    while text[position] != closing:
        if opening == "{":
            key, position = _scanstring(text, position + 1)
            position = _skip(text, position)
            if text[position] != ":":
                raise ValueError("expected ':'")
            position = _skip(text, position + 1)
            position = _json_spans(text, position, (*path, key), spans)
        else:
            position = _json_spans(text, position, (*path, number), spans)
            number += 1
        position = _skip(text, position)
        if text[position] == ",":
            position = _skip(text, position + 1)
    spans[path] = (start, position + 1)
    return position + 1


def _yaml_value(node: yaml.Node, path: Path, spans: dict[Path, tuple[int, int]]) -> Any:
    """A composed YAML node as a value (scalars as their decoded text), noting each value's span."""
    spans[path] = (node.start_mark.index, node.end_mark.index)
    if isinstance(node, yaml.MappingNode):
        value: dict[str, Any] = {}
        for key, item in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else ""
            value[name] = _yaml_value(item, (*path, name), spans)
        return value
    if isinstance(node, yaml.SequenceNode):
        return [_yaml_value(item, (*path, number), spans) for number, item in enumerate(node.value)]
    return "" if node.tag == "tag:yaml.org,2002:null" else str(node.value)
