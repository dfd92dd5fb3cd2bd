"""The SDK port: the same agent on the OpenAI Agents SDK, driven by `Runner` plus an outer loop.

The SDK runs the inner loop (model turn, tool calls, next turn). Around it:
- the first run forces a tool (`ModelSettings(tool_choice="required")`; the SDK's
  `reset_tool_choice` drops the field after the first tool use);
- the gateway answers every tool call, and `RunConfig.tool_error_formatter` answers unknown
  tools with the same whitelist message (`tool_not_found_behavior="return_error_to_model"`);
- budgets end a run with the FORCE_SUMMARY sentinel (behavior.py), then one tool-less run of a
  clone of the agent writes the summary;
- the outer loop hands each answer to the shared review policy and re-runs `Runner` once per
  pushback with the remaining step budget, without forcing tools again;
- `max_turns` stays a hard backstop, turned into the sentinel by `error_handlers`.
"""

from __future__ import annotations

from typing import Any

from agents import (
    Agent,
    ModelSettings,
    RunConfig,
    RunErrorHandlerInput,
    RunErrorHandlerResult,
    Runner,
    ToolExecutionConfig,
    set_trace_processors,
    set_tracing_disabled,
)
from agents.exceptions import AgentsException, ModelBehaviorError
from openai import OpenAIError

from k8s_agent_harness import prompts
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import MalformedResponseError
from k8s_agent_harness.model_client import endpoint_error
from k8s_agent_harness.review import PushBack
from k8s_agent_harness.session import RunResult, Session, open_session
from k8s_agent_harness.vocabulary import Impl, StopReason
from sdk_agent.behavior import FORCE_SUMMARY, StopForSummary, is_force_summary, summary_behavior
from sdk_agent.model import UniqueCallIdsModel
from sdk_agent.model_input import compact_items, in_call_order, supervise_model_calls
from sdk_agent.tools import error_formatter, function_tools

IMPL = Impl.SDK


def _no_sdk_tracing() -> None:
    # Our JSONL trace is written at the wire and by the gateway; the SDK's exporter would upload.
    set_tracing_disabled(True)
    set_trace_processors([])


async def ask(config: Config, question: str, **options: Any) -> RunResult:
    """Investigate `question` on the configured cluster and return the report.

    Options go to `k8s_agent_harness.session.open_session`: observer, approver, secrets, mcp.
    """
    _no_sdk_tracing()
    async with open_session(config, IMPL, question, **options) as session:
        answer = await investigate(session)
        return session.finish(answer)


async def investigate(session: Session) -> str:
    """The outer loop around `Runner.run`: pushbacks, forced summary, failures."""
    supervisor = session.supervisor
    agent = Agent(
        name="k8s-sre",
        instructions=prompts.SYSTEM_PROMPT,
        model=UniqueCallIdsModel(model=session.config.model, openai_client=session.model, wire=session.wire),
        tools=list(function_tools(session.gateway)),
        model_settings=ModelSettings(tool_choice="required"),  # C1: the first run only
        tool_use_behavior=summary_behavior(supervisor),
    )
    run_config = RunConfig(
        tracing_disabled=True,
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=error_formatter(session.gateway, session.wire),
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1),  # calls in order, as proposed
        call_model_input_filter=supervise_model_calls(supervisor, session.gateway),
    )
    history: list[Any] = [{"role": "user", "content": session.question}]

    while True:
        try:
            result = await _run_sdk(session, agent, history, run_config, max_turns=supervisor.turns_left + 1)
        except StopForSummary as stop:
            return await summarize(session, agent, stop.history, stop.reason)
        history = result.to_input_list()
        if is_force_summary(result.final_output):
            reason = supervisor.stop_reason() or StopReason.STEP_BUDGET
            return await summarize(session, agent, history, reason)

        # Re-runs continue the conversation: they must not force a tool again (C1).
        agent = agent.clone(model_settings=ModelSettings())
        verdict = session.review(str(result.final_output or ""))  # C2, C5
        if isinstance(verdict, PushBack):
            history.append({"role": "user", "content": verdict.message})
            continue
        return verdict.answer


async def summarize(session: Session, agent: Agent[Any], history: list[Any], reason: StopReason) -> str:
    """C4, C7: one tool-less run of a clone of the agent over the history plus the instruction."""
    session.recorder.force_summary(reason)
    writer = agent.clone(tools=[], model_settings=ModelSettings(), tool_use_behavior="run_llm_again")
    instruction = {"role": "user", "content": prompts.summary_instruction(reason)}
    config = RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model")
    # No input filter on this run: order and compact the history here (see model_input.py).
    gateway = session.gateway
    summary_input = compact_items(
        [*in_call_order(history), instruction], prompts.SYSTEM_PROMPT, [], gateway.store, gateway.budget
    )
    result = await _run_sdk(session, writer, summary_input, config, max_turns=1)
    output = result.final_output
    if is_force_summary(output) or not isinstance(output, str) or not output:
        return prompts.no_report(reason)
    return output


async def _run_sdk(
    session: Session, agent: Agent[Any], history: list[Any], config: RunConfig, *, max_turns: int
) -> Any:
    """`Runner.run` with the run's failures translated: endpoint errors end the run, max_turns does not."""
    try:
        result = await Runner.run(
            agent, history, max_turns=max_turns, run_config=config, error_handlers={"max_turns": _backstop}
        )
        while result.interruptions:  # write tools wait for the operator's approval
            state = result.to_state()
            for item in result.interruptions:
                if await session.gateway.approve(item.name or "", item.arguments):
                    state.approve(item)
                else:
                    refusal = await session.gateway.call(item.call_id or "", item.name or "", item.arguments)
                    state.reject(item, rejection_message=refusal.content)
            result = await Runner.run(
                agent, state, max_turns=max_turns, run_config=config, error_handlers={"max_turns": _backstop}
            )
    except StopForSummary:
        raise
    except OpenAIError as error:
        session.check_wire()
        raise endpoint_error(error, session.config, str(session.model.base_url)) from error
    except (AgentsException, TypeError, AttributeError, KeyError, ValueError) as error:
        # The SDK fails on an unusable completion in its own ways; the wire says what was wrong.
        session.check_wire()
        cause = error.__cause__
        if isinstance(cause, OpenAIError):
            raise endpoint_error(cause, session.config, str(session.model.base_url)) from error
        if isinstance(error, ModelBehaviorError):
            raise MalformedResponseError(f"the model endpoint sent an unusable response: {error}") from error
        raise
    session.check_wire()
    return result


def _backstop(data: RunErrorHandlerInput[Any]) -> RunErrorHandlerResult:
    """max_turns exceeded: not a crash, the same forced summary as any spent budget."""
    return RunErrorHandlerResult(final_output=FORCE_SUMMARY, include_in_history=False)
