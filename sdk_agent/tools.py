"""Raw `FunctionTool` wrappers: the SDK hands the model's argument string to the shared gateway.

`strict_json_schema=False` and the MCP schema untouched, so the model sees the same tool
definitions as in the hand-written loop; the raw string (not the SDK's parsed arguments) goes to
the gateway, so invalid JSON, schema errors, duplicates and failures read exactly the same.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool, ToolErrorFormatterArgs
from agents.tool_context import ToolContext

from k8s_agent_harness.gateway import ToolGateway
from k8s_agent_harness.model_client import WireState

CallTool = Callable[[str, str, str], Awaitable[str]]
"""Answers one proposed call (call id, tool, raw arguments) through the gateway: `Session.call_tool`."""


def function_tools(gateway: ToolGateway, call_tool: CallTool) -> list[FunctionTool]:
    """One FunctionTool per allowed MCP tool, each calling the gateway (through `call_tool`) with the
    raw arguments, then the harness's search tool, enabled (offered) once the gateway has stored a
    result."""
    tools = [
        FunctionTool(
            name=spec["function"]["name"],
            description=spec["function"]["description"],
            params_json_schema=spec["function"]["parameters"],
            on_invoke_tool=_invoker(call_tool, spec["function"]["name"]),
            strict_json_schema=False,
            # A write tool allowed with --allow-write: the SDK pauses the run for approval (runner.py).
            needs_approval=gateway.needs_approval(spec["function"]["name"]),
        )
        for spec in (tool.openai_tool() for tool in gateway.tools)
    ]
    search = gateway.search_tool.openai_tool()["function"]
    tools.append(
        FunctionTool(
            name=search["name"],
            description=search["description"],
            params_json_schema=search["parameters"],
            on_invoke_tool=_invoker(call_tool, search["name"]),
            strict_json_schema=False,
            is_enabled=lambda context, agent: gateway.offers_search,
        )
    )
    return tools


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
