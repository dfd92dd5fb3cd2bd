"""The scripted model server on the Responses wire (`POST /v1/responses`), read by the real clients:
the `openai` client (one JSON body, or Server-Sent Events) and the Agents SDK's
`OpenAIResponsesModel` driving an agent with one function tool."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled

from k8s_agent_scripted_llm import (
    ScriptedModelServer,
    call,
    calls,
    error,
    hang,
    malformed,
    text,
    tool,
)
from k8s_agent_scripted_llm.script import Reply

TOOLS = [
    {
        "type": "function",
        "name": "describe_pod",
        "description": "Describe a pod.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
]


def test_a_tool_call_comes_as_function_call_items_and_text_as_a_message() -> None:
    script = [
        calls(tool("describe_pod", name="a"), tool("describe_pod", name="b"), content="Looking."),
        text("Done."),
    ]
    with ScriptedModelServer(script) as server, openai.OpenAI(base_url=server.url, api_key="k") as client:
        first = client.responses.create(model="m", input="Why is a down?", tools=TOOLS)  # type: ignore[arg-type]
        second = client.responses.create(model="m", input="And now?")

    assert [item.type for item in first.output] == ["message", "function_call", "function_call"]
    assert first.output_text == "Looking."
    function_calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in function_calls] == [
        ("describe_pod", {"name": "a"}),
        ("describe_pod", {"name": "b"}),
    ]
    assert len({c.call_id for c in function_calls}) == 2 and len({c.id for c in function_calls}) == 2
    assert [c["id"] for c in server.replies[0]["tool_calls"]] == [c.call_id for c in function_calls]
    assert second.output_text == "Done." and second.status == "completed"
    assert server.wires == ["responses", "responses"]
    assert server.requests[0]["input"] == "Why is a down?" and server.requests[0]["tools"] == TOOLS
    server.assert_done()


def test_usage_is_filled_from_the_sizes_as_on_chat_completions() -> None:
    with (
        ScriptedModelServer([text("x" * 400)]) as server,
        openai.OpenAI(base_url=server.url, api_key="k") as client,
    ):
        answer = client.responses.create(model="m", input="q" * 4000)

    assert answer.usage is not None
    assert answer.usage.input_tokens >= 1000 and answer.usage.output_tokens == 101
    assert answer.usage.total_tokens == answer.usage.input_tokens + answer.usage.output_tokens


def events(server: ScriptedModelServer, client: openai.OpenAI, reply: Reply) -> list[Any]:
    server.reset([reply])
    return list(client.responses.create(model="m", input="q", stream=True))


def test_a_streamed_text_comes_in_the_event_sequence_openai_sends(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    streamed = events(server, opened, text("a" * 2500))

    assert [event.type for event in streamed] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [event.sequence_number for event in streamed] == list(range(len(streamed)))
    assert "".join(e.delta for e in streamed if e.type == "response.output_text.delta") == "a" * 2500
    assert streamed[-1].response.output_text == "a" * 2500
    assert server.requests[0]["stream"] is True and server.wires == ["responses"]


def test_a_streamed_tool_call_comes_as_argument_deltas_under_one_item(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    streamed = events(server, opened, call("describe_pod", name="a"))

    assert [event.type for event in streamed] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    done = streamed[-2].item
    assert (done.type, done.name, json.loads(done.arguments)) == (
        "function_call",
        "describe_pod",
        {"name": "a"},
    )
    assert streamed[2].item.id == done.id and streamed[2].item.call_id == done.call_id
    assert streamed[-1].response.output[0].call_id == done.call_id == server.replies[0]["tool_calls"][0]["id"]


@pytest.mark.parametrize(
    "reply",
    [text("All healthy."), call("describe_pod", name="a"), calls(tool("a"), tool("b"), content="Two.")],
    ids=["text", "call", "text-and-calls"],
)
def test_the_stream_accumulates_to_the_same_response_as_the_json_body(
    client: tuple[ScriptedModelServer, openai.OpenAI], reply: Reply
) -> None:
    server, opened = client
    server.reset([reply, reply])
    with opened.responses.stream(model="m", input="q") as stream:
        for _ in stream:
            pass
        streamed = stream.get_final_response()
    whole = opened.responses.create(model="m", input="q")

    def items(answer: Any) -> list[tuple[Any, ...]]:
        return [
            (item.type, item.status, [part.text for part in item.content])
            if item.type == "message"
            else (item.type, item.status, item.name, item.arguments)
            for item in answer.output
        ]

    assert items(streamed) == items(whole) and items(whole)
    server.assert_done()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("step", "raised"),
    [
        (error(429), openai.RateLimitError),
        (error(500), openai.InternalServerError),
        (error(400, "bad tools"), openai.BadRequestError),
        (malformed("not json", status=502), openai.InternalServerError),
    ],
    ids=["429", "500", "400", "502-not-json"],
)
def test_an_http_error_is_raised_by_the_client_on_either_form(
    client: tuple[ScriptedModelServer, openai.OpenAI], step: Any, raised: type[Exception], stream: bool
) -> None:
    server, opened = client
    server.reset([step])
    with pytest.raises(raised):
        opened.responses.create(model="m", input="q", stream=stream)
    server.assert_done()


def test_a_malformed_body_is_sent_as_is_and_the_client_fails_to_read_it(
    client: tuple[ScriptedModelServer, openai.OpenAI],
) -> None:
    server, opened = client
    server.reset([malformed("not json")])
    with pytest.raises(ValueError, match="Expecting value"):
        opened.responses.create(model="m", input="q")
    server.reset([malformed('event: response.created\ndata: {"type": "response.created", "response": \n\n')])
    with pytest.raises(ValueError):
        list(opened.responses.create(model="m", input="q", stream=True))


def test_a_hung_reply_times_the_client_out(client: tuple[ScriptedModelServer, openai.OpenAI]) -> None:
    server, opened = client
    server.reset([hang()])
    with pytest.raises(openai.APITimeoutError):
        opened.with_options(timeout=0.2).responses.create(model="m", input="q")


@pytest.mark.parametrize(
    ("carried", "said"),
    [
        ({"previous_response_id": "resp_1"}, "Previous response with id 'resp_1' not found"),
        ({"conversation": "conv_1"}, "does not implement the Conversations API"),
    ],
    ids=["unknown-response", "conversation"],
)
def test_a_request_that_continues_state_the_server_lacks_is_refused_with_a_400(
    client: tuple[ScriptedModelServer, openai.OpenAI], carried: dict[str, Any], said: str
) -> None:
    """Continuing a response kept is answered: tests/unit/test_scripted_stateful.py."""
    server, opened = client
    server.reset([text("never sent")])
    with pytest.raises(openai.BadRequestError, match=said):
        opened.responses.create(model="m", input="q", **carried)
    with pytest.raises(AssertionError, match=f"refused.*{next(iter(carried))}"):
        server.assert_done()


def test_both_wires_play_one_script_in_turn(client: tuple[ScriptedModelServer, openai.OpenAI]) -> None:
    server, opened = client
    server.reset([call("describe_pod", name="a"), text("Done.")])
    chat = opened.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    responses = opened.responses.create(model="m", input="q")

    assert chat.choices[0].message.tool_calls and responses.output_text == "Done."
    assert server.wires == ["chat", "responses"]
    assert "messages" in server.requests[0] and "input" in server.requests[1]


# -- the Agents SDK's Responses model ----------------------------------------------------------


@function_tool
def describe_pod(name: str) -> str:
    """Describe a pod."""
    return f"Name: {name}\nStatus: CrashLoopBackOff"


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_sdk_responses_model_runs_an_agent_against_a_script(streamed: bool) -> None:
    set_tracing_disabled(True)

    async def run(server: ScriptedModelServer) -> Any:
        async with openai.AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0) as client:
            agent = Agent(
                name="diagnose",
                instructions="Diagnose the pod.",
                tools=[describe_pod],
                model=OpenAIResponsesModel("scripted", client),
            )
            if not streamed:
                return (await Runner.run(agent, "Why is a down?")).final_output
            result = Runner.run_streamed(agent, "Why is a down?")
            async for _ in result.stream_events():
                pass
            return result.final_output

    with ScriptedModelServer([call("describe_pod", name="a"), text("a crashes.")]) as server:
        final = asyncio.run(run(server))

    assert final == "a crashes."
    server.assert_done()
    assert server.wires == ["responses", "responses"]
    first, second = server.requests
    assert first["instructions"] == "Diagnose the pod." and bool(first.get("stream")) is streamed
    assert [t["name"] for t in first["tools"]] == ["describe_pod"] and first["tools"][0]["type"] == "function"
    sent_id = server.replies[0]["tool_calls"][0]["id"]
    kinds = [(item.get("type", "message"), item.get("call_id")) for item in second["input"]]
    assert kinds == [("message", None), ("function_call", sent_id), ("function_call_output", sent_id)]
    assert "CrashLoopBackOff" in second["input"][2]["output"]
