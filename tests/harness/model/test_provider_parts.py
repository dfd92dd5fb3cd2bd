"""The parts of the provider reading that a run does not reach on every provider: a stream whose
calls come without an index, ids that change mid-stream, error events, and the conversation model
keeping a provider's fields through the SDK's items and through compaction."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from k8s_agent_harness.model.context import Budget, ContextBudgetError, ResultStore
from k8s_agent_harness.model.conversation import Call, Conversation, ModelTurn, Said, turn_from_chat
from k8s_agent_harness.model.streams import StreamEnd, read_stream


def streamed(text: str, api: str = "chat") -> tuple[StreamEnd, list[str]]:
    shown: list[str] = []

    async def lines() -> AsyncIterator[str]:
        for line in text.splitlines(keepends=True):
            yield line

    return asyncio.run(read_stream(lines(), api, shown.append)), shown


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return (
        "data: "
        + json.dumps({"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        + "\n\n"
    )


def test_calls_without_an_index_are_told_apart_by_their_place_in_the_chunk() -> None:
    calls = [
        {"id": "", "type": "function", "function": {"name": "list_pods", "arguments": "{}"}},
        {"id": "", "type": "function", "function": {"name": "list_nodes", "arguments": "{}"}},
    ]
    end, _ = streamed(chunk({"role": "assistant", "tool_calls": calls}, "tool_calls") + "data: [DONE]\n\n")

    message = end.body["choices"][0]["message"]
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["list_pods", "list_nodes"]
    assert end.body["choices"][0]["finish_reason"] == "tool_calls"


def test_a_call_keeps_the_first_id_and_name_it_got_whatever_later_pieces_say() -> None:
    stream = (
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "functions.read:0", "function": {"name": "read", "arguments": ""}}
                ]
            }
        )
        + chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "chatcmpl-tool-a", "function": {"name": None, "arguments": '{"p'}}
                ]
            }
        )
        + chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "chatcmpl-tool-b", "function": {"name": "", "arguments": '": 1}'}}
                ]
            }
        )
        + "data: [DONE]\n\n"
    )
    end, _ = streamed(stream)

    (call,) = end.body["choices"][0]["message"]["tool_calls"]
    assert (call["id"], call["function"]) == ("functions.read:0", {"name": "read", "arguments": '{"p": 1}'})


def test_text_pieces_are_shown_as_they_come_and_labels_are_not_kept() -> None:
    stream = (
        ": keep-alive\n\n"
        + chunk({"role": "assistant", "content": "", "reasoning": "think", "channel": "analysis"})
        + chunk({"reasoning": "ing", "channel": "analysis", "token_id": 7})
        + chunk({"content": "All "})
        + chunk({"content": "good."}, "stop")
        + "data: [DONE]\n\n"
    )
    end, shown = streamed(stream)

    assert shown == ["All ", "good."]
    message = end.body["choices"][0]["message"]
    assert message == {"role": "assistant", "content": "All good.", "reasoning": "thinking"}


def test_an_error_event_with_a_status_is_that_status_and_one_without_is_the_endpoints_error() -> None:
    error = {"message": "Failed to call a function", "code": "tool_use_failed", "status_code": 400}
    with_status, _ = streamed("event: error\ndata: " + json.dumps({"error": error}) + "\n\n")
    in_a_chunk, _ = streamed(
        chunk({"content": "par"}) + 'data: {"error": {"message": "cut", "code": 502}}\n\n'
    )

    assert (with_status.status, with_status.body) == (400, {"error": error})
    assert in_a_chunk.status == 200 and in_a_chunk.body["error"] == {"message": "cut", "code": 502}


def test_a_responses_stream_amounts_to_its_terminal_response() -> None:
    final = {"id": "r", "object": "response", "status": "completed", "output": []}
    stream = (
        'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "Hi"}\n\n'
        f"event: response.completed\ndata: {json.dumps({'type': 'response.completed', 'response': final})}\n\n"
    )
    end, shown = streamed(stream, "responses")
    cut, _ = streamed(
        'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "Hi"}\n\n',
        "responses",
    )

    assert (end.body, shown) == (final, ["Hi"])
    assert cut.body == {"error": {"message": "the stream ended without response.completed"}}


def test_a_providers_fields_survive_the_sdks_items_and_go_back_in_the_chat_message() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "reasoning_content": "list first",
        "reasoning_details": [{"type": "reasoning.text", "text": "list first", "index": 0}],
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "index": 0,
                "function": {"name": "list_pods", "arguments": "{}"},
                "extra_content": {"google": {"thought_signature": "sig"}},
            }
        ],
    }
    turn = turn_from_chat(message)
    conversation = Conversation("sys", [turn])

    items = conversation.input_items()
    again = Conversation.from_items(items, "sys")

    assert again.chat_messages() == conversation.chat_messages()
    (assistant,) = conversation.chat_messages()[1:]
    assert assistant == {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "list_pods", "arguments": "{}"},
                "extra_content": {"google": {"thought_signature": "sig"}},
            }
        ],
        "reasoning_content": "list first",
        "reasoning_details": [{"type": "reasoning.text", "text": "list first", "index": 0}],
    }


def test_an_answer_clipped_to_the_budget_goes_back_as_its_clipped_text_not_as_its_chunks() -> None:
    long = "x" * 200_000
    chunks = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]},
        {"type": "text", "text": long},
    ]
    conversation = Conversation("sys", [ModelTurn((Said(long),), {"content": chunks, "reasoning": "r"})])
    conversation.user("go on")

    compacted = conversation.compacted([], ResultStore(), Budget(32_000))

    turn = compacted.pieces[0]
    assert isinstance(turn, ModelTurn) and len(turn.text) < len(long)
    assert turn.provider == {"reasoning": "r"}
    (assistant,) = [m for m in compacted.chat_messages() if m["role"] == "assistant"]
    assert assistant["content"] == turn.text and assistant["reasoning"] == "r"


def test_a_providers_fields_count_in_what_cannot_shrink() -> None:
    small = Conversation("sys", [ModelTurn((Call("c0", "list_pods", "{}"),))])
    heavy = Conversation("sys", [ModelTurn((Call("c0", "list_pods", "{}"),), {"reasoning": "r" * 200_000})])

    assert small.compacted([], ResultStore(), Budget(32_000)) is small
    with pytest.raises(ContextBudgetError, match="more than the context budget"):
        heavy.compacted([], ResultStore(), Budget(32_000))  # the provider's text alone is over it


def test_the_sdk_ports_chat_client_sends_the_conversations_messages_and_none_of_the_sdks_defaults() -> None:
    from sdk_agent.model import ConversationChatModel

    sent: list[dict[str, Any]] = []

    class Completions:
        async def create(self, **request: Any) -> str:
            sent.append(request)
            return "completion"

    class Client:
        base_url = "https://api.openai.com/v1"
        chat = type("Chat", (), {"completions": Completions()})()

    model = ConversationChatModel(model="gpt-4o-mini", openai_client=Client(), wire=None)  # type: ignore[arg-type]
    model._messages = [{"role": "user", "content": "from the conversation"}]
    tool = {"type": "function", "function": {"name": "list_pods", "parameters": {}, "strict": False}}
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": "the SDK's"}],
        "tools": [tool],
        "store": True,
    }

    asyncio.run(model._client.chat.completions.create(**request))

    assert sent == [
        {
            "model": "m",
            "messages": [{"role": "user", "content": "from the conversation"}],
            "tools": [{"type": "function", "function": {"name": "list_pods", "parameters": {}}}],
        }
    ]


def test_at_azure_openai_hosts_the_key_also_goes_in_the_api_key_header() -> None:
    from k8s_agent_harness.model.client import _key_header

    for host in ("res.openai.azure.com", "res.cognitiveservices.azure.com", "proj.services.ai.azure.com"):
        assert _key_header(f"https://{host}/openai/deployments/gpt4o", "k1") == {"api-key": "k1"}
    assert _key_header("https://api.openai.com/v1", "k1") is None
    assert _key_header("https://proxy.example/openai.azure.com/v1", "k1") is None  # the path is no host
    assert _key_header("https://res.openai.azure.com.example.net/v1", "k1") is None
    assert _key_header("https://res.openai.azure.com/openai/v1", None) is None
