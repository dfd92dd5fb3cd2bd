"""Every provider of docs/providers.md, on each wire it offers: both agents, each answer whole and
streamed, the scripted model answering in that provider's own shape.

The answers (tests/providers/PROVIDER: `chat-N.json`, `chat-N.sse`, `responses-N.*`) were written
in the shapes learned from each provider's documentation and from public recordings of its traffic
(`provider.json` names them), the tool names pointed at the mock cluster's: a call to list the pods,
two parallel calls about one pod, then the answer. For each run (hand-written and SDK, whole and
streamed): it completes with that answer, the contract's invariants hold (the first request forces a
tool, every call is answered, the server received only accepted calls, ...), every call reached the
mock cluster, and each request carries back what the provider put in the answers before it, as it
came: every field of its own in an assistant message or a call on Chat Completions (`needs_back`
names those the provider cannot do without, so none of them may be missing from the fixture
either), every output item on the Responses API. A call that came without an id is answered under
the id the run gave it. And the four runs send the same requests: the two agents the same JSON
(the accepted differences of tests/wire.py `said`), a stream the same as the whole answer but for
`stream: true`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.invariants import check_run
from k8s_agent_harness.model.conversation import STANDARD_CALL_FIELDS, STANDARD_MESSAGE_FIELDS, content_text
from k8s_agent_harness.model.provider_wire import FRESH_ID_PREFIX
from k8s_agent_harness.traces.events import read_trace
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl
from k8s_agent_scripted_llm import Recorded
from tests.conftest import AgentRun, run_scenario
from tests.wire import said

PROVIDERS = Path(__file__).parent.parent / "providers"


def manifest(provider: str) -> dict[str, Any]:
    """A provider's `provider.json`."""
    return dict(json.loads((PROVIDERS / provider / "provider.json").read_text(encoding="utf-8")))


CASES = [
    pytest.param(provider.name, wire, id=f"{provider.name}-{wire}")
    for provider in sorted(PROVIDERS.iterdir())
    if (provider / "provider.json").is_file()
    for wire, described in manifest(provider.name)["wires"].items()
    if described["answers"]  # a provider with no tool calls has single answers only (test_provider_parity)
]


def answers(provider: str, wire: str) -> list[dict[str, Any]]:
    """The provider's whole answers on a wire, in order."""
    files = manifest(provider)["wires"][wire]["answers"]
    return [json.loads((PROVIDERS / provider / name).read_text(encoding="utf-8")) for name in files]


def recorded(provider: str, wire: str, streamed: bool) -> list[Recorded]:
    """The scripted model's steps: the provider's answers (or streams) as they are."""
    entry = manifest(provider)["wires"][wire]
    if not streamed:
        return [
            Recorded((PROVIDERS / provider / name).read_text(encoding="utf-8")) for name in entry["answers"]
        ]
    return [
        Recorded((PROVIDERS / provider / name).read_text(encoding="utf-8"), "text/event-stream")
        for name in entry["streams"]
    ]


def run_provider(impl: Impl, provider: str, wire: str, streamed: bool, workdir: Path) -> AgentRun:
    """One run of `impl` against the provider's answers (prose report: the answer is checked as it is)."""
    return run_scenario(
        impl, recorded(provider, wire, streamed), workdir, report_format="prose", api=wire, stream=streamed
    )


@pytest.mark.parametrize(("provider", "wire"), CASES)
def test_a_provider_answering_in_its_own_shape_gets_back_what_it_sent_from_both_agents(
    provider: str, wire: str, tmp_path: Path
) -> None:
    sent_answers = answers(provider, wire)
    needed = manifest(provider)["wires"][wire]["needs_back"]
    bodies = {}
    for impl in IMPLEMENTATIONS:
        for streamed in (False, True):
            how = f"{impl}, {'streamed' if streamed else 'whole answers'}"
            run = run_provider(impl, provider, wire, streamed, tmp_path / f"{impl}-{streamed}")

            assert run.error is None, f"{how}: {run.error}"
            assert run.answer == final_text(sent_answers[-1], wire), how
            trace = read_trace(run.trace_path).events if run.trace_path else ()
            checks = check_run(trace, run.sent, run.calls)
            assert checks and all(check.held is not False for check in checks), (how, checks)
            assert run.called_tools == ["list_pods", "describe_pod", "get_pod_logs"], how
            assert all(body.get("stream") is (True if streamed else None) for body in run.sent), how
            if wire == "chat":
                assert_chat_fields_carried_back(run.sent, sent_answers, needed)
            else:
                assert_items_carried_back(run.sent, sent_answers, needed["items"])
            bodies[how] = [said({k: v for k, v in body.items() if k != "stream"}) for body in run.sent]
    first = next(iter(bodies.values()))
    for how, sent in bodies.items():
        assert sent == first, f"{how} sent other requests than {next(iter(bodies))}"


def final_text(answer: dict[str, Any], wire: str) -> str:
    """The text of an answer as the provider sent it."""
    if wire == "chat":
        return content_text(answer["choices"][0]["message"]["content"])
    return "".join(
        part["text"]
        for item in answer["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )


def own_fields(item: dict[str, Any], standard: frozenset[str]) -> dict[str, Any]:
    """What a provider put in a message or a call beside the standard fields (nulls say nothing)."""
    return {key: value for key, value in item.items() if key not in standard and value is not None}


def assert_chat_fields_carried_back(
    sent: list[dict[str, Any]], provider_answers: list[dict[str, Any]], needed: dict[str, list[str]]
) -> None:
    """Each tool-calling answer comes back in the next request as the assistant message of that turn:
    its own fields as they came (content chunks included), each call's own fields, each call under
    its id (a fresh one, in order, when it came without)."""
    answered_as = run_ids(
        [answer["choices"][0]["message"]["tool_calls"] for answer in provider_answers[:-1]], "id"
    )
    for turn, answer in enumerate(provider_answers[:-1]):
        message = answer["choices"][0]["message"]
        ids = answered_as[turn]
        echoed = assistant_turn(sent[turn + 1], ids)
        fields = own_fields(message, STANDARD_MESSAGE_FIELDS)
        if isinstance(message.get("content"), list):
            fields["content"] = message["content"]
        assert {key: echoed.get(key) for key in fields} == fields
        assert set(needed["message"]) <= set(fields), "the fixture lacks a field this provider needs back"
        for call, echoed_call in zip(message["tool_calls"], echoed["tool_calls"], strict=True):
            call_fields = own_fields(call, STANDARD_CALL_FIELDS)
            assert {key: echoed_call.get(key) for key in call_fields} == call_fields
            arguments = call["function"]["arguments"]
            expected = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            assert echoed_call["function"] == {"name": call["function"]["name"], "arguments": expected}
        if needed["call"]:
            assert any(
                set(needed["call"]) <= set(own_fields(c, STANDARD_CALL_FIELDS)) for c in message["tool_calls"]
            )
        assert [m["tool_call_id"] for m in sent[turn + 1]["messages"] if m["role"] == "tool"][
            -len(ids) :
        ] == ids


def run_ids(turns: list[list[dict[str, Any]]], key: str) -> list[list[str]]:
    """The id each call of each turn is answered under: its own, or a fresh one (`k8s-agent-call-N`,
    counted over the run) when it came without one or with one the run has already used."""
    used: set[str] = set()
    fresh = 0
    ids = []
    for calls in turns:
        turn = []
        for call in calls:
            given = call.get(key)
            if not given or given in used:
                fresh += 1
                given = f"{FRESH_ID_PREFIX}{fresh}"
            used.add(given)
            turn.append(given)
        ids.append(turn)
    return ids


def assistant_turn(body: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The assistant message of a request whose calls have these ids."""
    for message in body["messages"]:
        if message["role"] == "assistant" and [c["id"] for c in message.get("tool_calls") or []] == ids:
            return dict(message)
    raise AssertionError(
        f"no assistant message with the calls {ids} in {json.dumps(body['messages'])[:2000]}"
    )


def assert_items_carried_back(
    sent: list[dict[str, Any]], provider_answers: list[dict[str, Any]], kinds: list[str]
) -> None:
    """Each output item of a tool-calling answer comes back, as it came, in the next request's input
    (a function call under the id it was answered under)."""
    calls = [
        [i for i in answer["output"] if i["type"] == "function_call"] for answer in provider_answers[:-1]
    ]
    answered_as = iter(call_id for turn in run_ids(calls, "call_id") for call_id in turn)
    for turn, answer in enumerate(provider_answers[:-1]):
        items = sent[turn + 1]["input"]
        for item in answer["output"]:
            if item.get("status", "") is None:  # an input item's status is a status or absent
                item = {key: value for key, value in item.items() if key != "status"}
            if item["type"] == "function_call":
                item = {**item, "call_id": next(answered_as)}
            assert item in items, f"request {turn + 2} lacks {json.dumps(item)[:300]}"
        assert set(kinds) <= {item["type"] for item in answer["output"]}


def test_the_providers_page_has_one_row_per_provider_the_matrix_runs_with_its_sources() -> None:
    page = (PROVIDERS.parent.parent / "docs" / "providers.md").read_text(encoding="utf-8")
    rows = {
        found[1]: line
        for line in page.splitlines()
        if line.startswith("| ") and (found := re.search(r"\(`(\w+)`\) \|", line))
    }

    assert sorted(rows) == sorted(
        path.name for path in PROVIDERS.iterdir() if (path / "provider.json").is_file()
    )
    for provider, row in rows.items():
        described = manifest(provider)
        assert row.startswith(f"| {described['name']} (`{provider}`) |")
        wires = {"chat": "Chat Completions", "responses": "Responses"}
        assert row.split(" | ")[1] == ", ".join(wires[wire] for wire in described["wires"])
        assert described["model"] in row and described["differs"] in row
        assert described["base_url"].startswith("(") or f"--base-url {described['base_url']}" in row
        for source in described["learned_from"]:
            assert f"<{source.split(' ')[0]}>" in page, source
