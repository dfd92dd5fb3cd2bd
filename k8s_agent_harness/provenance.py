"""Provenance: what each tool result of a run is, and what a report's quote or name may rest on.

Every tool result is kept with where it came from: the cluster tool, its arguments, and whether
the call succeeded. The harness's own `search_results` tool is no source: its lines are copies of
stored results, which are sources themselves, and its header repeats the model's own pattern.

From each result the harness reads, by structure and never by the model's word:

- its text, whitespace-normalised, for finding quotes (and for a JSON result its decoded strings);
- the spans that only repeat the call's own arguments (`0 matches for "X"`, `pods "X" not found`):
  they carry nothing the cluster said, so they never count towards a quote's information;
- its records: a table row (with its header), a YAML list item, a describe block, a JSON list
  item, a `namespace/name` line; a quote is about the resource its record is, or (free text)
  about what the call named;
- the resources it shows, each with the text it shows about it: a listing row (a NAME or OBJECT
  column), a describe header (`Name:` with its `Namespace:`), an event's object, an object of a
  JSON or YAML result (kind, name, namespace), a `namespace/name` line.

Logs are the workload's own words: nothing in them is read as a table, a header or an object (a
log line can print anything); only a log search's `namespace/pod:N:` prefix is structure.

`findings.verify` checks a report against these; docs/report.md has the rule and its threat model.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

MIN_QUOTE_CHARACTERS = 12
"""A quote must carry at least this many letters or digits the call was not itself asked..."""
MIN_LINE_CHARACTERS = 4
"""...unless it is a whole line of the result, with at least this many of its own."""

# Argument names that name the resource a call is about (compared lowercase, without `_` and `-`).
_NAME_ARGUMENTS = frozenset({"name", "pod", "podname", "node", "nodename", "resourcename", "object"})
_NAMESPACE_ARGUMENTS = frozenset({"namespace", "ns"})
_KIND_ARGUMENTS = frozenset({"kind", "resourcetype", "resource", "type"})

# Kinds as the report names them, from what tools and kubectl call them.
_KIND_ALIASES = {
    "po": "pod",
    "pod": "pod",
    "pods": "pod",
    "log": "pod",
    "logs": "pod",
    "no": "node",
    "node": "node",
    "nodes": "node",
    "deploy": "deployment",
    "deployment": "deployment",
    "deployments": "deployment",
    "job": "job",
    "jobs": "job",
    "pvc": "pvc",
    "pvcs": "pvc",
    "persistentvolumeclaim": "pvc",
    "persistentvolumeclaims": "pvc",
    "svc": "service",
    "service": "service",
    "services": "service",
    "rs": "replicaset",
    "replicaset": "replicaset",
    "replicasets": "replicaset",
    "sts": "statefulset",
    "statefulset": "statefulset",
    "statefulsets": "statefulset",
    "ds": "daemonset",
    "daemonset": "daemonset",
    "daemonsets": "daemonset",
    "cj": "cronjob",
    "cronjob": "cronjob",
    "cronjobs": "cronjob",
    "ns": "namespace",
    "namespace": "namespace",
    "namespaces": "namespace",
    "cm": "configmap",
    "configmap": "configmap",
    "configmaps": "configmap",
    "secret": "secret",
    "secrets": "secret",
    "pv": "persistentvolume",
    "persistentvolume": "persistentvolume",
    "persistentvolumes": "persistentvolume",
    "ing": "ingress",
    "ingress": "ingress",
    "ingresses": "ingress",
    "hpa": "horizontalpodautoscaler",
    "horizontalpodautoscaler": "horizontalpodautoscaler",
    "event": "event",
    "events": "event",
    "ev": "event",
}
# The controllers a pod's name is made from (`<owner>-<suffix>`): their events are about its pods too.
OWNER_KINDS = frozenset({"replicaset", "deployment", "job", "statefulset", "daemonset", "cronjob"})
_OWNER_WORDS = re.compile(
    r"(?<![A-Za-z0-9])(?:replicasets?|deployments?|jobs?|statefulsets?|daemonsets?|cronjobs?)(?![A-Za-z0-9])",
    re.IGNORECASE,
)

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
MAX_NAME = 253
"""The longest object name Kubernetes allows (a DNS subdomain): a longer cell names nothing."""
_RESOURCE_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_NAMESPACED_LINE = re.compile(rf"({_LABEL})/({_LABEL}(?:\.{_LABEL})*)(:\d+:.*)?")
_OBJECT_REFERENCE = re.compile(rf"([A-Za-z]+)/({_LABEL}(?:\.{_LABEL})*)")
_HEADER_CELL = re.compile(r"[A-Z][A-Z0-9/._-]*(?:\([^()]*\))?(?: [A-Z][A-Z0-9/._-]*(?:\([^()]*\))?)*")
_DESCRIBE_FIELD = re.compile(r"([A-Z][A-Za-z ]*?):\s+(\S.*?)\s*$")


def normalised(text: str) -> str:
    """Whitespace collapsed, for comparing a quote with the tool results it claims to come from."""
    return " ".join(text.split())


def kind_of(word: str | None) -> str | None:
    """A resource kind as the report names it (`Pod`, `pods`, `po` -> `pod`), or None when unknown."""
    if not word:
        return None
    key = re.sub(r"[^a-z]", "", word.lower())
    return _KIND_ALIASES.get(key)


def informative(text: str) -> int:
    """The letters and digits of a text: what a quote must carry enough of."""
    return sum(1 for character in text if character.isalnum())


@dataclass(frozen=True)
class Resource:
    """A resource a tool result shows: its kind (None when the result does not say), name, namespace."""

    kind: str | None
    name: str
    namespace: str | None

    def __str__(self) -> str:
        where = f" in namespace {self.namespace}" if self.namespace else ""
        return f"{self.kind or 'resource'} {self.name}{where}"


@dataclass(frozen=True)
class Sighting:
    """One place a result shows a resource, with the text it shows about it (its row, its block)."""

    resource: Resource
    facts: str


@dataclass(frozen=True)
class Record:
    """What a line of a result belongs to: a table row, a describe block, a YAML or JSON list item,
    a `namespace/name` line, or (with no subjects) a line of free text (findings.py decides what free
    text is about: what the call named, or what it names when the call named nothing)."""

    text: str
    subjects: tuple[Resource, ...] | None = None
    """The resources the record is about (a row's NAME and OBJECT, a block's `Name:`); None for free text."""

    def is_about(self, name: str, kind: str | None) -> bool:
        """Whether the record is about this resource: it is its subject (free text: it names it,
        echoes of the call's arguments blanked out), or, for a pod, its subject is the pod's owner
        (`job/batch-1`, a ReplicaSet event)."""
        if self.subjects is None:
            if names_in(self.text, name):
                return True
            return (
                kind in (None, "pod")
                and bool(_OWNER_WORDS.search(self.text))
                and any(names_in(self.text, owner) for owner in owners(name))
            )
        if any(subject.name == name for subject in self.subjects):
            return True
        if kind not in (None, "pod"):
            return False
        candidates = owners(name)
        return any(
            subject.name in candidates
            and (subject.kind in OWNER_KINDS or (subject.kind is None and _OWNER_WORDS.search(self.text)))
            for subject in self.subjects
        )


@dataclass(frozen=True)
class Reading:
    """A result as a text to find quotes in: normalised, with its lines and their records.

    `lines` are the (start, end) of each line in `text`; `line_records[i]` the index in `records`
    of the record line i belongs to; `echoes` the spans that repeat the call's arguments.
    """

    text: str
    lines: list[tuple[int, int]]
    line_records: list[int]
    records: list[Record]
    echoes: list[tuple[int, int]] = field(default_factory=list)
    """Sorted and disjoint."""

    @cached_property
    def _line_starts(self) -> list[int]:
        return [line[0] for line in self.lines]

    @cached_property
    def _echo_starts(self) -> list[int]:
        return [span[0] for span in self.echoes]

    def occurrences(self, quote: str) -> Iterator[tuple[int, int]]:
        """Where `quote` (normalised) occurs in the text."""
        start = self.text.find(quote)
        while start >= 0:
            yield start, start + len(quote)
            start = self.text.find(quote, start + 1)

    def own_characters(self, start: int, end: int) -> int:
        """Letters and digits of text[start:end] outside the spans that repeat the call's arguments."""
        count = informative(self.text[start:end])
        index = max(0, bisect.bisect_right(self._echo_starts, start) - 1)
        while index < len(self.echoes) and self.echoes[index][0] < end:
            low, high = self.echoes[index]
            if low < end and high > start:
                count -= informative(self.text[max(low, start) : min(high, end)])
            index += 1
        return count

    def whole_line(self, start: int, end: int) -> bool:
        """Whether text[start:end] is exactly one line of the result."""
        index = self._line_at(start)
        return index is not None and self.lines[index] == (start, end)

    def line_of(self, position: int) -> str:
        """The (normalised) line the position is in."""
        index = self._line_at(position)
        return self.text[slice(*self.lines[index])] if index is not None else ""

    def records_of(self, start: int, end: int) -> list[Record]:
        """The records the span [start, end) lies in."""
        first, last = self._line_at(start), self._line_at(max(start, end - 1))
        if first is None or last is None:
            return []
        return [self.records[r] for r in dict.fromkeys(self.line_records[first : last + 1])]

    def _line_at(self, position: int) -> int | None:
        index = bisect.bisect_right(self._line_starts, position) - 1
        return index if 0 <= index < len(self.lines) else None


@dataclass
class Source:
    """One tool result of the run with its provenance: the call, its arguments, success or failure."""

    call_id: str
    tool: str
    text: str
    arguments: dict[str, Any]
    ok: bool
    structured: Any = None
    """The server's structured content sent with the text, when it sent one: its string values are
    quotable as the text's are."""
    parameters: tuple[str, ...] = ()
    """The argument names the tool's input schema declares."""

    @cached_property
    def named(self) -> list[tuple[str, str | None]]:
        """The (name, namespace) of what the call itself named: `describe_pod(name=x, namespace=y)`."""
        names = [
            value
            for key, value in self.arguments.items()
            if _plain(key) in _NAME_ARGUMENTS and isinstance(value, str) and value
        ]
        return [(name, self.namespace) for name in names]

    @cached_property
    def namespace(self) -> str | None:
        """The namespace the call was scoped to, if it named one."""
        return next(
            (
                value
                for key, value in self.arguments.items()
                if _plain(key) in _NAMESPACE_ARGUMENTS and isinstance(value, str) and value
            ),
            None,
        )

    @cached_property
    def kind(self) -> str | None:
        """The kind of resource the call is about: its kind argument, else its tool name's word."""
        for key, value in self.arguments.items():
            if _plain(key) in _KIND_ARGUMENTS and isinstance(value, str):
                found = kind_of(value)
                if found is not None and found != "event":
                    return found
        words = [kind_of(word) for word in re.split(r"[_\-.\s]+", self.tool)]
        for wanted in ("node", "pod"):  # describe_node lists pods; pods_log is about a pod
            if wanted in words:
                return wanted
        return next((word for word in words if word is not None and word != "event"), None)

    @cached_property
    def reads_logs(self) -> bool:
        """Whether the result is logs (`get_pod_logs`, `pods_log`, `search_logs`): a workload's own
        words, never read as tables, objects or headers (a log line can print anything)."""
        return any(word in ("log", "logs") for word in re.split(r"[_\-.\s]+", self.tool.lower()))

    def calls_it(self, name: str, namespace: str | None) -> bool:
        """Whether the call named this resource (and, when both say one, its namespace)."""
        return any(
            named == name and (namespace is None or called is None or called == namespace)
            for named, called in self.named
        )

    @cached_property
    def readings(self) -> list[Reading]:
        """The text as lines and records, and for a JSON result its decoded strings."""
        lines = self.text.splitlines()
        line_records, records = _text_records(
            lines,
            self.kind,
            self.namespace,
            logs=self.reads_logs,
            names_a_pod=self.kind == "pod" and bool(self.named),
        )
        readings = [_text_reading(lines, line_records, records, self._echo_strings)]
        data = _json(self.text)
        if data is not None:
            readings.append(_json_reading(data, self.kind, self.namespace, self._echo_strings))
        if self.structured is not None and self.ok:
            readings.append(_json_reading(self.structured, self.kind, self.namespace, self._echo_strings))
        return readings

    @cached_property
    def _echo_strings(self) -> list[str]:
        """The call's argument strings, in the forms a server may repeat them (plain, repr, JSON)."""
        found: dict[str, None] = {}
        for value in _strings(self.arguments):
            for form in (value, repr(value)[1:-1], json.dumps(value)[1:-1]):
                text = normalised(form).lower()
                if len(text) >= 2:
                    found[text] = None
        return sorted(found, key=len, reverse=True)

    @cached_property
    def sightings(self) -> list[Sighting]:
        """The resources the result shows, each with what it shows about it (none for a failure)."""
        if not self.ok:
            return []
        found: dict[Sighting, None] = {}
        for reading in self.readings:
            for record in reading.records:
                for subject in record.subjects or ():
                    found[Sighting(subject, record.text)] = None
        if not self.reads_logs:
            for data in (_json(self.text), self.structured):
                if data is not None:
                    for sighting in _object_sightings(data, self.kind, self.namespace, deep=True):
                        found[sighting] = None
        return list(found)


def _plain(key: Any) -> str:
    return re.sub(r"[_-]", "", str(key).lower())


def sources_of(results: Iterable[Any]) -> list[Source]:
    """Sources from the run's tool results (`grounding.ToolText`: call id, tool, text, arguments, ok)."""
    sources = []
    for result in results:
        arguments: Any = getattr(result, "arguments", "") or {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments else {}
            except ValueError:
                arguments = {}
        sources.append(
            Source(
                str(result.call_id),
                str(result.tool),
                str(result.text),
                arguments if isinstance(arguments, dict) else {},
                bool(getattr(result, "ok", True)),
                getattr(result, "structured", None),
                tuple(getattr(result, "parameters", ()) or ()),
            )
        )
    return sources


# -- readings -----------------------------------------------------------------------------------------


def _text_reading(
    lines: Sequence[str], line_records: Sequence[int], records: list[Record], echo_strings: Sequence[str]
) -> Reading:
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    kept: list[int] = []
    position = 0
    for index, line in enumerate(lines):
        shown = normalised(line)
        if not shown:
            continue
        if parts:
            position += 1
        spans.append((position, position + len(shown)))
        parts.append(shown)
        kept.append(line_records[index])
        position += len(shown)
    joined = " ".join(parts)
    echoes = _echo_spans(joined, echo_strings)
    if echoes:  # a line of free text names only what it says of its own, not what it repeats
        records = list(records)
        for (start, end), record in zip(spans, kept, strict=True):
            if records[record].subjects is None:
                records[record] = Record(_masked(joined, start, end, echoes))
    return Reading(joined, spans, kept, records, echoes)


def _masked(text: str, start: int, end: int, echoes: Sequence[tuple[int, int]]) -> str:
    """text[start:end] with the echoed spans blanked out."""
    characters = list(text[start:end])
    for low, high in echoes:
        for position in range(max(low, start), min(high, end)):
            characters[position - start] = " "
    return "".join(characters)


def _text_records(
    lines: Sequence[str],
    kind: str | None,
    namespace: str | None,
    *,
    logs: bool = False,
    names_a_pod: bool = False,
) -> tuple[list[int], list[Record]]:
    """The record of each line: kubectl tables' rows, `namespace/name` lines (a node's pods, a log
    search's hits), a YAML document or its list items, describe blocks; every other line is free
    text, a record of its own. In logs only a search hit's `namespace/pod:N:` prefix is structure:
    what a log line prints is the workload's own text. A result about one pod shows no other pod by
    a bare `namespace/name` line."""
    line_records = [-1] * len(lines)
    records: list[Record] = []

    def add(record: Record, members: Iterable[int]) -> None:
        records.append(record)
        for member in members:
            if line_records[member] < 0:
                line_records[member] = len(records) - 1

    for index, line in enumerate(lines):
        match = _NAMESPACED_LINE.fullmatch(line.strip())
        if match is None or kind_of(match[1]) is not None:
            continue
        hit = match[3] is not None
        if (logs and not hit) or (names_a_pod and not hit):
            continue
        add(Record(normalised(line), (Resource("pod", match[2], match[1]),)), [index])
    if logs:
        for index, line in enumerate(lines):
            if line_records[index] < 0:
                add(Record(normalised(line)), [index])
        return line_records, records
    for header, rows in _tables(lines):
        columns = _header_columns(lines[header]) or []
        for row in rows:
            cells = _cells(lines[row], columns)
            shown: list[Resource] = []
            row_namespace = cells.get("NAMESPACE") or namespace
            name = cells.get("NAME", "")
            if name and len(name) <= MAX_NAME and _RESOURCE_NAME.fullmatch(name):
                shown.append(Resource(kind_of(cells.get("KIND")) or kind, name, row_namespace or None))
            reference = _OBJECT_REFERENCE.fullmatch(cells.get("OBJECT", ""))
            if reference:
                shown.append(Resource(kind_of(reference[1]), reference[2], row_namespace or None))
            add(Record(normalised(f"{lines[header]}\n{lines[row]}"), tuple(shown)), [row])
    for members, subjects in [*_yaml_blocks(lines, kind, namespace), *_describe_blocks(lines, kind)]:
        free = [member for member in members if line_records[member] < 0]
        if free:
            add(Record(normalised("\n".join(lines[m] for m in free)), subjects), free)
    for index, line in enumerate(lines):
        if line_records[index] < 0:
            add(Record(normalised(line)), [index])
    return line_records, records


def _json_reading(data: Any, kind: str | None, namespace: str | None, echo_strings: Sequence[str]) -> Reading:
    """The decoded strings of a JSON result, one a line; each in the record of its outermost list
    item (or of the whole result), about the objects that item is."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    line_records: list[int] = []
    records: list[Record] = []
    position = 0

    def record_of(item: Any) -> int:
        subjects = tuple(
            sighting.resource for sighting in _object_sightings(item, kind, namespace, deep=False)
        )
        records.append(Record(normalised(" ".join(_strings(item, with_keys=True))), subjects))
        return len(records) - 1

    def walk(item: Any, record: int, in_item: bool) -> None:
        nonlocal position
        if isinstance(item, dict):
            for value in item.values():
                walk(value, record, in_item)
        elif isinstance(item, list):
            for element in item:
                nested = isinstance(element, dict | list) and not in_item
                walk(element, record_of(element) if nested else record, in_item or nested)
        elif isinstance(item, str):
            shown = normalised(item)
            if shown:
                if parts:
                    position += 1
                spans.append((position, position + len(shown)))
                parts.append(shown)
                line_records.append(record)
                position += len(shown)

    walk(data, record_of(data), False)
    joined = "\n".join(parts)
    return Reading(joined, spans, line_records, records, _echo_spans(joined, echo_strings))


def _echo_spans(text: str, echo_strings: Sequence[str]) -> list[tuple[int, int]]:
    if not echo_strings:
        return []
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for echo in echo_strings:
        start = lowered.find(echo)
        while start >= 0:
            spans.append((start, start + len(echo)))
            start = lowered.find(echo, start + 1)
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


# -- the structures of a result -------------------------------------------------------------------------


def _tables(lines: Sequence[str]) -> list[tuple[int, list[int]]]:
    """kubectl-style tables: (header line, its row lines) for each header with a NAME or OBJECT column."""
    tables: list[tuple[int, list[int]]] = []
    index = 0
    while index < len(lines):
        if _header_columns(lines[index]) is None:
            index += 1
            continue
        rows = []
        following = index + 1
        while following < len(lines) and lines[following].strip():
            rows.append(following)
            following += 1
        tables.append((index, rows))
        index = following
    return tables


def _header_columns(line: str) -> list[tuple[str, int]] | None:
    """A header line's columns and where they start, if it is a table header naming resources."""
    if not line or line != line.lstrip() or "  " not in line:
        return None
    cells = [(m[0], m.start()) for m in re.finditer(r"\S+(?: \S+)*", line)]
    if len(cells) < 2 or not all(_HEADER_CELL.fullmatch(cell) for cell, _ in cells):
        return None
    names = {cell for cell, _ in cells}
    return cells if names & {"NAME", "OBJECT"} else None


def _cells(row: str, columns: Sequence[tuple[str, int]]) -> dict[str, str]:
    """A row's cells, cut where the header's columns start (kubectl aligns them so)."""
    return {
        name: row[start : columns[number + 1][1] if number + 1 < len(columns) else len(row)].strip()
        for number, (name, start) in enumerate(columns)
    }


_YAML_KEY = re.compile(r"(\s*)(?:- )?([A-Za-z][A-Za-z0-9_]*):\s*(.*?)\s*$")
_NESTED_OBJECTS = frozenset({"metadata", "involvedobject", "regarding"})


def _yaml_blocks(
    lines: Sequence[str], kind: str | None, namespace: str | None
) -> Iterator[tuple[list[int], tuple[Resource, ...]]]:
    """A YAML document whose `metadata:` is at column 0 (one object), else its list items at the
    outermost depth (events, objects): their lines, and the objects they are (by `name`, `kind`,
    `namespace` at their own level or under `metadata` / `involvedObject`)."""
    if any(line.startswith("metadata:") for line in lines):
        yield list(range(len(lines))), _yaml_subjects(lines, 0, -2, kind, namespace)
        return
    items = [i for i, line in enumerate(lines) if re.match(r"\s*- [A-Za-z]", line)]
    if not items:
        return
    depth = min(len(lines[i]) - len(lines[i].lstrip()) for i in items)
    start: int | None = None
    for index, line in enumerate([*lines, ""]):
        indent = len(line) - len(line.lstrip())
        ends = index == len(lines) or (line.strip() and indent <= depth)
        if ends and start is not None:
            yield list(range(start, index)), _yaml_subjects(lines[start:index], depth, depth, kind, namespace)
            start = None
        if index < len(lines) and line.strip() and indent == depth and line.lstrip().startswith("- "):
            start = index


def _yaml_subjects(
    block: Sequence[str], depth: int, item_depth: int, kind: str | None, namespace: str | None
) -> tuple[Resource, ...]:
    """The objects a YAML block is: the keys at its own level (`depth + 2` inside a list item,
    column 0 for a document) and under its `metadata` / `involvedObject`."""
    own = item_depth + 2
    levels: dict[str, dict[str, str]] = {"": {}}
    parent = ""
    for line in block:
        match = _YAML_KEY.fullmatch(line)
        if match is None:
            continue
        indent = len(match[1]) + (2 if line.lstrip().startswith("- ") else 0)
        key, value = match[2].lower(), match[3].strip("\"'")
        if indent == own:
            parent = key if not value and key in _NESTED_OBJECTS else ""
            if value:
                levels[""].setdefault(key, value)
        elif indent == own + 2 and parent and value:
            levels.setdefault(parent, {}).setdefault(key, value)
    top = levels[""]
    found: list[Resource] = []
    meta = levels.get("metadata", {})
    own_kind = kind_of(top.get("kind")) or kind
    own_namespace = meta.get("namespace") or top.get("namespace") or namespace
    name = meta.get("name") or top.get("name")
    if name and _RESOURCE_NAME.fullmatch(name):
        found.append(Resource(own_kind, name, own_namespace or None))
    for nested in ("involvedobject", "regarding"):
        other = levels.get(nested, {})
        if other.get("name") and _RESOURCE_NAME.fullmatch(other["name"]):
            where = other.get("namespace") or top.get("namespace") or namespace
            found.append(Resource(kind_of(other.get("kind")), other["name"], where or None))
    return tuple(found)


def _describe_blocks(
    lines: Sequence[str], kind: str | None
) -> Iterator[tuple[list[int], tuple[Resource, ...]]]:
    """kubectl describe: from a `Name:` line at column 0 to the next, about that resource (in the
    `Namespace:` its block says)."""
    headers = [i for i, line in enumerate(lines) if re.match(r"Name:\s+\S+\s*$", line)]
    for number, start in enumerate(headers):
        end = headers[number + 1] if number + 1 < len(headers) else len(lines)
        name = lines[start].split(":", 1)[1].strip()
        if not _RESOURCE_NAME.fullmatch(name):
            continue
        fields = {
            m[1]: m[2]
            for line in lines[start + 1 : min(end, start + 12)]
            if line[:1].strip() and (m := _DESCRIBE_FIELD.match(line))
        }
        namespace = fields.get("Namespace")
        resource = Resource(
            kind_of(fields.get("Kind")) or kind,
            name,
            namespace if namespace and namespace != "<none>" else None,
        )
        yield list(range(start, end)), (resource,)


def _object_sightings(
    data: Any, call_kind: str | None, call_namespace: str | None, deep: bool
) -> list[Sighting]:
    """Objects of a JSON result: `{kind, metadata: {name, namespace}}`, `{name, namespace, kind}`
    items, and events' `involvedObject`; with `deep`, nested ones too (owner references, items)."""
    found: list[Sighting] = []

    def field_of(item: dict[str, Any], *names: str) -> Any:
        for key, value in item.items():
            if str(key).lower() in names:
                return value
        return None

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) and value else None

    def visit(item: Any, namespace: str | None, top: bool) -> None:
        if isinstance(item, list):
            for element in item:
                if deep or top:
                    visit(element, namespace, False)
            return
        if not isinstance(item, dict):
            return
        facts = normalised(" ".join(_strings(item, with_keys=True)))
        own_namespace = text(field_of(item, "namespace")) or namespace
        metadata = field_of(item, "metadata")
        kind_word = text(field_of(item, "kind"))
        kind = kind_of(kind_word)
        name = text(field_of(metadata, "name")) if isinstance(metadata, dict) else None
        if name is not None and isinstance(metadata, dict):
            where = text(field_of(metadata, "namespace"))
            found.append(Sighting(Resource(kind or call_kind, name, where), facts))
        elif (name := text(field_of(item, "name"))) and (kind_word or text(field_of(item, "namespace"))):
            if _RESOURCE_NAME.fullmatch(name):
                found.append(Sighting(Resource(kind or call_kind, name, own_namespace), facts))
        involved = field_of(item, "involvedobject", "regarding")
        if isinstance(involved, dict) and (other := text(field_of(involved, "name"))):
            where = text(field_of(involved, "namespace")) or own_namespace
            found.append(Sighting(Resource(kind_of(text(field_of(involved, "kind"))), other, where), facts))
        if deep:
            for key, value in item.items():
                if str(key).lower() not in ("metadata", "involvedobject", "regarding"):
                    visit(value, own_namespace, False)

    visit(data, call_namespace, True)
    return found


# -- helpers ------------------------------------------------------------------------------------------


def _json(text: str) -> Any:
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _strings(item: Any, with_keys: bool = False) -> Iterator[str]:
    """The strings (and numbers, as text) in a JSON value, depth first; with their keys if asked."""
    stack = [item]
    out: list[str] = []
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in reversed(list(current.items())):
                stack.append(value)
                if with_keys:
                    stack.append(str(key))
        elif isinstance(current, list):
            stack.extend(reversed(current))
        elif isinstance(current, str):
            out.append(current)
        elif with_keys and isinstance(current, int | float) and not isinstance(current, bool):
            out.append(str(current))
        elif with_keys and isinstance(current, bool):
            out.append(str(current).lower())
    return iter(out)


def names_in(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole word (`api-7d9f8` is not `api-7d9f8-x2x`)."""
    return re.search(rf"(?<![A-Za-z0-9-]){re.escape(name)}(?![A-Za-z0-9-])", text) is not None


GENERATED_SUFFIXES = {
    "deployment": r"-[a-z0-9]{6,10}-[a-z0-9]{5}",
    "job": r"-[a-z0-9]{5}",
    "other": r"-(?:[a-z0-9]{5}|[0-9]+)",
}
"""What a controller appends to a workload's name to name its pods, by the kind a finding gives the
workload: a ReplicaSet's hash and a suffix (Deployment), a suffix (Job), a suffix or an ordinal
(`other`: a DaemonSet, a StatefulSet)."""
WORKLOAD_KINDS = frozenset(GENERATED_SUFFIXES)
"""Finding kinds that may name a workload whose pods the tools showed."""


def pod_of(pod: str, workload: str, kind: str) -> bool:
    """Whether `pod` is a pod of the workload of this kind named `workload`: its name and the suffix
    its controller generates, never a bare prefix."""
    suffix = GENERATED_SUFFIXES.get(kind)
    return (
        bool(workload) and suffix is not None and re.fullmatch(re.escape(workload) + suffix, pod) is not None
    )


def owners(name: str) -> list[str]:
    """The names a pod's controllers may have: the name without its last one or two parts."""
    parts = name.split("-")
    return ["-".join(parts[:-cut]) for cut in (1, 2) if len(parts) > cut and len("-".join(parts[:-cut])) >= 3]
