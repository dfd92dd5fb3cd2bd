"""Probe 12: a raw FunctionTool whose handler raises (a bug in the port's wrapper, not a tool failure).

The gateway never raises (C9), so this is the safety net: does the run die, or does the model get
a message, and does RunConfig.tool_error_formatter (kind tool_exception) shape it?
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import raw_tool
from poc.scripted import (
    ScriptedModels,
    error_text,
    expected_errors,
    has_field,
    run_config,
    tool_message_contents,
)
from poc.words import ABSENT

BOOM = "wrapper bug: boom"


async def _raises(context: Any, arguments: str) -> str:
    raise RuntimeError(BOOM)


async def observe(models: ScriptedModels) -> Observations:
    """The handler raises, without and with a tool_error_formatter."""
    from agents import RunConfig

    observations = await _run(models, {}, "default")
    if not has_field(RunConfig, "tool_error_formatter"):
        observations.update({"formatter_outcome": ABSENT, "formatter_model_sees": ABSENT})
        return observations
    seen: list[str] = []

    def formatter(args: Any) -> str:
        seen.append(f"{args.kind}: {type(args.error).__name__}: {args.error}")
        return f"Tool call failed ({args.tool_name}): {args.error}"

    observations.update(await _run(models, {"tool_error_formatter": formatter}, "formatter"))
    observations["formatter_sees"] = seen
    return observations


async def _run(models: ScriptedModels, settings: dict[str, Any], label: str) -> Observations:
    from agents import Agent, Runner

    async with models.play([call("get_pod", _id="call_1", name="a"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", _raises)])
        try:
            result = await Runner.run(agent, "check", run_config=run_config(**settings))
            outcome = f"final_output: {result.final_output}"
        except expected_errors() as error:
            outcome = error_text(error)
        requests = llm.requests
        return {
            f"{label}_outcome": outcome,
            f"{label}_requests_sent": len(requests),
            f"{label}_model_sees": tool_message_contents(requests[1]) if len(requests) > 1 else [],
        }


def judge(observations: Observations) -> Judgement:
    """ok when the run survives a raising handler (the model gets a message); informational."""
    if str(observations["default_outcome"]).startswith("final_output"):
        return Judgement("ok", f"model sees {observations['default_model_sees']!r}"[:80])
    return Judgement("differs", f"run dies: {observations['default_outcome']}"[:80])


PROBE = Probe("tool_exception", "a raw FunctionTool handler that raises", observe, judge)
