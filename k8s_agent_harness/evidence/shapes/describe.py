"""`kubectl describe` blocks: from a `Name:` line at column 0 to the next, one record each: the
resource its `Name:` names, in the `Namespace:` its block says (of its `Kind:` when it says one,
else the kind the call is about). Its status fields are its state lines (`Status:`, `State:`,
`Reason:`, `Ready:`, `Restart Count:`, `Exit Code:`...) and the rows of its `Conditions:` and
`Events:` sections (their first two columns: `Ready False`, `Warning BackOff`); its owner is its
`Controlled By:` line (`ReplicaSet/web-7d9f8`)."""

from __future__ import annotations

import re

from k8s_agent_harness.evidence.shapes import Record, Resource, is_name, kind_of, tables
from k8s_agent_harness.evidence.shapes.tables import lines_of

_HEADER = re.compile(r"Name:\s+(\S+)\s*")
_FIELD = re.compile(r"\s*([A-Z][A-Za-z ]*?):\s+(\S.*?)\s*")
_SECTION = re.compile(r"(Conditions|Events):\s*")
STATUS_FIELDS = frozenset(
    {"Status", "State", "Last State", "Reason", "Ready", "Restart Count", "Exit Code", "Phase", "Unschedulable",
     "Replicas", "Pods Statuses", "Completed At", "Conditions", "Taints"}
)  # fmt: skip
_OWNER = re.compile(r"([A-Za-z]+)/(\S+)")


def read(text: str, kind: str | None) -> list[Record]:
    """The describe blocks of the text, each a record."""
    spans = lines_of(text)
    lines = [text[start:end] for start, end in spans]
    headers = [i for i, line in enumerate(lines) if _HEADER.fullmatch(line)]
    records = []
    for number, first in enumerate(headers):
        last = headers[number + 1] if number + 1 < len(headers) else len(lines)
        match = _HEADER.fullmatch(lines[first])
        assert match is not None
        if not is_name(match[1]):
            continue
        top = {
            m[1]: m[2]
            for line in lines[first + 1 : last]
            if line[:1].strip() and (m := _FIELD.fullmatch(line))
        }
        namespace = top.get("Namespace")
        resource = Resource(
            kind_of(top.get("Kind")) or kind,
            match[1],
            namespace if namespace and namespace != "<none>" and is_name(namespace) else None,
        )
        owner = _OWNER.fullmatch(top.get("Controlled By", ""))
        owners = ((kind_of(owner[1]) or owner[1].lower(), owner[2]),) if owner else ()
        record = Record(
            resource,
            spans[first][0],
            spans[last - 1][1],
            _status(lines[first + 1 : last]),
            owners,
            whole_object=True,
        )
        records.append(record)
    return records


def _status(block: list[str]) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    section: str | None = None
    last_state: int | None = None
    """The indentation of the `Last State:` line whose fields follow (a container's history)."""
    columns: list[tuple[str, int]] = []
    """The Conditions header's columns, when it prints one (`Type  Status  ...  Reason  Message`)."""
    for line in block:
        indent = len(line) - len(line.lstrip())
        if line[:1].strip():
            heading = _SECTION.fullmatch(line)
            section = heading[1] if heading else None
            columns = []
        if section is not None and line[:1].isspace():
            cells = line.split()
            if cells and cells[0] == "Type":
                columns = [(m[0], m.start()) for m in re.finditer(r"\S+(?: \S+)*", line)]
            if len(cells) >= 2 and cells[0] not in ("Type", "----"):
                found.append((f"Event {cells[0]}" if section == "Events" else cells[0], cells[1]))
                reason = tables.cells(line, columns).get("Reason", "") if section == "Conditions" else ""
                if reason and " " not in reason:  # a condition's reason: `Ready False KubeletNotReady`
                    found.append((f"{cells[0]} Reason", reason))
            continue
        field = _FIELD.fullmatch(line)
        if last_state is not None and line.strip() and indent <= last_state:
            last_state = None
        if field and field[1] in STATUS_FIELDS:
            found.append((f"Last State {field[1]}" if last_state is not None else field[1], field[2]))
        if field and field[1] == "Last State":
            last_state = indent
    counts = [value for label, value in found if label == "Restart Count"]
    if len(counts) > 1 and all(value.isdigit() for value in counts):
        # A pod's restarts are its containers' summed, as kubectl's RESTARTS counts them.
        found = [field for field in found if field[0] != "Restart Count"]
        found.append(("Restart Count", str(sum(int(value) for value in counts))))
    return tuple(found)
