"""What the baselines read from a request, and how they write their answer.

A baseline is stateless: each request carries the whole conversation, and `Conversation` reads from
it the question, the report format asked for, the tools offered, and every tool call made so far with
its arguments and what it returned. `report` writes the answer in the format asked (the JSON schema,
JSON text, or prose).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from k8s_agent_scripted_llm.script import Reply, ToolCall

JSON_REPORT_INSTRUCTIONS = "Write the final report as one JSON object"
# How the harness answers a call it did not run, or one that failed: a baseline reads such an answer
# as no result. A call beyond the per-turn cap was not run: it may be asked again.
_NOT_RUN = "Tool call not run"
_FAILED = (
    "Tool call failed",
    "Tool call refused",
    "Unknown tool",
    "Invalid arguments",
    "Tool arguments are not valid JSON",
    "Tool '",
)
_NAMESPACE = (
    re.compile(
        r"\b(?:in|of|for)\s+(?:the\s+|our\s+|my\s+)?[\"'`]?([a-z0-9][a-z0-9-]*)[\"'`]?\s+namespace\b", re.I
    ),
    re.compile(r"\bnamespace\s+(?:called\s+|named\s+)?[\"'`]?([a-z0-9][a-z0-9-]*)", re.I),
)
_NOT_NAMES = frozenset(
    {"the", "a", "an", "our", "my", "this", "that", "which", "what", "is", "are", "called", "named"}
)


@dataclass(frozen=True)
class Call:
    """A tool call a baseline means to make: the tool and its arguments."""

    tool: str
    arguments: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, tool: str, **arguments: Any) -> Call:
        """The call with the arguments given that are not None."""
        return cls(tool, tuple(sorted((k, v) for k, v in arguments.items() if v is not None)))

    def wire(self, call_id: str | None = None) -> ToolCall:
        return ToolCall(self.tool, json.dumps(dict(self.arguments)), call_id)


@dataclass(frozen=True)
class Read:
    """A tool call of the conversation and the answer it got."""

    call: Call
    call_id: str
    text: str

    @property
    def ok(self) -> bool:
        """Whether the call ran and returned the cluster's answer (not the harness's refusal or error)."""
        return not self.text.startswith((_NOT_RUN, *_FAILED))

    @property
    def run(self) -> bool:
        """Whether the call was run (a call beyond the turn's cap was not, and may be asked again)."""
        return not self.text.startswith(_NOT_RUN)


def text_of(content: Any) -> str:
    """The text of a message's content (a string, or a list of text parts)."""
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


class Conversation:
    """A Chat Completions request as a baseline reads it."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    @cached_property
    def question(self) -> str:
        return next(
            (text_of(m.get("content")) for m in self.body.get("messages") or [] if m.get("role") == "user"),
            "",
        )

    @cached_property
    def report_format(self) -> str:
        """`json_schema`, `json_text` or `prose`: what the request asks the final answer to be."""
        wanted = self.body.get("response_format") or {}
        if isinstance(wanted, dict) and wanted.get("type") == "json_schema":
            return "json_schema"
        system = " ".join(
            text_of(m.get("content")) for m in self.body.get("messages") or [] if m.get("role") == "system"
        )
        return "json_text" if JSON_REPORT_INSTRUCTIONS in system else "prose"

    @cached_property
    def tools(self) -> frozenset[str]:
        """The names of the tools the request offers."""
        return frozenset(
            str((tool.get("function") or {}).get("name", ""))
            for tool in self.body.get("tools") or []
            if isinstance(tool, dict)
        )

    @cached_property
    def reads(self) -> list[Read]:
        """Every tool call made so far that got an answer, in order."""
        asked: dict[str, Call] = {}
        found = []
        for message in self.body.get("messages") or []:
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                asked[str(call.get("id"))] = Call.of(str(function.get("name", "")), **_arguments(function))
            if message.get("role") == "tool":
                call_id = str(message.get("tool_call_id"))
                if call_id in asked:
                    found.append(Read(asked[call_id], call_id, text_of(message.get("content"))))
        return found

    def ask(self, calls: list[Call]) -> Reply:
        """A turn that makes the calls, with ids of their own (`call_<turn>_<n>`): the same run gets
        the same ids, and so sends the same bytes, whatever other runs the server answers."""
        turn = sum(1 for m in self.body.get("messages") or [] if m.get("tool_calls"))
        return Reply(tool_calls=tuple(call.wire(f"call_{turn + 1}_{n}") for n, call in enumerate(calls)))

    def read(self, call: Call) -> Read | None:
        """The answer the call got (its first that ran), or None when it was not made or not run."""
        return next((r for r in self.reads if r.call == call and r.run), None)

    def reads_of(self, tool: str) -> list[Read]:
        """The answers every call of a tool got."""
        return [r for r in self.reads if r.call.tool == tool]

    @cached_property
    def namespace(self) -> str | None:
        """The namespace the question names in so many words (`in the X namespace`, `namespace X`)."""
        for pattern in _NAMESPACE:
            for match in pattern.finditer(self.question):
                if match.group(1).lower() not in _NOT_NAMES:
                    return match.group(1).lower()
        return None


def _arguments(function: dict[str, Any]) -> dict[str, Any]:
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except ValueError:
        return {}
    return {str(k): v for k, v in arguments.items()} if isinstance(arguments, dict) else {}


def report(
    talk: Conversation,
    scope: str,
    findings: list[dict[str, Any]],
    healthy: list[str],
    unchecked: list[str] | None = None,
) -> Reply:
    """The final answer in the format the request asks for."""
    if talk.report_format == "prose":
        lines = [f"Scope: {scope}."]
        lines += [
            f"- {f['name']}: {f['status']} ({f['cause']}). Evidence: {f['evidence'][0]['text']}"
            for f in findings
        ]
        lines.append(f"Healthy: {len(healthy)}." if healthy or findings else "Everything looks healthy.")
        lines += [f"Not checked: {item}" for item in unchecked or []]
        return Reply(content="\n".join(lines))
    draft = {
        "scope": scope,
        "findings": findings,
        "healthy": {"count": len(healthy), "examples": healthy[:5]},
        "unchecked": list(unchecked or []),
    }
    text = json.dumps(draft, ensure_ascii=False)
    return Reply(content=text if talk.report_format == "json_schema" else f"```json\n{text}\n```")
