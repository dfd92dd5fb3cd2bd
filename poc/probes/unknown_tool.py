"""Probe 3: the model calls a tool the agent does not have.

C6 needs the run to continue with the whitelist message; in the SDK that takes
tool_not_found_behavior="return_error_to_model" and a tool_error_formatter for the exact text.
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm import call, calls, text, tool
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import (
    ScriptedModels,
    error_text,
    expected_errors,
    has_field,
    run_config,
    tool_message_contents,
    tool_messages,
)
from poc.words import ABSENT

WHITELIST = "Unknown tool 'delete_pod'. Available tools: get_pod"


async def observe(models: ScriptedModels) -> Observations:
    """Default behaviour, then return_error_to_model without and with a formatter."""
    from agents import RunConfig

    observations = await _default(models)
    if not has_field(RunConfig, "tool_not_found_behavior"):
        observations.update({"return_error_model_sees": ABSENT, "formatter_model_sees": ABSENT})
        return observations
    observations.update(
        await _returned(models, {"tool_not_found_behavior": "return_error_to_model"}, "return_error")
    )
    if not has_field(RunConfig, "tool_error_formatter"):
        observations.update({"formatter_model_sees": ABSENT, "formatter_sees": ABSENT})
        return observations
    seen: list[dict[str, Any]] = []

    def formatter(args: Any) -> str | None:
        seen.append({"kind": args.kind, "tool_name": args.tool_name, "default_message": args.default_message})
        return WHITELIST if args.kind == "tool_not_found" else None

    settings = {"tool_not_found_behavior": "return_error_to_model", "tool_error_formatter": formatter}
    observations.update(await _returned(models, settings, "formatter"))
    observations["formatter_sees"] = seen
    observations["mixed_round_answer_order"] = await _mixed_round_order(models)
    return observations


async def _mixed_round_order(models: ScriptedModels) -> list[Any]:
    """In which order the tool messages of a round mixing known and unknown tools reach the model."""
    from agents import Agent, Runner

    round_ = calls(
        tool("get_pod", _id="call_a", name="a"),
        tool("delete_pod", _id="call_b"),
        tool("get_pod", _id="call_c", name="c"),
    )
    async with models.play([round_, text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        await Runner.run(
            agent, "check", run_config=run_config(tool_not_found_behavior="return_error_to_model")
        )
        return [m["tool_call_id"] for m in tool_messages(llm.requests[1])]


async def _default(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    async with models.play([call("delete_pod", name="a"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        try:
            result = await Runner.run(agent, "check", run_config=run_config())
            outcome = f"final_output: {result.final_output}"
        except expected_errors() as error:
            outcome = error_text(error)
        return {"default_outcome": outcome, "default_requests_sent": len(llm.requests)}


async def _returned(models: ScriptedModels, settings: dict[str, Any], label: str) -> Observations:
    from agents import Agent, Runner

    async with models.play([call("delete_pod", name="a"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        result = await Runner.run(agent, "check", run_config=run_config(**settings))
        return {
            f"{label}_model_sees": tool_message_contents(llm.requests[1]),
            f"{label}_final_output": str(result.final_output),
            f"{label}_requests_sent": len(llm.requests),
        }


def judge(observations: Observations) -> Judgement:
    """ok when the formatter's whitelist text reaches the model verbatim and the run goes on."""
    if observations.get("return_error_model_sees") == ABSENT:
        return Judgement("absent", "tool_not_found_behavior absent: run raises")
    if observations.get("formatter_model_sees") == [WHITELIST]:
        return Judgement("ok", "formatter text reaches the model")
    return Judgement("differs", f"model sees {observations.get('formatter_model_sees')!r}"[:80])


PROBE = Probe("unknown_tool", "unknown tool: raise, or an error message the model sees", observe, judge)
