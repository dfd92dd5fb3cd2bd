"""Probe 10: a 200 response whose `choices` is empty (some providers' error payloads look so).

On the Responses wire the same reply is a completed response whose `output` is empty.

The port maps it to "model endpoint failed"; that needs an exception, not a silent empty answer.
"""

from __future__ import annotations

import json

from k8s_agent_scripted_llm import malformed, text
from poc.probe import Judgement, Observations, Probe, Verdict
from poc.scripted import ScriptedModels, error_text, expected_errors, run_config

EMPTY = json.dumps(
    {"id": "chatcmpl-empty", "object": "chat.completion", "created": 0, "model": "scripted", "choices": []}
)
EMPTY_RESPONSE = json.dumps(
    {
        "id": "resp_empty",
        "object": "response",
        "created_at": 0,
        "model": "scripted",
        "status": "completed",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
)


async def observe(models: ScriptedModels) -> Observations:
    """Send one empty-choices body (a text answer stays queued in case the SDK asks again)."""
    from agents import Agent, Runner

    empty = EMPTY_RESPONSE if models.wire == "responses" else EMPTY
    async with models.play([malformed(empty), text("second try")]) as llm:
        agent = Agent(name="probe", model=llm.model)
        try:
            result = await Runner.run(agent, "check", run_config=run_config())
            outcome = f"final_output: {result.final_output!r}"
        except expected_errors() as error:
            outcome = error_text(error, limit=160)
        return {"outcome": outcome, "requests_sent": len(llm.requests)}


def judge(observations: Observations) -> Judgement:
    """ok when the run fails with an exception after one request."""
    outcome = str(observations["outcome"])
    raised = not outcome.startswith("final_output")
    verdict: Verdict = "ok" if raised and observations["requests_sent"] == 1 else "differs"
    return Judgement(verdict, outcome.split(":")[0] if raised else outcome[:60])


PROBE = Probe("empty_choices", "a completion with no choices", observe, judge)
