"""Two trivial models, the floor every eval is read against. Not LLMs, and not meant to be good.

- `baseline:parrot` calls no tool. It guesses from the question alone: a word of it that looks
  like a resource name (`checkout-api`, `ledger-7c9d-x2w`) is reported unhealthy, with a cause from
  the question's keywords ("crash", "memory", "image", "pending", ...); without one it answers
  "all healthy". Its evidence is the question itself.
- `baseline:status` makes one listing (`list_pods` of the namespace the question names, else of all;
  `list_nodes` for a question about nodes) and reports every row whose STATUS or READY column is not
  healthy, with a cause read off the STATUS column alone and the row as its evidence.

A real model that does not beat both on the eval has learnt nothing a listing does not say. Both
read a Chat Completions or a Responses request, answer in the report format it asks for (the JSON
schema, JSON text, or prose) and ignore `tool_choice`: they do what they do whatever the harness
asks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Reply, Step, ToolCall

PARROT = "baseline:parrot"
STATUS = "baseline:status"
JSON_REPORT_INSTRUCTIONS = "Write the final report as one JSON object"
HEALTHY = frozenset({"Running", "Completed", "Succeeded", "Ready"})
_NAMESPACE = (
    re.compile(
        r"\b(?:in|of|for)\s+(?:the\s+|our\s+|my\s+)?[\"'`]?([a-z0-9][a-z0-9-]*)[\"'`]?\s+namespace\b", re.I
    ),
    re.compile(r"\bnamespace\s+(?:called\s+|named\s+)?[\"'`]?([a-z0-9][a-z0-9-]*)", re.I),
)
_NOT_NAMES = frozenset(
    {"the", "a", "an", "our", "my", "this", "that", "which", "what", "is", "are", "called", "named"}
)
_NAME = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_NODES = re.compile(r"\bnodes?\b", re.I)
# The cause a word of the question suggests, in this order; the STATUS column's, likewise.
_QUESTION_CAUSES = (
    (re.compile(r"(?i)memory|\boom"), "oom_killed"),
    (re.compile(r"(?i)image|pull|registry"), "image_pull_failed"),
    (re.compile(r"(?i)pending|schedul|stuck"), "insufficient_resources"),
    (re.compile(r"(?i)secret|config"), "missing_config_reference"),
    (re.compile(r"(?i)ready|probe"), "readiness_probe_failure"),
    (re.compile(r"(?i)\bnode"), "node_not_ready"),
    (re.compile(r"(?i)crash|restart|down|broken|fail|error|wrong|issue|problem"), "crash_application"),
)
_STATUS_CAUSES = (
    (re.compile(r"OOMKilled"), "oom_killed"),
    (re.compile(r"ErrImagePull|ImagePullBackOff|InvalidImageName"), "image_pull_failed"),
    (re.compile(r"CreateContainerConfigError"), "missing_config_reference"),
    (re.compile(r"^Init:"), "init_container_failure"),
    (re.compile(r"Evicted"), "evicted"),
    (re.compile(r"Pending"), "insufficient_resources"),
    (re.compile(r"BackoffLimitExceeded"), "job_backoff_limit"),
    (re.compile(r"NotReady"), "node_not_ready"),
    (re.compile(r"Unknown|NodeLost"), "node_not_ready"),
    (re.compile(r"^Running$"), "readiness_probe_failure"),
)


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _question(body: dict[str, Any]) -> str:
    return next((_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"), "")


def _format(body: dict[str, Any]) -> str:
    wanted = body.get("response_format") or {}
    if isinstance(wanted, dict) and wanted.get("type") == "json_schema":
        return "json_schema"
    system = " ".join(
        _text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )
    return "json_text" if JSON_REPORT_INSTRUCTIONS in system else "prose"


def _results(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(tool, call id, content) of every tool result in the request."""
    names: dict[str, str] = {}
    found = []
    for message in body.get("messages") or []:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name", ""))
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            found.append((names.get(call_id, ""), call_id, _text(message.get("content"))))
    return found


def _namespace(question: str) -> str | None:
    for pattern in _NAMESPACE:
        for match in pattern.finditer(question):
            if match.group(1).lower() not in _NOT_NAMES:
                return match.group(1).lower()
    return None


def _report(body: dict[str, Any], scope: str, findings: list[dict[str, Any]], healthy: list[str]) -> Reply:
    report_format = _format(body)
    if report_format == "prose":
        lines = [f"Scope: {scope}."]
        lines += [
            f"- {f['name']}: {f['status']} ({f['cause']}). Evidence: {f['evidence'][0]['text']}"
            for f in findings
        ]
        lines.append(f"Healthy: {len(healthy)}." if healthy or findings else "Everything looks healthy.")
        return Reply(content="\n".join(lines))
    draft = {
        "scope": scope,
        "findings": findings,
        "healthy": {"count": len(healthy), "examples": healthy[:5]},
        "unchecked": [],
    }
    text = json.dumps(draft, ensure_ascii=False)
    return Reply(content=text if report_format == "json_schema" else f"```json\n{text}\n```")


def parrot(body: dict[str, Any]) -> Step:
    """Answer from the question's words alone, with no tool call."""
    body = chat_request(body)
    question = _question(body)
    namespace = _namespace(question)
    cause = next((cause for pattern, cause in _QUESTION_CAUSES if pattern.search(question)), None)
    names = [name for name in dict.fromkeys(_NAME.findall(question)) if name != namespace]
    findings = [
        {
            "kind": "node" if cause == "node_not_ready" else "pod",
            "name": name,
            "namespace": None if cause == "node_not_ready" else namespace,
            "status": "unhealthy",
            "cause": cause,
            "explanation": "The question says so.",
            "evidence": [{"text": question[:1000]}],
            "fix": "Look at it.",
        }
        for name in names
        if cause
    ]
    scope = f"pods in namespace {namespace}" if namespace else "the question"
    return _report(body, scope, findings, [])


def status(body: dict[str, Any]) -> Step:
    """One listing, then every row whose STATUS or READY is not healthy, its cause from STATUS alone."""
    body = chat_request(body)
    question = _question(body)
    nodes = bool(_NODES.search(question)) and not re.search(r"(?i)\bpods?\b", question)
    tool = "list_nodes" if nodes else "list_pods"
    listing = next(((call_id, text) for name, call_id, text in _results(body) if name == tool), None)
    namespace = None if nodes else _namespace(question)
    if listing is None:
        if not body.get("tools"):
            return _report(body, "nothing listed", [], [])
        return Reply(tool_calls=(ToolCall(tool, json.dumps({"namespace": namespace} if namespace else {})),))
    call_id, text = listing
    findings, healthy = [], []
    for row, cells in _rows(text):
        name = cells.get("NAME", "")
        state = cells.get("STATUS", "")
        ready = cells.get("READY", "")
        counts = ready.split("/") if "/" in ready else []
        not_ready = len(counts) == 2 and counts[0] != counts[1] and state != "Completed"
        if not name or (state in HEALTHY and not not_ready):
            healthy.append(name)
            continue
        cause = next(
            (cause for pattern, cause in _STATUS_CAUSES if pattern.search(state)), "crash_application"
        )
        findings.append(
            {
                "kind": "node" if nodes else "pod",
                "name": name,
                "namespace": None if nodes else cells.get("NAMESPACE") or namespace,
                "status": f"{state}, READY {ready}" if ready else state,
                "cause": cause,
                "explanation": f"The listing shows it {state}.",
                "evidence": [{"text": row.strip(), "call_id": call_id, "tool": tool}],
                "fix": "Look at its events and logs.",
            }
        )
    scope = (
        "nodes" if nodes else (f"pods in namespace {namespace}" if namespace else "pods in all namespaces")
    )
    return _report(body, scope, findings[:30], healthy)


def _rows(listing: str) -> list[tuple[str, dict[str, str]]]:
    """The rows of a kubectl-style table, each with its cells by column name."""
    lines = listing.splitlines()
    header = next((n for n, line in enumerate(lines) if re.match(r"^(NAMESPACE\s+)?NAME\s", line)), None)
    if header is None:
        return []
    columns = lines[header].split()
    rows = []
    for line in lines[header + 1 :]:
        cells = line.split()
        if len(cells) < len(columns) - 1 or not cells:
            break
        rows.append((line, dict(zip(columns, cells, strict=False))))
    return rows


RESPONDERS: dict[str, Callable[[dict[str, Any]], Step]] = {PARROT: parrot, STATUS: status}
