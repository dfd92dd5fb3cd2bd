"""The kubectl-style tables the baselines read: a header row, then one row a resource, columns aligned.

Both tool surfaces print their listings so (the mock cluster's `list_pods`, `list_nodes` and
`get_events`; kubernetes-mcp-server's `pods_list`, `pods_list_in_namespace` and `resources_list`).
The harness reads tables for evidence on its own (k8s_agent_harness.evidence.shapes.tables): a model knows
the harness only by the wire. A cell is the text under its column's header, up to the next column's
start: a header of two words (`LAST SEEN`, `NOMINATED NODE`) and a last column with spaces (an
event's MESSAGE) read whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COLUMN = re.compile(r"\S+(?: \S+)*")
"""A header's column name: words one space apart (columns are two or more spaces apart)."""


@dataclass(frozen=True)
class Row:
    """One row of a table: its line as the tool printed it, and its cells by column name."""

    line: str
    cells: dict[str, str]

    def get(self, column: str) -> str:
        return self.cells.get(column, "")


def rows(text: str, *required: str) -> list[Row]:
    """The rows of the first table in `text` whose header has the `required` columns."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        columns = [(m.group(), m.start()) for m in _COLUMN.finditer(line)]
        names = {name for name, _ in columns}
        if set(required) <= names:
            return _body(lines[number + 1 :], columns)
    return []


def _body(lines: list[str], columns: list[tuple[str, int]]) -> list[Row]:
    found = []
    for line in lines:
        if not line.strip():
            break
        cells = {}
        for index, (name, start) in enumerate(columns):
            end = columns[index + 1][1] if index + 1 < len(columns) else len(line)
            cells[name] = line[start:end].strip()
        if not cells.get(columns[0][0]):
            break
        found.append(Row(line, cells))
    return found


def restarts(cell: str) -> int:
    """A RESTARTS cell as a number (`3`, or kubectl's `3 (5m ago)`)."""
    match = re.match(r"\d+", cell.strip())
    return int(match.group()) if match else 0
