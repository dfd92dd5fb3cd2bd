"""kubectl-style tables: a header line of upper-case column names (one of them NAME or OBJECT),
then its rows up to a blank line. Each row is a record: the resource its NAME is (of its KIND
column's kind, else the kind the call is about; `kind/name` as `kubectl get all` prints it; the pod
its POD column names when it has one, its NAME then a container's; in its
NAMESPACE column's namespace, else the one the call declared), or the object its OBJECT column names (`pod/x`: an event's row). Its status
fields are its other cells, but those that say where it is or what it is (NODE, IP, LABELS,
MESSAGE...)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8s_agent_harness.evidence.shapes import Record, Resource, is_name, kind_of

_HEADER_CELL = re.compile(r"[A-Z][A-Z0-9/._-]*(?:\([^()]*\))?(?: [A-Z][A-Z0-9/._-]*(?:\([^()]*\))?)*")
_OBJECT_REFERENCE = re.compile(r"([A-Za-z]+)(?:\.[a-z0-9.]+)?/([a-z0-9][a-z0-9.-]*)")
"""`pod/x`, `statefulset.apps/x` (a kind, its API group, a name)."""
NOT_STATUS = frozenset(
    {
        "NAMESPACE", "NAME", "OBJECT", "KIND", "APIVERSION", "NODE", "IP", "NOMINATED NODE", "READINESS GATES",
        "LABELS", "MESSAGE", "SOURCE", "FROM", "FIRST SEEN", "LAST SEEN", "IMAGES", "IMAGE", "CONTAINERS",
        "SELECTOR", "PORT(S)", "CLUSTER-IP", "EXTERNAL-IP", "INTERNAL-IP", "HOSTS", "ADDRESS", "CLASS",
        "STORAGECLASS", "VOLUME", "ACCESS MODES", "CAPACITY", "REFERENCE", "CHART", "APP VERSION", "UPDATED", "POD",
    }
)  # fmt: skip
"""Columns that say what or where a resource is, not its status."""


def lines_of(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each line of the text, its line break left out."""
    spans = []
    position = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        spans.append((position, position + len(stripped)))
        position += len(line)
    return spans


def read(text: str, kind: str | None, namespace: str | None) -> list[Record]:
    """The rows of the text's tables, each a record."""
    spans = lines_of(text)
    lines = [text[start:end] for start, end in spans]
    records: list[Record] = []
    index = 0
    while index < len(lines):
        columns = header_columns(lines[index])
        if columns is None:
            index += 1
            continue
        row = index + 1
        while row < len(lines) and lines[row].strip():
            record = _row(cells(lines[row], columns), kind, namespace, spans[row])
            if record is not None:
                records.append(record)
            row += 1
        index = row
    return records


def _row(
    cells: dict[str, str], kind: str | None, namespace: str | None, span: tuple[int, int]
) -> Record | None:
    where = cells.get("NAMESPACE") or namespace
    status = tuple((label, value) for label, value in cells.items() if label not in NOT_STATUS and value)
    if "POD" in cells:
        # A row of one of a pod's parts (`kubectl top pod --containers`: NAME is a container): the pod.
        pod = cells["POD"]
        return Record(Resource("pod", pod, where or None), *span, status) if is_name(pod) else None
    # An event's row (an OBJECT column, as `kubectl get events -o wide` prints beside the event's own
    # NAME) is about the object it names, not the event.
    reference = _OBJECT_REFERENCE.fullmatch(cells.get("OBJECT", ""))
    if reference and is_name(reference[2]):
        return Record(Resource(kind_of(reference[1]), reference[2], where or None), *span, status, event=True)
    name = cells.get("NAME", "")
    if name and is_name(name) and "OBJECT" not in cells:
        own_kind = kind_of(cells.get("KIND")) if cells.get("KIND") else kind
        return Record(Resource(own_kind, name, where or None), *span, status)
    qualified = _OBJECT_REFERENCE.fullmatch(name)  # `kubectl get all`: `pod/web-7d9f8c6b5-x7k2p`
    if qualified and is_name(qualified[2]) and kind_of(qualified[1]) is not None:
        return Record(Resource(kind_of(qualified[1]), qualified[2], where or None), *span, status)
    return None


def header_columns(line: str) -> list[tuple[str, int]] | None:
    """A header line's columns and where they start, if it is a table header naming resources."""
    if not line or line != line.lstrip() or "  " not in line:
        return None
    found = [(m[0], m.start()) for m in re.finditer(r"\S+(?: \S+)*", line)]
    if len(found) < 2 or not all(_HEADER_CELL.fullmatch(cell) for cell, _ in found):
        return None
    names = {cell for cell, _ in found}
    return found if names & {"NAME", "OBJECT"} else None


def cells(row: str, columns: Sequence[tuple[str, int]]) -> dict[str, str]:
    """A row's cells, cut where the header's columns start (kubectl aligns them so)."""
    return {
        name: row[start : columns[number + 1][1] if number + 1 < len(columns) else len(row)].strip()
        for number, (name, start) in enumerate(columns)
    }
