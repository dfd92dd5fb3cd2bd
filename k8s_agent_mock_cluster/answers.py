"""What every tool of the mock cluster answers with: kubectl's aligned columns, and the two ways a
request cannot be answered (the object does not exist; it cannot be answered as asked)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class NotFound(Exception):
    """The named object does not exist."""


class Invalid(Exception):
    """The request cannot be answered as asked (e.g. logs of a container that never started)."""


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Columns aligned with at least three spaces, like kubectl."""
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = [
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [list(header), *rows]
    ]
    return "\n".join(lines)
