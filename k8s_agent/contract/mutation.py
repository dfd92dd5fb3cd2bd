"""The judge's mutation test: the reference agent, each of its mutants and each of its legitimate
variations, judged on every scenario.

A judge earns trust by failing what is broken and nothing else. The reference agent (written apart
from ours) must hold every item; each mutant breaks one clause of one item and must fail that item,
and only that one; each variation does what a correct agent may do its own way (its wording,
results sent JSON-encoded, a pretty-printed report, ...) and must hold every item.
`k8s-agent contract --mutants` prints the tables; tests/contract/test_mutants.py holds the judge to
them in CI.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from k8s_agent.contract.judge import FAILS, HOLDS, UNOBSERVABLE
from k8s_agent.contract.mutants import MUTANTS, VARIANTS, Mutant
from k8s_agent.contract.reference import ReferenceAgent
from k8s_agent.contract.run import ContractReport, SubjectResult, run_contract, select_scenarios


@dataclass(frozen=True)
class Caught:
    """What the judge made of one mutant."""

    mutant: str
    item: str
    """The item the mutant breaks."""
    clause: str
    """The clause of that item it breaks."""
    does: str
    verdict: str
    """The judge's verdict on that item."""
    others: tuple[str, ...]
    """Other items the judge failed it on (none, for a sharp judge)."""
    evidence: str
    """The first line of the violation that caught it."""

    @property
    def caught(self) -> bool:
        """Failed on its item, and on no other."""
        return self.verdict == FAILS and not self.others


@dataclass(frozen=True)
class Held:
    """What the judge made of one legitimate variation."""

    variant: str
    does: str
    failed: tuple[str, ...]
    """The items the judge failed it on (none, for a judge without false positives)."""
    evidence: str
    """The first violation, when there is one."""

    @property
    def holds(self) -> bool:
        return not self.failed


@dataclass(frozen=True)
class MutationReport:
    """The reference agent's verdicts and every mutant's."""

    reference: SubjectResult
    prose: SubjectResult
    """The reference agent asking for prose reports only: C11 and C12 must be not observable."""
    mutants: list[Caught]
    contract: ContractReport
    variants: list[Held] = field(default_factory=list)

    @property
    def reference_holds(self) -> bool:
        """The reference holds every item (none is unobservable for it), and its prose-only form every
        item but the two of structured reports, which are not observable for it."""
        prose = {j.item: j.verdict for j in self.prose.judgements}
        return all(j.verdict == HOLDS for j in self.reference.judgements) and all(
            verdict == (UNOBSERVABLE if item in ("C11", "C12") else HOLDS) for item, verdict in prose.items()
        )

    @property
    def score(self) -> tuple[int, int]:
        """Mutants caught (on their item alone), of all."""
        return sum(1 for m in self.mutants if m.caught), len(self.mutants)

    @property
    def passed(self) -> bool:
        """The reference and every variation hold everything, and every mutant is caught."""
        caught, total = self.score
        return self.reference_holds and caught == total and all(v.holds for v in self.variants)


async def run_mutation(
    workdir: Path,
    *,
    jobs: int = 4,
    progress: Callable[[str], None] = lambda line: None,
    api: str = "chat",
    mutants: Sequence[Mutant] = MUTANTS,
    variants: Sequence[Mutant] = VARIANTS,
) -> MutationReport:
    """Run the reference agent, the mutants and the variations (every one unless given) on every
    judged scenario, in this process, on the wire `api` (the reference agent speaks either)."""
    subjects = [
        ReferenceAgent(in_process=True),
        ReferenceAgent(prose_only=True, in_process=True),
        *(ReferenceAgent(frozenset({m.name}), in_process=True) for m in (*mutants, *variants)),
    ]
    report = await run_contract(
        subjects, select_scenarios(None), workdir, jobs=jobs, progress=progress, api=api
    )
    reference, prose, *rest = report.results
    held = []
    for variant, result in zip(variants, rest[len(mutants) :], strict=True):
        failed = [j for j in result.judgements if j.verdict == FAILS]
        first = failed[0].violations[0] if failed and failed[0].violations else None
        evidence = f"{first.scenario}: {first.summary}" if first else (failed[0].summary if failed else "-")
        held.append(Held(variant.name, variant.does, tuple(j.item for j in failed), evidence))
    caught = []
    for mutant, result in zip(mutants, rest[: len(mutants)], strict=True):
        verdicts = {j.item: j for j in result.judgements}
        broken = verdicts[mutant.item]
        others = tuple(j.item for j in result.judgements if j.verdict == FAILS and j.item != mutant.item)
        line = broken.violations[0].summary if broken.violations else broken.summary
        where = f"{broken.violations[0].scenario}: " if broken.violations else ""
        caught.append(
            Caught(mutant.name, mutant.item, mutant.clause, mutant.does, broken.verdict, others, where + line)
        )
    return MutationReport(reference, prose, caught, report, held)


def render_table(report: MutationReport) -> str:
    """The mutation table in markdown: each mutant, the item it breaks, the verdict, the evidence."""
    caught, total = report.score
    reference = (
        ", ".join(f"{j.item} {j.verdict}" for j in report.reference.judgements if j.verdict != HOLDS)
        or "holds every item"
    )
    prose = ", ".join(f"{j.item} {j.verdict}" for j in report.prose.judgements if j.verdict != HOLDS)
    lines = [
        f"Reference agent: {reference}; asking for prose reports only: {prose or 'holds every item'}. "
        f"Mutants caught on their item alone: {caught} of {total}.",
        "",
        "| mutant | item | the clause it breaks | what it does | verdict on that item | other items failed | evidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for mutant in report.mutants:
        mark = "✓ caught" if mutant.caught else ("✗ survived" if mutant.verdict != FAILS else "✗ blurred")
        lines.append(
            f"| {mutant.mutant} | {mutant.item} | {mutant.clause} | {mutant.does} | {mark} ({mutant.verdict}) | "
            f"{', '.join(mutant.others) or '-'} | {_cell(mutant.evidence)} |"
        )
    if report.variants:
        holding = sum(1 for v in report.variants if v.holds)
        lines += [
            "",
            f"Legitimate variations holding every item: {holding} of {len(report.variants)}.",
            "",
            "| variation | what it does | verdict | items failed | evidence |",
            "|---|---|---|---|---|",
        ]
        for variant in report.variants:
            mark = "✓ holds every item" if variant.holds else "✗ failed (a false positive)"
            lines.append(
                f"| {variant.variant} | {variant.does} | {mark} | {', '.join(variant.failed) or '-'} | "
                f"{_cell(variant.evidence)} |"
            )
    return "\n".join(lines) + "\n"


def mutation_json(report: MutationReport) -> dict[str, object]:
    """The mutation test as one JSON object."""
    caught, total = report.score
    return {
        "kind": "k8s-agent-contract-mutants",
        "passed": report.passed,
        "caught": caught,
        "mutants_total": total,
        "reference": {j.item: j.verdict for j in report.reference.judgements},
        "reference_prose": {j.item: j.verdict for j in report.prose.judgements},
        "mutants": [
            {
                "mutant": m.mutant,
                "item": m.item,
                "clause": m.clause,
                "does": m.does,
                "verdict": m.verdict,
                "caught": m.caught,
                "other_items_failed": list(m.others),
                "evidence": m.evidence,
            }
            for m in report.mutants
        ],
        "variants": [
            {
                "variant": v.variant,
                "does": v.does,
                "holds": v.holds,
                "items_failed": list(v.failed),
                "evidence": v.evidence,
            }
            for v in report.variants
        ],
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
