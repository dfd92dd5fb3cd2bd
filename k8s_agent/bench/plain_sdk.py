"""The plain OpenAI Agents SDK, as a user would write it: native MCP integration and defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    set_trace_processors,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from agents.models.openai_provider import OpenAIProvider
from openai import AsyncOpenAI

from k8s_agent_harness.model.prompts import SYSTEM_PROMPT


def native_server(command: Sequence[str]) -> MCPServerStdio:
    """The SDK's own stdio MCP server wrapper, with its defaults (tool list not cached)."""
    return MCPServerStdio(params={"command": command[0], "args": list(command[1:])})


async def run_plain(client: AsyncOpenAI, server: MCPServerStdio, question: str) -> int:
    """One run; returns the number of model requests."""
    set_tracing_disabled(True)
    set_trace_processors([])
    agent: Agent[Any] = Agent(
        name="plain",
        instructions=SYSTEM_PROMPT,
        model=OpenAIChatCompletionsModel(model="m", openai_client=client),
        mcp_servers=[server],
    )
    result = await Runner.run(agent, question, max_turns=100, run_config=RunConfig(tracing_disabled=True))
    return len(result.raw_responses)


async def run_documented(
    base_url: str,
    api_key: str,
    model: str,
    command: Sequence[str],
    question: str,
    max_turns: int,
    *,
    url: str | None = None,
    api: str = "chat",
) -> str:
    """The `plain-sdk` subject of `k8s-agent contract`: Agent + MCPServerStdio + Runner as the SDK's
    documentation shows them, on a Chat Completions endpoint; the final output as text. With `url`,
    the SDK's MCPServerStreamableHttp to that server instead of starting `command`.

    The only choices are the ones any user makes: the endpoint and model, our system prompt (the
    same question asked the same way), `max_turns` (the scenario's step budget) and tracing off.

    `api="responses"`: the SDK's default wire. The agent names its model by name only and the run's
    model provider (the SDK's own `OpenAIProvider` with this client) resolves it, as it does by
    default, to `OpenAIResponsesModel` (the provider is passed per run, not set globally: runs of
    this process go to different servers at once).
    """
    set_tracing_disabled(True)
    set_trace_processors([])
    client = AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    native: Any = MCPServerStreamableHttp(params={"url": url}) if url else native_server(command)
    async with native as server:
        agent: Agent[Any] = Agent(
            name="plain",
            instructions=SYSTEM_PROMPT,
            model=model
            if api == "responses"
            else OpenAIChatCompletionsModel(model=model, openai_client=client),
            mcp_servers=[server],
        )
        config = RunConfig(tracing_disabled=True)
        if api == "responses":
            config = RunConfig(tracing_disabled=True, model_provider=OpenAIProvider(openai_client=client))
        result = await Runner.run(agent, question, max_turns=max_turns, run_config=config)
    return str(result.final_output)
