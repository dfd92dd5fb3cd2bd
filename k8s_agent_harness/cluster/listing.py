"""A server's tool list: every page of `tools/list`, each tool once, and the problems met on the way.

Cursors are followed to the end. Paging stops early, with a problem the run reports as a warning,
only when the server's answers cannot be right: a cursor it gave before (it would loop forever),
a page that lists only tools already listed (its pages repeat themselves), or more pages or tools
than any server has (tools are counted within a page too: one page may list them all). A tool listed
twice is kept once: its first definition.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types

from k8s_agent_harness.cluster.tools import ToolSpec, clean_description

MAX_TOOL_PAGES = 1000
"""Pages of `tools/list` followed at most: far beyond any server (one with a tool per page included)."""
MAX_TOOLS = 2000
"""Tools listed at most: far beyond any server, and more than any model can be offered."""

Fetch = Callable[[str | None], Awaitable[mcp_types.ListToolsResult]]
"""Fetches one page of `tools/list` for a cursor (None: the first page)."""


@dataclass(frozen=True)
class Listing:
    """A server's tools as listed once, and what went wrong while listing them (for warnings)."""

    tools: tuple[ToolSpec, ...]
    problems: tuple[str, ...] = ()


async def list_tools(fetch: Fetch) -> Listing:
    """Every page of the server's tool list, each tool once, stopping where paging cannot be right."""
    tools: dict[str, ToolSpec] = {}
    repeated: list[str] = []
    problems: list[str] = []
    cursors: set[str] = set()
    cursor: str | None = None
    pages = 0
    while True:
        page = await fetch(cursor)
        pages += 1
        new = 0
        full = False
        for tool in page.tools:
            if tool.name in tools:
                repeated.append(tool.name)
            elif len(tools) >= MAX_TOOLS:
                full = True  # a page alone may list more than any server has
                break
            else:
                tools[tool.name] = tool_spec(tool)
                new += 1
        cursor = page.next_cursor
        if full:
            problems.append(_read_to(pages, len(tools), _too_many()))
            break
        if cursor is None:
            break
        stop = _stop_reason(cursor, cursors, pages, len(tools), page_was_repeat=bool(page.tools) and not new)
        if stop is not None:
            problems.append(_read_to(pages, len(tools), stop))
            break
        cursors.add(cursor)
    if repeated and not problems:  # when paging stopped, what it repeated is said already
        names = ", ".join(sorted(set(repeated))[:10])
        count = len(set(repeated))
        problems.append(
            f"the server listed {count} tool {'name' if count == 1 else 'names'} more than once ({names}): the "
            f"first definition of {'it' if count == 1 else 'each'} is used"
        )
    return Listing(tuple(tools.values()), tuple(problems))


def _stop_reason(cursor: str, seen: set[str], pages: int, tools: int, *, page_was_repeat: bool) -> str | None:
    """Why paging must stop before asking for the page `cursor` names; None to go on."""
    if cursor in seen:
        return "it gave a cursor it had given before, so paging would never end; the rest is not used"
    if page_was_repeat:
        return "a page listed only tools it had listed before, so its pages repeat; the rest is not used"
    if pages >= MAX_TOOL_PAGES:
        return f"it kept giving cursors after {MAX_TOOL_PAGES} pages; the rest is not used"
    if tools >= MAX_TOOLS:
        return _too_many()
    return None


def _read_to(pages: int, tools: int, stop: str) -> str:
    return f"the server's tool list was read to page {pages} ({tools} {'tool' if tools == 1 else 'tools'}): {stop}"


def _too_many() -> str:
    return f"it listed {MAX_TOOLS} tools or more, more than any model can be offered; the rest is not used"


def tool_spec(tool: mcp_types.Tool) -> ToolSpec:
    """One listed tool as the harness sees it."""
    annotations = tool.annotations
    return ToolSpec(
        name=tool.name,
        description=clean_description(tool.description),
        input_schema=dict(tool.input_schema or {}),
        read_only=annotations.read_only_hint if annotations is not None else None,
        annotations=_annotations(annotations),
        output_schema=dict(tool.output_schema) if tool.output_schema is not None else None,
        task_support=tool.execution.task_support if tool.execution is not None else None,
    )


def _annotations(annotations: mcp_types.ToolAnnotations | None) -> dict[str, Any]:
    if annotations is None:
        return {}
    return annotations.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass(frozen=True)
class ToolChanges:
    """How a new tool list differs from an earlier one, by tool name."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    """Listed in both, with another description, input or output schema, or annotations."""

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def changes(before: tuple[ToolSpec, ...], after: tuple[ToolSpec, ...]) -> ToolChanges:
    """What `after` adds, removes and changes against `before`."""
    old = {tool.name: tool.signature() for tool in before}
    new = {tool.name: tool.signature() for tool in after}
    return ToolChanges(
        added=tuple(name for name in new if name not in old),
        removed=tuple(name for name in old if name not in new),
        changed=tuple(name for name in new if name in old and old[name] != new[name]),
    )
