"""The judge's mutation test: the reference agent and each legitimate variation hold every item; each
mutant fails its item alone.

The reference agent and its prose-only form run on every judged scenario on both wires (Chat
Completions and the Responses API); the mutants and the variations are shared between the wires,
each on one (every other one on the Responses wire), so the judge is mutation-tested on both for
the time of one (`k8s-agent contract --mutants --api responses` runs them all there). In this process: the mock
cluster in memory, the scripted model on loopback, judged as `k8s-agent contract` judges any
subject. A judge that misses a mutant certifies a broken port; one that fails a mutant on an item
it does not break, or the reference on anything, blames the wrong thing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from k8s_agent import scenarios
from k8s_agent.contract.judge import FAILS, HOLDS, ITEMS, UNOBSERVABLE
from k8s_agent.contract.mutants import MUTANTS, VARIANTS
from k8s_agent.contract.mutation import MutationReport, render_table, run_mutation
from k8s_agent.contract.reference import ReferenceAgent
from k8s_agent.contract.run import observe

ON_WIRE = {"chat": MUTANTS[0::2], "responses": MUTANTS[1::2]}
VARIANTS_ON_WIRE = {"chat": VARIANTS[1::2], "responses": VARIANTS[0::2]}


def _mutation(api: str, tmp_path_factory: pytest.TempPathFactory) -> MutationReport:
    return asyncio.run(
        run_mutation(
            tmp_path_factory.mktemp(f"mutants-{api}"),
            jobs=4,
            api=api,
            mutants=ON_WIRE[api],
            variants=VARIANTS_ON_WIRE[api],
        )
    )


def _reference_holds(mutation: MutationReport, api: str) -> None:
    assert {result.wire for result in mutation.contract.results} == {api}
    assert {j.item: j.verdict for j in mutation.reference.judgements} == dict.fromkeys(ITEMS, HOLDS)
    prose = {j.item: j.verdict for j in mutation.prose.judgements}
    assert prose == {item: UNOBSERVABLE if item in ("C11", "C12") else HOLDS for item in ITEMS}


def _caught(mutation: MutationReport, name: str) -> None:
    caught = next(m for m in mutation.mutants if m.mutant == name)
    assert caught.verdict == FAILS, f"{name} survived: the judge does not see it break {caught.item}"
    assert caught.others == (), f"{name} breaks {caught.item} only, yet fails {caught.others}"


def _holds(mutation: MutationReport, name: str) -> None:
    held = next(v for v in mutation.variants if v.variant == name)
    assert held.holds, f"{name} is a correct agent's choice, yet fails {held.failed}: {held.evidence}"


# One class per wire: each runs on a worker of its own (pytest-xdist --dist loadscope).


@pytest.fixture(scope="class")
def chat_mutation(tmp_path_factory: pytest.TempPathFactory) -> MutationReport:
    return _mutation("chat", tmp_path_factory)


@pytest.fixture(scope="class")
def responses_mutation(tmp_path_factory: pytest.TempPathFactory) -> MutationReport:
    return _mutation("responses", tmp_path_factory)


class TestOnChatCompletions:
    def test_the_reference_agent_holds_every_item_and_its_prose_form_every_observable_one(
        self, chat_mutation: MutationReport
    ) -> None:
        _reference_holds(chat_mutation, "chat")

    @pytest.mark.parametrize("name", [mutant.name for mutant in ON_WIRE["chat"]])
    def test_each_mutant_fails_its_item_and_no_other(self, chat_mutation: MutationReport, name: str) -> None:
        _caught(chat_mutation, name)

    @pytest.mark.parametrize("name", [variant.name for variant in VARIANTS_ON_WIRE["chat"]])
    def test_each_legitimate_variation_holds_every_item(
        self, chat_mutation: MutationReport, name: str
    ) -> None:
        _holds(chat_mutation, name)

    def test_every_mutant_is_caught_and_every_variation_holds(self, chat_mutation: MutationReport) -> None:
        assert chat_mutation.passed and chat_mutation.score == (len(ON_WIRE["chat"]), len(ON_WIRE["chat"]))

    def test_the_tables_show_each_mutant_and_variation_with_its_verdict_and_evidence(
        self, chat_mutation: MutationReport
    ) -> None:
        table = render_table(chat_mutation)

        shown = ON_WIRE["chat"]
        assert f"Mutants caught on their item alone: {len(shown)} of {len(shown)}." in table
        for mutant in shown:
            assert (
                f"| {mutant.name} | {mutant.item} | {mutant.clause} | {mutant.does} | ✓ caught (fails) | - |"
                in table
            )
        variants = VARIANTS_ON_WIRE["chat"]
        assert f"Legitimate variations holding every item: {len(variants)} of {len(variants)}." in table
        for variant in variants:
            assert f"| {variant.name} | {variant.does} | ✓ holds every item | - | - |" in table


class TestOnTheResponsesApi:
    def test_a_leak_in_two_scenarios_is_reported_twice(self, responses_mutation: MutationReport) -> None:
        repeats = next(
            r for r in responses_mutation.contract.results if r.subject == "mutant:c4-round-duplicates"
        )
        (c4,) = [j for j in repeats.judgements if j.item == "C4"]
        assert {v.scenario for v in c4.violations} >= {"c4-parallel-duplicates", "c10-mixed-round"}
        assert responses_mutation.passed

    def test_the_reference_agent_holds_every_item_and_its_prose_form_every_observable_one(
        self, responses_mutation: MutationReport
    ) -> None:
        _reference_holds(responses_mutation, "responses")

    @pytest.mark.parametrize("name", [mutant.name for mutant in ON_WIRE["responses"]])
    def test_each_mutant_fails_its_item_and_no_other(
        self, responses_mutation: MutationReport, name: str
    ) -> None:
        _caught(responses_mutation, name)

    @pytest.mark.parametrize("name", [variant.name for variant in VARIANTS_ON_WIRE["responses"]])
    def test_each_legitimate_variation_holds_every_item(
        self, responses_mutation: MutationReport, name: str
    ) -> None:
        _holds(responses_mutation, name)


def test_every_item_has_a_mutant_and_every_mutant_and_variation_runs_on_a_wire() -> None:
    assert {m.item for m in MUTANTS} == set(ITEMS)
    assert all(m.clause for m in MUTANTS)
    assert "c4-round-duplicates" in [m.name for m in ON_WIRE["responses"]]  # the leak test reads it there
    assert sorted(m.name for wire in ON_WIRE.values() for m in wire) == sorted(m.name for m in MUTANTS)
    assert sorted(v.name for wire in VARIANTS_ON_WIRE.values() for v in wire) == sorted(
        v.name for v in VARIANTS
    )
    assert {v.name for v in VARIANTS} == set(SHOWS) | {"concurrent-round"}


# Where each variation shows on the wire (a concurrent round may reach the server in the same order).
SHOWS = {
    "refusal-wording": scenarios.C6,
    "json-results": scenarios.C1,
    "pretty-report": scenarios.C12_KEPT,
    "duplicate-refused": scenarios.C4,
    "reversed-tools": scenarios.C1,
    "extra-system": scenarios.C1,
    "explicit-auto": scenarios.C1,
    "labelled-excerpt": scenarios.C14,
    "developer-prompt": scenarios.C1,
    "masked-secrets": scenarios.C14,
}


@pytest.mark.parametrize("name", sorted(SHOWS))
def test_each_variation_changes_what_the_model_is_sent_or_the_answer(tmp_path: Path, name: str) -> None:
    async def seen(agent: ReferenceAgent, folder: str) -> object:
        run, _ = await observe(agent, SHOWS[name], tmp_path / folder)
        return run.requests, run.answer

    reference, again, variant = (
        asyncio.run(seen(ReferenceAgent(in_process=True), "reference")),
        asyncio.run(seen(ReferenceAgent(in_process=True), "again")),
        asyncio.run(seen(ReferenceAgent(frozenset({name}), in_process=True), "variant")),
    )

    assert reference == again  # the reference agent is deterministic here
    assert reference != variant  # so the variation is exercised by the scenario that judges it


def test_every_clause_of_the_rule_table_has_a_mutant_and_every_mutant_breaks_one() -> None:
    page = (Path(__file__).parent.parent.parent / "docs" / "contract.md").read_text(encoding="utf-8")
    table = page[page.index("| item | clause | applies to | holds when |") :].splitlines()[2:]
    clauses, item = [], ""
    for line in table:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        item = cells[0] or item
        clauses.append((item, cells[1].replace("`", "")))

    for item, clause in clauses:
        assert [m for m in MUTANTS if m.item == item and m.clause.startswith(clause)], (item, clause)
    for mutant in MUTANTS:
        assert any(item == mutant.item and mutant.clause.startswith(c) for item, c in clauses), mutant.name
