"""Markdown tables: read one a command printed, cell by cell, and write one."""

from __future__ import annotations

import re
from collections.abc import Sequence


def is_separator(line: str) -> bool:
    """`|---|:---:|`: the line under a table's header."""
    return bool(re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()))


def cells(row: str) -> list[str]:
    """The cells of a table row; an escaped `\\|` stays inside its cell."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", inner)]


def tables(text: str) -> list[list[dict[str, str]]]:
    """Every table of `text`, each as its rows, each row {header: cell}."""
    lines = text.split("\n")
    found: list[list[dict[str, str]]] = []
    index = 0
    while index + 1 < len(lines):
        if lines[index].startswith("|") and is_separator(lines[index + 1]):
            header = cells(lines[index])
            rows = []
            index += 2
            while index < len(lines) and lines[index].startswith("|"):
                rows.append(dict(zip(header, cells(lines[index]), strict=True)))
                index += 1
            found.append(rows)
        else:
            index += 1
    return found


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
