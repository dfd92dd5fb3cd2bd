"""The kubectl-style tables the baselines read: a header row, then one row a resource, columns aligned.

Both tool surfaces print their listings so (the mock cluster's `list_pods`, `list_nodes` and
`get_events`; kubernetes-mcp-server's `pods_list`, `pods_list_in_namespace` and `resources_list`).
A cell is the text under its column's header, up to the next column's start: a header of two words
(`LAST SEEN`, `NOMINATED NODE`) and a last column with spaces (an event's MESSAGE) read whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from k8s_agent_harness.shapes.tables import cells, header_columns


@dataclass(frozen=True)
class Row:
    """One row of a table: its line as the tool printed it, and its cells by column name."""

    line: str
    cells: dict[str, str]

    def get(self, column: str) -> str:
        return self.cells.get(column, "")


def rows(text: str, *required: str) -> list[Row]:
    """The rows of the first table in `text` whose header has the `required` columns (the harness's
    reading of a header and its cells, as the report's evidence reads them)."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        columns = header_columns(line)
        if columns is not None and set(required) <= {name for name, _ in columns}:
            return _body(lines[number + 1 :], columns)
    return []


def _body(lines: list[str], columns: list[tuple[str, int]]) -> list[Row]:
    found = []
    for line in lines:
        row = cells(line, columns)
        if not line.strip() or not row.get(columns[0][0]):
            break
        found.append(Row(line, row))
    return found


def restarts(cell: str) -> int:
    """A RESTARTS cell as a number (`3`, or kubectl's `3 (5m ago)`)."""
    match = re.match(r"\d+", cell.strip())
    return int(match.group()) if match else 0
