"""The contract for a stateful Responses agent: one that sends `previous_response_id` and only its new
input items, as OpenAI's API allows.

The scripted model server keeps its responses and records, beside each body as sent, the
conversation it amounts to (tests/unit/test_scripted_stateful.py); the judge reads that
conversation (C10 pairs call ids across the chain, C2 and C5 find the new user message), while C14
and the evidence that quotes a body read the bodies as sent. The `reference-stateful` subject (the
reference agent, stateful) must hold every item on the Responses wire, as `reference` does, and be
stateful on the wire.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from k8s_agent import scenarios
from k8s_agent.contract.judge import FAILS, HOLDS, ITEMS, Observed, judge_all
from k8s_agent.contract.reference import ReferenceAgent
from k8s_agent.contract.run import API_KEY, observe
from k8s_agent.scenarios import JUDGED_SCENARIOS
from k8s_agent_scripted_llm.responses_api import Kept, continued, input_items
from tests.contract.test_responses_wire import NODES, PODS, ROUND, SERVED, body, call, output
from tests.processes import k8s_agent

# -- the judge reads the conversation ----------------------------------------------------------------

FIRST = body(choice="required")
CALLED = [call("call_1", "list_pods"), call("call_2", "list_nodes")]
"""Response 1's output: the round the model asked for (ROUND's first reply)."""


def stateful(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Request 2 as a stateful agent sends it: response 1 continued, only the new items."""
    sent = body(*items, previous_response_id="resp_scripted_1", **extra)
    sent["input"] = list(items)  # not the question again: it is in the chain
    return sent


def chained(second: dict[str, Any], first: dict[str, Any] = FIRST, **extra: Any) -> Observed:
    """A run whose request 2 continues the response to request 1, with the conversation each
    amounts to as the model server expands it."""
    return Observed(
        scenario=scenarios.C1.name,
        requests=[first, second],
        replies=ROUND,
        structured=False,
        conversations=[first, continued(second, Kept(input_items(first), CALLED))],
        **SERVED,
        **extra,
    )


def verdicts(observed: Observed) -> dict[str, Any]:
    return {j.item: j for j in judge_all({observed.scenario: observed})}


def test_a_stateful_transcript_that_keeps_the_rules_holds() -> None:
    judged = verdicts(chained(stateful(output("call_1", PODS), output("call_2", NODES))))

    assert judged["C1"].verdict == HOLDS and judged["C10"].verdict == HOLDS


@pytest.mark.parametrize(
    ("outputs", "caught"),
    [
        ([output("call_1", PODS)], "calls answered ['call_1'] for ['call_1', 'call_2']"),
        (
            [output("call_1", NODES), output("call_2", PODS)],
            "call_1 (list_pods) was answered with something else",
        ),
    ],
    ids=["unpaired", "crossed"],
)
def test_call_ids_are_paired_across_the_chain(outputs: list[dict[str, Any]], caught: str) -> None:
    broken = chained(stateful(*outputs))

    assert verdicts(broken)["C10"].verdict == FAILS
    assert caught in verdicts(broken)["C10"].summary


def test_an_unanswered_call_is_seen_only_in_the_conversation() -> None:
    unpaired = chained(stateful(output("call_1", PODS)))

    assert verdicts(unpaired)["C10"].verdict == FAILS
    # Read as sent, request 2 holds no call to pair its outputs with: the break would pass unseen.
    assert verdicts(replace(unpaired, conversations=()))["C10"].verdict != FAILS


def test_a_secret_is_found_in_the_request_that_sent_it_not_again_in_the_chain() -> None:
    answered = (output("call_1", PODS), output("call_2", NODES))
    held = {"the API key the agent holds": API_KEY}
    in_first = chained(stateful(*answered), body({"role": "user", "content": f"key {API_KEY}"}), secrets=held)
    in_second = chained(stateful(*answered, {"role": "user", "content": f"key {API_KEY}"}), secrets=held)

    assert API_KEY in str(in_first.conversations[1])  # the chain holds it again: the wire does not
    assert [v.evidence[0][:10] for v in verdicts(in_first)["C14"].violations] == ["request 1:"]
    assert [v.evidence[0][:10] for v in verdicts(in_second)["C14"].violations] == ["request 2:"]


def test_the_tool_choice_is_quoted_as_sent() -> None:
    forced = chained(
        stateful(
            output("call_1", PODS),
            output("call_2", NODES),
            tool_choice={"type": "function", "name": "list_pods"},
        )
    )

    assert verdicts(forced)["C1"].violations[0].evidence == [
        'request 2: tool_choice {"type": "function", "name": "list_pods"}'
    ]


# -- the reference-stateful subject ------------------------------------------------------------------


def _observe_all(agent: ReferenceAgent, folder: Path, picked: Any = JUDGED_SCENARIOS) -> dict[str, Observed]:
    async def every() -> list[tuple[Observed, dict[str, Any]]]:
        return list(
            await asyncio.gather(
                *(observe(agent, scenario, folder / scenario.name, api="responses") for scenario in picked)
            )
        )

    return {observed.scenario: observed for observed, _ in asyncio.run(every())}


@pytest.fixture(scope="module")
def stateful_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Observed]:
    """Every judged scenario, reference-stateful on the Responses wire, in this process (the mock
    cluster in memory), judged as `k8s-agent contract` judges any subject."""
    return _observe_all(ReferenceAgent(in_process=True, stateful=True), tmp_path_factory.mktemp("stateful"))


def test_reference_stateful_holds_every_item_on_the_responses_wire(
    stateful_runs: dict[str, Observed],
) -> None:
    budgets = {s.name: int(s.overrides["max_steps"]) for s in JUDGED_SCENARIOS if "max_steps" in s.overrides}
    judged = judge_all(stateful_runs, budgets)

    assert {j.item: j.verdict for j in judged} == dict.fromkeys(ITEMS, HOLDS), [
        (j.item, j.summary) for j in judged if j.verdict != HOLDS
    ]
    assert all(run.error is None and run.steps_left == 0 for run in stateful_runs.values())


def test_reference_stateful_sends_only_what_it_added_since_its_last_response(
    stateful_runs: dict[str, Observed],
) -> None:
    for name, run in stateful_runs.items():
        sent, expanded = run.requests, run.conversations
        assert len(sent) >= 2 and len(expanded) == len(sent), name
        assert "previous_response_id" not in sent[0] and sent[0]["input"][0]["content"] == run_question(name)
        for number in range(2, len(sent) + 1):
            request, before, reply = sent[number - 1], expanded[number - 2], run.replies[number - 2]
            assert request["previous_response_id"] == f"resp_scripted_{number - 1}", (name, number)
            assert request["store"] is True and request["instructions"] == sent[0]["instructions"]
            said = (reply.get("content") is not None) + len(reply.get("tool_calls") or [])
            own = request["input"]
            assert own and all(item.get("type") != "function_call" for item in own), (name, number)
            assert len(expanded[number - 1]["input"]) == len(before["input"]) + said + len(own), (
                name,
                number,
            )
            assert expanded[number - 1]["input"][-len(own) :] == own


def run_question(name: str) -> str:
    scenario = next(s for s in JUDGED_SCENARIOS if s.name == name)
    return scenario.question or scenarios.QUESTION


def test_the_judge_sees_the_conversation_the_stateless_reference_sends(
    stateful_runs: dict[str, Observed], tmp_path: Path
) -> None:
    picked = [scenarios.C2, scenarios.C10, scenarios.C12]
    whole = _observe_all(ReferenceAgent(in_process=True), tmp_path, picked)

    for scenario in picked:
        assert stateful_runs[scenario.name].on_chat().requests == whole[scenario.name].on_chat().requests


def test_reference_stateful_is_refused_on_chat_completions(tmp_path: Path) -> None:
    done = k8s_agent("contract", "--subject", "reference-stateful", "--api", "chat", cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: --api chat: not for reference-stateful (the Responses API only): give --api responses"
    ]
