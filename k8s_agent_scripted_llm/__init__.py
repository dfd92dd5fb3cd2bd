"""An OpenAI-compatible scripted model server for tests, comparisons and the offline model."""

from k8s_agent_scripted_llm.offline import offline_model
from k8s_agent_scripted_llm.script import (
    Delay,
    HttpError,
    Malformed,
    Reply,
    Step,
    ToolCall,
    call,
    calls,
    delay,
    error,
    hang,
    malformed,
    raw_call,
    raw_tool,
    text,
    tool,
)
from k8s_agent_scripted_llm.server import Responder, ScriptedModelServer


def responder_for(model: str) -> Responder:
    """The embedded model of that name: the offline playbook, or a baseline (`baseline:parrot`,
    `baseline:status`)."""
    from k8s_agent_scripted_llm.baselines import RESPONDERS

    return RESPONDERS.get(model, offline_model)


__all__ = [
    "Delay",
    "HttpError",
    "Malformed",
    "Reply",
    "ScriptedModelServer",
    "Step",
    "ToolCall",
    "call",
    "calls",
    "delay",
    "error",
    "hang",
    "malformed",
    "offline_model",
    "raw_call",
    "raw_tool",
    "responder_for",
    "text",
    "tool",
]
