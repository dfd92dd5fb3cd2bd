"""The offline model and the baselines on the Responses wire: fed the same conversation as a Chat
Completions body and as the Responses body a client would send for it, they answer the same step
at every turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from k8s_agent_harness.evidence.report import instructions, response_format
from k8s_agent_mock_cluster import Cluster, Invalid, NotFound, load_fixture
from k8s_agent_scripted_llm import Reply, Step, offline_model
from k8s_agent_scripted_llm.baseline_rules import rules
from k8s_agent_scripted_llm.baselines import parrot, status
from k8s_agent_scripted_llm.script import message_text
from tests.clusters import MOCK_TOOLS, node_trouble_fixture, shop_fixture

CHAT_TOOLS = [
    {"type": "function", "function": {"name": name, "description": name, "parameters": {"type": "object"}}}
    for name in MOCK_TOOLS
]


def responses_body(chat: dict[str, Any]) -> dict[str, Any]:
    """The Responses request a client sends for this Chat request (as the Agents SDK writes it:
    instructions apart, assistant text as output_text parts, calls and outputs as items), with a
    reasoning item before each turn's calls, which the model must not read."""
    body: dict[str, Any] = {"model": chat.get("model", "m"), "input": []}
    for number, message in enumerate(chat["messages"]):
        role = message["role"]
        if role == "system":
            body["instructions"] = message["content"]
        elif role == "tool":
            body["input"].append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        elif role == "assistant":
            body["input"].append(
                {"type": "reasoning", "id": f"rs_{number}", "summary": [], "encrypted_content": "x"}
            )
            if message.get("content"):
                body["input"].append(
                    {
                        "type": "message",
                        "id": f"msg_{number}",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": message["content"], "annotations": []}],
                    }
                )
            for call in message.get("tool_calls") or []:
                body["input"].append(
                    {
                        "type": "function_call",
                        "id": f"fc_{call['id']}",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                        "status": "completed",
                    }
                )
        else:
            body["input"].append(
                {"role": role, "content": [{"type": "input_text", "text": message["content"]}]}
            )
    if "tools" in chat:
        body["tools"] = [{"type": "function", **tool["function"]} for tool in chat["tools"]]
    if "tool_choice" in chat:
        body["tool_choice"] = chat["tool_choice"]
    if "response_format" in chat:
        body["text"] = {"format": {"type": "json_schema", **chat["response_format"]["json_schema"]}}
    return body


def play_both_wires(
    model: Callable[[dict[str, Any]], Step], cluster: Cluster, question: str, **request: Any
) -> list[Step]:
    """Play `model` on the Chat wire, asking it the Responses form of every request too; the steps
    of the Chat run (each checked equal to the Responses answer)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    system = request.pop("system", None)
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    played: list[Step] = []
    for turn in range(8):
        chat = {"model": "m", "messages": messages, "tools": CHAT_TOOLS, **request}
        step = model(chat)
        assert model(responses_body(chat)) == step, f"the wires differ at turn {turn}"
        played.append(step)
        assert isinstance(step, Reply)
        if not step.tool_calls:
            return played
        ids = [f"call_{turn}_{n}" for n in range(len(step.tool_calls))]
        messages.append(
            {
                "role": "assistant",
                "content": step.content,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for i, c in zip(ids, step.tool_calls, strict=True)
                ],
            }
        )
        for call_id, tool_call in zip(ids, step.tool_calls, strict=True):
            try:
                result = getattr(cluster, tool_call.name)(**json.loads(tool_call.arguments))
            except (NotFound, Invalid) as error:
                result = f"Tool call failed ({tool_call.name}): {error}"
            messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    raise AssertionError("no report after 8 turns")


CONVERSATIONS = [
    ("default", "Which pods in the production namespace are unhealthy, and why?"),
    ("default", "Are any nodes unhealthy?"),
    ("shop", "Which pods in the shop namespace are unhealthy?"),
    ("shop", "Why is checkout-api down?"),
    ("nodes", "Which pods and nodes are unhealthy?"),
    ("default", "What is the capital of France?"),
]
FIXTURES = {"default": load_fixture, "shop": shop_fixture, "nodes": node_trouble_fixture}
FORMATS = {
    "prose": {"system": "You diagnose Kubernetes clusters."},
    "json_schema": {"response_format": response_format(), "tool_choice": "auto"},
    "json_text": {
        "system": instructions(),
        "tool_choice": {"type": "function", "function": {"name": "list_pods"}},
    },
}


@pytest.mark.parametrize("report_format", list(FORMATS))
@pytest.mark.parametrize(("fixture", "question"), CONVERSATIONS)
def test_the_offline_model_answers_a_responses_request_as_its_chat_form(
    fixture: str, question: str, report_format: str
) -> None:
    played = play_both_wires(offline_model, Cluster(FIXTURES[fixture]()), question, **FORMATS[report_format])

    assert played[-1].content if isinstance(played[-1], Reply) else False


@pytest.mark.parametrize("baseline", [parrot, status, rules], ids=["parrot", "status", "rules"])
@pytest.mark.parametrize("report_format", list(FORMATS))
def test_the_baselines_answer_a_responses_request_as_its_chat_form(
    baseline: Callable[[dict[str, Any]], Step], report_format: str
) -> None:
    question = "Which pods in the shop namespace are unhealthy?"
    played = play_both_wires(baseline, Cluster(shop_fixture()), question, **FORMATS[report_format])

    # The parrot answers at once, the status reader after its listing, the events reader after the
    # listing and the pods' details and events (the crashing pod was OOMKilled: no logs to read).
    assert len(played) == {parrot: 1, status: 2, rules: 3}[baseline]
    assert isinstance(played[-1], Reply) and not played[-1].tool_calls


def test_the_report_quotes_cite_the_call_ids_of_the_responses_input() -> None:
    cluster = Cluster(shop_fixture())
    question = "Which pods in the shop namespace are unhealthy?"
    played = play_both_wires(offline_model, cluster, question, response_format=response_format())
    report = json.loads(message_text(played[-1].content if isinstance(played[-1], Reply) else ""))

    cited = {quote["call_id"] for finding in report["findings"] for quote in finding["evidence"]}
    assert cited and all(call_id.startswith("call_") for call_id in cited)
