"""The contract on the Responses wire: the judge reads `/v1/responses` bodies as the conversation they
amount to, and `k8s-agent contract --api responses` runs a subject on that wire.

The hand-made bodies are in the shape the Responses API takes (`instructions`, `input` items,
`function_call` / `function_call_output` paired by `call_id`, flat function tools, `tool_choice`,
`text.format`); each rule must catch its break there as it does on Chat Completions, and quote
the request as it was sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent import scenarios
from k8s_agent.contract.judge import FAILS, HOLDS, UNOBSERVABLE, Observed, judge_all
from tests.processes import k8s_agent

SCHEMA = {"type": "object", "properties": {"namespace": {"type": "string"}}}
TOOLS = [
    {"type": "function", "name": "list_pods", "parameters": SCHEMA, "strict": False},
    {"type": "function", "name": "list_nodes", "parameters": {"type": "object"}, "strict": False},
]
QUESTION = {"role": "user", "content": "Which pods are unhealthy?"}
PODS = "NAME   STATUS\nweb-1   Running\ncart-3   CrashLoopBackOff"
NODES = "NAME   STATUS\nnode-1   Ready"


def body(*items: dict[str, Any], choice: Any = None, tools: bool = True, **extra: Any) -> dict[str, Any]:
    sent: dict[str, Any] = {
        "model": "scripted",
        "instructions": "You are an SRE.",
        "input": [QUESTION, *items],
    }
    if tools:
        sent["tools"] = TOOLS
    if choice is not None:
        sent["tool_choice"] = choice
    return {**sent, **extra}


def call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "id": f"fc_{call_id}",
    }


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


ROUND = [
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "list_pods", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "list_nodes", "arguments": "{}"}},
        ],
    },
    {"role": "assistant", "content": "cart-3 is in CrashLoopBackOff."},
]
SERVED = {
    "calls": [{"tool": "list_pods", "arguments": {}}, {"tool": "list_nodes", "arguments": {}}],
    "results": [
        {"tool": "list_pods", "arguments": {}, "text": PODS, "is_error": False},
        {"tool": "list_nodes", "arguments": {}, "text": NODES, "is_error": False},
    ],
}


def run(requests: list[dict[str, Any]], name: str = scenarios.C1.name) -> Observed:
    return Observed(scenario=name, requests=requests, replies=ROUND, structured=False, **SERVED)


def verdicts(observed: Observed) -> dict[str, Any]:
    return {j.item: j for j in judge_all({observed.scenario: observed})}


def test_a_responses_transcript_that_keeps_the_rules_holds() -> None:
    kept = run(
        [
            body(choice="required"),
            body(
                call("call_1", "list_pods"),
                call("call_2", "list_nodes"),
                output("call_1", PODS),
                output("call_2", NODES),
            ),
        ]
    )
    judged = verdicts(kept)

    assert judged["C1"].verdict == HOLDS and judged["C10"].verdict == HOLDS
    assert judged["C1"].evidence == ['c1-forced-first-step: request 1: tools 2, tool_choice "required"']
    named = run([body(choice={"type": "function", "name": "list_pods"}), kept.requests[1]])
    assert verdicts(named)["C1"].verdict == HOLDS  # a named function forces, in its Responses form


def test_no_forced_first_call_on_the_responses_wire_is_caught_and_quoted_as_sent() -> None:
    unforced = run([body(choice="auto"), body(call("call_1", "list_pods"), output("call_1", PODS))])
    again = run(
        [
            body(choice="required"),
            body(
                call("call_1", "list_pods"),
                output("call_1", PODS),
                choice={"type": "function", "name": "list_nodes"},
            ),
        ]
    )

    assert verdicts(unforced)["C1"].verdict == FAILS
    assert verdicts(unforced)["C1"].violations[0].evidence == ['request 1: tools 2, tool_choice "auto"']
    assert verdicts(again)["C1"].summary == "request 2 forces a tool call again"
    assert verdicts(again)["C1"].violations[0].evidence == [
        'request 2: tool_choice {"type": "function", "name": "list_nodes"}'  # the body as sent
    ]


def test_an_unpaired_call_id_on_the_responses_wire_is_caught() -> None:
    unpaired = run(
        [
            body(choice="required"),
            body(call("call_1", "list_pods"), call("call_2", "list_nodes"), output("call_1", PODS)),
        ]
    )
    crossed = run(
        [
            body(choice="required"),
            body(
                call("call_1", "list_pods"),
                call("call_2", "list_nodes"),
                output("call_1", NODES),
                output("call_2", PODS),
            ),
        ]
    )

    judged = verdicts(unpaired)["C10"]
    assert judged.verdict == FAILS  # read raw, the Responses body has no messages: C10 would be unobservable
    assert judged.violations[0].summary == "calls answered ['call_1'] for ['call_1', 'call_2']"
    assert verdicts(crossed)["C10"].verdict == FAILS
    assert "call_1 (list_pods) was answered with something else" in verdicts(crossed)["C10"].summary


def test_the_report_format_is_read_from_text_format_on_the_responses_wire() -> None:
    report_format = {"format": {"type": "json_schema", "name": "report", "schema": {"type": "object"}}}
    asked = Observed(
        scenario=scenarios.C11.name,
        requests=[body(choice="required", text=report_format)],
        replies=[{"role": "assistant", "content": "no"}],
        calls=[],
    )
    prose = Observed(
        scenario=scenarios.C11.name,
        requests=[body(choice="required")],
        replies=[{"role": "assistant", "content": "no"}],
        calls=[],
    )

    assert "no response_format" in verdicts(prose)["C11"].summary
    assert verdicts(prose)["C11"].verdict == UNOBSERVABLE
    assert "no response_format" not in verdicts(asked)["C11"].summary  # judged: a report was asked for


# -- the command ------------------------------------------------------------------------------------------

PICKED = ("c1-forced-first-step", "c4-duplicates", "c6-unknown-tool", "c9-tool-failure")


@pytest.fixture(scope="module")
def on_responses(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], str]:
    folder = tmp_path_factory.mktemp("responses")
    picked = [argument for name in PICKED for argument in ("--scenario", name)]
    done = k8s_agent(
        "contract", "--subject", "plain-sdk", "--api", "responses", *picked,
        "--out", "card.json", "--out", "card.md", "--work-dir", str(folder / "runs"), cwd=folder,
    )  # fmt: skip
    return done.returncode, json.loads((folder / "card.json").read_text()), (folder / "card.md").read_text()


def test_plain_sdk_on_the_responses_wire_is_judged_with_evidence(
    on_responses: tuple[int, dict[str, Any], str],
) -> None:
    status, card, markdown = on_responses
    plain = card["subjects"][0]

    assert status == 5
    assert card["api"] == "responses" and plain["wire"] == "responses"
    assert all(run["wires"] == ["responses"] for run in plain["runs"].values())
    assert {item: plain["verdicts"][item] for item in ("C1", "C4", "C6", "C9")} == {
        "C1": "fails", "C4": "fails", "C6": "fails", "C9": "holds",
    }  # fmt: skip
    c1 = next(j for j in plain["judgements"] if j["item"] == "C1")
    assert c1["violations"][0]["evidence"] == ['request 1: tools 9, tool_choice "absent"']
    c4 = next(j for j in plain["judgements"] if j["item"] == "C4")
    assert any(line.startswith("server received list_pods(") for line in c4["violations"][0]["evidence"])
    assert markdown.splitlines()[0] == "| item | behaviour | plain-sdk (responses) |"
    assert "Wire: --api responses; the requests came on: plain-sdk responses." in markdown


def test_our_agents_hold_every_item_on_the_responses_wire(tmp_path: Path) -> None:
    """The contract's gate on the SDK's default wire: every scenario, both agents with --api responses."""
    done = k8s_agent(
        "contract", "--api", "responses", "--out", "card.json", "--work-dir", str(tmp_path / "runs"),
        cwd=tmp_path, timeout=900,
    )  # fmt: skip
    card = json.loads((tmp_path / "card.json").read_text())

    assert done.returncode == 0, done.stdout[-2000:]
    assert [subject["subject"] for subject in card["subjects"]] == ["handwritten", "sdk"]
    for subject in card["subjects"]:
        assert subject["wire"] == "responses"
        assert all(run["wires"] and set(run["wires"]) == {"responses"} for run in subject["runs"].values())
        assert set(subject["verdicts"].values()) == {"holds"}, subject["verdicts"]
    assert "Wire: --api responses; the requests came on: handwritten responses, sdk responses." in done.stdout


@pytest.mark.parametrize(
    "args",
    [("--subject", "holmesgpt"), ("--subject", "plain-sdk", "--subject", "holmesgpt")],
    ids=["alone", "beside"],
)
def test_subjects_that_speak_chat_only_are_refused_on_the_responses_wire(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    done = k8s_agent("contract", "--api", "responses", *args, cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Chat Completions only" in done.stderr
