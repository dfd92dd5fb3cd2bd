"""A tool result's content blocks as the model reads them, and what only the user sees.

Every kind of block the MCP spec defines becomes text the model can use: text as it is, a resource
link with its name, description and URI, an embedded text resource inlined under its URI, binary
content (an image, audio, a blob) described by its type and size. A block whose `audience` leaves
the assistant out (`["user"]`) is for the person running the agent: it is shown to them, never
sent to the model. The structured content, when the server sends one, is kept beside the text by
the caller; it stands in for the text only when there is no text at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types

USER_ONLY_NOTE = "[the tool's result is addressed to the user only: it was shown to them, not to you]"


@dataclass(frozen=True)
class ResultContent:
    """A result's blocks read: the text for the model, and the texts for the user only."""

    text: str
    for_user: tuple[str, ...] = ()


def read_content(result: mcp_types.CallToolResult) -> ResultContent:
    """The text the model reads for a result, and what is shown to the user only."""
    for_model: list[str] = []
    for_user: list[str] = []
    for block in result.content:
        shown = describe_block(block)
        (for_user if _user_only(block) else for_model).append(shown)
    if not for_model and result.structured_content is not None:
        for_model.append(json.dumps(result.structured_content, sort_keys=True, default=str))
    if not for_model and for_user:
        for_model.append(USER_ONLY_NOTE)
    return ResultContent(_sendable("\n".join(for_model)), tuple(_sendable(text) for text in for_user))


def describe_block(block: Any) -> str:
    """One content block as text: text as it is, anything else described."""
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ResourceLink):
        return _resource_link(block)
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        kind = f" ({resource.mime_type})" if resource.mime_type else ""
        if isinstance(resource, mcp_types.TextResourceContents):
            return f"[embedded resource {resource.uri}{kind}]\n{resource.text}"
        size = size_words(_decoded_size(resource.blob))
        return f"[embedded resource {resource.uri}: {resource.mime_type or 'binary'}, {size}, not shown]"
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {size_words(_decoded_size(block.data))}, not shown]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"


def _resource_link(link: mcp_types.ResourceLink) -> str:
    name = f'"{link.title}" ({link.name})' if link.title and link.title != link.name else f'"{link.name}"'
    about = [
        part for part in (link.mime_type, size_words(link.size) if link.size is not None else None) if part
    ]
    details = f" ({', '.join(about)})" if about else ""
    description = f": {link.description}" if link.description else ""
    return f"[resource link {name}{description}; URI {link.uri}{details}]"


def _user_only(block: Any) -> bool:
    """Whether the server addressed a block to the user and not to the assistant."""
    annotations = getattr(block, "annotations", None)
    audience = getattr(annotations, "audience", None) or []
    return bool(audience) and "assistant" not in audience


def _decoded_size(base64_text: str) -> int:
    """Bytes a base64 text decodes to (without decoding it)."""
    text = base64_text.strip()
    return max(0, len(text) * 3 // 4 - text[-2:].count("="))


def size_words(size: int) -> str:
    """A byte count as people read it: `312 bytes`, `1.2 KB`, `3.4 MB`."""
    if size < 1024:
        return f"{size} byte{'s' if size != 1 else ''}"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _sendable(text: str) -> str:
    # JSON may carry lone surrogates (`"\\udcff"`) that no UTF-8 request can: keep them, escaped.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
