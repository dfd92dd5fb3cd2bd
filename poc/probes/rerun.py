"""Probe 11: the outer loop. The port re-runs Runner for the zero-tool and evidence pushbacks (C2, C5).

A text answer ends a run; the next run gets result.to_input_list() plus a user message. What does
its first request carry: the whole conversation, and tool_choice again?
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import ScriptedModels, roles, run_config, tool_choice

PUSHBACK = (
    "You have not called any tool yet. Investigate the cluster with the provided tools before answering."
)


async def observe(models: ScriptedModels) -> Observations:
    """Answer in text at once, then push back with a new run on the same history."""
    from agents import Agent, ModelSettings, Runner

    async with models.play([text("All pods are healthy."), call("get_pod", name="a"), text("done")]) as llm:
        agent = Agent(
            name="probe",
            instructions="Diagnose.",
            model=llm.model,
            tools=[raw_tool("get_pod", Recorder())],
            model_settings=ModelSettings(tool_choice="required"),
        )
        first = await Runner.run(agent, "check", run_config=run_config())
        follow_up: list[Any] = [*first.to_input_list(), {"role": "user", "content": PUSHBACK}]
        second = await Runner.run(agent, follow_up, run_config=run_config())
        rerun_body = llm.requests[1]
        return {
            "first_final_output": str(first.final_output),
            "rerun_roles": roles(rerun_body),
            "rerun_keeps_answer": any(
                m.get("role") == "assistant" and m.get("content") == "All pods are healthy."
                for m in rerun_body["messages"]
            ),
            "rerun_request_1_tool_choice": tool_choice(rerun_body),
            "rerun_request_2_tool_choice": tool_choice(llm.requests[2]),
            "rerun_final_output": str(second.final_output),
        }


def judge(observations: Observations) -> Judgement:
    """ok when the re-run sends the full history (instructions, question, answer, pushback)."""
    ok = (
        observations["rerun_roles"] == ["system", "user", "assistant", "user"]
        and observations["rerun_keeps_answer"]
    )
    choice = observations["rerun_request_1_tool_choice"]
    return Judgement("ok" if ok else "differs", f"history kept, re-run #1 tool_choice {choice}")


PROBE = Probe("rerun", "a pushback as a new run on to_input_list()", observe, judge)
