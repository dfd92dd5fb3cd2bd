"""Probe 13: the hooks the port leans on beyond the contract's items, each as the port uses it.

- `RunConfig.call_model_input_filter` raising: does the caller get that exception, unchanged?
  (the port stops a run for the summary that way);
- the input filter reordering items: does the wire show the new order? (answers in call order);
- `FunctionTool(needs_approval=True)`: is the run interrupted before the tool runs, and do
  `to_state().approve(...)` / `.reject(..., rejection_message=...)` run it, or put that exact text on
  the wire? (write tools allowed with --allow-write);
- an `OpenAIChatCompletionsModel` subclass renaming a call id in `get_response`: do the call and its
  output carry the new id on the wire? (unique ids for endpoints that reuse them).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from k8s_agent_scripted_llm import call, calls, text, tool
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import ScriptedModels, has_field, run_config, tool_messages
from poc.words import ABSENT

REJECTION = "Tool call refused (get_pod): the operator did not approve this call."


class _Stop(Exception):
    """Raised by the probe's input filter."""


async def observe(models: ScriptedModels) -> Observations:
    """Each hook in turn; a hook missing from the installed SDK is "absent"."""
    from agents import RunConfig

    observations: Observations = {}
    if has_field(RunConfig, "call_model_input_filter") and _importable("agents.run_config"):
        observations.update(await _filter_raises(models))
        observations.update(await _filter_reorders(models))
    else:
        observations.update({"filter_exception_reaches_caller": ABSENT, "filter_reorder_on_wire": ABSENT})
    observations.update(await _approval(models))
    observations.update(await _renamed_call_id(models))
    return observations


async def _filter_raises(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    def stop(data: Any) -> Any:
        raise _Stop("summary now")

    async with models.play([]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        try:
            await Runner.run(agent, "check", run_config=run_config(call_model_input_filter=stop))
            outcome = "no exception"
        except _Stop:
            outcome = "the filter's exception, unchanged"
        except Exception as error:  # boundary: any other type is the observation
            outcome = f"{type(error).__name__}: {error}"
        return {
            "filter_exception_reaches_caller": outcome,
            "filter_exception_requests_sent": len(llm.requests),
        }


async def _filter_reorders(models: ScriptedModels) -> Observations:
    from agents import Agent, Runner

    def reverse_outputs(data: Any) -> Any:
        from agents.run_config import ModelInputData

        items = list(data.model_data.input)
        outputs = [
            item for item in items if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        others = [item for item in items if item not in outputs]
        return ModelInputData(input=others + outputs[::-1], instructions=data.model_data.instructions)

    round_ = calls(tool("get_pod", _id="call_a", name="a"), tool("get_pod", _id="call_b", name="b"))
    async with models.play([round_, text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder())])
        await Runner.run(agent, "check", run_config=run_config(call_model_input_filter=reverse_outputs))
        return {"filter_reorder_on_wire": [m["tool_call_id"] for m in tool_messages(llm.requests[1])]}


async def _approval(models: ScriptedModels) -> Observations:
    import agents
    from agents import Agent, FunctionTool, Runner

    run_state = getattr(agents, "RunState", None)
    reject = getattr(run_state, "reject", None)
    rejects_with_message = reject is not None and "rejection_message" in inspect.signature(reject).parameters
    if not has_field(FunctionTool, "needs_approval") or not rejects_with_message:
        return {"approval_interrupts": ABSENT}
    observations: Observations = {}
    for decision in ("approve", "reject"):
        recorder = Recorder()
        tool_ = raw_tool("get_pod", recorder)
        tool_.needs_approval = True
        async with models.play([call("get_pod", _id="call_1", name="a"), text("done")]) as llm:
            agent = Agent(name="probe", model=llm.model, tools=[tool_])
            result = await Runner.run(agent, "check", run_config=run_config())
            interrupted = len(result.interruptions)
            ran_before = len(recorder.received)
            state = result.to_state()
            for item in result.interruptions:
                if decision == "approve":
                    state.approve(item)
                else:
                    state.reject(item, rejection_message=REJECTION)
            await Runner.run(agent, state, run_config=run_config())
            observations.update(
                {
                    "approval_interrupts": interrupted,
                    "approval_tool_ran_before_decision": ran_before,
                    f"{decision}_tool_ran": len(recorder.received),
                    f"{decision}_model_sees": [m["content"] for m in tool_messages(llm.requests[-1])],
                }
            )
    return observations


async def _renamed_call_id(models: ScriptedModels) -> Observations:
    from agents import Agent, ModelResponse, Runner
    from openai.types.responses import ResponseFunctionToolCall

    async with models.play([call("get_pod", _id="call_1", name="a"), text("done")]) as llm:

        class Renaming(llm.model_class):  # type: ignore[name-defined,misc]
            async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
                response: ModelResponse = await super().get_response(*args, **kwargs)
                response.output = [
                    item.model_copy(update={"call_id": item.call_id + "~2"})
                    if isinstance(item, ResponseFunctionToolCall)
                    else item
                    for item in response.output
                ]
                return response

        agent = Agent(
            name="probe",
            model=Renaming(model="scripted", openai_client=llm.client),
            tools=[raw_tool("get_pod", Recorder())],
        )
        await Runner.run(agent, "check", run_config=run_config())
        body = llm.requests[1]
        assistant = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
        return {
            "renamed_id_on_wire": {
                "call": assistant,
                "output": [m["tool_call_id"] for m in tool_messages(body)],
            }
        }


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def judge(observations: Observations) -> Judgement:
    """ok when every hook behaves as the port uses it."""
    expected = {
        "filter_exception_reaches_caller": "the filter's exception, unchanged",
        "filter_reorder_on_wire": ["call_b", "call_a"],
        "approval_interrupts": 1,
        "approval_tool_ran_before_decision": 0,
        "approve_tool_ran": 1,
        "reject_tool_ran": 0,
        "reject_model_sees": [REJECTION],
        "renamed_id_on_wire": {"call": ["call_1~2"], "output": ["call_1~2"]},
    }
    differing = [key for key, value in expected.items() if observations.get(key) != value]
    if any(observations.get(key) == ABSENT for key in expected):
        return Judgement(
            "absent", "some hooks absent: " + ", ".join(k for k in expected if observations.get(k) == ABSENT)
        )
    if differing:
        return Judgement("differs", "differs: " + ", ".join(differing))
    return Judgement("ok", "input filter stops and reorders, approvals, renamed ids: as the port uses them")


PROBE = Probe("port_hooks", "the hooks the port relies on beyond the contract's items", observe, judge)
