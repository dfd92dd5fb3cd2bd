"""`RunConfig.call_model_input_filter`: the supervisor's checkpoint before every model call.

Three jobs the SDK's own loop leaves to us, all on the public input-filter hook:
- count the turn, or stop the run where the supervisor says, even after a round the SDK never
  showed to `tool_use_behavior` (a round of unknown tools only);
- put tool outputs back in the order the model proposed the calls: the SDK appends the answers
  to unknown tools after the function-tool outputs, the hand-written loop answers in order;
- compact the history to the context budget, read as the harness's one conversation model
  (conversation.py) the hand-written loop keeps, so both send the same messages.
"""

from __future__ import annotations

from typing import Any

from agents.run_config import CallModelData, ModelInputData

from k8s_agent_harness.guards.gateway import ToolGateway
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.model.context import Budget, ResultStore
from k8s_agent_harness.model.conversation import Conversation
from sdk_agent.behavior import StopForSummary


class ModelCallCheck:
    """The input filter: stop or count the turn, restore the order of tool outputs, compact
    (`extra`: the request's bytes besides messages and tools: the report's format). It keeps the
    history of the last model call (`items`, before compaction), for a run that must go on from it."""

    def __init__(self, supervisor: Supervisor, gateway: ToolGateway, extra: int = 0) -> None:
        self._supervisor = supervisor
        self._gateway = gateway
        self._extra = extra
        self.items: list[Any] = []

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        items = self.items = in_call_order(list(data.model_data.input))
        reason = self._supervisor.stop_reason()
        if reason is not None:
            raise StopForSummary(reason, items)
        self._supervisor.turn_taken()
        gateway = self._gateway
        tools = gateway.openai_tools()  # what the SDK offers this turn (before compaction stores more)
        instructions = data.model_data.instructions
        items = compact_items(items, instructions, tools, gateway.store, gateway.budget, self._extra)
        return ModelInputData(input=items, instructions=instructions)


def supervise_model_calls(supervisor: Supervisor, gateway: ToolGateway, extra: int = 0) -> ModelCallCheck:
    """The input filter of the investigation's runs (ModelCallCheck)."""
    return ModelCallCheck(supervisor, gateway, extra)


def compact_items(
    items: list[Any],
    instructions: str | None,
    tools: list[dict[str, Any]],
    store: ResultStore,
    budget: Budget,
    extra: int = 0,
) -> list[Any]:
    """The SDK's input items compacted by the one conversation model the hand-written loop uses:
    the same pieces and turns, measured the same way, the same replacements and note."""
    conversation = Conversation.from_items(items, instructions)
    compacted = conversation.compacted(tools, store, budget, extra)
    return items if compacted is conversation else compacted.input_items()


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
