"""How the offline playbook reads a question about restarts and what describe_pod says of them.

A question about restarts asks which pods restarted, how often or when ("which pods restarted
today", "what restarted?", "any restarts in staging?", "how many times did kafka restart?"); a
question that names restarting as a symptom and asks why or what is wrong ("inventory-sync keeps
restarting. Which pods are unhealthy?") is a diagnosis and is not one.

Of each restarted pod, describe_pod tells how its containers last ended: the `Last State:
Terminated` block (reason, exit code, start and finish times), or `State: Terminated` for a
container that ended and was not restarted yet. The lines are kept as the tool printed them, so
the report quotes them verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ASKS = re.compile(
    r"(?i)\b(?:which|what|any|anything|anyone|list|show|how\s+(?:many|often)|count|did|has|have|were|was|are|is)\b"
    r"[^.?!]*?\brestart(?:s|ed|ing)?\b"
    r"|\brestart(?:s|ed)?\b[^.?!]*\?"
    r"|\brestart\s+counts?\b"
)
_WHY = re.compile(r"(?i)\bwhy\b|\b(?:unhealthy|wrong|broken|failing)\b")
_KEEPS = re.compile(r"(?i)\bkeeps?\s+(?:on\s+)?restarting\b")
_TIME_WORDS = re.compile(
    r"(?i)\b(?:today|yesterday|tonight|this\s+(?:morning|afternoon|evening|week)|last\s+(?:night|hour|week|\d+\s+\w+)"
    r"|(?:in\s+the\s+)?(?:past|last)\s+(?:\d+\s+)?(?:minutes?|hours?|days?)|since\s+\w+|recently|lately)\b"
)


def asks_about_restarts(question: str) -> bool:
    """Whether the question asks which pods restarted (how often, when), not why something fails."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", question) if s.strip()]
    return any(
        _ASKS.search(sentence) and not _WHY.search(sentence) and not _KEEPS.search(sentence)
        for sentence in sentences
    )


def time_words(question: str) -> str | None:
    """The question's words for a time window ("today", "in the last hour"), if any."""
    match = _TIME_WORDS.search(question)
    return " ".join(match[0].split()) if match else None


@dataclass
class Termination:
    """How one container last ended, as describe_pod shows it."""

    container: str
    state: str
    """`Last State` (the container was restarted since) or `State` (it ended and stays so)."""
    reason: str = ""
    exit_code: str = ""
    started: str = ""
    finished: str = ""
    lines: dict[str, str] = field(default_factory=dict)
    """The block's lines as printed (stripped), by title: the state line, Reason, Exit Code, Finished."""

    @property
    def said(self) -> str:
        """The termination in words: `Error, exit code 1, finished 2026-11-30T04:12:02Z`."""
        parts = [self.reason or "Terminated"]
        if self.exit_code:
            parts.append(f"exit code {self.exit_code}")
        if self.finished:
            parts.append(f"finished {self.finished}")
        return ", ".join(parts)

    @property
    def reason_quote(self) -> str:
        """The state line and its reason as one quote (whitespace collapsed, as the report compares)."""
        first = self.lines.get(self.state, "")
        reason = self.lines.get("Reason", "")
        return " ".join(f"{first} {reason}".split())


_CONTAINER = re.compile(r"^  ([A-Za-z0-9][\w.-]*):\s*$")
_STATE = re.compile(r"^    (State|Last State):\s+(\w+)\s*$")
_DETAIL = re.compile(r"^      (Reason|Exit Code|Started|Finished|Message):\s+(.*?)\s*$")


def terminations(description: str) -> list[Termination]:
    """Each container's last termination in a describe_pod result: its `Last State: Terminated`
    block, else its `State: Terminated` block; containers that never ended are left out."""
    found: dict[str, Termination] = {}
    container, current = "", None
    for line in description.split("\nEvents:", 1)[0].splitlines():
        if re.match(r"^\S", line):  # a new section: Containers:, Conditions:, ...
            container, current = "", None
            continue
        named = _CONTAINER.match(line)
        if named:
            container, current = named[1], None
            continue
        state = _STATE.match(line)
        if state and container:
            current = None
            # The current State, when Terminated, is the latest end; else the Last State is.
            if state[2] == "Terminated" and (state[1] == "State" or container not in found):
                current = Termination(container, state[1])
                current.lines[state[1]] = " ".join(line.split())
                found[container] = current
            continue
        detail = _DETAIL.match(line)
        if detail and current is not None:
            title, value = detail[1], detail[2]
            current.lines[title] = " ".join(line.split())
            if title == "Reason":
                current.reason = value
            elif title == "Exit Code":
                current.exit_code = value
            elif title == "Started":
                current.started = value
            elif title == "Finished":
                current.finished = value
    return list(found.values())
