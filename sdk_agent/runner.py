"""The SDK port: the same agent on the OpenAI Agents SDK, driven by `Runner` plus an outer loop.

The SDK runs the inner loop (model turn, tool calls, next turn). Around it:
- the first run forces a tool (`ModelSettings(tool_choice="required")`; the SDK's
  `reset_tool_choice` drops the field after the first tool use);
- the gateway answers every tool call, and `RunConfig.tool_error_formatter` answers unknown
  tools with the same whitelist message (`tool_not_found_behavior="return_error_to_model"`);
- the agent's tools are the gateway's at the start of every turn (`tools.GatewayAgent`), so a
  server that changes its tool list is seen as the hand-written loop sees it;
- budgets end a run with the FORCE_SUMMARY sentinel (behavior.py), then one tool-less run of a
  clone of the agent writes the summary;
- the outer loop hands each answer to the shared review policy and re-runs `Runner` once per
  pushback with the remaining step budget, without forcing tools again;
- `max_turns` stays a hard backstop, turned into the sentinel by `error_handlers`;
- a reply the provider could not parse as a tool call stops the run (model.py); the outer loop
  tells the model, as the hand-written loop does (C8), and re-runs from the last call's history;
- the structured report (json_schema mode) is the agent's output type, `AgentOutputSchema(HealthReport,
  strict_json_schema=False)`, so the SDK sends its schema as `response_format`; an answer the SDK
  cannot validate becomes a placeholder (`error_handlers["invalid_final_output"]`), and the shared
  review reads the model's own text either way (C11, C12), as the hand-written loop does.
"""

from __future__ import annotations

from typing import Any

from agents import (
    Agent,
    AgentOutputSchema,
    ItemHelpers,
    ModelSettings,
    RunConfig,
    RunErrorHandlerInput,
    RunErrorHandlerResult,
    Runner,
    ToolExecutionConfig,
)
from agents.exceptions import AgentsException, ModelBehaviorError
from agents.items import MessageOutputItem
from openai import OpenAIError

from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import MalformedResponseError
from k8s_agent_harness.evidence.report import HealthReport
from k8s_agent_harness.guards.review import Accept, PushBack
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.client import endpoint_error
from k8s_agent_harness.session import RunResult, Session, open_session
from k8s_agent_harness.traces import otel
from k8s_agent_harness.vocabulary import Impl, ReportFormat, StopReason
from sdk_agent import tracing
from sdk_agent.behavior import (
    FORCE_SUMMARY,
    UNREAD_REPORT,
    StopForSummary,
    is_force_summary,
    placeholder_report,
    summary_behavior,
)
from sdk_agent.model import ModelCallUnparsable, sdk_model
from sdk_agent.model_input import compact_items, in_call_order, supervise_model_calls
from sdk_agent.tools import GatewayAgent, ToolShelf, error_formatter

IMPL = Impl.SDK


async def ask(config: Config, question: str, **options: Any) -> RunResult:
    """Investigate `question` on the configured cluster and return the report.

    Options go to `k8s_agent_harness.session.open_session`: observer, approver, secrets, mcp.
    """
    # Our JSONL trace is written at the wire and by the gateway; the SDK's own processor would
    # upload its traces to OpenAI: ours replaces it, and bridges them into the run's spans.
    tracing.install(exporting=otel.active() is not None)
    async with open_session(config, IMPL, question, **options) as session:
        builder = session.recorder.spans
        if builder is not None:
            tracing.BRIDGE.attach(session.recorder.run_id, builder)
        try:
            answer = await investigate(session)
        finally:
            tracing.BRIDGE.detach(session.recorder.run_id)
        return session.finish(answer)


def _tracing(session: Session) -> dict[str, Any]:
    """The RunConfig fields of the SDK's tracing: on only while the run's spans are exported, its
    traces grouped under the run's id (tracing.py), never with the run's texts."""
    return {
        "tracing_disabled": session.recorder.spans is None,
        "trace_include_sensitive_data": False,
        "workflow_name": "k8s-agent",
        "group_id": session.recorder.run_id,
    }


def output_type(session: Session) -> Any:
    """The agent's output type: the report's schema in json_schema mode (non-strict: the schema has
    optional fields and defaults), text otherwise (json_text is parsed by the harness)."""
    if session.config.report_mode is ReportFormat.JSON_SCHEMA:
        return AgentOutputSchema(HealthReport, strict_json_schema=False)
    return str


async def investigate(session: Session) -> Accept:
    """The outer loop around `Runner.run`: pushbacks, forced summary, failures."""
    supervisor = session.supervisor
    shelf = ToolShelf(session.gateway, session.call_tool)
    agent: Agent[Any] = GatewayAgent(
        name="k8s-sre",
        instructions=prompts.system_prompt(session.structured),
        model=sdk_model(session.config.api, session.config.model, session.model, session.wire),
        tools=shelf.current(),
        shelf=shelf,
        model_settings=ModelSettings(tool_choice="required"),  # C1: the first run only
        tool_use_behavior=summary_behavior(supervisor),
        output_type=output_type(session),
    )
    run_config = RunConfig(
        **_tracing(session),
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=error_formatter(session.call_tool, session.wire),
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1),  # calls in order, as proposed
        call_model_input_filter=(
            checkpoint := supervise_model_calls(supervisor, session.gateway, session.report_bytes)
        ),
    )
    history: list[Any] = [{"role": "user", "content": session.question}]

    while True:
        try:
            result = await _run_sdk(session, agent, history, run_config, max_turns=supervisor.turns_left + 1)
        except StopForSummary as stop:
            return await summarize(session, agent, stop.history, stop.reason)
        except ModelCallUnparsable as error:  # C8: the provider could not parse the model's tool call
            told = session.unparsable_call()
            if told is None:
                raise AssertionError("an unparsable call the wire did not see") from error
            history = [*checkpoint.items, {"role": "user", "content": told}]
            agent = agent.clone(model_settings=ModelSettings())  # the run goes on: no forcing again (C1)
            continue
        history = result.to_input_list()
        if is_force_summary(result.final_output):
            reason = supervisor.stop_reason() or StopReason.STEP_BUDGET
            return await summarize(session, agent, history, reason)

        # Re-runs continue the conversation: they must not force a tool again (C1).
        agent = agent.clone(model_settings=ModelSettings())
        verdict = session.review(answer_text(result))  # C2, C5, C11, C12
        if isinstance(verdict, PushBack):
            history.append({"role": "user", "content": verdict.message})
            continue
        return verdict


async def summarize(session: Session, agent: Agent[Any], history: list[Any], reason: StopReason) -> Accept:
    """C4, C7: one tool-less run of a clone of the agent over the history plus the instruction
    (and, for a structured report that does not check out, one more with the correction)."""
    session.recorder.force_summary(reason)
    writer = agent.clone(
        tools=[], model_settings=ModelSettings(), tool_use_behavior="run_llm_again", shelf=None
    )
    instruction = {"role": "user", "content": prompts.summary_instruction(reason, session.structured)}
    config = RunConfig(**_tracing(session), tool_not_found_behavior="return_error_to_model")
    items = [*in_call_order(history), instruction]
    answer, written = await _write_summary(session, writer, items, config)
    if not answer and not session.structured:
        answer = prompts.no_report(reason)
    verdict = session.review_summary(answer)  # C11, C12: one tool-less correction turn
    if isinstance(verdict, PushBack):
        items = [*items, *written, {"role": "user", "content": verdict.message}]
        answer, _ = await _write_summary(session, writer, items, config)
        verdict = session.review_summary(answer)
    assert isinstance(verdict, Accept)  # the correction is spent: the second report is accepted
    return verdict


async def _write_summary(
    session: Session, writer: Agent[Any], items: list[Any], config: RunConfig
) -> tuple[str, list[Any]]:
    """One tool-less turn: the answer's text and the items it added to the conversation."""
    # No input filter on this run: compact the history here (see model_input.py).
    gateway = session.gateway
    summary_input = compact_items(
        items,
        writer.instructions,  # type: ignore[arg-type]
        [],
        gateway.store,
        gateway.budget,
        session.report_bytes,
    )
    try:
        result = await _run_sdk(session, writer, summary_input, config, max_turns=1)
    except ModelCallUnparsable as error:  # no tool was offered: the endpoint's error ends the run
        cause = error.__cause__ if isinstance(error.__cause__, OpenAIError) else error
        raise endpoint_error(cause, session.config, str(session.model.base_url)) from error
    if is_force_summary(result.final_output):
        return "", []
    return answer_text(result), [item.to_input_item() for item in result.new_items]


def answer_text(result: Any) -> str:
    """The text of the model's last message in a run: what the review reads, whatever the SDK made of
    it (the text of a str output, the JSON behind a parsed report, an answer it could not parse)."""
    if isinstance(result.final_output, str):
        return result.final_output
    messages = [item for item in result.new_items if isinstance(item, MessageOutputItem)]
    if messages:
        return ItemHelpers.text_message_output(messages[-1])
    for response in reversed(result.raw_responses):  # a handler kept the answer out of the history
        text = ItemHelpers.text_message_outputs(
            [
                MessageOutputItem(agent=result.last_agent, raw_item=raw)
                for raw in response.output
                if raw.type == "message"
            ]
        )
        if text:
            return text
    return ""


async def _run_sdk(
    session: Session, agent: Agent[Any], history: list[Any], config: RunConfig, *, max_turns: int
) -> Any:
    """`Runner.run` with the run's failures translated: endpoint errors end the run, max_turns does not."""
    try:
        result = await Runner.run(
            agent, history, max_turns=max_turns, run_config=config, error_handlers=HANDLERS
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
                agent, state, max_turns=max_turns, run_config=config, error_handlers=HANDLERS
            )
    except (StopForSummary, ModelCallUnparsable):
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
    structured = not isinstance(data.run_data.last_agent.output_type, type)  # AgentOutputSchema
    output = placeholder_report(FORCE_SUMMARY) if structured else FORCE_SUMMARY
    return RunErrorHandlerResult(final_output=output, include_in_history=False)


def _unread(data: RunErrorHandlerInput[Any]) -> RunErrorHandlerResult:
    """An answer the output type does not validate (or no text at all): the placeholder, so that the
    shared review reads the model's text and asks for the correction (C11)."""
    return RunErrorHandlerResult(final_output=placeholder_report(UNREAD_REPORT), include_in_history=False)


HANDLERS: Any = {"max_turns": _backstop, "invalid_final_output": _unread}
