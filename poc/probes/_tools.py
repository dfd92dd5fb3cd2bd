"""Tools the probes hand to the SDK: raw FunctionTools (what the port uses) that record their calls."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents import FunctionTool

# The shape of an MCP tool's input schema: not "strict" (optional fields, no additionalProperties).
POD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}},
    "required": ["name"],
}

Handler = Callable[[Any, str], Awaitable[Any]]


def raw_tool(name: str, handler: Handler, schema: dict[str, Any] | None = None) -> FunctionTool:
    """A FunctionTool built by hand, as the SDK port wraps MCP tools (non-strict schema)."""
    from agents import FunctionTool

    return FunctionTool(
        name=name,
        description=f"Probe tool {name}.",
        params_json_schema=schema or POD_SCHEMA,
        on_invoke_tool=handler,
        strict_json_schema=False,
    )


class Recorder:
    """A raw tool handler that records the argument strings it receives and echoes them."""

    def __init__(self, reply: Callable[[str], Any] | None = None) -> None:
        self.received: list[str] = []
        self._reply = reply or (lambda arguments: f"pod {_name(arguments)}: Running")

    async def __call__(self, context: Any, arguments: str) -> Any:
        self.received.append(arguments)
        return self._reply(arguments)


def _name(arguments: str) -> str:
    try:
        return str(json.loads(arguments).get("name"))
    except (ValueError, AttributeError):
        return "?"
