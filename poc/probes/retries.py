"""Probe 9: does the SDK retry model HTTP errors on its own?

The project wants one retry layer, the openai client's (`max_retries`). With max_retries=0 a 500
must reach the caller after exactly one request; with max_retries=1 the client retries once.
"""

from __future__ import annotations

from k8s_agent_scripted_llm import error, text
from poc.probe import Judgement, Observations, Probe
from poc.scripted import ScriptedModels, error_text, expected_errors, has_field, run_config
from poc.words import ABSENT


async def observe(models: ScriptedModels) -> Observations:
    """A 500 then a success, with the client's max_retries 0 and 1."""
    from agents import ModelSettings

    # ModelSettings.retry is the SDK's own, opt-in retry layer (where it exists).
    setting = f"present, default {ModelSettings().retry!r}" if has_field(ModelSettings, "retry") else ABSENT
    observations: Observations = {"sdk_retry_setting": setting}
    for retries in (0, 1):
        observations.update(await _five_hundred_then_ok(models, retries))
    return observations


async def _five_hundred_then_ok(models: ScriptedModels, max_retries: int) -> Observations:
    from agents import Agent, Runner

    # Retry-After keeps the client's back-off at 10 ms.
    async with models.play([error(500, retry_after=0.01), text("ok")], max_retries=max_retries) as llm:
        agent = Agent(name="probe", model=llm.model)
        try:
            result = await Runner.run(agent, "check", run_config=run_config())
            outcome = f"final_output: {result.final_output}"
        except expected_errors() as failure:
            outcome = error_text(failure, limit=120)
        return {
            f"max_retries_{max_retries}_outcome": outcome,
            f"max_retries_{max_retries}_requests_sent": len(llm.requests),
        }


def judge(observations: Observations) -> Judgement:
    """ok when the only retries are the client's: one request at max_retries=0, two at 1."""
    sent = (observations["max_retries_0_requests_sent"], observations["max_retries_1_requests_sent"])
    ok = sent == (1, 2)
    return Judgement("ok" if ok else "differs", f"requests at max_retries 0/1: {sent[0]}/{sent[1]}")


PROBE = Probe("retries", "does the SDK add its own retries to the client's", observe, judge)
