"""The conversation as the playbook reads it: the question, the tools offered, every call and its
result, and the report format the request asks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.playbook.tables import Pod, parse_pod_table
from k8s_agent_scripted_llm.script import message_text, requested_call

HEADER = "deterministic offline model: a scripted SRE playbook, not an LLM"

JSON_REPORT_INSTRUCTIONS = "Write the final report as one JSON object"
"""How the harness's system prompt asks for the JSON report in json_text mode (findings.instructions)."""


@dataclass
class Conversation:
    """The tool calls and results found in a request."""

    question: str
    offered: set[str]
    results: list[tuple[str, dict[str, Any], str]]  # (tool, arguments, content)
    call_ids: list[str] = field(default_factory=list)
    """The call id of each result, in the same order."""
    report_format: str = "prose"
    """How the request wants the report: json_schema (`response_format`), json_text (the JSON
    report described in the system prompt), or prose."""
    scope_notes: list[str] = field(default_factory=list)
    """What the playbook says about the scope it read (a namespace that does not exist, the pods a
    workload's name resolved to): the report's `unchecked` lines."""
    focus: list[str] = field(default_factory=list)
    """The pods of the workloads the question names: investigated even when they look healthy."""
    focus_notes: list[tuple[str, list[str]]] = field(default_factory=list)
    """What a workload's name resolved to (the note, the pods it names): said only while the report
    shows those pods nowhere else."""
    workloads: list[str] = field(default_factory=list)
    """The workloads that are the report's scope (a question about a workload), else empty."""
    missing: bool = False
    """The question names a workload that has no pod in what was listed."""
    healthy_notes: list[str] = field(default_factory=list)
    """Pods that looked suspect and were found healthy by describe_pod: said in the prose report."""

    @classmethod
    def parse(cls, body: dict[str, Any]) -> Conversation:
        messages = body.get("messages") or []
        question = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        offered = {t.get("function", {}).get("name") for t in body.get("tools") or []}
        calls: dict[str, tuple[str, dict[str, Any]]] = {}
        results = []
        call_ids = []
        for message in messages:
            for call in message.get("tool_calls") or []:
                calls[call.get("id")] = requested_call(call)
            if message.get("role") == "tool" and message.get("tool_call_id") in calls:
                name, arguments = calls[message["tool_call_id"]]
                results.append((name, arguments, message_text(message.get("content"))))
                call_ids.append(str(message["tool_call_id"]))
        system = " ".join(message_text(m.get("content")) for m in messages if m.get("role") == "system")
        wanted = body.get("response_format") or {}
        report_format = (
            "json_schema"
            if isinstance(wanted, dict) and wanted.get("type") == "json_schema"
            else "json_text"
            if JSON_REPORT_INSTRUCTIONS in system
            else "prose"
        )
        return cls(str(question), {n for n in offered if n}, results, call_ids, report_format)

    def latest(self, tool: str, pod: str | None = None, key: str = "name") -> str | None:
        """The last result of `tool` (for the object named `pod`), or None."""
        found = self._latest(tool, pod, key)
        return None if found is None else self.results[found][2]

    def first(self, tool: str) -> str | None:
        """The first result of `tool`, or None: the pod listing the question asked for (later
        listings are of the namespaces a dependency's host names)."""
        return next((content for name, _, content in self.results if name == tool), None)

    def latest_id(self, tool: str, pod: str | None = None, key: str = "name") -> str | None:
        """The call id of that result, or None."""
        found = self._latest(tool, pod, key)
        return self.id_of(found)

    def id_of(self, index: int | None) -> str | None:
        """The call id of the result at `index`, or None."""
        return None if index is None or index >= len(self.call_ids) else self.call_ids[index]

    def _latest(self, tool: str, pod: str | None, key: str) -> int | None:
        for index in range(len(self.results) - 1, -1, -1):
            name, arguments, _ = self.results[index]
            if name == tool and (pod is None or arguments.get(key) == pod):
                return index
        return None

    def quote(self, text: str, tool: str, pod: str | None = None, key: str = "name") -> dict[str, Any]:
        """A quote of the report: the text, with the call whose result it is from."""
        return {"text": text, "call_id": self.latest_id(tool, pod, key), "tool": tool}


def all_listed(chat: Conversation) -> list[Pod]:
    """Every pod of every pod listing of the conversation (once, by namespace and name)."""
    pods: dict[tuple[str, str], Pod] = {}
    for tool, arguments, content in chat.results:
        if tool != "list_pods" or content.startswith("Tool call failed"):
            continue
        for pod in parse_pod_table(content):
            pod.namespace = pod.namespace or str(arguments.get("namespace") or "")
            pods.setdefault((pod.namespace, pod.name), pod)
    return list(pods.values())


def namespace_listed(chat: Conversation, namespace: str) -> bool:
    """Whether a pod listing covers the namespace (a listing of it, or of every namespace)."""
    return any(
        tool == "list_pods"
        and not content.startswith("Tool call failed")
        and arguments.get("namespace") in (None, "", namespace)
        for tool, arguments, content in chat.results
    )


def described_pods(chat: Conversation, pods: Sequence[Pod]) -> set[str]:
    """The pods a describe_pod result shows (the prose report's Checked lines name them)."""
    return {pod.name for pod in pods if chat.latest("describe_pod", pod.name) is not None}


def logs_of(
    chat: Conversation, name: str, previous: bool = False, container: str | None = None
) -> tuple[str, str | None]:
    """The last get_pod_logs result of the pod (of its previous container with `previous`; of the
    container read by that name with `container`, else of the read that named none), and its call id."""
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if (
            tool == "get_pod_logs"
            and arguments.get("name") == name
            and bool(arguments.get("previous")) == previous
            and arguments.get("container") == container
        ):
            return content, chat.id_of(index)
    return "", None


def readable(logs: str) -> str:
    failed = logs.startswith(("Tool call failed", "[Duplicate call]")) or logs == "(no log lines)"
    return "" if failed else logs


def listing_row(chat: Conversation, pod: Pod) -> str:
    """The pod's row of the latest listing that shows it (or its status, when none does)."""
    return listing_row_and_id(chat, pod)[0]


def listing_row_and_id(chat: Conversation, pod: Pod) -> tuple[str, str | None]:
    for index in range(len(chat.results) - 1, -1, -1):
        tool, _, content = chat.results[index]
        if tool != "list_pods":
            continue
        row = next(
            (
                line.strip()
                for line in content.splitlines()
                if line.split()[1:2] == [pod.name] or line.split()[:1] == [pod.name]
            ),
            None,
        )
        if row is not None:
            return row, chat.id_of(index)
    return pod.status, chat.latest_id("list_pods")
