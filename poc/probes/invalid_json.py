"""Probe 2: invalid JSON arguments (`{not-json`) and schema-invalid arguments.

C8 moves cleanly only if a raw FunctionTool receives the raw string, so the shared tool gateway can
answer with the decoder's own message; through @function_tool the SDK answers for it. C3 needs the
raw handler to receive schema-invalid (but valid JSON) arguments untouched.
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm import raw_call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import ScriptedModels, has_field, run_config, tool_message_contents
from poc.words import ABSENT

INVALID = "{not-json"
SCHEMA_INVALID = '{"nmae": 7}'


async def observe(models: ScriptedModels) -> Observations:
    """Send `{not-json` to @function_tool (plain, with failure_error_function, with the run's
    tool_error_formatter) and to a raw FunctionTool; record what each side saw."""
    observations: Observations = {}
    observations.update(await _decorated(models))
    observations.update(await _decorated_with_failure_function(models))
    observations.update(await _decorated_with_formatter(models))
    observations.update(await _raw(models, INVALID, "raw"))
    observations.update(await _raw(models, SCHEMA_INVALID, "raw_schema_invalid"))
    return observations


async def _decorated(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    ran: list[str] = []
    async with models.play([raw_call("get_pod", INVALID, _id="call_1"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[_pod_function(ran)])
        await Runner.run(agent, "check", run_config=run_config())
        return {
            "function_tool_model_sees": tool_message_contents(llm.requests[1]),
            "function_tool_body_ran": bool(ran),
        }


async def _decorated_with_failure_function(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner, function_tool

    seen: list[str] = []

    def failure(context: Any, error: Exception) -> str:
        seen.append(f"{type(error).__name__}: {error}")
        return f"failure_error_function: {error}"

    async def get_pod(name: str) -> str:
        """Get a pod."""
        return name

    tool = function_tool(get_pod, failure_error_function=failure)
    async with models.play([raw_call("get_pod", INVALID, _id="call_1"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[tool])
        await Runner.run(agent, "check", run_config=run_config())
        return {
            "failure_error_function_sees": seen,
            "failure_error_function_model_sees": tool_message_contents(llm.requests[1]),
        }


async def _decorated_with_formatter(models: ScriptedModels) -> Observations:
    from agents import Agent, RunConfig, Runner

    if not has_field(RunConfig, "tool_error_formatter"):
        return {"formatter_sees": ABSENT, "formatter_model_sees": ABSENT}
    seen: list[dict[str, Any]] = []

    def formatter(args: Any) -> str:
        error = getattr(args, "error", None)
        seen.append(
            {
                "kind": args.kind,
                "tool_name": args.tool_name,
                "call_id": args.call_id,
                "default_message": args.default_message,
                "error": None if error is None else f"{type(error).__name__}: {error}",
            }
        )
        return f"formatted: {args.kind}"

    async with models.play([raw_call("get_pod", INVALID, _id="call_1"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[_pod_function([])])
        await Runner.run(agent, "check", run_config=run_config(tool_error_formatter=formatter))
        return {"formatter_sees": seen, "formatter_model_sees": tool_message_contents(llm.requests[1])}


async def _raw(models: ScriptedModels, arguments: str, label: str) -> Observations:
    from agents import Agent, Runner

    handler = Recorder(reply=lambda received: f"handler got: {received}")
    async with models.play([raw_call("get_pod", arguments), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", handler)])
        await Runner.run(agent, "check", run_config=run_config())
        return {
            f"{label}_handler_receives": handler.received,
            f"{label}_model_sees": tool_message_contents(llm.requests[1]),
        }


def _pod_function(ran: list[str]) -> Any:
    from agents import function_tool

    async def get_pod(name: str) -> str:
        """Get a pod."""
        ran.append(name)
        return f"pod {name}: Running"

    return function_tool(get_pod)


def judge(observations: Observations) -> Judgement:
    """ok when the raw handler receives both strings verbatim and its answer reaches the model."""
    raw_ok = observations["raw_handler_receives"] == [INVALID] and observations["raw_model_sees"] == [
        f"handler got: {INVALID}"
    ]
    schema_ok = observations["raw_schema_invalid_handler_receives"] == [SCHEMA_INVALID]
    if raw_ok and schema_ok:
        return Judgement("ok", "raw FunctionTool gets the raw string")
    return Judgement("differs", f"raw handler got {observations['raw_handler_receives']!r}"[:80])


PROBE = Probe("invalid_json", "invalid JSON arguments: who sees the raw string", observe, judge)
