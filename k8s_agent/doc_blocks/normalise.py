"""What of a command's output varies from run to run, blanked so that two runs compare.

Durations, timestamps, the names made from them (trace files, comparison folders), the ports of
servers started on loopback, the Python version of the machine and the installed versions of the
dependencies the project does not pin (`openai`, `mcp`: a fresh install takes the newest release its
range allows) change from run to run; so do the cells of a table's time and memory columns. The
pinned SDK's version (`openai-agents 0.24.0`) is kept: the behaviour shown depends on it. Counts, bytes, verdicts and
percentages do not, and are kept.
"""

from __future__ import annotations

import re

from k8s_agent.doc_blocks.tables import cells, is_separator

VARIES = "…"

TIME_COLUMNS = frozenset({"wall s", "loop ms", "time", "first model request s", "peak RSS MiB"})
"""Table columns that hold times or memory: a run's, never the same twice."""

_PATTERNS = (
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z"), "<time>"),  # ISO times
    (re.compile(r"\d{8}T\d{6}Z-[\w-]+?-[0-9a-f]{12}\.jsonl"), "<trace>.jsonl"),  # a run's trace file
    (re.compile(r"\b(compare|replay)-\d{8}T\d{6}Z-\w+"), r"\1-<folder>"),  # a comparison's folder
    (re.compile(r"\b(127\.0\.0\.1|localhost):\d+"), r"\1:<port>"),  # a loopback server's free port
    (re.compile(r"\b([Pp]ython) \d+\.\d+\.\d+"), r"\1 <version>"),  # the interpreter that ran it
    # the installed version of a dependency the project does not pin (the SDK's is pinned and kept)
    (
        re.compile(r"\b(openai|mcp|mcp-types|httpx2|pydantic|anyio) \d+\.\d+(?:\.\d+)?\b(?!-)"),
        r"\1 <version>",
    ),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|s|min)\b"), "<duration>"),  # 5 ms, 1.2 s, 0.887s
)


def normalised(text: str) -> str:
    """`text` with what varies between runs blanked: durations, times, trace names, time columns."""
    lines = [line.rstrip() for line in text.split("\n")]
    kept: list[str] = []
    volatile: set[int] = set()
    for index, line in enumerate(lines):
        if line.startswith("|") and index + 1 < len(lines) and is_separator(lines[index + 1]):
            volatile = {i for i, cell in enumerate(cells(line)) if cell in TIME_COLUMNS}
        elif line.startswith("|") and volatile and not is_separator(line):
            row = cells(line)
            line = "| " + " | ".join(VARIES if i in volatile else cell for i, cell in enumerate(row)) + " |"
        elif not line.startswith("|"):
            volatile = set()
        for pattern, replacement in _PATTERNS:
            line = pattern.sub(replacement, line)
        kept.append(line)
    return "\n".join(kept).strip("\n")
