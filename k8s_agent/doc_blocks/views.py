"""What a page shows of an output: the whole of it, or parts chosen by rule (a step's first and last
tool call, the finding about one pod), with `[...]` where lines are left out.

Each rule names what it looks for; an output without it is a BlockError, never a silent gap.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from k8s_agent.doc_blocks.shell import BlockError

LEFT_OUT = "[...]"
RULE = "─" * 78
"""The line around the body of a report `ask` prints."""
_CALL_MARKS = ("  ✓ ", "  ✗ ", "  ↺ ", "  ⊘ ")


def fenced(text: str, language: str = "text") -> str:
    """`text` as a fenced code block (trailing spaces left out: they do not show)."""
    lines = "\n".join(line.rstrip() for line in text.rstrip().split("\n"))
    return f"```{language}\n{lines}\n```"


def progress_excerpt(progress: str, longest: int = 3) -> str:
    """`ask`'s progress lines, a run of more than `longest` tool-call lines cut to its first and last."""
    lines = progress.rstrip("\n").split("\n")
    kept: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if line.startswith(_CALL_MARKS):
            run.append(line)
            continue
        kept += run if len(run) <= max(longest, 2) else [run[0], f"  {LEFT_OUT}", run[-1]]
        run = []
        kept.append(line)
    return "\n".join(kept[:-1])


def report_parts(report: str) -> tuple[list[str], list[list[str]], list[str]]:
    """A report as `ask` prints it: the lines above its body, the body's paragraphs, the lines below."""
    lines = report.rstrip("\n").split("\n")
    rules = [index for index, line in enumerate(lines) if line == RULE]
    if len(rules) < 2:
        raise BlockError("the output is not a report as `ask` prints it (no body between two rules)")
    first, second = rules[0], rules[1]
    paragraphs: list[list[str]] = [[]]
    for line in lines[first + 1 : second]:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return lines[: first + 1], [p for p in paragraphs if p], [RULE, *lines[second + 1 :]]


def report_excerpt(report: str, about: str, *, head: bool = True) -> str:
    """A report cut to its title and summary, the finding about `about` (a resource's name), and its
    healthy line and footer; `[...]` where findings are left out. `head`: with the lines above the body."""
    above, paragraphs, below = report_parts(report)
    if len(paragraphs) < 2:
        raise BlockError("the report has no title and summary")
    findings = paragraphs[2:]
    chosen = [p for p in findings if about in p[0]]
    if not chosen:
        raise BlockError(f"the report has no finding about {about}")
    healthy = [p for p in findings if p[0].startswith("Healthy:")]
    lines = [*(above if head else []), *paragraphs[0], "", *paragraphs[1]]
    if findings.index(chosen[0]) > 0:
        lines.append(LEFT_OUT)
    lines += chosen[0]
    rest = findings.index(chosen[0]) + 1
    if rest < len(findings) - len(healthy):
        lines.append(LEFT_OUT)
    for paragraph in healthy:
        lines += paragraph
    return "\n".join([*lines, *below])


def findings_from(report: str, about: str) -> str:
    """The report from the finding about `about` to its end (the footer included)."""
    _, paragraphs, below = report_parts(report)
    chosen = [index for index, p in enumerate(paragraphs) if about in p[0]]
    if not chosen:
        raise BlockError(f"the report has no finding about {about}")
    lines: list[str] = []
    for paragraph in paragraphs[chosen[0] :]:
        lines += [*paragraph, ""]
    return "\n".join([*lines[:-1], *below])


def json_excerpt(
    document: dict[str, Any], keys: Sequence[str], trim: Callable[[dict[str, Any]], None]
) -> str:
    """The `keys` of a JSON object, in that order, after `trim` has cut what the page leaves out."""
    missing = [key for key in keys if key not in document]
    if missing:
        raise BlockError(f"the JSON has no {', '.join(missing)}")
    shown = {key: document[key] for key in keys}
    trim(shown)
    return json.dumps(shown, indent=2, ensure_ascii=False)
