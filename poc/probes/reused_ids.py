"""Probe 5: the model reuses a tool-call id (some OpenAI-compatible servers send call_1 every time).

C10 (every tool_call_id of an assistant message answered exactly once) needs the SDK to run each
call and answer each assistant message, rather than deduplicate by id or raise.
"""

from __future__ import annotations

from k8s_agent_scripted_llm import Step, call, calls, text, tool
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import (
    ScriptedModels,
    assistant_calls,
    error_text,
    expected_errors,
    run_config,
    tool_messages,
)

VARIANTS: dict[str, list[Step]] = {
    "same_args": [call("get_pod", _id="call_1", name="a"), call("get_pod", _id="call_1", name="a")],
    "different_args": [call("get_pod", _id="call_1", name="a"), call("get_pod", _id="call_1", name="b")],
    "same_turn": [calls(tool("get_pod", _id="call_1", name="a"), tool("get_pod", _id="call_1", name="b"))],
}


async def observe(models: ScriptedModels) -> Observations:
    """Per variant: which calls ran, and the assistant ids and tool messages of the last request."""
    observations: Observations = {}
    for label, script in VARIANTS.items():
        observations.update(await _variant(models, label, [*script, text("done")]))
    return observations


async def _variant(models: ScriptedModels, label: str, script: list[Step]) -> Observations:
    from agents import Agent, Runner

    handler = Recorder()
    async with models.play(script) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", handler)])
        try:
            result = await Runner.run(agent, "check", run_config=run_config())
            outcome = f"final_output: {result.final_output}"
        except expected_errors() as error:
            outcome = error_text(error)
        last = llm.requests[-1]
        return {
            f"{label}_outcome": outcome,
            f"{label}_calls_run": len(handler.received),
            f"{label}_requests_sent": len(llm.requests),
            # A call the SDK swallowed leaves the next request identical to the previous one.
            f"{label}_last_request_repeats_previous": len(llm.requests) > 1
            and llm.requests[-1]["messages"] == llm.requests[-2]["messages"],
            f"{label}_assistant_calls": assistant_calls(last),
            f"{label}_tool_messages": [f"{m['tool_call_id']}: {m['content']}" for m in tool_messages(last)],
        }


def fate(observations: Observations, label: str) -> str:
    """What became of the second call of a variant, from the wire and the handler's count.

    "answered": it ran and the next request carries both calls and both answers; "dropped": it
    never ran; "merged": it ran but the history keeps one call per id; "raises": the run died.
    """
    if observations[f"{label}_outcome"] != "final_output: done":
        return "raises"
    if observations[f"{label}_calls_run"] < 2:
        return "dropped"
    if len(observations[f"{label}_assistant_calls"]) < 2 or len(observations[f"{label}_tool_messages"]) < 2:
        return "merged"
    return "answered"


def judge(observations: Observations) -> Judgement:
    """ok when every reused-id call runs and is answered on the wire, as the hand-written loop does."""
    fates = {label: fate(observations, label) for label in VARIANTS}
    if set(fates.values()) == {"answered"}:
        return Judgement("ok", "every reused id runs and is answered")
    return Judgement("differs", "; ".join(f"{label}: {outcome}" for label, outcome in fates.items()))


PROBE = Probe("reused_ids", "a tool-call id reused across turns or within one", observe, judge)
