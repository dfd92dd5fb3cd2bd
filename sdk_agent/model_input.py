"""`RunConfig.call_model_input_filter`: the supervisor's checkpoint before every model call.

Three jobs the SDK's own loop leaves to us, all on the public input-filter hook:
- count the turn, or stop the run where the supervisor says, even after a round the SDK never
  showed to `tool_use_behavior` (a round of unknown tools only);
- put tool outputs back in the order the model proposed the calls: the SDK appends the answers
  to unknown tools after the function-tool outputs, the hand-written loop answers in order;
- compact the history to the context budget, with the harness's plan (context.py) over the same
  pieces the hand-written loop measures, so both send the same messages.
"""

from __future__ import annotations

import json
from typing import Any

from agents.run_config import CallModelData, ModelInputData

from k8s_agent_harness.context import (
    ARGUMENTS,
    PIECE_OVERHEAD,
    TEXT,
    TOOL_RESULT,
    Budget,
    Entry,
    ResultStore,
    dropped_note,
    plan,
    wire_size,
    without_dropped_turns,
)
from k8s_agent_harness.gateway import ToolGateway
from k8s_agent_harness.supervisor import Supervisor
from sdk_agent.behavior import StopForSummary


def supervise_model_calls(supervisor: Supervisor, gateway: ToolGateway, extra: int = 0) -> Any:
    """The input filter: stop or count the turn, restore the order of tool outputs, compact
    (`extra`: the request's bytes besides messages and tools, as `context.compact_chat` takes it)."""

    def check(data: CallModelData[Any]) -> ModelInputData:
        items = in_call_order(list(data.model_data.input))
        reason = supervisor.stop_reason()
        if reason is not None:
            raise StopForSummary(reason, items)
        supervisor.turn_taken()
        tools = gateway.openai_tools()  # what the SDK offers this turn (before compaction stores more)
        instructions = data.model_data.instructions
        items = compact_items(items, instructions, tools, gateway.store, gateway.budget, extra)
        return ModelInputData(input=items, instructions=instructions)

    return check


def compact_items(
    items: list[Any],
    instructions: str | None,
    tools: list[dict[str, Any]],
    store: ResultStore,
    budget: Budget,
    extra: int = 0,
) -> list[Any]:
    """The SDK's input items compacted as `context.compact_chat` compacts Chat Completions messages:
    the same entries and turns, measured the same way, the same replacements and note."""
    entries: list[Entry] = []
    places: list[int] = []
    turn_of: dict[int, int] = {}
    fixed = len(json.dumps(tools)) + extra
    fixed += PIECE_OVERHEAD + wire_size(instructions) if instructions else 0
    calls: dict[str, tuple[str, str]] = {}
    turn, previous = -1, None
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind, role = item.get("type"), item.get("role")
        step = "call" if kind == "function_call" else "output" if kind == "function_call_output" else role
        # A turn is the model's message and its calls: it begins at a text or at a call that does
        # not follow the same turn's text or calls.
        if step == "assistant" or (step == "call" and previous not in ("assistant", "call")):
            turn += 1
        if step == "call":
            call_id, name, raw = (
                str(item.get("call_id")),
                str(item.get("name") or ""),
                str(item.get("arguments") or ""),
            )
            calls[call_id] = (name, raw)
            entries.append(Entry(ARGUMENTS, wire_size(raw), turn, call_id, raw, name))
            places.append(index)
        elif step == "output":
            output = item.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            call_id = str(item.get("call_id"))
            name, raw = calls.get(call_id, ("", ""))
            entries.append(Entry(TOOL_RESULT, wire_size(text), turn, call_id, text, name, raw))
            places.append(index)
        elif step == "assistant":
            text = _text(item)
            if text:
                entries.append(Entry(TEXT, wire_size(text), turn, text=text))
                places.append(index)
        else:
            content = item.get("content")
            fixed += PIECE_OVERHEAD + wire_size(content if isinstance(content, str) else _text(item))
            previous = step
            continue
        turn_of[index] = turn
        previous = step
    decided = plan(entries, fixed, budget)
    if not decided.changed and not decided.dropped:
        return items
    compacted_items = list(items)
    for number in decided.changed:
        entry, index = entries[number], places[number]
        text = decided.rewrite(number, entry, store)
        item = dict(compacted_items[index])
        if entry.kind == ARGUMENTS:
            item["arguments"] = text
        elif entry.kind == TOOL_RESULT:
            item["output"] = text
        else:
            item["content"] = [{"type": "output_text", "text": text, "annotations": []}]
        compacted_items[index] = item
    return without_dropped_turns(
        compacted_items, turn_of, decided, dropped_note(entries, decided.dropped, store)
    )


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(
        str(part.get("text") or "") for part in content or [] if isinstance(part, dict) and "text" in part
    )


def in_call_order(items: list[Any]) -> list[Any]:
    """Reorder each run of consecutive tool outputs to follow the order of the calls they answer."""
    position: dict[str, int] = {}
    ordered: list[Any] = []
    outputs: list[Any] = []
    for item in [*items, None]:
        if _kind(item) == "function_call_output":
            outputs.append(item)
            continue
        if outputs:
            ordered += sorted(
                outputs, key=lambda output: position.get(str(output.get("call_id")), len(position))
            )
            outputs = []
        if item is None:
            break
        if _kind(item) == "function_call":
            position.setdefault(str(item.get("call_id")), len(position))
        ordered.append(item)
    return ordered


def _kind(item: Any) -> str | None:
    return item.get("type") if isinstance(item, dict) else None
