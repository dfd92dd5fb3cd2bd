"""The forced-summary sentinel: how the SDK port ends an investigation when a budget is spent.

After each round of tool calls the SDK asks `tool_use_behavior` whether the run is over. When the
supervisor says stop (duplicates, step budget, time), the answer is a final output that is not a
report but the FORCE_SUMMARY sentinel; the runner then makes one tool-less run for the summary.

The SDK does not consult `tool_use_behavior` after a round without function-tool results (every
call unknown): model_input.py closes that gap before the next model call, raising StopForSummary.
"""

from __future__ import annotations

import uuid
from typing import Any

from agents import FunctionToolResult, RunContextWrapper, ToolsToFinalOutputResult

from k8s_agent_harness.evidence.report import HealthReport
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.vocabulary import StopReason

# For an agent whose output type is str the SDK passes `str(final_output)` on, so an object
# sentinel arrives as its repr. The sentinel is therefore a string no model can produce: it
# carries a per-process nonce and a NUL byte.
FORCE_SUMMARY = f"\x00FORCE_SUMMARY:{uuid.uuid4().hex}"


def is_force_summary(output: Any) -> bool:
    """Whether a run's final output is the sentinel (as text, or as the placeholder report)."""
    if isinstance(output, HealthReport):
        return output.scope == FORCE_SUMMARY
    return isinstance(output, str) and output == FORCE_SUMMARY


def placeholder_report(scope: str) -> HealthReport:
    """A report that is no report: what an error handler must return for an agent whose output type
    is the HealthReport (the SDK validates a handler's final output against it). Its scope is a
    nonce string no model writes."""
    return HealthReport(scope=scope)


UNREAD_REPORT = f"\x00UNREAD_REPORT:{uuid.uuid4().hex}"
"""The scope of the placeholder for an answer the SDK could not validate: the harness reads the
model's text itself (findings.parse_report), so both agents judge the same bytes the same way."""


class StopForSummary(Exception):
    """Raised before a model call the supervisor forbids; carries the input of that call."""

    def __init__(self, reason: StopReason, history: list[Any]) -> None:
        super().__init__(f"summary forced: {reason}")
        self.reason = reason
        self.history = history


def summary_behavior(supervisor: Supervisor) -> Any:
    """A `tool_use_behavior` that returns FORCE_SUMMARY once the supervisor says stop."""

    def decide(
        context: RunContextWrapper[Any], results: list[FunctionToolResult]
    ) -> ToolsToFinalOutputResult:
        if supervisor.stop_reason() is not None:
            return ToolsToFinalOutputResult(is_final_output=True, final_output=FORCE_SUMMARY)
        return ToolsToFinalOutputResult(is_final_output=False, final_output=None)

    return decide
