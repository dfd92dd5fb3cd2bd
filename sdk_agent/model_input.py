"""`RunConfig.call_model_input_filter`: the supervisor's checkpoint before every model call.

Two jobs the SDK's own loop leaves to us, both on the public input-filter hook:
- count the turn, or stop the run where the supervisor says, even after a round the SDK never
  showed to `tool_use_behavior` (a round of unknown tools only);
- put tool outputs back in the order the model proposed the calls: the SDK appends the answers
  to unknown tools after the function-tool outputs, the hand-written loop answers in order.
"""

from __future__ import annotations

from typing import Any

from agents.run_config import CallModelData, ModelInputData

from k8s_agent_harness.supervisor import Supervisor
from sdk_agent.behavior import StopForSummary


def supervise_model_calls(supervisor: Supervisor) -> Any:
    """The input filter: stop or count the turn, and restore the order of tool outputs."""

    def check(data: CallModelData[Any]) -> ModelInputData:
        items = in_call_order(list(data.model_data.input))
        reason = supervisor.stop_reason()
        if reason is not None:
            raise StopForSummary(reason, items)
        supervisor.turn_taken()
        return ModelInputData(input=items, instructions=data.model_data.instructions)

    return check


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
