"""The judge's mutation test: the reference agent holds every item; each mutant fails its item alone.

The reference agent and its prose-only form run on every judged scenario on both wires (Chat
Completions and the Responses API); the mutants are shared between the wires, each on one (every
other mutant on the Responses wire), so the judge is mutation-tested on both for the time of one
(`k8s-agent contract --mutants --api responses` runs them all there). In this process: the mock
cluster in memory, the scripted model on loopback, judged as `k8s-agent contract` judges any
subject. A judge that misses a mutant certifies a broken port; one that fails a mutant on an item
it does not break, or the reference on anything, blames the wrong thing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from k8s_agent.contract.judge import FAILS, HOLDS, ITEMS, UNOBSERVABLE
from k8s_agent.contract.mutation import MutationReport, render_table, run_mutation
from k8s_agent.contract.reference import MUTANTS

ON_WIRE = {"chat": MUTANTS[0::2], "responses": MUTANTS[1::2]}


@pytest.fixture(scope="module")
def mutations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MutationReport]:
    return {
        api: asyncio.run(
            run_mutation(tmp_path_factory.mktemp(f"mutants-{api}"), jobs=4, api=api, mutants=mutants)
        )
        for api, mutants in ON_WIRE.items()
    }


@pytest.fixture
def mutation(mutations: dict[str, MutationReport]) -> MutationReport:
    """The Chat Completions wire's report (the one with c4-round-duplicates)."""
    return mutations["chat"]


@pytest.mark.parametrize("api", ON_WIRE)
def test_the_reference_agent_holds_every_item_and_its_prose_form_every_observable_one(
    mutations: dict[str, MutationReport], api: str
) -> None:
    mutation = mutations[api]
    assert {result.wire for result in mutation.contract.results} == {api}
    assert {j.item: j.verdict for j in mutation.reference.judgements} == dict.fromkeys(ITEMS, HOLDS)
    prose = {j.item: j.verdict for j in mutation.prose.judgements}
    assert prose == {item: UNOBSERVABLE if item in ("C11", "C12") else HOLDS for item in ITEMS}


@pytest.mark.parametrize("name", [mutant.name for mutant in MUTANTS])
def test_each_mutant_fails_its_item_and_no_other(mutations: dict[str, MutationReport], name: str) -> None:
    caught = next(m for report in mutations.values() for m in report.mutants if m.mutant == name)

    assert caught.verdict == FAILS, f"{name} survived: the judge does not see it break {caught.item}"
    assert caught.others == (), f"{name} breaks {caught.item} only, yet fails {caught.others}"


def test_every_item_has_a_mutant_and_a_leak_in_two_scenarios_is_reported_twice(
    mutation: MutationReport,
) -> None:
    assert {m.item for m in MUTANTS} == set(ITEMS)
    repeats = next(r for r in mutation.contract.results if r.subject == "mutant:c4-round-duplicates")
    (c4,) = [j for j in repeats.judgements if j.item == "C4"]
    assert {v.scenario for v in c4.violations} >= {"c4-parallel-duplicates", "c10-mixed-round"}
    assert mutation.passed and mutation.score == (len(ON_WIRE["chat"]), len(ON_WIRE["chat"]))


def test_the_table_shows_each_mutant_with_its_verdict_and_evidence(
    mutation: MutationReport, tmp_path: Path
) -> None:
    table = render_table(mutation)

    shown = ON_WIRE["chat"]
    assert f"Mutants caught on their item alone: {len(shown)} of {len(shown)}." in table
    for mutant in shown:
        assert f"| {mutant.name} | {mutant.item} | {mutant.does} | ✓ caught (fails) | - |" in table
