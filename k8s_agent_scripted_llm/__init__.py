"""An OpenAI-compatible scripted model server for tests, comparisons and the offline model.

The server and the scripts need the standard library alone: `probe --versions` runs them in
environments that hold only an SDK and its dependencies. The offline model (which reads YAML) is
imported on first use of `offline_model` or `responder_for`, never by `import k8s_agent_scripted_llm`.
"""

from typing import TYPE_CHECKING, Any

from k8s_agent_scripted_llm.script import (
    Delay,
    HttpError,
    Malformed,
    Recorded,
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

if TYPE_CHECKING:
    from k8s_agent_scripted_llm.playbook import offline_model


def responder_for(model: str) -> Responder:
    """The embedded model of that name: the offline playbook, or a baseline (`baseline:parrot`,
    `baseline:status`, `baseline:rules`)."""
    from k8s_agent_scripted_llm.baselines import RESPONDERS
    from k8s_agent_scripted_llm.playbook import offline_model

    return RESPONDERS.get(model, offline_model)


def __getattr__(name: str) -> Any:
    """`offline_model`, imported when first asked for (it needs PyYAML; the server does not)."""
    if name == "offline_model":
        from k8s_agent_scripted_llm.playbook import offline_model

        return offline_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Delay",
    "HttpError",
    "Malformed",
    "Recorded",
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
