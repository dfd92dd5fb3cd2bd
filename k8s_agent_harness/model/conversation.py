"""One conversation, whichever wire carries it.

Both loops keep the run's conversation as one provider-neutral list of pieces: the user's texts
(the question, pushbacks, the summary instruction, the note for dropped turns), the model's turns
(its text, its tool calls, and items only the Responses API has, such as reasoning, kept opaque and
sent back as they came) and the results that answer each call id. Thin writers put it on a wire:
`chat_messages` (Chat Completions messages), `input_items` (Responses API input items, which are
also the OpenAI Agents SDK's items); `from_items` reads the SDK's items back. Compaction to the
context budget (`compacted`) is written once, against the pieces, so the hand-written loop on
either wire and the SDK port take out the same things.

What a provider puts in a Chat Completions assistant message beside its text and calls (DeepSeek's
`reasoning_content`, OpenRouter's `reasoning` and `reasoning_details`, Mistral's content chunks,
Gemini's `extra_content` on a call, ...) is read once, by `turn_from_chat`, into the turn's and
each call's `provider` fields, and written back into the assistant message as it came. In the
SDK's items (Chat wire) they ride on the turn's first item and on each call item
(`CHAT_MESSAGE_FIELDS`, `CHAT_CALL_FIELDS`), so that `from_items` reads them back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from k8s_agent_harness.model import prompts
from k8s_agent_harness.model.context import (
    ARGUMENTS,
    PIECE_OVERHEAD,
    TEXT,
    TOOL_RESULT,
    Budget,
    Entry,
    ResultStore,
    dropped_note,
    plan,
    wire_size,
)


@dataclass(frozen=True)
class UserText:
    """A user message: the question, a pushback, an instruction, a note."""

    text: str
    raw: dict[str, Any] | None = None
    """The input item it was read from (written back unchanged)."""


@dataclass(frozen=True)
class Said:
    """The model's text in a turn."""

    text: str
    raw: dict[str, Any] | None = None


@dataclass(frozen=True)
class Call:
    """One tool call the model proposed."""

    call_id: str
    name: str
    arguments: str
    raw: dict[str, Any] | None = None
    provider: dict[str, Any] = field(default_factory=dict)
    """The fields the provider put in the Chat tool call beside id, type and function (Gemini's
    `extra_content`), sent back in it as they came."""


@dataclass(frozen=True)
class Opaque:
    """An item only the Responses API carries (reasoning, ...): sent back as it came on that wire,
    left out of Chat messages, never read."""

    raw: Any


Part = Said | Call | Opaque


@dataclass(frozen=True)
class ModelTurn:
    """What the model said in one response, in its order."""

    parts: tuple[Part, ...]
    provider: dict[str, Any] = field(default_factory=dict)
    """The fields the provider put in the Chat assistant message beside its text and calls
    (`reasoning_content`, `reasoning`, `reasoning_details`, content chunks as `content`, ...),
    sent back in it as they came."""

    @property
    def text(self) -> str:
        """The turn's text (all its text parts)."""
        return "".join(part.text for part in self.parts if isinstance(part, Said))

    @property
    def calls(self) -> list[Call]:
        """The turn's tool calls, in order."""
        return [part for part in self.parts if isinstance(part, Call)]


@dataclass(frozen=True)
class Result:
    """The answer to one call id."""

    call_id: str
    output: str
    raw: dict[str, Any] | None = None


Piece = UserText | ModelTurn | Result | Opaque

CHAT_MESSAGE_FIELDS = "chat_message_fields"
"""The key of a turn's provider fields on its first input item (the SDK port on the Chat wire)."""
CHAT_CALL_FIELDS = "chat_call_fields"
"""The key of a call's provider fields on its function_call item (the SDK port on the Chat wire)."""
STANDARD_MESSAGE_FIELDS = frozenset(
    {"role", "content", "tool_calls", "refusal", "annotations", "audio", "function_call", "name"}
)
"""The fields of a Chat assistant message that are not a provider's own: OpenAI's (the ones only
a response has, `refusal`, `annotations`, `audio`, are not sent back)."""
STANDARD_CALL_FIELDS = frozenset({"id", "type", "function", "index"})
"""The fields of a Chat tool call that are not a provider's own (`index` places a call in a response)."""


def turn_from_chat(message: dict[str, Any]) -> ModelTurn:
    """The turn a Chat Completions assistant message says: its text, its calls (ids and argument
    strings as the wire repaired them) and the provider's own fields, kept as they came.

    A field whose value is null says nothing and is not kept. Content sent as a list of chunks
    (Mistral's thinking and text chunks) is read as the text of its text chunks and kept whole,
    to go back as it came.
    """
    provider = {
        key: value
        for key, value in message.items()
        if key not in STANDARD_MESSAGE_FIELDS and value is not None
    }
    content = message.get("content")
    if isinstance(content, list):
        text = content_text(content)
        provider["content"] = content
    else:
        text = content if isinstance(content, str) else ""
    parts: list[Part] = [Said(text)] if text else []
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        arguments = function.get("arguments")
        parts.append(
            Call(
                str(call.get("id") or ""),
                str(function.get("name") or ""),
                arguments if isinstance(arguments, str) else "",
                provider={
                    key: value
                    for key, value in call.items()
                    if key not in STANDARD_CALL_FIELDS and value is not None
                },
            )
        )
    return ModelTurn(tuple(parts), provider)


def content_text(content: Any) -> str:
    """The text of a Chat message's content: the string, or its text chunks joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(part.get("text") or "")
        for part in content
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


@dataclass
class Conversation:
    """The run's conversation: instructions, then the pieces in order."""

    instructions: str
    pieces: list[Piece] = field(default_factory=list)

    def user(self, text: str) -> None:
        """Append a user message."""
        self.pieces.append(UserText(text))

    def model_said(self, turn: ModelTurn) -> None:
        """Append a model turn (a turn with nothing in it adds nothing)."""
        if turn.parts:
            self.pieces.append(turn)

    def result(self, call_id: str, output: str) -> None:
        """Append the answer to a call."""
        self.pieces.append(Result(call_id, output))

    # -- writers -----------------------------------------------------------------------------------

    def chat_messages(self) -> list[dict[str, Any]]:
        """The conversation as Chat Completions messages (the instructions as the system message)."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.instructions}]
        for piece in self.pieces:
            if isinstance(piece, UserText):
                messages.append({"role": "user", "content": piece.text})
            elif isinstance(piece, Result):
                messages.append({"role": "tool", "tool_call_id": piece.call_id, "content": piece.output})
            elif isinstance(piece, ModelTurn):
                message: dict[str, Any] = {"role": "assistant"}
                if piece.text:  # "content": null costs the client's request transform a union walk
                    message["content"] = piece.text
                calls = piece.calls
                if calls:
                    message["tool_calls"] = [
                        {
                            "id": call.call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                            **call.provider,
                        }
                        for call in calls
                    ]
                if (piece.text or calls) and piece.provider:
                    message.update(piece.provider)  # as it came: content chunks replace the text
                if len(message) > 1:
                    messages.append(message)
        return messages

    def input_items(self) -> list[Any]:
        """The conversation as Responses API input items (the SDK's items); the instructions go in
        the request's `instructions`. Items read from the wire go back as they came."""
        items: list[Any] = []
        for piece in self.pieces:
            if isinstance(piece, UserText):
                items.append(piece.raw if piece.raw is not None else {"role": "user", "content": piece.text})
            elif isinstance(piece, Result):
                items.append(
                    piece.raw
                    if piece.raw is not None
                    else {"call_id": piece.call_id, "output": piece.output, "type": "function_call_output"}
                )
            elif isinstance(piece, Opaque):
                items.append(piece.raw)
            else:
                items.extend(_turn_items(piece))
        return items

    @classmethod
    def from_items(cls, items: Iterable[Any], instructions: str | None) -> Conversation:
        """Read Responses API input items (the SDK's items): consecutive model items (messages of
        the assistant, function calls, reasoning) make one turn."""
        pieces: list[Piece] = []
        turn: list[Part] = []
        provider: dict[str, Any] = {}

        def close() -> None:
            if turn:
                pieces.append(ModelTurn(tuple(turn), dict(provider)))
                turn.clear()
            provider.clear()

        for item in items:
            kind = item.get("type") if isinstance(item, dict) else None
            role = item.get("role") if isinstance(item, dict) else None
            if kind in ("function_call", "reasoning") or role == "assistant":
                provider.update(item.get(CHAT_MESSAGE_FIELDS) or {})
            if kind == "function_call":
                turn.append(
                    Call(
                        str(item.get("call_id")),
                        str(item.get("name") or ""),
                        str(item.get("arguments") or ""),
                        item,
                        dict(item.get(CHAT_CALL_FIELDS) or {}),
                    )
                )
            elif role == "assistant":
                turn.append(Said(_text(item), item))
            elif kind == "reasoning":
                turn.append(Opaque(item))
            elif kind == "function_call_output":
                close()
                output = item.get("output")
                pieces.append(
                    Result(
                        str(item.get("call_id")),
                        output if isinstance(output, str) else json.dumps(output),
                        item,
                    )
                )
            elif role in ("user", "system", "developer"):
                close()
                pieces.append(UserText(_text(item), item))
            else:
                close()
                pieces.append(Opaque(item))
        close()
        return cls(instructions or "", pieces)

    # -- compaction --------------------------------------------------------------------------------

    def compacted(
        self, tools: Sequence[dict[str, Any]] | None, store: ResultStore, budget: Budget, extra: int = 0
    ) -> Conversation:
        """The conversation as far as the context budget needs it shrunk (this one is not changed).

        Measured as the wire carries it: the instructions, user texts, the tool definitions and
        `extra` (the report's format) cannot shrink; the model's texts, the call arguments and the
        results are the entries `context.plan` chooses from, each turn being a model turn and the
        results of its calls.
        """
        capped = self._within_call_cap(budget.calls_per_turn)
        if capped is not self:
            return capped.compacted(tools, store, Budget(budget.tokens), extra)
        entries: list[Entry] = []
        where: list[tuple[int, int | None]] = []  # (piece, part) of each entry
        turn_of: dict[int, int] = {}
        fixed = len(json.dumps(list(tools or []))) + extra
        fixed += PIECE_OVERHEAD + wire_size(self.instructions) if self.instructions else 0
        calls: dict[str, tuple[str, str]] = {}
        turn = -1
        for index, piece in enumerate(self.pieces):
            if isinstance(piece, UserText):
                fixed += PIECE_OVERHEAD + wire_size(piece.text)
                continue
            if isinstance(piece, Opaque):
                fixed += PIECE_OVERHEAD + len(json.dumps(piece.raw, default=str))
                continue
            if isinstance(piece, ModelTurn):
                turn += 1
                fixed += _provider_bytes(piece)
                for slot, part in enumerate(piece.parts):
                    if isinstance(part, Said) and part.text:
                        entries.append(Entry(TEXT, wire_size(part.text), turn, text=part.text))
                        where.append((index, slot))
                    elif isinstance(part, Call):
                        if part.provider:
                            fixed += len(json.dumps(part.provider, default=str))
                        calls[part.call_id] = (part.name, part.arguments)
                        entries.append(
                            Entry(
                                ARGUMENTS,
                                wire_size(part.arguments),
                                turn,
                                part.call_id,
                                part.arguments,
                                part.name,
                            )
                        )
                        where.append((index, slot))
                    elif isinstance(part, Opaque):
                        fixed += PIECE_OVERHEAD + len(json.dumps(part.raw, default=str))
            else:
                name, raw = calls.get(piece.call_id, ("", ""))
                entries.append(
                    Entry(TOOL_RESULT, wire_size(piece.output), turn, piece.call_id, piece.output, name, raw)
                )
                where.append((index, None))
            turn_of[index] = turn
        decided = plan(entries, fixed, budget)
        if not decided.changed and not decided.dropped:
            return self
        pieces = list(self.pieces)
        for number in decided.changed:
            entry, (at, position) = entries[number], where[number]
            text = decided.rewrite(number, entry, store)
            changed = pieces[at]
            if isinstance(changed, ModelTurn) and position is not None:
                parts = list(changed.parts)
                part = parts[position]
                parts[position] = (
                    _rewritten_call(part, text) if isinstance(part, Call) else _rewritten_text(part, text)
                )
                fields = changed.provider
                if isinstance(part, Said):  # content chunks as they came no longer say what is sent
                    fields = {key: value for key, value in fields.items() if key != "content"}
                pieces[at] = ModelTurn(tuple(parts), fields)
            elif isinstance(changed, Result):
                item = {**changed.raw, "output": text} if changed.raw is not None else None
                pieces[at] = Result(changed.call_id, text, item)
        if decided.dropped:
            note: UserText | None = UserText(dropped_note(entries, decided.dropped, store))
            kept: list[Piece] = []
            for index, piece in enumerate(pieces):
                if turn_of.get(index) in decided.dropped:
                    if note is not None:
                        kept.append(note)
                        note = None
                    continue
                kept.append(piece)
            pieces = kept
        return Conversation(self.instructions, pieces)

    def _within_call_cap(self, cap: int) -> Conversation:
        """The conversation without the calls no turn may hold: a turn's calls beyond `cap`, and
        calls whose name no tool can have (longer than MAX_TOOL_NAME): they were never run, and
        their answers are left out with them; one note after the turn's answers says so. This one
        when no turn holds such calls."""
        pieces: list[Piece] = []
        left_out: set[str] = set()
        note: str | None = None
        for piece in self.pieces:
            if isinstance(piece, Result):
                if piece.call_id not in left_out:
                    pieces.append(piece)
                continue
            if note is not None:  # the first piece after the answers of the turn the note is about
                pieces.append(UserText(note))
                note = None
            if isinstance(piece, ModelTurn):
                calls = piece.calls
                over = {
                    call.call_id
                    for position, call in enumerate(calls)
                    if (cap and position >= cap) or len(call.name) > MAX_TOOL_NAME
                }
                if over:
                    left_out |= over
                    longest = max(len(call.name) for call in calls if call.call_id in over)
                    note = prompts.calls_left_out(len(calls), len(over), cap, longest)
                    kept = tuple(p for p in piece.parts if not (isinstance(p, Call) and p.call_id in over))
                    piece = ModelTurn(kept, piece.provider)
                    if not any(isinstance(part, Said | Call) for part in kept):
                        continue
            pieces.append(piece)
        if note is not None:
            pieces.append(UserText(note))
        return Conversation(self.instructions, pieces) if left_out else self


MAX_TOOL_NAME = 128
"""The longest name an MCP tool may have: a call that names a longer one calls nothing."""


def _provider_bytes(turn: ModelTurn) -> int:
    """What a turn's provider fields add on the wire: content chunks stand for the text (counted as
    the turn's text, which compaction may clip), so only what they hold beside it is added."""
    if not turn.provider:
        return 0
    fields = dict(turn.provider)
    content = fields.pop("content", None)
    size = len(json.dumps(fields, default=str)) if fields else 0
    if content is not None:
        size += max(0, len(json.dumps(content, default=str)) - wire_size(turn.text))
    return size


def _rewritten_call(call: Call, arguments: str) -> Call:
    raw = {**call.raw, "arguments": arguments} if call.raw is not None else None
    return replace(call, arguments=arguments, raw=raw)


def _rewritten_text(part: Part, text: str) -> Part:
    assert isinstance(part, Said)
    raw = (
        {**part.raw, "content": [{"type": "output_text", "text": text, "annotations": []}]}
        if part.raw is not None
        else None
    )
    return Said(text, raw)


def _turn_items(turn: ModelTurn) -> list[Any]:
    """A model turn as input items, its provider fields on the first item and on each call item
    (dropped from them when there are none)."""
    items = []
    for slot, part in enumerate(turn.parts):
        item = _item(part)
        if isinstance(item, dict):
            fields = {CHAT_MESSAGE_FIELDS: turn.provider if slot == 0 else None}
            if isinstance(part, Call):
                fields[CHAT_CALL_FIELDS] = part.provider
            item = _with_fields(item, fields)
        items.append(item)
    return items


def _with_fields(item: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """`item` with each of `fields` set (a non-empty value) or removed."""
    if all((item.get(key) or None) == (value or None) for key, value in fields.items()):
        return item
    changed = {key: value for key, value in item.items() if key not in fields}
    changed.update({key: value for key, value in fields.items() if value})
    return changed


def _item(part: Part) -> Any:
    """A model part as an input item (as it came on the wire, when it did)."""
    if isinstance(part, Opaque):
        return part.raw
    if part.raw is not None:
        return part.raw
    if isinstance(part, Call):
        return {
            "arguments": part.arguments,
            "call_id": part.call_id,
            "name": part.name,
            "type": "function_call",
        }
    return {
        "content": [{"type": "output_text", "text": part.text, "annotations": []}],
        "role": "assistant",
        "type": "message",
    }


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(
        str(part.get("text") or "") for part in content or [] if isinstance(part, dict) and "text" in part
    )
