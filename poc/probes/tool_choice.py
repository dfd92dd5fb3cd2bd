"""Probe 1: `tool_choice` on requests #1 and #2 with ModelSettings(tool_choice="required").

The port forces the first step (C1) and must not force later ones; the SDK's `reset_tool_choice`
decides what request #2 carries.
"""

from __future__ import annotations

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import ScriptedModels, run_config, tool_choice
from poc.words import ABSENT


async def observe(models: ScriptedModels) -> Observations:
    """Run call-then-text with reset_tool_choice default and False; record tool_choice per request."""
    observations: Observations = {}
    for label, reset in (("default", None), ("reset_false", False)):
        first, second = await _two_requests(models, reset)
        observations[f"{label}_request_1"] = first
        observations[f"{label}_request_2"] = second
    return observations


async def _two_requests(models: ScriptedModels, reset: bool | None) -> tuple[object, object]:
    from agents import Agent, ModelSettings, Runner

    async with models.play([call("get_pod", name="a"), text("done")]) as llm:
        agent = Agent(
            name="probe",
            instructions="probe",
            model=llm.model,
            tools=[raw_tool("get_pod", Recorder())],
            model_settings=ModelSettings(tool_choice="required"),
        )
        if reset is not None:  # None: leave the SDK's default alone
            agent = agent.clone(reset_tool_choice=reset)
        await Runner.run(agent, "check", run_config=run_config())
        first, second = llm.requests[:2]
        return tool_choice(first), tool_choice(second)


def judge(observations: Observations) -> Judgement:
    """ok when #1 is forced and #2 (default reset) is not: "auto" or absent."""
    first, second = observations["default_request_1"], observations["default_request_2"]
    headline = f"#1 {first}, #2 {second}"
    if first == "required" and second in ("auto", ABSENT):
        return Judgement("ok", headline)
    return Judgement("differs", headline)


PROBE = Probe("tool_choice", "tool_choice on requests #1/#2 with tool_choice=required", observe, judge)
