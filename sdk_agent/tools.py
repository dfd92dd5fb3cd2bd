"""Raw `FunctionTool` wrappers: the SDK hands the model's argument string to the shared gateway.

`strict_json_schema=False` and the MCP schema untouched, so the model sees the same tool
definitions as in the hand-written loop; the raw string (not the SDK's parsed arguments) goes to
the gateway, so invalid JSON, schema errors, duplicates and failures read exactly the same.

The agent's tools follow the server's tool list: `GatewayAgent` overrides only the public
`Agent.get_all_tools`, which the SDK asks at the start of every turn, to read the list again when
the server said it changed and to offer what the gateway offers now (a tool added or removed takes
effect from the next request, as in the hand-written loop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agents import Agent, FunctionTool, RunContextWrapper, Tool, ToolErrorFormatterArgs
from agents.tool_context import ToolContext

from k8s_agent_harness.guards.gateway import ToolGateway
from k8s_agent_harness.model.client import WireState

CallTool = Callable[[str, str, str], Awaitable[str]]
"""Answers one proposed call (call id, tool, raw arguments) through the gateway: `Session.call_tool`."""


class ToolShelf:
    """The FunctionTools of one run: one per tool the gateway offers now (each made once, under the
    name the model knows it by), then the harness's search tool, enabled (offered) once the gateway
    has stored a result."""

    def __init__(self, gateway: ToolGateway, call_tool: CallTool) -> None:
        self.gateway = gateway
        self.call_tool = call_tool
        self._made: dict[str, FunctionTool] = {}
        search = gateway.search_tool.openai_tool()["function"]
        self._search = FunctionTool(
            name=search["name"],
            description=search["description"],
            params_json_schema=search["parameters"],
            on_invoke_tool=_invoker(call_tool, search["name"]),
            strict_json_schema=False,
            is_enabled=lambda context, agent: gateway.offers_search,
        )

    def current(self) -> list[Tool]:
        """The tools the model is offered now."""
        tools: list[Tool] = []
        for definition in self.gateway.tool_definitions():
            function = definition["function"]
            name = function["name"]
            if name == self._search.name:
                continue
            if name not in self._made:
                self._made[name] = FunctionTool(
                    name=name,
                    description=function["description"],
                    params_json_schema=function["parameters"],
                    on_invoke_tool=_invoker(self.call_tool, name),
                    strict_json_schema=False,
                    # A write tool allowed with --allow-write: the SDK pauses the run for approval (runner.py).
                    needs_approval=self.gateway.needs_approval(name),
                )
            tools.append(self._made[name])
        tools.append(self._search)
        return tools


@dataclass
class GatewayAgent(Agent[Any]):
    """An Agent whose tools are the gateway's as they are at the start of each turn: when the server
    said its tool list changed, it is read again first, so that a tool added or removed takes effect
    from the next request, as in the hand-written loop. Without a shelf (the summary's clone) it is a
    plain Agent."""

    shelf: ToolShelf | None = None

    async def get_all_tools(self, run_context: RunContextWrapper[Any]) -> list[Tool]:
        """The SDK asks at the start of every turn (and again to resolve its calls)."""
        if self.shelf is not None:
            await self.shelf.gateway.refresh()
            self.tools = self.shelf.current()
        return await super().get_all_tools(run_context)


def _invoker(call_tool: CallTool, name: str) -> Any:
    async def invoke(context: ToolContext[Any], raw_arguments: str) -> str:
        return await call_tool(context.tool_call_id, name, raw_arguments)

    return invoke


def error_formatter(call_tool: CallTool, wire: WireState) -> Any:
    """`RunConfig.tool_error_formatter`: the gateway's own messages for what the SDK rejects itself.

    An unknown tool never reaches a FunctionTool; the formatter sends it through the gateway (which
    records it and answers with the whitelist message), with the raw arguments the wire recorder saw.
    """

    async def format_error(args: ToolErrorFormatterArgs[Any]) -> str | None:
        if args.kind == "tool_not_found":
            return await call_tool(args.call_id, args.tool_name, wire.arguments(args.call_id))
        return None  # raw FunctionTools never raise (the gateway answers); other kinds keep the default

    return format_error
