"""The scripted model server keeps its responses: a Responses request may continue one by
`previous_response_id`, as on OpenAI's API, read by the real `openai` client.

The server records each body as sent (`requests`) and, beside it, the conversation it amounts to
(`conversations`: the chain's input items, the previous response's output items, then the request's
own input; the request's own `instructions`, none carried over); the responder sees the
conversation. An id it does not keep (unknown, or a response sent with `store: false`) is OpenAI's
400 (`previous_response_not_found`); `conversation` (the Conversations API) is refused.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest

from k8s_agent_scripted_llm import ScriptedModelServer, calls, text, tool
from k8s_agent_scripted_llm import server as server_module
from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Reply, Step

TOOLS = [
    {
        "type": "function",
        "name": "describe_pod",
        "description": "Describe a pod.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
]
QUESTION = {"role": "user", "content": "Why is a down?"}


def create(opened: openai.OpenAI, stream: bool, **body: Any) -> Any:
    """One Response, whole or as the stream of it amounts to."""
    if not stream:
        return opened.responses.create(model="m", **body)
    with opened.responses.stream(model="m", **body) as events:
        for _ in events:
            pass
        return events.get_final_response()


def output(call_id: str, result: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": result}


def kinds(body: dict[str, Any]) -> list[tuple[str, str | None]]:
    """Each input item's kind and call id (messages: their role)."""
    return [
        (str(item.get("type", "message")), item.get("call_id") or item.get("role")) for item in body["input"]
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_chain_three_responses_deep_is_expanded_to_the_whole_conversation(
    client: tuple[ScriptedModelServer, openai.OpenAI], stream: bool
) -> None:
    server, opened = client
    seen: list[dict[str, Any]] = []
    script: list[Step] = [
        calls(tool("describe_pod", "call_a", name="a"), content="Looking."),
        calls(tool("describe_pod", "call_b", name="b")),
        text("a and b crash."),
    ]

    def responder(body: dict[str, Any]) -> Step:
        seen.append(body)
        return script[len(seen) - 1]

    server._responder = responder
    first = create(
        opened, stream, instructions="Be brief.", input=[QUESTION], tools=TOOLS, tool_choice="required"
    )
    second = create(
        opened,
        stream,
        instructions="Be briefer.",
        previous_response_id=first.id,
        input=[output("call_a", "a: CrashLoopBackOff")],
        tools=TOOLS,
    )
    third = create(
        opened, stream, previous_response_id=second.id, input=[output("call_b", "b: CrashLoopBackOff")]
    )

    assert third.output_text == "a and b crash." and third.previous_response_id == second.id
    assert [first.id, second.id, third.id] == ["resp_scripted_1", "resp_scripted_2", "resp_scripted_3"]
    sent, expanded = server.requests, server.conversations
    assert len(sent) == len(expanded) == 3 and seen == expanded  # the responder sees the conversation
    assert [body.get("previous_response_id") for body in sent] == [None, first.id, second.id]  # as sent
    assert kinds(sent[2]) == [("function_call_output", "call_b")]
    assert expanded[0] == sent[0]  # a request that continues nothing is its own conversation
    assert kinds(expanded[2]) == [
        ("message", "user"),
        ("message", "assistant"),
        ("function_call", "call_a"),
        ("function_call_output", "call_a"),
        ("function_call", "call_b"),
        ("function_call_output", "call_b"),
    ]
    assert "previous_response_id" not in expanded[1] and "previous_response_id" not in expanded[2]
    # the request's own instructions and tools, never the previous one's (as OpenAI documents)
    assert expanded[1]["instructions"] == "Be briefer." and "instructions" not in expanded[2]
    assert expanded[0]["tool_choice"] == "required" and "tool_choice" not in expanded[1]
    assert "tools" not in expanded[2]
    messages = chat_request(expanded[2])["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert messages[1]["content"] == "Looking." and messages[1]["tool_calls"][0]["id"] == "call_a"
    server.assert_done()


def test_a_chain_two_deep_with_a_string_input_reads_as_the_stateless_conversation(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    server.reset([text("Which pod?"), text("a is down."), text("Which pod?"), text("a is down.")])
    first = opened.responses.create(model="m", input="Why is it down?")
    opened.responses.create(model="m", previous_response_id=first.id, input="The pod a.")
    again = opened.responses.create(model="m", input="Why is it down?")
    opened.responses.create(
        model="m",
        input=[
            {"role": "user", "content": "Why is it down?"},
            {"role": "assistant", "content": again.output_text},
            {"role": "user", "content": "The pod a."},
        ],
    )

    stateful, stateless = server.conversations[1], server.conversations[3]
    assert chat_request(stateful)["messages"] == chat_request(stateless)["messages"]
    assert server.requests[1]["input"] == "The pod a."  # as sent
    server.assert_done()


def test_a_reply_to_a_stateful_request_counts_the_whole_conversation_as_its_input(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    server.reset([text("ok"), text("ok")])
    first = opened.responses.create(model="m", input="q" * 4000)
    second = opened.responses.create(model="m", previous_response_id=first.id, input="and?")

    assert second.usage is not None and first.usage is not None
    assert second.usage.input_tokens > first.usage.input_tokens >= 1000


def not_found(response_id: str) -> dict[str, Any]:
    return {
        "message": f"Previous response with id '{response_id}' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }


def test_an_unknown_previous_response_is_openais_400(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    server.reset([text("never sent")])
    with pytest.raises(openai.BadRequestError) as raised:
        opened.responses.create(model="m", input="q", previous_response_id="resp_elsewhere")

    assert raised.value.status_code == 400 and raised.value.body == not_found("resp_elsewhere")
    assert server.requests[0]["previous_response_id"] == "resp_elsewhere"  # recorded, as sent
    assert server.conversations == server.requests
    with pytest.raises(
        AssertionError, match="refused: previous_response_id 'resp_elsewhere' names no response"
    ):
        server.assert_done()


def test_a_response_sent_with_store_false_is_not_kept(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    server.reset([text("not kept"), text("never sent")])
    first = opened.responses.create(model="m", input="q", store=False)
    with pytest.raises(openai.BadRequestError) as raised:
        opened.responses.create(model="m", input="and?", previous_response_id=first.id)

    assert first.store is False and raised.value.body == not_found(first.id)
    with pytest.raises(AssertionError, match="sent with store: false"):
        server.assert_done()


def test_a_request_in_a_conversation_is_refused(client: tuple[ScriptedModelServer, openai.OpenAI]) -> None:
    server, opened = client
    server.reset([text("never sent")])
    with pytest.raises(openai.BadRequestError, match="does not implement the Conversations API") as raised:
        opened.responses.create(model="m", input="q", conversation="conv_1")

    assert isinstance(raised.value.body, dict) and raised.value.body["param"] == "conversation"
    with pytest.raises(AssertionError, match=r"refused.*conversation"):
        server.assert_done()


def test_a_reset_forgets_the_responses_kept(client: tuple[ScriptedModelServer, openai.OpenAI]) -> None:
    server, opened = client
    server.reset([text("ok")])
    first = opened.responses.create(model="m", input="q")
    server.reset([text("never sent")])
    with pytest.raises(openai.BadRequestError, match="not found"):
        opened.responses.create(model="m", input="and?", previous_response_id=first.id)


def test_a_server_that_does_not_record_continues_a_response_and_keeps_only_the_latest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server_module, "KEPT_UNRECORDED", 1)
    answers = iter([Reply(content=str(number)) for number in range(1, 5)])
    with (
        ScriptedModelServer(responder=lambda body: next(answers), record=False) as server,
        openai.OpenAI(base_url=server.url, api_key="k", max_retries=0) as opened,
    ):
        first = opened.responses.create(model="m", input="q")
        second = opened.responses.create(model="m", input="and?", previous_response_id=first.id)
        with pytest.raises(openai.BadRequestError, match="not found"):  # the second one evicted the first
            opened.responses.create(model="m", input="again?", previous_response_id=first.id)

    assert second.output_text == "2" and server.requests == server.conversations == []
