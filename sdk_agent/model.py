"""The SDK's models for both wires, with what the SDK needs for some endpoints.

- Unique tool-call ids. Some OpenAI-compatible servers number tool calls `call_0`, `call_1`, ...
  afresh in every response. The SDK (0.24.0, probe `reused_ids`) silently drops a call whose id
  it has seen with the same arguments, and fails the run when the arguments differ. The model
  client renames every id the run has already used before either agent sees it
  (provider_wire.repair), so the SDK's history (and what it sends back) stays consistent and every
  call reaches the gateway; the SDK's models here add nothing to that.
- A malformed answer, or a 200 that carries the endpoint's error, ends the run (the SDK would go
  on with what it made of it); a provider's report that it could not parse the model's tool call
  stops the run for the runner to tell the model (`ModelCallUnparsable`).
- On the Chat Completions wire, what a provider adds to an assistant message (DeepSeek's
  `reasoning_content`, OpenRouter's `reasoning_details`, Gemini's `extra_content`, Mistral's content
  chunks) must go back as it came. The SDK's converter keeps some of it by model-name heuristics
  (`reasoning_content` for a model named `deepseek...`, a Gemini thought signature for `gemini...`)
  and drops the rest, so the port carries the reply's provider fields on the SDK's items (as the
  harness's conversation reads it at the wire) and writes its Chat messages from the harness's
  conversation model: the client it gives the SDK puts those messages on the request the SDK
  builds (and leaves out the SDK's `strict: false` in tool definitions, the default, which some
  OpenAI-compatible endpoints refuse, and the `store: true` it adds at api.openai.com, which
  would keep every completion there). Both agents then send the same request.
"""

from __future__ import annotations

from typing import Any

import openai
from agents import Model, ModelResponse, OpenAIChatCompletionsModel, OpenAIResponsesModel
from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

from k8s_agent_harness.model.client import WireState
from k8s_agent_harness.model.conversation import CHAT_CALL_FIELDS, CHAT_MESSAGE_FIELDS, Conversation


class ModelCallUnparsable(Exception):
    """The provider could not parse the tool call the model produced (the wire says what it said)."""


class WireChecked:
    """A model mixin that ends the run on what the wire found wrong with an answer."""

    def __init__(self, *args: Any, wire: WireState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wire = wire

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The inner response, its items as the run keeps them."""
        try:
            response: ModelResponse = await super().get_response(*args, **kwargs)  # type: ignore[misc]
        except openai.APIStatusError as error:
            if self._wire.unparsable is not None:
                raise ModelCallUnparsable(str(error)) from error
            raise
        except ValueError:  # a 200 whose body is not JSON: the wire says what it was
            self._wire.check()
            raise
        self._wire.check()  # a malformed answer or the endpoint's error ends the run
        response.output = self._answered(response.output)
        return response

    def _answered(self, output: list[Any]) -> list[Any]:
        """The response's items as the run keeps them (the Chat model adds the provider's fields)."""
        return output


class ConversationChatModel(WireChecked, OpenAIChatCompletionsModel):
    """The SDK's Chat Completions model, its messages written by the harness's conversation model
    and the provider's fields of each reply kept on its items."""

    def __init__(self, *, model: str, openai_client: Any, wire: WireState) -> None:
        self._messages: list[dict[str, Any]] | None = None
        super().__init__(model=model, openai_client=_WritesMessages(openai_client, self), wire=wire)

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        """The SDK's request, its messages written from the conversation its input items say."""
        items = [input] if isinstance(input, str) else list(input)
        self._messages = Conversation.from_items(_as_items(items), system_instructions).chat_messages()
        if not system_instructions:
            self._messages = self._messages[1:]
        try:
            return await super().get_response(system_instructions, input, *args, **kwargs)
        finally:
            self._messages = None

    def _answered(self, output: list[Any]) -> list[Any]:
        """The reply's provider fields on its items: the message's on the first, each call's on its
        item. The SDK's own reasoning item (made of `reasoning_content` or `reasoning`) goes: the
        provider fields carry them as they came."""
        reply = self._wire.reply
        if reply is None:
            return output
        kept = [item for item in output if not isinstance(item, ResponseReasoningItem)] or output
        calls = iter(reply.calls)
        carried = []
        for slot, item in enumerate(kept):
            fields: dict[str, Any] = {}
            if slot == 0 and reply.provider:
                fields[CHAT_MESSAGE_FIELDS] = reply.provider
            if isinstance(item, ResponseFunctionToolCall):
                call = next(calls, None)
                if call is not None and call.provider:
                    fields[CHAT_CALL_FIELDS] = call.provider
            carried.append(_with_extra(item, fields) if fields else item)
        return carried


def _with_extra(item: Any, fields: dict[str, Any]) -> Any:
    """A copy of an SDK output item with extra fields (kept by its `to_input_item()`)."""
    return type(item).model_validate({**item.model_dump(exclude_unset=True), **fields})


def _as_items(items: list[Any]) -> list[Any]:
    """Input items as dicts (the SDK may hand its own output items over as models)."""
    return [item.model_dump(exclude_unset=True) if hasattr(item, "model_dump") else item for item in items]


class _WritesMessages:
    """The `openai` client as the SDK's Chat model sees it: its requests carry the messages the model
    wrote from the conversation; everything else is the client's own."""

    def __init__(self, client: Any, model: ConversationChatModel) -> None:
        self._client = client
        self._model = model
        self.chat = _Chat(self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def with_options(self, **options: Any) -> _WritesMessages:
        """The client with other options (the SDK's retry settings), writing messages the same way."""
        return _WritesMessages(self._client.with_options(**options), self._model)


class _Chat:
    def __init__(self, owner: _WritesMessages) -> None:
        self.completions = _Completions(owner)


class _Completions:
    def __init__(self, owner: _WritesMessages) -> None:
        self._owner = owner

    async def create(self, **request: Any) -> Any:
        messages = self._owner._model._messages
        if messages is not None:
            request["messages"] = messages
        tools = request.get("tools")
        if isinstance(tools, list):  # `strict: false` is the default, and some endpoints refuse the field
            request["tools"] = [_not_strict(tool) for tool in tools]
        request.pop("store", None)  # the SDK's default at api.openai.com: store every completion
        return await self._owner._client.chat.completions.create(**request)


def _not_strict(tool: Any) -> Any:
    """A Chat tool definition without `strict: false`."""
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict) or function.get("strict") is not False:
        return tool
    return {**tool, "function": {key: value for key, value in function.items() if key != "strict"}}


class CheckedResponsesModel(WireChecked, OpenAIResponsesModel):
    """The SDK's Responses model (its default wire)."""


def sdk_model(api: str, model: str, client: Any, wire: WireState) -> Model:
    """The SDK model for the run's wire: `chat` or `responses`."""
    if api == "responses":
        return CheckedResponsesModel(model=model, openai_client=client, wire=wire)
    return ConversationChatModel(model=model, openai_client=client, wire=wire)
