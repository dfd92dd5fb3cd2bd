"""Tool specifications as the harness sees them, and their OpenAI Chat Completions form."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Tool descriptions come from the server and are untrusted text that reaches the model.
MAX_DESCRIPTION_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: name, description, JSON Schema of its arguments, and its safety annotation."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    read_only: bool | None = None
    """The server's `readOnlyHint`; None when the server did not say."""
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """Every annotation the server gave (hints and title), to notice one that changes."""
    output_schema: Mapping[str, Any] | None = None
    """The JSON Schema the tool's structured content must match, when it declares one."""
    task_support: str | None = None
    """The server's `execution.taskSupport`: `required` means it runs the tool only as a task."""

    def openai_tool(self, name: str | None = None) -> dict[str, Any]:
        """The tool in OpenAI Chat Completions `tools` form, the schema passed untouched; `name` is
        the name the model knows it by, when the server's own cannot be a function name."""
        return {
            "type": "function",
            "function": {
                "name": name or self.name,
                "description": self.description,
                "parameters": dict(self.input_schema) or {"type": "object", "properties": {}},
            },
        }

    def signature(self) -> str:
        """A stable text of the whole spec, to notice a tool list that changed."""
        return json.dumps(
            [
                self.name,
                self.description,
                self.input_schema,
                self.read_only,
                self.annotations,
                self.output_schema,
                self.task_support,
            ],
            sort_keys=True,
            default=str,
        )


def clean_description(text: str | None) -> str:
    """Strip control characters and cap the length of a server-provided description."""
    text = _CONTROL.sub("", inspect.cleandoc(text or "")).strip()
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[:MAX_DESCRIPTION_CHARS].rstrip() + " [description truncated]"
    return text
