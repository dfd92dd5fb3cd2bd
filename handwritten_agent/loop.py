"""The hand-written agent: one plain loop over Chat Completions, guarded by the shared harness.

Read it top to bottom: ask the model (tools forced on the first turn only; the report's JSON
Schema as `response_format` on every request in json_schema mode), run every proposed tool call
through the gateway and answer each call id, let the review policy accept each text answer or
push back on it, and when a budget is spent (steps, repeats, time) ask once more without tools
for the summary (a structured summary gets its one correction turn, also without tools).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall

from k8s_agent_harness import prompts
from k8s_agent_harness.config import Config
from k8s_agent_harness.context import compact_chat
from k8s_agent_harness.errors import MalformedResponseError
from k8s_agent_harness.findings import response_format
from k8s_agent_harness.model_client import endpoint_error
from k8s_agent_harness.review import Accept, PushBack
from k8s_agent_harness.session import RunResult, Session, open_session
from k8s_agent_harness.vocabulary import Impl, ReportFormat

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
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompts.system_prompt(session.structured)},
        {"role": "user", "content": session.question},
    ]
    supervisor = session.supervisor

    while (reason := supervisor.stop_reason()) is None:
        tool_choice = "required" if supervisor.turns == 0 else "auto"  # C1: force the first step only
        supervisor.turn_taken()
        tools = session.gateway.openai_tools()  # the search tool joins once a result is stored
        reply = await ask_model(session, messages, tools, tool_choice)

        if reply.tool_calls:
            messages.append(_assistant_message(reply))
            for call in reply.tool_calls:  # C10: every call id gets exactly one tool message
                outcome = await session.gateway.call(call.id, call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
            continue

        answer = reply.content or ""
        verdict = session.review(answer)  # C2, C5, C11, C12
        if isinstance(verdict, PushBack):
            _push_back(messages, answer, verdict)
            continue
        return verdict

    # C4, C7: one request without tools asks for the summary.
    session.recorder.force_summary(reason)
    messages.append({"role": "user", "content": prompts.summary_instruction(reason, session.structured)})
    reply = await ask_model(session, messages, tools=None, tool_choice=None)
    summary = reply.content or ("" if session.structured else prompts.no_report(reason))
    verdict = session.review_summary(summary)  # C11, C12: one tool-less correction turn
    if isinstance(verdict, PushBack):
        _push_back(messages, summary, verdict)
        reply = await ask_model(session, messages, tools=None, tool_choice=None)
        verdict = session.review_summary(reply.content or "")
    assert isinstance(verdict, Accept)  # the correction is spent: the second report is accepted
    return verdict


def _push_back(messages: list[dict[str, Any]], answer: str, verdict: PushBack) -> None:
    if answer:  # an empty answer says nothing worth keeping in the conversation
        messages.append({"role": "assistant", "content": answer})
    messages.append({"role": "user", "content": verdict.message})


@dataclass(frozen=True)
class AssistantMessage:
    """What the model said in one turn: text, tool calls, or both."""

    content: str | None
    tool_calls: list[ChatCompletionMessageFunctionToolCall]


async def ask_model(
    session: Session,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    tool_choice: str | None,
) -> AssistantMessage:
    """One chat-completions request, its history compacted to the context budget; endpoint failures
    and malformed answers end the run."""
    schema = response_format() if session.config.report_mode is ReportFormat.JSON_SCHEMA else None
    extra = len(json.dumps(schema)) if schema else 0
    wire = compact_chat(messages, tools, session.gateway.store, session.gateway.budget, extra)
    request: dict[str, Any] = {"model": session.config.model, "messages": wire}
    if tools is not None:
        request["tools"] = tools
        request["tool_choice"] = tool_choice
    if schema is not None:  # C11: on every request, as the SDK sends it for its output type
        request["response_format"] = schema
    try:
        completion: ChatCompletion = await session.model.chat.completions.create(**request)
    except openai.OpenAIError as error:
        session.check_wire()
        raise endpoint_error(error, session.config, str(session.model.base_url)) from error
    session.check_wire()  # no choices, or a tool call without id, function or name
    message = completion.choices[0].message
    calls = [
        call for call in message.tool_calls or [] if isinstance(call, ChatCompletionMessageFunctionToolCall)
    ]
    if len(calls) != len(message.tool_calls or []):
        raise MalformedResponseError("the model endpoint sent a tool call that is not a function call")
    return AssistantMessage(message.content, calls)


def _assistant_message(reply: AssistantMessage) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant"}
    if reply.content:  # "content": null costs the client's request transform a union walk per message
        message["content"] = reply.content
    return message | {
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in reply.tool_calls
        ],
    }
