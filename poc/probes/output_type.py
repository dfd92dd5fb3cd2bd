"""Probe 14: the structured report as an output type (C11, C12).

The port declares `AgentOutputSchema(HealthReport, strict_json_schema=False)`: does the SDK send
that schema as `response_format` (`text.format` on the Responses model; non-strict, named
`final_output`) on every request, tool turns included? When the answer does not validate, does `error_handlers["invalid_final_output"]` get
the model's text, and does to_input_list() keep that text for the correction re-run? And does the
forced-summary sentinel still pass `tool_use_behavior` unvalidated with a structured output type?

An SDK without `error_handlers["invalid_final_output"]` (0.14.8 and older) is probed all the same: the
schema on the wire, and what the answer that breaks it does to the run without a handler.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from k8s_agent_scripted_llm import call, text
from poc.probe import Judgement, Observations, Probe
from poc.probes._tools import Recorder, raw_tool
from poc.scripted import ScriptedModels, error_text, expected_errors, run_config
from poc.words import ABSENT

SENTINEL = "\x00FORCE_SUMMARY:probe"


class Report(BaseModel):
    """A stand-in for the port's HealthReport: a required field and an optional one with a default."""

    scope: str
    findings: list[str] = []


def _invalid_output_handler() -> Any:
    """RunErrorHandlerResult when the SDK lets `error_handlers["invalid_final_output"]` take an
    answer that breaks the output type, else None."""
    import agents

    handlers = getattr(agents, "RunErrorHandlers", None)
    keys = getattr(handlers, "__annotations__", {}) if handlers else {}
    return getattr(agents, "RunErrorHandlerResult", None) if "invalid_final_output" in keys else None


async def observe(models: ScriptedModels) -> Observations:
    """A tool turn, then an answer that is not the schema; then a run ended by the sentinel."""
    from agents import Agent, AgentOutputSchema, Runner, ToolsToFinalOutputResult

    handler_result = _invalid_output_handler()
    seen: dict[str, Any] = {}

    def unread(data: Any) -> Any:
        seen["error"] = type(data.error).__name__
        seen["texts"] = [
            part.text
            for response in data.run_data.raw_responses
            for item in response.output
            if item.type == "message"
            for part in item.content
            if hasattr(part, "text")
        ]
        return handler_result(final_output=Report(scope="placeholder"), include_in_history=False)

    async with models.play(
        [call("get_pod", name="a"), text("all fine, no JSON"), call("get_pod", name="b")]
    ) as llm:
        agent = Agent(
            name="probe",
            instructions="Diagnose.",
            model=llm.model,
            tools=[raw_tool("get_pod", Recorder())],
            output_type=AgentOutputSchema(Report, strict_json_schema=False),
        )
        outcome: Observations = {}
        if handler_result is not None:
            result = await Runner.run(
                agent, "check", run_config=run_config(), error_handlers={"invalid_final_output": unread}
            )
            history = result.to_input_list()
            kept = [item for item in history if isinstance(item, dict) and item.get("role") == "assistant"]
            outcome = {
                "final_output": repr(result.final_output),
                "history_keeps_answer": any("all fine, no JSON" in str(item.get("content")) for item in kept),
            }
        else:  # no handler to give the answer to: what the run does with it is the observation
            try:
                result = await Runner.run(agent, "check", run_config=run_config())
                outcome["invalid_answer_outcome"] = f"final_output: {result.final_output!r}"
            except expected_errors() as error:
                outcome["invalid_answer_outcome"] = error_text(error, limit=160)
            outcome.update(final_output=ABSENT, history_keeps_answer=ABSENT)
        formats = [body.get("response_format", ABSENT) for body in llm.requests[:2]]
        raw = llm.raw_requests[0]
        fields = ["response_format"] if "response_format" in raw else []
        fields += ["text.format"] if "format" in (raw.get("text") or {}) else []

        def stop(context: Any, results: Any) -> ToolsToFinalOutputResult:
            return ToolsToFinalOutputResult(is_final_output=True, final_output=SENTINEL)

        stopped = await Runner.run(agent.clone(tool_use_behavior=stop), "check", run_config=run_config())
        first = formats[0] if isinstance(formats[0], dict) else {}
        schema = first.get("json_schema") or {}
        return {
            "format_field_on_wire": fields,
            "response_format_type": first.get("type", ABSENT),
            "response_format_name": schema.get("name", ABSENT),
            "response_format_strict": schema.get("strict", ABSENT),
            "same_on_tool_and_answer_turns": formats[0] == formats[1],
            "handler_error": seen.get("error", ABSENT),
            "handler_saw_text": seen.get("texts", ABSENT),
            **outcome,
            "sentinel_passes": stopped.final_output == SENTINEL,
        }


def judge(observations: Observations) -> Judgement:
    """ok when the schema goes non-strict on every request, the handler sees the text, the history
    keeps it, and the sentinel passes unvalidated."""
    ok = (
        observations["response_format_type"] == "json_schema"
        and observations["response_format_strict"] is False
        and observations["same_on_tool_and_answer_turns"] is True
        and observations["handler_saw_text"] == ["all fine, no JSON"]
        and observations["history_keeps_answer"] is True
        and observations["sentinel_passes"] is True
    )
    field = " ".join(observations.get("format_field_on_wire") or ["response_format"])
    if "invalid_answer_outcome" in observations:  # the SDK has no invalid_final_output handler
        outcome = str(observations["invalid_answer_outcome"]).split(":")[0]
        return Judgement(
            "absent",
            f"{field} {observations['response_format_type']}, no invalid_final_output handler: {outcome}",
        )
    return Judgement(
        "ok" if ok else "differs",
        f"{field} {observations['response_format_type']} strict={observations['response_format_strict']}, "
        f"handler {observations['handler_error']}",
    )


PROBE = Probe("output_type", "a structured output type, an answer that breaks it", observe, judge)
