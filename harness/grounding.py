"""Grounding: names in a report must come from tool results, not from the model's imagination."""

from __future__ import annotations

import re

# Pod-like: three or more dash-separated lowercase parts (payment-service-6f7b8d9c0-ghi56).
POD_LIKE = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+){2,}\b")

# Hyphenated English a report may use that no cluster returns; never treated as names.
_ENGLISH = frozenset(
    {
        "out-of-memory",
        "up-to-date",
        "out-of-date",
        "end-to-end",
        "step-by-step",
        "day-to-day",
        "point-in-time",
        "one-to-one",
        "one-to-many",
        "out-of-the-box",
        "state-of-the-art",
        "in-the-loop",
        "first-in-first-out",
        "back-off-restarting",
        "per-pod-basis",
    }
)


class Evidence:
    """Everything the tools returned in this run (successful results only), plus the question."""

    def __init__(self, question: str = "") -> None:
        self._texts: list[str] = [question] if question else []
        self._joined: str | None = None

    def add(self, text: str) -> None:
        """Add one successful tool result."""
        if text:
            self._texts.append(text)
            self._joined = None

    @property
    def text(self) -> str:
        """All evidence as one text."""
        if self._joined is None:
            self._joined = "\n".join(self._texts)
        return self._joined

    def __len__(self) -> int:
        return len(self._texts)


def invented_names(answer: str, evidence: Evidence) -> list[str]:
    """Pod-like names in `answer` that appear nowhere in the evidence, sorted, without repeats."""
    corpus = evidence.text
    names = {match.group(0) for match in POD_LIKE.finditer(answer)}
    return sorted(name for name in names if name not in _ENGLISH and name not in corpus)
