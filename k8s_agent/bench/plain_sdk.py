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
from agents.mcp import MCPServerStdio
from openai import AsyncOpenAI

from k8s_agent_harness.prompts import SYSTEM_PROMPT


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
