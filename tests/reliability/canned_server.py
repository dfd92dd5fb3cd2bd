"""A stdio MCP server (tests only) that serves canned tool results from a JSON spec, so that a test can
put in front of the agent exactly what a real Kubernetes MCP server returns: its tables, `describe`
blocks, JSON and YAML, with the input schema each real tool declares.

    python tests/reliability/canned_server.py SPEC.json --log CALLS.jsonl

The spec: `{"tools": [TOOL, ...]}`, each TOOL

    {"name": "pods_log", "description": "...",
     "properties": {"namespace": {"type": "string"}, "name": {"type": "string"}},  # its input schema
     "results": [{"when": {"name": "x"}, "text": "...", "structured": {...}}, ...],  # first match wins
     "text": "...", "structured": {...}}                                              # otherwise

A result `when` matches a call whose arguments hold each of its pairs. A tool honours only the
arguments it declares: whatever else a call carries is logged and ignored, as a real server ignores
it. A call no result matches is answered with an error. Every `tools/call` is one JSON line in the log
(`{"tool": ..., "arguments": ...}`), written before it is answered: what reached the server.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


def declared(spec: dict[str, Any]) -> types.Tool:
    """The tool as listed: its name, description and the input schema it declares."""
    schema: dict[str, Any] = {"type": "object", "properties": spec.get("properties", {})}
    if spec.get("required"):
        schema["required"] = spec["required"]
    return types.Tool(
        name=spec["name"], description=spec.get("description", ""), input_schema=schema, annotations=READ_ONLY
    )


def answer(spec: dict[str, Any], arguments: dict[str, Any]) -> types.CallToolResult:
    """The canned result for these arguments: the first `results` entry they match, else the tool's
    own `text`; an error when neither applies. Undeclared arguments play no part."""
    honoured = {key: value for key, value in arguments.items() if key in spec.get("properties", {})}
    for result in spec.get("results", []):
        if all(honoured.get(key) == value for key, value in result["when"].items()):
            return canned(result)
    if "text" in spec:
        return canned(spec)
    return types.CallToolResult(
        content=[types.TextContent(text=f"no result for {json.dumps(honoured, sort_keys=True)}")],
        is_error=True,
    )


def canned(result: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=result["text"])],
        structured_content=result.get("structured"),
        is_error=bool(result.get("error", False)),
    )


def build(spec: dict[str, Any], log: Path) -> Server[Any]:
    tools = {tool["name"]: tool for tool in spec["tools"]}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[declared(tool) for tool in tools.values()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        with log.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"tool": params.name, "arguments": arguments}, sort_keys=True) + "\n")
        if params.name not in tools:
            return types.CallToolResult(
                content=[types.TextContent(text=f"no tool {params.name}")], is_error=True
            )
        return answer(tools[params.name], arguments)

    return Server("canned-kubernetes", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("--log", required=True)
    options = parser.parse_args()
    server = build(json.loads(Path(options.spec).read_text(encoding="utf-8")), Path(options.log))

    async def stdio() -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(stdio)


if __name__ == "__main__":
    main()
