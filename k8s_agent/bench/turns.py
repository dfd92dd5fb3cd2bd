"""Per model turn: four loops against the same instant scripted model and the same MCP server.

- floor: a bare loop over the `openai` client and the MCP client, no guardrails (the same system
  prompt and tool definitions: what the agents send is not a harness cost);
- hand-written agent and SDK port: our two agents, reusing one running mock cluster;
- plain SDK: the OpenAI Agents SDK as a user would write it, with its native MCP integration
  (`MCPServerStdio`, defaults) instead of our gateway.

The model calls one distinct tool per turn (`search_logs` with a new pattern each time), then
answers. Each contender runs a short and a long investigation in every round; the cost of a turn is
the slope between the two (extra time / extra turns), so what a run pays once (a client, a trace
file, an agent object) is not spread over its turns. Runs are interleaved, the order rotating.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.config import Config
from k8s_agent_harness.model.prompts import SYSTEM_PROMPT
from k8s_agent_harness.vocabulary import Impl, ReportFormat
from k8s_agent_scripted_llm import Reply, ScriptedModelServer, Step, ToolCall, text

MOCK = mock_cluster_command()
_TURNS = re.compile(r"\[turns=(\d+)\]")


def question(turns: int) -> str:
    """The question of a run of `turns` tool turns (the scripted model reads the count from it)."""
    return f"Which pods are unhealthy? [turns={turns}]"


def responder(body: dict[str, Any]) -> Step:
    """A stateless model: one new tool call per turn until the question's count, then an answer."""
    asked = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"), "")
    match = _TURNS.search(str(asked))
    turns = int(match[1]) if match else 1
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if done < turns:
        return Reply(tool_calls=(ToolCall("search_logs", json.dumps({"pattern": f"bench-{done}"})),))
    return text("No pod logs match.")


async def floor_loop(client: Any, mcp: Any, tools: list[dict[str, Any]], turns: int) -> int:
    """The bare loop: ask, run every call through the MCP session, repeat. Returns requests made."""
    # One client for every run (made by the caller): the floor pays nothing it does not have to.
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": question(turns)},
    ]
    requests = 0
    while True:
        requests += 1
        completion = await client.chat.completions.create(model="m", messages=messages, tools=tools)
        message = completion.choices[0].message
        if not message.tool_calls:
            return requests
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = await mcp.call_tool(call.function.name, json.loads(call.function.arguments))
            content = "\n".join(getattr(block, "text", "") for block in result.content)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


async def agent_run(impl: Impl, url: str, mcp: McpClient, turns: int, trace_dir: Path) -> int:
    """One of our agents, on the shared running mock cluster."""
    from k8s_agent.implementations import ask_function

    config = Config(
        impl=impl,
        model="m",
        base_url=url,
        api_key="k",
        trace_dir=trace_dir,
        max_retries=0,
        report_format=ReportFormat.PROSE,  # the loop's overhead, measured on the same bytes as the plain loops
        max_steps=turns + 2,
        max_repeats=turns + 2,
    )
    result = await ask_function(impl)(config, question(turns), mcp=mcp)
    return result.stats.model_requests


async def plain_sdk_run(client: Any, server: Any, turns: int) -> int:
    """The plain SDK: Agent + native MCP server + Runner, defaults everywhere."""
    from k8s_agent.bench.plain_sdk import run_plain

    return await run_plain(client, server, question(turns))


class TurnBench:
    """Holds the shared servers and times one run of each contender."""

    def __init__(self) -> None:
        self.model = ScriptedModelServer(responder=responder)
        self.trace_dir = Path(tempfile.mkdtemp(prefix="k8s-agent-bench-"))

    async def contenders(self) -> dict[str, Callable[[int], Awaitable[int]]]:
        """Start the servers each contender needs; return a runner per contender."""
        import openai
        from mcp import Client, StdioServerParameters

        from k8s_agent.bench.plain_sdk import native_server

        self.model.start()
        url = self.model.url
        self._ours = McpClient.running(MOCK)
        ours = await self._ours.__aenter__()
        self._bare = Client(
            StdioServerParameters(command=MOCK[0], args=list(MOCK[1:])), mode="legacy", cache=None
        )
        bare = await self._bare.__aenter__()
        tools = [t.openai_tool() for t in ours.tools]
        self._native = native_server(MOCK)
        native = await self._native.__aenter__()  # type: ignore[no-untyped-call]
        self._client = openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0)
        client = self._client
        return {
            "floor (bare loop)": lambda turns: floor_loop(client, bare, tools, turns),
            "hand-written agent": lambda turns: agent_run(Impl.HANDWRITTEN, url, ours, turns, self.trace_dir),
            "SDK port": lambda turns: agent_run(Impl.SDK, url, ours, turns, self.trace_dir),
            "plain SDK (native MCP)": lambda turns: plain_sdk_run(client, native, turns),
        }

    async def close(self) -> None:
        """Stop every server; remove the runs' traces."""
        try:
            await self._client.close()
            for context in (self._native, self._bare, self._ours):
                await context.__aexit__(None, None, None)
            self.model.stop()
        finally:
            shutil.rmtree(self.trace_dir, ignore_errors=True)

    async def time(self, run: Callable[[int], Awaitable[int]], turns: int) -> float:
        """Milliseconds one run of `turns` tool turns takes (it must make turns + 1 requests)."""
        import gc

        gc.collect()  # a run pays for its own garbage, not for what the contender before it left
        started = time.perf_counter()
        requests = await run(turns)
        elapsed = (time.perf_counter() - started) * 1e3
        if requests != turns + 1:
            raise RuntimeError(f"a run of {turns} turns made {requests} model requests")
        return elapsed
