"""Probe 8: what a tool's return value and a raw tool's schema become on the wire.

C9 and the gateway's messages rely on a returned string reaching the model verbatim; the port
sends MCP input schemas as they are (non-strict).
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import POD_SCHEMA, Recorder, raw_tool
from poc.scripted import ScriptedModels, run_config, tool_message_contents

# Leading/trailing whitespace, a blank line, non-ASCII, JSON-looking text: none of it may change.
TEXT = '  Tool call failed (get_pod): timeout\n\nNAME  STATUS\nweb-1 Running ✓ {"a": 1}\n'


async def observe(models: ScriptedModels) -> Observations:
    """A string, a dict and None returned by a raw handler; the tool definition as sent."""
    observations: Observations = {}
    for label, value in (("string", TEXT), ("dict", {"pods": 1}), ("none", None)):
        contents, body = await _round_trip(models, value)
        observations[f"{label}_content"] = contents[0] if contents else contents
        if label == "string":
            function = body["tools"][0]["function"]
            observations["schema_sent_verbatim"] = function.get("parameters") == POD_SCHEMA
            observations["strict_flag_sent"] = function.get("strict", "absent")
    observations["string_verbatim"] = observations["string_content"] == TEXT
    return observations


async def _round_trip(models: ScriptedModels, value: Any) -> tuple[list[Any], dict[str, Any]]:
    from agents import Agent, Runner

    async with models.play([call("get_pod", name="a"), text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("get_pod", Recorder(lambda _: value))])
        await Runner.run(agent, "check", run_config=run_config())
        return tool_message_contents(llm.requests[1]), llm.requests[0]


def judge(observations: Observations) -> Judgement:
    """ok when a returned string is the tool message content, byte for byte, and the schema as given."""
    ok = observations["string_verbatim"] is True and observations["schema_sent_verbatim"] is True
    headline = "string verbatim, schema verbatim" if ok else "tool output or schema rewritten"
    return Judgement("ok" if ok else "differs", headline)


PROBE = Probe("tool_output", "a tool's return value and schema on the wire", observe, judge)
