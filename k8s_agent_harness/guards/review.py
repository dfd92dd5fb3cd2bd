"""The review policy: accept a final answer, or push back on it once (C2, C5, C11, C12).

Both loops call `review` on every text answer the model gives while it may still investigate
(and on the forced summary when the report is structured), and only carry out the verdict in
their own way (a message appended; a Runner re-run). The rules:

1. an answer before any tool ran gets the zero-tool pushback, once per run (C2);
2. prose reports (`--report-format prose`): an answer naming pods, nodes or namespaces that no
   tool returned gets the evidence pushback, naming them, once per run (C5);
3. structured reports (`json_schema`, `json_text`): an answer that does not parse or fit the
   schema (C11), or whose quotes appear in no tool result or whose findings name a resource no
   tool returned (C12), gets one correction turn naming exactly what is wrong;
4. anything else, and any answer after its pushback was spent, is accepted: a structured report
   with what is still unverified marked so (or, unreadable, as written and said to be unverified).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from k8s_agent_harness.evidence.grounding import Evidence, invented_names
from k8s_agent_harness.evidence.report import HealthReport, parse_report
from k8s_agent_harness.evidence.verification import Verification, verify
from k8s_agent_harness.model import prompts
from k8s_agent_harness.vocabulary import Pushback


@dataclass(frozen=True)
class Checked:
    """A structured answer as the harness read it: the report (verified and marked) or why not."""

    text: str
    verification: Verification | None
    problem: str | None = None
    """Why the text is no report (not JSON, or not the schema); None when it parsed."""

    @property
    def problems(self) -> list[str]:
        """Everything wrong with it, in the words the correction turn sends."""
        if self.verification is None:
            return [self.problem or "the answer is not a report"]
        return self.verification.problems

    @property
    def report(self) -> HealthReport | None:
        """The report with the harness's marks, when the answer parsed."""
        return self.verification.report if self.verification else None


@dataclass(frozen=True)
class Accept:
    """The answer is the report."""

    answer: str
    checked: Checked | None = None
    """For structured reports: what the harness made of the answer."""


@dataclass(frozen=True)
class PushBack:
    """Send the model this message and let it go on; the pushback of this kind is then spent."""

    kind: Pushback
    message: str
    names: tuple[str, ...] = ()
    """For the evidence and report pushbacks: the names no tool returned."""
    checked: Checked | None = field(default=None, compare=False)


Verdict = Accept | PushBack


def check_report(answer: str, evidence: Evidence) -> Checked:
    """Parse, validate and verify a structured answer against the run's tool results."""
    report, problem = parse_report(answer)
    if report is None:
        return Checked(answer, None, problem)
    return Checked(answer, verify(report, evidence.sources))


def review(
    answer: str,
    *,
    tools_ran: int,
    evidence: Evidence,
    spent: Collection[Pushback],
    structured: bool = False,
    corrected: Checked | None = None,
) -> Verdict:
    """The verdict on one answer, given how many tool calls reached the server and which pushbacks
    this run has already given."""
    if tools_ran == 0 and Pushback.ZERO_TOOL not in spent:
        return PushBack(Pushback.ZERO_TOOL, prompts.ZERO_TOOL_PUSHBACK)
    if structured:
        return review_report(answer, evidence=evidence, spent=spent, corrected=corrected)
    if Pushback.EVIDENCE not in spent:
        invented = invented_names(answer, evidence)
        if invented:
            return PushBack(Pushback.EVIDENCE, prompts.evidence_pushback(invented), tuple(invented))
    return Accept(answer)


def review_report(
    answer: str, *, evidence: Evidence, spent: Collection[Pushback], corrected: Checked | None = None
) -> Verdict:
    """Rules 3 and 4: one correction turn for a report that does not parse, validate or verify.

    `corrected`: the report the correction turn was about. When the answer to the correction is no
    report at all, that first report is kept (checked again: the model may have called tools since),
    its verified findings with it, and the unreadable answer is named among its problems.
    """
    checked = check_report(answer, evidence)
    if checked.problems and Pushback.REPORT not in spent:
        names = tuple(checked.verification.unverified_names) if checked.verification else ()
        return PushBack(Pushback.REPORT, prompts.report_correction(checked.problems), names, checked)
    if checked.report is None and corrected is not None and corrected.report is not None:
        again = verify(corrected.report, evidence.sources)
        again.problems.append(
            f"the answer to the correction is not a report ({checked.problem}): the first report is shown"
        )
        return Accept(answer, Checked(corrected.text, again))
    return Accept(answer, checked)
