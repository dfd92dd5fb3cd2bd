"""Probe 4: ways to stop a run so the port can ask for one tool-less summary (C4, C7).

- max_turns exceeded: which exception, and whether `run_data` keeps the history;
- a tool_use_behavior callback returning ToolsToFinalOutputResult(is_final_output=True, SENTINEL):
  the final output, whether to_input_list() keeps the call and its output, and what a follow-up
  run with no tools sends (the summary request);
- error_handlers={"max_turns": handler}: accepted keys, whether another model call is made.
"""

from __future__ import annotations

import inspect
from typing import Any

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import (
    ScriptedModels,
    error_text,
    expected_errors,
    roles,
    run_config,
    tool_choice,
    tools_field,
)
from poc.words import ABSENT

SENTINEL = "__FORCE_SUMMARY__"
SUMMARY_INSTRUCTION = "Write the final report now from the tool results you have."


async def observe(models: ScriptedModels) -> Observations:
    """Exceed max_turns; stop with the sentinel and summarise; exceed max_turns with a handler."""
    observations = await _max_turns(models)
    observations.update(await _sentinel_and_summary(models))
    observations.update(await _error_handler(models))
    observations.update(await _sentinel_object(models))
    observations.update(await _behavior_after_unknown_round(models))
    return observations


class _Sentinel:
    def __repr__(self) -> str:
        return "<sentinel object>"


async def _sentinel_object(models: ScriptedModels) -> Observations:
    """What an object (not a string) sentinel becomes in a str-output agent's final_output."""
    from agents import Agent, Runner

    try:
        from agents import ToolsToFinalOutputResult
    except ImportError:
        return {"object_sentinel_arrives_as": ABSENT}
    sentinel = _Sentinel()

    def stop(context: Any, results: Any) -> ToolsToFinalOutputResult:
        return ToolsToFinalOutputResult(is_final_output=True, final_output=sentinel)

    async with models.play([call("get_pod", name="a")]) as llm:
        agent = Agent(
            name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())], tool_use_behavior=stop
        )
        result = await Runner.run(agent, "check", run_config=run_config())
    output = result.final_output
    return {"object_sentinel_arrives_as": "the object" if output is sentinel else type(output).__name__}


async def _behavior_after_unknown_round(models: ScriptedModels) -> Observations:
    """Whether tool_use_behavior is consulted after a round whose every call names an unknown tool."""
    from agents import Agent, RunConfig, Runner, ToolsToFinalOutputResult

    if "tool_not_found_behavior" not in getattr(RunConfig, "__dataclass_fields__", {}):
        return {"behavior_consulted_after_unknown_only_round": ABSENT}
    consulted: list[int] = []

    def decide(context: Any, results: Any) -> ToolsToFinalOutputResult:
        consulted.append(len(results))
        return ToolsToFinalOutputResult(is_final_output=False, final_output=None)

    async with models.play([call("delete_pod", name="a"), text("done")]) as llm:
        agent = Agent(
            name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())], tool_use_behavior=decide
        )
        await Runner.run(
            agent, "check", run_config=run_config(tool_not_found_behavior="return_error_to_model")
        )
    return {"behavior_consulted_after_unknown_only_round": bool(consulted)}


async def _max_turns(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    script = [call("get_pod", name="a"), call("get_pod", name="b"), text("never reached")]
    async with models.play(script) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        try:
            await Runner.run(agent, "check", max_turns=2, run_config=run_config())
            return {"max_turns_outcome": "no exception", "max_turns_requests_sent": len(llm.requests)}
        except expected_errors() as error:
            run_data = getattr(error, "run_data", None)
            return {
                "max_turns_outcome": error_text(error),
                "max_turns_requests_sent": len(llm.requests),
                "max_turns_run_data": ABSENT if run_data is None else "present",
                "max_turns_run_data_items": _item_kinds(getattr(run_data, "new_items", None)),
            }


async def _sentinel_and_summary(models: ScriptedModels) -> Observations:
    from agents import Agent, ModelSettings, Runner

    try:
        from agents import ToolsToFinalOutputResult
    except ImportError:
        return {"sentinel_final_output": ABSENT}

    def stop(context: Any, results: Any) -> ToolsToFinalOutputResult:
        return ToolsToFinalOutputResult(is_final_output=True, final_output=SENTINEL)

    async with models.play([call("get_pod", _id="call_1", name="a"), text("summary")]) as llm:
        agent = Agent(
            name="probe",
            model=llm.model,
            tools=[raw_tool("get_pod", Recorder())],
            model_settings=ModelSettings(tool_choice="required"),
            tool_use_behavior=stop,
        )
        result = await Runner.run(agent, "check", run_config=run_config())
        history = result.to_input_list()
        observations: Observations = {
            "sentinel_final_output": str(result.final_output),
            "sentinel_requests_sent": len(llm.requests),
            "sentinel_history_kinds": _input_kinds(history),
            "sentinel_history_keeps_call_and_output": _keeps_call_and_output(history, "call_1"),
        }
        # The summary: the same agent without tools, fed the history and one instruction.
        summary_agent = agent.clone(
            tools=[], model_settings=ModelSettings(), tool_use_behavior="run_llm_again"
        )
        follow_up: list[Any] = [*history, {"role": "user", "content": SUMMARY_INSTRUCTION}]
        summary = await Runner.run(summary_agent, follow_up, run_config=run_config())
        body = llm.requests[-1]
        observations.update(
            {
                "summary_final_output": str(summary.final_output),
                "summary_request_tools": tools_field(body),
                "summary_request_tool_choice": tool_choice(body),
                "summary_request_roles": roles(body),
            }
        )
    observations["summary_inherited_required_tool_choice"] = await _summary_keeping_required(models, history)
    return observations


async def _summary_keeping_required(models: ScriptedModels, history: list[Any]) -> Any:
    """What a tool-less agent that still says tool_choice="required" sends: a trap for the port."""
    from agents import Agent, ModelSettings, Runner

    async with models.play([text("summary")]) as llm:
        agent = Agent(name="probe", model=llm.model, model_settings=ModelSettings(tool_choice="required"))
        follow_up: list[Any] = [*history, {"role": "user", "content": SUMMARY_INSTRUCTION}]
        try:
            await Runner.run(agent, follow_up, run_config=run_config())
        except expected_errors() as error:
            return error_text(error)
        return tool_choice(llm.requests[0])


async def _error_handler(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    if "error_handlers" not in inspect.signature(Runner.run).parameters:
        return {"error_handler_keys": ABSENT, "error_handler_final_output": ABSENT}
    import agents

    handlers_type = getattr(agents, "RunErrorHandlers", None)
    keys = sorted(getattr(handlers_type, "__annotations__", {})) if handlers_type else ABSENT
    seen: list[str] = []

    def on_max_turns(data: Any) -> Any:
        seen.append(f"{type(data.error).__name__}, run_data={'yes' if data.run_data else 'no'}")
        return SENTINEL

    script = [call("get_pod", name="a"), call("get_pod", name="b"), text("never reached")]
    async with models.play(script) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        result = await Runner.run(
            agent, "check", max_turns=2, run_config=run_config(), error_handlers={"max_turns": on_max_turns}
        )
        return {
            "error_handler_keys": keys,
            "error_handler_sees": seen,
            "error_handler_final_output": str(result.final_output),
            "error_handler_requests_sent": len(llm.requests),
        }


def _item_kinds(items: Any) -> Any:
    if items is None:
        return ABSENT
    return [type(item).__name__ for item in items]


def _input_kinds(history: list[Any]) -> list[str]:
    return [str(item.get("type") or item.get("role")) for item in history if isinstance(item, dict)]


def _keeps_call_and_output(history: list[Any], call_id: str) -> bool:
    kinds = {
        item.get("type") for item in history if isinstance(item, dict) and item.get("call_id") == call_id
    }
    return {"function_call", "function_call_output"} <= kinds


def judge(observations: Observations) -> Judgement:
    """ok when the sentinel ends the run after one request, keeping the call and its output,
    and the follow-up summary request carries no tools."""
    if observations.get("sentinel_final_output") == ABSENT:
        return Judgement("absent", "ToolsToFinalOutputResult absent")
    stops = (
        observations["sentinel_final_output"] == SENTINEL
        and observations["sentinel_requests_sent"] == 1
        and observations["sentinel_history_keeps_call_and_output"] is True
    )
    tool_less = observations["summary_request_tools"] == ABSENT
    sent = observations["sentinel_requests_sent"]
    headline = f"sentinel stops after {sent} {'request' if sent == 1 else 'requests'}"
    headline += ", summary without tools" if tool_less else ", summary still has tools"
    return Judgement("ok" if stops and tool_less else "differs", headline)


PROBE = Probe("forced_summary", "stop the run for one tool-less summary request", observe, judge)
