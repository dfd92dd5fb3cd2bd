"""The hand-written agent: one plain loop over the model API, guarded by the shared harness.

Read it top to bottom: ask the model (tools forced on the first turn only; the report's JSON
Schema on every request in json_schema mode), run every proposed tool call through the gateway and
answer each call id, let the review policy accept each text answer or push back on it, and when a
budget is spent (steps, repeats, time) ask once more without tools for the summary (a structured
summary gets its one correction turn, also without tools). A reply the provider could not parse as
a tool call is told to the model, like arguments that are not JSON (C8), and the loop goes on.

The conversation is the harness's provider-neutral one (conversation.py); `ask_model` writes it on
the run's wire: Chat Completions messages (`--api chat`) or Responses API input items
(`--api responses`, the OpenAI Agents SDK's default wire), and takes the reply as the model client
read it at the wire (with what the provider added to it, sent back as it came).
"""

from __future__ import annotations

from typing import Any

import openai

from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import ModelEndpointError
from k8s_agent_harness.guards.review import Accept, PushBack
from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.client import endpoint_error
from k8s_agent_harness.model.conversation import Call, Conversation, ModelTurn, Opaque, Part, Said
from k8s_agent_harness.session import RunResult, Session, open_session
from k8s_agent_harness.vocabulary import Impl

IMPL = Impl.HANDWRITTEN


async def ask(config: Config, question: str, **options: Any) -> RunResult:
    """Investigate `question` on the configured cluster and return the report.

    Options go to `k8s_agent_harness.session.open_session`: observer, approver, secrets, mcp.
    """
    async with open_session(config, IMPL, question, **options) as session:
        answer = await investigate(session)
        return session.finish(answer)


async def investigate(session: Session) -> Accept:
    """The loop: turns until the model answers acceptably or a budget ends it."""
    conversation = Conversation(prompts.system_prompt(session.structured))
    conversation.user(session.question)
    supervisor = session.supervisor

    while (reason := supervisor.stop_reason()) is None:
        tool_choice = "required" if supervisor.turns == 0 else "auto"  # C1: force the first step only
        supervisor.turn_taken()
        await session.gateway.refresh()  # a tool list the server changed: the new one from this request
        tools = session.gateway.openai_tools()  # the search tool joins once a result is stored
        reply = await investigation_turn(session, conversation, tools, tool_choice)
        if isinstance(reply, str):  # C8: the provider could not parse the model's tool call
            conversation.user(reply)
            continue
        conversation.model_said(reply)

        if reply.calls:
            for call in reply.calls:  # C10: every call id gets exactly one answer, in order
                answer = await session.call_tool(call.call_id, call.name, call.arguments)
                conversation.result(call.call_id, answer)
            continue

        verdict = session.review(reply.text)  # C2, C5, C11, C12
        if isinstance(verdict, PushBack):
            conversation.user(verdict.message)
            continue
        return verdict

    # C4, C7: one request without tools asks for the summary.
    session.recorder.force_summary(reason)
    conversation.user(prompts.summary_instruction(reason, session.structured))
    reply = await ask_model(session, conversation, tools=None, tool_choice=None)
    summary = reply.text or ("" if session.structured else prompts.no_report(reason))
    verdict = session.review_summary(summary)  # C11, C12: one tool-less correction turn
    if isinstance(verdict, PushBack):
        # Only its text: a tool call proposed where no tool was offered is not part of the conversation.
        conversation.model_said(
            ModelTurn(tuple(part for part in reply.parts if isinstance(part, Said) and part.text))
        )
        conversation.user(verdict.message)
        reply = await ask_model(session, conversation, tools=None, tool_choice=None)
        verdict = session.review_summary(reply.text)
    assert isinstance(verdict, Accept)  # the correction is spent: the second report is accepted
    return verdict


async def investigation_turn(
    session: Session,
    conversation: Conversation,
    tools: list[dict[str, Any]],
    tool_choice: str,
) -> ModelTurn | str:
    """One request that offers tools: the model's turn, or, when the provider could not parse the
    tool call the model produced, the message that tells the model so."""
    try:
        return await ask_model(session, conversation, tools, tool_choice)
    except ModelEndpointError:
        told = session.unparsable_call()
        if told is None:
            raise
        return told


async def ask_model(
    session: Session,
    conversation: Conversation,
    tools: list[dict[str, Any]] | None,
    tool_choice: str | None,
) -> ModelTurn:
    """One request on the run's wire, the conversation compacted to the context budget; endpoint
    failures and malformed answers end the run."""
    report = session.report_fields  # C11: on every request, as the SDK sends it for its output type
    gateway = session.gateway
    sent = conversation.compacted(tools, gateway.store, gateway.budget, session.report_bytes)
    responses = session.config.api == "responses"
    try:
        if responses:
            return await _ask_responses(session, sent, tools, tool_choice, report)
        return await _ask_chat(session, sent, tools, tool_choice, report)
    except openai.OpenAIError as error:
        session.check_wire()
        raise endpoint_error(error, session.config, str(session.model.base_url)) from error
    except ValueError:  # a 200 whose body is not JSON: the wire says what it was
        session.check_wire()
        raise


async def _ask_chat(
    session: Session,
    sent: Conversation,
    tools: list[dict[str, Any]] | None,
    tool_choice: str | None,
    report: dict[str, Any],
) -> ModelTurn:
    request: dict[str, Any] = {"model": session.config.model, "messages": sent.chat_messages()}
    if tools is not None:
        request["tools"] = tools
        request["tool_choice"] = tool_choice
    await session.model.chat.completions.create(**request, **report)
    session.check_wire()  # the endpoint's error, no choices, a tool call without function or name
    reply = session.wire.reply  # text, calls and the provider's own fields, as the wire read them
    assert reply is not None
    return reply


async def _ask_responses(
    session: Session,
    sent: Conversation,
    tools: list[dict[str, Any]] | None,
    tool_choice: str | None,
    report: dict[str, Any],
) -> ModelTurn:
    request: dict[str, Any] = {
        "model": session.config.model,
        "instructions": sent.instructions,
        "input": sent.input_items(),
    }
    if tools is not None:
        request["tools"] = [responses_tool(tool) for tool in tools]
        request["tool_choice"] = tool_choice
    response = await session.model.responses.create(**request, **report)
    session.check_wire()  # a failed response, or a function call without call_id or name
    parts: list[Part] = []
    for item in response.output:
        raw = item.model_dump(exclude_unset=True, mode="json")  # sent back as it came, but for
        if (
            raw.get("status", "") is None
        ):  # a null status, which no input item may carry (the SDK drops it too)
            del raw["status"]
        if item.type == "function_call":
            parts.append(Call(item.call_id, item.name, item.arguments, raw))
        elif item.type == "message":
            text = "".join(part.text for part in item.content if part.type == "output_text")
            parts.append(Said(text, raw))
        else:  # reasoning and the rest: carried to the next request, never read
            parts.append(Opaque(raw))
    return ModelTurn(tuple(parts))


def responses_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions function tool in the Responses API's form (as the SDK writes a
    non-strict function tool)."""
    function = tool["function"]
    return {
        "name": function["name"],
        "parameters": function["parameters"],
        "strict": False,
        "type": "function",
        "description": function.get("description"),
    }
