"""The SDK's models for both wires, with one fix the SDK needs for some endpoints: unique tool-call ids.

Some OpenAI-compatible servers number tool calls `call_1`, `call_2`, ... afresh in every response.
The SDK (0.24.0, probe `reused_ids`) silently drops a call whose id it has seen with the same
arguments, and fails the run when the arguments differ. The hand-written loop answers such calls
like any other. Here every id the run has already seen is renamed before the SDK sees it, so the
SDK's history (and what it sends back) stays consistent and every call reaches the gateway.
"""

from __future__ import annotations

from typing import Any

from agents import Model, ModelResponse, OpenAIChatCompletionsModel, OpenAIResponsesModel
from openai.types.responses import ResponseFunctionToolCall

from k8s_agent_harness.model_client import WireState


class UniqueCallIds:
    """A model mixin whose responses never repeat a tool-call id within a run."""

    def __init__(self, *args: Any, wire: WireState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wire = wire
        self._seen: set[str] = set()

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The inner response, with reused call ids renamed `<id>~<n>`."""
        response: ModelResponse = await super().get_response(*args, **kwargs)  # type: ignore[misc]
        self._wire.check()  # a malformed response ends the run: the SDK would go on with what it made of it
        output = []
        position = 0
        for item in response.output:
            if isinstance(item, ResponseFunctionToolCall):
                call_id = item.call_id
                if call_id in self._seen:
                    call_id = self._fresh(call_id)
                    item = item.model_copy(update={"call_id": call_id})
                    self._wire.propose(call_id, item.arguments, position)
                self._seen.add(call_id)
                position += 1
            output.append(item)
        response.output = output
        return response

    def _fresh(self, call_id: str) -> str:
        number = 2
        while f"{call_id}~{number}" in self._seen:
            number += 1
        return f"{call_id}~{number}"


class UniqueCallIdsModel(UniqueCallIds, OpenAIChatCompletionsModel):
    """The SDK's Chat Completions model, call ids unique within a run."""


class UniqueCallIdsResponsesModel(UniqueCallIds, OpenAIResponsesModel):
    """The SDK's Responses model (its default wire), call ids unique within a run."""


def sdk_model(api: str, model: str, client: Any, wire: WireState) -> Model:
    """The SDK model for the run's wire: `chat` or `responses`."""
    if api == "responses":
        return UniqueCallIdsResponsesModel(model=model, openai_client=client, wire=wire)
    return UniqueCallIdsModel(model=model, openai_client=client, wire=wire)
