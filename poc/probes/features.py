"""Probe 6: which SDK features exist in the installed version (presence, allowed values).

Read from the public classes' dataclass fields, signatures and Literal annotations; nothing runs.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from typing import Any

from poc.probe import Judgement, Observations, Probe
from poc.scripted import ScriptedModels, has_field
from poc.words import ABSENT

# What the port uses, by observation key.
REQUIRED = (
    "tool_not_found_behavior",
    "tool_error_formatter_kinds",
    "tools_to_final_output_result",
    "agent_tool_use_behavior",
    "agent_reset_tool_choice",
)


async def observe(models: ScriptedModels) -> Observations:
    """Presence of each feature, with its allowed values where it has them."""
    import agents
    from agents import Agent, FunctionTool, ModelSettings, RunConfig, Runner

    run_config_module = inspect.getmodule(RunConfig)
    handlers = getattr(agents, "RunErrorHandlers", None)
    execution = getattr(agents, "ToolExecutionConfig", None)
    return {
        "function_tool_needs_approval": has_field(FunctionTool, "needs_approval"),
        "function_tool_timeout_seconds": has_field(FunctionTool, "timeout_seconds"),
        "tool_error_formatter_kinds": _literal_values(
            getattr(agents, "ToolErrorFormatterArgs", None), "kind", run_config_module
        )
        if has_field(RunConfig, "tool_error_formatter")
        else ABSENT,
        "tool_not_found_behavior": _literal_values(RunConfig, "tool_not_found_behavior", run_config_module),
        "tools_to_final_output_result": hasattr(agents, "ToolsToFinalOutputResult"),
        "error_handler_keys": sorted(getattr(handlers, "__annotations__", {})) if handlers else ABSENT,
        "runner_run_error_handlers": "error_handlers" in inspect.signature(Runner.run).parameters,
        "max_function_tool_concurrency": has_field(execution, "max_function_tool_concurrency")
        if execution
        else ABSENT,
        "model_settings_retry": has_field(ModelSettings, "retry"),
        "agent_tool_use_behavior": has_field(Agent, "tool_use_behavior"),
        "agent_reset_tool_choice": has_field(Agent, "reset_tool_choice"),
        "max_turns_run_data": "run_data" in _annotations(getattr(agents, "AgentsException", object)),
    }


def _literal_values(cls: Any, field_name: str, module: Any) -> Any:
    """The strings a Literal-typed dataclass field allows, or "absent" without the field."""
    if cls is None or not has_field(cls, field_name):
        return ABSENT
    annotation = {f.name: f.type for f in dataclasses.fields(cls)}[field_name]
    if isinstance(annotation, str):  # postponed annotations: a name in the module, or Literal[...]
        resolved = getattr(module, annotation, None)
        if resolved is None:
            return sorted(re.findall(r"[\"']([^\"']+)[\"']", annotation))
        annotation = resolved
    return sorted(str(value) for value in typing.get_args(annotation))


def _annotations(cls: type) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        merged.update(getattr(klass, "__annotations__", {}))
    return merged


def judge(observations: Observations) -> Judgement:
    """ok when everything the port uses is present."""
    missing = [key for key in REQUIRED if observations[key] in (ABSENT, False)]
    if missing:
        return Judgement("absent", "missing: " + ", ".join(missing))
    return Judgement("ok", "all features the port uses are present")


PROBE = Probe("features", "feature presence (fields, kinds, keys)", observe, judge)
