"""A scripted model for probes: the scripted server, an OpenAI client on it, and wire readers.

Every probe runs on both wires: Chat Completions (`OpenAIChatCompletionsModel`) and the Responses
API (`OpenAIResponsesModel`, the SDK's default), against the same scripted server and the same
script. `Scripted.requests` reads every request body as its Chat Completions equivalent (a
Responses body is translated by the scripted server's own adapter), so one probe reads either wire
and its observations compare behaviour, not bytes; `Scripted.raw_requests` keeps the bodies as
sent. The client gets a dummy key and loopback URL, and every run disables tracing, so nothing
leaves the machine.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from k8s_agent_scripted_llm import ScriptedModelServer, Step
from k8s_agent_scripted_llm.responses_api import chat_request
from poc.words import ABSENT, one_line

if TYPE_CHECKING:
    from agents import Model, RunConfig

DUMMY_API_KEY = "sk-probe-dummy-not-a-key"
CLIENT_TIMEOUT_SECONDS = 10.0

Wire = Literal["chat", "responses"]
WIRES: tuple[Wire, ...] = ("chat", "responses")
"""Chat Completions (`OpenAIChatCompletionsModel`) and the Responses API (`OpenAIResponsesModel`)."""


@dataclass
class Scripted:
    """One scripted run: `model` for the Agent, `requests` for the wire."""

    server: ScriptedModelServer
    model: Model
    client: Any
    """The AsyncOpenAI client behind `model`, for probes that build a model of their own."""
    wire: Wire = "chat"
    model_class: Any = None
    """The SDK model class of this wire, for probes that subclass it."""

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Request bodies received so far, each read as a Chat Completions body (a copy)."""
        return [chat_request(body) for body in self.server.requests]

    @property
    def raw_requests(self) -> list[dict[str, Any]]:
        """Request bodies received so far, as sent on this run's wire (a copy)."""
        return list(self.server.requests)


class ScriptedModels:
    """A scripted server shared by every run of one probe.

    Each `play()` loads a new script into the same server, so a probe with five runs starts one
    server, not five.
    """

    def __init__(self, wire: Wire = "chat") -> None:
        self._server = ScriptedModelServer()
        self.wire: Wire = wire

    def __enter__(self) -> ScriptedModels:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()

    @asynccontextmanager
    async def play(self, steps: Iterable[Step], *, max_retries: int = 0) -> AsyncIterator[Scripted]:
        """Serve `steps` and yield a model of this wire pointed at them."""
        from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel
        from openai import AsyncOpenAI

        self._server.reset(steps)
        client = AsyncOpenAI(
            base_url=self._server.url,
            api_key=DUMMY_API_KEY,
            max_retries=max_retries,
            timeout=CLIENT_TIMEOUT_SECONDS,
        )
        model_class: Any = OpenAIResponsesModel if self.wire == "responses" else OpenAIChatCompletionsModel
        try:
            yield Scripted(
                self._server,
                model_class(model="scripted", openai_client=client),
                client,
                self.wire,
                model_class,
            )
        finally:
            await client.close()


def run_config(**settings: Any) -> RunConfig:
    """A RunConfig with tracing disabled (never upload) and the given fields."""
    from agents import RunConfig

    return RunConfig(tracing_disabled=True, **settings)


def has_field(cls: type, name: str) -> bool:
    """Whether a dataclass (RunConfig, Agent, FunctionTool, ...) declares a field `name`."""
    fields = getattr(cls, "__dataclass_fields__", {})
    return name in fields


def tool_choice(body: dict[str, Any]) -> Any:
    """The raw `tool_choice` of a request body, or "absent"."""
    return body.get("tool_choice", ABSENT)


def tools_field(body: dict[str, Any]) -> Any:
    """The tool names a request offers, or "absent" when the body has no `tools` field."""
    if "tools" not in body:
        return ABSENT
    return [t.get("function", {}).get("name") for t in body["tools"] or []]


def roles(body: dict[str, Any]) -> list[str]:
    """The roles of a request's messages, in order."""
    return [str(m.get("role")) for m in body.get("messages") or []]


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool messages of a request, in order: tool_call_id and content."""
    return [
        {"tool_call_id": m.get("tool_call_id"), "content": m.get("content")}
        for m in body.get("messages") or []
        if m.get("role") == "tool"
    ]


def tool_message_contents(body: dict[str, Any]) -> list[Any]:
    """Just the contents of a request's tool messages."""
    return [m["content"] for m in tool_messages(body)]


def assistant_calls(body: dict[str, Any]) -> list[str]:
    """Every tool call of the assistant messages of a request, in order: "id name arguments"."""
    return [
        f"{call.get('id')} {call.get('function', {}).get('name')} {call.get('function', {}).get('arguments')}"
        for m in body.get("messages") or []
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    ]


_UNSTABLE = (
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "0x…"),
)


def error_text(error: BaseException, limit: int = 300) -> str:
    """`Type: message`, with ports and object addresses masked so it can be pinned."""
    text = f"{type(error).__name__}: {error}"
    for pattern, replacement in _UNSTABLE:
        text = pattern.sub(replacement, text)
    return one_line(text, limit)


def expected_errors() -> tuple[type[Exception], ...]:
    """The exceptions a probe expects as observations: the SDK's and the openai client's."""
    from agents import AgentsException
    from openai import OpenAIError

    return (AgentsException, OpenAIError)
