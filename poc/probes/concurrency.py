"""Probe 7: several tool calls in one turn: concurrent or in order, and the order on the wire.

The handlers meet at a rendezvous counted in event-loop yields, not seconds, so the observation
does not depend on timing: if the SDK runs them together, all three are in flight at once.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from k8s_agent_scripted_llm import calls, text, tool
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import raw_tool
from poc.scripted import ScriptedModels, run_config, tool_messages
from poc.words import ABSENT

LABELS = ("a", "b", "c")
RENDEZVOUS_YIELDS = 500


class _Tracker:
    """Async handlers that meet, then finish in reverse order of their calls."""

    def __init__(self) -> None:
        self.started = 0
        self.in_flight = 0
        self.peak = 0
        self.finished: list[str] = []

    async def __call__(self, context: Any, arguments: str) -> str:
        label = json.loads(arguments)["label"]
        self.started += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        for _ in range(RENDEZVOUS_YIELDS):
            if self.started == len(LABELS):
                break
            await asyncio.sleep(0)
        for _ in range((len(LABELS) - LABELS.index(label)) * 10):  # "a" last, "c" first
            await asyncio.sleep(0)
        self.in_flight -= 1
        self.finished.append(label)
        return f"result {label}"


async def observe(models: ScriptedModels) -> Observations:
    """Three calls in one turn, by default and with max_function_tool_concurrency=1."""
    observations = await _turn(models, "default", {})
    try:
        from agents import ToolExecutionConfig
    except ImportError:
        observations.update({"limited_peak_in_flight": ABSENT, "limited_finish_order": ABSENT})
        return observations
    limited = {"tool_execution": ToolExecutionConfig(max_function_tool_concurrency=1)}
    observations.update(await _turn(models, "limited", limited))
    return observations


async def _turn(models: ScriptedModels, label: str, settings: dict[str, Any]) -> Observations:
    from agents import Agent, Runner

    tracker = _Tracker()
    script = calls(*(tool("step", _id=f"call_{name}", label=name) for name in LABELS))
    async with models.play([script, text("done")]) as llm:
        agent = Agent(name="probe", model=llm.model, tools=[raw_tool("step", tracker, _LABEL_SCHEMA)])
        await Runner.run(agent, "check", run_config=run_config(**settings))
        return {
            f"{label}_peak_in_flight": tracker.peak,
            f"{label}_finish_order": tracker.finished,
            f"{label}_wire_order": [m["tool_call_id"] for m in tool_messages(llm.requests[1])],
        }


_LABEL_SCHEMA = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}


def judge(observations: Observations) -> Judgement:
    """ok when tool messages follow the model's call order, whatever order the tools finish in."""
    in_call_order = [f"call_{name}" for name in LABELS]
    ordered = observations["default_wire_order"] == in_call_order
    mode = "concurrent" if observations["default_peak_in_flight"] > 1 else "sequential"
    headline = f"{mode} by default, wire in call order" if ordered else f"{mode}, wire reordered"
    return Judgement("ok" if ordered else "differs", headline)


PROBE = Probe("concurrency", "parallel tool calls: concurrency and tool message order", observe, judge)
