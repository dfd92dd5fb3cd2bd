"""The hand-written agent: one plain loop over Chat Completions, guarded by the shared harness.

Read it top to bottom: ask the model (tools forced on the first turn only), run every proposed
tool call through the gateway and answer each call id, push back once on an answer given without
tools and once on an answer naming things no tool returned, and when a budget is spent (steps,
repeats, time) ask once more without tools for the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall

from harness import prompts
from harness.config import Config
from harness.errors import MalformedResponseError
from harness.grounding import invented_names
from harness.model_client import endpoint_error
from harness.session import Run, RunResult, open_run

IMPL = "handwritten"


async def run(config: Config, question: str, **options: Any) -> RunResult:
    """Investigate `question` on the configured cluster and return the report.

    Options go to `harness.session.open_run`: observer, approver, secrets, mcp.
    """
    async with open_run(config, IMPL, question, **options) as session:
        answer = await investigate(session)
        return session.finish(answer)


async def investigate(run: Run) -> str:
    """The loop: turns until the model answers acceptably or a budget ends it."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompts.SYSTEM_PROMPT},
        {"role": "user", "content": run.question},
    ]
    tools = run.gateway.openai_tools()
    supervisor = run.supervisor
    pushed_back: set[str] = set()

    while (reason := supervisor.stop_reason()) is None:
        tool_choice = "required" if supervisor.turns == 0 else "auto"  # C1: force the first step only
        supervisor.turn_taken()
        reply = await ask_model(run, messages, tools, tool_choice)

        if reply.tool_calls:
            messages.append(_assistant_message(reply))
            for call in reply.tool_calls:  # C10: every call id gets exactly one tool message
                outcome = await run.gateway.call(call.id, call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
            continue

        answer = reply.content or ""
        if run.recorder.stats.tool_calls_executed == 0 and "zero_tool" not in pushed_back:  # C2
            pushed_back.add("zero_tool")
            _push_back(run, messages, answer, prompts.ZERO_TOOL_PUSHBACK, "zero_tool")
            continue
        invented = invented_names(answer, run.evidence)
        if invented and "evidence" not in pushed_back:  # C5
            pushed_back.add("evidence")
            _push_back(run, messages, answer, prompts.evidence_pushback(invented), "evidence", names=invented)
            continue
        return answer

    # C4, C7: one request without tools asks for the summary.
    run.recorder.force_summary(reason)
    messages.append({"role": "user", "content": prompts.summary_instruction(reason)})
    reply = await ask_model(run, messages, tools=None, tool_choice=None)
    return reply.content or prompts.no_report(reason)


@dataclass(frozen=True)
class Reply:
    """What the model said in one turn."""

    content: str | None
    tool_calls: list[ChatCompletionMessageFunctionToolCall]


async def ask_model(
    run: Run, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, tool_choice: str | None
) -> Reply:
    """One chat-completions request; endpoint failures and malformed answers end the run."""
    request: dict[str, Any] = {"model": run.config.model, "messages": messages}
    if tools is not None:
        request["tools"] = tools
        request["tool_choice"] = tool_choice
    try:
        completion: ChatCompletion = await run.model.chat.completions.create(**request)
    except openai.OpenAIError as error:
        run.check_wire()
        raise endpoint_error(error, run.config, str(run.model.base_url)) from error
    run.check_wire()  # no choices, or a tool call without id, function or name
    message = completion.choices[0].message
    calls = [
        call for call in message.tool_calls or [] if isinstance(call, ChatCompletionMessageFunctionToolCall)
    ]
    if len(calls) != len(message.tool_calls or []):
        raise MalformedResponseError("the model endpoint sent a tool call that is not a function call")
    return Reply(message.content, calls)


def _assistant_message(reply: Reply) -> dict[str, Any]:
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


def _push_back(
    run: Run, messages: list[dict[str, Any]], answer: str, pushback: str, kind: str, **detail: Any
) -> None:
    run.supervisor.pushback_given()
    run.recorder.guardrail(kind, message=pushback, **detail)
    if answer:  # an empty answer says nothing worth keeping in the conversation
        messages.append({"role": "assistant", "content": answer})
    messages.append({"role": "user", "content": pushback})
