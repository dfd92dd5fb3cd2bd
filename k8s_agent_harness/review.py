"""The review policy: accept a final answer, or push back on it once (C2, C5).

Both loops call `review` on every text answer the model gives while it may still investigate,
and only carry out the verdict in their own way (a message appended; a Runner re-run). The rules:

1. an answer before any tool ran gets the zero-tool pushback, once per run (C2);
2. an answer naming pods, nodes or namespaces that no tool returned gets the evidence pushback,
   naming them, once per run (C5);
3. anything else, and any answer after its pushback was spent, is accepted.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from k8s_agent_harness import prompts
from k8s_agent_harness.grounding import Evidence, invented_names
from k8s_agent_harness.vocabulary import Pushback


@dataclass(frozen=True)
class Accept:
    """The answer is the report."""

    answer: str


@dataclass(frozen=True)
class PushBack:
    """Send the model this message and let it go on; the pushback of this kind is then spent."""

    kind: Pushback
    message: str
    names: tuple[str, ...] = ()
    """For the evidence pushback: the names no tool returned."""


Verdict = Accept | PushBack


def review(answer: str, *, tools_ran: int, evidence: Evidence, spent: Collection[Pushback]) -> Verdict:
    """The verdict on one answer, given how many tool calls reached the server and which pushbacks
    this run has already given."""
    if tools_ran == 0 and Pushback.ZERO_TOOL not in spent:
        return PushBack(Pushback.ZERO_TOOL, prompts.ZERO_TOOL_PUSHBACK)
    if Pushback.EVIDENCE not in spent:
        invented = invented_names(answer, evidence)
        if invented:
            return PushBack(Pushback.EVIDENCE, prompts.evidence_pushback(invented), tuple(invented))
    return Accept(answer)
